//! The CPU backend's jobs: each building block as a rayon program over the buffers' cells. A
//! range longer than `PAR_GRAIN` is cut into pieces that run on the pool (a merge's pieces
//! found by merge path, a partition's and a scan's by the counts of the pieces before them);
//! a shorter one runs on the calling thread. Every job computes exactly what its sequential
//! definition does (`docs/guide/4-jobs.md`), so its output is the same on every backend.

use crate::contract::jobs::{Job, JobBuffer, JobElem, JobKind, Source, Src};
use crate::contract::buffer::{Buffer, BufferSet};
use rayon::prelude::*;

/// Elements below which a job runs on the calling thread, and the pieces' length above.
const PAR_GRAIN: usize = 1 << 14;

/// Runs `job` on `buffers` (on the pool, from outside any handler); its result words (a
/// partition's keys below and equal to the pivot; a scan's total; a reduction's value).
pub fn run<B: BufferSet + ?Sized>(job: &Job, buffers: &B) -> [u64; 2] {
    let dst = if job.kind.writes() { Some(buffers.job_buffer(job.dst)) } else { None };
    macro_rules! typed {
        ($($v:ident),*) => {
            match (buffers.job_buffer(job.src), dst) {
                $(
                    (JobBuffer::$v(s), None) => on(job, &s, None),
                    (JobBuffer::$v(s), Some(JobBuffer::$v(Src::Buffer(d)))) => on(job, &s, Some(d)),
                )*
                _ => unreachable!("the macro checks a job's buffers: integers of one type, a writable destination"),
            }
        };
    }
    typed!(U32, I32, U64, I64)
}

/// `job` on a source of either kind.
fn on<T: JobElem>(job: &Job, src: &Src<'_, T>, dst: Option<&Buffer<T>>) -> [u64; 2] {
    match src {
        Src::Buffer(s) => typed(job, *s, dst),
        Src::ReadOnly(s) => typed(job, *s, dst),
    }
}

fn typed<T: JobElem, S: Source<Elem = T>>(job: &Job, src: &S, dst: Option<&Buffer<T>>) -> [u64; 2] {
    let (lo, hi) = job.a;
    let to = || dst.expect("a job that writes has a destination");
    match job.kind {
        JobKind::Copy => {
            copy(src, lo, hi, to(), job.at);
            [0, 0]
        }
        JobKind::Merge => {
            merge(src, job.a, job.b, to(), job.at);
            [0, 0]
        }
        JobKind::Sort => {
            let mut keys: Vec<T> = (lo..hi).map(|i| src.at(i)).collect();
            keys.sort_unstable();
            for (k, v) in keys.into_iter().enumerate() {
                to().set(job.at + k, v);
            }
            [0, 0]
        }
        JobKind::Partition => {
            let (below, equal) = partition(src, lo, hi, T::from_word(job.arg), to(), job.at);
            [below as u64, equal as u64]
        }
        JobKind::ExclusiveScan => [exclusive_scan(src, lo, hi, T::from_word(job.arg), to(), job.at), 0],
        JobKind::ReduceSum => [word_sum(src, lo, hi), 0],
        JobKind::ReduceMin => [reduce(src, lo, hi, T::MAX_, |a, b| a.min(b)).to_word(), 0],
        JobKind::ReduceMax => [reduce(src, lo, hi, T::MIN_, |a, b| a.max(b)).to_word(), 0],
    }
}

/// Pieces of `lo..hi`: `PAR_GRAIN` elements each (the last shorter).
fn pieces(lo: usize, hi: usize) -> impl IndexedParallelIterator<Item = (usize, usize)> {
    let n = hi - lo;
    (0..n.div_ceil(PAR_GRAIN)).into_par_iter().map(move |p| (lo + p * PAR_GRAIN, (lo + (p + 1) * PAR_GRAIN).min(hi)))
}

fn copy<T: JobElem, S: Source<Elem = T>>(src: &S, lo: usize, hi: usize, dst: &Buffer<T>, at: usize) {
    let piece = |(p0, p1): (usize, usize)| (p0..p1).for_each(|i| dst.set(at + (i - lo), src.at(i)));
    if hi - lo <= PAR_GRAIN {
        piece((lo, hi));
    } else {
        pieces(lo, hi).for_each(piece);
    }
}

