//! The results of a multi-GPU run's GPUs, made one: what a single GPU would have returned.

use crate::error::Error;
use crate::program::{CounterSet, Program, RunResult};
use crate::stats::Stats;
use crate::gpu::join::decode_root_values;

/// What one GPU hands back, as it leaves the GPU: its counters' raw slots, the values of
/// the roots dealt to it (device images, in its share's order; programs with joins), and its
/// workers' statistics.
pub(crate) struct PeShare {
    pub counter_slots: Vec<u64>,
    pub root_values: Vec<u8>,
    pub stats: Stats,
}

/// A [`PeShare`] as the merge reads it, its counters decoded.
pub(crate) struct PeResult<C> {
    pub counters: C,
    pub root_values: Vec<u8>,
    pub stats: Stats,
}

/// How one GPU failed: because another did; by its watchdog (which may only mean that it
/// waited for a GPU that failed otherwise); or on its own. Errors travel as text: they may
/// come from another process.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PeError {
    StoppedByPeer,
    TimedOut(String),
    Failed(String),
}

impl From<Error> for PeError {
    fn from(e: Error) -> PeError {
        match e {
            Error::StoppedByPeer => PeError::StoppedByPeer,
            e @ Error::Watchdog { .. } => PeError::TimedOut(e.to_string()),
            e => PeError::Failed(e.to_string()),
        }
    }
}

/// Merges the GPUs' results, in GPU order. Counters are reduced as they are declared
/// (`Sum`, `Min`, `Max`); statistics are added, their per-worker lists put side by side
/// (GPU 0's workers first), the phases are the slowest GPU's. If any GPU failed, the run's
/// error names the first GPU that failed on its own, else the first whose watchdog fired,
/// else the first that stopped because another did. Root `r`'s value comes from GPU
/// `r % gpus`, to which it was dealt (`roots_of`).
pub(crate) fn merge<P: Program>(results: Vec<Result<PeResult<P::Counters>, PeError>>, roots: &[P::Task]) -> Result<RunResult<P>, Error> {
    let gpus = results.len() as u32;
    let own_failure = results.iter().position(|r| matches!(r, Err(PeError::Failed(_))));
    let timed_out = results.iter().position(|r| matches!(r, Err(PeError::TimedOut(_))));
    if let Some(gpu) = own_failure.or(timed_out).or_else(|| results.iter().position(|r| r.is_err())) {
        let message = match &results[gpu] {
            Err(PeError::Failed(m) | PeError::TimedOut(m)) => m.clone(),
            Err(PeError::StoppedByPeer) => Error::StoppedByPeer.to_string(),
            Ok(_) => unreachable!("the position of an error"),
        };
        return Err(Error::OnGpu { gpu: gpu as u32, gpus, message });
    }
    let results: Vec<PeResult<P::Counters>> = results.into_iter().flatten().collect();
    let values = root_values::<P>(&results, roots).map_err(Error::InvalidConfig)?;
    let mut counters = P::Counters::default();
    let mut stats = Stats::default();
    for r in results {
        counters.merge(&r.counters);
        add_stats(&mut stats, r.stats);
    }
    Ok((counters, values, stats))
}

/// Every root's value, from the GPU it was dealt to: the GPUs' images put back in the roots'
/// order, then decoded as a single GPU's are.
fn root_values<P: Program>(results: &[PeResult<P::Counters>], roots: &[P::Task]) -> Result<Vec<P::Value>, String> {
    let stride = P::JOIN.map_or(0, |j| j.value_bytes);
    let gpus = results.len();
    let mut bytes = Vec::with_capacity(roots.len() * stride);
    if stride > 0 {
        for r in 0..roots.len() {
            let (gpu, at) = (r % gpus, (r / gpus) * stride);
            let value = results[gpu].root_values.get(at..at + stride).ok_or_else(|| {
                format!("GPU {gpu} sent {} bytes of root values, too few for root {r} of `{}`", results[gpu].root_values.len(), P::NAME)
            })?;
            bytes.extend_from_slice(value);
        }
    }
    Ok(decode_root_values::<P>(&bytes, roots))
}

/// Adds one GPU's statistics to the run's.
fn add_stats(run: &mut Stats, gpu: Stats) {
    run.tasks += gpu.tasks;
    run.completions += gpu.completions;
    run.steal_attempts += gpu.steal_attempts;
    run.steals += gpu.steals;
    run.remote_steals += gpu.remote_steals;
    run.sent_home += gpu.sent_home;
    run.per_gpu_tasks.push(gpu.tasks);
    run.per_worker_tasks.extend(gpu.per_worker_tasks);
    run.per_worker_steals.extend(gpu.per_worker_steals);
    run.per_worker_peak.extend(gpu.per_worker_peak);
    run.peak_queue = run.peak_queue.max(gpu.peak_queue);
    run.queue_capacity = run.queue_capacity.max(gpu.queue_capacity);
    run.peak_frames = run.peak_frames.max(gpu.peak_frames);
    let (p, g) = (&mut run.phases, gpu.phases);
    p.since_process_start = p.since_process_start.or(g.since_process_start);
    p.context = p.context.max(g.context);
    p.compile = p.compile.max(g.compile);
    p.cache_hit = if run.per_gpu_tasks.len() == 1 { g.cache_hit } else { p.cache_hit && g.cache_hit };
    p.launch = p.launch.max(g.launch);
    p.run = p.run.max(g.run);
    p.copy_back = p.copy_back.max(g.copy_back);
    // Every GPU moves its own bytes.
    p.transfers.uploaded += g.transfers.uploaded;
    p.transfers.cleared += g.transfers.cleared;
    p.transfers.downloaded += g.transfers.downloaded;
    // Cycles per phase, summed over every worker of every GPU (each GPU counts its own).
    if let Some(g) = gpu.profile {
        run.profile.get_or_insert_with(Default::default).add_worker(&g.words());
    }
}
