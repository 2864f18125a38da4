//! Merge sort as fork-join tasks with a parallel merge written by hand (`mergesort --merge-path`;
//! the example's default, `mod.rs`, merges with one `ctx.merge` call instead). A range longer
//! than the cutoff spawns its two halves; when both are sorted, its complete handler spawns the
//! merge, which splits its output in halves down to pieces of at most `grain` keys that run
//! side by side (merge path: each piece finds where its part of the output starts in the two
//! runs by a binary search along its diagonal, then merges sequentially); when the whole merge
//! is done, the complete handler runs a second time and the range is sorted. Short ranges are
//! sorted in a local array by one task.
//! Sorted runs alternate between the two buffers level by level, so no merge copies back:
//! a task sorts its range into `dst`, its children sort theirs into the other buffer.

use crate::keys;
use wsdsl::prelude::*;

#[megakernel]
pub mod merge_path {
    use wsdsl::prelude::*;

    /// Keys a leaf sorts in its local array (the largest cutoff).
    pub const LEAF: usize = 32;
    /// Parts a merge larger than the grain is split into at a time.
    pub const SPLIT: u32 = 16;

    #[params]
    pub struct Params {
        /// Ranges of at most this many keys (at most `LEAF`) are sorted by one task.
        pub cutoff: u32,
        /// Output keys per merge piece.
        pub grain: u32,
    }

    #[buffers]
    pub struct Buffers {
        /// The keys; sorted in place.
        pub data: Buffer<u32>,
        /// The other buffer sorted runs alternate with (same length as `data`).
        pub scratch: Buffer<u32>,
    }

    #[counters]
    pub struct Counters {
        pub leaves: Sum<u64>,
        pub merges: Sum<u64>,
        pub pieces: Sum<u64>,
    }

    /// Sort the keys of `data[lo..hi]` into buffer `dst` (0 = `data`, 1 = `scratch`).
    #[task]
    pub struct Sort {
        pub lo: u32,
        pub hi: u32,
        pub dst: u32,
    }

    /// Output keys `d0..d1` (counted from `lo`) of the merge of the sorted runs `lo..mid`
    /// and `mid..hi` of buffer `1 - dst`, written to buffer `dst`: split `SPLIT` ways down
    /// to `grain` keys, so a merge of any size spreads over workers without one task
    /// spawning thousands of pieces.
    #[task]
    pub struct Merge {
        pub lo: u32,
        pub mid: u32,
        pub hi: u32,
        pub d0: u32,
        pub d1: u32,
        pub dst: u32,
    }

    #[spawn]
    fn split(s: &Sort, ctx: &mut Ctx) {
        let n = s.hi - s.lo;
        if n > ctx.params.cutoff {
            let mid = middle(s.lo, s.hi);
            ctx.spawn(Sort { lo: s.lo, hi: mid, dst: 1 - s.dst });
            ctx.spawn(Sort { lo: mid, hi: s.hi, dst: 1 - s.dst });
            return;
        }
        // A leaf: insertion sort in a local array, written to `dst`.
        let mut keys = [0u32; LEAF];
        for i in 0..n as usize {
            keys[i] = ctx.buffers.data.get(s.lo as usize + i);
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
            if s.dst == 0 {
                ctx.buffers.data.set(s.lo as usize + i, keys[i]);
            } else {
                ctx.buffers.scratch.set(s.lo as usize + i, keys[i]);
            }
        }
        ctx.counters.leaves.add(1);
    }

    /// Round 1: both halves are sorted; spawn their merge. Round 2: it is done.
    #[complete]
    fn merge_halves(s: &Sort, ctx: &mut Ctx) {
        if ctx.round() == 1 {
            ctx.counters.merges.add(1);
            ctx.spawn(Merge { lo: s.lo, mid: middle(s.lo, s.hi), hi: s.hi, d0: 0, d1: s.hi - s.lo, dst: s.dst });
        }
    }

