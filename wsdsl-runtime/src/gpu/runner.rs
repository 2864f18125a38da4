//! One set-up path for every scheduler's run, on a GPU or on the host-compiled templates
//! ([`Target`]): compile and load the kernel, size the grid, put in place what every launch
//! record carries (the program's inputs, the roots, the stop flag, the progress words, a
//! cleared status record) and the join pool, launch and watch, then read back the counters,
//! the buffers, the statistics and the roots' values, timing each phase.
//!
//! A scheduler supplies only what is its own ([`Scheme`]): a prelude to its kernel source,
//! its memory and launch record, how it launches (once, or a generation at a time), how it
//! names a queue that overflowed, and its statistics (`persistent.rs`, `broker_run.rs`,
//! `static_run.rs`). A new scheduler dimension that needs memory or statistics of its own
//! puts them here once, beside the join pool, rather than in every scheduler.

use super::bands::Bands;
use super::broker_run::Broker;
use super::inputs::{encode_tasks_into, status_result};
use super::join::{JoinPool, PoolShape};
use super::launch::record_bytes;
use super::persistent::Deque;
use super::static_run::Static;
use super::ready::ready_for_copy_back_while;
use super::spread::Roots;
use super::steps::Steps;
use super::target::{InputAddresses, Published, Sizes, Target};
use crate::buffer::BufferSet;
use crate::error::Error;
use crate::program::{CounterSet, Program, RunResult};
use crate::schedule::{KernelConfig, Order, Scheduler};
use crate::stats::{Phases, Stats};
use std::time::{Duration, Instant};

/// Memory role of the initial tasks.
pub(crate) const ROOTS: &str = "initial tasks";

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

/// A run's result with its counters still the device's slots: what a multi-GPU run's GPU 0,
/// running alone, sends the other processes (`gpu/multi/alone.rs`).
pub(crate) type RawResult<P> = (Vec<u64>, Vec<<P as Program>::Value>, Stats);

/// A [`RawResult`] with its counters decoded: what a run returns.
pub(crate) fn decoded<P: Program>((slots, values, stats): RawResult<P>) -> RunResult<P> {
    (<P::Counters as CounterSet>::from_slots(&slots), values, stats)
}

/// Runs `roots` of `P` on `target` under the scheduler `config` names; the counters come back
/// as the device's slots.
pub(crate) fn run_scheduled<P: Program, T: Target>(
    target: &mut T,
    config: &KernelConfig,
    sizes: &Sizes,
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &Roots<'_, P>,
) -> Result<RawResult<P>, Error> {
    // A program whose handlers spawn with priorities is built ordered whatever the caller's
    // configuration says (`validate_for` refused those that cannot be).
    let config = &config.with_order_of::<P>();
    if config.order == Order::Priority {
        return run::<P, T, _>(target, Bands::new(config), config, sizes, params, buffers, roots);
    }
    match config.scheduler {
        Scheduler::Deque => run::<P, T, _>(target, Deque::default(), config, sizes, params, buffers, roots),
        Scheduler::Static => run::<P, T, _>(target, Static::default(), config, sizes, params, buffers, roots),
        Scheduler::Bq | Scheduler::Bwd | Scheduler::Bsq => run::<P, T, _>(target, Broker::new(config), config, sizes, params, buffers, roots),
    }
}

/// Runs `roots` of `P` under `scheme` on `target`: those the host dealt (`spread.rs`), taken
/// once the kernel is loaded and the program's inputs are on their way.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run<P: Program, T: Target, S: Scheme>(
    target: &mut T,
    mut scheme: S,
    config: &KernelConfig,
    sizes: &Sizes,
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &Roots<'_, P>,
) -> Result<RawResult<P>, Error> {
    let mut phases = Phases::default();
    let mut steps = Steps::new(P::NAME);
    let prelude = scheme.prelude::<P, T>(target, config, sizes)?;
    target.load::<P>(&prelude, config, &mut phases)?;
    steps.mark("load");

    let preparing = Instant::now();
    let block_threads = config.block_threads;
    let blocks = target.blocks::<P>(block_threads, S::PERSISTENT)?;
    let workers = blocks * (block_threads / config.worker_threads());
    steps.mark("blocks");
    // The program's own data first: queues are sized by the memory left after it.
    let inputs = target.inputs::<P>(params, buffers)?;
    steps.mark("inputs");
    let roots = roots.dealt()?;
    steps.mark("the host's first levels");
    // In programs with joins, root `i` sends its value to the host's slot `i`.
    let encode = |first: usize, piece: &mut [u8]| encode_tasks_into::<P>(&roots[first.min(roots.len())..], first, piece);
    let roots_at = target.upload_encoded(ROOTS, roots.len().max(1), P::TASK_BYTES, &encode)?;
    steps.mark("roots");
    let stop = target.stop_flag()?;
    let progress = if S::PERSISTENT.is_some() { target.progress_words(workers as usize)? } else { 0 };
    target.clear_status()?;
    steps.mark("stop, progress, status");
    let run = Run { config: *config, blocks, block_threads, workers, inputs, roots: roots_at, root_count: roots.len() as u32, stop, progress };
    let record = scheme.prepare::<P, T>(target, &run, sizes)?;
    steps.mark("scheduler");
    // The frames outlive a static run's generations: a task waits for children of later ones.
    let join = JoinPool::prepare::<P, T>(target, roots.len(), PoolShape::of(config, (blocks * block_threads) as usize), sizes.frames)?;
    steps.mark("join pool");
    target.ready()?;
    steps.mark("ready");
    phases.launch = preparing.elapsed();

    let executed = ready_for_copy_back_while(buffers.buffers(), || scheme.execute::<P, T>(target, &run, &record));
    steps.mark("kernel");
    match executed {
        Ok(run) => phases.run = run,
        Err(e) => {
            if let Error::Watchdog { stopped: false, .. } = e {
                // The kernel still runs: its memory must stay valid.
                target.abandon();
            }
            return Err(e);
        }
    }

    let reading = Instant::now();
    status_result::<P>(&target.status()?, |arg| scheme.queue(arg, T::WORKER, P::NAME))?;
    steps.mark("status");
    let counters = target.read_back::<P>(buffers)?;
    steps.mark("counters, buffers");
    let mut stats = scheme.stats(target, &run, phases)?;
    steps.mark("statistics");
    let values = JoinPool::results::<P, T>(&join, target, roots, &mut stats)?;
    steps.mark("values");
    stats.phases.copy_back = reading.elapsed();
    steps.report();
    stats.phases.transfers = target.transfers();
    Ok((counters, values, stats))
}
