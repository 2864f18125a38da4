//! The runtime tested on its own, with a `Program` written by hand (what `#[megakernel]`
//! would generate for a tiny fork program), so a runtime bug cannot hide behind the macro.

use wsdsl_runtime::gpu::emulate::{run_emulated, Emulation};
use wsdsl_runtime::gpu::{all_kernel_configs, broker_kernel_configs, compile_check, compile_check_with, front_end_check_with, kernel_source, KernelConfig};
use wsdsl_runtime::contract::{CounterCell, CounterSet, CounterSlot, DeviceBytes, Program, Reduce};
use wsdsl_runtime::contract::Spawned;
use wsdsl_runtime::{Backend, Error, Max, Runtime, Scheduler, Sum};

/// Task: a node at `depth` of a complete binary tree of height `params` (u32).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Node {
    depth: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    leaves: Sum<u64>,
    deepest: Max<u32>,
}

impl CounterSet for Counters {
    const SLOTS: &'static [CounterSlot] = &[
        CounterSlot { name: "leaves", reduce: Reduce::Sum, signed: false },
        CounterSlot { name: "deepest", reduce: Reduce::Max, signed: false },
    ];
    fn merge(&mut self, other: &Self) {
        self.leaves.merge(&other.leaves);
        self.deepest.merge(&other.deepest);
    }
    fn from_slots(slots: &[u64]) -> Self {
        Counters { leaves: CounterCell::from_slot(slots[0]), deepest: CounterCell::from_slot(slots[1]) }
    }
}

struct Tree;

impl Program for Tree {
    const NAME: &'static str = "tree";
    const CUDA_TYPES: &'static str = r#"
struct u_Node { ws_u32 u_depth; };
struct wsdsl_params { ws_u32 height; };
struct wsdsl_buffers { ws_u64 unused; };
struct wsdsl_task { ws_u32 tag; union { u_Node t_Node; } u; };
struct wsdsl_counters { ws_u64 u_leaves; ws_u32 u_deepest; };
static __device__ void wsdsl_counters_init(wsdsl_counters* c) { c->u_leaves = 0; c->u_deepest = 0; }
static __device__ void wsdsl_counters_flush(const wsdsl_counters* c, unsigned long long* s) {
    atomicAdd(&s[0], (unsigned long long)c->u_leaves);
    atomicMax(&s[1], (unsigned long long)c->u_deepest);
}
"#;
    const CUDA_HANDLERS: &'static str = r#"
static __device__ void h_grow(const u_Node* n, wsdsl_ctx* ctx) {
    wsdsl_counters* c = wsdsl_ctx_counters(ctx);
    if (n->u_depth > c->u_deepest) c->u_deepest = n->u_depth;
    if (n->u_depth == wsdsl_ctx_params(ctx)->height) { c->u_leaves += 1; return; }
    for (int i = 0; i < 2; i++) {
        wsdsl_task t; t.tag = 0; t.u.t_Node.u_depth = n->u_depth + 1;
        wsdsl_ctx_spawn(ctx, &t);
    }
}
__device__ void wsdsl_execute(const wsdsl_task* t, wsdsl_ctx* ctx) {
    switch (t->tag) { case 0: h_grow(&t->u.t_Node, ctx); break; }
}
"#;
    const FAULT_SITES: &'static [&'static str] = &[];
    const TASK_NAMES: &'static [&'static str] = &["Node"];
    const TASK_BYTES: usize = 8;
    const PARAMS_BYTES: usize = 4;
    type Params = u32;
    type Task = Node;
    type Counters = Counters;
    type Buffers = ();
    type Value = ();

    fn encode_task(task: &Node, out: &mut [u8]) {
        0u32.write_device_bytes(out);
        task.depth.write_device_bytes(&mut out[4..]);
    }
    fn encode_params(height: &u32, out: &mut [u8]) {
        height.write_device_bytes(out);
    }
    fn execute(task: &Node, height: &u32, _: &(), counters: &mut Counters, spawn: &mut Spawned<Node>) {
        counters.deepest.max(task.depth);
        if task.depth == *height {
            counters.leaves.add(1);
            return;
        }
        assert!(task.depth < 40, "runaway tree");
        spawn.push(Node { depth: task.depth + 1 });
        spawn.push(Node { depth: task.depth + 1 });
    }
}

