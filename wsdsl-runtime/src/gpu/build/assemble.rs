//! Assembling the megakernel source: template library + the program's generated fragments.
//!
//! The result depends only on the program and the configuration, byte for byte, so its hash
//! can key the kernel cache. `WSDSL_DUMP_DIR=<dir>` writes every assembled kernel there.
//! `WSDSL_DEFINES="NAME NAME=VALUE ..."` adds macro definitions at the top of every assembled
//! kernel (GPU and host emulation), in builds with the `lab` feature: a development hook for
//! comparing the templates' experimental variants (`WS_STEAL_CLAIM`, `WS_AGE_TRACE`, ...) in
//! one build; they are part of the source, so they key the cache too.

use crate::cache::stable_hash;
use crate::contract::Program;
use crate::contract::schedule::{KernelConfig, Order, Scheduler, Steal, Victim};
use std::path::PathBuf;

/// Template headers, in the order they are needed (see `contract/program.rs` for the full order).
const RUST_SEMANTICS: &str = include_str!("../../../cuda/core/rust_semantics.cuh");
/// The memory-model wrappers (`cuda/core/atomics.cuh`): with the queue headers below, what a
/// stand-alone kernel over the queues needs (the queue micro-benchmarks, `queue-bench`).
pub const ATOMICS: &str = include_str!("../../../cuda/core/atomics.cuh");
const STATUS: &str = include_str!("../../../cuda/core/status.cuh");
const STATS: &str = include_str!("../../../cuda/core/stats.cuh");
const CONTEXT: &str = include_str!("../../../cuda/core/context.cuh");
const FAR: &str = include_str!("../../../cuda/features/far.cuh");
const JOIN: &str = include_str!("../../../cuda/features/join.cuh");
const PARALLEL: &str = include_str!("../../../cuda/features/parallel.cuh");
const PARALLEL_RUN: &str = include_str!("../../../cuda/features/parallel_run.cuh");
/// The split work-stealing deque (`cuda/queues/deque.cuh`).
pub const DEQUE: &str = include_str!("../../../cuda/queues/deque.cuh");
const TERMINATION: &str = include_str!("../../../cuda/core/termination.cuh");
const LAUNCH: &str = include_str!("../../../cuda/core/launch.cuh");
const VICTIMS: &str = include_str!("../../../cuda/features/victims.cuh");
const PE: &str = include_str!("../../../cuda/features/pe.cuh");
const DEQUE_SCHEDULER: &str = include_str!("../../../cuda/schedulers/deque.cuh");
const STATIC_BASELINE: &str = include_str!("../../../cuda/schedulers/static_baseline.cuh");
/// The Broker Queue family's queue (`cuda/queues/broker_queue.cuh`).
pub const BROKER_QUEUE: &str = include_str!("../../../cuda/queues/broker_queue.cuh");
const BROKER_SCHEDULER: &str = include_str!("../../../cuda/schedulers/broker.cuh");
const BANDS: &str = include_str!("../../../cuda/schedulers/bands.cuh");

/// What the GPU build of a schedule needs beyond the choices themselves (`crate::schedule`).
impl KernelConfig {
    /// The kernel entry point of this configuration.
    pub fn entry_point(&self) -> &'static str {
        if self.order == Order::Priority {
            return "wsdsl_bands_megakernel";
        }
        match self.scheduler {
            Scheduler::Deque => "wsdsl_megakernel",
            Scheduler::Static => "wsdsl_static_generation",
            Scheduler::Bq | Scheduler::Bwd | Scheduler::Bsq => "wsdsl_broker_megakernel",
        }
    }

    /// Threads that run tasks side by side and share one stash of join frames: a worker's
    /// threads, or one (the static scheduler runs a task per thread; a cooperative worker
    /// runs one task at a time).
    pub fn stash_threads(&self) -> u32 {
        if self.scheduler == Scheduler::Static || self.cooperative { 1 } else { self.worker_threads() }
    }

    /// `WSDSL_BROKER_KIND` of the broker schedulers (`cuda/schedulers/broker.cuh`).
    pub fn broker_kind(&self) -> Option<u32> {
        match self.scheduler {
            Scheduler::Bq => Some(0),
            Scheduler::Bwd => Some(1),
            Scheduler::Bsq => Some(2),
            Scheduler::Deque | Scheduler::Static => None,
        }
    }

    pub(crate) fn victim_code(&self) -> u32 {
        match self.victim {
            Victim::Random => 0,
            Victim::RoundRobin => 1,
            Victim::Pws => 2,
            Victim::Hws => 3,
            Victim::SmallWorld => 4,
        }
    }
}

