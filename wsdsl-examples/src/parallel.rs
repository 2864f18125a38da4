//! The data-parallel building blocks (`ctx.copy`, `ctx.merge`, `ctx.sort`, `ctx.partition`,
//! `ctx.exclusive_scan`, `ctx.reduce_sum/min/max`, docs/guide/4-jobs.md), each against its
//! definition in plain Rust: one root task per case, of every length from empty to ranges
//! that split into pieces of pieces, for 32-bit unsigned keys and signed 64-bit ones read from
//! a `ReadOnly` array. The tests run it on the CPU backend and the host-compiled templates,
//! gpu-check on the GPU.

use wsdsl::prelude::*;

#[megakernel]
pub mod blocks {
    use wsdsl::prelude::*;

    #[buffers]
    pub struct Buffers {
        /// Inputs of the 32-bit cases (a merge's two runs sorted).
        pub keys: Buffer<u32>,
        pub out: Buffer<u32>,
        /// Inputs of the 64-bit cases.
        pub wide: ReadOnly<i64>,
        pub wide_out: Buffer<i64>,
        /// Two result words per case.
        pub results: Buffer<u64>,
        /// Where the `Mixed` cases' scans go (beside their keys).
        pub scanned: Buffer<u32>,
    }

    /// One job: `kind` (0 copy, 1 merge, 2 sort, 3 partition, 4 exclusive scan, 5 sum, 6 min,
    /// 7 max) over `lo..hi` (a merge: `lo..mid` and `mid..hi`) of `keys` or (`wide`) `wide`,
    /// written from `at`; `arg` is the pivot or the initial value; its result words go to
    /// `results[2 * slot..]`.
    #[task]
    pub struct Case {
        pub kind: u32,
        pub wide: bool,
        pub lo: u32,
        pub mid: u32,
        pub hi: u32,
        pub at: u32,
        pub arg: i64,
        pub slot: u32,
    }

    #[spawn]
    fn start(c: &Case, ctx: &mut Ctx) {
        let (lo, mid, hi, at) = (c.lo as usize, c.mid as usize, c.hi as usize, c.at as usize);
        if !c.wide {
            let arg = c.arg as u32;
            match c.kind {
                0 => ctx.copy(&ctx.buffers.keys, lo..hi, &ctx.buffers.out, at),
                1 => ctx.merge(&ctx.buffers.keys, lo..mid, mid..hi, &ctx.buffers.out, at),
                2 => ctx.sort(&ctx.buffers.keys, lo..hi, &ctx.buffers.out, at),
                3 => ctx.partition(&ctx.buffers.keys, lo..hi, arg, &ctx.buffers.out, at),
                4 => ctx.exclusive_scan(&ctx.buffers.keys, lo..hi, arg, &ctx.buffers.out, at),
                5 => ctx.reduce_sum(&ctx.buffers.keys, lo..hi),
                6 => ctx.reduce_min(&ctx.buffers.keys, lo..hi),
                _ => ctx.reduce_max(&ctx.buffers.keys, lo..hi),
            }
        } else {
            match c.kind {
                0 => ctx.copy(&ctx.buffers.wide, lo..hi, &ctx.buffers.wide_out, at),
                1 => ctx.merge(&ctx.buffers.wide, lo..mid, mid..hi, &ctx.buffers.wide_out, at),
                2 => ctx.sort(&ctx.buffers.wide, lo..hi, &ctx.buffers.wide_out, at),
                3 => ctx.partition(&ctx.buffers.wide, lo..hi, c.arg, &ctx.buffers.wide_out, at),
                4 => ctx.exclusive_scan(&ctx.buffers.wide, lo..hi, c.arg, &ctx.buffers.wide_out, at),
                5 => ctx.reduce_sum(&ctx.buffers.wide, lo..hi),
                6 => ctx.reduce_min(&ctx.buffers.wide, lo..hi),
                _ => ctx.reduce_max(&ctx.buffers.wide, lo..hi),
            }
        }
    }

    /// Round 1: the job is done; its result words are the round's.
    #[complete]
    fn finish(c: &Case, ctx: &mut Ctx) {
        assert_eq!(ctx.round(), 1);
        ctx.buffers.results.set(2 * c.slot as usize, ctx.result(0));
        ctx.buffers.results.set(2 * c.slot as usize + 1, ctx.result(1));
    }