#[test]
fn cpu_backend_walks_the_whole_tree() {
    for threads in [1, 2, 4] {
        let out = Runtime::new(Backend::Cpu).cpu_threads(threads).run::<Tree>(14, [Node { depth: 0 }]).unwrap();
        assert_eq!(out.counters.leaves.get(), 1 << 14, "{threads} threads");
        assert_eq!(out.counters.deepest.get(), 14);
        assert_eq!(out.stats.tasks, (1 << 15) - 1);
    }
}

#[test]
fn cpu_backend_starts_from_many_roots() {
    let roots = vec![Node { depth: 3 }; 100];
    let out = Runtime::new(Backend::Cpu).cpu_threads(3).run::<Tree>(5, roots).unwrap();
    assert_eq!(out.counters.leaves.get(), 100 * 4);
}

#[test]
fn a_panicking_handler_is_an_error_not_a_crash() {
    // Height 50 trips the handler's assertion at depth 40.
    let err = Runtime::new(Backend::Cpu).cpu_threads(2).run::<Tree>(50, [Node { depth: 39 }]).unwrap_err();
    match err {
        Error::TaskPanicked { message } => assert!(message.contains("runaway tree"), "{message}"),
        other => panic!("expected TaskPanicked, got {other}"),
    }
}

#[test]
fn templates_compile_with_nvrtc() {
    let bytes = compile_check::<Tree>("sm_90").unwrap_or_else(|e| panic!("{e}"));
    assert!(bytes > 1000);
}

/// Every scheduler configuration (40) through NVRTC's front end, and a covering set to CUBINs:
/// each victim policy, worker granularity and steal amount of the deque, each broker
/// scheduler and worker granularity, and the static scheduler at least once, so that every
/// template path meets NVVM and ptxas (all 40 CUBINs took a minute of CI; the host emulation
/// below runs all of them, and gpu-check compiles and runs all of them on the GPU).
#[test]
fn every_scheduler_path_compiles_with_nvrtc() {
    let all: Vec<KernelConfig> = all_kernel_configs(256).into_iter().chain(broker_kernel_configs(256)).collect();
    for config in &all {
        front_end_check_with::<Tree>("sm_90", config).unwrap_or_else(|e| panic!("{config:?}: {e}"));
    }
    // The deque's policies in turn with the worker and the steal amount turning beside them;
    // the brokers likewise with the worker.
    let covering = all.iter().filter(|c| match c.scheduler {
        Scheduler::Deque => c.victim as u32 % 3 == c.worker as u32 && c.victim as u32 % 2 == c.steal as u32,
        Scheduler::Static => true,
        Scheduler::Bq | Scheduler::Bwd | Scheduler::Bsq => (c.scheduler as u32 - Scheduler::Bq as u32) == c.worker as u32,
    });
    let mut built = 0;
    for config in covering {
        let bytes = compile_check_with::<Tree>("sm_90", config).unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert!(bytes > 1000, "{config:?}");
        built += 1;
    }
    assert_eq!(built, 9, "one deque configuration per victim policy, one per broker scheduler, the static one");
}

/// The GPU templates compiled for the host (`gpu::emulate`): every scheduler configuration
/// walks the tree exactly, with steals between the emulated workers.
#[test]
fn every_configuration_is_exact_on_the_host_emulation() {
    let emu = Emulation::default();
    let (mut deque_configs, mut stolen_in) = (0, 0);
    for config in all_kernel_configs(256).into_iter().chain(broker_kernel_configs(256)) {
        let (counters, _, stats) = run_emulated::<Tree>(&12, &(), &[Node { depth: 0 }], &config, &emu)
            .unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert_eq!(counters.leaves.get(), 1 << 12, "{config:?}");
        assert_eq!(counters.deepest.get(), 12, "{config:?}");
        assert_eq!(stats.tasks, (2 << 12) - 1, "{config:?}");
        // A steal that took work (of however many tasks) follows an attempt.
        assert!(stats.steals <= stats.steal_attempts, "{config:?}: {} steals of {} attempts", stats.steals, stats.steal_attempts);
        if config.scheduler == Scheduler::Deque {
            deque_configs += 1;
            stolen_in += (stats.steals > 0) as u32;
        }
    }
    // The single root must be stolen to spread. Not in every configuration: a block worker
    // can walk the whole tree before the host schedules the other emulated blocks' threads,
    // when the host is busy.
    assert!(stolen_in * 2 >= deque_configs, "work was stolen in only {stolen_in} of {deque_configs} deque configurations");
    // Errors come back as on the GPU: a deque too small overflows.
    let tiny = Emulation { capacity: 2, ..Emulation::default() };
    match run_emulated::<Tree>(&12, &(), &[Node { depth: 0 }], &KernelConfig::default(), &tiny) {
        Err(Error::QueueOverflow { capacity: 2, .. }) => {}
        other => panic!("expected an overflow, got {:?}", other.map(|(_, _, s)| s)),
    }
}

