//! Several GPUs emulated in one process, for CI: each emulated GPU is its own copy of the
//! host-compiled kernel (`gpu::emulate`), on its own host threads, with its symmetric
//! objects — its `ws_pe_state`, deques and slots, and the join pool of programs with complete
//! handlers — in one heap of host memory laid out alike
//! on every GPU, as NVSHMEM's symmetric heap is on real GPUs; every launch record lists all
//! the heaps, as a GPU's lists the peer mappings, so thieves rob other emulated GPUs with the
//! same template code (`cuda/features/pe.cuh`), atomics racing for real across threads. Each emulated
//! GPU's result then travels through the same bytes the processes of a real run exchange
//! (`record.rs`) before the same merge.

use super::record::{decode_result, encode_result};
use super::{check_across_hosts, check_program, frames_per_gpu, merge, prepare_share, share_record, HeapLayout, PeError, PeShare};
use crate::error::Error;
use crate::gpu::emulate::source::host_pe_kernel_source;
use crate::gpu::emulate::library::host_kernel_copy;
use crate::gpu::emulate::target::{HostBuf, OnHost};
use crate::gpu::emulate::Emulation;
use crate::gpu::run::status::status_result;
use crate::gpu::run::join::PoolShape;
use crate::gpu::run::target::record_bytes;
use crate::gpu::schedulers::worker_stats::read_worker_stats;
use crate::gpu::schedulers::deque::check_root_room;
use crate::gpu::run::target::Target;
use crate::contract::{Program, RunResult};
use crate::contract::schedule::KernelConfig;
use crate::stats::Phases;
use std::sync::{Arc, Barrier};
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
    run_emulated_hosts::<P>(params, buffers, roots, config, emu, 1, gpus)
}

/// [`run_emulated_gpus`] for a tree the host judged narrow (`gpu/run/spread.rs`): emulated GPU 0
/// runs `roots` alone, with the one-GPU kernel, and the others' shares are empty, merged
/// through the same bytes as a real run's (`alone.rs`).
pub(crate) fn run_emulated_alone<P: Program>(
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    config: &KernelConfig,
    emu: &Emulation,
    gpus: u32,
) -> Result<RunResult<P>, Error> {
    check_program::<P>(config, buffers, gpus)?;
    let gpu0 = super::alone::gpu0_share::<P>(crate::gpu::emulate::run_emulated_raw::<P>(params, buffers, roots, config, emu));
    let mut results = vec![encode_result(&gpu0)];
    results.extend((1..gpus).map(|_| encode_result(&super::alone::idle_share::<P>())));
    super::alone::merged::<P>(&results, roots, || ())
}

