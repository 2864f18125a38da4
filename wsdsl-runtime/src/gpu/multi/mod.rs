//! One program on several GPUs: the deque megakernel on every GPU, thieves crossing GPUs
//! through NVSHMEM's peer mappings, and one `Output` back (`docs/multi-gpu.md`).
//!
//! - `cuda/features/pe.cuh`: the device side (remote deques, the two-wave termination across GPUs,
//!   stopping every GPU when one fails); `cuda/features/victims.cuh`: the policies across GPUs
//! - `merge.rs`: the GPUs' results merged into one (counters reduced as declared, statistics
//!   side by side, the failing GPU's error)
//! - `process.rs`: one process per GPU, started by the runtime (SPMD), joined by NVSHMEM's
//!   unique id; `launcher.rs`: the same processes started by `mpirun`, `srun` or by hand,
//!   meeting over TCP; `record.rs`: what they exchange; `run.rs`: one GPU's share of a run
//! - `alone.rs`: a run the host judged narrow (`gpu/run/spread.rs`), on GPU 0 alone
//! - `emulate.rs`: several emulated GPUs in one process on the host-compiled templates, their
//!   symmetric heaps in host memory (what CI checks exactness with)

mod alone;
pub mod emulate;
pub(crate) mod launcher;
mod merge;
pub(crate) mod process;
mod record;
pub(crate) mod run;

pub(crate) use merge::{merge, merge_sent, PeError, PeShare};

use crate::contract::buffer::BufferSet;
use crate::error::Error;
use crate::gpu::run::images::encode_tasks;
use crate::gpu::run::join::{choose_frames, root_value_bytes, JoinMemory, JoinRecord, PoolShape, INBOX_HEADER_BYTES};
use crate::gpu::schedulers::deque::{DequePlacement, LaunchRecord, WorkerTables, DEQUE_BYTES, STATE_BYTES};
use crate::gpu::run::runner::{put_in_place, ROOTS};
use crate::gpu::schedulers::Run;
use crate::gpu::run::target::Target;
use crate::gpu::{KernelConfig, Scheduler};
use crate::contract::Program;

/// The most GPUs a run may span (`WS_MAX_PES` in `cuda/features/pe.cuh`).
pub const MAX_GPUS: u32 = 64;

/// Where the `stop` word of `struct ws_pe_state` (`cuda/core/termination.cuh`) is.
pub(crate) const STOP_OFFSET: u64 = 12;

/// Where a GPU's symmetric objects lie in its heap, alike on every GPU (`cuda/features/pe.cuh`): its
/// `ws_pe_state` first (the heap's address is the state's), then the deques, then the slots,
/// then, for programs with complete handlers, the join pool (`cuda/features/join.cuh`).
pub(crate) struct HeapLayout {
    pub deques_at: u64,
    pub slots_at: u64,
    pub join: Option<JoinLayout>,
    pub bytes: usize,
}

/// The join pool's part of the heap: the workers' inboxes of continuations sent home
/// (zeroed: empty), the frames, the stacks of free batches, the parking slot (unused by the
/// persistent kernel, but the record points at one), and the values of the roots dealt to
/// this GPU.
pub(crate) struct JoinLayout {
    pub frames: u32,
    pub inbox_capacity: u32,
    pub inbox_at: u64,
    pub frames_at: u64,
    pub stacks_at: u64,
    pub parked_at: u64,
    pub root_values_at: u64,
    pub root_values_bytes: usize,
    pub memory: JoinMemory,
    pub shape: PoolShape,
}

