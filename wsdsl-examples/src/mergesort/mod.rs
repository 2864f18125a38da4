//! Merge sort as fork-join tasks, written the natural way: a range longer than the cutoff
//! spawns its two halves, and when both are sorted its complete handler merges them with one
//! call, `ctx.merge(..)`. The merge is a data-parallel job: the runtime runs a short one with
//! all the threads of a worker, and splits a long one along its merge path into pieces that
//! the whole GPU runs (docs/guide/4-jobs.md); the task's complete handler runs again when it is
//! done. Ranges of at most the cutoff are sorted by `ctx.sort(..)` (at most 256 keys).
//! Sorted runs alternate between the two buffers level by level, so no merge copies back: a
//! task sorts its range into `dst`, its children sort theirs into the other buffer.
//!
//! `merge_path.rs` is the same sort with the merge written by hand as tasks (`--merge-path`),
//! kept for comparison (BENCHMARKS.md).

pub mod merge_path;

pub use crate::keys::{check, checked_keys};
// Unchecked: for the tests and benchmarks, which choose their own sizes.
pub use crate::keys::keys;
use wsdsl::prelude::*;

#[megakernel]
pub mod mergesort {
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
        /// The other buffer sorted runs alternate with (same length as `data`).
        pub scratch: Buffer<u32>,
    }

    #[counters]
    pub struct Counters {
        pub leaves: Sum<u64>,
        pub merges: Sum<u64>,
    }

    /// Sort the keys of `data[lo..hi]` into buffer `dst` (0 = `data`, 1 = `scratch`).
    #[task]
    pub struct Sort {
        pub lo: u32,
        pub hi: u32,
        pub dst: u32,
    }

    #[spawn]
    fn split(s: &Sort, ctx: &mut Ctx) {
        let (lo, hi) = (s.lo as usize, s.hi as usize);
        if s.hi - s.lo <= ctx.params.cutoff {
            // A leaf: its keys are still the input's, in `data`.
            if s.dst == 0 {
                ctx.sort(&ctx.buffers.data, lo..hi, &ctx.buffers.data, lo);
            } else {
                ctx.sort(&ctx.buffers.data, lo..hi, &ctx.buffers.scratch, lo);
            }
            ctx.counters.leaves.add(1);
            return;
        }
        let mid = middle(s.lo, s.hi);
        ctx.spawn(Sort { lo: s.lo, hi: mid, dst: 1 - s.dst });
        ctx.spawn(Sort { lo: mid, hi: s.hi, dst: 1 - s.dst });
    }

    /// Round 1 of a range that was split: both halves are sorted, in the other buffer; merge
    /// them into `dst`. (A leaf's round 1, or a merge's round 2: the range is sorted.)
    #[complete]
    fn merge_halves(s: &Sort, ctx: &mut Ctx) {
        if ctx.round() == 1 && s.hi - s.lo > ctx.params.cutoff {
            let (lo, mid, hi) = (s.lo as usize, middle(s.lo, s.hi) as usize, s.hi as usize);
            if s.dst == 0 {
                ctx.merge(&ctx.buffers.scratch, lo..mid, mid..hi, &ctx.buffers.data, lo);
            } else {
                ctx.merge(&ctx.buffers.data, lo..mid, mid..hi, &ctx.buffers.scratch, lo);
            }
            ctx.counters.merges.add(1);
        }
    }

    fn middle(lo: u32, hi: u32) -> u32 {
        lo + (hi - lo) / 2
    }
}

/// What a sort run produced.
pub struct Sorted {
    pub data: Vec<u32>,
    pub leaves: u64,
    pub merges: u64,
}

/// Sorts `input`, ranges of at most `cutoff` keys by `ctx.sort`.
pub fn sort(rt: &Runtime, input: &[u32], cutoff: u32) -> Result<(Sorted, Output<mergesort::Kernel>), wsdsl::Error> {
    crate::keys::check_options(input.len(), cutoff, mergesort::LEAF)?;
    let buffers = mergesort::Buffers { data: Buffer::from_vec(input.to_vec()), scratch: Buffer::zeroed(input.len()) };
    let root = mergesort::Sort { lo: 0, hi: input.len() as u32, dst: 0 };
    let out = rt.run_with::<mergesort::Kernel>(mergesort::Params { cutoff }, &buffers, [root])?;
    let c = &out.counters;
    let sorted = Sorted { data: buffers.data.to_vec(), leaves: c.leaves.get(), merges: c.merges.get() };
    Ok((sorted, out))
}

/// The task tree for `n` keys: (leaves, merges).
pub fn tree_shape(n: u32, cutoff: u32) -> (u64, u64) {
    if n <= cutoff {
        return (1, 0);
    }
    let (a, b) = (tree_shape(n / 2, cutoff), tree_shape(n - n / 2, cutoff));
    (a.0 + b.0, a.1 + b.1 + 1)
}
