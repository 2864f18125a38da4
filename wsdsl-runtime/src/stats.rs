//! What every run reports besides the user's counters.

use std::fmt;
use std::time::Duration;

/// Which backend ran the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendKind {
    Cpu { threads: usize },
    Gpu { device: String, arch: String },
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackendKind::Cpu { threads } => write!(f, "CPU ({threads} threads, work stealing)"),
            BackendKind::Gpu { device, arch } => write!(f, "GPU {device} ({arch}, persistent megakernel)"),
        }
    }
}

/// Wall-clock time spent in each phase of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Phases {
    /// Kernel compilation (zero on the CPU backend).
    pub compile: Duration,
    /// Whether the compiled kernel came from the cache (memory or disk).
    pub cache_hit: bool,
    /// Allocation and copying inputs to the device.
    pub launch: Duration,
    /// The run itself (CUDA events on the GPU).
    pub run: Duration,
    /// Copying results back.
    pub copy_back: Duration,
}

/// Scheduler statistics of one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Tasks executed, over all workers.
    pub tasks: u64,
    /// Steal attempts (CAS tries on a victim that looked non-empty).
    pub steal_attempts: u64,
    /// Successful steals.
    pub steals: u64,
    /// Tasks executed by each worker (a warp on the GPU, a thread on the CPU).
    pub per_worker_tasks: Vec<u64>,
    /// Largest number of slots any worker's queue used.
    pub peak_queue: u64,
    /// Capacity of each worker's queue (0 = unbounded, CPU).
    pub queue_capacity: u64,
    /// Kernel launches, one per generation (static scheduler only; 0 otherwise).
    pub generations: u64,
    /// Join frames (tasks waiting for their children) in use at once, at most. On the GPU
    /// this is the pool's high-water mark, an upper bound (threads keep a few spare frames).
    pub peak_frames: u64,
    pub phases: Phases,
}

impl Stats {
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
        writeln!(f, "steals      {} of {} attempts", self.steals, self.steal_attempts)?;
        if self.generations > 0 {
            writeln!(f, "generations {} launches (static scheduler)", self.generations)?;
        } else {
            writeln!(f, "workers     {} ({} ran tasks, busiest ran {})", self.workers(), busy, max)?;
        }
        match self.queue_capacity {
            0 => writeln!(f, "queues      peak {} tasks", self.peak_queue)?,
            c => writeln!(f, "queues      peak {} of {} slots", self.peak_queue, c)?,
        }
        write!(
            f,
            "phases      compile {:.1} ms{}, launch {:.1} ms, run {:.3} ms, copy-back {:.1} ms",
            ms(p.compile),
            if p.cache_hit { " (cached)" } else { "" },
            ms(p.launch),
            ms(p.run),
            ms(p.copy_back)
        )
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
