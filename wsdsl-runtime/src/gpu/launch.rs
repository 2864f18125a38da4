//! One GPU run: load the kernel, size the grid, allocate queues, launch, watch, read back.

use super::assemble::{megakernel_source, stable_hash, KernelConfig};
use super::compile::compile_cached;
use super::device::GpuDevice;
use crate::buffer::BufferSet;
use crate::error::Error;
use crate::program::{CounterSet, Program};
use crate::stats::{Phases, Stats};
use cudarc::driver::sys::{CUevent_flags, CU_MEMHOSTALLOC_DEVICEMAP, CU_MEMHOSTALLOC_PORTABLE};
use cudarc::driver::{CudaFunction, CudaSlice, DevicePtr, LaunchConfig, PushKernelArg};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Bytes of one deque control block (`struct ws_deque`, one 128-byte line).
const DEQUE_BYTES: usize = 128;
/// u64 statistics per worker (`WS_STAT_COUNT`).
const STATS_PER_WORKER: usize = 4;
/// Entries of the per-SM leader table (SM ids are below the SM count; this is generous).
const MAX_SM_IDS: usize = 4096;
/// Largest default deque capacity; the memory budget may lower it.
const DEFAULT_MAX_CAPACITY: u64 = 8192;

/// Knobs of a GPU run.
#[derive(Debug, Clone)]
pub struct GpuOptions {
    pub kernel: KernelConfig,
    /// Slots per worker deque; `None` picks a default from free device memory.
    pub deque_capacity: Option<u32>,
    /// Stop the run (and report an error) after this long.
    pub watchdog: Duration,
    /// Cap on blocks per SM (default: as many as fit).
    pub blocks_per_sm: Option<u32>,
}

/// Host mirror of `struct ws_launch` in `cuda/megakernel.cuh` (same order, C layout).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct LaunchRecord {
    slots: u64,
    deques: u64,
    roots: u64,
    params: u64,
    buffers: u64,
    counter_slots: u64,
    stats: u64,
    idle: u64,
    stop: u64,
    sm_of: u64,
    sm_leader: u64,
    workers: u32,
    capacity: u32,
    root_count: u32,
    seed: u32,
}

/// Status record of the kernel (`struct ws_status_record` in `cuda/status.cuh`).
const STATUS_OVERFLOW: u64 = 1;
const STATUS_FAULT: u64 = 2;

