//! What every run reports besides the user's counters.

use std::fmt;
use std::time::Duration;

/// Which backend ran the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendKind {
    /// The CPU work-stealing backend.
    Cpu {
        /// Its worker threads.
        threads: usize,
    },
    /// A GPU (in a run on several, the one this process drives).
    Gpu {
        /// The device's name, as the driver gives it.
        device: String,
        /// Its architecture, e.g. `sm_90`: what the kernel was compiled for.
        arch: String,
    },
    /// The GPU's scheduler code compiled for the host (`Backend::Emulate`).
    Emulated {
        /// Emulated GPUs.
        gpus: u32,
        /// Blocks of each.
        blocks: u32,
        /// Threads per block.
        block_threads: u32,
    },
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackendKind::Cpu { threads } => write!(f, "CPU ({threads} thread{}, work stealing)", if *threads == 1 { "" } else { "s" }),
            BackendKind::Gpu { device, arch } => write!(f, "GPU {device} ({arch}, persistent megakernel)"),
            BackendKind::Emulated { gpus, blocks, block_threads } => {
                let on = if *gpus > 1 { format!("{gpus} emulated GPUs of") } else { "an emulated GPU of".into() };
                write!(f, "the GPU megakernel on the host ({on} {blocks} blocks x {block_threads} threads)")
            }
        }
    }
}

/// Wall-clock time spent in each phase of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Phases {
    /// How long the process had been running when the run call began (Linux, to 10 ms;
    /// `None` where the system does not say): what came before the first run, such as
    /// reading inputs, is visible beside the phases below.
    pub since_process_start: Option<Duration>,
    /// Opening the GPU (driver and context) during this call; zero once the runtime has it.
    pub context: Duration,
    /// Kernel compilation (zero on the CPU backend).
    pub compile: Duration,
    /// Whether the compiled kernel came from the cache (memory or disk).
    pub cache_hit: bool,
    /// Allocation and copying inputs to the device. Building the inputs, which the program
    /// does before the call, is [`inputs_built`](Phases::inputs_built).
    pub launch: Duration,
    /// The run itself (CUDA events on the GPU).
    pub run: Duration,
    /// Copying results back.
    pub copy_back: Duration,
    /// The whole run call, from entry to return: the phases above and the runtime's own
    /// work around them (what the program does before and after the call is not in it).
    pub call: Duration,
    /// What the launch and copy-back phases moved between host and GPU (zero on the CPU
    /// backend and the emulated GPUs).
    pub transfers: Transfers,
    /// Building the buffers this call was handed, before it: the time their constructors
    /// took (`Buffer::from_fn`, `ReadOnly::from_vec`, ...), which each measures of itself, so
    /// that the input side of a run is seen whole beside [`launch`](Phases::launch). Each
    /// buffer is counted by the first run call that returns `Ok` with it (a read-only array's
    /// clones together, as one), and is zero in every later one; not part of
    /// [`call`](Phases::call), which begins after it. What the program computed before a
    /// constructor (a vector handed to `from_vec`) is not in it.
    ///
    /// ```
    /// use wsdsl::prelude::*;
    /// use std::time::Duration;
    ///
    /// #[megakernel]
    /// pub mod sum {
    ///     use wsdsl::prelude::*;
    ///
    ///     #[buffers]  pub struct Input { pub values: ReadOnly<u64> }
    ///     #[counters] pub struct Counters { pub total: Sum<u64> }
    ///     #[task]     pub struct Item { pub i: u32 }
    ///
    ///     #[spawn]
    ///     fn add(t: &Item, ctx: &mut Ctx) {
    ///         ctx.counters.total.add(ctx.buffers.values.get(t.i as usize));
    ///     }
    /// }
    ///
    /// fn main() -> Result<(), wsdsl::Error> {
    ///     let input = sum::Input { values: ReadOnly::from_fn(1 << 20, |i| i as u64 % 3)? };
    ///     let rt = Runtime::new(Backend::Cpu);
    ///     let first = rt.run_with::<sum::Kernel>((), &input, (0..8).map(|i| sum::Item { i }))?;
    ///     assert_eq!(first.counters.total.get(), 0 + 1 + 2 + 0 + 1 + 2 + 0 + 1);
    ///     assert!(first.stats.phases.inputs_built > Duration::ZERO, "8 MB written: {}", first.stats);
    ///     let again = rt.run_with::<sum::Kernel>((), &input, [sum::Item { i: 5 }])?;
    ///     assert_eq!(again.stats.phases.inputs_built, Duration::ZERO, "counted by the first run");
    ///     Ok(())
    /// }
    /// ```
    pub inputs_built: Duration,
}

