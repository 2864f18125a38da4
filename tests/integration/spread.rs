//! The host's first levels, dealt over the GPUs (`gpu/spread.rs`), through the runtime
//! on emulated GPUs: the answer stays exact with the host's tasks and counters in the run's,
//! every GPU starts with tasks of its own, the spreading stops where the tree does not widen,
//! and what cannot spread (complete handlers and values, a handler that panics on the host)
//! runs from its roots as before. A tree whose levels stop widening at a few hundred tasks or
//! more is judged narrow and runs on GPU 0 alone (`gpu/multi/alone.rs`), exactly.

use wsdsl_examples::chain;
use wsdsl_examples::fib;
use wsdsl_examples::nqueens;
use wsdsl::prelude::*;
use std::time::Duration;
use wsdsl::{Backend, Error, RanOn, Runtime, DEFAULT_SPREAD};

fn emulated(gpus: u32) -> Runtime {
    Runtime::new(Backend::Emulate).gpus(gpus)
}

fn empty_board() -> nqueens::nqueens::Board {
    nqueens::nqueens::Board { row: 0, cols: 0, left: 0, right: 0 }
}

#[test]
fn one_root_is_spread_over_every_gpu_and_the_count_stays_exact() {
    for gpus in [1, 2, 3] {
        let out = emulated(gpus).run::<nqueens::nqueens::Kernel>(nqueens::nqueens::Params { n: 11 }, [empty_board()]).unwrap();
        assert_eq!(out.counters.solutions.get(), 2_680, "{gpus} GPUs");
        let spread = out.stats.spread.clone().unwrap_or_else(|| panic!("{gpus} GPUs: one root and no spreading: {}", out.stats));
        // The host stops at the first level holding more than half the tasks a GPU it was
        // asked for.
        assert!(spread.levels >= 2 && spread.dealt * 2 > DEFAULT_SPREAD as u64 * gpus as u64, "{gpus} GPUs: {spread:?}");
        assert_eq!(out.values.len(), 1, "one value a root given, whatever was dealt");
        if gpus > 1 {
            let on_gpus: u64 = out.stats.per_gpu_tasks.iter().sum();
            assert_eq!(on_gpus + spread.tasks, out.stats.tasks, "{gpus} GPUs: the host's tasks are the run's: {}", out.stats);
            assert!(out.stats.per_gpu_tasks.iter().all(|&t| t > 0), "{gpus} GPUs: a GPU without tasks of its own: {}", out.stats);
        }
        assert!(out.stats.to_string().contains("spread      the host ran the first"), "{}", out.stats);
        assert!(gpus == 1 || !out.stats.alone, "{gpus} GPUs: a tree that widens is not judged narrow: {}", out.stats);
    }
}

#[test]
fn a_tree_that_stays_narrow_runs_on_gpu_0_alone() {
    // 300 chains of 300 tasks: every level after the first holds 300 tasks (at least
    // `NARROW_MIN_WIDTH`, and few enough that the host's look, bounded by a clock, takes well
    // under its 20 ms in a debug build).
    let params = ribbons::Params { width: 300, length: 300 };
    let nodes = 1 + 300 * 300;
    for gpus in [2, 3] {
        let out = emulated(gpus).run::<ribbons::Kernel>(params, [ribbons::Node { level: 0 }]).unwrap();
        assert_eq!(out.counters.nodes.get(), nodes, "{gpus} GPUs");
        // The idle GPUs' shares hold each reduction's identity.
        assert_eq!((out.counters.deepest.get(), out.counters.shallowest_leaf.get()), (300, 300), "{gpus} GPUs");
        assert!(out.stats.alone, "{gpus} GPUs: not judged narrow: {}", out.stats);
        let idle = vec![0; gpus as usize - 1];
        assert_eq!(out.stats.per_gpu_tasks[1..], idle[..], "{gpus} GPUs: only GPU 0 ran tasks: {}", out.stats);
        assert!(out.stats.to_string().contains("alone       GPU 0 ran it alone"), "{}", out.stats);
        // Asked not to, every GPU runs it.
        let out = emulated(gpus).alone_when_narrow(false).run::<ribbons::Kernel>(params, [ribbons::Node { level: 0 }]).unwrap();
        assert_eq!(out.counters.nodes.get(), nodes, "{gpus} GPUs, every GPU");
        assert!(!out.stats.alone && out.stats.per_gpu_tasks.iter().all(|&t| t > 0), "{gpus} GPUs: {}", out.stats);
    }
    // On one GPU there is nothing to judge.
    let out = emulated(1).run::<ribbons::Kernel>(params, [ribbons::Node { level: 0 }]).unwrap();
    assert_eq!((out.counters.nodes.get(), out.stats.alone), (nodes, false));
}

#[test]
fn spread_zero_deals_the_roots_as_they_are() {
    let out = emulated(2).spread(0).run::<nqueens::nqueens::Kernel>(nqueens::nqueens::Params { n: 10 }, [empty_board()]).unwrap();
    assert_eq!(out.counters.solutions.get(), 724);
    assert_eq!(out.stats.spread, None);
    assert_eq!(out.stats.per_gpu_tasks.iter().sum::<u64>(), out.stats.tasks);
}

#[test]
fn a_tree_that_does_not_widen_is_not_run_on_the_host() {
    // A chain: each level holds one task, so the host keeps none of them.
    let out = emulated(2).run::<chain::chain::Kernel>(chain::chain::Params { length: 5_000 }, [chain::chain::Link { left: 5_000 }]).unwrap();
    assert_eq!(out.counters.links.get(), 5_000);
    assert_eq!(out.stats.spread, None);
    assert_eq!(out.stats.per_gpu_tasks.iter().sum::<u64>(), 5_000, "every link ran on a GPU");
    // One task a level says nothing of the tree's width (`NARROW_MIN_WIDTH`): not judged.
    assert!(!out.stats.alone, "{}", out.stats);
}

