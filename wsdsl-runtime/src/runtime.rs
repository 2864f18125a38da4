//! The entry point: pick a backend, run a program, get typed results back.

use crate::cpu::{self, CpuPool};
use crate::error::Error;
use crate::gpu::run::call::{Dealing, EarlyStart, Processes};
use crate::gpu::{GpuDevice, GpuOptions};
use crate::contract::schedule::{KernelConfig, Schedule, Scheduler, Steal, Victim, Worker};
use crate::contract::Program;
use crate::progress::{Progress, ProgressOptions};
use crate::stats::{BackendKind, Stats};
use crate::settings::GpuCount;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Tasks per GPU the host aims to deal before a run (`Runtime::spread`). It stops at the first
/// level holding more than half of them (`gpu/run/spread.rs`), so a GPU starts with one to four
/// subtrees a worker (1,056 workers of UTS on an H100 or H200, 2,112 of N-Queens): UTS T1XL
/// deals 1,179 tasks to one GPU and about 4,600 to two, N-Queens 18 3,420 to one or two.
pub const DEFAULT_SPREAD: u32 = 2048;

/// Where a program runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// The GPU if one can be opened, else the CPU (the reason is kept in [`Output::note`]).
    Auto,
    /// The CPU work-stealing backend.
    Cpu,
    /// The GPU; an error if there is none.
    Gpu,
    /// The GPU's own scheduler code (the megakernel and its queues) compiled for the host
    /// with the C++ compiler and run on a small emulated grid (`gpu::emulate`): for checking
    /// a program against the GPU's code paths without a GPU. Slow: tens to hundreds of times
    /// slower than the CPU backend, since every emulated GPU thread is a fiber.
    Emulate,
}

impl Backend {
    /// Parses `auto`, `cpu`, `gpu` or `emulate`.
    pub fn parse(s: &str) -> Result<Backend, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => Ok(Backend::Auto),
            "cpu" => Ok(Backend::Cpu),
            "gpu" => Ok(Backend::Gpu),
            "emulate" => Ok(Backend::Emulate),
            other => Err(Error::InvalidConfig(format!("unknown backend `{other}`; use auto, cpu, gpu or emulate"))),
        }
    }
}

/// The result of a run of program `P` ([`Runtime::run`], [`Runtime::run_with`]): the
/// program's counters, the roots' values, the scheduler statistics, and who ran it. Its
/// buffers are not here: they are the caller's, and hold what the handlers wrote.
///
/// # Example
///
/// The N-Queens program of `wsdsl::example::nqueens`, run on the CPU backend:
///
/// ```
/// use wsdsl::example::nqueens;
/// use wsdsl::prelude::*;
///
/// let empty = nqueens::Board { row: 0, cols: 0, left: 0, right: 0 };
/// let out = Runtime::new(Backend::Cpu).run::<nqueens::Kernel>(nqueens::Params { n: 6 }, [empty])?;
/// assert_eq!(out.counters.solutions.get(), 4);
/// // Its tasks hand no value to their parents: one `()` per root.
/// assert_eq!(out.values, [()]);
/// assert!(matches!(out.backend, wsdsl::BackendKind::Cpu { .. }));
/// assert!(out.note.is_none());
/// println!("{} tasks in {:?} on {}", out.stats.tasks, out.stats.phases.run, out.backend);
/// # Ok::<(), wsdsl::Error>(())
/// ```
pub struct Output<P: Program> {
    /// The program's `#[counters]` struct (`()` for a program without one): every worker's
    /// counters merged as each field declares ([`Sum`](crate::Sum) adds, [`Max`](crate::Max)
    /// and [`Min`](crate::Min) keep the extreme). Read a field with `get()`.
    pub counters: P::Counters,
    /// The value each root task produced (`#[task(value = T)]`: its spawn handler's result,
    /// or its complete handler's when it spawned), in the order the roots were given.
    pub values: Vec<P::Value>,
    /// What the scheduler did and how long each phase took; its `Display` prints a summary.
    pub stats: Stats,
    /// Which backend ran the program (its `Display` names it, with the device or the
    /// thread count).
    pub backend: BackendKind,
    /// Why `Backend::Auto` chose the CPU, if it did.
    pub note: Option<String>,
}

