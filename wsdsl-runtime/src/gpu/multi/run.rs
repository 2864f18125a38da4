//! One GPU's share of a multi-GPU run: the deque megakernel built for several GPUs
//! (`pe.cuh`), its state, deques and slots in one allocation of NVSHMEM's symmetric heap,
//! the other GPUs' allocations reached through the peer mappings `nvshmem_ptr` gives, its
//! roots dealt to it, launched together with the other GPUs' kernels, and every GPU's result
//! merged (`process.rs` carries them).

use super::process::Job;
use super::record::{decode_result, encode_result, Reader, Writer};
use super::{check_program, merge, roots_of, PeError};
use crate::error::Error;
use crate::gpu::assemble::{pe_kernel_source, stable_hash};
use crate::gpu::inputs::{check_status, clear_status, encode_tasks, Inputs};
use crate::gpu::launch::{launch_with_record, worker_stats, Launch, STATS_PER_WORKER, WORKER_STATS};
use crate::gpu::module::load_source;
use crate::gpu::persistent::{LaunchRecord, DEQUE_BYTES, MAX_SM_IDS};
use crate::gpu::{GpuDevice, GpuOptions};
use crate::program::{Program, RunResult};
use crate::stats::Phases;
use std::time::Instant;

/// Deque slots per worker unless the runtime says otherwise: the deques live in NVSHMEM's
/// symmetric heap, which is smaller than the GPU (`NVSHMEM_SYMMETRIC_SIZE`).
const DEFAULT_CAPACITY: u32 = 4096;
/// Bytes of `struct ws_pe_state` (`cuda/termination.cuh`).
const STATE_BYTES: usize = 128;

/// Runs `roots` on every GPU of `job`; every process returns the same merged result.
pub(crate) fn run_gpus<P: Program>(
    dev: &GpuDevice,
    job: &mut Job,
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    opts: &GpuOptions,
) -> Result<RunResult<P>, Error> {
    check_program::<P>(&opts.kernel, buffers, job.gpus)?;
    let mut phases = Phases::default();

    // 1. Each GPU compiles and proposes its shape; the run takes the smallest.
    let prepared = prepare::<P>(dev, opts, &mut phases);
    let mut w = Writer::default();
    match &prepared {
        Ok((_, _, per_sm, capacity)) => w.word(0).word(stable_hash(&[P::NAME])).word(roots.len() as u64).word((*per_sm * dev.sm_count) as u64).word(*capacity as u64),
        Err(e) => w.word(1).text(&e.to_string()),
    };
    let proposals = job.all_gather(w.finish())?;
    let (mut grid, mut capacity) = (u64::MAX, u64::MAX);
    for (gpu, bytes) in proposals.iter().enumerate() {
        let mut r = Reader::new(bytes);
        let bad = |m: String| Error::OnGpu { gpu: gpu as u32, gpus: job.gpus, message: m };
        if r.word().map_err(bad)? == 1 {
            return Err(bad(r.text().map_err(bad)?));
        }
        let (program, root_count, g, c) = (r.word().map_err(bad)?, r.word().map_err(bad)?, r.word().map_err(bad)?, r.word().map_err(bad)?);
        if program != stable_hash(&[P::NAME]) || root_count != roots.len() as u64 {
            return Err(bad(format!(
                "its process runs another program or other roots than GPU 0's at this point: every process of a multi-GPU run must make the same runs in the same order (this one: `{}` with {} roots)",
                P::NAME,
                roots.len()
            )));
        }
        grid = grid.min(g);
        capacity = capacity.min(c);
    }
    let (module, func, _, _) = prepared?;
    let grid = grid as u32;
    let capacity = capacity as u32;
    let workers = grid * (opts.kernel.block_threads / opts.kernel.worker_threads());

    // 2. This GPU's share, its result as bytes (errors included), and everyone's merged.
    let mine = roots_of(roots, job.rank, job.gpus);
    let result = run_share::<P>(dev, job, &module, &func, params, buffers, &mine, opts, grid, workers, capacity, phases).map_err(PeError::from);
    let results = job.all_gather(encode_result(&result))?;
    let decoded = results
        .iter()
        .enumerate()
        .map(|(gpu, bytes)| decode_result::<P>(bytes).map_err(|m| Error::OnGpu { gpu: gpu as u32, gpus: job.gpus, message: m }))
        .collect::<Result<Vec<_>, Error>>()?;
    merge::<P>(decoded, roots.len())
}

/// Compiles and loads `P`'s multi-GPU kernel (NVRTC and the kernel cache, as every kernel)
/// and proposes blocks per SM and deque capacity.
#[allow(clippy::type_complexity)]
fn prepare<P: Program>(dev: &GpuDevice, opts: &GpuOptions, phases: &mut Phases) -> Result<(std::sync::Arc<cudarc::driver::CudaModule>, cudarc::driver::CudaFunction, u32, u32), Error> {
    let (module, func) = load_source::<P>(dev, &pe_kernel_source::<P>(&opts.kernel), opts.kernel.entry_point(), phases)?;
    let fit = func
        .occupancy_max_active_blocks_per_multiprocessor(opts.kernel.block_threads, 0, None)
        .map_err(Error::driver("querying occupancy"))?;
    if fit == 0 {
        return Err(Error::InvalidConfig(format!("the multi-GPU megakernel of `{}` does not fit one block on an SM; try a smaller block", P::NAME)));
    }
    let per_sm = opts.blocks_per_sm.map_or(fit, |b| b.clamp(1, fit));
    Ok((module, func, per_sm, opts.capacity.unwrap_or(DEFAULT_CAPACITY)))
}

