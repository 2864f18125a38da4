//! A run of the persistent megakernel: size the grid, allocate the deques, launch once
//! cooperatively, watch, read back.

use super::device::GpuDevice;
use super::inputs::{check_status, clear_status, encode_tasks, Inputs};
use super::join::{JoinPool, PoolShape};
use super::module::load;
use super::launch::{launch_with_record, worker_stats, Launch, STATS_PER_WORKER, WORKER_STATS};
use super::GpuOptions;
use crate::error::Error;
use crate::program::{Program, RunResult};
use crate::stats::Phases;

use std::time::Instant;

/// Bytes of one deque control block (`struct ws_deque`, one 128-byte line).
pub(crate) const DEQUE_BYTES: usize = 128;
/// Entries of the per-SM leader table (SM ids are below the SM count; this is generous).
pub(crate) const MAX_SM_IDS: usize = 4096;
/// Workspace role of the deques' task slots.
const SLOTS: &str = "deque slots";
/// Largest default deque capacity; the memory budget may lower it. A batch whose tasks each
/// spawn up to 256 children (a parallel partition) needs 8192 slots above what the deque holds.
const DEFAULT_MAX_CAPACITY: u64 = 32768;

/// Host mirror of `struct ws_launch` in `cuda/launch.cuh` (same order, C layout).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct LaunchRecord {
    pub slots: u64,
    pub deques: u64,
    pub roots: u64,
    pub params: u64,
    pub buffers: u64,
    pub counter_slots: u64,
    pub stats: u64,
    /// `ws_pe_state`: idle workers and the run-wide flags (`cuda/termination.cuh`).
    pub state: u64,
    pub stop: u64,
    pub progress: u64,
    pub sm_of: u64,
    pub sm_leader: u64,
    pub workers: u32,
    pub capacity: u32,
    pub root_count: u32,
    pub seed: u32,
    /// Multi-GPU runs: where every GPU's symmetric heap is mapped for this GPU (`cuda/pe.cuh`).
    pub pe_heaps: u64,
    /// This GPU's index in a multi-GPU run, and the number of GPUs (0 and 1 alone).
    pub pe: u32,
    pub n_pes: u32,
}

