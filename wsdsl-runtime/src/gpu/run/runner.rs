//! One set-up path for every scheduler's run, on a GPU or on the host-compiled templates
//! ([`Target`]): compile and load the kernel, size the grid, put in place what every launch
//! record carries (the program's inputs, the roots, the stop flag, the progress words, a
//! cleared status record) and the join pool, launch and watch, then read back the counters,
//! the buffers, the statistics and the roots' values, timing each phase.
//!
//! A scheduler supplies only what is its own (`Scheme`, `gpu/schedulers/`), and the
//! scheduler a configuration names is picked there (`run_scheduled`). A new scheduler
//! dimension that needs memory or statistics of its own puts them here once, beside the join
//! pool, rather than in every scheduler.

use crate::contract::buffer::BufferSet;
use crate::contract::schedule::KernelConfig;
use crate::contract::{CounterSet, Program, RunResult};
use crate::error::Error;
use crate::gpu::run::images::encode_tasks_into;
use crate::gpu::run::join::{JoinPool, PoolShape};
use crate::gpu::run::ready::ready_for_copy_back_while;
use crate::gpu::run::spread::Roots;
use crate::gpu::run::status::status_result;
use crate::gpu::run::steps::Steps;
use crate::gpu::run::target::{InputAddresses, Sizes, Target};
use crate::gpu::schedulers::{self, Run, Scheme, WithScheme};
use crate::stats::{Phases, Stats};
use std::time::Instant;

/// Memory role of the initial tasks.
pub(crate) const ROOTS: &str = "initial tasks";

/// A run's result with its counters still the device's slots: what a multi-GPU run's GPU 0,
/// running alone, sends the other processes (`gpu/multi/alone.rs`).
pub(crate) type RawResult<P> = (Vec<u64>, Vec<<P as Program>::Value>, Stats);

/// A [`RawResult`] with its counters decoded: what a run returns.
pub(crate) fn decoded<P: Program>((slots, values, stats): RawResult<P>) -> RunResult<P> {
    (<P::Counters as CounterSet>::from_slots(&slots), values, stats)
}

/// What every launch record carries besides the program's inputs and the roots (`roots`:
/// their device images' address and count), put in place on `target` for a grid of `blocks`:
/// the stop flag, the workers' progress words when someone watches the run (`watched`), and a
/// cleared status record. A GPU's share of a multi-GPU run is set up through here too
/// (`gpu/multi/mod.rs`).
pub(crate) fn put_in_place<T: Target>(target: &mut T, config: &KernelConfig, blocks: u32, inputs: InputAddresses, (roots, root_count): (u64, u32), watched: bool) -> Result<Run, Error> {
    let workers = blocks * (config.block_threads / config.worker_threads());
    let stop = target.stop_flag()?;
    let progress = if watched { target.progress_words(workers as usize)? } else { 0 };
    target.clear_status()?;
    Ok(Run { config: *config, blocks, block_threads: config.block_threads, workers, inputs, roots, root_count, stop, progress })
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
    /// The run, handed the scheduler `schedulers::dispatch` picks.
    struct Scheduled<'a, 'r, P: Program, T> {
        target: &'a mut T,
        config: &'a KernelConfig,
        sizes: &'a Sizes,
        params: &'a P::Params,
        buffers: &'a P::Buffers,
        roots: &'a Roots<'r, P>,
    }
    impl<P: Program, T: Target> WithScheme for Scheduled<'_, '_, P, T> {
        type Output = Result<RawResult<P>, Error>;
        fn with<S: Scheme>(self, scheme: S) -> Self::Output {
            run::<P, T, S>(self.target, scheme, self.config, self.sizes, self.params, self.buffers, self.roots)
        }
    }
    // A program whose handlers spawn with priorities is built ordered whatever the caller's
    // configuration says (`validate_for` refused those that cannot be).
    let config = &config.with_order_of::<P>();
    schedulers::dispatch(config, Scheduled { target, config, sizes, params, buffers, roots })
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
    let run = put_in_place(target, config, blocks, inputs, (roots_at, roots.len() as u32), S::PERSISTENT.is_some())?;
    steps.mark("stop, progress, status");
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