#[allow(clippy::too_many_arguments)]
fn run_share<P: Program>(
    dev: &GpuDevice,
    job: &Job,
    module: &std::sync::Arc<cudarc::driver::CudaModule>,
    func: &cudarc::driver::CudaFunction,
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    opts: &GpuOptions,
    grid: u32,
    workers: u32,
    capacity: u32,
    mut phases: Phases,
) -> Result<(Vec<u64>, crate::stats::Stats), Error> {
    let t1 = Instant::now();
    let stream = &dev.stream;
    if (roots.len() as u64).div_ceil(workers as u64) > capacity as u64 {
        return Err(Error::QueueOverflow { queue: "a worker deque (holding the initial tasks)".into(), capacity: capacity as u64, needed: (roots.len() as u64).div_ceil(workers as u64) });
    }
    let mut ws = dev.workspace.lock().unwrap_or_else(|e| e.into_inner());
    let inputs = Inputs::upload::<P>(stream, &mut ws, params, buffers)?;
    let roots_dev = ws.upload(stream, "initial tasks", &encode_tasks::<P>(roots))?;
    let stats_dev = ws.zeroed(stream, WORKER_STATS, workers as usize * STATS_PER_WORKER * 8)?;
    let sm_of_dev = ws.upload(stream, "SM of each worker", &vec![u32::MAX; workers as usize])?;
    let sm_leader_dev = ws.upload(stream, "SM leaders", &vec![u32::MAX; MAX_SM_IDS])?;
    clear_status(module, stream)?;
    let stop_device = ws.stop_flag(&dev.ctx)?.device;
    stream.synchronize().map_err(Error::driver("preparing the launch"))?;

    // The symmetric heap: state, deques, slots; every GPU allocates the same (collective).
    let pe = job.pe();
    let deques_at = STATE_BYTES;
    let slots_at = deques_at + workers as usize * DEQUE_BYTES;
    let heap = pe.alloc_zeros::<u8>(slots_at + workers as usize * capacity as usize * P::TASK_BYTES)?;
    let mut peers = Vec::new();
    for other in 0..job.gpus {
        peers.push(pe.peer_address(heap.device_ptr(), other).ok_or_else(|| {
            Error::InvalidConfig(format!(
                "GPU {} cannot reach GPU {other}'s memory directly (no NVLink or PCIe peer access): the multi-GPU scheduler steals through peer mappings; runs across hosts are designed in docs/multi-gpu.md but not built",
                job.rank
            ))
        })?);
    }
    let pe_heaps = ws.upload(stream, "every GPU's heap, as mapped here", &peers)?;
    stream.synchronize().map_err(Error::driver("preparing the launch"))?;
    let base = heap.device_ptr();
    let record = LaunchRecord {
        slots: base + slots_at as u64,
        deques: base + deques_at as u64,
        roots: roots_dev,
        params: inputs.params_ptr(stream),
        buffers: inputs.buffers_ptr(stream),
        counter_slots: inputs.counters_ptr(stream),
        stats: stats_dev,
        state: base,
        stop: stop_device,
        progress: 0,
        sm_of: sm_of_dev,
        sm_leader: sm_leader_dev,
        workers,
        capacity,
        root_count: roots.len() as u32,
        seed: 0x5EED_1234 ^ job.rank.wrapping_mul(0x9E37_79B9),
        pe_heaps,
        pe: job.rank,
        n_pes: job.gpus,
    };
    // No GPU may start stealing before every GPU's deques are cleared.
    pe.barrier_all();
    phases.launch = t1.elapsed();
    let launch = Launch { func, grid, block: opts.kernel.block_threads, cooperative: true, limit: opts.watchdog, since: Instant::now(), what: "launching the multi-GPU megakernel" };
    // SAFETY: the record points to workspace and symmetric memory that outlive the kernel
    // (symmetric memory is freed after the barrier below; a kernel that ignores a stop
    // request leaks the process's GPU, reported as such), and the grid is within occupancy.
    let ran = unsafe { launch_with_record(dev, &launch, &record, ws.stop()) };
    // Every GPU's kernel has ended before any frees its symmetric memory (a thief elsewhere
    // may still read it until its own kernel sees the end).
    pe.barrier_all();
    if let Err(e) = ran {
        if let Error::Watchdog { stopped: false, .. } = e {
            ws.abandon();
            std::mem::forget((heap, inputs));
        }
        return Err(e);
    }
    phases.run = ran.expect("checked");
    let t2 = Instant::now();
    check_status::<P>(module, stream, |w| format!("the deque of worker {w} on GPU {} (program `{}`)", job.rank, P::NAME))?;
    let slots_bits = inputs.read_back_slots(stream)?;
    let words = ws.read_u64(stream, WORKER_STATS, workers as usize * STATS_PER_WORKER)?;
    phases.copy_back = t2.elapsed();
    Ok((slots_bits, worker_stats(&words, capacity as u64, phases)))
}
