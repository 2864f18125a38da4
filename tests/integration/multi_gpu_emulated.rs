//! Runs on several GPUs, emulated on the host (`wsdsl::gpu::multi::emulate`, no GPU needed):
//! the deque megakernel of every emulated GPU is the host build of the same template code
//! the GPUs run, thieves rob other GPUs' deques through the shimmed peer mapping, and the
//! run ends by the two-wave detection across GPUs (`cuda/features/pe.cuh`). Every victim policy must
//! give exact answers on 2, 3 and 4 GPUs, with work crossing GPUs; a fault on one GPU must
//! stop all of them and come back as one error naming that GPU. Fork-join (complete handlers)
//! crosses GPUs too: a child stolen by another GPU delivers its value to its parent's frame
//! there, and the continuation is sent home when the last value arrives from another GPU.
//! (The same programs on two GPUs: BENCHMARKS.md, "Beyond one GPU".)

use wsdsl_examples::connect4;
use wsdsl_examples::dlb_bench;
use wsdsl_examples::fib;
use wsdsl_examples::nqueens;
use wsdsl_examples::uts;

use std::time::Duration;
use wsdsl::gpu::emulate::Emulation;
use wsdsl::gpu::multi::emulate::run_emulated_gpus;
use wsdsl::gpu::{Steal, Victim};
use wsdsl::prelude::*;
use wsdsl::{Error, KernelConfig};

/// Each emulated GPU: 2 blocks of 64 threads (4 warp workers) on one OS thread.
fn emulation() -> Emulation {
    Emulation { grid: 2, os_threads: 1, watchdog: Duration::from_secs(120), ..Emulation::default() }
}

const POLICIES: [Victim; 5] = [Victim::Random, Victim::RoundRobin, Victim::Pws, Victim::Hws, Victim::SmallWorld];

fn config(victim: Victim) -> KernelConfig {
    KernelConfig { victim, steal: Steal::Half, ..KernelConfig::default() }
}