/// Bytes a GPU run moved: the sizes behind its launch and copy-back phases.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Transfers {
    /// Copied to the device: parameters, roots, buffers (read-only arrays the first time).
    pub uploaded: u64,
    /// Bytes of buffer pieces set on the device instead of copied: zeros, or one value
    /// repeated (`DeviceBuffer::repeated_word`).
    pub cleared: u64,
    /// Copied back: counters, buffers, statistics, the roots' values.
    pub downloaded: u64,
}

/// Scheduler statistics of one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Tasks executed (spawn handlers run), over all workers.
    pub tasks: u64,
    /// Complete handlers run (each run after a task's children are done; on the GPU a
    /// continuation batch or record of its own).
    pub completions: u64,
    /// Steal attempts (CAS tries on a victim that looked non-empty; on the CPU backend, whose
    /// thieves are rayon's, the steals that took a task).
    pub steal_attempts: u64,
    /// Steals that took work: at most `steal_attempts`. On the GPU one may take several tasks
    /// (half of what the victim offers, `Steal::Half`).
    pub steals: u64,
    /// Of those, tasks taken from another GPU (runs on several GPUs; zero otherwise).
    pub remote_steals: u64,
    /// Continuations sent to the GPU holding their frame because their last child finished
    /// on another GPU (fork-join runs on several GPUs; zero otherwise).
    pub sent_home: u64,
    /// Tasks run on each GPU, in GPU order (runs on several GPUs; empty otherwise).
    pub per_gpu_tasks: Vec<u64>,
    /// Each GPU's kernel time, in GPU order (runs on several GPUs; empty otherwise); the
    /// run's `phases.run` is the longest of them.
    pub per_gpu_run: Vec<Duration>,
    /// Each GPU's profile, in GPU order (profiled runs on several GPUs; empty otherwise): where
    /// one GPU's workers lose time that another's do not (a GPU short of work searches more).
    pub per_gpu_profile: Vec<Profile>,
    /// Task records run by each worker (a warp on the GPU, a thread on the CPU), for load
    /// balance; on the GPU they include the continuations that ran complete handlers.
    pub per_worker_tasks: Vec<u64>,
    /// Steals that took work, by each worker (same order).
    pub per_worker_steals: Vec<u64>,
    /// Most tasks each worker held at once: its deque's peak (GPU), the tasks waiting for
    /// their children on its stack (CPU).
    pub per_worker_peak: Vec<u64>,
    /// Largest number of slots any worker's queue used.
    pub peak_queue: u64,
    /// Capacity of each worker's queue (0 = unbounded, CPU).
    pub queue_capacity: u64,
    /// Kernel launches, one per generation (static scheduler only; 0 otherwise).
    pub generations: u64,
    /// Join frames (tasks waiting for their children) in use at once, at most. On the GPU
    /// this is the pool's high-water mark, an upper bound (threads keep a few spare frames).
    pub peak_frames: u64,
    /// Wall-clock time of each phase of the run, and the bytes moved to and from the GPU.
    pub phases: Phases,
    /// Ordered runs (`order = priority`): how the bands were visited.
    pub bands: Option<BandStats>,
    /// The first levels the host ran to deal every GPU subtrees of its own (GPU runs,
    /// `gpu/run/spread.rs`); `None` when it kept none, or when the processes of a job across hosts
    /// ran different levels and dealt the roots as given. Their tasks are in `tasks`, not in
    /// `per_gpu_tasks`.
    pub spread: Option<SpreadStats>,
    /// A run on several GPUs that GPU 0 ran alone, with the one-GPU kernel: spreading, the
    /// host judged its tree narrow (`Runtime::alone_when_narrow`, `gpu/run/spread.rs`).
    pub alone: bool,
    /// Where the workers' time went, when the run was profiled (GPU deque scheduler with
    /// `Runtime::profile`); `None` otherwise.
    pub profile: Option<Profile>,
}