pub(crate) fn run<P: Program>(
    dev: &GpuDevice,
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    opts: &GpuOptions,
) -> Result<(P::Counters, Stats), Error> {
    let mut phases = Phases::default();
    let t0 = Instant::now();
    let (module, func) = load::<P>(dev, &opts.kernel, &mut phases)?;
    phases.compile = t0.elapsed();

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
    let capacity = choose_capacity::<P>(dev, workers as u64, opts.deque_capacity)?;
    let needed_for_roots = (roots.len() as u64).div_ceil(workers as u64);
    if needed_for_roots > capacity {
        return Err(Error::QueueOverflow {
            queue: "a worker deque (holding the initial tasks)".into(),
            capacity,
            needed: needed_for_roots,
        });
    }

    let alloc_err = Error::driver("allocating device memory");
    // SAFETY: every slot is written before it is read (deque invariant: slots below tail).
    let slots: CudaSlice<u8> =
        unsafe { stream.alloc(workers as usize * capacity as usize * P::TASK_BYTES) }.map_err(alloc_err)?;
    let deques = stream.alloc_zeros::<u8>(workers as usize * DEQUE_BYTES).map_err(Error::driver("allocating deques"))?;
    let mut root_bytes = vec![0u8; roots.len().max(1) * P::TASK_BYTES];
    for (i, r) in roots.iter().enumerate() {
        P::encode_task(r, &mut root_bytes[i * P::TASK_BYTES..(i + 1) * P::TASK_BYTES]);
    }
    let roots_dev = stream.clone_htod(&root_bytes).map_err(Error::driver("copying the initial tasks"))?;
    let mut param_bytes = vec![0u8; P::PARAMS_BYTES.max(1)];
    P::encode_params(params, &mut param_bytes);
    let params_dev = stream.clone_htod(&param_bytes).map_err(Error::driver("copying the parameters"))?;
    // Each user buffer goes to the device as is; `struct wsdsl_buffers` lists (pointer, length).
    let user_buffers = buffers.buffers();
    let mut buffers_dev: Vec<CudaSlice<u8>> = Vec::with_capacity(user_buffers.len());
    let mut buffer_table: Vec<u64> = Vec::with_capacity(2 * user_buffers.len());
    for b in &user_buffers {
        let bytes = b.to_bytes();
        let dev_copy = stream
            .clone_htod(if bytes.is_empty() { &[0u8][..] } else { &bytes[..] })
            .map_err(Error::driver("copying a buffer to the device"))?;
        buffer_table.push(ptr(&dev_copy, stream));
        buffer_table.push(b.len() as u64);
        buffers_dev.push(dev_copy);
    }
    if buffer_table.is_empty() {
        buffer_table.push(0);
    }
    let buffer_table_dev = stream.clone_htod(&buffer_table).map_err(Error::driver("copying the buffer table"))?;
    let counter_init: Vec<u64> = <P::Counters as CounterSet>::SLOTS.iter().map(|s| s.initial_bits()).collect();
    let counters_dev = stream
        .clone_htod(&if counter_init.is_empty() { vec![0u64] } else { counter_init.clone() })
        .map_err(Error::driver("copying the counters"))?;
    let stats_dev = stream
        .alloc_zeros::<u64>(workers as usize * STATS_PER_WORKER)
        .map_err(Error::driver("allocating statistics"))?;
    let idle_dev = stream.alloc_zeros::<u32>(32).map_err(Error::driver("allocating the idle counter"))?;
    // SM placement tables for the victim policies: "unknown" (all ones) until workers write them.
    let sm_of_dev = stream.clone_htod(&vec![u32::MAX; workers as usize]).map_err(Error::driver("allocating the SM table"))?;
    let sm_leader_dev = stream.clone_htod(&vec![u32::MAX; MAX_SM_IDS]).map_err(Error::driver("allocating the SM table"))?;
    // SAFETY: a 4-byte host-mapped flag, initialised right below before any use.
    let mut stop = unsafe { dev.ctx.alloc_pinned_with_flags::<u32>(1, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE) }
        .map_err(Error::driver("allocating the watchdog flag"))?;
    let stop_host = stop.as_mut_ptr().map_err(Error::driver("mapping the watchdog flag"))?;
    // SAFETY: the pinned allocation is live for this whole function.
    unsafe { stop_host.write_volatile(0) };
    let mut stop_dev: cudarc::driver::sys::CUdeviceptr = 0;
    // SAFETY: `stop_host` was allocated with CU_MEMHOSTALLOC_DEVICEMAP.
    unsafe { cudarc::driver::sys::cuMemHostGetDevicePointer_v2(&mut stop_dev, stop_host as *mut _, 0) }
        .result()
        .map_err(Error::driver("mapping the watchdog flag"))?;
    let mut status = module.get_global("wsdsl_status", stream).map_err(Error::driver("finding the status record"))?;
    stream.memset_zeros(&mut status).map_err(Error::driver("clearing the status record"))?;

    let record = LaunchRecord {
        slots: ptr(&slots, stream),
        deques: ptr(&deques, stream),
        roots: ptr(&roots_dev, stream),
        params: ptr(&params_dev, stream),
        buffers: ptr(&buffer_table_dev, stream),
        counter_slots: ptr(&counters_dev, stream),
        stats: ptr(&stats_dev, stream),
        idle: ptr(&idle_dev, stream),
        stop: stop_dev,
        sm_of: ptr(&sm_of_dev, stream),
        sm_leader: ptr(&sm_leader_dev, stream),
        workers,
        capacity: capacity as u32,
        root_count: roots.len() as u32,
        seed: 0x5EED_1234,
    };
    // SAFETY: LaunchRecord is plain old data with no padding (11 u64 then 4 u32).
    let record_bytes = unsafe {
        std::slice::from_raw_parts(&record as *const LaunchRecord as *const u8, std::mem::size_of::<LaunchRecord>())
    };
    let record_dev = stream.clone_htod(record_bytes).map_err(Error::driver("copying the launch record"))?;
    let record_ptr = ptr(&record_dev, stream);
    let start = dev.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(Error::driver("creating events"))?;
    let end = dev.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(Error::driver("creating events"))?;
    stream.synchronize().map_err(Error::driver("preparing the launch"))?;
    phases.launch = t1.elapsed();

    start.record(stream).map_err(Error::driver("recording an event"))?;
    let cfg = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 };
    let mut launch = stream.launch_builder(&func);
    launch.arg(&record_ptr);
    // SAFETY: the kernel's one argument is a pointer to a LaunchRecord whose buffers all
    // outlive the run (we wait for completion below before anything is dropped); the grid
    // is at most the occupancy limit, and the launch is cooperative, so every block is
    // resident at once, which the persistent workers rely on.
    unsafe { launch.launch_cooperative(cfg) }.map_err(Error::driver("launching the megakernel"))?;
    end.record(stream).map_err(Error::driver("recording an event"))?;

    if let Err(e) = watch(&end, opts.watchdog, stop_host) {
        if let Error::Watchdog { stopped: false, .. } = e {
            // The kernel ignores the stop flag: freeing its memory would block forever.
            std::mem::forget((slots, deques, roots_dev, params_dev, counters_dev, stats_dev, idle_dev, stop, record_dev));
            std::mem::forget((buffers_dev, buffer_table_dev, sm_of_dev, sm_leader_dev));
            std::mem::forget((start, end, module));
        }
        return Err(e);
    }
    phases.run = Duration::from_secs_f64(start.elapsed_ms(&end).map_err(Error::driver("timing the run"))? as f64 / 1e3);

    let t2 = Instant::now();
    let status_words: Vec<u64> = {
        let view = module.get_global("wsdsl_status", stream).map_err(Error::driver("reading the status record"))?;
        let bytes = stream.clone_dtoh(&view).map_err(Error::driver("reading the status record"))?;
        bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect()
    };
    let counter_bits = stream.clone_dtoh(&counters_dev).map_err(Error::driver("reading the counters"))?;
    let stat_words = stream.clone_dtoh(&stats_dev).map_err(Error::driver("reading the statistics"))?;
    check_status::<P>(&status_words)?;
    for (b, dev_copy) in user_buffers.iter().zip(&buffers_dev) {
        if b.len() > 0 {
            b.load_bytes(&stream.clone_dtoh(dev_copy).map_err(Error::driver("reading a buffer back"))?);
        }
    }
    phases.copy_back = t2.elapsed();

    let mut stats = Stats { queue_capacity: capacity, phases, ..Stats::default() };
    for w in stat_words.chunks_exact(STATS_PER_WORKER) {
        stats.tasks += w[0];
        stats.steal_attempts += w[1];
        stats.steals += w[2];
        stats.peak_queue = stats.peak_queue.max(w[3]);
        stats.per_worker_tasks.push(w[0]);
    }
    let counters = <P::Counters as CounterSet>::from_slots(&counter_bits[..counter_init.len()]);
    Ok((counters, stats))
}

