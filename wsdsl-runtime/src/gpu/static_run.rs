//! A run of the static baseline: two task arrays, one kernel launch per generation, until a
//! generation spawns nothing (Cederman & Tsigas, section 35.3.1).

use super::device::GpuDevice;
use super::inputs::{check_status, clear_status, encode_tasks, Inputs};
use super::join::{JoinPool, PoolShape};
use super::module::load;
use super::launch::{launch_with_record, Launch};
use super::GpuOptions;
use crate::error::Error;
use crate::program::{Program, RunResult};
use crate::stats::{Phases, Stats};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Workspace roles: the two task arrays (a generation reads one, writes the other) and the
/// count of tasks a generation wrote.
const ARRAY_A: &str = "static task array A";
const ARRAY_B: &str = "static task array B";
const TASK_COUNT: &str = "static task count";

/// Largest default array capacity (tasks); the memory budget may lower it.
const DEFAULT_MAX_CAPACITY: u64 = 1 << 26;

/// Host mirror of `struct ws_static_launch` in `cuda/static_baseline.cuh`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct StaticRecord {
    pub input: u64,
    pub output: u64,
    pub out_count: u64,
    pub params: u64,
    pub buffers: u64,
    pub counter_slots: u64,
    pub stop: u64,
    pub n_in: u32,
    pub capacity: u32,
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
        .map_err(Error::driver("querying occupancy"))?
        .max(1);
    // At most this many blocks per SM, like the persistent kernels (a generation may need fewer).
    let per_sm = opts.blocks_per_sm.map_or(fit, |b| b.clamp(1, fit));
    // Device memory from the device's workspace (kept between runs). A generation reads
    // only the slots the previous one wrote (below its count); the rest is initialised here.
    let mut ws = dev.workspace.lock().unwrap_or_else(|e| e.into_inner());
    // The program's own data first: the task arrays are sized by the memory left after it.
    let inputs = Inputs::upload::<P>(stream, &mut ws, params, buffers)?;
    let free = ws.free_for(&dev.ctx, &[ARRAY_A, ARRAY_B])?;
    let capacity = choose_capacity::<P>(free, opts.capacity, roots.len() as u64)?;
    let bytes = capacity as usize * P::TASK_BYTES;
    let mut current = ws.buffer(stream, ARRAY_A, bytes)?;
    let mut next = ws.buffer(stream, ARRAY_B, bytes)?;
    ws.upload(stream, ARRAY_A, &encode_tasks::<P>(roots))?;
    let stop = ws.stop_flag(&dev.ctx)?.device;
    clear_status(&module, stream)?;
    // The frames outlive generations: a task waits for children of later ones.
    let shape = PoolShape::of(&opts.kernel, (per_sm * dev.sm_count) as usize * block as usize);
    let join = JoinPool::prepare::<P>(dev, &module, &mut ws, roots.len(), shape, opts.frames)?;
    stream.synchronize().map_err(Error::driver("preparing the launch"))?;
    phases.launch = t1.elapsed();

    // A thread takes a task at a time, or a whole worker in a cooperative schedule.
    let tasks_per_block = (if opts.kernel.cooperative { block / opts.kernel.worker_threads() } else { block }) as u64;
    let launched = Instant::now();
    // Progress is the host's own count of the generations' tasks.
    let done = AtomicU64::new(0);
    let generations = opts.progress.report_while(P::NAME, &|| done.load(Ordering::Relaxed), || -> Result<_, Error> {
        let (mut n, mut tasks, mut widest, mut generations) = (roots.len() as u64, 0u64, roots.len() as u64, 0u64);
        while n > 0 {
            let out_count = ws.zeroed(stream, TASK_COUNT, 4)?;
            let record = StaticRecord {
                input: current,
                output: next,
                out_count,
                params: inputs.params_ptr(stream),
                buffers: inputs.buffers_ptr(stream),
                counter_slots: inputs.counters_ptr(stream),
                stop,
                n_in: n as u32,
                capacity: capacity as u32,
            };
            let launch = Launch {
                func: &func,
                grid: (n.div_ceil(tasks_per_block) as u32).clamp(1, per_sm * dev.sm_count),
                block,
                cooperative: false,
                limit: opts.watchdog,
                since: launched,
                what: "launching a generation",
                program: P::NAME,
            };
            // SAFETY: the record points to workspace memory that outlives the launch
            // (abandoned, not freed, if the kernel ignores a stop request).
            if let Err(e) = unsafe { launch_with_record(dev, &launch, &record, ws.stop()) } {
                if let Error::Watchdog { stopped: false, .. } = e {
                    ws.abandon();
                }
                return Err(e);
            }
            check_status::<P>(&module, stream, |_| "the static scheduler's task array".into())?;
            let count = ws.read_bytes(stream, TASK_COUNT, 4)?;
            let created = u32::from_le_bytes(count[..4].try_into().expect("4 bytes")) as u64;
            if created > capacity {
                return Err(Error::QueueOverflow {
                    queue: format!("the static scheduler's task array (generation {})", generations + 1),
                    capacity,
                    needed: created,
                });
            }
            tasks += n;
            done.store(tasks, Ordering::Relaxed);
            generations += 1;
            widest = widest.max(created);
            std::mem::swap(&mut current, &mut next);
            n = created;
        }
        Ok((tasks, widest, generations))
    });
    if let Err(Error::Watchdog { stopped: false, .. }) = generations {
        // The kernel still runs: its memory must stay valid.
        std::mem::forget((inputs, module));
        return Err(generations.unwrap_err());
    }
    let (tasks, widest, generations) = generations?;
    phases.run = launched.elapsed();

    let t2 = Instant::now();
    let counters = inputs.read_back::<P>(stream, &mut ws, buffers)?;
    let mut stats = Stats { tasks, generations, peak_queue: widest, queue_capacity: capacity, phases, ..Stats::default() };
    let values = JoinPool::results::<P>(&join, &module, stream, &ws, roots, &mut stats)?;
    stats.phases.copy_back = t2.elapsed();
    Ok((counters, values, stats))
}

/// Slots per task array: the requested number, or the largest power of two up to 2^26 with
/// both arrays within a third of `free` device memory (and at least the roots).
fn choose_capacity<P: Program>(free: usize, requested: Option<u32>, roots: u64) -> Result<u64, Error> {
    let per_slot = 2 * P::TASK_BYTES as u64;
    let capacity = match requested {
        Some(c) => c as u64,
        None => {
            let fit = (free as u64 / 3) / per_slot;
            let mut c = DEFAULT_MAX_CAPACITY;
            while c > 1024 && c > fit {
                c /= 2;
            }
            c.max(roots)
        }
    };
    if roots > capacity {
        return Err(Error::QueueOverflow { queue: "the static scheduler's task array (initial tasks)".into(), capacity, needed: roots });
    }
    if capacity * per_slot > free as u64 || capacity > u32::MAX as u64 {
        return Err(Error::InvalidConfig(format!(
            "two task arrays of {capacity} slots of {} bytes do not fit in {} MiB of free device memory",
            P::TASK_BYTES,
            free >> 20
        )));
    }
    Ok(capacity)
}
