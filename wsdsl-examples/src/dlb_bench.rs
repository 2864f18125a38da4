//! DLB_Bench (Fontenaille et al., "Scalable Work-Stealing Load-Balancer for HPC Distributed
//! Memory Systems", §5.1): independent synthetic tasks whose initial placement is deliberately
//! unbalanced, so that only load balancing spreads them over the machine.
//!
//! **Placement.** The paper "spread[s] 70% of the tasks among 10% of processes following a
//! gaussian distribution". The gaussian is the placement, not the cost: its released
//! benchmark (`tests/src/DLB_Bench.cpp` of EXAPARS/TITUS, `gaussian_distribution`) weights
//! process `i` of `P` by `exp(-(10 i / P - 5)^2 / (2 * 0.5^2))`, a bell of standard deviation
//! one tenth of the ranks centred on the middle one, so the 10% of processes within one
//! standard deviation of the centre hold erf(1/√2) = 68.3% ("70%") of the tasks and the
//! processes in the tails hold none. Here the processes are `holders`, one root task each;
//! a holder's tasks are consecutive ids, as the benchmark numbers them. The benchmark draws
//! every task's holder at random from that weighting; this program gives each holder its
//! expected share instead (cumulative shares rounded, so the counts add up to exactly
//! `tasks` and a run does not depend on a random draw). `Imbalance::None` deals the tasks
//! evenly, the balanced baseline.
//!
//! **Cost.** In the paper every task costs the same (a busy wait of `TASK_TIME`; Table 1's
//! profiles differ by work per process, not by a spread of task costs), so the default
//! cost is constant. Uniform and gaussian costs are this program's extension: variable task
//! times, the imbalance of the paper's YALES2 case (§5.2), on top of the placement. A task's
//! cost is a number of rounds of a cheap integer loop, drawn from a stateless hash of its id
//! and the seed, so any worker that runs the task draws the same cost and the host can
//! recompute every task's result on its own.
//!
//! **Tasks.** A holder's root splits its range of ids in halves down to single tasks, so a
//! holder's work becomes stealable as it is produced, as a process's deque is in the paper.
//! On the GPU the roots are dealt round-robin (holder `h` to worker `h mod workers`), so the
//! heavy holders sit on neighbouring workers and most workers start with little or nothing;
//! the CPU backend forks the roots as a rayon program would.

use wsdsl::prelude::*;

use crate::rng::SplitMix64;

#[megakernel]
pub mod dlb {
    use wsdsl::prelude::*;

    /// How a task's cost (rounds of `burn`) is drawn around the mean.
    pub enum Cost {
        /// Every task costs `mean` rounds (the paper's benchmark).
        Constant = 0,
        /// Uniform on `mean - spread ..= mean + spread` (needs `spread <= mean`).
        Uniform = 1,
        /// Approximately normal with standard deviation `spread` (Irwin–Hall: the sum of 12
        /// uniforms), clipped to `0 ..= 2 * mean` on both sides so the mean stays `mean`.
        Gaussian = 2,
    }

    #[params]
    pub struct Params {
        pub cost: Cost,
        /// Mean cost of a task, in rounds (at most `MAX_MEAN`).
        pub mean: u32,
        /// Uniform: half the width of the range; gaussian: the standard deviation.
        pub spread: u32,
        pub seed: u64,
    }

    #[counters]
    pub struct Counters {
        /// Tasks run (the leaves, not the splitting tasks above them).
        pub tasks: Sum<u64>,
        /// Rounds of `burn` run, all tasks together.
        pub units: Sum<u64>,
        /// The tasks' results, summed (wrapping): a task's result is its key with its loop's
        /// result folded in, hashed, so a task run twice, skipped, or computed differently
        /// changes every bit of the sum.
        pub checksum: Sum<u64>,
    }

    /// Task ids `lo..hi` of one holder's share, not yet handed out.
    #[task]
    pub struct Share {
        pub lo: u64,
        pub hi: u64,
    }

    /// SplitMix64's increment (2^64 / golden ratio).
    pub const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

    /// Largest mean cost: a cost of up to twice the mean must fit a `u32`.
    pub const MAX_MEAN: u32 = 0x7FFF_FFFF;

