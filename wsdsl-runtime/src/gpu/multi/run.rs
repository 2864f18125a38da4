//! One GPU's share of a multi-GPU run: the deque megakernel built for several GPUs
//! (`pe.cuh`), its state, deques and slots in one allocation of NVSHMEM's symmetric heap,
//! the other GPUs' allocations reached through the peer mappings `nvshmem_ptr` gives, its
//! roots dealt to it, launched together with the other GPUs' kernels, and every GPU's result
//! merged (`process.rs` carries them).
//!
//! NVSHMEM's allocation, free and barrier are collective: a GPU that left between two of them
//! would leave the others waiting for good. So every failure that can be known before them is
//! voted on first (an all-gather through the processes' sockets, which notices a dead
//! process), and every GPU leaves together: the shape (step 1), this GPU's own memory and
//! inputs (step 2), the peer mappings (step 3). A launch that fails writes `stop` into every
//! other GPU's state, so their kernels end instead of waiting for this one.

use super::process::Job;
use super::record::{decode_result, encode_result, Reader, Writer};
use super::{check_program, check_root_room, encode_dealt_roots, frames_per_gpu, merge, seed_of, HeapLayout, PeError, PeShare, STOP_OFFSET};
use crate::error::Error;
use crate::gpu::assemble::{pe_kernel_source, stable_hash_bytes};
use crate::gpu::inputs::{check_status, clear_status, encode_tasks, Inputs};
use crate::gpu::join::{JoinRecord, PoolShape};
use crate::gpu::launch::{launch_with_record, worker_stats, Launch, STATS_PER_WORKER, WORKER_STATS};
use crate::gpu::module::load_source;
use crate::gpu::persistent::{LaunchRecord, MAX_SM_IDS};
use crate::gpu::{GpuDevice, GpuOptions};
use crate::program::{Program, RunResult};
use crate::stats::Phases;
use cudarc::driver::{CudaFunction, CudaModule};
use std::sync::Arc;
use std::time::Instant;

/// Deque slots per worker unless the runtime says otherwise: the deques live in NVSHMEM's
/// symmetric heap, which is smaller than the GPU (`NVSHMEM_SYMMETRIC_SIZE`).
const DEFAULT_CAPACITY: u32 = 4096;

/// Runs `roots` on every GPU of `job`; every process returns the same merged result.
pub(crate) fn run_gpus<P: Program>(
    dev: &GpuDevice,
    job: &Job,
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    opts: &GpuOptions,
) -> Result<RunResult<P>, Error> {
    check_program::<P>(&opts.kernel, buffers, job.gpus)?;
    let mut phases = Phases::default();

    // 1. Each GPU compiles and proposes its shape; the run takes the smallest. The proposal
    //    names the run (program, kernel, parameters, roots), so processes that went apart are
    //    caught here rather than merged.
    let source = pe_kernel_source::<P>(&opts.kernel);
    let run_id = {
        let mut param_bytes = vec![0u8; P::PARAMS_BYTES.max(1)];
        P::encode_params(params, &mut param_bytes);
        stable_hash_bytes(&[P::NAME.as_bytes(), source.as_bytes(), &param_bytes, &encode_tasks::<P>(roots)])
    };
    let prepared = prepare::<P>(dev, &source, opts, job.gpus, &mut phases);
    let mut w = Writer::default();
    match &prepared {
        Ok(p) => w.word(0).word(run_id).word((p.per_sm * dev.sm_count) as u64).word(p.capacity as u64).word(p.frames as u64),
        Err(e) => w.word(1).text(&e.to_string()),
    };
    let proposals = job.all_gather(w.finish())?;
    let (mut grid, mut capacity, mut frames) = (u64::MAX, u64::MAX, u64::MAX);
    for (gpu, bytes) in proposals.iter().enumerate() {
        let mut r = Reader::new(bytes);
        let bad = |m: String| Error::OnGpu { gpu: gpu as u32, gpus: job.gpus, message: m };
        if r.word().map_err(bad)? == 1 {
            return Err(bad(r.text().map_err(bad)?));
        }
        let (id, g, c, f) = (r.word().map_err(bad)?, r.word().map_err(bad)?, r.word().map_err(bad)?, r.word().map_err(bad)?);
        if id != run_id {
            return Err(bad(format!(
                "its process makes another run than GPU 0's at this point (another program, kernel, parameters or roots): every process of a multi-GPU run must make the same runs in the same order (this one: `{}` with {} roots)",
                P::NAME,
                roots.len()
            )));
        }
        grid = grid.min(g);
        capacity = capacity.min(c);
        frames = frames.min(f);
    }
    let Proposal { module, func, .. } = prepared?;
    let (grid, capacity) = (grid as u32, capacity as u32);
    let workers = grid * (opts.kernel.block_threads / opts.kernel.worker_threads());
    check_root_room(roots.len(), job.gpus, workers, capacity)?;
    let shape = PoolShape::of(&opts.kernel, (grid * opts.kernel.block_threads) as usize);
    let layout = HeapLayout::of::<P>(workers, capacity, frames as u32, shape, roots.len(), job.gpus)?;

    // 2. This GPU's share, its result as bytes (errors included), and everyone's merged.
    let share = Share { module: &module, func: &func, grid, workers, capacity, layout: &layout };
    let result = run_share::<P>(dev, job, &share, params, buffers, roots, opts, phases)?.map_err(PeError::from);
    let results = job.all_gather(encode_result(&result))?;
    let decoded = results
        .iter()
        .enumerate()
        .map(|(gpu, bytes)| decode_result::<P>(bytes).map_err(|m| Error::OnGpu { gpu: gpu as u32, gpus: job.gpus, message: m }))
        .collect::<Result<Vec<_>, Error>>()?;
    if decoded.iter().any(|r| matches!(r, Err(PeError::Stuck(_)))) {
        // A kernel that would not stop holds its GPU: nothing collective can follow.
        job.mark_broken();
    }
    merge::<P>(decoded, roots)
}

