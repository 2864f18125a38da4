//! The results of a multi-GPU run's GPUs, made one: what a single GPU would have returned.

use crate::error::Error;
use crate::contract::{CounterSet, Program, RunResult};
use crate::stats::Stats;
use crate::gpu::run::join::decode_root_values;

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

/// How one GPU failed: because another did; by its watchdog, its kernel stopping when asked
/// (which may only mean that it waited for a GPU that failed otherwise); by its watchdog, its
/// kernel not stopping (a handler looping forever there); or on its own. Errors travel as
/// text: they may come from another process.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PeError {
    StoppedByPeer,
    TimedOut(String),
    Stuck(String),
    Failed(String),
}

impl From<Error> for PeError {
    fn from(e: Error) -> PeError {
        match e {
            Error::StoppedByPeer => PeError::StoppedByPeer,
            e @ Error::Watchdog { stopped: false, .. } => PeError::Stuck(e.to_string()),
            e @ Error::Watchdog { .. } => PeError::TimedOut(e.to_string()),
            e => PeError::Failed(e.to_string()),
        }
    }
}

/// Merges the GPUs' results, in GPU order. Counters are reduced as they are declared
/// (`Sum`, `Min`, `Max`); statistics are added, their per-worker lists put side by side
/// (GPU 0's workers first), the phases are the slowest GPU's. If any GPU failed, the run's
/// error names the first GPU that failed on its own, else the first whose kernel would not
/// stop (the others' watchdogs fired only because they waited for it), else the first whose
/// watchdog fired, else the first that stopped because another did. Root `r`'s value comes from GPU
/// `r % gpus`, to which it was dealt (`roots_of`).
pub(crate) fn merge<P: Program>(results: Vec<Result<PeResult<P::Counters>, PeError>>, roots: &[P::Task]) -> Result<RunResult<P>, Error> {
    let gpus = results.len() as u32;
    if let Some(gpu) = culprit(&results) {
        let message = match &results[gpu] {
            Err(PeError::Failed(m) | PeError::Stuck(m) | PeError::TimedOut(m)) => m.clone(),
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

/// `merge` of every GPU's result as its process sent it (`record.rs`). `broken` is called when
/// a GPU's kernel would not stop: it holds its GPU, so nothing collective can follow.
pub(crate) fn merge_sent<P: Program>(results: &[Vec<u8>], roots: &[P::Task], broken: impl FnOnce()) -> Result<RunResult<P>, Error> {
    let gpus = results.len() as u32;
    let decoded = results
        .iter()
        .enumerate()
        .map(|(gpu, bytes)| super::record::decode_result::<P>(bytes).map_err(|m| Error::OnGpu { gpu: gpu as u32, gpus, message: m }))
        .collect::<Result<Vec<_>, Error>>()?;
    if decoded.iter().any(|r| matches!(r, Err(PeError::Stuck(_)))) {
        broken();
    }
    merge::<P>(decoded, roots)
}

/// The GPU whose failure is the run's (see `merge`), if any failed.
fn culprit<T>(results: &[Result<T, PeError>]) -> Option<usize> {
    let first = |kind: fn(&PeError) -> bool| results.iter().position(|r| r.as_ref().err().is_some_and(kind));
    let own_failure = first(|e| matches!(e, PeError::Failed(_)));
    let stuck = first(|e| matches!(e, PeError::Stuck(_)));
    let timed_out = first(|e| matches!(e, PeError::TimedOut(_)));
    own_failure.or(stuck).or(timed_out).or_else(|| results.iter().position(|r| r.is_err()))
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
    run.per_gpu_run.push(gpu.phases.run);
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
        run.per_gpu_profile.push(g);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::RanOn;
    use crate::stats::Profile;
    use std::time::Duration;

    /// GPU 1's handler loops for ever; GPU 0's watchdog fired only because it waited for GPU 1.
    /// The run's error names GPU 1 and says a handler is probably looping forever.
    #[test]
    fn a_gpu_that_hangs_is_named_before_one_that_waited_for_it() {
        let watchdog = |stopped| PeError::from(Error::Watchdog { program: "spinning", on: RanOn::Gpu, limit: Duration::from_secs(2), stopped });
        let results: Vec<Result<(), PeError>> = vec![Err(watchdog(true)), Err(watchdog(false))];
        assert_eq!(culprit(&results), Some(1));
        let Err(PeError::Stuck(message)) = &results[1] else { panic!("{:?}", results[1]) };
        let error = Error::OnGpu { gpu: 1, gpus: 2, message: message.clone() };
        assert!(error.to_string().starts_with("GPU 1 of the 2 in the run failed"), "{error}");
        assert!(error.to_string().contains("`spinning`") && error.to_string().contains("looping forever"), "{error}");
        let failed: Vec<Result<(), PeError>> = vec![Err(PeError::StoppedByPeer), Err(watchdog(false)), Err(PeError::Failed("a fault".into()))];
        assert_eq!(culprit(&failed), Some(2), "a GPU that failed on its own comes first");
        assert_eq!(culprit(&[Ok::<(), PeError>(()), Err(PeError::StoppedByPeer)]), Some(1));
    }

    /// Each GPU's tasks and kernel time stay side by side; the run's kernel time is the longest.
    #[test]
    fn every_gpus_kernel_time_is_kept_and_the_run_takes_the_longest() {
        let mut run = Stats::default();
        for (tasks, ms) in [(90u64, 57u64), (10, 59)] {
            let mut gpu = Stats { tasks, ..Stats::default() };
            gpu.phases.run = Duration::from_millis(ms);
            add_stats(&mut run, gpu);
        }
        assert_eq!(run.per_gpu_tasks, [90, 10]);
        assert_eq!(run.per_gpu_run, [Duration::from_millis(57), Duration::from_millis(59)]);
        assert_eq!(run.phases.run, Duration::from_millis(59));
        assert!(run.to_string().contains("tasks per GPU: 90 / 10; kernel ms per GPU: 57.00 / 59.00;"), "{run}");
    }

    /// A profiled run keeps each GPU's profile beside the run's sum, and prints one line per GPU.
    #[test]
    fn each_gpus_profile_is_kept_and_printed() {
        let mut run = Stats::default();
        for (exec, search) in [(90u64, 10u64), (60, 40)] {
            let profile = Profile { total: 100, exec, search, batches: 1, lanes: 1, ..Profile::default() };
            add_stats(&mut run, Stats { profile: Some(profile), ..Stats::default() });
        }
        assert_eq!(run.profile.as_ref().map(|p| (p.total, p.exec, p.search)), Some((200, 150, 50)));
        assert_eq!(run.per_gpu_profile.iter().map(|p| p.search).collect::<Vec<_>>(), [10, 40]);
        let text = run.to_string();
        assert!(text.contains("\n  gpu 0     own queue 0.0%, search 10.0%"), "{text}");
        assert!(text.contains("\n  gpu 1     own queue 0.0%, search 40.0%"), "{text}");
    }
}
