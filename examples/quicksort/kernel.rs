//! Quicksort as fork-join tasks with a parallel three-way partition. A range longer than the
//! cutoff picks a pivot (median of three) and cuts the range into pieces that count, side by
//! side, their keys below and equal to the pivot (each piece's value). The range's complete
//! handler then runs three times:
//!   round 1: from the counts, where each piece's keys go; the pieces run again, scattering
//!            their keys into the other buffer: below the pivot, equal, above;
//!   round 2: the keys below and above are sorted by two new tasks (reading the other buffer),
//!            and the keys equal to the pivot are final: a fill task writes them into `data`;
//!   round 3: done.
//! Short ranges are sorted in a local array by one task, straight into `data`.

#[path = "../common/keys.rs"]
mod keys;
pub use keys::{check, checked_keys};
// Unchecked: for the tests and benchmarks, which choose their own sizes.
#[allow(unused_imports)]
pub use keys::keys;
use wsdsl::prelude::*;

#[megakernel]
pub mod quicksort {
    use wsdsl::prelude::*;

    /// Keys a leaf sorts in its local array (the largest cutoff).
    pub const LEAF: usize = 32;
    /// The most pieces a partition is cut into.
    pub const MAX_PIECES: u32 = 1024;

    #[params]
    pub struct Params {
        /// Ranges of at most this many keys (at most `LEAF`) are sorted by one task.
        pub cutoff: u32,
        /// Keys per partition piece (at least; a range is cut into at most `MAX_PIECES`).
        pub grain: u32,
    }

    #[buffers]
    pub struct Buffers {
        /// The keys; sorted in place.
        pub data: Buffer<u32>,
        /// Where partitions alternate with `data` (same length).
        pub scratch: Buffer<u32>,
    }

    #[counters]
    pub struct Counters {
        pub leaves: Sum<u64>,
        pub partitions: Sum<u64>,
        pub pieces: Sum<u64>,
        pub depth: Max<u32>,
    }

    /// Sort the keys of positions `lo..hi`, now in buffer `src` (0 = `data`, 1 = `scratch`),
    /// into `data`, partitioning around `pivot` (chosen by whoever spawned the task: the
    /// median of the range's first, middle and last key). Its value is unused (0).
    #[task(value = u64)]
    pub struct Sort {
        pub lo: u32,
        pub hi: u32,
        pub src: u32,
        pub depth: u32,
        pub pivot: u32,
    }

    /// Piece `p0..p1` of a partition around `pivot` of keys in buffer `src`. Counting
    /// (`scatter == 0`), its value is (keys below the pivot) << 32 | (keys equal to it).
    /// Scattering, it also writes its keys into the other buffer: below the pivot from
    /// `below_at`, equal from `equal_at`, above from `above_at`.
    #[task(value = u64)]
    pub struct Piece {
        pub p0: u32,
        pub p1: u32,
        pub pivot: u32,
        pub src: u32,
        pub scatter: u32,
        pub below_at: u32,
        pub equal_at: u32,
        pub above_at: u32,
    }

    /// Write `value` into `data[lo..hi]` (keys equal to a pivot are final).
    #[task(value = u64)]
    pub struct Fill {
        pub lo: u32,
        pub hi: u32,
        pub value: u32,
    }

    #[spawn]
    fn sort(s: &Sort, ctx: &mut Ctx) -> u64 {
        ctx.counters.depth.max(s.depth);
        let n = s.hi - s.lo;
        if n <= ctx.params.cutoff {
            let mut keys = [0u32; LEAF];
            for i in 0..n as usize {
                let at = s.lo as usize + i;
                keys[i] = if s.src == 0 { ctx.buffers.data.get(at) } else { ctx.buffers.scratch.get(at) };
            }
            for i in 1..n as usize {
                let v = keys[i];
                let mut at = i;
                while at > 0 && keys[at - 1] > v {
                    keys[at] = keys[at - 1];
                    at -= 1;
                }
                keys[at] = v;
            }
            for i in 0..n as usize {
                ctx.buffers.data.set(s.lo as usize + i, keys[i]);
            }
            ctx.counters.leaves.add(1);
            return 0;
        }
        ctx.counters.partitions.add(1);
        let pieces = piece_count(n, ctx.params.grain);
        for p in 0..pieces {
            let (p0, p1) = piece_bounds(s.lo, n, pieces, p);
            ctx.spawn(Piece { p0, p1, pivot: s.pivot, src: s.src, scatter: 0, below_at: 0, equal_at: 0, above_at: 0 });
        }
        0
    }

    #[complete(max_children = 1024)]
    fn partitioned(s: &Sort, children: &[u64], ctx: &mut Ctx) -> u64 {
        let round = ctx.round();
        if round == 3 {
            return 0;
        }
        let n = s.hi - s.lo;
        let pieces = piece_count(n, ctx.params.grain);
        let (mut below, mut equal) = (0u32, 0u32);
        for i in 0..children.len() {
            below += (children[i] >> 32) as u32;
            equal += children[i] as u32;
        }
        if round == 1 {
            // Each piece's keys go after those of the pieces before it, in each of the three parts.
            let (mut b, mut e, mut a) = (s.lo, s.lo + below, s.lo + below + equal);
            for p in 0..pieces {
                let (p0, p1) = piece_bounds(s.lo, n, pieces, p);
                let (pb, pe) = ((children[p as usize] >> 32) as u32, children[p as usize] as u32);
                ctx.spawn(Piece { p0, p1, pivot: s.pivot, src: s.src, scatter: 1, below_at: b, equal_at: e, above_at: a });
                b += pb;
                e += pe;
                a += (p1 - p0) - pb - pe;
            }
            return 0;
        }
        // Round 2: the three parts are in the other buffer. Sort the outer two, each around
        // the median of three of its keys; the middle one is final.
        let other = 1 - s.src;
        for part in 0..2u32 {
            let (lo, hi) = if part == 0 { (s.lo, s.lo + below) } else { (s.lo + below + equal, s.hi) };
            if hi > lo {
                let probes = [lo, lo + (hi - lo) / 2, hi - 1];
                let mut k = [0u32; 3];
                for i in 0..3usize {
                    let at = probes[i] as usize;
                    k[i] = if other == 0 { ctx.buffers.data.get(at) } else { ctx.buffers.scratch.get(at) };
                }
                ctx.spawn(Sort { lo, hi, src: other, depth: s.depth + 1, pivot: median3(k[0], k[1], k[2]) });
            }
        }
        if equal > 0 {
            ctx.spawn(Fill { lo: s.lo + below, hi: s.lo + below + equal, value: s.pivot });
        }
        0
    }