impl HeapLayout {
    /// For `workers` deques of `capacity` slots, and (programs with complete handlers) a pool
    /// of `frames` frames whose stashes have `shape`, and values for `roots` roots over `gpus`.
    pub fn of<P: Program>(workers: u32, capacity: u32, frames: u32, shape: PoolShape, roots: usize, gpus: u32) -> Result<HeapLayout, Error> {
        // A frame's inbox is that of worker `index % shape.workers` (`cuda/features/join.cuh`): every
        // worker must hold a stash, as in the deque scheduler's non-cooperative kernels.
        if P::JOIN.is_some() && shape.workers != workers as usize {
            return Err(Error::InvalidConfig(format!(
                "`{}` runs {workers} workers per GPU but {} frame stashes; fork-join across GPUs needs one stash per worker (drop `cooperative`)",
                P::NAME,
                shape.workers
            )));
        }
        let slots_at = STATE_BYTES + workers as usize * DEQUE_BYTES;
        let mut end = slots_at + workers as usize * capacity as usize * P::TASK_BYTES;
        let join = P::JOIN.map(|j| {
            let mut place = |bytes: usize| {
                let at = end.next_multiple_of(16);
                end = at + bytes;
                at as u64
            };
            let memory = JoinMemory::new(j.frame_bytes, shape);
            let root_values_bytes = roots.div_ceil(gpus as usize).max(1) * root_value_bytes::<P>();
            // A worker's ring holds every frame that maps to it (`cuda/features/join.cuh`).
            let inbox_capacity = (frames as usize).div_ceil(shape.workers).next_power_of_two() as u32;
            JoinLayout {
                frames,
                inbox_capacity,
                inbox_at: place(INBOX_HEADER_BYTES + 8 * shape.workers * (1 + inbox_capacity as usize)),
                frames_at: place(frames as usize * j.frame_bytes),
                stacks_at: place(memory.stacks.len() * 8),
                parked_at: place(memory.parked.len() * 4),
                root_values_at: place(root_values_bytes),
                root_values_bytes,
                memory,
                shape,
            }
        });
        Ok(HeapLayout { deques_at: STATE_BYTES as u64, slots_at: slots_at as u64, join, bytes: end })
    }
}

impl JoinLayout {
    /// The kernel's `wsdsl_join` for GPU `pe` of `n_pes`, whose heap is at `heap` and the
    /// table of every GPU's heap (as mapped there) at `pe_heaps`.
    pub fn record(&self, heap: u64, pe_heaps: u64, pe: u32, n_pes: u32) -> JoinRecord {
        let base = JoinRecord::new(heap + self.frames_at, heap + self.root_values_at, self.frames, heap + self.parked_at, self.shape, heap + self.stacks_at);
        let id_shift = crate::gpu::run::join::frame_id_shift(self.frames);
        JoinRecord { heap, pe_heaps, inbox: heap + self.inbox_at, pe, n_pes, inbox_capacity: self.inbox_capacity, id_shift, ..base }
    }