#[test]
fn a_handler_still_running_on_the_host_at_the_watchdog_limit_is_the_runs_watchdog_error() {
    // The root's loop outlasts the limit (it ends a second or so later, so the host's thread
    // does not spin for the rest of the tests).
    let rt = emulated(2).watchdog(Duration::from_millis(100));
    let err = rt.run::<slow::Kernel>(slow::Params { rounds: 1_000_000_000 }, [slow::Root { seed: 7 }]).unwrap_err();
    assert!(matches!(err, Error::Watchdog { on: RanOn::HostBeforeGpu, stopped: false, .. }), "{err}");
    assert!(err.to_string().contains("`slow`") && err.to_string().contains("looping forever"), "{err}");
}

#[test]
fn programs_that_write_buffers_run_from_their_roots() {
    // The host's thread may outlive the run (above), so it never holds a program's buffers.
    let bufs = marking::Bufs { hits: Buffer::zeroed(8) };
    let out = emulated(1).run_with::<marking::Kernel>(marking::Params { depth: 10 }, &bufs, [marking::Node { level: 0 }]).unwrap();
    assert_eq!(out.stats.spread, None, "a writable buffer: no spreading");
    assert_eq!((0..=7).map(|i| bufs.hits.get(i)).sum::<u32>(), 2_047, "every node of the binary tree marked once");
}

#[test]
fn programs_with_values_run_from_their_roots() {
    let rt = emulated(2);
    let (leaves, value, out) = fib::solve(&rt, 16).unwrap();
    assert_eq!((value, leaves), (987, 1_597));
    assert_eq!(out.stats.spread, None, "complete handlers and values are not spread");
}

#[test]
fn a_handler_that_panics_on_the_host_is_reported_by_the_gpu_that_runs_it() {
    // The root of tree 1 panics: the host gives up its levels, the GPUs run the roots, and
    // the error is the GPU's, naming the handler's message, as without spreading.
    let roots = [faults::Node { tree: 0, level: 0 }, faults::Node { tree: 1, level: 0 }];
    for gpus in [1, 2] {
        let err = emulated(gpus).run::<faults::Kernel>(faults::Params { depth: 8, bad_tree: 1, bad_level: 0 }, roots).unwrap_err();
        assert!(err.to_string().contains("tree 1 is bad at level 0"), "{gpus} GPUs: {err}");
    }
    // Deeper, past the levels the host runs (to 2 x 2,048 tasks: level 11): the same error,
    // from the GPU.
    let err = emulated(2).run::<faults::Kernel>(faults::Params { depth: 15, bad_tree: 1, bad_level: 13 }, roots).unwrap_err();
    assert!(matches!(err, Error::OnGpu { .. }) && err.to_string().contains("tree 1 is bad at level 13"), "{err}");
}

#[megakernel]
pub mod faults {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        pub depth: u32,
        pub bad_tree: u32,
        pub bad_level: u32,
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
        assert!(n.tree != ctx.params.bad_tree || n.level != ctx.params.bad_level, "tree {} is bad at level {}", n.tree, n.level);
        if n.level < ctx.params.depth {
            ctx.spawn(Node { tree: n.tree, level: n.level + 1 });
            ctx.spawn(Node { tree: n.tree, level: n.level + 1 });
        }
    }
}

#[megakernel]
pub mod marking {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        pub depth: u32,
    }

    #[buffers]
    pub struct Bufs {
        pub hits: Buffer<u32>,
    }

    #[task]
    pub struct Node {
        pub level: u32,
    }

    #[spawn]
    fn visit(n: &Node, ctx: &mut Ctx) {
        let _ = ctx.buffers.hits.atomic_add((n.level % 8) as usize, 1);
        if n.level < ctx.params.depth {
            ctx.spawn(Node { level: n.level + 1 });
            ctx.spawn(Node { level: n.level + 1 });
        }
    }
}

#[megakernel]
pub mod slow {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        pub rounds: u64,
    }

    #[counters]
    pub struct Counters {
        pub mixed: Sum<u64>,
    }

    #[task]
    pub struct Root {
        pub seed: u64,
    }

    #[spawn]
    fn visit(r: &Root, ctx: &mut Ctx) {
        let mut x = r.seed;
        for _ in 0..ctx.params.rounds {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        }
        ctx.counters.mixed.add(x >> 60);
    }
}

#[megakernel]
pub mod ribbons {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        pub width: u32,
        pub length: u32,
    }

    #[counters]
    pub struct Counters {
        pub nodes: Sum<u64>,
        pub deepest: Max<u32>,
        pub shallowest_leaf: Min<u32>,
    }

    #[task]
    pub struct Node {
        pub level: u32,
    }

    /// The root spawns `width` chains of `length` tasks.
    #[spawn]
    fn visit(n: &Node, ctx: &mut Ctx) {
        ctx.counters.nodes.add(1);
        ctx.counters.deepest.max(n.level);
        if n.level == ctx.params.length {
            ctx.counters.shallowest_leaf.min(n.level);
        }
        if n.level == 0 {
            for _ in 0..ctx.params.width {
                ctx.spawn(Node { level: 1 });
            }
        } else if n.level < ctx.params.length {
            ctx.spawn(Node { level: n.level + 1 });
        }
    }
}
