//! The Rust a programmer writes first, as a megakernel whose results native Rust checks:
//! helpers and methods that take the context or a part of it (the buffers, one buffer, the
//! counters, one counter) and spawn, count and read and write buffers through it; a trait
//! with static dispatch (default methods, associated consts, a blanket impl, generic helpers
//! bounded by it); the iterator adaptors, slice methods, `Ordering` and `Result` values of
//! docs/subset.md. Each `Case` task computes `compute` on its inputs and stores the outputs,
//! then spawns the next level of its case; `compute` runs natively on the host too.
//!
//! Used by `tests/integration/rust_subset.rs` (CPU backend, host-compiled templates, NVRTC)
//! and by gpu-check (`rust subset differential` row: the GPU), so every backend runs it.

use wsdsl::prelude::*;

#[megakernel]
pub mod subsetk {
    use std::cmp::Ordering;
    use wsdsl::prelude::*;

    /// Outputs per case and level.
    pub const OUTS: usize = 12;

    #[params]
    pub struct Cfg {
        /// Each case runs at levels `0..=depth`, each level a task spawned by the one before.
        pub depth: u32,
    }

    #[buffers]
    pub struct Bufs {
        pub inputs: ReadOnly<u64>,
        pub out: Buffer<u64>,
        /// Tasks per level.
        pub seen: Buffer<u32>,
    }

    #[counters]
    pub struct Counters {
        pub tasks: Sum<u64>,
        pub spawned: Sum<u64>,
        pub largest: Max<u64>,
    }

    #[task]
    pub struct Case {
        pub i: u32,
        pub level: u32,
    }

    /// A measure of words, with a weight.
    pub trait Metric {
        const WEIGHT: u64;

        fn measure(&self, x: u64) -> u64;

        fn twice(&self, x: u64) -> u64 {
            self.measure(x).wrapping_mul(2) ^ Self::WEIGHT
        }
    }

    pub struct Hamming {
        pub mask: u64,
    }

    pub struct Spread {
        pub lo: u32,
        pub span: u32,
    }

    impl Metric for Hamming {
        const WEIGHT: u64 = 3;

        fn measure(&self, x: u64) -> u64 {
            (x & self.mask).count_ones() as u64
        }
    }

    impl Metric for Spread {
        const WEIGHT: u64 = 11;

        fn measure(&self, x: u64) -> u64 {
            ((x as u32) % self.span + self.lo) as u64
        }

        fn twice(&self, x: u64) -> u64 {
            self.measure(x) + self.measure(x >> 32)
        }
    }

    /// What every metric scores, by a blanket impl.
    pub trait Scored {
        fn score(&self, xs: &[u64]) -> u64;
    }

    impl<M: Metric> Scored for M {
        fn score(&self, xs: &[u64]) -> u64 {
            xs.iter().map(|&x| self.twice(x)).fold(M::WEIGHT, |a, v| a.wrapping_mul(31) ^ v)
        }
    }

    /// The word a metric measures highest (the last of equal ones, as `max_by` keeps).
    pub fn best_of<M: Metric>(m: &M, xs: &[u64]) -> u64 {
        xs.iter().copied().max_by(|a, b| m.measure(*a).cmp(&m.measure(*b))).unwrap_or(0)
    }