/// This GPU's kernel and what it proposes for the run's shape.
struct Proposal {
    module: Arc<CudaModule>,
    func: CudaFunction,
    per_sm: u32,
    capacity: u32,
    frames: u32,
}

/// Compiles and loads `P`'s multi-GPU kernel (NVRTC and the kernel cache, as every kernel)
/// and proposes blocks per SM, deque capacity and (programs with joins) frames per GPU.
fn prepare<P: Program>(dev: &GpuDevice, source: &str, opts: &GpuOptions, gpus: u32, phases: &mut Phases) -> Result<Proposal, Error> {
    let (module, func) = load_source::<P>(dev, source, opts.kernel.entry_point(), phases)?;
    let fit = func
        .occupancy_max_active_blocks_per_multiprocessor(opts.kernel.block_threads, 0, None)
        .map_err(Error::driver("querying occupancy"))?;
    if fit == 0 {
        return Err(Error::InvalidConfig(format!("the multi-GPU megakernel of `{}` does not fit one block on an SM; try a smaller block", P::NAME)));
    }
    let per_sm = opts.blocks_per_sm.map_or(fit, |b| b.clamp(1, fit));
    let shape = PoolShape::of(&opts.kernel, (per_sm * dev.sm_count * opts.kernel.block_threads) as usize);
    let (free, _) = dev.ctx.mem_get_info().map_err(Error::driver("reading free memory"))?;
    let frames = frames_per_gpu::<P>(opts.frames, free, shape, gpus)?;
    Ok(Proposal { module, func, per_sm, capacity: opts.capacity.unwrap_or(DEFAULT_CAPACITY), frames })
}

/// The agreed shape of the run and this GPU's kernel.
struct Share<'a> {
    module: &'a Arc<CudaModule>,
    func: &'a CudaFunction,
    grid: u32,
    workers: u32,
    capacity: u32,
    layout: &'a HeapLayout,
}

/// Every GPU's verdict on a step: `Ok` when all succeeded, else the first failure, named.
fn vote(job: &Job, mine: &Result<(), Error>) -> Result<Result<(), Error>, Error> {
    let mut w = Writer::default();
    match mine {
        Ok(()) => w.word(0),
        Err(e) => w.word(1).text(&e.to_string()),
    };
    let all = job.all_gather(w.finish())?;
    for (gpu, bytes) in all.iter().enumerate() {
        let mut r = Reader::new(bytes);
        let failed = r.word().map_err(Error::InvalidConfig)? == 1;
        if failed {
            let message = r.text().map_err(Error::InvalidConfig)?;
            return Ok(Err(Error::OnGpu { gpu: gpu as u32, gpus: job.gpus, message }));
        }
    }
    Ok(Ok(()))
}

