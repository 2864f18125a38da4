//! Data-parallel work inside a task: the building blocks a handler asks for as it asks for
//! children. `ctx.copy`, `ctx.merge`, `ctx.sort`, `ctx.partition`, `ctx.exclusive_scan` and
//! `ctx.reduce_sum` / `reduce_min` / `reduce_max` each record a *job* over buffer ranges; the
//! task then waits for it like for a child, and its complete handler runs when the job is
//! done, reading what the job computed with `ctx.result(k)` (the contracts:
//! `docs/parallel.md`, `cuda/parallel.cuh`).
//!
//! This module holds what every backend shares: the job record (`Job`), the checks made where
//! the handler calls (Rust's messages for a bad range, the same on every backend), and the
//! element types jobs work on. The CPU backend runs jobs with rayon (`cpu.rs`); the GPU runs
//! them cooperatively by a worker's warp, or splits a long one into pieces spread over the
//! GPU (`cuda/parallel.cuh`).

mod cpu;

pub use cpu::run;

use crate::buffer::{Buffer, BufferElem, BufferSet, DeviceBuffer, ReadOnly};
use crate::cpu::Spawned;
use std::ops::Range;

/// The most keys `ctx.sort` sorts at once (one warp's tile on the GPU).
pub const SORT_MAX: usize = 256;

/// Result words one round's jobs may give (`ctx.result(0)` .. `ctx.result(RESULT_WORDS - 1)`).
pub const RESULT_WORDS: usize = 8;

/// `Job::dst` of a job that writes no buffer (the reductions).
pub const NO_BUFFER: u32 = u32::MAX;

/// `Job::result` of a job that gives no result.
pub const NO_RESULT: u32 = u32::MAX;

/// What a job computes. The numbers are the device's (`WS_JOB_*` in `cuda/parallel.cuh`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    Copy = 1,
    Merge = 2,
    Sort = 3,
    Partition = 4,
    ExclusiveScan = 5,
    ReduceSum = 6,
    ReduceMin = 7,
    ReduceMax = 8,
}

impl JobKind {
    /// The handler's method, for messages.
    pub fn method(self) -> &'static str {
        match self {
            JobKind::Copy => "copy",
            JobKind::Merge => "merge",
            JobKind::Sort => "sort",
            JobKind::Partition => "partition",
            JobKind::ExclusiveScan => "exclusive_scan",
            JobKind::ReduceSum => "reduce_sum",
            JobKind::ReduceMin => "reduce_min",
            JobKind::ReduceMax => "reduce_max",
        }
    }

    /// Result words the job gives: a partition the keys below and equal to the pivot, a scan
    /// its total, a reduction its value.
    pub fn result_words(self) -> usize {
        match self {
            JobKind::Copy | JobKind::Merge | JobKind::Sort => 0,
            JobKind::Partition => 2,
            JobKind::ExclusiveScan | JobKind::ReduceSum | JobKind::ReduceMin | JobKind::ReduceMax => 1,
        }
    }

    /// Whether the job writes a destination range.
    pub fn writes(self) -> bool {
        !matches!(self, JobKind::ReduceSum | JobKind::ReduceMin | JobKind::ReduceMax)
    }

    /// Whether its destination may be its source range itself (a sort or a scan in place).
    pub fn in_place(self) -> bool {
        matches!(self, JobKind::Sort | JobKind::ExclusiveScan)
    }
}

/// A job as a handler recorded it: buffers by their index in the `#[buffers]` struct, ranges
/// already checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job {
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
    fn wrapping_add_(self, other: Self) -> Self;
    const MIN_: Self;
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

/// What a job reads: a [`Buffer`] or a [`ReadOnly`] array.
pub trait Source: Sync {
    type Elem: BufferElem;
    fn at(&self, i: usize) -> Self::Elem;
    fn elements(&self) -> usize;
}

impl<T: BufferElem> Source for Buffer<T> {
    type Elem = T;
    #[inline]
    fn at(&self, i: usize) -> T {
        self.get(i)
    }
    fn elements(&self) -> usize {
        self.len()
    }
}

