//! Complete handlers that spawn (continuations): a task's complete handler may spawn more
//! children, its task then waits for them, and the handler runs again with their values
//! (`ctx.round()` counts the runs). Checked on the CPU backend and on the host build of the
//! scheduler templates under every scheduler: a program against plain recursion, and the
//! quicksort example (three rounds per partition) against the standard library's sort.

use wsdsl_examples::quicksort;
use crate::schedulers;

use schedulers::{join_configs, label};
use wsdsl::gpu::emulate::{run_emulated, Emulation};
use wsdsl::prelude::*;
use wsdsl::{Scheduler, Steal};

/// A chain of `Node`s, each with a `Leaf` beside its child. A node's complete handler sums
/// its two children's values in round 1, then, while `round < rounds`, spawns one more
/// `Leaf` carrying `2 * sum + round` and takes that as the new sum in the next round.
#[megakernel]
pub mod rounds {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        pub rounds: u32,
    }

    #[counters]
    pub struct Counters {
        /// Runs of complete handlers.
        pub completes: Sum<u64>,
        /// The largest round seen.
        pub last_round: Max<u32>,
    }

    #[task(value = u64)]
    pub struct Node {
        pub depth: u32,
        pub base: u64,
    }

    #[task(value = u64)]
    pub struct Leaf {
        pub v: u64,
    }

    #[spawn]
    fn node(n: &Node, ctx: &mut Ctx) -> u64 {
        if n.depth == 0 {
            return n.base;
        }
        ctx.spawn(Node { depth: n.depth - 1, base: n.base.wrapping_mul(3) });
        ctx.spawn(Leaf { v: n.base + 1 });
        0
    }

    #[spawn]
    fn leaf(l: &Leaf, _ctx: &mut Ctx) -> u64 {
        l.v
    }

    #[complete(max_children = 2)]
    fn combine(_n: &Node, children: &[u64], ctx: &mut Ctx) -> u64 {
        ctx.counters.completes.add(1);
        let round = ctx.round();
        ctx.counters.last_round.max(round);
        let mut sum = 0u64;
        for i in 0..children.len() {
            sum = sum.wrapping_add(children[i]);
        }
        if round < ctx.params.rounds {
            ctx.spawn(Leaf { v: sum.wrapping_mul(2).wrapping_add(round as u64) });
        }
        sum
    }
}

/// A root's value by plain recursion.
fn reference(depth: u32, base: u64, rounds: u32) -> u64 {
    if depth == 0 {
        return base;
    }
    let mut sum = reference(depth - 1, base.wrapping_mul(3), rounds).wrapping_add(base + 1);
    for round in 1..rounds.max(1) {
        sum = sum.wrapping_mul(2).wrapping_add(round as u64);
    }
    sum
}

fn roots() -> Vec<rounds::Task> {
    (0..6u64).map(|r| rounds::Node { depth: (r * 5 % 13) as u32, base: r + 2 }.into()).collect()
}

/// (values, complete handler runs, last round) expected for `rounds`.
fn expected(rounds: u32) -> (Vec<u64>, u64, u32) {
    let values = (0..6u64).map(|r| reference((r * 5 % 13) as u32, r + 2, rounds)).collect();
    let inner: u64 = (0..6u64).map(|r| r * 5 % 13).sum();
    (values, inner * rounds.max(1) as u64, if inner > 0 { rounds.max(1) } else { 0 })
}

#[test]
fn complete_handlers_spawn_and_run_again_on_the_cpu() {
    for rounds in [1, 2, 5] {
        let out = Runtime::new(Backend::Cpu).cpu_threads(3).run::<rounds::Kernel>(rounds::Params { rounds }, roots()).unwrap();
        let (values, completes, last) = expected(rounds);
        assert_eq!(out.values, values, "{rounds} rounds");
        assert_eq!(out.counters.completes.get(), completes, "{rounds} rounds");
        assert_eq!(out.counters.last_round.get(), last, "{rounds} rounds");
    }
}

#[test]
fn complete_handlers_spawn_and_run_again_under_every_scheduler_on_the_host_build() {
    let emu = Emulation::default();
    let rounds = 4;
    let (values, completes, last) = expected(rounds);
    let mut failures = Vec::new();
    for config in join_configs() {
        match run_emulated::<rounds::Kernel>(&rounds::Params { rounds }, &(), &roots(), &config, &emu) {
            Ok((c, got, _)) if got == values && c.completes.get() == completes && c.last_round.get() == last => {}
            Ok((c, got, _)) => failures.push(format!(
                "{}: values {got:?}, {} completes, last round {}",
                label(&config),
                c.completes.get(),
                c.last_round.get()
            )),
            Err(e) => failures.push(format!("{}: {e}", label(&config))),
        }
    }
    assert!(failures.is_empty(), "expected {values:?}, {completes} completes:\n{}", failures.join("\n"));
}

