//! The maximum subarray sum by divide and conquer with values: a range of a `ReadOnly<i32>`
//! is halved down to leaves of `leaf` elements, each leaf scanned by Kadane's algorithm, and
//! every task hands its parent four numbers (its best subarray sum, best prefix, best suffix
//! and total), from which a complete handler makes the whole range's. The array is made by
//! `ReadOnly::from_fn` on every core, with no vector built first; the answer is checked
//! against a sequential pass over the same elements.

use wsdsl::prelude::*;

#[megakernel]
pub mod max_subarray {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        /// Elements a task scans on its own (at least 1).
        pub leaf: u32,
    }

    #[buffers]
    pub struct Input {
        pub values: ReadOnly<i32>,
    }

    #[counters]
    pub struct Counters {
        /// Leaves scanned.
        pub leaves: Sum<u64>,
    }

    /// What a range of at least one element hands up, every sum over a non-empty stretch of
    /// it: the largest subarray sum, the largest sum of a stretch that starts where the range
    /// does (prefix) and of one that ends where it does (suffix), and the sum of it all.
    /// In `i64`: 2^31 elements of `i32` sum to less than 2^62 in magnitude.
    pub struct Best {
        pub best: i64,
        pub prefix: i64,
        pub suffix: i64,
        pub total: i64,
    }

    impl Best {
        /// The range made of `self` followed by `right`: its best subarray lies in one half
        /// or crosses the middle (a suffix of `self` and a prefix of `right`).
        pub fn followed_by(&self, right: &Best) -> Best {
            Best {
                best: self.best.max(right.best).max(self.suffix + right.prefix),
                prefix: self.prefix.max(self.total + right.prefix),
                suffix: right.suffix.max(right.total + self.suffix),
                total: self.total + right.total,
            }
        }
    }

    /// Elements `lo..hi` (`lo < hi`) of the input.
    #[task(value = Best)]
    pub struct Range {
        pub lo: u32,
        pub hi: u32,
    }

    /// Kadane's scan of `lo..hi` (not empty): `suffix` is the best sum of a stretch ending at
    /// the element just read, so the best subarray is the best of those.
    fn scan(values: &ReadOnly<i32>, lo: u32, hi: u32) -> Best {
        let first = values.get(lo as usize) as i64;
        let mut b = Best { best: first, prefix: first, suffix: first, total: first };
        for i in lo + 1..hi {
            let x = values.get(i as usize) as i64;
            b.total += x;
            b.prefix = b.prefix.max(b.total);
            b.suffix = x.max(b.suffix + x);
            b.best = b.best.max(b.suffix);
        }
        b
    }

    #[spawn]
    fn range(r: &Range, ctx: &mut Ctx) -> Best {
        if r.hi - r.lo <= ctx.params.leaf {
            ctx.counters.leaves.add(1);
            return scan(&ctx.buffers.values, r.lo, r.hi);
        }
        let mid = r.lo + (r.hi - r.lo) / 2;
        ctx.spawn(Range { lo: r.lo, hi: mid });
        ctx.spawn(Range { lo: mid, hi: r.hi });
        Best { best: 0, prefix: 0, suffix: 0, total: 0 } // replaced by `join`'s result
    }

    #[complete(max_children = 2)]
    fn join(_r: &Range, halves: &[Best], _ctx: &mut Ctx) -> Best {
        halves[0].followed_by(&halves[1])
    }
}

pub use max_subarray::Best;

/// The longest array a run takes: task ranges are `u32` indices.
pub const MAX_LEN: usize = u32::MAX as usize;

/// Element `i` of the array of `seed`: a hash of both, in -1000..=1000, so that the array
/// can be made in any order on any core (`ReadOnly::from_fn`).
pub fn element(seed: u64, i: usize) -> i32 {
    let mut z = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i as u64).wrapping_add(0x6A09_E667_F3BC_C909);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    // The high 32 bits scaled to 0..2001 by a multiply, not a division: a 64-bit `%` per
    // element made building 2^28 of them take 2 s on two cores.
    ((((z ^ (z >> 31)) >> 32) * 2001) >> 32) as i32 - 1000
}

/// The array of `len` elements of `seed`, made on every core.
pub fn input(len: usize, seed: u64) -> Result<ReadOnly<i32>, wsdsl::Error> {
    ReadOnly::from_fn(len, |i| element(seed, i))
}

/// Runs the search over `values` with leaves of `leaf` elements: the whole array's four
/// numbers and the run's output. An empty array (it has no non-empty subarray), one longer
/// than [`MAX_LEN`], or `leaf` zero is `InvalidConfig`.
pub fn solve(rt: &Runtime, values: &ReadOnly<i32>, leaf: u32) -> Result<(Best, Output<max_subarray::Kernel>), wsdsl::Error> {
    if values.is_empty() || values.len() > MAX_LEN {
        return Err(wsdsl::Error::InvalidConfig(format!(
            "the array has {} elements; the maximum subarray needs 1 to {MAX_LEN}",
            values.len()
        )));
    }
    if leaf == 0 {
        return Err(wsdsl::Error::InvalidConfig("the leaf size must be at least 1 element".into()));
    }
    let input = max_subarray::Input { values: values.clone() };
    let root = max_subarray::Range { lo: 0, hi: values.len() as u32 };
    let mut out = rt.run_with::<max_subarray::Kernel>(max_subarray::Params { leaf }, &input, [root])?;
    let best = out.values.pop().expect("one value per root");
    Ok((best, out))
}

/// `b`'s best, prefix, suffix and total, in that order, to compare at once.
pub fn four(b: &Best) -> [i64; 4] {
    [b.best, b.prefix, b.suffix, b.total]
}

/// The leaves a run over `len` elements scans: ranges are halved while longer than `leaf`.
pub fn leaves(len: u64, leaf: u64) -> u64 {
    if len <= leaf {
        1
    } else {
        leaves(len / 2, leaf) + leaves(len - len / 2, leaf)
    }
}

/// The four numbers by one pass over `values` (not empty) on one thread, the independent
/// reference: Kadane's best over the whole array, the best prefix from the running sum, and
/// the best suffix as the total less the smallest sum of the elements before one.
pub fn reference(values: &[i32]) -> Best {
    let (mut total, mut prefix, mut best) = (0i64, i64::MIN, i64::MIN);
    let mut ending: Option<i64> = None; // the best sum of a stretch ending at the element read
    let mut lowest_before = i64::MAX;
    for &x in values {
        let x = x as i64;
        lowest_before = lowest_before.min(total);
        let e = ending.map_or(x, |e| x.max(e + x));
        ending = Some(e);
        best = best.max(e);
        total += x;
        prefix = prefix.max(total);
    }
    Best { best, prefix, suffix: total - lowest_before, total }
}
