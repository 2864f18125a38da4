//! The schedulers of the GPU backend, one file each, and the one place that picks among them.
//!
//! A scheduler supplies only what is its own ([`Scheme`]): a prelude to its kernel source,
//! its memory and launch record, how it launches (once, or a generation at a time), how it
//! names a queue that overflowed, and its statistics. Everything else of a run (the kernel's
//! loading, the grid, the program's inputs, the roots, the join pool, reading back) is the
//! runner's (`gpu/run/runner.rs`), on either target (`gpu/run/target.rs`): a scheduler sees a
//! run only through the [`Target`] trait, never a GPU or the emulation itself.
//!
//! - `deque.rs`: one work-stealing deque per worker (`cuda/schedulers/deque.cuh`), the default;
//! - `broker.rs`: the Broker Queue family, BQ, BWD and BSQ (`cuda/schedulers/broker.cuh`);
//! - `bands.rs`: priority bands on broker queues, for `order = priority`
//!   (`cuda/schedulers/bands.cuh`);
//! - `static_baseline.rs`: two task arrays, a launch per generation
//!   (`cuda/schedulers/static_baseline.cuh`);
//! - `slots.rs`: how the broker queues' slots are sized, shared by `broker.rs` and `bands.rs`;
//! - `worker_stats.rs`: the per-worker statistics every persistent kernel writes.

pub(crate) mod bands;
pub(crate) mod broker;
pub(crate) mod deque;
pub(crate) mod slots;
pub(crate) mod static_baseline;
pub(crate) mod worker_stats;

use crate::contract::schedule::{KernelConfig, Order, Scheduler};
use crate::contract::Program;
use crate::error::Error;
use crate::gpu::run::target::{record_bytes, InputAddresses, Published, Sizes, Target};
use crate::stats::{Phases, Stats};
use bands::Bands;
use broker::Broker;
use deque::Deque;
use static_baseline::Static;
use std::time::{Duration, Instant};

/// A run as a scheduler sees it: the launch's shape and what the runner put in place.
pub(crate) struct Run {
    pub config: KernelConfig,
    pub blocks: u32,
    pub block_threads: u32,
    /// Workers of the launch (its threads in groups of `config.worker_threads()`).
    pub workers: u32,
    pub inputs: InputAddresses,
    /// The roots' device images, back to back (one zeroed record when there are none).
    pub roots: u64,
    pub root_count: u32,
    pub stop: u64,
    /// The workers' progress words (0: nobody watches, the kernel writes none).
    pub progress: u64,
}

/// What one scheduler brings to a run.
pub(crate) trait Scheme {
    /// Host mirror of the kernel's launch record (`#[repr(C)]`, no padding).
    type Record: Copy;
    /// `Some(name)` for a persistent kernel (every block resident at once; one launch whose
    /// workers publish progress words), named in messages; `None` for generations.
    const PERSISTENT: Option<&'static str>;
    /// What a failed launch was doing, for the driver's error.
    const LAUNCHING: &'static str;

    /// Lines before the assembled source, fixed before the kernel is compiled.
    fn prelude<P: Program, T: Target>(&mut self, _target: &T, _config: &KernelConfig, _sizes: &Sizes) -> Result<String, Error> {
        Ok(String::new())
    }

    /// Sizes and initialises the scheduler's own memory (refusing roots that cannot fit), and
    /// returns the launch record.
    fn prepare<P: Program, T: Target>(&mut self, target: &mut T, run: &Run, sizes: &Sizes) -> Result<Self::Record, Error>;

    /// Runs the kernel to the end; the run phase. By default one launch of the whole grid,
    /// watched through the workers' progress words.
    fn execute<P: Program, T: Target>(&mut self, target: &T, run: &Run, record: &Self::Record) -> Result<Duration, Error> {
        let since = Instant::now();
        // SAFETY: the record points only into memory `target` holds for the run (`prepare`
        // and the runner took it there), and a persistent kernel is launched cooperatively on
        // at most the blocks that are resident at once (`Target::blocks`).
        target.report_while(P::NAME, Published::Workers(run.workers as usize), || unsafe {
            target.launch(record_bytes(record), run.blocks, run.block_threads, true, since, Self::LAUNCHING)
        })
    }

    /// Names the queue an overflow happened in, from the worker or queue the device reported;
    /// `worker` names a worker of the target (`Target::WORKER`).
    fn queue(&self, arg: u64, worker: &str, program: &str) -> String;

    /// The run's statistics from what the kernel left (the runner adds the join pool's).
    fn stats<T: Target>(&self, target: &mut T, run: &Run, phases: Phases) -> Result<Stats, Error>;
}

/// What a caller does with the scheduler a configuration names: generic over it, so that
/// every scheduler's run is compiled for it (the runner's `run_scheduled`).
pub(crate) trait WithScheme {
    type Output;
    fn with<S: Scheme>(self, scheme: S) -> Self::Output;
}

/// Hands `job` the scheduler `config` names: the priority bands for an ordered configuration,
/// else its queue's.
pub(crate) fn dispatch<W: WithScheme>(config: &KernelConfig, job: W) -> W::Output {
    if config.order == Order::Priority {
        return job.with(Bands::new(config));
    }
    match config.scheduler {
        Scheduler::Deque => job.with(Deque::default()),
        Scheduler::Static => job.with(Static::default()),
        Scheduler::Bq | Scheduler::Bwd | Scheduler::Bsq => job.with(Broker::new(config)),
    }
}
