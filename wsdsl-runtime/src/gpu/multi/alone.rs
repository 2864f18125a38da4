//! A run on several GPUs whose tree the host judged narrow (`gpu/run/spread.rs`), in every process
//! (they vote: `run.rs`, `agree_on_levels`; the judgement is bounded by a clock, so one process
//! may have stopped looking where another did not): GPU 0 runs it alone, with the one-GPU
//! kernel, and sends its result to the other processes, which run
//! nothing; every process then merges the same results, as after any multi-GPU run, so each
//! returns the same `Output` (`Stats::alone` set, the other GPUs' shares empty).
//!
//! Why a whole run: such a tree (UTS T3L) is its critical path, which a second GPU cannot
//! shorten, and the multi-GPU kernel costs it on every GPU it runs on (T3L on both of two
//! GPUs: 0.97x one GPU, BENCHMARKS.md).

use super::merge::{merge_sent, PeError, PeShare};
use super::process::Job;
use super::record::encode_result;
use crate::error::Error;
use crate::gpu::run::runner::RawResult;
use crate::gpu::run::spread::Roots;
use crate::gpu::{GpuDevice, GpuOptions};
use crate::contract::{CounterSet, Program, RunResult};
use crate::stats::Stats;

/// Runs `dealt` on GPU 0 alone (this process's GPU when its rank is 0) and returns the run's
/// merged result in every process.
pub(super) fn run_alone<P: Program>(
    dev: &GpuDevice,
    job: &Job,
    params: &P::Params,
    buffers: &P::Buffers,
    dealt: &[P::Task],
    opts: &GpuOptions,
) -> Result<RunResult<P>, Error> {
    let mine = if job.rank == 0 { gpu0_share::<P>(crate::gpu::run_raw::<P>(dev, params, buffers, &Roots::as_given(dealt), opts)) } else { idle_share::<P>() };
    let results = job.all_gather(encode_result(&mine))?;
    merged::<P>(&results, dealt, || job.mark_broken())
}

/// GPU 0's result as the share it sends.
pub(super) fn gpu0_share<P: Program>(ran: Result<RawResult<P>, Error>) -> Result<PeShare, PeError> {
    ran.map(|(counter_slots, _, stats)| PeShare { counter_slots, root_values: Vec::new(), stats }).map_err(PeError::from)
}

/// What a GPU that ran nothing hands back: counters at their reductions' identities, and no
/// workers (and no compile that missed the cache: the run's is GPU 0's).
pub(super) fn idle_share<P: Program>() -> Result<PeShare, PeError> {
    let counter_slots = P::Counters::SLOTS.iter().map(|slot| slot.initial_bits()).collect();
    let mut stats = Stats::default();
    stats.phases.cache_hit = true;
    Ok(PeShare { counter_slots, root_values: Vec::new(), stats })
}

/// The run's result from every GPU's share as sent (`record.rs`), marked as GPU 0's alone;
/// `broken` as for `merge_sent`.
pub(super) fn merged<P: Program>(results: &[Vec<u8>], dealt: &[P::Task], broken: impl FnOnce()) -> Result<RunResult<P>, Error> {
    let (counters, values, mut stats) = merge_sent::<P>(results, dealt, broken)?;
    stats.alone = true;
    Ok((counters, values, stats))
}