/// [`run_emulated_gpus`] on `hosts` emulated hosts of `gpus_per_host` GPUs each (GPUs
/// `h * gpus_per_host ..` on host h): a GPU's launch record maps only its own host's heaps,
/// so every access to another host's GPU takes NVSHMEM's one-sided calls (`cuda/features/pe.cuh`),
/// as between real hosts; a forgotten one would read address 0 and end the process.
/// Programs with data-parallel jobs are refused across hosts (`check_across_hosts`).
pub fn run_emulated_hosts<P: Program>(
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    config: &KernelConfig,
    emu: &Emulation,
    hosts: u32,
    gpus_per_host: u32,
) -> Result<RunResult<P>, Error> {
    let gpus = hosts.max(1).saturating_mul(gpus_per_host);
    let config = KernelConfig { block_threads: emu.block_threads, ..*config };
    config.validate_for::<P>().map_err(Error::InvalidConfig)?;
    crate::gpu::emulate::check_task_size::<P>()?;
    check_program::<P>(&config, buffers, gpus)?;
    if hosts > 1 {
        check_across_hosts::<P>()?;
    }
    // One emulated multi-GPU run at a time in a process: runs of the same kernel share its
    // loaded copies, whose statics (status record, emulated grid) a run owns while it lasts.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let started = Instant::now();
    let source = host_pe_kernel_source::<P>(&config, hosts > 1, emu.remote_ask);
    let kernels = (0..gpus).map(|g| host_kernel_copy::<P>(&source, g + 1)).collect::<Result<Vec<_>, _>>()?;
    let compile = started.elapsed();

    let workers = emu.grid * (emu.block_threads / config.worker_threads());
    let capacity = emu.capacity;
    check_root_room(roots.len(), gpus, workers, capacity as u64)?;
    // The symmetric heaps: the state, the deques, the slots, the join pool, at the same
    // offsets on every GPU.
    let shape = PoolShape::of(&config, (emu.grid * emu.block_threads) as usize);
    let frames = frames_per_gpu::<P>(Some(emu.frames), usize::MAX / 2, shape, gpus)?;
    let layout = HeapLayout::of::<P>(workers, capacity, frames, shape, roots.len(), gpus)?;
    let mut heaps: Vec<HostBuf> = (0..gpus).map(|_| HostBuf::zeroed(layout.bytes)).collect();
    let bases: Vec<u64> = heaps.iter_mut().map(|h| h.addr()).collect();
    // Each GPU's table of heaps as mapped for it: its own host's, and 0 for the others'.
    let host_of = |g: u32| g / gpus_per_host.max(1);
    let mut heap_tables: Vec<HostBuf> =
        (0..gpus).map(|g| HostBuf((0..gpus).map(|p| if host_of(p) == host_of(g) { bases[p as usize] } else { 0 }).collect())).collect();
    if hosts > 1 {
        for (g, kernel) in kernels.iter().enumerate() {
            kernel.set_heaps(&bases, g as u32)?;
        }
    }
    if let Some(join) = &layout.join {
        for ((heap, kernel), g) in heaps.iter_mut().zip(&kernels).zip(0..gpus) {
            let stacks = join.stacks_image();
            heap.bytes_mut()[join.stacks_at as usize..][..stacks.len()].copy_from_slice(&stacks);
            kernel.write_join(join.record(bases[g as usize], heap_tables[g as usize].addr(), g, gpus));
        }
    }

    // Each GPU's own memory through the same target and steps as a one-GPU emulated run, then
    // its launch record naming every heap.
    let mut targets: Vec<OnHost> = kernels.iter().map(|k| OnHost::with_kernel(emu, k.clone(), &config)).collect();
    // Every GPU's OS threads start running blocks together (`ws_emu_gate`): otherwise the
    // first GPU launched could run the whole tree before the others' threads got a time slice.
    let gate = Arc::new(Barrier::new((gpus * emu.os_threads.min(emu.grid)) as usize));
    for target in &mut targets {
        target.start_together(gate.clone());
    }
    let records = targets
        .iter_mut()
        .zip(0..gpus)
        .map(|(target, g)| {
            let (run, tables) = prepare_share::<P, _>(target, &config, emu.grid, params, buffers, roots, (g, gpus), true)?;
            Ok(share_record(&run, &tables, &layout, capacity, bases[g as usize], heap_tables[g as usize].addr(), (g, gpus)))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    // Every launch at once (each waits for the others' workers to go idle before it may end).
    let ran = Instant::now();
    let launched: Vec<Result<_, Error>> = std::thread::scope(|s| {
        let handles: Vec<_> = targets
            .iter()
            .zip(&records)
            // SAFETY: each record points into its target's memory and the heaps, all of which
            // outlive the launches (or are leaked below if a kernel never returns).
            .map(|(t, r)| s.spawn(move || unsafe { t.launch(record_bytes(r), emu.grid, emu.block_threads, true, ran, "launching an emulated GPU") }))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(Error::InvalidConfig("an emulated GPU's launcher panicked".into())))).collect()
    });
    let elapsed = ran.elapsed();
    if launched.iter().any(|r| matches!(r, Err(Error::Watchdog { stopped: false, .. }))) {
        // A kernel thread still runs over this memory. The run's error names the GPU that hung,
        // as a real run's does.
        for target in &mut targets {
            target.abandon();
        }
        std::mem::forget((heaps, heap_tables));
        let results = launched.into_iter().map(|r| r.map_err(PeError::from).and_then(|_| Err(PeError::StoppedByPeer))).collect();
        return merge::<P>(results, roots);
    }
    let results = launched
        .into_iter()
        .zip(&mut targets)
        .zip(&mut heaps)
        .map(|((l, target), heap)| {
            l?;
            status_result::<P>(&target.status()?, |w| format!("the deque of emulated worker {w} (program `{}`)", P::NAME))?;
            let phases = Phases { compile, run: elapsed, ..Phases::default() };
            let mut stats = read_worker_stats(target, workers, capacity.into(), phases)?;
            let root_values = match &layout.join {
                Some(join) => {
                    target.read_join()?.apply_to(&mut stats);
                    let bytes = heap.bytes_mut();
                    // The inbox's first word: continuations sent to this GPU (`cuda/features/join.cuh`).
                    stats.sent_home = u64::from_le_bytes(bytes[join.inbox_at as usize..][..8].try_into().expect("8 bytes"));
                    bytes[join.root_values_at as usize..][..join.root_values_bytes].to_vec()
                }
                None => Vec::new(),
            };
            Ok(PeShare { counter_slots: target.read_back::<P>(buffers)?, root_values, stats })
        })
        .map(|r: Result<_, Error>| decode_result::<P>(&encode_result(&r.map_err(PeError::from))))
        .collect::<Result<Vec<_>, String>>()
        .map_err(|m| Error::InvalidConfig(format!("an emulated GPU's result did not survive its bytes: {m}")))?;
    drop((heaps, heap_tables));
    merge::<P>(results, roots)
}
