//! Quicksort as fork-join tasks. A range longer than the cutoff is partitioned around a pivot
//! (the median of its first, middle and last key) with one call, `ctx.partition(..)`: a
//! data-parallel job that writes the keys below the pivot, then those equal to it, then the
//! rest into the other buffer, and gives their counts (docs/guide/4-jobs.md: the runtime runs a
//! short partition with all the threads of a worker, and cuts a long one into pieces that
//! count, then write where the counts say). When it is done the range's complete handler runs
//! and sorts the keys below and above the pivot with two new tasks; the keys equal to it are
//! final (copied back into `data` with `ctx.copy` if the partition left them in `scratch`).
//! Ranges of at most the cutoff are sorted by `ctx.sort(..)` (at most 256 keys), into `data`.

pub use crate::keys::{check, checked_keys};
// Unchecked: for the tests and benchmarks, which choose their own sizes.
pub use crate::keys::keys;
use wsdsl::prelude::*;

#[megakernel]
pub mod quicksort {
    use wsdsl::prelude::*;

    /// The most keys a leaf sorts (`ctx.sort`'s limit).
    pub const LEAF: usize = 256;

    #[params]
    pub struct Params {
        /// Ranges of at most this many keys (at most `LEAF`) are sorted by one `ctx.sort`.
        pub cutoff: u32,
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
        pub depth: Max<u32>,
    }

    /// Sort the keys of positions `lo..hi`, now in buffer `src` (0 = `data`, 1 = `scratch`),
    /// into `data`, partitioning around `pivot` (chosen by whoever spawned the task).
    #[task]
    pub struct Sort {
        pub lo: u32,
        pub hi: u32,
        pub src: u32,
        pub depth: u32,
        pub pivot: u32,
    }

    #[spawn]
    fn sort(s: &Sort, ctx: &mut Ctx) {
        ctx.counters.depth.max(s.depth);
        let (lo, hi) = (s.lo as usize, s.hi as usize);
        if s.hi - s.lo <= ctx.params.cutoff {
            if s.src == 0 {
                ctx.sort(&ctx.buffers.data, lo..hi, &ctx.buffers.data, lo);
            } else {
                ctx.sort(&ctx.buffers.scratch, lo..hi, &ctx.buffers.data, lo);
            }
            ctx.counters.leaves.add(1);
            return;
        }
        ctx.counters.partitions.add(1);
        if s.src == 0 {
            ctx.partition(&ctx.buffers.data, lo..hi, s.pivot, &ctx.buffers.scratch, lo);
        } else {
            ctx.partition(&ctx.buffers.scratch, lo..hi, s.pivot, &ctx.buffers.data, lo);
        }
    }

    /// Round 1 of a partitioned range: its three parts are in the other buffer; sort the outer
    /// two, each around the median of three of its keys. (A leaf's round 1, or a partition's
    /// round 2: the range is sorted.)
    #[complete]
    fn partitioned(s: &Sort, ctx: &mut Ctx) {
        if ctx.round() != 1 || s.hi - s.lo <= ctx.params.cutoff {
            return;
        }
        let (below, equal) = (ctx.result(0) as u32, ctx.result(1) as u32);
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
        // The keys equal to the pivot are final.
        let (e0, e1) = ((s.lo + below) as usize, (s.lo + below + equal) as usize);
        if equal > 0 && other == 1 {
            ctx.copy(&ctx.buffers.scratch, e0..e1, &ctx.buffers.data, e0);
        }
    }

    /// The median of three keys.
    pub fn median3(a: u32, b: u32, c: u32) -> u32 {
        a.max(b).min(a.min(b).max(c))
    }
}

/// What a sort run produced.
pub struct Sorted {
    pub data: Vec<u32>,
    pub leaves: u64,
    pub partitions: u64,
    pub depth: u32,
}

/// Sorts `input`: ranges of at most `cutoff` keys by `ctx.sort`, longer ones partitioned.
pub fn sort(rt: &Runtime, input: &[u32], cutoff: u32) -> Result<(Sorted, Output<quicksort::Kernel>), wsdsl::Error> {
    crate::keys::check_options(input.len(), cutoff, quicksort::LEAF)?;
    let n = input.len();
    let pivot = if n == 0 { 0 } else { quicksort::median3(input[0], input[n / 2], input[n - 1]) };
    let buffers = quicksort::Buffers { data: Buffer::from_vec(input.to_vec()), scratch: Buffer::zeroed(n) };
    let root = quicksort::Sort { lo: 0, hi: n as u32, src: 0, depth: 0, pivot };
    let out = rt.run_with::<quicksort::Kernel>(quicksort::Params { cutoff }, &buffers, [root])?;
    let c = &out.counters;
    let sorted = Sorted { data: buffers.data.to_vec(), leaves: c.leaves.get(), partitions: c.partitions.get(), depth: c.depth.get() };
    Ok((sorted, out))
}