    /// SplitMix64's output function (Steele, Lea & Flood 2014).
    fn mix64(z: u64) -> u64 {
        let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Task `id`'s key: output `id` (from 0) of SplitMix64 seeded with `seed`, computed
    /// directly from the id (its state after `id + 1` steps is `seed + (id + 1) * GOLDEN`),
    /// so no task depends on another.
    pub fn task_key(seed: u64, id: u64) -> u64 {
        mix64(seed.wrapping_add(id.wrapping_add(1).wrapping_mul(GOLDEN)))
    }

    /// Output `k` (from 1) of the task's own SplitMix64 stream, seeded with its key: the
    /// random numbers its cost is drawn from.
    fn draw(key: u64, k: u64) -> u64 {
        mix64(key.wrapping_add(k.wrapping_mul(GOLDEN)))
    }

    impl Params {
        /// The cost, in rounds, of the task with this key.
        pub fn cost_of(&self, key: u64) -> u32 {
            match self.cost {
                Cost::Constant => self.mean,
                Cost::Uniform => {
                    let width = 2 * (self.spread as u64) + 1;
                    self.mean - self.spread + (draw(key, 1) % width) as u32
                }
                Cost::Gaussian => {
                    // Twelve 16-bit uniforms (four from each of three draws): their sum has
                    // mean 12 * 65535 / 2 and standard deviation sqrt(65536^2 - 1), 65536 to
                    // within 1e-10, so (sum - mean) / 65536 is a standard normal to within
                    // Irwin–Hall's accuracy, bounded by ±6 (no transcendental functions,
                    // which differ in the last bits between the host and the GPU).
                    let mut sum = 0i64;
                    for k in 1..4u64 {
                        let d = draw(key, k);
                        for lane in 0..4u64 {
                            sum += ((d >> (16 * lane)) & 0xffff) as i64;
                        }
                    }
                    // spread * z, rounded (half up); |(sum - mean) * spread| < 2^51.
                    let offset = ((sum - 393_210) * (self.spread as i64) + 32_768) >> 16;
                    let mean = self.mean as i64;
                    (mean + offset).max(0).min(2 * mean) as u32
                }
            }
        }
    }

    /// The synthetic work: `units` rounds of a 32-bit multiply-add and an xor-shift, each
    /// depending on the one before, so no compiler can skip, vectorise or shorten the loop
    /// (three integer instructions a round on the GPU).
    pub fn burn(x0: u32, units: u32) -> u32 {
        let mut x = x0;
        for _ in 0..units {
            x = x.wrapping_mul(0x9E37_79B1).wrapping_add(0x7F4A_7C15);
            x ^= x >> 15;
        }
        x
    }

    #[spawn]
    fn share(s: &Share, ctx: &mut Ctx) {
        let n = s.hi - s.lo;
        if n == 1 {
            let key = task_key(ctx.params.seed, s.lo);
            let units = ctx.params.cost_of(key);
            let result = burn(key as u32, units);
            ctx.counters.tasks.add(1);
            ctx.counters.units.add(units as u64);
            ctx.counters.checksum.add(mix64(key ^ (result as u64)));
        } else if n > 1 {
            // An empty share (a holder in the tails of the bell) does nothing.
            let mid = s.lo + n / 2;
            ctx.spawn(Share { lo: s.lo, hi: mid });
            ctx.spawn(Share { lo: mid, hi: s.hi });
        }
    }
}

/// How the tasks start out over the holders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Imbalance {
    /// The paper's gaussian: the middle 10% of the holders hold 68.3% of the tasks.
    Paper,
    /// Every holder holds `tasks / holders` tasks, give or take one.
    None,
}

/// A benchmark instance: what the command line asks for.
#[derive(Debug, Clone, Copy)]
pub struct Bench {
    pub tasks: u64,
    pub holders: u32,
    pub imbalance: Imbalance,
    pub params: dlb::Params,
}

/// What a run must come back with: the kernel's counters, computed independently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    pub tasks: u64,
    pub units: u64,
    pub checksum: u64,
}

impl Bench {
    /// Refuses instances the kernel cannot run as described.
    pub fn validate(&self) -> Result<(), wsdsl::Error> {
        let refuse = |why: String| Err(wsdsl::Error::InvalidConfig(why));
        let p = &self.params;
        if self.tasks == 0 {
            return refuse("--tasks must be at least 1".into());
        }
        if self.holders == 0 {
            return refuse("--holders must be at least 1".into());
        }
        if p.mean > dlb::MAX_MEAN {
            return refuse(format!(
                "--mean-cost {} is above {} (a task may cost twice the mean, in a u32)",
                p.mean,
                dlb::MAX_MEAN
            ));
        }
        if p.cost == dlb::Cost::Uniform && p.spread > p.mean {
            return refuse(format!(
                "a uniform cost on mean ± spread needs --spread <= --mean-cost (a cost cannot be negative): {} > {}",
                p.spread, p.mean
            ));
        }
        Ok(())
    }