/// What the host ran before a GPU run, to deal each GPU subtrees of its own.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpreadStats {
    /// Tasks the host ran (spawn handlers), level by level from the roots.
    pub tasks: u64,
    /// Levels it ran.
    pub levels: u32,
    /// Tasks of the next level, dealt to the GPUs as their roots.
    pub dealt: u64,
    /// The host's time (before the run's phases; in `call`), with its look past the levels
    /// kept, on several GPUs, to judge whether the tree is narrow.
    pub time: Duration,
}

/// Profile words per GPU worker (`WS_PROF_COUNT` in `cuda/core/stats.cuh`, same order).
pub(crate) use wsdsl_abi::stats::PROFILE_WORDS;

/// Where the GPU workers' time went, in SM clock cycles summed over all workers
/// (`cuda/core/stats.cuh`). `own + search + idle + exec + publish` is about `total`; `join` and
/// `frames` are summed over lanes and are parts of `exec`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Profile {
    /// Every worker's cycles from start to exit.
    pub total: u64,
    /// Taking tasks from the worker's own deque, or on the broker queues the dequeue that
    /// found work.
    pub own: u64,
    /// Looking for work elsewhere (on the broker queues: polling an empty queue), until some
    /// was found.
    pub search: u64,
    /// Looking for work at the end of the run, until it ended.
    pub idle: u64,
    /// Running batches, barrier to barrier (the slowest lane sets a batch's length).
    pub exec: u64,
    /// Making a batch's children visible.
    pub publish: u64,
    /// Lanes' cycles in join bookkeeping and complete handlers.
    pub join: u64,
    /// Lanes' cycles in the frame pool's slow paths (refills and returns of batches).
    pub frames: u64,
    /// Batches run.
    pub batches: u64,
    /// Tasks run by those batches (lanes used).
    pub lanes: u64,
    /// Leaders' cycles in steals that took something (part of `search`).
    pub rob: u64,
    /// Steals that took something.
    pub robs: u64,
    /// Nanoseconds tasks spawned by their own worker waited from spawn to the start of their
    /// batch (kernels built with the `WS_AGE_TRACE` variant only; zero otherwise).
    pub wait_own: u64,
    /// Tasks counted in `wait_own`.
    pub waits_own: u64,
    /// The same for stolen tasks, from their spawn on the victim to their start on the thief.
    pub wait_stolen: u64,
    /// Tasks counted in `wait_stolen`.
    pub waits_stolen: u64,
}

impl Profile {
    /// The words [`Profile::add_worker`] adds, in the same order.
    pub(crate) fn words(&self) -> [u64; PROFILE_WORDS] {
        [
            self.total,
            self.own,
            self.search,
            self.idle,
            self.exec,
            self.publish,
            self.join,
            self.frames,
            self.batches,
            self.lanes,
            self.rob,
            self.robs,
            self.wait_own,
            self.waits_own,
            self.wait_stolen,
            self.waits_stolen,
        ]
    }

    pub(crate) fn add_worker(&mut self, w: &[u64]) {
        let fields = [
            &mut self.total,
            &mut self.own,
            &mut self.search,
            &mut self.idle,
            &mut self.exec,
            &mut self.publish,
            &mut self.join,
            &mut self.frames,
            &mut self.batches,
            &mut self.lanes,
            &mut self.rob,
            &mut self.robs,
            &mut self.wait_own,
            &mut self.waits_own,
            &mut self.wait_stolen,
            &mut self.waits_stolen,
        ];
        for (field, word) in fields.into_iter().zip(w) {
            *field += word;
        }
    }

