//! Merge sort as fork-join tasks: a range longer than the cutoff spawns its two halves, and
//! its complete handler merges them once both are sorted; short ranges are insertion-sorted
//! where they lie. The data and a scratch array are device buffers.

use wsdsl::prelude::*;

#[megakernel]
pub mod mergesort {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        /// Ranges of at most this many elements are sorted directly.
        pub cutoff: u32,
    }

    #[buffers]
    pub struct Buffers {
        pub data: Buffer<u32>,
        /// Where a merge writes before copying back (same length as `data`).
        pub scratch: Buffer<u32>,
    }

    #[counters]
    pub struct Counters {
        pub leaves: Sum<u64>,
        pub merges: Sum<u64>,
    }

    /// Sort `data[lo..hi]`.
    #[task]
    pub struct Sort {
        pub lo: u32,
        pub hi: u32,
    }

    #[spawn]
    fn split(s: &Sort, ctx: &mut Ctx) {
        if s.hi - s.lo > ctx.params.cutoff {
            let mid = middle(s.lo, s.hi);
            ctx.spawn(Sort { lo: s.lo, hi: mid });
            ctx.spawn(Sort { lo: mid, hi: s.hi });
            return;
        }
        // Insertion sort in place.
        for k in s.lo + 1..s.hi {
            let v = ctx.buffers.data.get(k as usize);
            let mut at = k;
            while at > s.lo && ctx.buffers.data.get(at as usize - 1) > v {
                let prev = ctx.buffers.data.get(at as usize - 1);
                ctx.buffers.data.set(at as usize, prev);
                at -= 1;
            }
            ctx.buffers.data.set(at as usize, v);
        }
        ctx.counters.leaves.add(1);
    }

    /// Both halves are sorted: merge them through `scratch`.
    #[complete]
    fn merge(s: &Sort, ctx: &mut Ctx) {
        let mid = middle(s.lo, s.hi);
        let (mut i, mut j) = (s.lo, mid);
        for k in s.lo..s.hi {
            // Take from the left half on ties: the sort is stable.
            let take_left = j >= s.hi || (i < mid && ctx.buffers.data.get(i as usize) <= ctx.buffers.data.get(j as usize));
            let from = if take_left { i } else { j };
            let v = ctx.buffers.data.get(from as usize);
            ctx.buffers.scratch.set(k as usize, v);
            if take_left {
                i += 1;
            } else {
                j += 1;
            }
        }
        for k in s.lo..s.hi {
            let v = ctx.buffers.scratch.get(k as usize);
            ctx.buffers.data.set(k as usize, v);
        }
        ctx.counters.merges.add(1);
    }

    fn middle(lo: u32, hi: u32) -> u32 {
        lo + (hi - lo) / 2
    }
}

/// `n` pseudo-random keys from `seed` (SplitMix64), with repeats when `distinct` is small.
pub fn keys(n: usize, seed: u64, distinct: u32) -> Vec<u32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) % distinct.max(1) as u64) as u32
        })
        .collect()
}

/// What a sort run produced.
pub struct Sorted {
    pub data: Vec<u32>,
    pub leaves: u64,
    pub merges: u64,
}

/// Sorts `input` with ranges of at most `cutoff` sorted directly.
pub fn sort(rt: &Runtime, input: &[u32], cutoff: u32) -> Result<(Sorted, Output<mergesort::Kernel>), wsdsl::Error> {
    if cutoff == 0 {
        return Err(wsdsl::Error::InvalidConfig("the cutoff must be at least 1".into()));
    }
    if input.len() > u32::MAX as usize {
        return Err(wsdsl::Error::InvalidConfig(format!("{} keys: at most 2^32 - 1 can be sorted", input.len())));
    }
    let buffers = mergesort::Buffers { data: Buffer::from_vec(input.to_vec()), scratch: Buffer::zeroed(input.len()) };
    let root = mergesort::Sort { lo: 0, hi: input.len() as u32 };
    let out = rt.run_with::<mergesort::Kernel>(mergesort::Params { cutoff }, &buffers, [root])?;
    let sorted = Sorted { data: buffers.data.to_vec(), leaves: out.counters.leaves.get(), merges: out.counters.merges.get() };
    Ok((sorted, out))
}

/// Checks `sorted` against `input`: ascending, and the same multiset of keys (compared with
/// the standard library's sort of the input). Names the first difference.
pub fn check(input: &[u32], sorted: &[u32]) -> Result<(), String> {
    if let Some(i) = sorted.windows(2).position(|w| w[0] > w[1]) {
        return Err(format!("not sorted: element {i} is {} but element {} is {}", sorted[i], i + 1, sorted[i + 1]));
    }
    let mut want = input.to_vec();
    want.sort_unstable();
    match want.iter().zip(sorted).position(|(a, b)| a != b) {
        _ if want.len() != sorted.len() => Err(format!("{} keys in, {} out", want.len(), sorted.len())),
        Some(i) => Err(format!("not a permutation of the input: sorted position {i} holds {}, expected {}", sorted[i], want[i])),
        None => Ok(()),
    }
}

/// Leaves and merges of the task tree for `n` keys: (leaves, merges).
pub fn tree_shape(n: u32, cutoff: u32) -> (u64, u64) {
    if n <= cutoff {
        return (1, 0);
    }
    let (a, b) = (tree_shape(n / 2, cutoff), tree_shape(n - n / 2, cutoff));
    (a.0 + b.0, a.1 + b.1 + 1)
}
