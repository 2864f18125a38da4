//! The job calls a handler makes (`ctx.copy`, `ctx.merge`, ...), as the generated `Ctx`
//! forwards them: each checks its ranges where the handler called, with Rust's messages, and
//! records a [`Job`] in the handler's list of spawns.

use super::{overlap_message, sort_message, Arg, Job, JobElem, JobKind, Source, NO_BUFFER, NO_RESULT, RESULTS_MESSAGE, RESULT_WORDS, SORT_MAX};
use crate::contract::buffer::{Buffer, BufferSet, DeviceBuffer};
use crate::contract::spawned::Spawned;
use std::ops::Range;

/// Records `kind` over `src[a]` (and `src[b]`, a merge's right run) writing `dst` from `at`,
/// after the checks every backend makes, in this order, with these messages
/// (`cuda/features/parallel.cuh`, `ws_job_check`): each source range and the destination range as
/// Rust checks `&s[start..end]`; a destination that overlaps a source range of the same
/// buffer (a sort or scan may use its source range itself); a sort of more than `SORT_MAX`
/// keys; more result words in one round than `RESULT_WORDS`.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn record<T>(spawned: &mut Spawned<T>, kind: JobKind, src: Arg, a: (usize, usize), b: (usize, usize), dst: Option<Arg>, at: usize, arg: u64) {
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