    /// A share of all workers' cycles, in percent.
    pub fn percent(&self, cycles: u64) -> f64 {
        if self.total == 0 { 0.0 } else { 100.0 * cycles as f64 / self.total as f64 }
    }

    /// `count` per batch run (0 without batches).
    pub fn per_batch(&self, count: u64) -> f64 {
        if self.batches == 0 { 0.0 } else { count as f64 / self.batches as f64 }
    }

    /// Average tasks per batch.
    pub fn tasks_per_batch(&self) -> f64 {
        self.per_batch(self.lanes)
    }

    /// Average cycles a batch took from its first barrier to its last.
    pub fn cycles_per_batch(&self) -> f64 {
        self.per_batch(self.exec)
    }

    /// Average microseconds from spawn to start, for tasks run by their own worker and for
    /// stolen ones (`WS_AGE_TRACE` kernels), with how many tasks each average covers.
    pub fn waits_us(&self) -> Option<[(f64, u64); 2]> {
        let avg = |ns: u64, n: u64| (if n == 0 { 0.0 } else { ns as f64 / n as f64 / 1000.0 }, n);
        (self.waits_own + self.waits_stolen > 0).then(|| [avg(self.wait_own, self.waits_own), avg(self.wait_stolen, self.waits_stolen)])
    }

    /// The figures a profile is read by, in this order: the shares (%) of worker time in own
    /// deque, search, idle, batches and publish; tasks per batch; cycles per batch; the
    /// lanes' cycles per batch in joins and in the frame pool.
    pub fn summary(&self) -> [f64; 9] {
        [
            self.percent(self.own),
            self.percent(self.search),
            self.percent(self.idle),
            self.percent(self.exec),
            self.percent(self.publish),
            self.tasks_per_batch(),
            self.cycles_per_batch(),
            self.per_batch(self.join),
            self.per_batch(self.frames),
        ]
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "profile     ")?;
        self.write_shares(f)
    }
}

impl Profile {
    /// The profile line after its label (`Display`, and each GPU's line in `Stats`).
    fn write_shares(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [own, search, idle, batches, publish, tasks, cycles, join, frames] = self.summary();
        write!(
            f,
            "own queue {own:.1}%, search {search:.1}%, idle {idle:.1}%, batches {batches:.1}%, publish {publish:.1}% of worker time; \
             {tasks:.1} tasks/batch, {cycles:.0} cycles/batch; lanes in joins {join:.0} and frame pool {frames:.0} cycles/batch"
        )?;
        if self.robs > 0 {
            write!(f, "; {} steals that took work, {:.0} cycles each", self.robs, self.rob as f64 / self.robs as f64)?;
        }
        if let Some([(own, n_own), (stolen, n_stolen)]) = self.waits_us() {
            write!(f, "; spawn to start {own:.2} us ({n_own} own tasks), {stolen:.2} us ({n_stolen} stolen)")?;
        }
        Ok(())
    }
}

impl Stats {
    /// Workers that ran the program (GPU warps, blocks or threads, as the scheduler's
    /// [`Worker`](crate::Worker) says; CPU threads): the length of the per-worker lists.
    pub fn workers(&self) -> usize {
        self.per_worker_tasks.len()
    }

    /// Tasks per second over the run phase.
    pub fn tasks_per_second(&self) -> f64 {
        let s = self.phases.run.as_secs_f64();
        if s > 0.0 { self.tasks as f64 / s } else { 0.0 }
    }