/// This GPU's share of `roots` (`roots_of`). The outer error means the job itself broke (a
/// process stopped answering); the inner result is this GPU's run, which every GPU then
/// learns.
#[allow(clippy::too_many_arguments)]
fn run_share<P: Program>(
    dev: &GpuDevice,
    job: &Job,
    share: &Share<'_>,
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    opts: &GpuOptions,
    mut phases: Phases,
) -> Result<Result<PeShare, Error>, Error> {
    let t1 = Instant::now();
    let stream = &dev.stream;
    let (workers, capacity) = (share.workers, share.capacity);
    let mut ws = dev.workspace.lock().unwrap_or_else(|e| e.into_inner());

    // 2. This GPU's own memory and inputs; every GPU learns whether all of them have theirs.
    let (dealt_roots, root_count) = encode_dealt_roots::<P>(roots, job.rank, job.gpus);
    let local = (|| {
        let inputs = Inputs::upload::<P>(stream, &mut ws, params, buffers)?;
        let roots_dev = ws.upload(stream, "initial tasks", &dealt_roots)?;
        let stats_dev = ws.zeroed(stream, WORKER_STATS, workers as usize * STATS_PER_WORKER * 8)?;
        let sm_of_dev = ws.upload(stream, "SM of each worker", &vec![u32::MAX; workers as usize])?;
        let sm_leader_dev = ws.upload(stream, "SM leaders", &vec![u32::MAX; MAX_SM_IDS])?;
        clear_status(share.module, stream)?;
        let stop_device = ws.stop_flag(&dev.ctx)?.device;
        Ok((inputs, roots_dev, stats_dev, sm_of_dev, sm_leader_dev, stop_device))
    })();
    let ready = local.as_ref().map(|_| ()).map_err(Error::copied);
    if let Err(e) = vote(job, &ready)? {
        return Ok(Err(local.err().unwrap_or(e)));
    }
    let (inputs, roots_dev, stats_dev, sm_of_dev, sm_leader_dev, stop_device) = local.expect("voted ready");

    // 3. The symmetric heap (collective: the same size on every GPU), then the peer mappings,
    //    voted on before anything waits on them.
    let layout = share.layout;
    let pe = job.pe();
    let heap = pe.alloc_zeros::<u8>(layout.bytes);
    let heap_at = heap.as_ref().map(|h| h.device_ptr()).map_err(Error::copied);
    let unreachable = |other: u32| {
        Error::InvalidConfig(format!(
            "GPU {} cannot reach GPU {other}'s memory directly (no NVLink or PCIe peer access): the multi-GPU scheduler steals through peer mappings; runs across hosts are designed in docs/multi-gpu.md but not built",
            job.rank
        ))
    };
    let peers: Result<Vec<u64>, Error> =
        heap_at.and_then(|at| (0..job.gpus).map(|other| pe.peer_address(at, other).ok_or_else(|| unreachable(other))).collect());
    let table = peers.and_then(|p| {
        let at = ws.upload(stream, "every GPU's heap, as mapped here", &p)?;
        if let Some(join) = &layout.join {
            // The pool's empty stacks (the rest of it starts zeroed), and the kernel's record.
            let heap = p[job.rank as usize];
            stream.synchronize().map_err(Error::driver("preparing the join pool"))?;
            // SAFETY: the stacks lie inside this GPU's heap (the layout sized it).
            unsafe { cudarc::driver::result::memcpy_htod_sync(heap + join.stacks_at, &join.stacks_image()) }
                .map_err(Error::driver("preparing the join pool"))?;
            join.record(heap, at, job.rank, job.gpus).write(share.module, stream)?;
        }
        stream.synchronize().map_err(Error::driver("preparing the launch"))?;
        Ok((p, at))
    });
    let mapped = table.as_ref().map(|_| ()).map_err(Error::copied);
    let verdict = vote(job, &mapped);
    let (heap, peers, pe_heaps) = match (verdict, table, heap) {
        (Ok(Ok(())), Ok((p, at)), Ok(h)) => (h, p, at),
        // Everyone leaves here, freeing the heap together (the drop is collective).
        (Ok(Err(e)), t, _) => return Ok(Err(t.err().unwrap_or(e))),
        (Ok(Ok(())), Err(e), _) | (Ok(Ok(())), _, Err(e)) => return Ok(Err(e)),
        (Err(broken), _, heap) => {
            // A process stopped answering: no collective free either.
            std::mem::forget(heap);
            return Err(broken);
        }
    };

    let base = heap.device_ptr();
    let record = LaunchRecord {
        slots: base + layout.slots_at,
        deques: base + layout.deques_at,
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
        root_count,
        seed: seed_of(job.rank),
        pe_heaps,
        pe: job.rank,
        n_pes: job.gpus,
    };
    // No GPU may start stealing before every GPU's heap is cleared.
    pe.barrier_all();
    phases.launch = t1.elapsed();
    let launch = Launch { func: share.func, grid: share.grid, block: opts.kernel.block_threads, cooperative: true, limit: opts.watchdog, since: Instant::now(), what: "launching the multi-GPU megakernel", program: P::NAME };
    // SAFETY: the record points to workspace and symmetric memory that outlive the kernel
    // (a kernel that ignores a stop request leaks both, below), and the grid is within the
    // occupancy limit every GPU proposed.
    let ran = unsafe { launch_with_record(dev, &launch, &record, ws.stop()) };
    if ran.is_err() {
        // This GPU's kernel never ran, stopped early or will not stop: the others must not
        // wait for it.
        let _ = dev.ctx.bind_to_thread();
        for &peer in peers.iter().filter(|&&p| p != base) {
            // SAFETY: `peer` is another GPU's heap as mapped for this GPU; its `stop` word is
            // a u32 at STOP_OFFSET, which that GPU's kernel polls.
            let _ = unsafe { cudarc::driver::result::memcpy_htod_sync(peer + STOP_OFFSET, &[1u32][..]) };
        }
    }
    // Every GPU's kernel has ended (or its GPU says that it will not) before any frees the
    // heap (a thief elsewhere may read it until its own kernel sees the end). Through the
    // sockets, not NVSHMEM's barrier: a process that died is noticed instead of waited for.
    let stuck_here = matches!(&ran, Err(Error::Watchdog { stopped: false, .. }));
    let ended = match job.all_gather(vec![stuck_here as u8]) {
        Ok(ended) => ended,
        Err(broken) => {
            std::mem::forget(heap);
            return Err(broken);
        }
    };
    if ended.iter().any(|said| said.first() == Some(&1)) {
        // A kernel still runs somewhere: its memory (and every heap, which it may reach) must
        // stay valid, and the collective free would wait for it for good. Every GPU still
        // sends its result, so that each process names the GPU that hung; the job breaks
        // after that (`run_gpus`).
        if stuck_here {
            ws.abandon();
            std::mem::forget(inputs);
        }
        std::mem::forget(heap);
        return Ok(Err(ran.err().unwrap_or(Error::StoppedByPeer)));
    }
    let run = match ran {
        Ok(run) => run,
        Err(e) => return Ok(Err(e)),
    };
    phases.run = run;
    let t2 = Instant::now();
    let read = (|| {
        check_status::<P>(share.module, stream, |w| format!("the deque of worker {w} on GPU {} (program `{}`)", job.rank, P::NAME))?;
        let counter_slots = inputs.read_back_slots(stream)?;
        let words = ws.read_u64(stream, WORKER_STATS, workers as usize * STATS_PER_WORKER)?;
        let mut root_values = Vec::new();
        let join = match &layout.join {
            Some(join) => {
                root_values = vec![0u8; join.root_values_bytes];
                let mut sent = [0u64];
                // SAFETY: the values and the inbox's count lie inside this GPU's heap; every
                // kernel has ended.
                unsafe {
                    cudarc::driver::result::memcpy_dtoh_sync(&mut root_values, base + join.root_values_at)
                        .and_then(|()| cudarc::driver::result::memcpy_dtoh_sync(&mut sent, base + join.inbox_at))
                }
                .map_err(Error::driver("reading the roots' values"))?;
                Some((JoinRecord::read(share.module, stream)?, sent[0]))
            }
            None => None,
        };
        phases.copy_back = t2.elapsed();
        let mut stats = worker_stats(&words, capacity as u64, phases);
        if let Some((record, sent_home)) = join {
            record.apply_to(&mut stats);
            stats.sent_home = sent_home;
        }
        Ok(PeShare { counter_slots, root_values, stats })
    })();
    Ok(read)
}