    /// The initial image of the stacks (every one empty; the rest of the heap starts zeroed).
    pub fn stacks_image(&self) -> Vec<u8> {
        self.memory.stacks.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

/// Frame pool of each GPU unless the runtime says otherwise (it lies in NVSHMEM's symmetric
/// heap with the deques).
const DEFAULT_FRAMES: u64 = 1 << 22;

/// Frame ids below the kernel's reserved ids (`WS_JOIN_NONE`).
const JOIN_IDS: u64 = 0xffff_fffd;

/// Frames per GPU: the requested number, or as many as fit a quarter of `free` memory up to
/// [`DEFAULT_FRAMES`], so that every GPU's frame ids (`pe << shift | index`, the shift
/// making room for `frames` indices) stay below the ids the kernel reserves (and, with at
/// most 2^30, a worker's inbox ring, a power of two, stays a u32).
pub(crate) fn frames_per_gpu<P: Program>(requested: Option<u32>, free: usize, shape: PoolShape, gpus: u32) -> Result<u32, Error> {
    let Some(j) = P::JOIN else { return Ok(0) };
    let fit = ((free as u64 / 4) / j.frame_bytes.max(1) as u64).clamp(1, DEFAULT_FRAMES) as u32;
    let frames = choose_frames(j.frame_bytes, free, shape, Some(requested.unwrap_or(fit)))?;
    check_frame_ids(frames, gpus).map_err(Error::InvalidConfig)?;
    Ok(frames)
}

/// Whether `gpus` pools of `frames` join frames each can be named (`frames_per_gpu`); the
/// reason when they cannot.
fn check_frame_ids(frames: u32, gpus: u32) -> Result<(), String> {
    const MAX_FRAMES: u32 = 1 << 30;
    if frames > MAX_FRAMES {
        return Err(format!("{frames} join frames per GPU: at most {MAX_FRAMES} (a worker's inbox ring of frames must stay a u32); ask for fewer frames"));
    }
    let per_gpu = 1u64 << crate::gpu::run::join::frame_id_shift(frames);
    if gpus as u64 * per_gpu > JOIN_IDS {
        let most = 1u64 << (63 - (JOIN_IDS / gpus as u64).leading_zeros());
        return Err(format!(
            "{gpus} GPUs of {frames} join frames each: a GPU's frame ids take the next power of two ({per_gpu}), {} in all, more than the kernel has ({JOIN_IDS}); ask for at most {most} frames per GPU",
            gpus as u64 * per_gpu
        ));
    }
    Ok(())
}

/// The device images of the roots dealt to GPU `gpu` of `gpus` (`roots_of`), and how many
/// there are; in programs with joins each names its index among all roots, which tells the
/// kernel where its value goes (`cuda/features/join.cuh`).
pub(crate) fn encode_dealt_roots<P: Program>(roots: &[P::Task], gpu: u32, gpus: u32) -> (Vec<u8>, u32) {
    let dealt = roots_of(roots, gpu, gpus);
    let mut bytes = encode_tasks::<P>(&dealt);
    if P::JOIN.is_some() {
        for (i, out) in bytes.chunks_exact_mut(P::TASK_BYTES).enumerate() {
            out[8..12].copy_from_slice(&((gpu as usize + i * gpus as usize) as u32).to_le_bytes());
        }
    }
    (bytes, dealt.len() as u32)
}

/// GPU `gpu`'s workers' random seed (each GPU its own streams of victims).
pub(crate) fn seed_of(gpu: u32) -> u32 {
    0x5EED_1234 ^ gpu.wrapping_mul(0x9E37_79B9)
}

/// GPU `gpu`'s own (not symmetric) part of a run of `gpus` GPUs, put in place on `target`
/// as a one-GPU run's is (`runner.rs`): the program's inputs, its share of `roots`, the stop
/// flag, progress words when `progress` (the emulation writes them so that they are
/// exercised), the worker tables and a cleared status record.
#[allow(clippy::too_many_arguments)]
pub(crate) fn prepare_share<P: Program, T: Target>(
    target: &mut T,
    config: &KernelConfig,
    blocks: u32,
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    (gpu, gpus): (u32, u32),
    progress: bool,
) -> Result<(Run, WorkerTables), Error> {
    let workers = blocks * (config.block_threads / config.worker_threads());
    let inputs = target.inputs::<P>(params, buffers)?;
    let (dealt, root_count) = encode_dealt_roots::<P>(roots, gpu, gpus);
    let roots = target.upload(ROOTS, &dealt)?;
    let tables = WorkerTables::prepare(target, workers)?;
    let run = put_in_place(target, config, blocks, inputs, (roots, root_count), progress)?;
    Ok((run, tables))
}

/// The launch record of GPU `pe` of `n_pes`, whose symmetric heap is at `heap` (laid out as
/// `layout`) and the table of every GPU's heap, as mapped there, at `pe_heaps`.
pub(crate) fn share_record(run: &Run, tables: &WorkerTables, layout: &HeapLayout, capacity: u32, heap: u64, pe_heaps: u64, (pe, n_pes): (u32, u32)) -> LaunchRecord {
    let at = DequePlacement { slots: heap + layout.slots_at, deques: heap + layout.deques_at, state: heap };
    LaunchRecord { seed: seed_of(pe), pe_heaps, pe, n_pes, ..LaunchRecord::new(run, tables, at, capacity) }
}

/// Whether `P` can run on GPUs of several hosts, or why not: data-parallel jobs reach their
/// frames through peer mappings only (`cuda/features/parallel.cuh`), which GPUs of other hosts lack.
/// Fork-join itself crosses hosts (`cuda/features/join.cuh`, the one-sided deliveries).
pub(crate) fn check_across_hosts<P: Program>() -> Result<(), Error> {
    if P::CUDA_TYPES.contains("#define WSDSL_JOBS 1") {
        return Err(Error::InvalidConfig(format!(
            "`{}` runs data-parallel jobs (`ctx.parallel`), which do not cross hosts yet; run it on the GPUs of one host",
            P::NAME
        )));
    }
    Ok(())
}

/// Whether `P` can run on `gpus` GPUs under `config`, or why not.
pub(crate) fn check_program<P: Program>(config: &KernelConfig, buffers: &P::Buffers, gpus: u32) -> Result<(), Error> {
    if gpus == 0 || gpus > MAX_GPUS {
        return Err(Error::InvalidConfig(format!("a run spans 1 to {MAX_GPUS} GPUs, not {gpus}")));
    }
    if config.scheduler != Scheduler::Deque {
        return Err(Error::InvalidConfig(format!(
            "`{}` asks for the {:?} scheduler, which runs on one GPU; runs on several GPUs use the deque scheduler",
            P::NAME,
            config.scheduler
        )));
    }
    if let Some(i) = buffers.buffers().iter().position(|b| b.residency().is_none()) {
        return Err(Error::InvalidConfig(format!(
            "buffer {i} of `{}` is writable, and a run on several GPUs cannot merge what each GPU wrote; \
             make it ReadOnly, keep results in counters, or run on one GPU",
            P::NAME
        )));
    }
    Ok(())
}

/// The roots GPU `gpu` of `gpus` starts with: every `gpus`-th, from the `gpu`-th.
pub(crate) fn roots_of<T: Copy>(roots: &[T], gpu: u32, gpus: u32) -> Vec<T> {
    roots.iter().skip(gpu as usize).step_by(gpus as usize).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_are_dealt_round_robin_and_none_is_lost() {
        let roots: Vec<u32> = (0..10).collect();
        let dealt: Vec<Vec<u32>> = (0..3).map(|g| roots_of(&roots, g, 3)).collect();
        assert_eq!(dealt, vec![vec![0, 3, 6, 9], vec![1, 4, 7], vec![2, 5, 8]]);
        assert_eq!(roots_of(&[7u32], 1, 2), Vec::<u32>::new(), "a GPU may start with nothing");
    }

    #[test]
    fn frame_ids_leave_room_for_every_index_and_stay_below_the_reserved_ones() {
        use crate::gpu::run::join::frame_id_shift;
        let shifts: Vec<u32> = [0u32, 1, 2, 3, 4, 5, 1 << 22, (1 << 22) + 1, 1 << 30].iter().map(|&f| frame_id_shift(f)).collect();
        assert_eq!(shifts, vec![0, 0, 1, 2, 2, 3, 22, 23, 30]);
        for frames in [1u32, 2, 3, 1000, 1 << 22, (1 << 22) + 1] {
            let shift = frame_id_shift(frames);
            assert!(frames as u64 <= 1u64 << shift, "index {} does not fit {shift} bits", frames - 1);
        }
        assert!(check_frame_ids(1 << 25, 64).is_ok());
        assert!(check_frame_ids(1 << 30, 3).is_ok(), "3 GPUs of 2^30 ids each stay below the reserved ones");
        let refused = check_frame_ids(1 << 26, 64).unwrap_err();
        assert!(refused.contains("at most 33554432 frames per GPU"), "{refused}");
        let rounded = check_frame_ids(300_000_000, 8).unwrap_err();
        assert!(rounded.contains("next power of two (536870912)") && rounded.contains("at most 268435456"), "{rounded}");
        assert!(check_frame_ids((1 << 30) + 1, 1).unwrap_err().contains("at most 1073741824"));
    }
}
