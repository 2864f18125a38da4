//! A run of the persistent megakernel over the Broker Queue family (`cuda/broker_megakernel.cuh`):
//! BQ and BWD (one queue for the grid) and BSQ (one queue per block). Size the queues, bake
//! their slot count into the kernel (the queue's N is a template constant), launch once
//! cooperatively, watch, read back.

use super::assemble::{kernel_source, KernelConfig, Scheduler};
use super::device::GpuDevice;
use super::inputs::{check_status, clear_status, encode_tasks, Inputs};
use super::join::{JoinPool, PoolShape};
use super::module::load_source;
use super::launch::{launch_with_record, worker_stats, Launch, STATS_PER_WORKER, WORKER_STATS};
use super::GpuOptions;
use crate::error::Error;
use crate::program::{Program, RunResult};
use crate::stats::Phases;
use std::time::Instant;

/// Children one thread's task may spawn in one batch (staging area per worker: this many per
/// thread of the worker).
pub const STAGING_PER_THREAD: u32 = 64;
/// Most slots of all queues together, by default (the memory budget may lower it).
const DEFAULT_MAX_TOTAL_SLOTS: u64 = 1 << 26;
/// Most slots of one queue (ticket rounds stay plentiful: 2^32 / N; broker_queue.cuh).
pub const MAX_SLOTS: u64 = 1 << 28;
/// Fewest slots of one queue, by default.
const DEFAULT_MIN_SLOTS: u64 = 1 << 10;
/// Overflow `arg0` tag of a queue (else it is the worker whose staging area overflowed).
pub(crate) const QUEUE_TAG: u64 = 1 << 32;

/// Host mirror of `struct ws_broker_launch` in `cuda/broker_megakernel.cuh` (same order).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct BrokerRecord {
    pub queues: u64,
    pub staging: u64,
    pub roots: u64,
    pub params: u64,
    pub buffers: u64,
    pub counter_slots: u64,
    pub stats: u64,
    pub pending: u64,
    pub stop: u64,
    pub progress: u64,
    pub workers: u32,
    pub queue_count: u32,
    pub staging_cap: u32,
    pub root_count: u32,
}

/// The kernel source of a broker scheduler with queues of `slots` slots (a power of two).
pub fn broker_kernel_source<P: Program>(config: &KernelConfig, slots: u64) -> String {
    format!("{}{}", slots_define(slots), kernel_source::<P>(config))
}

/// The line that fixes the queues' slot count (a template constant of the queue).
pub(crate) fn slots_define(slots: u64) -> String {
    format!("#define WSDSL_BROKER_SLOTS {slots}u\n")
}

/// Slots per queue for a requested capacity: the next power of two (at least 2).
pub fn slots_for(requested: u32) -> u64 {
    (requested as u64).next_power_of_two().max(2)
}

pub(crate) fn name(config: &KernelConfig) -> &'static str {
    match config.scheduler {
        Scheduler::Bq => "BQ",
        Scheduler::Bwd => "BWD",
        _ => "BSQ",
    }
}