/// The complete CUDA source of `P`'s kernel for `config`.
pub fn kernel_source<P: Program>(config: &KernelConfig) -> String {
    assemble::<P>(config, None, false)
}

/// `prelude` then [`kernel_source`], and its [`stable_hash`], made once per process for each
/// program, configuration, prelude and `WSDSL_DEFINES`: a warm run finds its loaded kernel
/// without assembling and hashing about 200 KB of text again (0.1-0.15 ms of a graph
/// kernel's 3-ms call on an H200).
pub(crate) fn kernel_source_once<P: Program>(prelude: &str, config: &KernelConfig) -> (std::sync::Arc<str>, u64) {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    type Key = (std::any::TypeId, KernelConfig, String, String);
    static SOURCES: OnceLock<Mutex<HashMap<Key, (Arc<str>, u64)>>> = OnceLock::new();
    let key = (std::any::TypeId::of::<P>(), *config, prelude.to_string(), crate::settings::lab_var("WSDSL_DEFINES").unwrap_or_default());
    let sources = SOURCES.get_or_init(Default::default);
    if let Some(made) = sources.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return made.clone();
    }
    // Made outside the lock: another thread's lookup need not wait for it.
    let source: Arc<str> = format!("{prelude}{}", kernel_source::<P>(config)).into();
    let hash = stable_hash(&[&source]);
    sources.lock().unwrap_or_else(|e| e.into_inner()).entry(key).or_insert((source, hash)).clone()
}

/// The CUDA source of `P`'s deque megakernel for one GPU of a multi-GPU run (`cuda/features/pe.cuh`).
pub fn pe_kernel_source<P: Program>(config: &KernelConfig) -> String {
    assemble::<P>(config, None, true)
}

/// [`pe_kernel_source`] for a GPU that reaches other hosts' GPUs through NVSHMEM's one-sided
/// calls (`WSDSL_PES_ONE_SIDED`, `cuda/features/pe.cuh`): it includes `<nvshmem.h>`, so it is built
/// relocatable and linked with NVSHMEM's device library (`gpu::nvshmem::compile_linked`).
///
/// Unless the program or the user chose blocks per SM, it asks ptxas for the blocks of a
/// kernel of 128 registers a thread ([`ACROSS_HOSTS_REGISTERS`]).
pub fn pe_kernel_source_across_hosts<P: Program>(config: &KernelConfig) -> String {
    let mut config = *config;
    if config.min_blocks == 0 {
        config.min_blocks = (65536 / (ACROSS_HOSTS_REGISTERS * config.block_threads.max(1))).max(1);
    }
    format!("{NVSHMEM_PRELUDE}{}", pe_kernel_source::<P>(&config))
}

/// The registers a thread whose blocks per SM the across-hosts kernel asks for when nothing
/// else says (at 256 threads a block, two blocks: at most 128 registers). Left
/// to itself ptxas gives it 194-216 (N-Queens, fib), against 96-128 for the same programs
/// built for one host: NVSHMEM's calls are ABI calls into a separately compiled library, and
/// the registers live across them are kept. At 256 threads a block that is one block per SM
/// instead of two, half the workers: on two H100s split into two "hosts", N-Queens 18 runs
/// 1.04x one GPU with 1,056 workers a GPU where one host's two GPUs run 1.90x with 2,112.
pub const ACROSS_HOSTS_REGISTERS: u32 = 128;

