//! Complete handlers on every backend that runs without a GPU: the CPU backend, and the
//! scheduler templates compiled for the host (`wsdsl::gpu::emulate`), where frames, join
//! counters and the frame pool run exactly as on the device. Also the ways a join can fail:
//! a task spawning more children than `max_children`, and an exhausted frame pool.

use wsdsl_examples::fib;
use wsdsl_examples::mergesort;
use wsdsl_examples::mergesort::merge_path;

use crate::schedulers;

use schedulers::{join_configs, label};
use wsdsl::gpu::emulate::{run_emulated, Emulation};
use wsdsl::prelude::*;
use wsdsl::{Error, KernelConfig, Worker};

/// Three levels of values: `Sum` nodes add their children's values, a `Max` node keeps the
/// largest, and leaves return their weight. Checks that values reach the right slots and
/// parents, across task types, with several roots.
#[megakernel]
pub mod mixed {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        /// Children per inner node.
        pub fanout: u32,
    }

    #[counters]
    pub struct Counters {
        pub completes: Sum<u64>,
    }

    #[task(value = i64)]
    pub struct Sum3 {
        pub depth: u32,
        pub base: i64,
    }

    #[task(value = i64)]
    pub struct MaxOf {
        pub base: i64,
    }

    #[task(value = i64)]
    pub struct Leaf {
        pub weight: i64,
    }

    #[spawn]
    fn sum_spawn(s: &Sum3, ctx: &mut Ctx) -> i64 {
        for i in 0..ctx.params.fanout {
            if s.depth == 0 {
                ctx.spawn(MaxOf { base: s.base * 10 + i as i64 });
            } else {
                ctx.spawn(Sum3 { depth: s.depth - 1, base: s.base * 10 + i as i64 });
            }
        }
        -1
    }

    #[complete(max_children = 8)]
    fn sum_done(s: &Sum3, children: &[i64], ctx: &mut Ctx) -> i64 {
        ctx.counters.completes.add(1);
        let mut total = 0i64;
        for i in 0..children.len() {
            // Weighted by position: a value in the wrong slot changes the answer.
            total += children[i] * (i as i64 + 1);
        }
        total + s.depth as i64
    }

    #[spawn]
    fn max_spawn(m: &MaxOf, ctx: &mut Ctx) -> i64 {
        if m.base % 3 == 0 {
            // No children: this is the value.
            return m.base;
        }
        for i in 0..3 {
            ctx.spawn(Leaf { weight: (m.base * 7 + i) % 11 - 5 });
        }
        0
    }

    #[complete(max_children = 3)]
    fn max_done(_m: &MaxOf, children: &[i64], ctx: &mut Ctx) -> i64 {
        ctx.counters.completes.add(1);
        // Iterating the children's values (a slice): the largest, the first if equal.
        children.iter().copied().max().unwrap()
    }

    #[spawn]
    fn leaf(l: &Leaf, _ctx: &mut Ctx) -> i64 {
        l.weight
    }
}

/// `mixed` computed directly: (value, complete handlers run).
fn mixed_reference(fanout: u32, depth: u32, base: i64) -> (i64, u64) {
    let mut completes = 0;
    let mut total = 0;
    for i in 0..fanout {
        let b = base * 10 + i as i64;
        let (v, c) = if depth == 0 {
            if b % 3 == 0 {
                (b, 0)
            } else {
                ((0..3).map(|k| (b * 7 + k) % 11 - 5).max().unwrap(), 1)
            }
        } else {
            mixed_reference(fanout, depth - 1, b)
        };
        completes += c;
        total += v * (i as i64 + 1);
    }
    (total + depth as i64, completes + 1)
}

fn mixed_roots() -> Vec<mixed::Task> {
    (0..5).map(|r| mixed::Sum3 { depth: (r % 3) as u32, base: r as i64 + 1 }.into()).collect()
}

fn mixed_expected(fanout: u32) -> (Vec<i64>, u64) {
    let answers: Vec<(i64, u64)> = (0..5).map(|r| mixed_reference(fanout, (r % 3) as u32, r as i64 + 1)).collect();
    (answers.iter().map(|a| a.0).collect(), answers.iter().map(|a| a.1).sum())
}

#[test]
fn values_reach_their_parents_on_the_cpu() {
    let out = Runtime::new(Backend::Cpu).run::<mixed::Kernel>(mixed::Params { fanout: 4 }, mixed_roots()).unwrap();
    let (values, completes) = mixed_expected(4);
    assert_eq!(out.values, values);
    assert_eq!(out.counters.completes.get(), completes);
    assert!(out.stats.peak_frames > 0, "frames were used: {}", out.stats);
}

