//! Assembling the megakernel source: template library + the program's generated fragments.
//!
//! The result depends only on the program and the configuration, byte for byte, so its hash
//! can key the kernel cache. `WSDSL_DUMP_DIR=<dir>` writes every assembled kernel there.
//! `WSDSL_DEFINES="NAME NAME=VALUE ..."` adds macro definitions at the top of every assembled
//! kernel (GPU and host emulation): a development hook for comparing the templates'
//! experimental variants (`WS_STEAL_CLAIM`, `WS_AGE_TRACE`, ...) in one build; they are part
//! of the source, so they key the cache too.

use crate::program::Program;
use std::path::PathBuf;

/// Template headers, in the order they are needed (see `program.rs` for the full order).
const RUST_SEMANTICS: &str = include_str!("../../cuda/rust_semantics.cuh");
const ATOMICS: &str = include_str!("../../cuda/atomics.cuh");
const HOST_SHIM: &str = include_str!("../../cuda/host/ws_host_shim.h");
const HOST_EMULATION: &str = include_str!("../../cuda/host/emulation.h");
const STATUS: &str = include_str!("../../cuda/status.cuh");
const STATS: &str = include_str!("../../cuda/stats.cuh");
const CONTEXT: &str = include_str!("../../cuda/context.cuh");
const JOIN: &str = include_str!("../../cuda/join.cuh");
const PARALLEL: &str = include_str!("../../cuda/parallel.cuh");
const DEQUE: &str = include_str!("../../cuda/deque.cuh");
const TERMINATION: &str = include_str!("../../cuda/termination.cuh");
const LAUNCH: &str = include_str!("../../cuda/launch.cuh");
const VICTIMS: &str = include_str!("../../cuda/victims.cuh");
const PE: &str = include_str!("../../cuda/pe.cuh");
const MEGAKERNEL: &str = include_str!("../../cuda/megakernel.cuh");
const STATIC_BASELINE: &str = include_str!("../../cuda/static_baseline.cuh");
const BROKER_QUEUE: &str = include_str!("../../cuda/broker_queue.cuh");
const BROKER_MEGAKERNEL: &str = include_str!("../../cuda/broker_megakernel.cuh");

/// Which scheduler runs the tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheduler {
    /// The persistent megakernel with one work-stealing deque per worker (the default).
    Deque,
    /// The static baseline: two task arrays, one kernel launch per generation.
    Static,
    /// The persistent megakernel over one Broker Queue for the whole grid (linearizable FIFO).
    Bq,
    /// The same over one Broker Work Distributor (the broker's word taken at face value).
    Bwd,
    /// The same over a Broker Stealing Queue: one BQ per block, empty blocks rob the others.
    Bsq,
}

impl Scheduler {
    /// `deque`, `static`, `bq`, `bwd` or `bsq` (any case).
    pub fn parse(name: &str) -> Result<Scheduler, String> {
        match name.trim().to_ascii_lowercase().as_str() {
            "deque" => Ok(Scheduler::Deque),
            "static" => Ok(Scheduler::Static),
            "bq" => Ok(Scheduler::Bq),
            "bwd" => Ok(Scheduler::Bwd),
            "bsq" => Ok(Scheduler::Bsq),
            other => Err(format!("unknown scheduler `{other}`; choose deque, static, bq, bwd or bsq")),
        }
    }
}

/// How many threads form one worker (one deque, one batch of tasks at a time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Worker {
    /// Every thread is a worker with its own deque.
    Thread,
    /// A warp is a worker: up to 32 tasks at a time, one per lane (the default).
    Warp,
    /// A block is a worker: up to one task per thread; thread 0 manages the deque.
    Block,
}

/// Whom an idle worker robs (see `cuda/victims.cuh`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Victim {
    /// Uniformly random (the default).
    Random,
    /// The next worker after the last one tried.
    RoundRobin,
    /// Random, accepted with a probability falling with distance (same block, SM, other SM).
    Pws,
    /// One leader per SM robs other SMs, taking half; the others rob their own SM.
    Hws,
    /// Only the neighbours in a sparse small-world graph (ring plus log n shortcuts).
    SmallWorld,
}

impl Victim {
    /// `random`, `round_robin`, `pws`, `hws` or `small_world` (any case; `-` for `_`), as the
    /// `#[megakernel(victim = ...)]` attribute spells them.
    pub fn parse(name: &str) -> Result<Victim, String> {
        match name.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "random" => Ok(Victim::Random),
            "round_robin" => Ok(Victim::RoundRobin),
            "pws" => Ok(Victim::Pws),
            "hws" => Ok(Victim::Hws),
            "small_world" => Ok(Victim::SmallWorld),
            other => Err(format!("unknown victim policy `{other}`; choose random, round-robin, pws, hws or small-world")),
        }
    }
}