/// The kernel of `P` for this device: from this process's modules, the disk cache, or NVRTC.
fn load<P: Program>(
    dev: &GpuDevice,
    config: &KernelConfig,
    phases: &mut Phases,
) -> Result<(Arc<cudarc::driver::CudaModule>, CudaFunction), Error> {
    let source = megakernel_source::<P>(config);
    let key = stable_hash(&[&source, &dev.arch]);
    let mut modules = dev.modules.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((m, f)) = modules.get(&key) {
        phases.cache_hit = true;
        return Ok((m.clone(), f.clone()));
    }
    let cubin = compile_cached(P::NAME, &source, &dev.arch)?;
    phases.cache_hit = cubin.from_cache;
    let module = dev
        .ctx
        .load_module(cudarc::nvrtc::Ptx::from_binary(cubin.image))
        .map_err(Error::driver("loading the compiled kernel"))?;
    let func = module.load_function("wsdsl_megakernel").map_err(Error::driver("finding the kernel entry point"))?;
    modules.insert(key, (module.clone(), func.clone()));
    Ok((module, func))
}

/// Deque slots per worker: the requested number, or the largest power of two up to 8192
/// that keeps all deques within a third of free device memory.
fn choose_capacity<P: Program>(dev: &GpuDevice, workers: u64, requested: Option<u32>) -> Result<u64, Error> {
    let (free, _) = dev.ctx.mem_get_info().map_err(Error::driver("reading free memory"))?;
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

/// Waits for the run, polling; past the limit raises the device's stop flag.
fn watch(end: &cudarc::driver::CudaEvent, limit: Duration, stop_host: *mut u32) -> Result<(), Error> {
    let started = Instant::now();
    let mut nap = Duration::from_micros(50);
    loop {
        match end.try_is_complete() {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(e) => return Err(Error::Driver { during: "running the megakernel", message: e.to_string() }),
        }
        if started.elapsed() > limit {
            // SAFETY: the host-mapped flag outlives the run; the device reads it volatile.
            unsafe { stop_host.write_volatile(1) };
            let asked = Instant::now();
            while asked.elapsed() < Duration::from_secs(5) {
                if end.try_is_complete().unwrap_or(false) {
                    return Err(Error::Watchdog { limit, stopped: true });
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            return Err(Error::Watchdog { limit, stopped: false });
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(2));
    }
}

fn check_status<P: Program>(words: &[u64]) -> Result<(), Error> {
    match words.first().copied().unwrap_or(0) {
        0 => Ok(()),
        STATUS_OVERFLOW => Err(Error::QueueOverflow {
            queue: format!("the deque of GPU worker {} (program `{}`)", words[1], P::NAME),
            capacity: words[3],
            needed: words[2],
        }),
        STATUS_FAULT => Err(Error::DeviceFault {
            site: P::FAULT_SITES.get(words[1] as usize).map_or_else(|| format!("fault site {}", words[1]), |s| s.to_string()),
        }),
        other => Err(Error::Driver { during: "reading the run status", message: format!("unknown status code {other}") }),
    }
}

fn ptr<T>(slice: &CudaSlice<T>, stream: &Arc<cudarc::driver::CudaStream>) -> u64 {
    let (p, _sync) = slice.device_ptr(stream);
    p
}