impl<P: Program> std::fmt::Debug for Output<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output")
            .field("counters", &self.counters)
            .field("values", &self.values)
            .field("stats", &self.stats)
            .field("backend", &self.backend)
            .field("note", &self.note)
            .finish()
    }
}

/// Runs megakernel programs. Create one and reuse it: the GPU is opened once, compiled
/// kernels stay loaded, and the CPU backend's threads stay started between runs.
///
/// [`Runtime::new`] starts from the defaults on a [`Backend`]; [`Runtime::from_env`] reads the
/// `WSDSL_*` variables instead. The builder methods (`cpu_threads`, `watchdog`, `scheduler`,
/// ...) take the runtime and return it changed, so settings chain; a value a setting does not
/// accept is an [`Error::InvalidConfig`] at the next run ([`Runtime::check`]). Scheduler
/// choices made here override those of the program's `#[megakernel(...)]` attribute.
/// [`Runtime::run`] runs a program without buffers, [`Runtime::run_with`] one with them; both
/// return when no task is left.
///
/// # Example
///
/// The N-Queens program of `wsdsl::example::nqueens`, for n = 8, on two CPU threads:
///
/// ```
/// use std::time::Duration;
/// use wsdsl::example::nqueens;
/// use wsdsl::prelude::*;
///
/// let rt = Runtime::new(Backend::Cpu).cpu_threads(2).watchdog(Duration::from_secs(60));
/// let empty = nqueens::Board { row: 0, cols: 0, left: 0, right: 0 };
/// let out = rt.run::<nqueens::Kernel>(nqueens::Params { n: 8 }, [empty])?;
/// assert_eq!(out.counters.solutions.get(), 92);
/// assert!(out.stats.tasks > 92);
/// println!("{} solutions on {}\n{}", out.counters.solutions.get(), out.backend, out.stats);
///
/// // The same runtime runs again, here with a root per square of the first row.
/// let roots = (0..8).map(|c| nqueens::Board { row: 1, cols: 1 << c, left: (2 << c) & 0xff, right: (1 << c) >> 1 });
/// let out = rt.run::<nqueens::Kernel>(nqueens::Params { n: 8 }, roots)?;
/// assert_eq!(out.counters.solutions.get(), 92);
/// # Ok::<(), wsdsl::Error>(())
/// ```
pub struct Runtime {
    backend: Backend,
    cpu_threads: usize,
    /// Scheduler choices made on this runtime; they override the program's attribute.
    schedule: Schedule,
    watchdog: Duration,
    blocks_per_sm: Option<u32>,
    frames: Option<u32>,
    profile: bool,
    progress: ProgressOptions,
    ordinal: usize,
    /// The ordinal is a launched process's rank on its host, taken modulo the GPUs it sees.
    ordinal_wraps: bool,
    /// GPUs a run spans (one process each: `gpu::multi`); 1 by default.
    gpus: GpuCount,
    /// The CPU backend's bound on tasks held at once (`cpu/limits.rs`).
    cpu_task_limit: u64,
    /// Tasks per GPU the host deals before a run (`gpu/run/spread.rs`); `None`: the default,
    /// `DEFAULT_SPREAD`.
    spread: Option<u32>,
    /// Whether a run on several GPUs whose tree the host judges narrow goes to GPU 0 alone
    /// (`gpu/run/spread.rs`).
    alone_when_narrow: bool,
    device: OnceLock<Result<GpuDevice, String>>,
    /// This process's part in a multi-GPU job, joined at the first run on several GPUs.
    processes: Processes,
    /// The CPU backend's thread pool, started on first use and kept for later runs (a new
    /// one replaces it after a run whose handler would not stop parked some of its threads).
    cpu_pool: Mutex<Option<Arc<CpuPool>>>,
}