/// How much a thief takes from the public part of a victim's deque.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Steal {
    /// One task.
    One,
    /// Half of what the victim offers (the default: it spreads a burst of work across idle
    /// workers in a few steps; see BENCHMARKS.md).
    Half,
}

/// Scheduler settings baked into the kernel source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KernelConfig {
    pub scheduler: Scheduler,
    /// Threads per block (a multiple of 32).
    pub block_threads: u32,
    pub worker: Worker,
    pub victim: Victim,
    pub steal: Steal,
    /// Every thread of a worker runs the same task (`ctx.thread()`, `ctx.threads()`,
    /// `ctx.sync()`); deque and static schedulers.
    pub cooperative: bool,
    /// Time the phases of the worker loop on the device (`cuda/stats.cuh`) and report them
    /// in [`crate::Stats::profile`]. Costs a few percent; not a scheduling choice.
    pub profile: bool,
    /// Blocks per SM the compiler must fit by its register use (`__launch_bounds__`); 0 lets
    /// it choose. More resident workers hide more latency, at the price of spills.
    pub min_blocks: u32,
}

impl Default for KernelConfig {
    fn default() -> Self {
        KernelConfig {
            scheduler: Scheduler::Deque,
            block_threads: 256,
            worker: Worker::Warp,
            victim: Victim::Random,
            steal: Steal::Half,
            cooperative: false,
            profile: false,
            min_blocks: 0,
        }
    }
}

/// A partial scheduler choice: what a `#[megakernel(...)]` attribute or a `Runtime` builder
/// says, with the rest left to whoever comes next (runtime settings, then the program's
/// attribute, then the defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Schedule {
    pub scheduler: Option<Scheduler>,
    pub block_threads: Option<u32>,
    pub worker: Option<Worker>,
    pub victim: Option<Victim>,
    pub steal: Option<Steal>,
    /// Deque slots per worker (static scheduler: per task array).
    pub capacity: Option<u32>,
    pub cooperative: Option<bool>,
    /// Blocks per SM the compiler must fit by register use (`Runtime::min_blocks_per_sm`).
    pub min_blocks: Option<u32>,
}

impl Schedule {
    /// Nothing chosen.
    pub const DEFAULT: Schedule =
        Schedule { scheduler: None, block_threads: None, worker: None, victim: None, steal: None, capacity: None, cooperative: None, min_blocks: None };

    /// These choices, completed by `fallback`'s.
    pub fn or(self, fallback: Schedule) -> Schedule {
        Schedule {
            scheduler: self.scheduler.or(fallback.scheduler),
            block_threads: self.block_threads.or(fallback.block_threads),
            worker: self.worker.or(fallback.worker),
            victim: self.victim.or(fallback.victim),
            steal: self.steal.or(fallback.steal),
            capacity: self.capacity.or(fallback.capacity),
            cooperative: self.cooperative.or(fallback.cooperative),
            min_blocks: self.min_blocks.or(fallback.min_blocks),
        }
    }

    /// The kernel configuration, defaults filling what nobody chose.
    pub fn resolve(self) -> KernelConfig {
        let d = KernelConfig::default();
        KernelConfig {
            scheduler: self.scheduler.unwrap_or(d.scheduler),
            block_threads: self.block_threads.unwrap_or(d.block_threads),
            worker: self.worker.unwrap_or(d.worker),
            victim: self.victim.unwrap_or(d.victim),
            steal: self.steal.unwrap_or(d.steal),
            cooperative: self.cooperative.unwrap_or(d.cooperative),
            profile: false,
            min_blocks: self.min_blocks.unwrap_or(d.min_blocks),
        }
    }
}

impl From<KernelConfig> for Schedule {
    fn from(c: KernelConfig) -> Schedule {
        Schedule {
            scheduler: Some(c.scheduler),
            block_threads: Some(c.block_threads),
            worker: Some(c.worker),
            victim: Some(c.victim),
            steal: Some(c.steal),
            capacity: None,
            cooperative: Some(c.cooperative),
            min_blocks: (c.min_blocks > 0).then_some(c.min_blocks),
        }
    }
}