impl<T: BufferElem> Source for ReadOnly<T> {
    type Elem = T;
    #[inline]
    fn at(&self, i: usize) -> T {
        self.get(i)
    }
    fn elements(&self) -> usize {
        self.len()
    }
}

/// One buffer of a program as a job sees it, by element type (`BufferSet::job_buffer`).
pub enum JobBuffer<'a> {
    U32(Src<'a, u32>),
    I32(Src<'a, i32>),
    U64(Src<'a, u64>),
    I64(Src<'a, i64>),
    /// A float buffer, or no buffer at that index: jobs never name one (the macro refuses).
    Other,
}

/// A buffer or a read-only array of `T`.
pub enum Src<'a, T: BufferElem> {
    Buffer(&'a Buffer<T>),
    ReadOnly(&'a ReadOnly<T>),
}

/// Element types that can name their [`JobBuffer`] variant (floats name none).
pub trait AsJobBuffer: BufferElem {
    fn job_buffer(src: Src<'_, Self>) -> JobBuffer<'_>;
}

macro_rules! as_job_buffer {
    ($($t:ty => $v:ident),*) => {$(
        impl AsJobBuffer for $t {
            fn job_buffer(src: Src<'_, Self>) -> JobBuffer<'_> { JobBuffer::$v(src) }
        }
    )*};
}
as_job_buffer!(u32 => U32, i32 => I32, u64 => U64, i64 => I64);

impl AsJobBuffer for f32 {
    fn job_buffer(_: Src<'_, Self>) -> JobBuffer<'_> {
        JobBuffer::Other
    }
}

impl AsJobBuffer for f64 {
    fn job_buffer(_: Src<'_, Self>) -> JobBuffer<'_> {
        JobBuffer::Other
    }
}

/// A buffer argument of a job call: its index in the `#[buffers]` struct and its length.
#[derive(Debug, Clone, Copy)]
pub struct Arg {
    pub index: u32,
    pub len: usize,
}

/// Records `kind` over `src[a]` (and `src[b]`, a merge's right run) writing `dst` from `at`,
/// after the checks every backend makes, in this order, with these messages
/// (`cuda/parallel.cuh`, `ws_job_check`): each source range and the destination range as
/// Rust checks `&s[start..end]`; a destination that overlaps a source range of the same
/// buffer (a sort or scan may use its source range itself); a sort of more than `SORT_MAX`
/// keys; more result words in one round than `RESULT_WORDS`.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn record<T>(spawned: &mut Spawned<T>, kind: JobKind, src: Arg, a: (usize, usize), b: (usize, usize), dst: Option<Arg>, at: usize, arg: u64) {
    check_range(a, src.len);
    check_range(b, src.len);
    let n = (a.1 - a.0) + (b.1 - b.0);
    let end = at.wrapping_add(n);
    if let Some(d) = dst {
        check_range((at, end), d.len);
        let overlaps = |r: (usize, usize)| r.0 < r.1 && at < r.1 && r.0 < end;
        let same_place = kind.in_place() && (at, end) == a;
        if d.index == src.index && !same_place && (overlaps(a) || overlaps(b)) {
            panic!("{}", overlap_message(kind, at, end));
        }
    }
    if kind == JobKind::Sort && n > SORT_MAX {
        panic!("{}", sort_message(n));
    }
    let words = kind.result_words();
    let first = spawned.result_words_used();
    if first + words > RESULT_WORDS {
        panic!("{}", RESULTS_MESSAGE);
    }
    let result = if words > 0 { first as u32 } else { NO_RESULT };
    spawned.push_job(Job { kind, src: src.index, dst: dst.map_or(NO_BUFFER, |d| d.index), a, b, at, arg, result }, words);
}

/// The argument record of buffer `b`, a field of `buffers`.
#[track_caller]
fn arg<B: BufferSet + ?Sized>(buffers: &B, b: &impl DeviceBuffer) -> Arg {
    let index = buffers.job_index(b as *const _ as *const ()).expect("a job works on the buffers of `ctx.buffers`");
    Arg { index, len: b.len() }
}

/// `ctx.copy(&src, range, &dst, at)`.
#[track_caller]
pub fn copy<Task, B: BufferSet + ?Sized, S: Source<Elem = T> + DeviceBuffer, T: JobElem>(
    spawned: &mut Spawned<Task>,
    buffers: &B,
    src: &S,
    range: Range<usize>,
    dst: &Buffer<T>,
    at: usize,
) {
    record(spawned, JobKind::Copy, arg(buffers, src), (range.start, range.end), (0, 0), Some(arg(buffers, dst)), at, 0);
}

/// `ctx.merge(&src, left, right, &dst, at)`.
#[track_caller]
pub fn merge<Task, B: BufferSet + ?Sized, S: Source<Elem = T> + DeviceBuffer, T: JobElem>(
    spawned: &mut Spawned<Task>,
    buffers: &B,
    src: &S,
    left: Range<usize>,
    right: Range<usize>,
    dst: &Buffer<T>,
    at: usize,
) {
    let (a, b) = ((left.start, left.end), (right.start, right.end));
    record(spawned, JobKind::Merge, arg(buffers, src), a, b, Some(arg(buffers, dst)), at, 0);
}

/// `ctx.sort(&src, range, &dst, at)`.
#[track_caller]
pub fn sort<Task, B: BufferSet + ?Sized, S: Source<Elem = T> + DeviceBuffer, T: JobElem>(
    spawned: &mut Spawned<Task>,
    buffers: &B,
    src: &S,
    range: Range<usize>,
    dst: &Buffer<T>,
    at: usize,
) {
    record(spawned, JobKind::Sort, arg(buffers, src), (range.start, range.end), (0, 0), Some(arg(buffers, dst)), at, 0);
}

/// `ctx.partition(&src, range, pivot, &dst, at)`.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn partition<Task, B: BufferSet + ?Sized, S: Source<Elem = T> + DeviceBuffer, T: JobElem>(
    spawned: &mut Spawned<Task>,
    buffers: &B,
    src: &S,
    range: Range<usize>,
    pivot: T,
    dst: &Buffer<T>,
    at: usize,
) {
    record(spawned, JobKind::Partition, arg(buffers, src), (range.start, range.end), (0, 0), Some(arg(buffers, dst)), at, pivot.to_word());
}

/// `ctx.exclusive_scan(&src, range, init, &dst, at)`.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn exclusive_scan<Task, B: BufferSet + ?Sized, S: Source<Elem = T> + DeviceBuffer, T: JobElem>(
    spawned: &mut Spawned<Task>,
    buffers: &B,
    src: &S,
    range: Range<usize>,
    init: T,
    dst: &Buffer<T>,
    at: usize,
) {
    record(spawned, JobKind::ExclusiveScan, arg(buffers, src), (range.start, range.end), (0, 0), Some(arg(buffers, dst)), at, init.to_word());
}

/// `ctx.reduce_sum(&src, range)` and its siblings (`kind` says which).
#[track_caller]
pub fn reduce<Task, B: BufferSet + ?Sized, S: Source + DeviceBuffer>(spawned: &mut Spawned<Task>, buffers: &B, kind: JobKind, src: &S, range: Range<usize>)
where
    S::Elem: JobElem,
{
    record(spawned, kind, arg(buffers, src), (range.start, range.end), (0, 0), None, 0, 0);
}

/// `&s[start..end]`'s checks on a slice of `len` elements, with Rust's messages.
#[track_caller]
fn check_range((start, end): (usize, usize), len: usize) {
    // In the order Rust's slice indexing checks them: a start past the end of the slice, then
    // a start past the range's end, then an end past the slice.
    if start > len {
        panic!("range start index {start} out of range for slice of length {len}");
    }
    if start > end {
        panic!("slice index starts at {start} but ends at {end}");
    }
    if end > len {
        panic!("range end index {end} out of range for slice of length {len}");
    }
}

/// The message of a destination that overlaps the source (`ctx.<method>` writes `at..end`).
pub fn overlap_message(kind: JobKind, at: usize, end: usize) -> String {
    format!("ctx.{} writes {at}..{end} of the buffer it reads, overlapping its source range", kind.method())
}

/// The message of a sort of `n` keys, more than `SORT_MAX`.
pub fn sort_message(n: usize) -> String {
    format!("ctx.sort sorts at most {SORT_MAX} keys at a time, not {n}; merge sorted pieces with ctx.merge")
}

/// The message of a round whose jobs would give more than `RESULT_WORDS` result words.
pub const RESULTS_MESSAGE: &str = "the jobs started in one round give at most 8 result words (ctx.result(0) to ctx.result(7))";

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(index: u32, len: usize) -> Arg {
        Arg { index, len }
    }

    fn panics(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
        let payload = std::panic::catch_unwind(f).expect_err("a panic");
        match payload.downcast_ref::<&str>() {
            Some(s) => s.to_string(),
            None => payload.downcast_ref::<String>().cloned().unwrap_or_default(),
        }
    }

    #[test]
    fn bad_ranges_panic_with_rusts_messages() {
        let v = [0u32; 4];
        let rust = |s: usize, e: usize| panics(move || std::hint::black_box(&v[s..e]).len().to_string().clear());
        for (s, e) in [(5, 3), (3, 2), (2, 9), (0, 5)] {
            let ours = panics(move || record(&mut Spawned::<u8>::new(), JobKind::Copy, arg(0, 4), (s, e), (0, 0), Some(arg(1, 100)), 0, 0));
            assert_eq!(ours, rust(s, e), "{s}..{e}");
        }
        let dst = panics(|| record(&mut Spawned::<u8>::new(), JobKind::Copy, arg(0, 4), (0, 4), (0, 0), Some(arg(1, 5)), 3, 0));
        assert_eq!(dst, "range end index 7 out of range for slice of length 5");
    }

    #[test]
    fn overlaps_are_refused_except_a_sort_or_scan_in_place() {
        let mut s = Spawned::<u8>::new();
        let msg = panics(|| record(&mut Spawned::<u8>::new(), JobKind::Merge, arg(0, 20), (0, 3), (3, 6), Some(arg(0, 20)), 5, 0));
        assert_eq!(msg, "ctx.merge writes 5..11 of the buffer it reads, overlapping its source range");
        record(&mut s, JobKind::Sort, arg(0, 10), (2, 6), (0, 0), Some(arg(0, 10)), 2, 0);
        record(&mut s, JobKind::ExclusiveScan, arg(0, 10), (2, 6), (0, 0), Some(arg(0, 10)), 2, 0);
        record(&mut s, JobKind::Copy, arg(0, 10), (0, 3), (0, 0), Some(arg(0, 10)), 3, 0);
        let msg = panics(|| record(&mut Spawned::<u8>::new(), JobKind::Sort, arg(0, 10), (2, 6), (0, 0), Some(arg(0, 10)), 3, 0));
        assert!(msg.starts_with("ctx.sort writes 3..7"), "{msg}");
        assert_eq!(s.jobs().len(), 3);
        assert_eq!(s.jobs()[1].result, 0, "the scan's total is the round's first result word");
    }

    #[test]
    fn a_round_gives_at_most_eight_result_words() {
        let mut s = Spawned::<u8>::new();
        for _ in 0..4 {
            record(&mut s, JobKind::Partition, arg(0, 10), (0, 10), (0, 0), Some(arg(1, 10)), 0, 0);
        }
        assert_eq!(s.jobs().iter().map(|j| j.result).collect::<Vec<_>>(), [0, 2, 4, 6]);
        let msg = panics(move || record(&mut s, JobKind::ReduceSum, arg(0, 10), (0, 10), (0, 0), None, 0, 0));
        assert_eq!(msg, RESULTS_MESSAGE);
        let msg = panics(|| record(&mut Spawned::<u8>::new(), JobKind::Sort, arg(0, 300), (0, 257), (0, 0), Some(arg(1, 300)), 0, 0));
        assert_eq!(msg, sort_message(257));
    }
}