/// How a kernel source that calls NVSHMEM's device API begins.
const NVSHMEM_PRELUDE: &str = "#include <nvshmem.h>\n#define WSDSL_PES_ONE_SIDED 1\n";

/// Whether `source` calls NVSHMEM's device API ([`pe_kernel_source_across_hosts`]): it is then
/// built relocatable and linked with NVSHMEM's device library.
pub(crate) fn calls_nvshmem(source: &str) -> bool {
    source.starts_with(NVSHMEM_PRELUDE)
}

/// Appends a template header, with a `#line` naming it so compiler messages point at it.
pub(crate) fn part(src: &mut String, file: &str, text: &str) {
    src.push_str(&format!("#line 1 \"wsdsl-runtime/cuda/{file}\"\n"));
    src.push_str(text);
    src.push('\n');
}

/// The source for NVRTC, or (`host`) for the host C++ compiler with the emulation shims in
/// place of the PTX atomics; `pes`: for one GPU of a multi-GPU run (deque scheduler only).
/// `host`: the host build's prelude (its shims, `gpu/emulate/source.rs`), which also takes the
/// deque scheduler's victim policy and steal amount at launch.
pub(crate) fn assemble<P: Program>(config: &KernelConfig, host: Option<&str>, pes: bool) -> String {
    let on_host = host.is_some();
    // The host build of the deque scheduler takes its victim policy and steal amount at
    // launch (`host_steal_policy`): one build serves all ten choices, which the emulated
    // scheduler tests sweep. The source then names neither, so its hash keys one build.
    let policy_at_launch = on_host && config.scheduler == Scheduler::Deque;
    let (victim, steal_half, shown) = if policy_at_launch {
        let shown = KernelConfig { victim: Victim::Random, steal: Steal::One, ..*config };
        ("ws_host_victim".to_string(), "ws_host_steal_half".to_string(), shown)
    } else {
        (config.victim_code().to_string(), ((config.steal == Steal::Half) as u32).to_string(), *config)
    };
    // The lookahead is part of an ordered kernel only: a runtime's choice must not make the
    // source (and the cache key) of every other kernel differ.
    let ordered = config.order == Order::Priority;
    let shown = KernelConfig { lookahead: ordered.then(|| config.band_lookahead()), ..shown };
    let mut src = String::with_capacity(64 * 1024);
    src.push_str(&format!(
        "// wsdsl megakernel for program `{}` (generated; do not edit)\n// {:?}{}\n\
         #define WSDSL_BLOCK_THREADS {}\n#define WSDSL_WORKER_THREADS {}\n#define WSDSL_JOIN_WORKER_THREADS {}\n#define WSDSL_VICTIM {}\n#define WSDSL_STEAL_HALF {}\n#define WSDSL_COOPERATIVE {}\n#define WSDSL_PROFILE {}\n#define WSDSL_MIN_BLOCKS {}\n#define WSDSL_PES {}\n",
        P::NAME,
        shown,
        if policy_at_launch { " (victim and steal chosen at launch)" } else { "" },
        config.block_threads,
        config.worker_threads(),
        config.stash_threads(),
        victim,
        steal_half,
        config.cooperative as u32,
        config.profile as u32,
        config.min_blocks.max(1),
        pes as u32,
    ));
    if policy_at_launch {
        src.push_str("static unsigned ws_host_victim, ws_host_steal_half;   // set by ws_host_launch\n");
    }
    src.push_str(&experiment_defines());
    if let Some(kind) = config.broker_kind() {
        src.push_str(&format!("#define WSDSL_BROKER_KIND {kind}\n#define WS_SPAWN_SPILL 1\n"));
    }
    if ordered {
        // After `WSDSL_DEFINES`, which may set the lookahead for an experiment.
        src.push_str(&format!("#define WSDSL_ORDERED 1\n#ifndef WSDSL_BAND_LOOKAHEAD\n#define WSDSL_BAND_LOOKAHEAD {}u\n#endif\n", config.band_lookahead()));
    }
    if let Some(prelude) = host {
        src.push_str(prelude);
    }
    part(&mut src, "core/rust_semantics.cuh", RUST_SEMANTICS);
    if !on_host {
        part(&mut src, "core/atomics.cuh", ATOMICS);
    }
    part(&mut src, "core/status.cuh", STATUS);
    part(&mut src, "core/stats.cuh", STATS);
    src.push_str("// ---- program types (generated from Rust) ----\n");
    src.push_str(P::CUDA_TYPES);
    src.push('\n');
    part(&mut src, "core/context.cuh", CONTEXT);
    part(&mut src, "features/far.cuh", FAR);
    part(&mut src, "features/join.cuh", JOIN);
    part(&mut src, "features/parallel.cuh", PARALLEL);
    part(&mut src, "features/parallel_run.cuh", PARALLEL_RUN);
    src.push_str("// ---- program handlers (generated from Rust) ----\n");
    src.push_str(P::CUDA_HANDLERS);
    src.push('\n');
    match config.scheduler {
        Scheduler::Deque => {
            part(&mut src, "queues/deque.cuh", DEQUE);
            part(&mut src, "core/termination.cuh", TERMINATION);
            part(&mut src, "core/launch.cuh", LAUNCH);
            part(&mut src, "features/pe.cuh", PE);
            part(&mut src, "features/victims.cuh", VICTIMS);
            part(&mut src, "schedulers/deque.cuh", DEQUE_SCHEDULER);
        }
        Scheduler::Static => part(&mut src, "schedulers/static_baseline.cuh", STATIC_BASELINE),
        Scheduler::Bq | Scheduler::Bwd | Scheduler::Bsq => {
            part(&mut src, "queues/deque.cuh", DEQUE);
            part(&mut src, "core/termination.cuh", TERMINATION);
            part(&mut src, "core/launch.cuh", LAUNCH);
            part(&mut src, "queues/broker_queue.cuh", BROKER_QUEUE);
            if ordered {
                part(&mut src, "schedulers/bands.cuh", BANDS);
            } else {
                part(&mut src, "schedulers/broker.cuh", BROKER_SCHEDULER);
            }
        }
    }
    src
}