    /// Per-worker task counts as CSV (`worker,tasks`), for plotting load balance.
    pub fn per_worker_csv(&self) -> String {
        let mut out = String::from("worker,tasks\n");
        for (w, t) in self.per_worker_tasks.iter().enumerate() {
            out.push_str(&format!("{w},{t}\n"));
        }
        out
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let busy = self.per_worker_tasks.iter().filter(|&&t| t > 0).count();
        let max = self.per_worker_tasks.iter().copied().max().unwrap_or(0);
        let p = &self.phases;
        writeln!(f, "tasks       {} ({:.1} M tasks/s)", self.tasks, self.tasks_per_second() / 1e6)?;
        if self.completions > 0 {
            writeln!(f, "completes   {} complete handlers run", self.completions)?;
        }
        writeln!(f, "steals      {} of {} attempts took work", self.steals, self.steal_attempts)?;
        if !self.per_gpu_tasks.is_empty() {
            let shares: Vec<String> = self.per_gpu_tasks.iter().map(|t| t.to_string()).collect();
            let home = if self.sent_home > 0 { format!("; {} continuations sent home", self.sent_home) } else { String::new() };
            let kernels: Vec<String> = self.per_gpu_run.iter().map(|&d| format!("{:.2}", ms(d))).collect();
            writeln!(
                f,
                "gpus        {} (tasks per GPU: {}; kernel ms per GPU: {}; {} tasks stolen across GPUs{home})",
                self.per_gpu_tasks.len(),
                shares.join(" / "),
                kernels.join(" / "),
                self.remote_steals
            )?;
        }
        if let Some(s) = &self.spread {
            writeln!(
                f,
                "spread      the host ran the first {} levels ({} tasks, {:.2} ms) and dealt the next, {} tasks, to the GPUs",
                s.levels,
                s.tasks,
                ms(s.time),
                s.dealt
            )?;
        }
        if self.alone {
            writeln!(
                f,
                "alone       GPU 0 ran it alone, with the one-GPU kernel: the host judged the tree narrow (Runtime::alone_when_narrow)"
            )?;
        }
        if self.generations > 0 {
            writeln!(f, "generations {} launches (static scheduler)", self.generations)?;
        } else {
            writeln!(f, "workers     {} ({} ran tasks, busiest ran {})", self.workers(), busy, max)?;
        }
        if let Some(bands) = &self.bands {
            writeln!(f, "{bands}")?;
            if let Some(advice) = bands.width_advice(self.tasks, self.workers()) {
                writeln!(f, "warning     {advice}")?;
            }
        }
        match self.queue_capacity {
            0 => writeln!(f, "queues      peak {} tasks", self.peak_queue)?,
            c => writeln!(f, "queues      peak {} of {} slots", self.peak_queue, c)?,
        }
        write!(f, "phases      ")?;
        if let Some(age) = p.since_process_start {
            write!(f, "began {:.0} ms after process start, ", ms(age))?;
        }
        if !p.inputs_built.is_zero() {
            write!(f, "inputs built in {:.1} ms before the call, ", ms(p.inputs_built))?;
        }
        if !p.context.is_zero() {
            write!(f, "context {:.1} ms, ", ms(p.context))?;
        }
        let t = &p.transfers;
        let moved_in = match (t.uploaded, t.cleared) {
            (0, 0) => String::new(),
            (up, 0) => format!(" ({} in)", megabytes(up)),
            (up, cleared) => format!(" ({} in, {} set on the device)", megabytes(up), megabytes(cleared)),
        };
        let moved_out = if t.downloaded > 0 { format!(" ({} out)", megabytes(t.downloaded)) } else { String::new() };
        write!(
            f,
            "compile {:.1} ms{}, launch {:.1} ms{moved_in}, run {:.3} ms, copy-back {:.1} ms{moved_out}",
            ms(p.compile),
            if p.cache_hit { " (cached)" } else { "" },
            ms(p.launch),
            ms(p.run),
            ms(p.copy_back)
        )?;
        if !p.call.is_zero() {
            write!(f, "; whole call {:.1} ms", ms(p.call))?;
        }
        if let Some(profile) = &self.profile {
            write!(f, "\n{profile}")?;
        }
        if self.per_gpu_profile.len() > 1 {
            for (gpu, profile) in self.per_gpu_profile.iter().enumerate() {
                write!(f, "\n  gpu {gpu:<6}")?;
                profile.write_shares(f)?;
            }
        }
        Ok(())
    }
}