    /// How many tasks each holder starts with (they add up to `tasks`).
    pub fn shares(&self) -> Vec<u64> {
        let (n, h) = (self.tasks, u64::from(self.holders));
        match self.imbalance {
            Imbalance::None => (0..h).map(|i| n / h + u64::from(i < n % h)).collect(),
            Imbalance::Paper => {
                // DLB_Bench's weights: holders at x = 10 i / h on [0, 10), a bell at 5 of
                // standard deviation 0.5.
                let weights: Vec<f64> = (0..h)
                    .map(|i| {
                        let x = i as f64 * 10.0 / h as f64;
                        (-(x - 5.0).powi(2) / (2.0 * 0.5 * 0.5)).exp()
                    })
                    .collect();
                let total: f64 = weights.iter().sum();
                // Holder i's share ends at round(n * cumulative weight): shares never go
                // negative, and the last one ends at exactly n.
                let mut cumulative = 0.0;
                let mut start = 0u64;
                let mut shares = Vec::with_capacity(h as usize);
                for (i, w) in weights.iter().enumerate() {
                    cumulative += w;
                    let end = if i as u64 == h - 1 { n } else { ((n as f64) * (cumulative / total)).round() as u64 };
                    let end = end.clamp(start, n);
                    shares.push(end - start);
                    start = end;
                }
                shares
            }
        }
    }

    /// One root per holder, in holder order: holder `i` holds the ids that follow holder
    /// `i - 1`'s.
    pub fn roots(&self) -> Vec<dlb::Share> {
        let mut lo = 0;
        self.shares()
            .into_iter()
            .map(|n| {
                let share = dlb::Share { lo, hi: lo + n };
                lo += n;
                share
            })
            .collect()
    }

    /// Tasks the run spawns in all, splitting tasks and empty roots included: a holder with
    /// `n >= 1` tasks is a binary tree of `2n - 1` tasks, one with none a single task.
    pub fn spawned(&self) -> u64 {
        self.shares().iter().map(|&n| if n == 0 { 1 } else { 2 * n - 1 }).sum()
    }
}

/// The fraction of all tasks held by the busiest `holders / 10` holders (at least one).
pub fn busiest_tenth(shares: &[u64]) -> f64 {
    let mut sorted = shares.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let tenth = sorted.len().div_ceil(10);
    let total: u64 = sorted.iter().sum();
    sorted[..tenth].iter().sum::<u64>() as f64 / total as f64
}

/// Runs the benchmark on `rt` and returns its counters.
pub fn run(rt: &Runtime, bench: &Bench) -> Result<(Totals, Output<dlb::Kernel>), wsdsl::Error> {
    bench.validate()?;
    let out = rt.run::<dlb::Kernel>(bench.params, bench.roots())?;
    let c = &out.counters;
    Ok((Totals { tasks: c.tasks.get(), units: c.units.get(), checksum: c.checksum.get() }, out))
}

/// The host's cost of a task, written from the description of `dlb::Cost` without the
/// kernel's code: the task's draws come from `SplitMix64` seeded with its key.
fn host_cost(p: &dlb::Params, key: u64) -> u32 {
    let mut draws = SplitMix64::new(key);
    match p.cost {
        dlb::Cost::Constant => p.mean,
        dlb::Cost::Uniform => p.mean - p.spread + draws.below(2 * u64::from(p.spread) + 1) as u32,
        dlb::Cost::Gaussian => {
            let sum: i64 = (0..3)
                .flat_map(|_| draws.next_u64().to_le_bytes())
                .collect::<Vec<u8>>()
                .chunks_exact(2)
                .map(|pair| i64::from(u16::from_le_bytes([pair[0], pair[1]])))
                .sum();
            let z_times_spread = (sum - 12 * 65_535 / 2) * i64::from(p.spread);
            // Round half up: floor((x + 2^15) / 2^16).
            let offset = (z_times_spread + (1 << 15)).div_euclid(1 << 16);
            let mean = i64::from(p.mean);
            (mean + offset).clamp(0, 2 * mean) as u32
        }
    }
}

