//! Data-parallel work inside a task: the building blocks a handler asks for as it asks for
//! children. `ctx.copy`, `ctx.merge`, `ctx.sort`, `ctx.partition`, `ctx.exclusive_scan` and
//! `ctx.reduce_sum` / `reduce_min` / `reduce_max` each record a *job* over buffer ranges; the
//! task then waits for it like for a child, and its complete handler runs when the job is
//! done, reading what the job computed with `ctx.result(k)` (the contracts:
//! `docs/guide/4-jobs.md`, `cuda/features/parallel.cuh`).
//!
//! This module holds what every backend shares: the job record (`Job`), the checks made where
//! the handler calls (Rust's messages for a bad range, the same on every backend), and the
//! element types jobs work on; the kinds and their numbers are `wsdsl-abi`'s. How a job sees
//! a buffer (`Source`, `JobBuffer`, `Src`, `AsJobBuffer`) is the buffer module's
//! (`contract/buffer/job_view.rs`), re-exported here.
//!
//! The CPU backend runs jobs with rayon (`cpu/jobs.rs`); the GPU runs them cooperatively by a
//! worker's warp, or splits a long one into pieces spread over the GPU
//! (`cuda/features/parallel.cuh`).

use super::buffer::BufferElem;

mod calls;

// How a job sees a buffer is the buffer module's (`contract/buffer/job_view.rs`): here under
// the names generated code uses (`wsdsl::__private::parallel::JobBuffer`, ...).
pub use super::buffer::{AsJobBuffer, JobBuffer, Source, Src};
pub use calls::{copy, exclusive_scan, merge, partition, reduce, sort};
pub use wsdsl_abi::jobs::{JobKind, NO_BUFFER, NO_RESULT, RESULT_WORDS, SORT_MAX};

/// A job as a handler recorded it: buffers by their index in the `#[buffers]` struct, ranges
/// already checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job {
    /// What it computes.
    pub kind: JobKind,
    /// The buffer it reads.
    pub src: u32,
    /// The buffer it writes (`NO_BUFFER` for reductions).
    pub dst: u32,
    /// The source range (a merge's left run).
    pub a: (usize, usize),
    /// A merge's right run (empty otherwise).
    pub b: (usize, usize),
    /// Where its output starts in `dst`.
    pub at: usize,
    /// The pivot of a partition, the initial value of a scan: the element's bits.
    pub arg: u64,
    /// The first result word it fills (`NO_RESULT`: none).
    pub result: u32,
}

impl Job {
    /// Elements it reads (and writes).
    pub fn len(&self) -> usize {
        (self.a.1 - self.a.0) + (self.b.1 - self.b.0)
    }

    /// Whether it reads no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Integer element types jobs work on (a parallel float sum would round differently from
/// Rust's sequential one, and floats are not `Ord`).
pub trait JobElem: BufferElem + Ord {
    /// The value as a result word: its bits, sign-extended for signed types.
    fn to_word(self) -> u64;
    /// The value back from a word (truncating).
    fn from_word(word: u64) -> Self;
    /// `self + other`, wrapping (what sums and scans add).
    fn wrapping_add_(self, other: Self) -> Self;
    /// The type's least value (the maximum of an empty range).
    const MIN_: Self;
    /// The type's greatest value (the minimum of an empty range).
    const MAX_: Self;
}

macro_rules! job_elem {
    ($($t:ty),*) => {$(
        impl JobElem for $t {
            #[inline]
            fn to_word(self) -> u64 { self as i128 as u64 }
            #[inline]
            fn from_word(word: u64) -> Self { word as $t }
            #[inline]
            fn wrapping_add_(self, other: Self) -> Self { self.wrapping_add(other) }
            const MIN_: Self = <$t>::MIN;
            const MAX_: Self = <$t>::MAX;
        }
    )*};
}
job_elem!(u32, i32, u64, i64);
/// A buffer argument of a job call: its index in the `#[buffers]` struct and its length.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Arg {
    pub index: u32,
    pub len: usize,
}

/// The message of a destination that overlaps the source (`ctx.<method>` writes `at..end`).
pub(crate) fn overlap_message(kind: JobKind, at: usize, end: usize) -> String {
    format!("ctx.{} writes {at}..{end} of the buffer it reads, overlapping its source range", kind.method())
}

/// The message of a sort of `n` keys, more than `SORT_MAX`.
pub(crate) fn sort_message(n: usize) -> String {
    format!("ctx.sort sorts at most {SORT_MAX} keys at a time, not {n}; merge sorted pieces with ctx.merge")
}

/// The message of a round whose jobs would give more than `RESULT_WORDS` result words.
pub(crate) const RESULTS_MESSAGE: &str = "the jobs started in one round give at most 8 result words (ctx.result(0) to ctx.result(7))";