/// How many of the first `d` keys of the stable merge of `a` and `b` come from `a` (ties
/// go to `a`): the merge path's crossing of diagonal `d`.
fn split<T: JobElem, S: Source<Elem = T>>(src: &S, a: (usize, usize), b: (usize, usize), d: usize) -> usize {
    let (na, nb) = (a.1 - a.0, b.1 - b.0);
    let (mut lo, mut hi) = (d.saturating_sub(nb), d.min(na));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if src.at(a.0 + mid) <= src.at(b.0 + d - 1 - mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

fn merge<T: JobElem, S: Source<Elem = T>>(src: &S, a: (usize, usize), b: (usize, usize), dst: &Buffer<T>, at: usize) {
    let n = (a.1 - a.0) + (b.1 - b.0);
    // Output keys d0..d1, from where the merge path crosses their diagonals.
    let piece = |(d0, d1): (usize, usize)| {
        let (mut i, mut j) = {
            let x = split(src, a, b, d0);
            (a.0 + x, b.0 + (d0 - x))
        };
        for d in d0..d1 {
            let take_a = j >= b.1 || (i < a.1 && src.at(i) <= src.at(j));
            let v = if take_a { src.at(i) } else { src.at(j) };
            if take_a {
                i += 1;
            } else {
                j += 1;
            }
            dst.set(at + d, v);
        }
    };
    if n <= PAR_GRAIN {
        piece((0, n));
    } else {
        pieces(0, n).for_each(piece);
    }
}

/// The stable three-way partition of `lo..hi` around `pivot` into `dst` from `at`: the keys
/// below it, then the keys equal to it, then the rest, each in their order. Returns (below,
/// equal).
fn partition<T: JobElem, S: Source<Elem = T>>(src: &S, lo: usize, hi: usize, pivot: T, dst: &Buffer<T>, at: usize) -> (usize, usize) {
    let count = |(p0, p1): (usize, usize)| {
        (p0..p1).fold((0usize, 0usize), |(b, e), i| {
            let v = src.at(i);
            (b + (v < pivot) as usize, e + (v == pivot) as usize)
        })
    };
    let scatter = |(p0, p1): (usize, usize), (mut b, mut e, mut g): (usize, usize, usize)| {
        for i in p0..p1 {
            let v = src.at(i);
            let to = if v < pivot {
                b += 1;
                b - 1
            } else if v == pivot {
                e += 1;
                e - 1
            } else {
                g += 1;
                g - 1
            };
            dst.set(to, v);
        }
    };
    if hi - lo <= PAR_GRAIN {
        let (below, equal) = count((lo, hi));
        scatter((lo, hi), (at, at + below, at + below + equal));
        return (below, equal);
    }
    let counts: Vec<(usize, usize)> = pieces(lo, hi).map(count).collect();
    let (below, equal) = counts.iter().fold((0, 0), |(b, e), c| (b + c.0, e + c.1));
    // Each piece's keys go after those of the pieces before it, in each part.
    let mut starts = Vec::with_capacity(counts.len());
    let (mut b, mut e, mut g) = (at, at + below, at + below + equal);
    for (p, c) in counts.iter().enumerate() {
        starts.push((b, e, g));
        let len = (lo + (p + 1) * PAR_GRAIN).min(hi) - (lo + p * PAR_GRAIN);
        (b, e, g) = (b + c.0, e + c.1, g + (len - c.0 - c.1));
    }
    pieces(lo, hi).zip(starts).for_each(|(p, s)| scatter(p, s));
    (below, equal)
}

/// `dst[at + k] = init + src[lo] + .. + src[lo + k - 1]` (wrapping); returns the total.
/// In place when `dst` is the source and `at == lo` (each piece reads an element before it
/// writes it).
/// Writes the exclusive scan of `src[lo..hi]` from `init` to `dst[at..]` (wrapping at `T`'s
/// width, as the keys are stored) and returns the total `init + src[lo] + ..` as a word, the
/// sum of the keys' sign-extended words wrapping at 64 bits: what the device's scan gives, and
/// what `i32` or `u32` keys sum to without wrapping at 32 bits.
fn exclusive_scan<T: JobElem, S: Source<Elem = T>>(src: &S, lo: usize, hi: usize, init: T, dst: &Buffer<T>, at: usize) -> u64 {
    let apply = |(p0, p1): (usize, usize), mut sum: T| {
        for i in p0..p1 {
            let v = src.at(i);
            dst.set(at + (i - lo), sum);
            sum = sum.wrapping_add_(v);
        }
    };
    // The total is taken before the scan writes: `dst` may be the source range itself.
    let total = init.to_word().wrapping_add(word_sum(src, lo, hi));
    if hi - lo <= PAR_GRAIN {
        apply((lo, hi), init);
        return total;
    }
    let sums: Vec<T> = pieces(lo, hi).map(|(p0, p1)| (p0..p1).fold(T::default(), |s, i| s.wrapping_add_(src.at(i)))).collect();
    let mut starts = Vec::with_capacity(sums.len());
    let mut sum = init;
    for s in &sums {
        starts.push(sum);
        sum = sum.wrapping_add_(*s);
    }
    pieces(lo, hi).zip(starts).for_each(|(p, s)| apply(p, s));
    total
}

/// The sum of the keys of `src[lo..hi]` as words (sign-extended), wrapping at 64 bits: `i32`
/// keys sum as `i64` and `u32` keys as `u64`, as on the device.
fn word_sum<T: JobElem, S: Source<Elem = T>>(src: &S, lo: usize, hi: usize) -> u64 {
    let piece = |(p0, p1): (usize, usize)| (p0..p1).fold(0u64, |acc, i| acc.wrapping_add(src.at(i).to_word()));
    if hi - lo <= PAR_GRAIN {
        return piece((lo, hi));
    }
    pieces(lo, hi).map(piece).reduce(|| 0, u64::wrapping_add)
}

fn reduce<T: JobElem, S: Source<Elem = T>>(src: &S, lo: usize, hi: usize, identity: T, op: impl Fn(T, T) -> T + Sync) -> T {
    let piece = |(p0, p1): (usize, usize)| (p0..p1).fold(identity, |acc, i| op(acc, src.at(i)));
    if hi - lo <= PAR_GRAIN {
        return piece((lo, hi));
    }
    // In order, so that the result does not depend on the pieces' schedule (it would not
    // anyway: wrapping sums, minima and maxima are associative and commutative).
    pieces(lo, hi).map(piece).collect::<Vec<T>>().into_iter().fold(identity, &op)
}

#[cfg(test)]
mod tests {
    use crate::contract::jobs::{JobBuffer, Src, NO_BUFFER, NO_RESULT};
    use super::*;
    use crate::contract::buffer::DeviceBuffer;

    struct Two {
        a: Buffer<u32>,
        b: Buffer<u32>,
    }

    impl BufferSet for Two {
        fn buffers(&self) -> Vec<&dyn DeviceBuffer> {
            vec![&self.a, &self.b]
        }
        fn job_buffer(&self, index: u32) -> JobBuffer<'_> {
            match index {
                0 => JobBuffer::U32(Src::Buffer(&self.a)),
                1 => JobBuffer::U32(Src::Buffer(&self.b)),
                _ => JobBuffer::Other,
            }
        }
    }

    fn job(kind: JobKind, a: (usize, usize), b: (usize, usize), at: usize, arg: u64) -> Job {
        Job { kind, src: 0, dst: if kind.writes() { 1 } else { NO_BUFFER }, a, b, at, arg, result: NO_RESULT }
    }

    fn keys(n: usize, seed: u64, distinct: u32) -> Vec<u32> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % distinct as u64) as u32
            })
            .collect()
    }

    #[test]
    fn long_jobs_match_their_sequential_definition() {
        for n in [0usize, 1, 1000, 3 * PAR_GRAIN + 17] {
            let input = keys(n, n as u64 + 1, 50);
            let two = Two { a: Buffer::from_vec(input.clone()), b: Buffer::zeroed(n + 5) };
            // A partition around 25.
            let r = run(&job(JobKind::Partition, (0, n), (0, 0), 5, 25), &two);
            let mut want: Vec<u32> = input.iter().copied().filter(|&v| v < 25).collect();
            let below = want.len();
            want.extend(input.iter().copied().filter(|&v| v == 25));
            let equal = want.len() - below;
            want.extend(input.iter().copied().filter(|&v| v > 25));
            assert_eq!(r, [below as u64, equal as u64], "{n}");
            assert_eq!(two.b.to_vec()[5..], want[..], "{n}");
            // A scan from 7, and the reductions.
            let r = run(&job(JobKind::ExclusiveScan, (0, n), (0, 0), 0, 7), &two);
            let mut sum = 7u32;
            for (k, v) in input.iter().enumerate() {
                assert_eq!(two.b.get(k), sum, "{n}: scan at {k}");
                sum = sum.wrapping_add(*v);
            }
            let total: u64 = input.iter().map(|&v| v as u64).sum();
            assert_eq!(r[0], 7 + total);
            assert_eq!(run(&job(JobKind::ReduceSum, (0, n), (0, 0), 0, 0), &two)[0], total);
            assert_eq!(run(&job(JobKind::ReduceMin, (0, n), (0, 0), 0, 0), &two)[0], input.iter().copied().min().unwrap_or(u32::MAX) as u64);
            assert_eq!(run(&job(JobKind::ReduceMax, (0, n), (0, 0), 0, 0), &two)[0], input.iter().copied().max().unwrap_or(0) as u64);
        }
    }

    #[test]
    fn a_long_merge_is_the_stable_merge() {
        for (na, nb) in [(0, 0), (0, 5), (3, 0), (PAR_GRAIN + 3, 2 * PAR_GRAIN - 1)] {
            let mut left = keys(na, 3, 1000);
            let mut right = keys(nb, 4, 1000);
            left.sort_unstable();
            right.sort_unstable();
            let input: Vec<u32> = left.iter().chain(&right).copied().collect();
            let two = Two { a: Buffer::from_vec(input.clone()), b: Buffer::zeroed(na + nb) };
            run(&job(JobKind::Merge, (0, na), (na, na + nb), 0, 0), &two);
            let mut want = input;
            want.sort_unstable();
            assert_eq!(two.b.to_vec(), want, "{na} + {nb}");
        }
    }
}
