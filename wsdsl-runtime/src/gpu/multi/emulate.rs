//! Several GPUs emulated in one process, for CI: each emulated GPU is its own copy of the
//! host-compiled kernel (`gpu::emulate`), on its own host threads, with its symmetric
//! objects — its `ws_pe_state`, deques and slots, and the join pool of programs with complete
//! handlers — in one heap of host memory laid out alike
//! on every GPU, as NVSHMEM's symmetric heap is on real GPUs; every launch record lists all
//! the heaps, as a GPU's lists the peer mappings, so thieves rob other emulated GPUs with the
//! same template code (`cuda/pe.cuh`), atomics racing for real across threads. Each emulated
//! GPU's result then travels through the same bytes the processes of a real run exchange
//! (`record.rs`) before the same merge.

use super::record::{decode_result, encode_result};
use super::{check_program, check_root_room, encode_dealt_roots, frames_per_gpu, merge, seed_of, HeapLayout, PeError, PeShare};
use crate::error::Error;
use crate::gpu::assemble::{host_pe_kernel_source, KernelConfig};
use crate::gpu::emulate::{host_kernel_copy, launch, status, Emulation, HostBuf, HostInputs};
use crate::gpu::inputs::status_result;
use crate::gpu::join::PoolShape;
use crate::gpu::launch::{worker_stats, STATS_PER_WORKER};
use crate::gpu::persistent::{LaunchRecord, MAX_SM_IDS};
use crate::program::{Program, RunResult};
use crate::stats::Phases;
use std::time::Instant;

/// Runs `roots` on `gpus` emulated GPUs (roots dealt round-robin across them), each an
/// `emu` grid, and merges their results as a real multi-GPU run does.
pub fn run_emulated_gpus<P: Program>(
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    config: &KernelConfig,
    emu: &Emulation,
    gpus: u32,
) -> Result<RunResult<P>, Error> {
    let config = KernelConfig { block_threads: emu.block_threads, ..*config };
    config.validate_for::<P>().map_err(Error::InvalidConfig)?;
    crate::gpu::emulate::check_task_size::<P>()?;
    check_program::<P>(&config, buffers, gpus)?;
    // One emulated multi-GPU run at a time in a process: runs of the same kernel share its
    // loaded copies, whose statics (status record, emulated grid) a run owns while it lasts.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let started = Instant::now();
    let source = host_pe_kernel_source::<P>(&config);
    let kernels = (0..gpus).map(|g| host_kernel_copy::<P>(&source, g + 1)).collect::<Result<Vec<_>, _>>()?;
    let compile = started.elapsed();

    let workers = emu.grid * (emu.block_threads / config.worker_threads());
    let capacity = emu.capacity;
    check_root_room(roots.len(), gpus, workers, capacity)?;
    // The symmetric heaps: the state, the deques, the slots, the join pool, at the same
    // offsets on every GPU.
    let shape = PoolShape::of(&config, (emu.grid * emu.block_threads) as usize);
    let frames = frames_per_gpu::<P>(Some(emu.frames), usize::MAX / 2, shape, gpus)?;
    let layout = HeapLayout::of::<P>(workers, capacity, frames, shape, roots.len(), gpus)?;
    let mut heaps: Vec<HostBuf> = (0..gpus).map(|_| HostBuf::zeroed(layout.bytes)).collect();
    let bases: Vec<u64> = heaps.iter_mut().map(|h| h.addr()).collect();
    let mut table = HostBuf(bases.clone());
    if let Some(join) = &layout.join {
        for ((heap, kernel), g) in heaps.iter_mut().zip(&kernels).zip(0..gpus) {
            let stacks = join.stacks_image();
            heap.bytes_mut()[join.stacks_at as usize..][..stacks.len()].copy_from_slice(&stacks);
            kernel.write_join(join.record(bases[g as usize], table.addr(), g, gpus));
        }
    }

    let mut gpu_runs: Vec<GpuRun> = (0..gpus).map(|g| GpuRun::new::<P>(params, buffers, roots, g, gpus, workers)).collect();
    // Every GPU's launch record, then every launch at once (each waits for the others' workers
    // to go idle before it may end).
    let records: Vec<LaunchRecord> = gpu_runs
        .iter_mut()
        .enumerate()
        .map(|(g, run)| run.record(bases[g], table.addr(), &layout, workers, capacity, g as u32, gpus))
        .collect();
    let ran = Instant::now();
    let launched: Vec<Result<(), Error>> = std::thread::scope(|s| {
        let handles: Vec<_> = kernels
            .iter()
            .zip(&records)
            .map(|(k, r)| s.spawn(move || launch(k, r as *const LaunchRecord as *const u8, r.stop, emu)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(Error::InvalidConfig("an emulated GPU's launcher panicked".into())))).collect()
    });
    let elapsed = ran.elapsed();
    if launched.iter().any(|r| matches!(r, Err(Error::Watchdog { stopped: false, .. }))) {
        // A kernel thread still runs over this memory. The run's error names the GPU that hung,
        // as a real run's does.
        std::mem::forget((heaps, gpu_runs, table));
        let results = launched.into_iter().map(|r| r.map_err(PeError::from).and_then(|()| Err(PeError::StoppedByPeer))).collect();
        return merge::<P>(results, roots);
    }
    let results = launched
        .into_iter()
        .zip(gpu_runs)
        .zip(&kernels)
        .zip(&mut heaps)
        .map(|(((l, run), k), heap)| {
            l?;
            status_result::<P>(&status(k), |w| format!("the deque of emulated worker {w} (program `{}`)", P::NAME))?;
            let phases = Phases { compile, run: elapsed, ..Phases::default() };
            let mut stats = worker_stats(&run.stats.0, capacity.into(), phases);
            let root_values = match (&layout.join, k.read_join()) {
                (Some(join), Some(record)) => {
                    record.apply_to(&mut stats);
                    let bytes = heap.bytes_mut();
                    // The inbox's first word: continuations sent to this GPU (`cuda/join.cuh`).
                    stats.sent_home = u64::from_le_bytes(bytes[join.inbox_at as usize..][..8].try_into().expect("8 bytes"));
                    bytes[join.root_values_at as usize..][..join.root_values_bytes].to_vec()
                }
                _ => Vec::new(),
            };
            Ok(PeShare { counter_slots: run.inputs.counter_slots(), root_values, stats })
        })
        .map(|r: Result<_, Error>| decode_result::<P>(&encode_result(&r.map_err(PeError::from))))
        .collect::<Result<Vec<_>, String>>()
        .map_err(|m| Error::InvalidConfig(format!("an emulated GPU's result did not survive its bytes: {m}")))?;
    drop((heaps, table));
    merge::<P>(results, roots)
}