    pub fn compute(x: u64, y: u64) -> [u64; OUTS] {
        let bytes = [x as u8, (x >> 8) as u8, (x >> 16) as u8, (x >> 24) as u8, y as u8, (y >> 8) as u8, (y >> 16) as u8, (y >> 56) as u8];
        let mut r = [0u64; OUTS];
        // Adaptors and consumers.
        r[0] = bytes.iter().filter_map(|&b| if b % 3 == 0 { None } else { Some(b as u64 * 7) }).sum::<u64>()
            ^ (bytes.iter().take_while(|&&b| b > 16).count() as u64) << 32
            ^ bytes.iter().skip_while(|b| **b < 128).map(|&b| b as u64).last().unwrap_or(99) << 40;
        r[1] = (0..(x % 9) as u32).flat_map(|i| (0..i).map(move |j| (i, j))).filter(|(i, j)| (i + j) % 2 == 0).map(|(i, j)| (i * 16 + j) as u64).fold(0u64, |a, v| a.wrapping_mul(131) ^ v)
            ^ [[bytes[0], bytes[1]], [bytes[2], bytes[3]]].iter().flatten().map(|&b| b as u64 + 1).product::<u64>() << 20;
        r[2] = (0..(y % 5) as u8).chain(bytes[4]..bytes[4].saturating_add(3)).rev().enumerate().fold(0u64, |a, (i, v)| a.wrapping_mul(7) + (i as u64 + 1) * v as u64)
            ^ (bytes.iter().chain(bytes[..(y % 8) as usize].iter()).filter(|b| **b % 2 == 1).count() as u64) << 48;
        r[3] = bytes.iter().enumerate().max_by(|a, b| (a.1 % 16).cmp(&(b.1 % 16))).map(|(i, _)| i as u64).unwrap_or(9)
            ^ (bytes.iter().copied().min_by(|a, b| (b % 7).cmp(&(a % 7)).then(a.cmp(b))).unwrap_or(0) as u64) << 8
            ^ (bytes.iter().map(|&b| b as i64 - 128).rev().enumerate().map(|(i, v)| i as i64 * v).sum::<i64>() as u64) << 16;
        // Slice methods.
        let mut s = bytes;
        s.sort_unstable();
        let mut keyed = [(x % 7) as u32, (y % 7) as u32, 3, (x >> 3) as u32 % 7, 1, 5];
        keyed.sort_unstable_by_key(|&k| k % 3);
        let mut words = [x as u16, y as u16, (x >> 16) as u16, (y >> 16) as u16];
        words.sort_by(|a, b| b.cmp(a));
        r[4] = s.iter().fold(0u64, |a, &b| a << 8 | b as u64);
        r[5] = keyed.iter().fold(0u64, |a, &k| a * 10 + k as u64) ^ words.iter().fold(0u64, |a, &w| a.wrapping_mul(65537) ^ w as u64) << 20;
        let probe = (y % 256) as u8;
        r[6] = match s.binary_search(&probe) {
            Ok(i) => i as u64,
            Err(i) => 100 + i as u64,
        } ^ (s.binary_search_by_key(&(probe / 2), |&b| b / 2).unwrap_or_else(|i| i + 50) as u64) << 8
            ^ (s.contains(&probe) as u64) << 16
            ^ (s[2..].contains(&bytes[0]) as u64) << 17;
        let mut t = [0u8; 8];
        t[..4].copy_from_slice(&bytes[4..]);
        t[4..].fill(probe);
        t.swap(0, (x % 8) as usize);
        t[1..7].reverse();
        r[7] = t.iter().fold(0u64, |a, &b| a << 8 | b as u64) ^ s.first().copied().unwrap_or(0) as u64 ^ (s.last().copied().unwrap_or(0) as u64) << 56;
        // `Ordering` and `Result` values.
        r[8] = match x.cmp(&y) {
            Ordering::Less => 1,
            Ordering::Equal => 2,
            Ordering::Greater => 3,
        } ^ ((x as f64).total_cmp(&(y as f64)) as i64 as u64) << 4
            ^ ((x as f32).partial_cmp(&(y as f32)).map_or(7, |o| o as i32 + 1) as u64) << 8;
        let found = s.binary_search(&bytes[3]);
        r[11] = found.is_ok() as u64 | (found.unwrap_or(77) as u64) << 8 | (found.err().unwrap_or(66) as u64) << 16 | (found.ok().is_some() as u64) << 24;
        // Static dispatch.
        let h = Hamming { mask: y | 0xff };
        let sp = Spread { lo: (x % 100) as u32, span: 17 };
        let xs = [x, y, x ^ y, x.rotate_left(7)];
        r[9] = h.twice(x) ^ sp.twice(y) << 8 ^ h.score(&xs) << 16 ^ sp.score(&xs[1..]);
        r[10] = best_of(&h, &xs) ^ best_of(&sp, &xs).rotate_left(17) ^ (Hamming::WEIGHT + Spread::WEIGHT);
        r
    }

    /// The inputs of case `i`, from the buffers.
    fn inputs_of(bufs: &Bufs, i: usize) -> (u64, u64) {
        pair(&bufs.inputs, i)
    }

    /// Words `2i` and `2i + 1` of a read-only array taken on its own; kept out of line
    /// (`#[inline(never)]` is CUDA's `__noinline__`).
    #[inline(never)]
    fn pair(words: &ReadOnly<u64>, i: usize) -> (u64, u64) {
        (words.get(2 * i), words.get(2 * i + 1))
    }

    /// Writes `r` at `at` of a buffer taken on its own; always inlined (`__forceinline__`).
    #[inline(always)]
    fn store(out: &Buffer<u64>, at: usize, r: &[u64]) {
        for (k, &v) in r.iter().enumerate() {
            out.set(at + k, v);
        }
    }

    fn count_task(counters: &mut Counters) {
        counters.tasks.add(1);
    }

    fn offer(largest: &mut Max<u64>, v: u64) {
        largest.max(v);
    }

    impl Case {
        /// The next level of this case, if there is one: a method that takes the context.
        fn descend(&self, ctx: &mut Ctx) {
            if self.level < ctx.params.depth {
                ctx.spawn(Case { i: self.i, level: self.level + 1 });
                ctx.counters.spawned.add(1);
            }
        }
    }