    #[spawn]
    fn merge_piece(m: &Merge, ctx: &mut Ctx) {
        let len = m.d1 - m.d0;
        if len > ctx.params.grain {
            // Split the output into up to SPLIT parts of whole grains.
            let grains = len / ctx.params.grain + (len % ctx.params.grain != 0) as u32;
            let parts = if grains < SPLIT { grains } else { SPLIT };
            for p in 0..parts {
                let d0 = m.d0 + ((len as u64 * p as u64) / parts as u64) as u32;
                let d1 = m.d0 + ((len as u64 * (p + 1) as u64) / parts as u64) as u32;
                ctx.spawn(Merge { lo: m.lo, mid: m.mid, hi: m.hi, d0, d1, dst: m.dst });
            }
            return;
        }
        let (na, nb) = (m.mid - m.lo, m.hi - m.mid);
        // Where output key d0 comes from: i keys of the left run and d0 - i of the right,
        // with ties taken from the left (a stable merge).
        let (mut lo, mut hi) = (if m.d0 > nb { m.d0 - nb } else { 0 }, if m.d0 < na { m.d0 } else { na });
        while lo < hi {
            let probe = lo + (hi - lo) / 2;
            let a = if m.dst == 0 { ctx.buffers.scratch.get((m.lo + probe) as usize) } else { ctx.buffers.data.get((m.lo + probe) as usize) };
            let b_at = (m.mid + m.d0 - probe - 1) as usize;
            let b = if m.dst == 0 { ctx.buffers.scratch.get(b_at) } else { ctx.buffers.data.get(b_at) };
            if a <= b {
                lo = probe + 1;
            } else {
                hi = probe;
            }
        }
        // The next key of each run is held in a register: one load per output key.
        let (mut i, mut j) = (lo, m.d0 - lo);
        let mut a = 0u32;
        let mut b = 0u32;
        if i < na {
            a = if m.dst == 0 { ctx.buffers.scratch.get((m.lo + i) as usize) } else { ctx.buffers.data.get((m.lo + i) as usize) };
        }
        if j < nb {
            b = if m.dst == 0 { ctx.buffers.scratch.get((m.mid + j) as usize) } else { ctx.buffers.data.get((m.mid + j) as usize) };
        }
        for d in m.d0..m.d1 {
            let take_left = j >= nb || (i < na && a <= b);
            let v = if take_left { a } else { b };
            if m.dst == 0 {
                ctx.buffers.data.set((m.lo + d) as usize, v);
            } else {
                ctx.buffers.scratch.set((m.lo + d) as usize, v);
            }
            if take_left {
                i += 1;
                if i < na && d + 1 < m.d1 {
                    a = if m.dst == 0 { ctx.buffers.scratch.get((m.lo + i) as usize) } else { ctx.buffers.data.get((m.lo + i) as usize) };
                }
            } else {
                j += 1;
                if j < nb && d + 1 < m.d1 {
                    b = if m.dst == 0 { ctx.buffers.scratch.get((m.mid + j) as usize) } else { ctx.buffers.data.get((m.mid + j) as usize) };
                }
            }
        }
        ctx.counters.pieces.add(1);
    }

    /// A split merge is done when all its parts are (their sort waits for all of it).
    #[complete]
    fn halves_merged(_m: &Merge, _ctx: &mut Ctx) {}

    fn middle(lo: u32, hi: u32) -> u32 {
        lo + (hi - lo) / 2
    }
}

/// Output keys per merge piece by default. A piece merges one key per dependent load (a few
/// hundred cycles on the GPU), so pieces are short and many: 16 M keys make 256 k pieces per
/// level, each a binary search and 64 keys.
pub const DEFAULT_GRAIN: u32 = 64;

/// What a sort run produced.
pub struct Sorted {
    pub data: Vec<u32>,
    pub leaves: u64,
    pub merges: u64,
    pub pieces: u64,
}

/// Sorts `input`: ranges of at most `cutoff` keys directly, merges in pieces of `grain` keys.
pub fn sort(rt: &Runtime, input: &[u32], cutoff: u32, grain: u32) -> Result<(Sorted, Output<merge_path::Kernel>), wsdsl::Error> {
    keys::check_options(input.len(), cutoff, merge_path::LEAF)?;
    if grain == 0 {
        return Err(wsdsl::Error::InvalidConfig("the merge grain must be at least 1".into()));
    }
    let buffers = merge_path::Buffers { data: Buffer::from_vec(input.to_vec()), scratch: Buffer::zeroed(input.len()) };
    let root = merge_path::Sort { lo: 0, hi: input.len() as u32, dst: 0 };
    let out = rt.run_with::<merge_path::Kernel>(merge_path::Params { cutoff, grain }, &buffers, [root])?;
    let c = &out.counters;
    let sorted = Sorted { data: buffers.data.to_vec(), leaves: c.leaves.get(), merges: c.merges.get(), pieces: c.pieces.get() };
    Ok((sorted, out))
}

/// The task tree for `n` keys: (leaves, merges, merge pieces).
pub fn tree_shape(n: u32, cutoff: u32, grain: u32) -> (u64, u64, u64) {
    if n <= cutoff {
        return (1, 0, 0);
    }
    let (a, b) = (tree_shape(n / 2, cutoff, grain), tree_shape(n - n / 2, cutoff, grain));
    (a.0 + b.0, a.1 + b.1 + 1, a.2 + b.2 + merge_pieces(n, grain))
}

/// Pieces a merge of `n` output keys is split into (`SPLIT` ways at a time, down to `grain`).
fn merge_pieces(n: u32, grain: u32) -> u64 {
    if n <= grain {
        return 1;
    }
    let parts = n.div_ceil(grain).min(merge_path::SPLIT) as u64;
    (0..parts).map(|p| merge_pieces(((n as u64 * (p + 1)) / parts - (n as u64 * p) / parts) as u32, grain)).sum()
}