    /// Jobs and children together over `keys[lo..hi]`: three jobs between three children that
    /// hand values (whose slots skip the jobs), then a job started by the complete handler
    /// and read in the next round. What it saw goes to `results[2 * slot..2 * slot + 8]`.
    #[task]
    pub struct Mixed {
        pub lo: u32,
        pub hi: u32,
        pub slot: u32,
    }

    /// A child handing `v` to its parent.
    #[task(value = u64)]
    pub struct Leaf {
        pub v: u64,
    }

    #[spawn]
    fn leaf(l: &Leaf, _ctx: &mut Ctx) -> u64 {
        l.v
    }

    #[spawn]
    fn mixed(m: &Mixed, ctx: &mut Ctx) {
        let (lo, hi) = (m.lo as usize, m.hi as usize);
        ctx.spawn(Leaf { v: 10 });
        ctx.reduce_min(&ctx.buffers.keys, lo..hi);
        ctx.spawn(Leaf { v: 20 });
        ctx.reduce_max(&ctx.buffers.keys, lo..hi);
        ctx.exclusive_scan(&ctx.buffers.keys, lo..hi, 1, &ctx.buffers.scanned, lo);
        ctx.spawn(Leaf { v: 30 });
    }

    #[complete(max_children = 3)]
    fn mixed_done(m: &Mixed, children: &[u64], ctx: &mut Ctx) {
        let at = 2 * m.slot as usize;
        if ctx.round() == 1 {
            for k in 0..4usize {
                ctx.buffers.results.set(at + k, ctx.result(k));
            }
            let mut seen = 0u64;
            for (i, v) in children.iter().enumerate() {
                seen |= *v << (16 * i as u32);
            }
            ctx.buffers.results.set(at + 4, seen);
            ctx.reduce_sum(&ctx.buffers.keys, m.lo as usize..m.hi as usize);
        } else {
            ctx.buffers.results.set(at + 5, ctx.result(0));
            ctx.buffers.results.set(at + 6, ctx.result(1));
            ctx.buffers.results.set(at + 7, children.len() as u64 + 100 * ctx.round() as u64);
        }
    }
}

use blocks::{Buffers, Case, Mixed};

/// Lengths that exercise every path: empty, one key, a warp's share, a sort's largest, a tile,
/// a piece of 32-bit keys (4 096) on both sides, and ranges that split once and twice (over
/// 16 pieces of 4 096 32-bit or 2 048 64-bit keys).
pub const LENGTHS: [usize; 11] = [0, 1, 2, 31, 256, 513, 4095, 4096, 4097, 20_000, 70_000];

fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// The building blocks by `Case::kind`, then (`MIXED`) several jobs and children of one task.
pub const KINDS: [&str; 9] = ["copy", "merge", "sort", "partition", "exclusive_scan", "reduce_sum", "reduce_min", "reduce_max", "mixed"];
pub const MIXED: u32 = 8;

/// The inputs, the cases and what plain Rust makes of them.
pub struct Suite {
    pub keys: Vec<u32>,
    pub wide: Vec<i64>,
    pub cases: Vec<Case>,
    pub mixed: Vec<Mixed>,
    pub out: Vec<u32>,
    pub wide_out: Vec<i64>,
    pub scanned: Vec<u32>,
    pub results: Vec<u64>,
}