impl Runtime {
    /// A runtime for `backend` with default settings.
    pub fn new(backend: Backend) -> Runtime {
        let (ordinal, ordinal_wraps) = crate::gpu::run::call::process_gpu();
        Runtime {
            backend,
            cpu_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            schedule: Schedule::DEFAULT,
            watchdog: Duration::from_secs(300),
            blocks_per_sm: None,
            frames: None,
            profile: false,
            progress: ProgressOptions::default(),
            ordinal,
            ordinal_wraps,
            gpus: GpuCount::Some(1),
            cpu_task_limit: crate::cpu::DEFAULT_TASK_LIMIT,
            spread: None,
            alone_when_narrow: true,
            device: OnceLock::new(),
            processes: Processes::default(),
            cpu_pool: Mutex::new(None),
        }
    }

    /// A runtime configured from the environment: [`Runtime::new`]'s defaults, changed by
    /// each of these variables that is set:
    ///
    /// - `WSDSL_BACKEND`: `auto` (the default), `cpu`, `gpu` or `emulate` ([`Backend::parse`]);
    /// - `WSDSL_GPUS`: a number of GPUs, or `all` ([`Runtime::gpus`]);
    /// - `WSDSL_DEVICE`: the GPU to open, by ordinal;
    /// - `WSDSL_THREADS` ([`Runtime::cpu_threads`]), `WSDSL_CPU_TASK_LIMIT`
    ///   ([`Runtime::cpu_task_limit`]);
    /// - `WSDSL_WATCHDOG_SECS` ([`Runtime::watchdog`], in whole seconds);
    /// - `WSDSL_SCHEDULER`: `deque`, `static`, `bq`, `bwd` or `bsq` ([`Runtime::scheduler`]);
    ///   `WSDSL_VICTIM`: `random`, `round-robin`, `pws`, `hws` or `small-world`
    ///   ([`Runtime::victim`]);
    /// - `WSDSL_BLOCK_THREADS` ([`Runtime::block_threads`]), `WSDSL_BLOCKS_PER_SM`
    ///   ([`Runtime::blocks_per_sm`]), `WSDSL_MIN_BLOCKS` ([`Runtime::min_blocks_per_sm`]);
    /// - `WSDSL_DEQUE_CAPACITY` ([`Runtime::deque_capacity`]), `WSDSL_FRAMES`
    ///   ([`Runtime::frames`]), `WSDSL_BAND_LOOKAHEAD` ([`Runtime::band_lookahead`]);
    /// - `WSDSL_SPREAD` ([`Runtime::spread`]), `WSDSL_ALONE_WHEN_NARROW` (0:
    ///   [`Runtime::alone_when_narrow`]`(false)`);
    /// - `WSDSL_PROFILE` (1: [`Runtime::profile`]`(true)`), `WSDSL_PROGRESS` (0: no progress
    ///   line, [`Runtime::progress_line`]`(false)`).
    ///
    /// A value that is not one these accept is an [`Error::InvalidConfig`] naming the
    /// variable, the value and what it accepts.
    pub fn from_env() -> Result<Runtime, Error> {
        use crate::settings::{self as s, var};
        let mut rt = Runtime::new(var("WSDSL_BACKEND")?.map_or(Ok(Backend::Auto), |v| Backend::parse(&v))?);
        if let Some(t) = s::THREADS.from_env()? {
            rt = rt.cpu_threads(t as usize);
        }
        if let Some(c) = s::DEQUE_CAPACITY.from_env()? {
            rt = rt.deque_capacity(c as u32);
        }
        if let Some(f) = s::FRAMES.from_env()? {
            rt = rt.frames(f as u32);
        }
        if let Some(secs) = s::WATCHDOG_SECS.from_env()? {
            rt = rt.watchdog(Duration::from_secs(secs));
        }
        if let Some(limit) = s::CPU_TASK_LIMIT.from_env()? {
            rt = rt.cpu_task_limit(limit);
        }
        if let Some(n) = s::SPREAD.from_env()? {
            rt = rt.spread(n as u32);
        }
        if let Some(a) = s::ALONE_WHEN_NARROW.from_env()? {
            rt = rt.alone_when_narrow(a != 0);
        }
        if let Some(g) = s::gpus_from_env()? {
            // `all` is counted at the first run on the GPU: a CPU run never asks the driver.
            rt.gpus = g;
        }
        if let Some(d) = s::DEVICE.from_env()? {
            rt.ordinal = d as usize;
        }
        if let Some(p) = s::PROFILE.from_env()? {
            rt = rt.profile(p != 0);
        }
        if let Some(b) = s::MIN_BLOCKS.from_env()? {
            rt = rt.min_blocks_per_sm(b as u32);
        }
        if let Some(b) = s::BAND_LOOKAHEAD.from_env()? {
            rt = rt.band_lookahead(b as u32);
        }
        if let Some(p) = s::PROGRESS.from_env()? {
            rt = rt.progress_line(p != 0);
        }
        if let Some(t) = s::BLOCK_THREADS.from_env()? {
            rt = rt.block_threads(t as u32);
        }
        if let Some(b) = s::BLOCKS_PER_SM.from_env()? {
            rt = rt.blocks_per_sm(b as u32);
        }
        if let Some(v) = var("WSDSL_VICTIM")? {
            rt = rt.victim(Victim::parse(&v).map_err(|e| Error::InvalidConfig(format!("WSDSL_VICTIM: {e}")))?);
        }
        if let Some(s) = var("WSDSL_SCHEDULER")? {
            rt = rt.scheduler(Scheduler::parse(&s).map_err(|e| Error::InvalidConfig(format!("WSDSL_SCHEDULER: {e}")))?);
        }
        Ok(rt)
    }