impl KernelConfig {
    /// Whether the configuration can run, or why not.
    pub fn validate(&self) -> Result<(), String> {
        let bt = self.block_threads;
        if bt == 0 || bt % 32 != 0 || bt > 1024 {
            return Err(format!("block_threads must be a multiple of 32 up to 1024, not {bt}"));
        }
        if self.cooperative && !matches!(self.scheduler, Scheduler::Deque | Scheduler::Static) {
            return Err(format!("cooperative tasks need the deque or the static scheduler, not {:?}", self.scheduler));
        }
        Ok(())
    }

    /// [`KernelConfig::validate`], and whether `P` can run under it: complete handlers run
    /// one task per thread, so not in a cooperative schedule (yet).
    pub fn validate_for<P: Program>(&self) -> Result<(), String> {
        self.validate()?;
        if self.cooperative && P::JOIN.is_some() {
            return Err(format!(
                "`{}` has complete handlers or task values, which cooperative schedules do not support yet; drop `cooperative`",
                P::NAME
            ));
        }
        Ok(())
    }

    /// The kernel entry point of this configuration.
    pub fn entry_point(&self) -> &'static str {
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

    /// Threads per worker.
    pub fn worker_threads(&self) -> u32 {
        match self.worker {
            Worker::Thread => 1,
            Worker::Warp => 32,
            Worker::Block => self.block_threads,
        }
    }

    /// `WSDSL_BROKER_KIND` of the broker schedulers (`cuda/broker_megakernel.cuh`).
    pub fn broker_kind(&self) -> Option<u32> {
        match self.scheduler {
            Scheduler::Bq => Some(0),
            Scheduler::Bwd => Some(1),
            Scheduler::Bsq => Some(2),
            Scheduler::Deque | Scheduler::Static => None,
        }
    }