impl Suite {
    /// Each of `kinds` at every length for both key types (sorts up to their limit; `MIXED`
    /// with 32-bit keys), inputs drawn from `seed`, each case its own input and output range.
    pub fn new(seed: u64, lengths: &[usize], kinds: &[u32]) -> Suite {
        let mut rng = xorshift(seed);
        let mut s = Suite {
            keys: Vec::new(),
            wide: Vec::new(),
            cases: Vec::new(),
            mixed: Vec::new(),
            out: Vec::new(),
            wide_out: Vec::new(),
            scanned: Vec::new(),
            results: Vec::new(),
        };
        for wide in [false, true] {
            for &kind in kinds {
                for &n in lengths {
                    if (kind == 2 && n > 256) || (kind == MIXED && wide) {
                        continue;
                    }
                    // Few distinct keys, so that partitions meet keys equal to the pivot.
                    let distinct = if n % 2 == 0 { 97 } else { 1 << 40 };
                    // (32-bit keys are drawn as such, so that a merge's runs are sorted as u32.)
                    let mut vals: Vec<i64> = (0..n)
                        .map(|_| if wide { (rng() % distinct) as i64 - (distinct / 2) as i64 } else { (rng() % distinct) as u32 as i64 })
                        .collect();
                    let mid = n / 3;
                    if kind == 1 {
                        vals[..mid].sort_unstable();
                        vals[mid..].sort_unstable();
                    }
                    let arg = if vals.is_empty() { 5 } else { vals[(rng() % n as u64) as usize] };
                    let (lo, at) = if wide { (s.wide.len(), s.wide_out.len()) } else { (s.keys.len(), s.out.len()) };
                    let slot = (s.results.len() / 2) as u32;
                    if kind == MIXED {
                        s.mixed.push(Mixed { lo: lo as u32, hi: (lo + n) as u32, slot });
                        s.results.extend([0; 8]);
                    } else {
                        let arg = if wide { arg } else { arg as u32 as i64 };
                        s.cases.push(Case { kind, wide, lo: lo as u32, mid: (lo + mid) as u32, hi: (lo + n) as u32, at: at as u32, arg, slot });
                        s.results.extend([0; 2]);
                    }
                    let writes = kind < 5;
                    if wide {
                        s.wide.extend(&vals);
                        s.wide_out.extend(std::iter::repeat_n(-1, if writes { n } else { 0 }));
                    } else {
                        s.keys.extend(vals.iter().map(|&v| v as u32));
                        s.out.extend(std::iter::repeat_n(u32::MAX, if writes { n } else { 0 }));
                    }
                }
            }
        }
        s.scanned = vec![0; s.keys.len()];
        for c in s.cases.clone() {
            s.expect(&c);
        }
        for m in s.mixed.clone() {
            s.expect_mixed(&m);
        }
        s
    }

    /// What case `c` writes and gives, by plain Rust.
    fn expect(&mut self, c: &Case) {
        let (lo, mid, hi, at) = (c.lo as usize, c.mid as usize, c.hi as usize, c.at as usize);
        let words = if c.wide {
            let input = self.wide[lo..hi].to_vec();
            let (out, words) = reference(&input, mid - lo, c.kind, c.arg, |v| v as u64);
            self.wide_out[at..at + out.len()].copy_from_slice(&out);
            words
        } else {
            let input = self.keys[lo..hi].to_vec();
            let (out, words) = reference(&input, mid - lo, c.kind, c.arg as u32, |v| v as u64);
            self.out[at..at + out.len()].copy_from_slice(&out);
            words
        };
        self.results[2 * c.slot as usize..][..2].copy_from_slice(&words);
    }

    /// What `Mixed` case `m` writes and sees, by plain Rust: the round-1 result words of its
    /// minimum, maximum and scan (and an unused word, 0), its children's values in spawn
    /// order, then round 2's sum, an unused word and its number of children plus 100 x its round.
    fn expect_mixed(&mut self, m: &Mixed) {
        let (lo, hi) = (m.lo as usize, m.hi as usize);
        let input = self.keys[lo..hi].to_vec();
        let (scanned, total) = reference(&input, 0, 4, 1, |v| v as u64);
        self.scanned[lo..hi].copy_from_slice(&scanned);
        let word = |kind| reference(&input, 0, kind, 0, |v| v as u64).1[0];
        let seen = [word(6), word(7), total[0], 0, 10 | 20 << 16 | 30 << 32, word(5), 0, 200];
        self.results[2 * m.slot as usize..][..8].copy_from_slice(&seen);
    }

    pub fn buffers(&self) -> Buffers {
        Buffers {
            keys: Buffer::from_vec(self.keys.clone()),
            out: Buffer::from_vec(vec![u32::MAX; self.out.len()]),
            wide: ReadOnly::from_vec(self.wide.clone()),
            wide_out: Buffer::from_vec(vec![-1; self.wide_out.len()]),
            results: Buffer::zeroed(self.results.len()),
            scanned: Buffer::zeroed(self.scanned.len()),
        }
    }