/// `#define` lines for the words of `WSDSL_DEFINES` (module docs); words that are not
/// C identifiers (with an optional `=value` of letters, digits and `_`) are skipped.
fn experiment_defines() -> String {
    let (defines, bad) = experiment_define_pairs();
    for word in bad {
        eprintln!("wsdsl: WSDSL_DEFINES: `{word}` is not NAME or NAME=VALUE (letters, digits, _); ignored");
    }
    defines.iter().map(|(name, val)| format!("#define {name} {val}\n")).collect()
}

/// `WSDSL_DEFINES` parsed: its (name, value) pairs, and the words that are neither NAME nor
/// NAME=VALUE.
pub(crate) fn experiment_define_pairs() -> (Vec<(String, String)>, Vec<String>) {
    let words = crate::settings::lab_var("WSDSL_DEFINES").unwrap_or_default();
    let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !s.starts_with(|c: char| c.is_ascii_digit());
    let value = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let (mut defines, mut bad) = (Vec::new(), Vec::new());
    for word in words.split([' ', ',']).filter(|w| !w.is_empty()) {
        let (name, val) = word.split_once('=').unwrap_or((word, "1"));
        if ident(name) && value(val) {
            defines.push((name.to_string(), val.to_string()));
        } else {
            bad.push(word.to_string());
        }
    }
    (defines, bad)
}

/// Writes `source` to `$WSDSL_DUMP_DIR/<name>.cu` when that variable is set.
pub fn dump_if_requested(name: &str, key: u64, source: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("WSDSL_DUMP_DIR")?);
    let path = dir.join(format!("{name}-{key:016x}.cu"));
    match std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, source)) {
        Ok(()) => Some(path),
        Err(e) => {
            eprintln!("wsdsl: could not dump the kernel to {}: {e}", path.display());
            None
        }
    }
}