/// The broker megakernel compiles at the largest queue size too (the queue's N is a template
/// constant), and capacities round up to powers of two.
#[test]
fn broker_queues_compile_at_the_largest_size() {
    use wsdsl_runtime::gpu::{broker_kernel_source, broker_slots_for};
    assert_eq!((broker_slots_for(100), broker_slots_for(1), broker_slots_for(4096)), (128, 2, 4096));
    for scheduler in [Scheduler::Bq, Scheduler::Bsq] {
        let config = KernelConfig { scheduler, ..KernelConfig::default() };
        let source = broker_kernel_source::<Tree>(&config, 1 << 28);
        assert!(source.contains("#define WSDSL_BROKER_SLOTS 268435456u") && source.contains("schedulers/broker.cuh\""));
        wsdsl_runtime::gpu::compile::compile_uncached("tree", &source, "sm_90").unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn assembly_is_deterministic_and_in_order() {
    let a = kernel_source::<Tree>(&KernelConfig::default());
    assert_eq!(a, kernel_source::<Tree>(&KernelConfig::default()));
    let order = ["core/rust_semantics.cuh\"", "struct u_Node", "core/context.cuh\"", "h_grow", "queues/deque.cuh\"", "schedulers/deque.cuh\""];
    let positions: Vec<usize> = order.iter().map(|s| a.find(s).unwrap_or_else(|| panic!("{s} missing"))).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "assembly order: {positions:?}");
}

#[test]
fn a_broken_fragment_is_a_compile_error_with_the_log() {
    struct Broken;
    impl Program for Broken {
        const NAME: &'static str = "broken";
        const CUDA_TYPES: &'static str = Tree::CUDA_TYPES;
        const CUDA_HANDLERS: &'static str = "#line 7 \"src/broken.rs\"\n__device__ void wsdsl_execute(const wsdsl_task* t, wsdsl_ctx* ctx) { undefined_thing(); }\n";
        const FAULT_SITES: &'static [&'static str] = &[];
        const TASK_NAMES: &'static [&'static str] = &["Node"];
        const TASK_BYTES: usize = 8;
        const PARAMS_BYTES: usize = 4;
        type Params = u32;
        type Task = Node;
        type Counters = Counters;
    type Buffers = ();
    type Value = ();
        fn encode_task(_: &Node, _: &mut [u8]) {}
        fn encode_params(_: &u32, _: &mut [u8]) {}
        fn execute(_: &Node, _: &u32, _: &(), _: &mut Counters, _: &mut Spawned<Node>) {}
    }
    let err = compile_check::<Broken>("sm_90").unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::Compile { .. }), "{text}");
    assert!(text.contains("src/broken.rs(7)"), "the error names the Rust line: {text}");
    assert!(text.contains("undefined_thing"), "{text}");
}

#[test]
fn gpu_backend_without_a_gpu_is_a_clear_error() {
    match Runtime::new(Backend::Gpu).run::<Tree>(3, [Node { depth: 0 }]) {
        Ok(out) => eprintln!("note: a GPU is present ({}); the no-GPU error path was not exercised", out.backend),
        Err(Error::NoGpu { reason }) => assert!(!reason.is_empty()),
        Err(other) => panic!("expected NoGpu, got {other}"),
    }
    // Auto falls back to the CPU and says why.
    let out = Runtime::new(Backend::Auto).run::<Tree>(3, [Node { depth: 0 }]).unwrap();
    assert_eq!(out.counters.leaves.get(), 8);
}