    /// The first difference between what a run left in `b` and plain Rust's answer.
    pub fn check(&self, b: &Buffers) -> Result<(), String> {
        let first = |got: &[u64], want: &[u64]| got.iter().zip(want).position(|(g, w)| g != w);
        let words = |v: &[u32]| v.iter().map(|&x| x as u64).collect::<Vec<_>>();
        let case_at = |at: usize, wide: bool| self.cases.iter().rfind(|c| c.wide == wide && c.kind < 5 && (c.at as usize) <= at).copied();
        if let Some(i) = first(&words(&b.out.to_vec()), &words(&self.out)) {
            return Err(format!("out[{i}] = {} instead of {} (case {:?})", b.out.get(i), self.out[i], case_at(i, false)));
        }
        let wide_got: Vec<u64> = b.wide_out.to_vec().iter().map(|&v| v as u64).collect();
        if let Some(i) = first(&wide_got, &self.wide_out.iter().map(|&v| v as u64).collect::<Vec<_>>()) {
            return Err(format!("wide_out[{i}] = {} instead of {} (case {:?})", b.wide_out.get(i), self.wide_out[i], case_at(i, true)));
        }
        if let Some(i) = first(&words(&b.scanned.to_vec()), &words(&self.scanned)) {
            return Err(format!("scanned[{i}] = {} instead of {}", b.scanned.get(i), self.scanned[i]));
        }
        if let Some(i) = first(&b.results.to_vec(), &self.results) {
            let case = self.cases.iter().find(|c| (2 * c.slot as usize..2 * c.slot as usize + 2).contains(&i)).map(|c| format!("{c:?}"));
            let mixed = self.mixed.iter().find(|m| (2 * m.slot as usize..2 * m.slot as usize + 8).contains(&i)).map(|m| format!("{m:?}"));
            return Err(format!("result word {i} ({}) is {} instead of {}", case.or(mixed).unwrap_or_default(), b.results.get(i), self.results[i]));
        }
        Ok(())
    }

    /// Root tasks: one per case, `Mixed` ones included.
    pub fn case_count(&self) -> usize {
        self.cases.len() + self.mixed.len()
    }

    pub fn roots(&self) -> Vec<blocks::Task> {
        self.cases.iter().map(|&c| c.into()).chain(self.mixed.iter().map(|&m| m.into())).collect()
    }
}

/// Kind `kind` of the suite on `input` (a merge's runs split at `mid`), by the standard
/// library: what it writes and its two result words (`word`: a key as a word, sign-extended).
fn reference<T: Copy + Ord + Default + std::fmt::Debug + WrappingAdd>(input: &[T], mid: usize, kind: u32, arg: T, word: impl Fn(T) -> u64) -> (Vec<T>, [u64; 2]) {
    match kind {
        0 => (input.to_vec(), [0, 0]),
        1 | 2 => {
            // A merge of two sorted runs is their sorted concatenation (ties are equal keys).
            let _ = mid;
            let mut v = input.to_vec();
            v.sort();
            (v, [0, 0])
        }
        3 => {
            let (below, rest): (Vec<T>, Vec<T>) = input.iter().partition(|&&v| v < arg);
            let (equal, above): (Vec<T>, Vec<T>) = rest.into_iter().partition(|&v| v == arg);
            let words = [below.len() as u64, equal.len() as u64];
            (below.into_iter().chain(equal).chain(above).collect(), words)
        }
        4 => {
            let mut sum = arg;
            let out = input
                .iter()
                .map(|&v| {
                    let before = sum;
                    sum = sum.wrapping(v);
                    before
                })
                .collect();
            // The total is as wide as a word (`u32` keys sum as `u64`).
            (out, [input.iter().fold(word(arg), |s, &v| s.wrapping_add(word(v))), 0])
        }
        5 => (Vec::new(), [input.iter().fold(0u64, |s, &v| s.wrapping_add(word(v))), 0]),
        6 => (Vec::new(), [word(input.iter().copied().min().unwrap_or_else(T::most)), 0]),
        _ => (Vec::new(), [word(input.iter().copied().max().unwrap_or_else(T::least)), 0]),
    }
}

/// Wrapping addition and the extremes, for the reference's two key types.
trait WrappingAdd: Sized {
    fn wrapping(self, other: Self) -> Self;
    fn most() -> Self;
    fn least() -> Self;
}

impl WrappingAdd for u32 {
    fn wrapping(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
    fn most() -> Self {
        u32::MAX
    }
    fn least() -> Self {
        u32::MIN
    }
}

impl WrappingAdd for i64 {
    fn wrapping(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
    fn most() -> Self {
        i64::MAX
    }
    fn least() -> Self {
        i64::MIN
    }
}