#[test]
fn nqueens_12_from_one_root_on_every_policy_and_2_to_4_gpus() {
    let mut failures = Vec::new();
    for gpus in [2, 3, 4] {
        for victim in POLICIES {
            let root = nqueens::nqueens::Board { row: 0, cols: 0, left: 0, right: 0 };
            let ran = run_emulated_gpus::<nqueens::nqueens::Kernel>(&nqueens::nqueens::Params { n: 12 }, &(), &[root.into()], &config(victim), &emulation(), gpus);
            match ran {
                Ok((c, _, stats)) => {
                    eprintln!("{gpus} GPUs {victim:?}: {} solutions, tasks per GPU {:?}, {} stolen across GPUs", c.solutions.get(), stats.per_gpu_tasks, stats.remote_steals);
                    if c.solutions.get() != 14_200 {
                        failures.push(format!("{gpus} GPUs {victim:?}: {} solutions, not 14200", c.solutions.get()));
                    }
                    // One root, on GPU 0: every other GPU ran only what it stole across GPUs.
                    if stats.per_gpu_tasks.len() != gpus as usize || stats.per_gpu_tasks.iter().sum::<u64>() != stats.tasks {
                        failures.push(format!("{gpus} GPUs {victim:?}: tasks per GPU {:?} do not add up to {}", stats.per_gpu_tasks, stats.tasks));
                    }
                    // Work crossed to another GPU. Whether it reached *every* GPU depends on the
                    // host's scheduling of the emulated GPUs' threads (on a loaded 2-core machine
                    // one may get no time slice before the others finish), so only the first
                    // crossing is required.
                    if stats.remote_steals == 0 || stats.per_gpu_tasks[1..].iter().all(|&t| t == 0) {
                        failures.push(format!("{gpus} GPUs {victim:?}: work never crossed to another GPU ({:?})", stats.per_gpu_tasks));
                    }
                }
                Err(e) => failures.push(format!("{gpus} GPUs {victim:?}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn uts_t3_exact_on_two_gpus_random_and_hierarchical() {
    // T3 (4.1 M nodes, 1 572 levels) is slow to emulate: the two policies that differ most
    // (every policy runs N-Queens above).
    let t3 = uts::preset("T3").unwrap();
    let (nodes, leaves, depth) = t3.known.unwrap();
    for victim in [Victim::Random, Victim::Hws] {
        let (c, _, stats) = run_emulated_gpus::<uts::uts::Kernel>(&t3.params, &(), &[uts::root(t3.seed).into()], &config(victim), &emulation(), 2)
            .unwrap_or_else(|e| panic!("{victim:?}: {e}"));
        eprintln!("T3 on 2 GPUs {victim:?}: tasks per GPU {:?}, {} stolen across GPUs", stats.per_gpu_tasks, stats.remote_steals);
        assert_eq!((c.nodes.get(), c.leaves.get(), c.depth.get()), (nodes, leaves, depth), "{victim:?}");
    }
}

#[test]
fn many_roots_are_dealt_across_gpus() {
    // Every board after the first two rows as a root: GPUs start with work of their own.
    let mut roots = Vec::new();
    let n = 10u32;
    let all = (1u32 << n) - 1;
    for a in 0..n {
        for b in 0..n {
            let (c0, c1) = (1u32 << a, 1u32 << b);
            let left = (c0 << 1) & all;
            let right = c0 >> 1;
            if c1 & (c0 | left | right) != 0 {
                continue;
            }
            roots.push(nqueens::nqueens::Board { row: 2, cols: c0 | c1, left: ((left | c1) << 1) & all, right: (right | c1) >> 1 }.into());
        }
    }
    let (c, values, stats) = run_emulated_gpus::<nqueens::nqueens::Kernel>(&nqueens::nqueens::Params { n }, &(), &roots, &config(Victim::Random), &emulation(), 3).unwrap();
    assert_eq!(c.solutions.get(), 724);
    assert_eq!(values.len(), roots.len());
    assert!(stats.per_gpu_tasks.iter().all(|&t| t > 0), "{:?}", stats.per_gpu_tasks);
}

#[test]
fn fork_join_fib_exact_across_gpus_with_joins_crossing_them() {
    let mut failures = Vec::new();
    for (gpus, victim) in [(2, Victim::Random), (3, Victim::Random), (2, Victim::Hws), (4, Victim::SmallWorld)] {
        let n = 22;
        match run_emulated_gpus::<fib::fib::Kernel>(&(), &(), &[fib::fib::Call { n }.into()], &config(victim), &emulation(), gpus) {
            Ok((c, values, stats)) => {
                eprintln!("fib({n}) on {gpus} GPUs {victim:?}: {} (tasks per GPU {:?}, {} stolen across GPUs, {} complete handlers)", values[0], stats.per_gpu_tasks, stats.remote_steals, stats.completions);
                let want = (fib::reference(n), fib::reference(n + 1));
                if (values[0], c.leaves.get(), c.joins.get() + 1) != (want.0, want.1, want.1) {
                    failures.push(format!("{gpus} GPUs {victim:?}: fib = {}, {} leaves, {} joins; want {want:?}", values[0], c.leaves.get(), c.joins.get()));
                }
                // As above: joins crossed GPUs (continuations were sent home, below), whether or
                // not every emulated GPU's thread got a time slice.
                if stats.completions != c.joins.get() || stats.per_gpu_tasks[1..].iter().all(|&t| t == 0) {
                    failures.push(format!("{gpus} GPUs {victim:?}: {} completions for {} joins, tasks per GPU {:?}", stats.completions, c.joins.get(), stats.per_gpu_tasks));
                }
                // Some frames' last child finished on another GPU: their continuations went home.
                if stats.sent_home == 0 {
                    failures.push(format!("{gpus} GPUs {victim:?}: no continuation was sent home"));
                }
            }
            Err(e) => failures.push(format!("{gpus} GPUs {victim:?}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn dlb_bench_runs_every_task_once_on_two_and_three_gpus_under_every_policy() {
    use dlb_bench::dlb::{Cost, Params};
    use dlb_bench::{Bench, Imbalance};
    // The paper's placement: most tasks start on the middle tenth of the holders, which the
    // roots deal to every GPU; the work spreads by stealing, within and across GPUs.
    let bench = Bench { tasks: 6_000, holders: 64, imbalance: Imbalance::Paper, params: Params { cost: Cost::Uniform, mean: 50, spread: 20, seed: 11 } };
    let want = dlb_bench::reference(&bench);
    let roots: Vec<dlb_bench::dlb::Task> = bench.roots().into_iter().map(Into::into).collect();
    for gpus in [2, 3] {
        for victim in POLICIES {
            let (c, _, stats) = run_emulated_gpus::<dlb_bench::dlb::Kernel>(&bench.params, &(), &roots, &config(victim), &emulation(), gpus)
                .unwrap_or_else(|e| panic!("{gpus} GPUs {victim:?}: {e}"));
            assert_eq!((c.tasks.get(), c.units.get(), c.checksum.get()), (want.tasks, want.units, want.checksum), "{gpus} GPUs {victim:?}");
            assert_eq!(stats.tasks, bench.spawned(), "{gpus} GPUs {victim:?}: every split and every task once");
        }
    }
}

#[test]
fn connect4_minimax_scores_across_three_gpus_match_the_test_set() {
    // Exact negamax (a complete handler takes the best of its children's values) of the first
    // 12 end games of Pons' test set, 4 rounds of roots over 3 GPUs, each score checked.
    let cases = &connect4::parse_test_set(include_str!("../../data/connect4/Test_L3_R1")).unwrap()[..12];
    let roots: Vec<connect4::exact::Task> = cases.iter().map(|c| connect4::exact_root(&c.position).into()).collect();
    let (_, values, stats) = run_emulated_gpus::<connect4::exact::Kernel>(&(), &(), &roots, &config(Victim::Random), &emulation(), 3).unwrap();
    let expected: Vec<i32> = cases.iter().map(|c| c.score).collect();
    assert_eq!(values, expected);
    let nodes: u64 = cases.iter().map(|c| connect4::reference_score(&c.position).1).sum();
    assert_eq!(stats.tasks, nodes, "one task per node of the reference");
}

#[test]
fn every_roots_value_comes_back_from_the_gpu_it_was_dealt_to() {
    // Roots fib(0..=17) over 3 GPUs: root r starts on GPU r % 3 and its value lands there,
    // whichever GPU finished it.
    let roots: Vec<fib::fib::Task> = (0..=17).map(|n| fib::fib::Call { n }.into()).collect();
    let (c, values, _) = run_emulated_gpus::<fib::fib::Kernel>(&(), &(), &roots, &config(Victim::Random), &emulation(), 3).unwrap();
    let want: Vec<u64> = (0..=17).map(fib::reference).collect();
    assert_eq!(values, want);
    assert_eq!(c.leaves.get(), (0..=17).map(|n| fib::reference(n + 1)).sum::<u64>());
}

#[test]
fn a_frame_pool_too_small_on_one_gpu_is_an_error_naming_it() {
    let emu = Emulation { frames: 8, ..emulation() };
    let err = run_emulated_gpus::<fib::fib::Kernel>(&(), &(), &[fib::fib::Call { n: 18 }.into()], &config(Victim::Random), &emu, 2).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::OnGpu { gpus: 2, .. }), "{text}");
    assert!(text.contains("frames"), "{text}");
}

/// A binary tree whose inner nodes' complete handlers run several rounds: round r sums the
/// values of round r's children and, while r < rounds, spawns one more small subtree seeded
/// with that sum, whose value the next round takes.
#[megakernel]
pub mod rounds {
    #[params]
    pub struct Params {
        pub rounds: u32,
    }

    #[task(value = u64)]
    pub struct Node {
        pub depth: u32,
        pub seed: u64,
    }

    #[spawn]
    fn node(n: &Node, ctx: &mut Ctx) -> u64 {
        if n.depth == 0 {
            return n.seed;
        }
        ctx.spawn(Node { depth: n.depth - 1, seed: n.seed.wrapping_mul(3).wrapping_add(1) });
        ctx.spawn(Node { depth: n.depth - 1, seed: n.seed.wrapping_mul(5).wrapping_add(2) });
        0
    }

    #[complete(max_children = 2)]
    fn combine(n: &Node, children: &[u64], ctx: &mut Ctx) -> u64 {
        let mut sum = 0u64;
        for i in 0..children.len() {
            sum = sum.wrapping_add(children[i]);
        }
        let round = ctx.round();
        if round < ctx.params.rounds {
            ctx.spawn(Node { depth: n.depth.min(3) - 1, seed: sum ^ round as u64 });
        }
        sum
    }
}

/// `rounds`' value of a node, by plain recursion.
fn rounds_reference(depth: u32, seed: u64, rounds: u32) -> u64 {
    if depth == 0 {
        return seed;
    }
    let mut sum = rounds_reference(depth - 1, seed.wrapping_mul(3).wrapping_add(1), rounds)
        .wrapping_add(rounds_reference(depth - 1, seed.wrapping_mul(5).wrapping_add(2), rounds));
    for round in 1..rounds {
        sum = rounds_reference(depth.min(3) - 1, sum ^ round as u64, rounds);
    }
    sum
}

#[test]
fn complete_handlers_that_spawn_again_run_their_rounds_across_gpus() {
    for gpus in [2, 3] {
        // One root: the other GPUs start with nothing, so work (and continuations sent home)
        // must cross GPUs; GPUs busy with roots of their own would keep to them. An emulated
        // GPU starved of time slices beside other tests may still finish alone (exact, not
        // wrong), so the crossing is asked of one run in four, exactness of every run. A
        // crossing is work on more than one GPU and a continuation sent home: on 3 GPUs a
        // third GPU may find no deque offering enough to ask for (`Emulation::remote_ask`).
        let roots: Vec<rounds::Task> = vec![rounds::Node { depth: 10, seed: 7 }.into()];
        let want = vec![rounds_reference(10, 7, 3)];
        let mut crossed = Vec::new();
        for _ in 0..4 {
            let (_, values, stats) = run_emulated_gpus::<rounds::Kernel>(&rounds::Params { rounds: 3 }, &(), &roots, &config(Victim::Random), &emulation(), gpus)
                .unwrap_or_else(|e| panic!("{gpus} GPUs: {e}"));
            assert_eq!(values, want, "{gpus} GPUs");
            crossed.push((stats.per_gpu_tasks.clone(), stats.sent_home));
        }
        assert!(
            crossed.iter().any(|(tasks, sent)| tasks.iter().filter(|&&t| t > 0).count() > 1 && *sent > 0),
            "{gpus} GPUs: no run spread its work and sent continuations home: (tasks per GPU, sent home) {crossed:?}"
        );
    }
}

/// A task that fans out into `fan_out` children at once; its complete handler takes no values,
/// so `max_children` does not bound it.
#[megakernel]
pub mod wide {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        pub fan_out: u32,
        /// Steps of busy work per leaf: leaves that take a while keep the root's deque full
        /// long enough for another emulated GPU's thieves to find it, even when the host's
        /// cores are busy with other tests.
        pub work: u32,
    }

    #[counters]
    pub struct Counters {
        pub leaves: Sum<u64>,
        /// The busy work's results (so that it is not optimised away).
        pub noise: Sum<u64>,
    }

    #[task]
    pub struct Fan {
        pub root: bool,
    }

    #[spawn]
    fn fan(f: &Fan, ctx: &mut Ctx) {
        if f.root {
            for _ in 0..ctx.params.fan_out {
                ctx.spawn(Fan { root: false });
            }
        } else {
            let mut x = 1u64;
            for i in 0..ctx.params.work {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(i as u64);
            }
            ctx.counters.noise.add(x & 1);
            ctx.counters.leaves.add(1);
        }
    }

    #[complete]
    fn done(_f: &Fan, _ctx: &mut Ctx) {}
}

/// Scope follows sharing (`cuda/queues/deque.cuh`): another GPU robs a deque only once its owner
/// shares it, at the ask of a thief that found it offering `remote_ask` tasks or more. One
/// root on GPU 0 fans out into 4,000 children, each with some busy work: with an ask at 8,192
/// tasks no deque ever offers enough, so nothing crosses GPUs; with an ask at 128 the other
/// GPU's thieves ask, are let in and steal (in at least one of up to twelve runs: an emulated
/// GPU may get no time slice beside other tests; without the busy work, all twelve runs of a
/// CI run on 2 busy cores once finished before it got one). Exact either way.
#[test]
fn another_gpu_robs_a_deque_only_once_it_offers_enough_to_be_shared() {
    let run = |remote_ask: u32| {
        let emu = Emulation { capacity: 1 << 13, remote_ask, ..emulation() };
        let (counters, _, stats) =
            run_emulated_gpus::<wide::Kernel>(&wide::Params { fan_out: 4000, work: 20_000 }, &(), &[wide::Fan { root: true }.into()], &config(Victim::Random), &emu, 2)
                .unwrap_or_else(|e| panic!("ask at {remote_ask}: {e}"));
        assert_eq!(counters.leaves.get(), 4000, "ask at {remote_ask}: every child ran once");
        stats.remote_steals
    };
    for _ in 0..4 {
        assert_eq!(run(8192), 0, "a deque that never offers the ask's 8,192 tasks is never robbed by another GPU");
    }
    let mut crossed = Vec::new();
    while crossed.len() < 12 && crossed.iter().all(|&n| n == 0) {
        crossed.push(run(128));
    }
    assert!(crossed.iter().any(|&n| n > 0), "no run let the other GPU steal from a shared deque: {crossed:?}");
}

#[test]
fn a_round_of_more_children_than_a_run_across_gpus_allows_is_refused_with_the_reason() {
    // Across GPUs a join counter keeps 16 bits for the children still to come.
    let emu = Emulation { capacity: 1 << 17, ..emulation() };
    let run = |fan_out| run_emulated_gpus::<wide::Kernel>(&wide::Params { fan_out, work: 0 }, &(), &[wide::Fan { root: true }.into()], &config(Victim::Random), &emu, 2);
    let (c, _, _) = run(65_535).unwrap();
    assert_eq!(c.leaves.get(), 65_535);
    let text = run(65_536).unwrap_err().to_string();
    assert!(text.contains("65535 children") && text.contains("across GPUs"), "{text}");
}

#[megakernel]
pub mod faulty {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        pub depth: u32,
        /// The tree whose root panics.
        pub bad_tree: u32,
    }

    #[counters]
    pub struct Counters {
        pub nodes: Sum<u64>,
    }

    #[task]
    pub struct Node {
        pub tree: u32,
        pub level: u32,
    }

    #[spawn]
    fn visit(n: &Node, ctx: &mut Ctx) {
        ctx.counters.nodes.add(1);
        assert!(n.tree != ctx.params.bad_tree || n.level > 0, "the root of tree {} is bad", n.tree);
        if n.level < ctx.params.depth {
            ctx.spawn(Node { tree: n.tree, level: n.level + 1 });
            ctx.spawn(Node { tree: n.tree, level: n.level + 1 });
        }
    }
}

#[test]
fn a_fault_on_one_gpu_stops_every_gpu_and_names_it() {
    // The roots of trees 0 and 1 start on GPUs 0 and 1, each in its first worker's private
    // part (where no thief reaches); tree 1's root panics at once, on GPU 1, while GPU 0
    // still has plenty to do.
    let roots: [faulty::Task; 2] = [faulty::Node { tree: 0, level: 0 }.into(), faulty::Node { tree: 1, level: 0 }.into()];
    let params = faulty::Params { depth: 18, bad_tree: 1 };
    let err = run_emulated_gpus::<faulty::Kernel>(&params, &(), &roots, &config(Victim::Random), &emulation(), 2).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::OnGpu { gpu: 1, gpus: 2, .. }), "{text}");
    assert!(text.contains("the root of tree 1 is bad"), "{text}");
    // Without the fault the same run completes: 2 * (2^19 - 1) nodes.
    let good = faulty::Params { depth: 18, bad_tree: u32::MAX };
    let (c, _, _) = run_emulated_gpus::<faulty::Kernel>(&good, &(), &roots, &config(Victim::Random), &emulation(), 2).unwrap();
    assert_eq!(c.nodes.get(), 2 * ((1u64 << 19) - 1));
}

#[test]
fn what_cannot_run_across_gpus_is_refused_with_the_reason() {
    let root = [nqueens::nqueens::Board { row: 0, cols: 0, left: 0, right: 0 }.into()];
    let params = nqueens::nqueens::Params { n: 8 };
    let bq = KernelConfig { scheduler: wsdsl::gpu::Scheduler::Bq, ..KernelConfig::default() };
    let err = run_emulated_gpus::<nqueens::nqueens::Kernel>(&params, &(), &root, &bq, &emulation(), 2).unwrap_err();
    assert!(err.to_string().contains("deque scheduler"), "{err}");
    let err = run_emulated_gpus::<nqueens::nqueens::Kernel>(&params, &(), &root, &config(Victim::Random), &emulation(), 0).unwrap_err();
    assert!(err.to_string().contains("1 to 64 GPUs"), "{err}");
}

/// The multi-GPU kernels compile with NVRTC for the H100, for every victim policy (no GPU
/// needed: README's test command installs NVRTC). They call no NVSHMEM function: the host
/// hands them the peer mappings, so they build like every other kernel. One policy is built
/// to a CUBIN, the others through NVRTC's front end: a policy is C++ choosing a victim, with
/// no PTX of its own.
#[test]
fn the_multi_gpu_kernels_compile_for_every_policy() {
    for victim in POLICIES {
        let source = wsdsl::gpu::pe_kernel_source::<uts::uts::Kernel>(&config(victim));
        assert!(source.contains("#define WSDSL_PES 1"));
        if victim != Victim::Random {
            wsdsl::gpu::compile::front_end_uncached("uts", &source, "sm_90").unwrap_or_else(|e| panic!("{victim:?}: {e}"));
            continue;
        }
        let cubin = wsdsl::gpu::compile::compile_uncached("uts", &source, "sm_90").unwrap_or_else(|e| panic!("{victim:?}: {e}"));
        assert!(cubin.starts_with(b"\x7fELF"), "{victim:?}: not an ELF CUBIN");
    }
    let source = wsdsl::gpu::pe_kernel_source::<nqueens::nqueens::Kernel>(&config(Victim::Random));
    wsdsl::gpu::compile::compile_uncached("nqueens", &source, "sm_90").unwrap_or_else(|e| panic!("{e}"));
    let source = wsdsl::gpu::pe_kernel_source::<fib::fib::Kernel>(&config(Victim::Random));
    wsdsl::gpu::compile::compile_uncached("fib", &source, "sm_90").unwrap_or_else(|e| panic!("fork-join: {e}"));
}

/// Emulated GPUs split into emulated hosts: a GPU maps only its own host's heaps, so every
/// steal from and termination word of another host's GPU goes through NVSHMEM's one-sided
/// calls (`cuda/features/pe.cuh`, shimmed on the host); a direct access would read address 0. Every
/// policy exact, and work crosses hosts.
#[test]
fn across_emulated_hosts_every_policy_is_exact_and_work_crosses_hosts() {
    use wsdsl::gpu::multi::emulate::run_emulated_hosts;
    let mut failures = Vec::new();
    for (hosts, per_host) in [(2, 1), (2, 2), (3, 1), (4, 4)] {
        for victim in POLICIES {
            let root = nqueens::nqueens::Board { row: 0, cols: 0, left: 0, right: 0 };
            let ran = run_emulated_hosts::<nqueens::nqueens::Kernel>(&nqueens::nqueens::Params { n: 12 }, &(), &[root.into()], &config(victim), &emulation(), hosts, per_host);
            match ran {
                Ok((c, _, stats)) => {
                    eprintln!("{hosts} hosts x {per_host} GPUs {victim:?}: {} solutions, tasks per GPU {:?}", c.solutions.get(), stats.per_gpu_tasks);
                    if c.solutions.get() != 14_200 {
                        failures.push(format!("{hosts} x {per_host} {victim:?}: {} solutions, not 14200", c.solutions.get()));
                    }
                    // The root starts on host 0: tasks on another host's GPU were stolen one-sided.
                    if stats.per_gpu_tasks[per_host as usize..].iter().all(|&t| t == 0) {
                        failures.push(format!("{hosts} x {per_host} {victim:?}: work never crossed hosts ({:?})", stats.per_gpu_tasks));
                    }
                }
                Err(e) => failures.push(format!("{hosts} x {per_host} {victim:?}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // DLB_Bench's roots on every GPU: every task once, the checksum exact.
    use dlb_bench::dlb::{Cost, Params};
    use dlb_bench::{Bench, Imbalance};
    let bench = Bench { tasks: 4_000, holders: 64, imbalance: Imbalance::Paper, params: Params { cost: Cost::Uniform, mean: 40, spread: 15, seed: 3 } };
    let want = dlb_bench::reference(&bench);
    let roots: Vec<dlb_bench::dlb::Task> = bench.roots().into_iter().map(Into::into).collect();
    for (hosts, per_host) in [(2, 1), (2, 2), (3, 1)] {
        for victim in POLICIES {
            let (c, _, stats) = run_emulated_hosts::<dlb_bench::dlb::Kernel>(&bench.params, &(), &roots, &config(victim), &emulation(), hosts, per_host)
                .unwrap_or_else(|e| panic!("{hosts} x {per_host} {victim:?}: {e}"));
            assert_eq!((c.tasks.get(), c.units.get(), c.checksum.get()), (want.tasks, want.units, want.checksum), "{hosts} x {per_host} {victim:?}");
            assert_eq!(stats.tasks, bench.spawned(), "{hosts} x {per_host} {victim:?}");
        }
    }

    // A fault on one host's GPU stops the other host's GPU too (its `stop` word set one-sided)
    // and comes back named.
    let roots: [faulty::Task; 2] = [faulty::Node { tree: 0, level: 0 }.into(), faulty::Node { tree: 1, level: 0 }.into()];
    let err = run_emulated_hosts::<faulty::Kernel>(&faulty::Params { depth: 18, bad_tree: 1 }, &(), &roots, &config(Victim::Random), &emulation(), 2, 1).unwrap_err();
    assert!(matches!(err, Error::OnGpu { gpu: 1, gpus: 2, .. }) && err.to_string().contains("the root of tree 1 is bad"), "{err}");
}

/// Fork-join across emulated hosts: a child stolen by another host's GPU delivers its value
/// to its parent's frame with one-sided puts and a fetch-add, and the last one sends the
/// continuation home through the home GPU's inbox, one-sided too (`cuda/features/join.cuh`). fib
/// exact under every policy, joins crossing hosts, continuations sent home.
#[test]
fn fork_join_across_emulated_hosts_is_exact_under_every_policy() {
    use wsdsl::gpu::multi::emulate::run_emulated_hosts;
    let mut failures = Vec::new();
    let n = 20;
    let want = (fib::reference(n), fib::reference(n + 1));
    // Continuations sent home on 2 hosts x 1 GPU, where every one crossed hosts. Counted over
    // the policies: an emulated GPU whose threads get no time slice on a busy machine may
    // finish a run alone (seen once in twelve runs beside other tests), which is not wrong.
    let mut sent_across = 0;
    for (hosts, per_host) in [(2, 1), (2, 2)] {
        for victim in POLICIES {
            match run_emulated_hosts::<fib::fib::Kernel>(&(), &(), &[fib::fib::Call { n }.into()], &config(victim), &emulation(), hosts, per_host) {
                Ok((c, values, stats)) => {
                    eprintln!("fib({n}) on {hosts} hosts x {per_host} GPUs {victim:?}: {} (tasks per GPU {:?}, {} sent home)", values[0], stats.per_gpu_tasks, stats.sent_home);
                    if (values[0], c.leaves.get(), c.joins.get() + 1) != (want.0, want.1, want.1) || stats.completions != c.joins.get() {
                        failures.push(format!("{hosts} x {per_host} {victim:?}: fib = {}, {} leaves, {} joins, {} completions; want {want:?}", values[0], c.leaves.get(), c.joins.get(), stats.completions));
                    }
                    if per_host == 1 && stats.per_gpu_tasks[1] > 0 {
                        sent_across += stats.sent_home;
                    }
                }
                Err(e) => failures.push(format!("{hosts} x {per_host} {victim:?}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(sent_across > 0, "no continuation was sent home across hosts under any policy");
}

/// The one-sided build for GPUs of several hosts includes NVSHMEM's headers and links with its
/// device library (NVRTC `-rdc`, then nvJitLink): it must compile and link, calling the
/// real `nvshmem_*` device functions in place of the emulation's shims, at no fewer blocks
/// per SM than the same program's kernel for GPUs of one host.
#[test]
fn the_across_hosts_kernel_links_with_nvshmem() {
    use std::io::Write;
    use wsdsl::gpu::nvshmem::{compile_linked_with, jitlink, locate, Overrides, Toolchain};
    let overrides = Overrides::from_env();
    let toolchain = Toolchain::locate(&overrides).and_then(|tc| jitlink::probe(&overrides).map(|_| tc));
    let tc = match toolchain {
        Ok(tc) => tc,
        Err(e) => {
            let message = format!("SKIPPED the across-hosts kernel's NVSHMEM link: {e}\n(README's test command installs them: pip install {})\n", locate::PIP_PACKAGES);
            let _ = std::io::stderr().write_all(message.as_bytes());
            return;
        }
    };
    // Each across-hosts kernel beside the same program's kernel for GPUs of one host.
    let sources = [
        ("nqueens_hosts", Victim::Random, across::<nqueens::nqueens::Kernel>(Victim::Random), one_host::<nqueens::nqueens::Kernel>(Victim::Random)),
        ("nqueens_hosts", Victim::Hws, across::<nqueens::nqueens::Kernel>(Victim::Hws), one_host::<nqueens::nqueens::Kernel>(Victim::Hws)),
        // Fork-join: the one-sided deliveries and inbox (puts, fences, fetch-adds, sets).
        ("fib_hosts", Victim::Random, across::<fib::fib::Kernel>(Victim::Random), one_host::<fib::fib::Kernel>(Victim::Random)),
    ];
    let threads = config(Victim::Random).block_threads;
    // Blocks of `threads` an SM of compute capability 9.0 holds at `registers` a thread
    // (64 K registers, allocated to warps in 256s, at most 2,048 threads).
    let blocks_per_sm = |registers: u32| (65536 / (registers.max(1).div_ceil(8) * 8 * threads)).min(2048 / threads);
    for (name, victim, source, one_host_source) in sources {
        assert!(source.contains("#include <nvshmem.h>") && source.contains("#define WSDSL_PES_ONE_SIDED 1"));
        let cubin = compile_linked_with(&tc, name, &source, "sm_90").unwrap_or_else(|e| panic!("{name} {victim:?}: {e}"));
        let symbols = wsdsl::gpu::elf::function_symbols(&cubin.image).expect("a symbol table");
        assert!(symbols.iter().any(|s| s == "wsdsl_megakernel"), "{name} {victim:?}: {symbols:?}");
        // NVSHMEM's calls must not cost the kernel its occupancy (`ACROSS_HOSTS_REGISTERS`).
        let one_host = wsdsl::gpu::compile::compile_uncached(name, &one_host_source, "sm_90").unwrap_or_else(|e| panic!("{name} {victim:?}: {e}"));
        let registers = |image: &[u8]| wsdsl::gpu::elf::register_count(image, "wsdsl_megakernel").expect("a register count");
        let (across_regs, one_host_regs) = (registers(&cubin.image), registers(&one_host));
        assert!(
            blocks_per_sm(across_regs) >= blocks_per_sm(one_host_regs),
            "{name} {victim:?}: {across_regs} registers a thread across hosts, {one_host_regs} on one host: fewer blocks per SM"
        );
        // NVSHMEM's calls stay out of the kernel's body (`cuda/features/far.cuh`): inlined, they made
        // N-Queens' kernel 2.4 times the one-host kernel's size and 12% slower on one GPU.
        let code = |image: &[u8]| wsdsl::gpu::elf::function_size(image, "wsdsl_megakernel").expect("the kernel's code");
        let (across_code, one_host_code) = (code(&cubin.image), code(&one_host));
        assert!(
            across_code * 4 <= one_host_code * 5,
            "{name} {victim:?}: the across-hosts kernel's code is {across_code} bytes against {one_host_code} on one host: more than 25% larger (NVSHMEM calls inlined into it?)"
        );
    }
}

fn across<P: wsdsl::Program>(victim: Victim) -> String {
    wsdsl::gpu::pe_kernel_source_across_hosts::<P>(&config(victim))
}

fn one_host<P: wsdsl::Program>(victim: Victim) -> String {
    wsdsl::gpu::pe_kernel_source::<P>(&config(victim))
}