    #[spawn]
    fn piece(p: &Piece, ctx: &mut Ctx) -> u64 {
        let (mut below, mut equal, mut above) = (0u32, 0u32, 0u32);
        // Keys are read 16 at a time into registers, so that the loads of a chunk are in flight
        // together instead of one global-memory latency per key. (The loops' bounds are
        // literals: loops over short literal ranges are unrolled, which keeps `keys` in
        // registers.)
        let mut at = p.p0;
        while at < p.p1 {
            let mut keys = [0u32; 16];
            let n = if p.p1 - at < 16 { (p.p1 - at) as usize } else { 16 };
            for k in 0..16usize {
                if k < n {
                    let i = at as usize + k;
                    keys[k] = if p.src == 0 { ctx.buffers.data.get(i) } else { ctx.buffers.scratch.get(i) };
                }
            }
            for k in 0..16usize {
                if k < n {
                    let v = keys[k];
                    let to = if v < p.pivot {
                        below += 1;
                        p.below_at + below - 1
                    } else if v == p.pivot {
                        equal += 1;
                        p.equal_at + equal - 1
                    } else {
                        above += 1;
                        p.above_at + above - 1
                    };
                    if p.scatter != 0 {
                        if p.src == 0 {
                            ctx.buffers.scratch.set(to as usize, v);
                        } else {
                            ctx.buffers.data.set(to as usize, v);
                        }
                    }
                }
            }
            at += n as u32;
        }
        ctx.counters.pieces.add(1);
        ((below as u64) << 32) | equal as u64
    }

    #[spawn]
    fn fill(f: &Fill, ctx: &mut Ctx) -> u64 {
        if f.hi - f.lo > ctx.params.grain {
            let mid = f.lo + (f.hi - f.lo) / 2;
            ctx.spawn(Fill { lo: f.lo, hi: mid, value: f.value });
            ctx.spawn(Fill { lo: mid, hi: f.hi, value: f.value });
            return 0;
        }
        for at in f.lo..f.hi {
            ctx.buffers.data.set(at as usize, f.value);
        }
        0
    }

    #[complete(max_children = 2)]
    fn filled(_f: &Fill, _children: &[u64], _ctx: &mut Ctx) -> u64 {
        0
    }

    /// Pieces a range of `n` keys is cut into.
    fn piece_count(n: u32, grain: u32) -> u32 {
        let pieces = n / grain + (n % grain != 0) as u32;
        if pieces > MAX_PIECES { MAX_PIECES } else if pieces == 0 { 1 } else { pieces }
    }

    /// Positions of piece `p` of `pieces` over `n` keys from `lo`.
    fn piece_bounds(lo: u32, n: u32, pieces: u32, p: u32) -> (u32, u32) {
        let first = lo + ((n as u64 * p as u64) / pieces as u64) as u32;
        let last = lo + ((n as u64 * (p + 1) as u64) / pieces as u64) as u32;
        (first, last)
    }

    /// The median of three keys.
    pub fn median3(a: u32, b: u32, c: u32) -> u32 {
        a.max(b).min(a.min(b).max(c))
    }
}

/// Keys per partition piece by default (a range is cut into at most `MAX_PIECES` pieces).
pub const DEFAULT_GRAIN: u32 = 1024;

/// What a sort run produced.
pub struct Sorted {
    pub data: Vec<u32>,
    pub leaves: u64,
    pub partitions: u64,
    pub depth: u32,
}

/// Sorts `input`: ranges of at most `cutoff` keys directly, partitions in pieces of at least
/// `grain` keys.
pub fn sort(rt: &Runtime, input: &[u32], cutoff: u32, grain: u32) -> Result<(Sorted, Output<quicksort::Kernel>), wsdsl::Error> {
    keys::check_options(input.len(), cutoff, grain, quicksort::LEAF, "partition")?;
    let n = input.len();
    let pivot = if n == 0 { 0 } else { quicksort::median3(input[0], input[n / 2], input[n - 1]) };
    let buffers = quicksort::Buffers { data: Buffer::from_vec(input.to_vec()), scratch: Buffer::zeroed(n) };
    let root = quicksort::Sort { lo: 0, hi: n as u32, src: 0, depth: 0, pivot };
    let out = rt.run_with::<quicksort::Kernel>(quicksort::Params { cutoff, grain }, &buffers, [root])?;
    let c = &out.counters;
    let sorted = Sorted { data: buffers.data.to_vec(), leaves: c.leaves.get(), partitions: c.partitions.get(), depth: c.depth.get() };
    Ok((sorted, out))
}