    /// Checks every value set on this runtime against what it accepts (`settings.rs`); runs
    /// do this before anything else, so a bad value is refused up front, never clamped.
    pub fn check(&self) -> Result<(), Error> {
        use crate::settings as s;
        s::THREADS.check(self.cpu_threads as u64)?;
        s::CPU_TASK_LIMIT.check(self.cpu_task_limit)?;
        if self.watchdog.is_zero() {
            return Err(Error::InvalidConfig(
                "Runtime::watchdog(0s): the watchdog limit must be longer than zero (WSDSL_WATCHDOG_SECS sets the same, in whole seconds)".into(),
            ));
        }
        if let GpuCount::Some(n) = self.gpus {
            s::GPUS.check(n.into())?;
        }
        let checks = [
            (&s::DEQUE_CAPACITY, self.schedule.capacity),
            (&s::FRAMES, self.frames),
            (&s::MIN_BLOCKS, self.schedule.min_blocks),
            (&s::BAND_LOOKAHEAD, self.schedule.lookahead),
            (&s::BLOCK_THREADS, self.schedule.block_threads),
            (&s::BLOCKS_PER_SM, self.blocks_per_sm),
            (&s::SPREAD, self.spread),
        ];
        for (setting, value) in checks {
            if let Some(v) = value {
                setting.check(v.into())?;
            }
        }
        Ok(())
    }

    /// Runs on `n` GPUs of this host (deque scheduler; programs without writable buffers;
    /// fork-join programs qualify, their continuations running on the GPU that holds their
    /// frame). At the first such run this process starts itself again once per other GPU,
    /// with the same arguments: the program must make the same runs in
    /// the same order in every process (each then returns the same merged `Output`). See
    /// `docs/multi-gpu.md`.
    pub fn gpus(mut self, n: u32) -> Self {
        self.gpus = GpuCount::Some(n);
        self
    }

