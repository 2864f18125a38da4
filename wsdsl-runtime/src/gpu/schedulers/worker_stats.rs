//! The per-worker statistics every persistent kernel writes (`cuda/core/stats.cuh`): zeroed
//! before the launch, read back after it into [`Stats`]. Their layout is `wsdsl-abi`'s.

use crate::error::Error;
use crate::gpu::run::target::Target;
use crate::stats::{Phases, Profile, Stats};
use wsdsl_abi::stats::{COUNTER_WORDS, STATS_PER_WORKER, STAT_PEAK, STAT_REMOTE_STEALS, STAT_STEALS, STAT_STEAL_TRIES, STAT_TASKS};

/// Statistics from the little-endian `image` of the per-worker words that every persistent
/// kernel writes (`STATS_PER_WORKER` u64 per worker, `cuda/core/stats.cuh`: tasks, steal attempts,
/// steals, peak queue occupancy, tasks stolen from other GPUs, then the profile words, all
/// zero unless the kernel was profiled), read where it came back to.
pub(crate) fn worker_stats(image: &[u8], queue_capacity: u64, phases: Phases) -> Stats {
    let mut stats = Stats { queue_capacity, phases, ..Stats::default() };
    let mut profile = Profile::default();
    let workers = image.len() / (8 * STATS_PER_WORKER);
    stats.per_worker_tasks.reserve_exact(workers);
    stats.per_worker_steals.reserve_exact(workers);
    stats.per_worker_peak.reserve_exact(workers);
    for worker in image.chunks_exact(8 * STATS_PER_WORKER) {
        let mut w = [0u64; STATS_PER_WORKER];
        w.iter_mut().zip(worker.chunks_exact(8)).for_each(|(w, b)| *w = u64::from_le_bytes(b.try_into().expect("8 bytes")));
        stats.tasks += w[STAT_TASKS];
        stats.steal_attempts += w[STAT_STEAL_TRIES];
        stats.steals += w[STAT_STEALS];
        stats.remote_steals += w[STAT_REMOTE_STEALS];
        stats.peak_queue = stats.peak_queue.max(w[STAT_PEAK]);
        stats.per_worker_tasks.push(w[STAT_TASKS]);
        stats.per_worker_steals.push(w[STAT_STEALS]);
        stats.per_worker_peak.push(w[STAT_PEAK]);
        // A worker's profile starts with its total cycles: zero unless the kernel was profiled.
        if w[COUNTER_WORDS] != 0 {
            profile.add_worker(&w[COUNTER_WORDS..]);
        }
    }
    if profile.total > 0 {
        stats.profile = Some(profile);
    }
    stats
}

/// Zeroed per-worker statistics for `workers` workers of a persistent kernel; their address.
pub(crate) fn zeroed_worker_stats<T: Target>(target: &mut T, workers: u32) -> Result<u64, Error> {
    target.zeroed(WORKER_STATS, workers as usize * STATS_PER_WORKER * 8)
}

/// The statistics that `workers` workers of a persistent kernel left, with queues of
/// `queue_capacity` slots.
pub(crate) fn read_worker_stats<T: Target>(target: &mut T, workers: u32, queue_capacity: u64, phases: Phases) -> Result<Stats, Error> {
    target.read_with(WORKER_STATS, workers as usize * STATS_PER_WORKER * 8, |image| worker_stats(image, queue_capacity, phases))
}


/// Memory role of the per-worker statistics of the persistent kernels.
pub(crate) const WORKER_STATS: &str = "worker statistics";