/// SplitMix64's output function, as `dlb`'s (which host code does not call).
fn host_mix64(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One round of the host's synthetic work, the same as a round of `dlb::burn`.
#[inline(always)]
fn host_round(x: u32) -> u32 {
    let y = x.wrapping_mul(0x9E37_79B1).wrapping_add(0x7F4A_7C15);
    y ^ (y >> 15)
}

/// Tasks whose work the host does side by side: a task's rounds are a chain of dependent
/// multiplies, so one task at a time leaves the core waiting on each; `LANES` tasks in
/// lock-step fill eight AVX2 registers of 32-bit lanes, enough independent multiplies to keep
/// the multiplier busy. Checking a 4-GPU DLB_Bench run (16 M tasks of 30,000 rounds) took
/// 76 s on 64 cores one task at a time, longer than the runs themselves. On 2 cores, 100,000
/// such tasks: 127 ms with 64 lanes, 995 ms with 16, against 5.0 s for the CPU backend's
/// run of the same work.
const LANES: usize = 64;

/// Tasks the host draws, sorts by cost and burns per step: lanes of a group then run about
/// as many rounds as each other.
const BLOCK: usize = 4096;

/// The wrapping sum of `mix64(key ^ burn(key, units))` over `(units, key)` pairs sorted by
/// units: groups of `LANES` run the rounds they all have unmasked, then the longest one's
/// rest with each lane kept once its own rounds are done.
#[inline(always)]
fn burn_sorted(tasks: &[(u32, u64)]) -> u64 {
    let mut checksum = 0u64;
    for group in tasks.chunks(LANES) {
        let mut x = [0u32; LANES];
        let mut units = [0u32; LANES];
        for (l, &(u, key)) in group.iter().enumerate() {
            x[l] = key as u32;
            units[l] = u;
        }
        let (least, most) = (group[0].0, group[group.len() - 1].0);
        for _ in 0..least {
            for v in &mut x {
                *v = host_round(*v);
            }
        }
        for round in least..most {
            for (v, &u) in x.iter_mut().zip(&units) {
                let next = host_round(*v);
                *v = if round < u { next } else { *v };
            }
        }
        for (l, &(_, key)) in group.iter().enumerate() {
            checksum = checksum.wrapping_add(host_mix64(key ^ u64::from(x[l])));
        }
    }
    checksum
}

/// [`burn_sorted`] compiled for AVX2 where the host has it (the machines with GPUs do).
fn burn_sorted_fast(tasks: &[(u32, u64)]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        unsafe fn avx2(tasks: &[(u32, u64)]) -> u64 {
            burn_sorted(tasks)
        }
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { avx2(tasks) };
    }
    burn_sorted(tasks)
}

/// The counters a correct run ends with, computed on the host's threads: task keys are the
/// SplitMix64 stream of the seed read in order (the kernel jumps to each task's), costs and
/// work as above, the work of `LANES` tasks of similar cost side by side.
pub fn reference(bench: &Bench) -> Totals {
    let p = bench.params;
    let n = bench.tasks;
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get() as u64);
    let chunk = n.div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let parts: Vec<_> = (0..n)
            .step_by(chunk as usize)
            .map(|start| {
                scope.spawn(move || {
                    // The stream's state before output `start` is seed + start * GOLDEN.
                    let mut keys = SplitMix64::new(p.seed.wrapping_add(start.wrapping_mul(dlb::GOLDEN)));
                    let mut t = Totals::default();
                    let mut block: Vec<(u32, u64)> = Vec::with_capacity(BLOCK);
                    let end = (start + chunk).min(n);
                    let mut at = start;
                    while at < end {
                        let take = (end - at).min(BLOCK as u64);
                        block.clear();
                        for _ in 0..take {
                            let key = keys.next_u64();
                            let units = host_cost(&p, key);
                            t.units += u64::from(units);
                            block.push((units, key));
                        }
                        t.tasks += take;
                        // The checksum is a sum: the order the tasks are burnt in is free.
                        block.sort_unstable_by_key(|&(units, _)| units);
                        t.checksum = t.checksum.wrapping_add(burn_sorted_fast(&block));
                        at += take;
                    }
                    t
                })
            })
            .collect();
        parts.into_iter().map(|h| h.join().expect("a reference thread panicked")).fold(Totals::default(), |a, b| Totals {
            tasks: a.tasks + b.tasks,
            units: a.units + b.units,
            checksum: a.checksum.wrapping_add(b.checksum),
        })
    })
}