    /// The same settings on another backend.
    pub fn on(mut self, backend: Backend) -> Self {
        self.backend = backend;
        self
    }

    /// Number of CPU backend threads (default: all cores).
    pub fn cpu_threads(mut self, n: usize) -> Self {
        self.cpu_threads = n;
        self
    }

    /// The CPU backend's bound on tasks held at once: spawned and not yet run, or waiting for
    /// their children (default 16 M, [`DEFAULT_TASK_LIMIT`](crate::cpu::DEFAULT_TASK_LIMIT)).
    /// A run that passes it stops with [`Error::QueueOverflow`], as a GPU run whose deques
    /// fill does, instead of taking every byte of memory: an endless task tree, or a handler
    /// spawning in a loop that never ends.
    pub fn cpu_task_limit(mut self, tasks: u64) -> Self {
        self.cpu_task_limit = tasks;
        self
    }

    /// Before a run on the GPU, the host runs the task tree's first levels, breadth first,
    /// toward `tasks_per_gpu` tasks for every GPU (it stops at the first level holding more
    /// than half of them, or that is no wider than the one before), and deals those instead
    /// of the roots, so that every GPU starts with subtrees of its own (`gpu/run/spread.rs`).
    /// Programs of the deque scheduler, without an order or buffers, whose tasks hand nothing
    /// back (no complete handlers or values) and record no jobs; others run from their roots.
    /// A handler still running on the host at the watchdog limit is the run's
    /// `Error::Watchdog`. Default: [`DEFAULT_SPREAD`]; 0 deals the roots as they are. The
    /// host's tasks and counters are the run's (`Stats::spread`).
    pub fn spread(mut self, tasks_per_gpu: u32) -> Self {
        self.spread = Some(tasks_per_gpu);
        self
    }

    /// Whether a run on several GPUs may go to GPU 0 alone when, spreading, the host judges
    /// its tree narrow: its first levels stop widening at a few hundred to a few thousand
    /// tasks, as UTS T3L's do, where a second GPU cannot shorten the run's critical path and
    /// its kernel only slows it (`gpu/run/spread.rs`; `Stats::alone` says when it happened).
    /// Default `true`; `false` keeps every run on all its GPUs (a tree narrow at the top and
    /// wide further down, which the judgement would put on one GPU).
    pub fn alone_when_narrow(mut self, alone: bool) -> Self {
        self.alone_when_narrow = alone;
        self
    }

    /// How the host deals a run's first levels (`spread`, `alone_when_narrow`).
    fn dealing(&self) -> Dealing {
        Dealing { per_gpu: self.spread.unwrap_or(DEFAULT_SPREAD), alone_when_narrow: self.alone_when_narrow, watchdog: self.watchdog }
    }

    /// Slots per GPU worker deque (default: up to 32768, from free device memory).
    pub fn deque_capacity(mut self, slots: u32) -> Self {
        self.schedule.capacity = Some(slots);
        self
    }

    /// Join frames on the GPU, one per task waiting for its children (programs with complete
    /// handlers; default: up to 16 M, from free device memory).
    pub fn frames(mut self, frames: u32) -> Self {
        self.frames = Some(frames);
        self
    }

    /// Time the phases of every GPU worker's loop on the device and report where the time
    /// went in `Output::stats.profile` (the deque and broker schedulers; a separately compiled
    /// kernel that runs a few percent slower).
    pub fn profile(mut self, on: bool) -> Self {
        self.profile = on;
        self
    }

    /// Makes the GPU compiler fit at least `blocks` blocks per SM by its register use
    /// (`__launch_bounds__`; 0, the default, lets it choose). More resident workers hide
    /// more memory latency; fewer registers may spill.
    pub fn min_blocks_per_sm(mut self, blocks: u32) -> Self {
        self.schedule.min_blocks = (blocks > 0).then_some(blocks);
        self
    }