/// Buckets of [`BandStats::histogram`]: bands of 1, 2-3, 4-7, ... tasks, the last one open.
pub const BAND_BUCKETS: usize = 16;

/// How an ordered run (`order = priority`) went through its priority bands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BandStats {
    /// Distinct bands that ran tasks.
    pub visited: u64,
    /// How often the lowest band with work moved up (the CPU backend: once per band; the GPU:
    /// each time the window's low end advanced).
    pub lowest_moves: u64,
    /// Tasks run from a band above the lowest live one, holding or running tasks (the GPU's
    /// lookahead: the program's `lookahead` bands, or `Runtime::band_lookahead`'s; 0 on the CPU
    /// backend, which runs band by band).
    pub out_of_order: u64,
    /// Tasks that waited in the far queue (past the GPU's window of bands) and were moved
    /// back into the window.
    pub rebanded: u64,
    /// Tasks run by the worker that spawned them, without going through a queue (the GPU: a
    /// worker keeps the children of its batch's lowest band for its next batch when a taker
    /// could take them; 0 on the CPU backend).
    pub kept: u64,
    /// Bands by how many tasks ran in them: `histogram[k]` counts bands of 2^k to 2^(k+1)-1
    /// tasks (the last bucket: that many or more).
    pub histogram: [u64; BAND_BUCKETS],
    /// The highest band that ran a task.
    pub highest: u32,
    /// Tasks run in the fullest band (the CPU backend; 0 where not counted: the GPU counts
    /// bands, not their tasks).
    pub fullest: u64,
}

/// Fewer tasks than this say too little about the bands to warn about their width.
const ADVICE_MIN_TASKS: u64 = 10_000;

impl BandStats {
    /// Counts one band that ran `tasks` tasks.
    pub fn add_band(&mut self, tasks: u64) {
        if tasks == 0 {
            return;
        }
        let bucket = (63 - tasks.leading_zeros() as usize).min(BAND_BUCKETS - 1);
        self.histogram[bucket] += 1;
        self.visited += 1;
        self.fullest = self.fullest.max(tasks);
    }

    /// A warning with a suggested width, when the bands of a run of `tasks` tasks on
    /// `workers` workers were clearly too wide (one band ran nearly all of them: the run was
    /// nearly unordered) or too narrow (most bands up to the highest ran nothing, each costing
    /// a move of the lowest band; or, where bands' tasks are counted, the CPU backend's, they
    /// held on average fewer than 4 tasks a worker, which then wait band after band). `None`
    /// when neither; the width is the program's (a priority is its own computation), so the
    /// advice is a factor to try, then halve or double.
    pub fn width_advice(&self, tasks: u64, workers: usize) -> Option<String> {
        const GUIDE: &str = "see \"Choosing a band width\" in docs/guide/5-priority-order.md";
        if tasks < ADVICE_MIN_TASKS || self.visited == 0 {
            return None;
        }
        // On the GPU a band's tasks are not counted: a run whose lowest band moved at most
        // once ran in one or two bands.
        let one_band = if self.fullest > 0 { self.fullest * 10 >= tasks * 9 } else { self.visited <= 2 };
        if one_band {
            let held = if self.fullest > 0 {
                format!("{:.0}% of the {tasks} tasks ran in one band", self.fullest as f64 * 100.0 / tasks as f64)
            } else {
                format!("the {tasks} tasks ran in {} band{}", self.visited, if self.visited == 1 { "" } else { "s" })
            };
            return Some(format!(
                "{held}: the bands are too wide to order the work, which then runs nearly unordered (on a long-diameter \
                 graph, most offers are stale). Try bands about 16 times narrower (a priority divided by a 16 times \
                 smaller delta), then halve or double; {GUIDE}"
            ));
        }
        let bands = self.highest as u64 + 1;
        let empty = bands.saturating_sub(self.visited);
        if bands >= 64 && empty * 2 > bands {
            let wider = bands.div_ceil(self.visited);
            return Some(format!(
                "{empty} of the {bands} bands up to the highest ran no task: the bands are narrower than the priorities' \
                 spacing, and each empty one costs a move of the lowest band. Try bands about {wider} times wider, then \
                 halve or double; {GUIDE}"
            ));
        }
        // The GPU's workers take from several bands at once (its lookahead), and its bands
        // are thin by design on long-diameter graphs: only the CPU's band-by-band runs judge this.
        let per_band = tasks / self.visited;
        let enough = 4 * workers.max(1) as u64;
        if self.fullest > 0 && self.visited >= 64 && per_band < enough {
            let wider = enough.div_ceil(per_band.max(1));
            return Some(format!(
                "the {} bands that ran tasks held {per_band} on average, for {workers} workers: the bands are too narrow \
                 to keep the workers busy, and each one waits for the last. Try bands about {wider} times wider, then \
                 halve or double; {GUIDE}",
                self.visited
            ));
        }
        None
    }
}