#[test]
fn quicksort_sorts_on_the_cpu() {
    // Distinct keys, many repeats, all equal, and sizes around the cutoff and a job's piece.
    for (n, distinct, cutoff) in [(0usize, 10u32, 64u32), (1, 10, 64), (33, 1000, 8), (5_000, u32::MAX, 64), (20_000, 7, 256), (9_999, 1, 100), (100_000, u32::MAX, 256)] {
        let input = quicksort::keys(n, n as u64 + 3, distinct);
        let (sorted, _) = quicksort::sort(&Runtime::new(Backend::Cpu).cpu_threads(3), &input, cutoff).unwrap();
        quicksort::check(&input, &sorted.data).unwrap_or_else(|e| panic!("{n} keys from {distinct} values: {e}"));
    }
}

#[test]
fn quicksort_sorts_under_every_scheduler_on_the_host_build() {
    let emu = Emulation::default();
    let input = quicksort::keys(30_000, 11, 500);
    let pivot = quicksort::quicksort::median3(input[0], input[15_000], input[29_999]);
    let mut failures = Vec::new();
    for config in join_configs() {
        let buffers = quicksort::quicksort::Buffers { data: Buffer::from_vec(input.clone()), scratch: Buffer::zeroed(input.len()) };
        let root = quicksort::quicksort::Sort { lo: 0, hi: input.len() as u32, src: 0, depth: 0, pivot }.into();
        let params = quicksort::quicksort::Params { cutoff: 64 };
        match run_emulated::<quicksort::quicksort::Kernel>(&params, &buffers, &[root], &config, &emu) {
            Ok(_) => {
                if let Err(e) = quicksort::check(&input, &buffers.data.to_vec()) {
                    failures.push(format!("{}: {e}", label(&config)));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", label(&config))),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The same checks on the GPU; skipped (saying so) where there is no GPU. The rounds run
/// under every scheduler configuration. Quicksort, whose kernel NVRTC takes about 7 s to build
/// (the 24 configurations took over 200 s, beyond what a GPU session could give this test),
/// runs under a covering set: each worker granularity, victim policy and broker scheduler at
/// least once. The host-compiled templates run it under all of them (above), and gpu-check
/// runs the sorting examples on the GPU besides.
#[test]
fn complete_handlers_spawn_and_run_again_on_the_gpu_when_present() {
    if let Err(e) = Runtime::new(Backend::Gpu).gpu() {
        eprintln!("SKIPPED the GPU runs of the continuation programs: {e}");
        return;
    }
    let rounds = 4;
    let (values, completes, last) = expected(rounds);
    let input = quicksort::keys(300_000, 5, 2_000);
    let mut failures = Vec::new();
    let mut sorted_under = 0;
    for config in join_configs() {
        let rt = Runtime::new(Backend::Gpu).kernel_config(config);
        match rt.run::<rounds::Kernel>(rounds::Params { rounds }, roots()) {
            Ok(out) if out.values == values && out.counters.completes.get() == completes && out.counters.last_round.get() == last => {}
            Ok(out) => failures.push(format!("{}: rounds gave {:?}", label(&config), out.values)),
            Err(e) => failures.push(format!("{}: rounds: {e}", label(&config))),
        }
        let covering = match config.scheduler {
            Scheduler::Deque => config.victim as u32 % 3 == config.worker as u32 && config.steal == Steal::One,
            Scheduler::Static => false,
            Scheduler::Bq | Scheduler::Bwd | Scheduler::Bsq => config.scheduler as u32 - Scheduler::Bq as u32 == config.worker as u32,
        };
        if !covering {
            continue;
        }
        sorted_under += 1;
        match quicksort::sort(&rt, &input, 256) {
            Ok((sorted, _)) => {
                if let Err(e) = quicksort::check(&input, &sorted.data) {
                    failures.push(format!("{}: quicksort: {e}", label(&config)));
                }
            }
            Err(e) => failures.push(format!("{}: quicksort: {e}", label(&config))),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("continuations on the GPU: rounds exact under {} scheduler configurations, quicksort under {sorted_under}", join_configs().len());
}