    /// How many priority bands above the lowest one still holding or running tasks the GPU's
    /// workers may take from, for programs with `order = priority` (overrides the program's
    /// `lookahead`; default [`crate::contract::schedule::DEFAULT_LOOKAHEAD`]). More keeps workers busy
    /// while a thin band finishes, and runs tasks whose priority a lower band may still lower.
    pub fn band_lookahead(mut self, bands: u32) -> Self {
        self.schedule.lookahead = Some(bands);
        self
    }

    /// Whether runs longer than a second show a progress line (tasks done, tasks/s, elapsed)
    /// on standard error when it is a terminal (default: yes; never when it is not).
    pub fn progress_line(mut self, on: bool) -> Self {
        self.progress.line = on;
        self
    }

    /// Calls `callback` about every `every` while a run is in progress, with the tasks run so
    /// far (a lower bound, a few milliseconds behind) and the time since the start. On the
    /// GPU the workers then publish their counts to host-mapped memory every few ms.
    pub fn on_progress(mut self, every: Duration, callback: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.progress.callback = Some((every, Arc::new(callback)));
        self
    }

    /// The blocks per SM the GPU compiler is asked to fit (0: its choice).
    pub fn min_blocks(&self) -> u32 {
        self.schedule.min_blocks.unwrap_or(0)
    }

    /// Longest a run may take before it is stopped and reported as `Error::Watchdog` (default
    /// 300 s), on every backend.
    pub fn watchdog(mut self, limit: Duration) -> Self {
        self.watchdog = limit;
        self
    }

    /// Threads per GPU block, a multiple of 32 (default 256).
    pub fn block_threads(mut self, threads: u32) -> Self {
        self.schedule.block_threads = Some(threads);
        self
    }

    /// Which GPU scheduler runs the tasks (default: the work-stealing deques).
    pub fn scheduler(mut self, scheduler: Scheduler) -> Self {
        self.schedule.scheduler = Some(scheduler);
        self
    }

    /// The whole GPU scheduler configuration at once (the deque capacity, and a register
    /// limit or lookahead the configuration leaves open, stay as they were).
    pub fn kernel_config(mut self, config: KernelConfig) -> Self {
        let chosen = Schedule::from(config);
        // The capacity, and a register limit or lookahead the config leaves open, stay.
        self.schedule = Schedule {
            capacity: self.schedule.capacity,
            min_blocks: chosen.min_blocks.or(self.schedule.min_blocks),
            lookahead: chosen.lookahead.or(self.schedule.lookahead),
            ..chosen
        };
        self
    }

    /// What a GPU worker is: a thread, a warp (default) or a block.
    pub fn worker(mut self, worker: Worker) -> Self {
        self.schedule.worker = Some(worker);
        self
    }

    /// Whom idle GPU workers rob (default: random).
    pub fn victim(mut self, victim: Victim) -> Self {
        self.schedule.victim = Some(victim);
        self
    }

    /// Whether every thread of a GPU worker runs the same task together (handlers then use
    /// `ctx.thread()`, `ctx.threads()` and `ctx.sync()`); deque scheduler only.
    pub fn cooperative(mut self, cooperative: bool) -> Self {
        self.schedule.cooperative = Some(cooperative);
        self
    }

    /// Whether a GPU thief takes one task or half of what the victim offers (default: half).
    pub fn steal(mut self, steal: Steal) -> Self {
        self.schedule.steal = Some(steal);
        self
    }

    /// The scheduler choices made on this runtime (they override a program's attribute).
    pub fn schedule(&self) -> Schedule {
        self.schedule
    }

    /// The GPU scheduler configuration a run of `P` uses: this runtime's choices, then the
    /// program's `#[megakernel(...)]` attribute, then the defaults.
    pub fn config_for<P: Program>(&self) -> KernelConfig {
        self.schedule.or(P::SCHEDULE).resolve()
    }