    fn victim_code(&self) -> u32 {
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
    assemble::<P>(config, false, false)
}

/// The CUDA source of `P`'s deque megakernel for one GPU of a multi-GPU run (`cuda/pe.cuh`).
pub fn pe_kernel_source<P: Program>(config: &KernelConfig) -> String {
    assemble::<P>(config, false, true)
}

/// Appends a template header, with a `#line` naming it so compiler messages point at it.
fn part(src: &mut String, file: &str, text: &str) {
    src.push_str(&format!("#line 1 \"wsdsl-runtime/cuda/{file}\"\n"));
    src.push_str(text);
    src.push('\n');
}

/// The source for NVRTC, or (`host`) for the host C++ compiler with the emulation shims in
/// place of the PTX atomics; `pes`: for one GPU of a multi-GPU run (deque scheduler only).
fn assemble<P: Program>(config: &KernelConfig, host: bool, pes: bool) -> String {
    let mut src = String::with_capacity(64 * 1024);
    src.push_str(&format!(
        "// wsdsl megakernel for program `{}` (generated; do not edit)\n// {:?}\n\
         #define WSDSL_BLOCK_THREADS {}\n#define WSDSL_WORKER_THREADS {}\n#define WSDSL_JOIN_WORKER_THREADS {}\n#define WSDSL_VICTIM {}\n#define WSDSL_STEAL_HALF {}\n#define WSDSL_COOPERATIVE {}\n#define WSDSL_PROFILE {}\n#define WSDSL_MIN_BLOCKS {}\n#define WSDSL_PES {}\n",
        P::NAME,
        config,
        config.block_threads,
        config.worker_threads(),
        config.stash_threads(),
        config.victim_code(),
        (config.steal == Steal::Half) as u32,
        config.cooperative as u32,
        config.profile as u32,
        config.min_blocks.max(1),
        pes as u32,
    ));
    if pes && std::env::var("WSDSL_PE_SCOPE").is_ok_and(|v| v.trim() == "owner-gpu") {
        // The scope experiment of atomics.cuh (not the default: see there): the owner's side
        // of the deques and of the idle count. join.cuh names its scopes itself.
        src.push_str("#define WSDSL_PE_OWNER_GPU_SCOPE 1\n");
    }
    src.push_str(&experiment_defines());
    if let Some(kind) = config.broker_kind() {
        src.push_str(&format!("#define WSDSL_BROKER_KIND {kind}\n#define WS_SPAWN_SPILL 1\n"));
    }
    if host {
        part(&mut src, "host/ws_host_shim.h", HOST_SHIM);
        part(&mut src, "host/emulation.h", HOST_EMULATION);
    }
    part(&mut src, "rust_semantics.cuh", RUST_SEMANTICS);
    if !host {
        part(&mut src, "atomics.cuh", ATOMICS);
    }
    part(&mut src, "status.cuh", STATUS);
    part(&mut src, "stats.cuh", STATS);
    src.push_str("// ---- program types (generated from Rust) ----\n");
    src.push_str(P::CUDA_TYPES);
    src.push('\n');
    part(&mut src, "context.cuh", CONTEXT);
    part(&mut src, "join.cuh", JOIN);
    part(&mut src, "parallel.cuh", PARALLEL);
    src.push_str("// ---- program handlers (generated from Rust) ----\n");
    src.push_str(P::CUDA_HANDLERS);
    src.push('\n');
    match config.scheduler {
        Scheduler::Deque => {
            part(&mut src, "deque.cuh", DEQUE);
            part(&mut src, "termination.cuh", TERMINATION);
            part(&mut src, "launch.cuh", LAUNCH);
            part(&mut src, "pe.cuh", PE);
            part(&mut src, "victims.cuh", VICTIMS);
            part(&mut src, "megakernel.cuh", MEGAKERNEL);
        }
        Scheduler::Static => part(&mut src, "static_baseline.cuh", STATIC_BASELINE),
        Scheduler::Bq | Scheduler::Bwd | Scheduler::Bsq => {
            part(&mut src, "deque.cuh", DEQUE);
            part(&mut src, "termination.cuh", TERMINATION);
            part(&mut src, "launch.cuh", LAUNCH);
            part(&mut src, "broker_queue.cuh", BROKER_QUEUE);
            part(&mut src, "broker_megakernel.cuh", BROKER_MEGAKERNEL);
        }
    }
    src
}

/// The source of `P`'s kernel for the host emulation (`gpu::emulate`): the same templates
/// and handlers, plus an exported launcher `ws_host_launch(record, grid, block, os_threads)`
/// and `ws_host_status()`, the address of the device status record.
pub fn host_kernel_source<P: Program>(config: &KernelConfig) -> String {
    host_source::<P>(config, false)
}

/// [`host_kernel_source`] for one emulated GPU of a multi-GPU run (the launch record names
/// every emulated GPU's heap in host memory).
pub fn host_pe_kernel_source<P: Program>(config: &KernelConfig) -> String {
    host_source::<P>(config, true)
}

fn host_source<P: Program>(config: &KernelConfig, pes: bool) -> String {
    let mut src = assemble::<P>(config, true, pes);
    let record = match config.scheduler {
        Scheduler::Deque => "ws_launch",
        Scheduler::Static => "ws_static_launch",
        Scheduler::Bq | Scheduler::Bwd | Scheduler::Bsq => {
            src.push_str("extern \"C\" unsigned long long ws_host_broker_queue_bytes() { return wsdsl_broker_queue_bytes; }\n");
            "ws_broker_launch"
        }
    };
    src.push_str(&format!(
        "\n// ---- host emulation entry points ----\n\
         extern \"C\" void ws_host_launch(const void* record, unsigned grid, unsigned block, unsigned os_threads) {{\n\
         \x20   ws_emu_run(grid, block, os_threads, 65536, [record]() {{ {}((const {record}*)record); }});\n}}\n\
         extern \"C\" void* ws_host_status() {{ return (void*)&wsdsl_status; }}\n",
        config.entry_point()
    ));
    if P::JOIN.is_some() {
        src.push_str("extern \"C\" void* ws_host_join() { return (void*)&wsdsl_join; }\n");
    }
    src
}

/// `#define` lines for the words of `WSDSL_DEFINES` (module docs); words that are not
/// C identifiers (with an optional `=value` of letters, digits and `_`) are skipped.
fn experiment_defines() -> String {
    let words = std::env::var("WSDSL_DEFINES").unwrap_or_default();
    let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !s.starts_with(|c: char| c.is_ascii_digit());
    let value = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut out = String::new();
    for word in words.split([' ', ',']).filter(|w| !w.is_empty()) {
        let (name, val) = word.split_once('=').unwrap_or((word, "1"));
        if ident(name) && value(val) {
            out.push_str(&format!("#define {name} {val}\n"));
        } else {
            eprintln!("wsdsl: WSDSL_DEFINES: `{word}` is not NAME or NAME=VALUE (letters, digits, _); ignored");
        }
    }
    out
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

/// FNV-1a, 64 bits: a stable hash (unlike std's hasher) for cache keys. Collisions are
/// harmless because a cache entry also stores the full source and is checked against it.
pub fn stable_hash(parts: &[&str]) -> u64 {
    stable_hash_bytes(&parts.iter().map(|p| p.as_bytes()).collect::<Vec<_>>())
}

/// [`stable_hash`] of byte strings (the same value for a string's bytes).
pub fn stable_hash_bytes(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.iter().chain(std::iter::once(&0xff)) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}