    /// Stores this level's outputs and counts it: a helper that takes the whole context.
    fn finish(ctx: &mut Ctx, c: &Case, r: &[u64; OUTS]) {
        let levels = ctx.params.depth as usize + 1;
        let out = &ctx.buffers.out;
        store(out, (c.i as usize * levels + c.level as usize) * OUTS, r);
        let seen = &ctx.buffers.seen;
        let _ = seen.atomic_add(c.level as usize, 1);
        count_task(ctx.counters);
        offer(&mut ctx.counters.largest, r[4]);
    }

    #[spawn]
    fn case(c: &Case, ctx: &mut Ctx) {
        let (x, y) = inputs_of(ctx.buffers, c.i as usize);
        let r = compute(x.wrapping_add(c.level as u64), y);
        finish(ctx, c, &r);
        c.descend(ctx);
    }
}

/// Edge values, each with each, then pseudo-random pairs.
pub fn inputs() -> Vec<u64> {
    let edge = [0u64, 1, 2, 7, 31, 32, 33, 63, 64, 255, 256, 0x8000, u32::MAX as u64, i32::MIN as i64 as u64, u64::MAX, i64::MIN as u64, 1 << 40];
    let mut v = Vec::new();
    for &a in &edge {
        for &b in &edge {
            v.extend([a, b]);
        }
    }
    let mut s = 0x5eed_u64;
    for _ in 0..150 {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let z = (s ^ (s >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        v.extend([z, z.rotate_left(23) >> (z % 64)]);
    }
    v
}

/// Levels below each case's root.
pub const DEPTH: u32 = 2;

/// Empty buffers for `inputs`.
pub fn buffers(inputs: &[u64]) -> subsetk::Bufs {
    let cases = inputs.len() / 2;
    subsetk::Bufs {
        inputs: ReadOnly::from_vec(inputs.to_vec()),
        out: Buffer::zeroed(cases * (DEPTH as usize + 1) * subsetk::OUTS),
        seen: Buffer::zeroed(DEPTH as usize + 1),
    }
}

/// One root per case.
pub fn roots(inputs: &[u64]) -> Vec<subsetk::Task> {
    (0..inputs.len() as u32 / 2).map(|i| subsetk::Case { i, level: 0 }.into()).collect()
}

/// Whether a run left what native Rust computes: `Ok(summary)` or `Err(the mismatches)`.
pub fn check(bufs: &subsetk::Bufs, counters: &subsetk::Counters) -> Result<String, String> {
    let input = bufs.inputs.as_slice();
    let (cases, levels) = (input.len() / 2, DEPTH as usize + 1);
    let out = bufs.out.to_vec();
    let mut bad = Vec::new();
    let mut largest = 0;
    for i in 0..cases {
        for level in 0..levels {
            let want = subsetk::compute(input[2 * i].wrapping_add(level as u64), input[2 * i + 1]);
            largest = largest.max(want[4]);
            for k in 0..subsetk::OUTS {
                let got = out[(i * levels + level) * subsetk::OUTS + k];
                if got != want[k] {
                    bad.push(format!("case {i} ({:#x}, {:#x}) level {level} output {k}: native {:#x}, got {got:#x}", input[2 * i], input[2 * i + 1], want[k]));
                }
            }
        }
    }
    let seen = bufs.seen.to_vec();
    if seen != vec![cases as u32; levels] {
        bad.push(format!("tasks per level {seen:?}, want {cases} each"));
    }
    let totals = (counters.tasks.get(), counters.spawned.get(), counters.largest.get());
    let want = ((cases * levels) as u64, (cases * DEPTH as usize) as u64, largest);
    if totals != want {
        bad.push(format!("counters (tasks, spawned, largest) {totals:?}, want {want:?}"));
    }
    if bad.is_empty() {
        Ok(format!("{} tasks x {} outputs agree with native Rust", cases * levels, subsetk::OUTS))
    } else {
        Err(format!("{} mismatches:\n{}", bad.len(), bad.join("\n")))
    }
}

/// A run on `rt` and its check: (answer, expected, statistics), as gpu-check's rows take them.
pub fn run(rt: &Runtime) -> Result<(String, String, Stats), wsdsl::Error> {
    let input = inputs();
    let bufs = buffers(&input);
    let out = rt.run_with::<subsetk::Kernel>(subsetk::Cfg { depth: DEPTH }, &bufs, roots(&input))?;
    let answer = check(&bufs, &out.counters).unwrap_or_else(|e| e);
    let expected = format!("{} tasks x {} outputs agree with native Rust", input.len() / 2 * (DEPTH as usize + 1), subsetk::OUTS);
    Ok((answer, expected, out.stats))
}