    /// Caps the blocks per SM (default: as many as are resident at once).
    pub fn blocks_per_sm(mut self, blocks: u32) -> Self {
        self.blocks_per_sm = Some(blocks);
        self
    }

    /// The backend this runtime runs programs on ([`Runtime::on`] picks another).
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The CPU backend's pool: the one kept from earlier runs, or a new one if there is none
    /// or a handler that would not stop parked some of its threads.
    fn cpu_pool(&self) -> Result<Arc<CpuPool>, Error> {
        let mut kept = self.cpu_pool.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(pool) = kept.as_ref().filter(|p| !p.lost_threads()) {
            return Ok(pool.clone());
        }
        let pool = Arc::new(CpuPool::new(self.cpu_threads)?);
        *kept = Some(pool.clone());
        Ok(pool)
    }

    /// The GPU, opened on first use.
    pub fn gpu(&self) -> Result<&GpuDevice, Error> {
        self.device
            .get_or_init(|| {
                let ordinal = match self.ordinal_wraps {
                    true => crate::gpu::device_count().map_or(self.ordinal, |n| self.ordinal % n.max(1) as usize),
                    false => self.ordinal,
                };
                GpuDevice::open(ordinal).map_err(|e| match e {
                    Error::NoGpu { reason } => reason,
                    other => other.to_string(),
                })
            })
            .as_ref()
            .map_err(|reason| Error::NoGpu { reason: reason.clone() })
    }

    /// Runs program `P` (a `#[megakernel]` module's `Kernel`) from `roots` with the launch
    /// parameters `params`: the roots and every task they spawn, returning when no task is
    /// left with the counters, the roots' values and the statistics. A root is any of the
    /// module's task structs (or its `Task`). Programs with `#[buffers]` run with
    /// [`Runtime::run_with`].
    ///
    /// An [`Error`] says why a run failed and what to do: a handler's panic
    /// ([`Error::TaskPanicked`], [`Error::DeviceFault`]), the watchdog, a full queue, a
    /// setting the runtime refuses, no GPU for [`Backend::Gpu`], ...
    pub fn run<P: Program<Buffers = ()>>(
        &self,
        params: P::Params,
        roots: impl IntoIterator<Item = impl Into<P::Task>>,
    ) -> Result<Output<P>, Error> {
        self.run_with::<P>(params, &(), roots)
    }

    /// [`Runtime::run`] for a program with buffers: `buffers` is its `#[buffers]` struct
    /// (`&()` for a program without one). The buffers hold the handlers' results when this
    /// returns `Ok`; after an error their contents are unspecified.
    pub fn run_with<P: Program>(
        &self,
        params: P::Params,
        buffers: &P::Buffers,
        roots: impl IntoIterator<Item = impl Into<P::Task>>,
    ) -> Result<Output<P>, Error> {
        let entered = Instant::now();
        let mut out = self.run_call::<P>(params, buffers, roots)?;
        out.stats.phases.call = entered.elapsed();
        // Built before the call, so measured by the constructors; taken after a run that
        // returned `Ok`, so that a failed call leaves them to the next.
        out.stats.phases.inputs_built = crate::contract::buffer::BufferSet::buffers(buffers).iter().map(|b| b.take_build_time()).sum();
        Ok(out)
    }

