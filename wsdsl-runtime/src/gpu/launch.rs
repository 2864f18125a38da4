//! Launching a kernel whose one argument is a launch record: copy the record to the device,
//! launch between two events, wait under the watchdog, and time it (every run on a GPU goes
//! through here, `on_gpu.rs`); and the per-worker statistics every persistent kernel writes.

use super::device::GpuDevice;
use super::inputs::ptr;
use super::target::Target;
use super::watchdog::{watch, StopFlag};
use crate::error::Error;
use crate::stats::{Phases, Profile, Stats, PROFILE_WORDS};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};
use std::time::{Duration, Instant};

/// The bytes of a plain-old-data launch record (`#[repr(C)]`, no padding).
pub(crate) fn record_bytes<R: Copy>(record: &R) -> &[u8] {
    // SAFETY: callers pass `#[repr(C)]` records of u64 and u32 fields without padding, so
    // every byte is initialised.
    unsafe { std::slice::from_raw_parts(record as *const R as *const u8, std::mem::size_of::<R>()) }
}

/// How a kernel is launched.
pub(crate) struct Launch<'a> {
    pub func: &'a CudaFunction,
    pub grid: u32,
    pub block: u32,
    /// Cooperative launch: every block resident at once (persistent kernels need it).
    pub cooperative: bool,
    /// The watchdog's limit, counted from `since`.
    pub limit: Duration,
    pub since: Instant,
    pub what: &'static str,
    /// The program, as a watchdog error names it.
    pub program: &'static str,
}

/// Launches with a device copy of `record` and waits. Returns the kernel time from events.
/// A watchdog error with `stopped: false` means the kernel still runs: the record is leaked
/// here, and the caller must leak every buffer the record points to.
///
/// # Safety
/// `record` must describe device memory that outlives the kernel, and `launch.func` must take
/// one pointer to a record of this layout.
pub(crate) unsafe fn launch_with_record(
    dev: &GpuDevice,
    launch: &Launch<'_>,
    record: &[u8],
    stop: &StopFlag,
) -> Result<Duration, Error> {
    let stream = &dev.stream;
    let record_dev = stream.clone_htod(record).map_err(Error::driver("copying the launch record"))?;
    let record_ptr = ptr(&record_dev, stream);
    let start = dev.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(Error::driver("creating events"))?;
    let end = dev.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(Error::driver("creating events"))?;
    start.record(stream).map_err(Error::driver("recording an event"))?;
    let cfg = LaunchConfig { grid_dim: (launch.grid, 1, 1), block_dim: (launch.block, 1, 1), shared_mem_bytes: 0 };
    let mut builder = stream.launch_builder(launch.func);
    builder.arg(&record_ptr);
    // SAFETY: the caller guarantees the record's memory outlives the kernel, which is waited
    // for below; a cooperative grid is within the occupancy limit (checked by the caller).
    let launched = unsafe {
        if launch.cooperative { builder.launch_cooperative(cfg) } else { builder.launch(cfg) }
    };
    launched.map_err(Error::driver(launch.what))?;
    end.record(stream).map_err(Error::driver("recording an event"))?;
    if let Err(e) = watch(&end, launch.since, launch.limit, stop, launch.program) {
        if let Error::Watchdog { stopped: false, .. } = e {
            // The kernel ignores the stop request: freeing its memory would block forever.
            std::mem::forget((record_dev, start, end));
        }
        return Err(e);
    }
    let ms = start.elapsed_ms(&end).map_err(Error::driver("timing the run"))?;
    Ok(Duration::from_secs_f64(ms as f64 / 1e3))
}

/// Statistics from the little-endian `image` of the per-worker words that every persistent
/// kernel writes (`STATS_PER_WORKER` u64 per worker, `cuda/stats.cuh`: tasks, steal attempts,
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
        stats.tasks += w[0];
        stats.steal_attempts += w[1];
        stats.steals += w[2];
        stats.remote_steals += w[4];
        stats.peak_queue = stats.peak_queue.max(w[3]);
        stats.per_worker_tasks.push(w[0]);
        stats.per_worker_steals.push(w[2]);
        stats.per_worker_peak.push(w[3]);
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

/// Counters per worker before the profile words (`WS_STAT_COUNT`).
const COUNTER_WORDS: usize = 5;
/// u64 statistics per worker (`WS_STAT_WORDS` in `cuda/stats.cuh`).
pub(crate) const STATS_PER_WORKER: usize = COUNTER_WORDS + PROFILE_WORDS;

/// Memory role of the per-worker statistics of the persistent kernels.
pub(crate) const WORKER_STATS: &str = "worker statistics";