impl fmt::Display for BandStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bands       {} visited up to band {}, lowest band moved {} times, {} tasks out of order, {} re-banded from the far queue, {} kept by their spawner",
            self.visited, self.highest, self.lowest_moves, self.out_of_order, self.rebanded, self.kept
        )?;
        let buckets: Vec<String> = self
            .histogram
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(k, n)| match k {
                0 => format!("1: {n}"),
                k if k == BAND_BUCKETS - 1 => format!("{}+: {n}", 1u64 << k),
                k => format!("{}-{}: {n}", 1u64 << k, (1u64 << (k + 1)) - 1),
            })
            .collect();
        if !buckets.is_empty() {
            write!(f, "; bands by tasks run {}", buckets.join(", "))?;
        }
        Ok(())
    }
}

/// How long this process has been running: `/proc/uptime` minus the process's start time in
/// `/proc/self/stat` (field 22, clock ticks since boot; USER_HZ is 100 on every Linux ABI).
/// A process started by `cargo run` counts from cargo's start: cargo `exec`s the program in its
/// own process.
pub(crate) fn process_age() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let after_name = &stat[stat.rfind(')')? + 1..];
    let start_ticks: f64 = after_name.split_whitespace().nth(19)?.parse().ok()?;
    let uptime: f64 = std::fs::read_to_string("/proc/uptime").ok()?.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_secs_f64((uptime - start_ticks / 100.0).max(0.0)))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `bytes` in MB (10^6 bytes), one decimal.
fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn the_process_age_is_read_from_proc() {
        let started = std::time::Instant::now();
        let age = process_age().expect("Linux has /proc/self/stat and /proc/uptime");
        // This test process began before this test; /proc counts in 10 ms ticks.
        assert!(age + Duration::from_millis(20) >= started.elapsed(), "{age:?}");
        assert!(age < Duration::from_secs(24 * 3600), "a test process younger than a day: {age:?}");
    }

    #[test]
    fn phases_show_the_context_and_the_process_age_when_known() {
        let mut stats = Stats::default();
        assert!(!stats.to_string().contains("context"), "no context line before one is opened");
        stats.phases.context = Duration::from_millis(180);
        stats.phases.since_process_start = Some(Duration::from_millis(2500));
        let text = stats.to_string();
        assert!(text.contains("began 2500 ms after process start, context 180.0 ms, compile"), "{text}");
        stats.phases.inputs_built = Duration::from_micros(3250);
        let text = stats.to_string();
        assert!(text.contains("began 2500 ms after process start, inputs built in 3.2 ms before the call, context 180.0 ms"), "{text}");
    }

    #[test]
    fn band_statistics_show_in_the_display() {
        let mut bands = BandStats { lowest_moves: 2, highest: 7, ..BandStats::default() };
        for tasks in [1, 3, 5, 0, 100_000] {
            bands.add_band(tasks);
        }
        assert_eq!(bands.visited, 4, "a band without tasks was not visited");
        let stats = Stats { bands: Some(bands), ..Stats::default() };
        let text = stats.to_string();
        assert!(text.contains("bands       4 visited up to band 7, lowest band moved 2 times"), "{text}");
        assert!(text.contains("bands by tasks run 1: 1, 2-3: 1, 4-7: 1, 32768+: 1"), "{text}");
    }

    #[test]
    fn bands_too_wide_or_too_narrow_are_warned_about_with_a_factor() {
        let counted = |bands: &[u64], highest: u32| {
            let mut b = BandStats { highest, ..BandStats::default() };
            bands.iter().for_each(|&t| b.add_band(t));
            b
        };
        // Nearly everything in one band, counted (the CPU backend) or not (the GPU).
        let wide = counted(&[10, 95_000, 200, 300], 3);
        let advice = wide.width_advice(95_510, 2).expect("one band of 99%");
        assert!(advice.starts_with("99% of the 95510 tasks ran in one band") && advice.contains("16 times narrower"), "{advice}");
        let gpu = BandStats { visited: 1, highest: 0, ..BandStats::default() };
        assert!(gpu.width_advice(50_000, 20_000).is_some_and(|a| a.starts_with("the 50000 tasks ran in 1 band:")));
        assert!(Stats { tasks: 95_510, bands: Some(wide), ..Stats::default() }.to_string().contains("\nwarning     99% of the"));
        // 100 bands that ran tasks up to band 999: 900 empty.
        let sparse = counted(&[500; 100], 999);
        let advice = sparse.width_advice(50_000, 2).expect("most bands empty");
        assert!(advice.starts_with("900 of the 1000 bands up to the highest ran no task") && advice.contains("about 10 times wider"), "{advice}");
        // Spread over many full bands: nothing to say; nor about a run too small to judge.
        assert_eq!(counted(&[1000; 64], 63).width_advice(64_000, 16), None);
        assert_eq!(counted(&[100; 10], 999).width_advice(1_000, 2), None);
        assert_eq!(counted(&[5_000], 0).width_advice(5_000, 2), None);
        // Thin bands: 2 tasks a band for 16 threads (the CPU), but not judged on the GPU.
        let thin = counted(&[2; 10_000], 9_999);
        let advice = thin.width_advice(20_000, 16).expect("thin bands");
        assert!(advice.starts_with("the 10000 bands that ran tasks held 2 on average, for 16 workers") && advice.contains("about 32 times wider"), "{advice}");
        let gpu_thin = BandStats { visited: 10_000, highest: 9_999, ..BandStats::default() };
        assert_eq!(gpu_thin.width_advice(20_000, 16_000), None);
    }

    #[test]
    fn phases_show_what_a_gpu_run_moved() {
        let mut stats = Stats::default();
        assert!(!stats.to_string().contains("MB"), "nothing moved, nothing shown");
        stats.phases.transfers = Transfers { uploaded: 420_000_000, cleared: 0, downloaded: 0 };
        assert!(stats.to_string().contains("launch 0.0 ms (420.0 MB in), run"), "{stats}");
        stats.phases.transfers = Transfers { uploaded: 70_000_000, cleared: 403_000_000, downloaded: 436_000_000 };
        let text = stats.to_string();
        assert!(text.contains("launch 0.0 ms (70.0 MB in, 403.0 MB set on the device), run"), "{text}");
        assert!(text.ends_with("copy-back 0.0 ms (436.0 MB out)"), "{text}");
    }

    #[test]
    fn one_thread_is_not_plural_and_steals_read_against_attempts() {
        assert_eq!(BackendKind::Cpu { threads: 1 }.to_string(), "CPU (1 thread, work stealing)");
        assert_eq!(BackendKind::Cpu { threads: 16 }.to_string(), "CPU (16 threads, work stealing)");
        let stats = Stats { steal_attempts: 40, steals: 3, ..Stats::default() };
        assert!(stats.to_string().contains("steals      3 of 40 attempts took work"), "{stats}");
    }
}