pub(crate) fn run<P: Program>(
    dev: &GpuDevice,
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    opts: &GpuOptions,
) -> Result<RunResult<P>, Error> {
    let mut phases = Phases::default();
    let config = &opts.kernel;
    let per_queue = config.scheduler == Scheduler::Bsq;
    let block = config.block_threads;
    let group = config.worker_threads();
    // The BSQ has a queue per block, and the grid is known only once the kernel is compiled;
    // size the queues for the most blocks an SM can hold (2048 threads, 32 blocks).
    let resident = (2048 / block).clamp(1, 32);
    let per_sm_bound = opts.blocks_per_sm.map_or(resident, |b| b.clamp(1, resident));
    let queues_bound = if per_queue { (per_sm_bound * dev.sm_count) as u64 } else { 1 };
    let staging_cap = group * STAGING_PER_THREAD;
    let staging_bytes_bound = (per_sm_bound * dev.sm_count * block) as u64 * STAGING_PER_THREAD as u64 * P::TASK_BYTES as u64;
    let slots = choose_slots::<P>(dev, queues_bound, staging_bytes_bound, opts.capacity)?;
    let source = broker_kernel_source::<P>(config, slots);
    let (module, func) = load_source::<P>(dev, &source, config.entry_point(), &mut phases)?;

    let t1 = Instant::now();
    let stream = &dev.stream;
    let fit = func
        .occupancy_max_active_blocks_per_multiprocessor(block, 0, None)
        .map_err(Error::driver("querying occupancy"))?;
    if fit == 0 {
        return Err(Error::InvalidConfig(format!(
            "the broker megakernel of `{}` does not fit one block of {block} threads on an SM (too many registers); try a smaller block",
            P::NAME
        )));
    }
    let per_sm = opts.blocks_per_sm.map_or(fit, |b| b.clamp(1, fit)).min(per_sm_bound);
    let grid = per_sm * dev.sm_count;
    let workers = grid * (block / group);
    let queue_count = if per_queue { grid } else { 1 };
    let queue_bytes = {
        let view = module
            .get_global("wsdsl_broker_queue_bytes", stream)
            .map_err(Error::driver("finding the queue size"))?;
        let bytes = stream.clone_dtoh(&view).map_err(Error::driver("reading the queue size"))?;
        u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"))
    };
    // Roots: worker w enqueues [w*R/W, (w+1)*R/W) into its queue; a queue receives those of
    // the workers it serves.
    let r = roots.len() as u64;
    let served = (workers / queue_count) as u64;
    let needed_for_roots = (0..queue_count as u64)
        .map(|q| ((q + 1) * served * r / workers as u64) - (q * served * r / workers as u64))
        .max()
        .unwrap_or(0);
    if needed_for_roots > slots {
        return Err(Error::QueueOverflow {
            queue: format!("the {} queue of {slots} slots (holding the initial tasks)", name(config)),
            capacity: slots,
            needed: needed_for_roots,
        });
    }

    // Device memory from the device's workspace (kept between runs). A worker reads only
    // the staging entries its own batch wrote; the rest is initialised here.
    let mut ws = dev.workspace.lock().unwrap_or_else(|e| e.into_inner());
    let queues = ws.zeroed(stream, "broker queues", (queue_count as u64 * queue_bytes) as usize)?;
    let staging = ws.buffer(stream, "broker staging areas", workers as usize * staging_cap as usize * P::TASK_BYTES)?;
    let roots_dev = ws.upload(stream, "initial tasks", &encode_tasks::<P>(roots))?;
    let inputs = Inputs::upload::<P>(stream, &mut ws, params, buffers)?;
    let stat_count = workers as usize * STATS_PER_WORKER;
    let stats_dev = ws.zeroed(stream, WORKER_STATS, stat_count * 8)?;
    let pending_dev = ws.upload(stream, "broker pending tasks", &[roots.len() as u32])?;
    let stop = ws.stop_flag(&dev.ctx)?.device;
    // Progress words only when someone watches: otherwise the kernel writes none.
    let progress = if opts.progress.watched() { ws.progress_words(&dev.ctx, workers as usize)? } else { 0 };
    clear_status(&module, stream)?;
    let shape = PoolShape::of(&opts.kernel, grid as usize * block as usize);
    let join = JoinPool::prepare::<P>(dev, &module, &mut ws, roots.len(), shape, opts.frames)?;

    let record = BrokerRecord {
        queues,
        staging,
        roots: roots_dev,
        params: inputs.params_ptr(stream),
        buffers: inputs.buffers_ptr(stream),
        counter_slots: inputs.counters_ptr(stream),
        stats: stats_dev,
        pending: pending_dev,
        stop,
        progress,
        workers,
        queue_count,
        staging_cap,
        root_count: roots.len() as u32,
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
        what: "launching the broker megakernel",
        program: P::NAME,
    };
    // While the kernel runs, whoever watches reads the workers' progress words.
    let launched = {
        let ws = &*ws;
        let done = || ws.progress_published(workers as usize);
        // SAFETY: the record points to workspace memory that outlives the kernel (abandoned,
        // not freed, if the kernel ignores a stop request); the grid is at most the occupancy
        // limit and the launch cooperative, so every block is resident at once, which the
        // persistent workers (and the queues' ticket waits) rely on.
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
    let kind = name(config);
    check_status::<P>(&module, stream, |arg| {
        if arg >= QUEUE_TAG {
            let q = arg - QUEUE_TAG;
            if per_queue {
                format!("the BSQ queue of block {q} (program `{}`)", P::NAME)
            } else {
                format!("the {kind} queue (program `{}`)", P::NAME)
            }
        } else {
            format!(
                "the child staging area of GPU worker {arg} ({STAGING_PER_THREAD} children per task of a batch; program `{}`)",
                P::NAME
            )
        }
    })?;
    let counters = inputs.read_back::<P>(stream, &mut ws, buffers)?;
    let stat_words = ws.read_u64(stream, WORKER_STATS, stat_count)?;
    let mut stats = worker_stats(&stat_words, slots, phases);
    let values = JoinPool::results::<P>(&join, &module, stream, &ws, roots, &mut stats)?;
    stats.phases.copy_back = t2.elapsed();
    Ok((counters, values, stats))
}

/// Slots per queue: the requested capacity rounded up to a power of two, or the largest power
/// of two with all queues together within 2^26 slots and a third of free device memory (less
/// the staging areas).
fn choose_slots<P: Program>(dev: &GpuDevice, queues: u64, staging_bytes: u64, requested: Option<u32>) -> Result<u64, Error> {
    let (free, _) = dev.ctx.mem_get_info().map_err(Error::driver("reading free memory"))?;
    let free = free as u64;
    // A slot holds a task padded to 32-bit words plus its ticket.
    let per_slot = queues * (P::TASK_BYTES as u64).div_ceil(4) * 4 + queues * 4;
    let slots = match requested {
        Some(c) => slots_for(c),
        None => {
            let budget = (free / 3).saturating_sub(staging_bytes);
            let mut s = (DEFAULT_MAX_TOTAL_SLOTS / queues.max(1)).next_power_of_two();
            if s * queues > DEFAULT_MAX_TOTAL_SLOTS {
                s /= 2;
            }
            while s > DEFAULT_MIN_SLOTS && s * per_slot > budget {
                s /= 2;
            }
            s.max(2)
        }
    };
    if slots > MAX_SLOTS {
        return Err(Error::InvalidConfig(format!("a broker queue holds at most {MAX_SLOTS} slots, not {slots}")));
    }
    if slots * per_slot + staging_bytes > free {
        return Err(Error::InvalidConfig(format!(
            "{queues} broker queue(s) of {slots} slots of {} bytes and the staging areas ({} MiB) do not fit in {} MiB of free device memory",
            P::TASK_BYTES,
            staging_bytes >> 20,
            free >> 20
        )));
    }
    Ok(slots)
}