#[test]
fn fib_joins_on_the_cpu() {
    for n in [0, 1, 2, 10, 24] {
        let (leaves, value, out) = fib::solve(&Runtime::new(Backend::Cpu).cpu_threads(3), n).unwrap();
        assert_eq!((value, leaves), (fib::reference(n), fib::reference(n + 1)), "fib({n})");
        assert_eq!(out.counters.joins.get() + 1, fib::reference(n + 1), "joins of fib({n})");
        assert_eq!(out.stats.completions, out.counters.joins.get(), "complete handlers counted for fib({n})");
    }
}

#[test]
fn values_reach_their_parents_under_every_scheduler_on_the_host_build() {
    let emu = Emulation::default();
    let (values, completes) = mixed_expected(5);
    let mut failures = Vec::new();
    for config in join_configs() {
        match run_emulated::<mixed::Kernel>(&mixed::Params { fanout: 5 }, &(), &mixed_roots(), &config, &emu) {
            Ok((counters, got, _)) if got == values && counters.completes.get() == completes => {}
            Ok((counters, got, _)) => failures.push(format!("{}: values {got:?}, {} completes", label(&config), counters.completes.get())),
            Err(e) => failures.push(format!("{}: {e}", label(&config))),
        }
    }
    assert!(failures.is_empty(), "expected {values:?}, {completes} completes:\n{}", failures.join("\n"));
}