    /// `run_with` without the measure of the whole call.
    fn run_call<P: Program>(
        &self,
        params: P::Params,
        buffers: &P::Buffers,
        roots: impl IntoIterator<Item = impl Into<P::Task>>,
    ) -> Result<Output<P>, Error> {
        let since_process_start = crate::stats::process_age();
        self.check()?;
        let opening = Instant::now();
        let was_open = self.device.get().is_some();
        let roots: Vec<P::Task> = roots.into_iter().map(Into::into).collect();
        if self.backend == Backend::Emulate {
            return self.run_emulated::<P>(&params, buffers, &roots, since_process_start);
        }
        // A job on several GPUs: their processes create their contexts while this one does
        // (not for a configuration the GPU path below refuses). Held here, so that every way
        // out of this call that does not make the job (an error, the CPU fallback, a job made
        // meanwhile by another thread) ends them.
        let schedule = self.schedule.or(P::SCHEDULE);
        let config = schedule.resolve();
        let early = match (was_open, self.gpus, self.backend) {
            (false, GpuCount::Some(n), Backend::Gpu | Backend::Auto) if config.validate_for::<P>().is_ok() => EarlyStart::new(self.ordinal, n),
            _ => EarlyStart::none(),
        };
        let (use_gpu, note) = match self.backend {
            Backend::Emulate => unreachable!("run above"),
            Backend::Cpu => (false, None),
            Backend::Gpu => (true, None),
            Backend::Auto => match self.gpu() {
                Ok(_) => (true, None),
                Err(Error::NoGpu { reason }) => (false, Some(reason)),
                Err(e) => (false, Some(e.to_string())),
            },
        };
        if use_gpu {
            let opts = GpuOptions {
                kernel: KernelConfig { profile: self.profile, ..config },
                capacity: schedule.capacity,
                watchdog: self.watchdog,
                blocks_per_sm: self.blocks_per_sm,
                frames: self.frames,
                progress: self.progress.clone(),
            };
            opts.kernel.validate_for::<P>().map_err(Error::InvalidConfig)?;
            let dev = self.gpu()?;
            let context = if was_open { Duration::ZERO } else { opening.elapsed() };
            let (counters, values, mut stats) =
                crate::gpu::run::call::on_gpus::<P>(dev, self.ordinal, self.gpus, &self.processes, early, &params, buffers, &roots, &opts, &self.dealing())?;
            stats.phases.since_process_start = since_process_start;
            stats.phases.context = context;
            let backend = BackendKind::Gpu { device: dev.name.clone(), arch: dev.arch.clone() };
            Ok(Output { counters, values, stats, backend, note })
        } else {
            // Falling back to the CPU: the processes started for the other GPUs end here.
            drop(early);
            let pool = self.cpu_pool()?;
            let limits = cpu::Limits { watchdog: self.watchdog, tasks: self.cpu_task_limit };
            let (counters, values, mut stats) = cpu::run::<P>(&params, buffers, &roots, &pool, &self.progress, &limits)?;
            stats.phases.since_process_start = since_process_start;
            Ok(Output { counters, values, stats, backend: BackendKind::Cpu { threads: self.cpu_threads }, note })
        }
    }
}

impl Runtime {
    /// `Backend::Emulate`: the program's kernel for its schedule, built for the host, on the
    /// default emulated grid (4 blocks of 64 threads on 2 OS threads), under this runtime's
    /// watchdog; several GPUs (`WSDSL_GPUS`) as as many emulated GPUs.
    fn run_emulated<P: Program>(
        &self,
        params: &P::Params,
        buffers: &P::Buffers,
        roots: &[P::Task],
        since_process_start: Option<Duration>,
    ) -> Result<Output<P>, Error> {
        use crate::gpu::emulate::Emulation;
        let schedule = self.schedule.or(P::SCHEDULE);
        let config = KernelConfig { profile: self.profile, ..schedule.resolve() };
        let mut emu = Emulation { watchdog: self.watchdog, ..Emulation::default() };
        if let Some(c) = schedule.capacity {
            emu.capacity = c;
        }
        if let Some(f) = self.frames {
            emu.frames = f;
        }
        let gpus = match self.gpus {
            GpuCount::Some(n) => n,
            GpuCount::All => 1,
        };
        let (counters, values, mut stats) = crate::gpu::run::call::emulated::<P>(params, buffers, roots, &config, &emu, gpus, &self.dealing())?;
        stats.phases.since_process_start = since_process_start;
        let backend = BackendKind::Emulated { gpus, blocks: emu.grid, block_threads: emu.block_threads };
        Ok(Output { counters, values, stats, backend, note: None })
    }
}