pub(crate) fn run<P: Program>(
    dev: &GpuDevice,
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    opts: &GpuOptions,
) -> Result<RunResult<P>, Error> {
    let mut phases = Phases::default();
    let (module, func) = load::<P>(dev, &opts.kernel, &mut phases)?;

    let t1 = Instant::now();
    let stream = &dev.stream;
    let block = opts.kernel.block_threads;
    let fit = func
        .occupancy_max_active_blocks_per_multiprocessor(block, 0, None)
        .map_err(Error::driver("querying occupancy"))?;
    if fit == 0 {
        return Err(Error::InvalidConfig(format!(
            "the megakernel of `{}` does not fit one block of {block} threads on an SM (too many registers); try a smaller block",
            P::NAME
        )));
    }
    let per_sm = opts.blocks_per_sm.map_or(fit, |b| b.clamp(1, fit));
    let grid = per_sm * dev.sm_count;
    let workers = grid * (block / opts.kernel.worker_threads());
    let mut ws = dev.workspace.lock().unwrap_or_else(|e| e.into_inner());
    // The program's own data first: the deques are sized by the memory left after it.
    let inputs = Inputs::upload::<P>(stream, &mut ws, params, buffers)?;
    let capacity = choose_capacity::<P>(ws.free_for(&dev.ctx, &[SLOTS])?, workers as u64, opts.capacity)?;
    let needed_for_roots = (roots.len() as u64).div_ceil(workers as u64);
    if needed_for_roots > capacity {
        return Err(Error::QueueOverflow {
            queue: "a worker deque (holding the initial tasks)".into(),
            capacity,
            needed: needed_for_roots,
        });
    }

    // Device memory from the device's workspace (kept between runs: a warm run allocates
    // nothing). Slots are written before they are read (deque invariant); the rest is
    // initialised here, asynchronously, before the launch.
    let slots = ws.buffer(stream, SLOTS, workers as usize * capacity as usize * P::TASK_BYTES)?;
    let deques = ws.zeroed(stream, "deque control blocks", workers as usize * DEQUE_BYTES)?;
    let roots_dev = ws.upload(stream, "initial tasks", &encode_tasks::<P>(roots))?;
    let stat_count = workers as usize * STATS_PER_WORKER;
    let stats_dev = ws.zeroed(stream, WORKER_STATS, stat_count * 8)?;
    let idle_dev = ws.zeroed(stream, "idle counter", 128)?;
    // SM placement tables for the victim policies: "unknown" (all ones) until workers write them.
    let sm_of_dev = ws.upload(stream, "SM of each worker", &vec![u32::MAX; workers as usize])?;
    let sm_leader_dev = ws.upload(stream, "SM leaders", &vec![u32::MAX; MAX_SM_IDS])?;
    clear_status(&module, stream)?;
    let shape = PoolShape::of(&opts.kernel, grid as usize * block as usize);
    let join = JoinPool::prepare::<P>(dev, &module, &mut ws, roots.len(), shape, opts.frames)?;
    let stop_device = ws.stop_flag(&dev.ctx)?.device;
    // Progress words only when someone watches: otherwise the kernel writes none.
    let progress = if opts.progress.watched() { ws.progress_words(&dev.ctx, workers as usize)? } else { 0 };

    let record = LaunchRecord {
        slots,
        deques,
        roots: roots_dev,
        params: inputs.params_ptr(stream),
        buffers: inputs.buffers_ptr(stream),
        counter_slots: inputs.counters_ptr(stream),
        stats: stats_dev,
        state: idle_dev,
        stop: stop_device,
        progress,
        sm_of: sm_of_dev,
        sm_leader: sm_leader_dev,
        workers,
        capacity: capacity as u32,
        root_count: roots.len() as u32,
        seed: 0x5EED_1234,
        pe_heaps: 0,
        pe: 0,
        n_pes: 1,
    };
    stream.synchronize().map_err(Error::driver("preparing the launch"))?;
    phases.launch = t1.elapsed();

    let launch = Launch {
        func: &func,
        grid,
        block,
        cooperative: true,
        limit: opts.watchdog,
        since: Instant::now(),
        what: "launching the megakernel",
        program: P::NAME,
    };
    // While the kernel runs, whoever watches reads the workers' progress words.
    let launched = {
        let ws = &*ws;
        let done = || ws.progress_published(workers as usize);
        // SAFETY: the record points to workspace memory that outlives the kernel (abandoned, not
        // freed, if the kernel ignores a stop request), and the grid is at most the occupancy
        // limit (the persistent workers need every block resident).
        opts.progress.report_while(P::NAME, &done, || unsafe { launch_with_record(dev, &launch, &record, ws.stop()) })
    };
    match launched {
        Ok(run) => phases.run = run,
        Err(e) => {
            if let Error::Watchdog { stopped: false, .. } = e {
                // The kernel still runs: its memory must stay valid.
                ws.abandon();
                std::mem::forget((inputs, module));
            }
            return Err(e);
        }
    }

    let t2 = Instant::now();
    check_status::<P>(&module, stream, |w| format!("the deque of GPU worker {w} (program `{}`)", P::NAME))?;
    let counters = inputs.read_back::<P>(stream, &mut ws, buffers)?;
    let stat_words = ws.read_u64(stream, WORKER_STATS, stat_count)?;
    let mut stats = worker_stats(&stat_words, capacity, phases);
    let values = JoinPool::results::<P>(&join, &module, stream, &ws, roots, &mut stats)?;
    stats.phases.copy_back = t2.elapsed();
    Ok((counters, values, stats))
}

/// Deque slots per worker: the requested number, or the largest power of two up to
/// `DEFAULT_MAX_CAPACITY` that keeps all deques within a third of free device memory.
fn choose_capacity<P: Program>(free: usize, workers: u64, requested: Option<u32>) -> Result<u64, Error> {
    let per_slot = workers * P::TASK_BYTES as u64;
    let capacity = match requested {
        Some(c) => c as u64,
        None => {
            let fit = (free as u64 / 3) / per_slot.max(1);
            let mut c = DEFAULT_MAX_CAPACITY;
            while c > 16 && c > fit {
                c /= 2;
            }
            c
        }
    };
    if capacity == 0 || capacity * per_slot > free as u64 {
        return Err(Error::InvalidConfig(format!(
            "{workers} deques of {capacity} slots of {} bytes do not fit in {} MiB of free device memory",
            P::TASK_BYTES,
            free >> 20
        )));
    }
    Ok(capacity)
}