/// On a machine with a GPU: the persistent megakernel walks the same trees exactly.
/// Without one, says so and checks nothing (gpu-check runs the examples on the GPU).
#[test]
fn gpu_backend_walks_the_whole_tree() {
    let rt = Runtime::new(Backend::Gpu);
    if let Err(e) = rt.gpu() {
        eprintln!("SKIPPED gpu_backend_walks_the_whole_tree: {e}");
        return;
    }
    for (height, roots) in [(20u32, 1usize), (12, 5000), (0, 3)] {
        let out = rt.run::<Tree>(height, vec![Node { depth: 0 }; roots]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.counters.leaves.get(), roots as u64 * (1 << height), "height {height}, {roots} roots");
        assert_eq!(out.counters.deepest.get(), height);
        assert_eq!(out.stats.tasks, roots as u64 * ((2 << height) - 1));
        eprintln!("height {height}, {roots} roots on {}:\n{}", out.backend, out.stats);
        if height == 20 {
            assert!(out.stats.steals > 0, "a single root must be stolen to spread");
        }
    }
    // Every scheduler configuration walks the tree exactly.
    for config in all_kernel_configs(256).into_iter().chain(broker_kernel_configs(256)) {
        let rt = Runtime::new(Backend::Gpu).kernel_config(config);
        let out = rt.run::<Tree>(16, [Node { depth: 0 }]).unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert_eq!(out.counters.leaves.get(), 1 << 16, "{config:?}");
        assert_eq!(out.counters.deepest.get(), 16, "{config:?}");
        assert_eq!(out.stats.tasks, (2 << 16) - 1, "{config:?}");
        match config.scheduler {
            Scheduler::Deque => assert!(out.stats.steals > 0, "{config:?}: a single root must be stolen to spread"),
            Scheduler::Static => assert_eq!(out.stats.generations, 17, "one launch per level"),
            // Shared queues: no steals (BQ, BWD); BSQ steals only when a block runs dry.
            Scheduler::Bq | Scheduler::Bwd | Scheduler::Bsq => {
                assert!(out.stats.peak_queue > 0 && out.stats.peak_queue <= out.stats.queue_capacity, "{config:?}: {}", out.stats);
                assert_eq!(out.stats.per_worker_tasks.iter().sum::<u64>(), out.stats.tasks, "{config:?}");
                if config.scheduler != Scheduler::Bsq {
                    assert_eq!(out.stats.steals, 0, "{config:?}");
                }
            }
        }
    }
    // The broker schedulers from many roots, and with queues too small: an exact answer or a
    // clean overflow naming the capacity, never a wrong answer or a hang.
    for scheduler in [Scheduler::Bq, Scheduler::Bwd, Scheduler::Bsq] {
        let rt = Runtime::new(Backend::Gpu).scheduler(scheduler);
        let out = rt.run::<Tree>(10, vec![Node { depth: 0 }; 5000]).unwrap_or_else(|e| panic!("{scheduler:?}: {e}"));
        assert_eq!(out.counters.leaves.get(), 5000 << 10, "{scheduler:?}");
        assert_eq!(out.stats.tasks, 5000 * ((2 << 10) - 1), "{scheduler:?}");
        // Initial tasks that cannot fit are refused before the launch.
        let tiny = Runtime::new(Backend::Gpu).scheduler(scheduler).deque_capacity(16);
        match tiny.run::<Tree>(2, vec![Node { depth: 0 }; 100_000]) {
            Err(Error::QueueOverflow { capacity: 16, needed, .. }) => assert!(needed > 16),
            other => panic!("{scheduler:?}: expected the queue to overflow with the roots, got {:?}", other.map(|o| o.stats)),
        }
        let tiny = Runtime::new(Backend::Gpu).scheduler(scheduler).deque_capacity(2);
        match tiny.run::<Tree>(16, [Node { depth: 0 }]) {
            Ok(out) => assert_eq!(out.counters.leaves.get(), 1 << 16, "{scheduler:?}"),
            Err(Error::QueueOverflow { capacity, needed, .. }) => assert!(capacity == 2 && needed > 2, "{scheduler:?}"),
            Err(other) => panic!("{scheduler:?}: expected an exact answer or an overflow, got {other}"),
        }
    }
    // The static baseline's arrays overflow like the deques do.
    let tiny = Runtime::new(Backend::Gpu).scheduler(Scheduler::Static).deque_capacity(100);
    match tiny.run::<Tree>(10, [Node { depth: 0 }]) {
        Err(Error::QueueOverflow { capacity: 100, needed: 128, .. }) => {}
        other => panic!("expected the static arrays to overflow at 128 > 100, got {other:?}"),
    }
    // A deque too small for the tree is an overflow error naming the capacity.
    let tiny = Runtime::new(Backend::Gpu).deque_capacity(2);
    match tiny.run::<Tree>(16, [Node { depth: 0 }]) {
        Err(Error::QueueOverflow { capacity, needed, .. }) => assert!(capacity == 2 && needed > 2),
        other => panic!("expected an overflow, got {other:?}"),
    }
}