#[test]
fn fib_joins_under_every_scheduler_on_the_host_build() {
    let emu = Emulation::default();
    let n = 20;
    let mut failures = Vec::new();
    for config in join_configs() {
        match run_emulated::<fib::fib::Kernel>(&(), &(), &[fib::fib::Call { n }.into()], &config, &emu) {
            Ok((counters, values, stats)) => {
                let ok = values == [fib::reference(n)]
                    && counters.leaves.get() == fib::reference(n + 1)
                    && counters.joins.get() + 1 == fib::reference(n + 1)
                    && stats.completions == counters.joins.get()
                    && stats.tasks == 2 * fib::reference(n + 1) - 1;
                eprintln!("{:<40} {}  fib({n}) = {:?}, {} frames at most", label(&config), if ok { "ok  " } else { "FAIL" }, values, stats.peak_frames);
                if !ok {
                    failures.push(format!("{}: {values:?} {counters:?}", label(&config)));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", label(&config))),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn mergesort_merges_in_complete_handlers_on_the_cpu() {
    let rt = Runtime::new(Backend::Cpu).cpu_threads(3);
    for (n, cutoff, distinct) in [(0usize, 4u32, 10u32), (1, 4, 10), (7, 1, 3), (10_000, 8, 50), (30_001, 32, u32::MAX), (100_000, 256, u32::MAX)] {
        let input = mergesort::keys(n, n as u64, distinct);
        let (sorted, _) = mergesort::sort(&rt, &input, cutoff).unwrap();
        mergesort::check(&input, &sorted.data).unwrap_or_else(|e| panic!("{n} keys: {e}"));
        assert_eq!((sorted.leaves, sorted.merges), mergesort::tree_shape(n as u32, cutoff), "{n} keys");
        if cutoff <= 32 {
            let (sorted, _) = merge_path::sort(&rt, &input, cutoff, 64).unwrap();
            mergesort::check(&input, &sorted.data).unwrap_or_else(|e| panic!("{n} keys by merge-path tasks: {e}"));
            assert_eq!((sorted.leaves, sorted.merges, sorted.pieces), merge_path::tree_shape(n as u32, cutoff, 64), "{n} keys");
        }
    }
}

#[test]
fn the_mergesort_check_catches_unsorted_and_altered_output() {
    let input = [3, 1, 2];
    assert!(mergesort::check(&input, &[1, 3, 2]).unwrap_err().contains("not sorted"));
    assert!(mergesort::check(&input, &[1, 2, 2]).unwrap_err().contains("permutation"));
    assert!(mergesort::check(&input, &[1, 2]).is_err());
}

#[test]
fn mergesort_under_every_scheduler_on_the_host_build() {
    let emu = Emulation::default();
    let input = mergesort::keys(20_000, 9, 1000);
    let mut failures = Vec::new();
    for config in join_configs() {
        let root = |dst| mergesort::mergesort::Sort { lo: 0, hi: input.len() as u32, dst };
        let buffers = mergesort::mergesort::Buffers { data: Buffer::from_vec(input.clone()), scratch: Buffer::zeroed(input.len()) };
        match run_emulated::<mergesort::mergesort::Kernel>(&mergesort::mergesort::Params { cutoff: 100 }, &buffers, &[root(0).into()], &config, &emu) {
            Ok((counters, _, _)) => {
                if let Err(e) = mergesort::check(&input, &buffers.data.to_vec()) {
                    failures.push(format!("{}: {e}", label(&config)));
                } else if (counters.leaves.get(), counters.merges.get()) != mergesort::tree_shape(input.len() as u32, 100) {
                    failures.push(format!("{}: tree {counters:?}", label(&config)));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", label(&config))),
        }
        let buffers = merge_path::merge_path::Buffers { data: Buffer::from_vec(input.clone()), scratch: Buffer::zeroed(input.len()) };
        let root = merge_path::merge_path::Sort { lo: 0, hi: input.len() as u32, dst: 0 }.into();
        let params = merge_path::merge_path::Params { cutoff: 16, grain: 300 };
        match run_emulated::<merge_path::merge_path::Kernel>(&params, &buffers, &[root], &config, &emu) {
            Ok((counters, _, _)) => {
                if let Err(e) = mergesort::check(&input, &buffers.data.to_vec()) {
                    failures.push(format!("{} (merge-path tasks): {e}", label(&config)));
                } else if (counters.leaves.get(), counters.merges.get(), counters.pieces.get()) != merge_path::tree_shape(input.len() as u32, 16, 300) {
                    failures.push(format!("{} (merge-path tasks): tree {counters:?}", label(&config)));
                }
            }
            Err(e) => failures.push(format!("{} (merge-path tasks): {e}", label(&config))),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn an_exhausted_frame_pool_is_reported() {
    // fib(22) keeps far more than 16 tasks waiting at once on 256 emulated threads.
    let emu = Emulation { frames: 16, ..Emulation::default() };
    match run_emulated::<fib::fib::Kernel>(&(), &(), &[fib::fib::Call { n: 22 }.into()], &KernelConfig::default(), &emu) {
        Err(Error::FramePoolExhausted { capacity: 16 }) => {}
        other => panic!("expected the frame pool to run out, got {:?}", other.map(|(_, v, s)| (v, s))),
    }
    let message = Error::FramePoolExhausted { capacity: 16 }.to_string();
    assert!(message.contains("WSDSL_FRAMES") && message.contains("32"), "{message}");
}

/// Negamax over 1 to 7 leaves: `max(-child)` chains are what the CUDA 13.0 compiler got wrong
/// for sm_90 until negation was made opaque (cuda/core/rust_semantics.cuh); this keeps the case.
#[megakernel]
pub mod negamax {
    #[task(value = i32)]
    pub struct Node {
        pub children: u32,
        pub leaf: i32,
    }

    #[spawn]
    fn expand(n: &Node, ctx: &mut Ctx) -> i32 {
        for i in 0..n.children {
            ctx.spawn(Node { children: 0, leaf: (i as i32 * 7 + n.children as i32 * 3) % 11 - 5 });
        }
        n.leaf
    }

    #[complete(max_children = 7)]
    fn best(_n: &Node, children: &[i32], _ctx: &mut Ctx) -> i32 {
        let mut best = -children[0];
        for i in 1..children.len() {
            best = best.max(-children[i]);
        }
        let mut by_hand = 0 - children[0];
        for i in 1..children.len() {
            let v = 0 - children[i];
            if v > by_hand {
                by_hand = v;
            }
        }
        if best == by_hand { best } else { i32::MIN }
    }
}

fn negamax_roots() -> (Vec<negamax::Task>, Vec<i32>) {
    let roots = (1..=7).map(|k| negamax::Node { children: k, leaf: 0 }.into()).collect();
    let expect = (1..=7i32).map(|k| (0..k).map(|i| -((i * 7 + k * 3) % 11 - 5)).max().unwrap()).collect();
    (roots, expect)
}

#[test]
fn negamax_over_negated_children_everywhere_it_runs() {
    let (roots, expect) = negamax_roots();
    let cpu = Runtime::new(Backend::Cpu).run::<negamax::Kernel>((), roots.clone()).unwrap();
    assert_eq!(cpu.values, expect, "CPU backend");
    let (_, emulated, _) = run_emulated::<negamax::Kernel>(&(), &(), &roots, &KernelConfig::default(), &Emulation::default()).unwrap();
    assert_eq!(emulated, expect, "host build of the device code");
    let gpu = Runtime::new(Backend::Gpu);
    if let Err(e) = gpu.gpu() {
        eprintln!("SKIPPED the GPU run of negamax (gpu-check runs it too): {e}");
        return;
    }
    assert_eq!(gpu.run::<negamax::Kernel>((), roots).unwrap().values, expect, "GPU");
}

/// Joins below detached tasks: a binary tree of `Spread`s, which have no complete handler,
/// each spawning a `Pair` that waits for its two `Leaf`s and counts their sum.
#[megakernel]
pub mod spread {
    use wsdsl::prelude::*;

    #[counters]
    pub struct Counters {
        pub total: Sum<u64>,
        pub pairs: Sum<u64>,
    }

    #[task]
    pub struct Spread {
        pub depth: u32,
    }

    #[task]
    pub struct Pair {
        pub x: u64,
    }

    #[task(value = u64)]
    pub struct Leaf {
        pub x: u64,
    }

    #[spawn]
    fn spread(s: &Spread, ctx: &mut Ctx) {
        ctx.spawn(Pair { x: s.depth as u64 });
        if s.depth > 0 {
            ctx.spawn(Spread { depth: s.depth - 1 });
            ctx.spawn(Spread { depth: s.depth - 1 });
        }
    }

    #[spawn]
    fn pair(p: &Pair, ctx: &mut Ctx) {
        ctx.spawn(Leaf { x: p.x });
        ctx.spawn(Leaf { x: p.x + 1 });
    }

    #[complete(max_children = 2)]
    fn both(_p: &Pair, children: &[u64], ctx: &mut Ctx) {
        ctx.counters.total.add(children[0] + children[1]);
        ctx.counters.pairs.add(1);
    }

    #[spawn]
    fn leaf(l: &Leaf, _ctx: &mut Ctx) -> u64 {
        l.x
    }
}

#[test]
fn detached_tasks_wait_for_their_own_children_on_the_cpu() {
    let depth = 12u32;
    // 2^(depth - d) spreads at depth d, each with a pair adding d + (d + 1).
    let total: u64 = (0..=depth).map(|d| (1u64 << (depth - d)) * (2 * d as u64 + 1)).sum();
    let spreads = (1u64 << (depth + 1)) - 1;
    for threads in [1, 2, 4] {
        let rt = Runtime::new(Backend::Cpu).cpu_threads(threads);
        let out = rt.run::<spread::Kernel>((), [spread::Spread { depth }]).unwrap();
        assert_eq!((out.counters.total.get(), out.counters.pairs.get()), (total, spreads), "{threads} threads");
        assert_eq!(out.stats.tasks, 4 * spreads, "{threads} threads: spreads, pairs and two leaves each");
        assert_eq!(out.stats.completions, spreads, "{threads} threads");
    }
}

/// Spawns `n` children though its complete handler declares room for 2 values.
#[megakernel]
pub mod greedy {
    #[task(value = u32)]
    pub struct Parent {
        pub n: u32,
    }

    #[spawn]
    fn spawn_many(p: &Parent, ctx: &mut Ctx) -> u32 {
        for _ in 0..p.n {
            ctx.spawn(Parent { n: 0 });
        }
        1
    }

    #[complete(max_children = 2)]
    fn sum(_p: &Parent, children: &[u32], _ctx: &mut Ctx) -> u32 {
        children[0] + children[1]
    }
}

#[test]
fn spawning_past_max_children_is_reported() {
    // The complete handler of `Parent`, which the error names by file and line.
    let line = include_str!("joins.rs").lines().position(|l| l.contains("fn sum(_p: &Parent")).expect("the handler") + 1;
    let handler = format!("{}:{line}", file!());
    let check = |r: Result<(Vec<u32>, String), Error>, backend: &str| match r {
        Err(e @ Error::TooManyChildren { task: "Parent", max_children: 2, handler: at }) => {
            assert_eq!(at, handler, "{backend}");
            assert!(e.to_string().starts_with(&format!("{handler}: a `Parent` task spawned more than 2")), "{backend}: {e}");
        }
        other => panic!("{backend}: expected TooManyChildren, got {other:?}"),
    };
    let cpu = Runtime::new(Backend::Cpu).run::<greedy::Kernel>((), [greedy::Parent { n: 3 }]);
    check(cpu.map(|o| (o.values, o.stats.to_string())), "CPU");
    let emulated = run_emulated::<greedy::Kernel>(&(), &(), &[greedy::Parent { n: 3 }.into()], &KernelConfig::default(), &Emulation::default());
    check(emulated.map(|(_, v, s)| (v, s.to_string())), "host build");
    // Within the bound it works: two children of value 1 each.
    let out = Runtime::new(Backend::Cpu).run::<greedy::Kernel>((), [greedy::Parent { n: 2 }]).unwrap();
    assert_eq!(out.values, [2]);
}

#[test]
fn cooperative_schedules_refuse_programs_with_joins() {
    let config = KernelConfig { cooperative: true, worker: Worker::Block, ..KernelConfig::default() };
    match run_emulated::<fib::fib::Kernel>(&(), &(), &[fib::fib::Call { n: 5 }.into()], &config, &Emulation::default()) {
        Err(Error::InvalidConfig(m)) => assert!(m.contains("cooperative"), "{m}"),
        other => panic!("expected a configuration error, got {:?}", other.map(|(_, v, _)| v)),
    }
}