/// One emulated GPU's own (not symmetric) memory.
struct GpuRun {
    inputs: HostInputs,
    roots: HostBuf,
    root_count: u32,
    stats: HostBuf,
    stop: HostBuf,
    progress: HostBuf,
    sm_of: HostBuf,
    sm_leader: HostBuf,
}

impl GpuRun {
    /// GPU `gpu` of `gpus`, with its share of `roots`.
    fn new<P: Program>(params: &P::Params, buffers: &P::Buffers, roots: &[P::Task], gpu: u32, gpus: u32, workers: u32) -> GpuRun {
        let (dealt, root_count) = encode_dealt_roots::<P>(roots, gpu, gpus);
        GpuRun {
            inputs: HostInputs::new::<P>(params, buffers),
            roots: HostBuf::from_bytes(&dealt),
            root_count,
            stats: HostBuf::zeroed(workers as usize * STATS_PER_WORKER * 8),
            stop: HostBuf::zeroed(8),
            progress: HostBuf::zeroed(workers as usize * 8),
            sm_of: HostBuf(vec![u64::MAX; (workers as usize).div_ceil(2)]),
            sm_leader: HostBuf(vec![u64::MAX; MAX_SM_IDS / 2]),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn record(&mut self, heap: u64, pe_heaps: u64, layout: &HeapLayout, workers: u32, capacity: u32, pe: u32, n_pes: u32) -> LaunchRecord {
        LaunchRecord {
            slots: heap + layout.slots_at,
            deques: heap + layout.deques_at,
            roots: self.roots.addr(),
            params: self.inputs.params.addr(),
            buffers: self.inputs.table.addr(),
            counter_slots: self.inputs.counters.addr(),
            stats: self.stats.addr(),
            state: heap,
            stop: self.stop.addr(),
            progress: self.progress.addr(),
            sm_of: self.sm_of.addr(),
            sm_leader: self.sm_leader.addr(),
            workers,
            capacity,
            root_count: self.root_count,
            seed: seed_of(pe),
            pe_heaps,
            pe,
            n_pes,
        }
    }
}
