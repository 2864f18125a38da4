//! The device side of complete handlers, as the host sees it: the frame pool and the roots'
//! values, reached by the kernel through the module global `wsdsl_join` (`cuda/features/join.cuh`).

use crate::gpu::run::target::Target;
use crate::contract::schedule::{KernelConfig, Scheduler};
use crate::error::Error;
use crate::contract::Program;
use crate::stats::Stats;
use crate::contract::value::TaskValue;
use cudarc::driver::{CudaModule, CudaStream};
use std::sync::Arc;

/// Largest default frame pool; free device memory may lower it.
const DEFAULT_MAX_FRAMES: u64 = 1 << 24;
/// `WS_JOIN_NONE`: an empty stack of free-frame batches.
const NO_FRAME: u64 = 0xffff_fffd;
/// `WS_FRAME_STACKS` in `cuda/features/join.cuh`.
const FRAME_STACKS: usize = 128;

/// `WS_FRAME_BATCH` for frames of `frame_bytes`: the free ids that travel together between
/// a worker's stash and the pool, which must fit in one frame past its 24-byte header.
pub(crate) fn frame_batch(frame_bytes: usize) -> usize {
    ((frame_bytes - 24) / 4).min(16)
}

/// Who holds frames during a launch (`cuda/features/join.cuh`): the workers with a stash each, how many
/// of them park it between launches, and how many threads share one stash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PoolShape {
    pub workers: usize,
    pub parked_slots: usize,
    pub stash_threads: usize,
}

impl PoolShape {
    /// For a launch of `threads` threads under `config`: the static scheduler's threads are
    /// workers that park their stashes between generations; the persistent kernels' workers
    /// keep theirs for the whole run.
    pub fn of(config: &KernelConfig, threads: usize) -> PoolShape {
        let stash_threads = config.stash_threads().max(1) as usize;
        let workers = threads.div_ceil(stash_threads).max(1);
        let parked_slots = if config.scheduler == Scheduler::Static { workers } else { 0 };
        PoolShape { workers, parked_slots, stash_threads }
    }

    /// `WS_STASH_CAP`: the most free ids one stash holds, its ring's length (a power of two
    /// holding its band's top and a batch's returns; `cuda/features/join.cuh`).
    pub fn stash_capacity(&self, frame_bytes: usize) -> usize {
        let batch = self.stash_threads;
        let unit = if batch == 1 { 2 } else { batch.max(frame_batch(frame_bytes)) };
        (2 * batch + (8 * unit).min(4096)).next_power_of_two().max(16)
    }
}

/// Host mirror of `struct ws_join_state` (same order, C layout).
#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct JoinRecord {
    pub frames: u64,
    pub root_values: u64,
    pub parked: u64,
    pub stacks: u64,
    pub bump: u32,
    pub capacity: u32,
    pub parked_slots: u32,
    pub workers: u32,
    pub completions: u64,
    /// Multi-GPU runs (`cuda/features/join.cuh`, across GPUs): this GPU's symmetric heap, the table
    /// of every GPU's heap as mapped here, this GPU's inboxes of continuations sent home, its
    /// index, the number of GPUs and the slots of a worker's inbox.
    pub heap: u64,
    pub pe_heaps: u64,
    pub inbox: u64,
    pub pe: u32,
    pub n_pes: u32,
    pub inbox_capacity: u32,
    /// Across GPUs a frame id is `pe << id_shift | index` (`cuda/features/join.cuh`): a shift, so
    /// that naming a frame's GPU costs no division (0 for the one-GPU kernel; with one GPU an
    /// id is its index whatever the shift).
    pub id_shift: u32,
}

/// The shift that makes room for `frames` frame indices below each GPU's ids.
pub(crate) fn frame_id_shift(frames: u32) -> u32 {
    32 - frames.saturating_sub(1).leading_zeros()
}

/// Bytes of `struct ws_join_state`.
pub(crate) const JOIN_RECORD_BYTES: usize = 96;

/// Bytes of `struct ws_join_inbox` before its tickets (two 128-byte lines of counts).
pub(crate) const INBOX_HEADER_BYTES: usize = 256;

impl JoinRecord {
    /// A fresh pool of `capacity` frames at `frames`, roots' values at `root_values`, the
    /// parking slots of `shape` (empty) at `parked` and empty stacks at `stacks` (see
    /// [`JoinMemory`]).
    pub fn new(frames: u64, root_values: u64, capacity: u32, parked: u64, shape: PoolShape, stacks: u64) -> JoinRecord {
        JoinRecord {
            frames,
            root_values,
            parked,
            stacks,
            bump: 0,
            capacity,
            parked_slots: shape.parked_slots as u32,
            workers: shape.workers as u32,
            completions: 0,
            heap: 0,
            pe_heaps: 0,
            inbox: 0,
            pe: 0,
            n_pes: 1,
            inbox_capacity: 0,
            id_shift: 0,
        }
    }

    pub fn to_bytes(self) -> Vec<u8> {
        let mut b = Vec::with_capacity(JOIN_RECORD_BYTES);
        for word in [self.frames, self.root_values, self.parked, self.stacks] {
            b.extend_from_slice(&word.to_le_bytes());
        }
        for word in [self.bump, self.capacity, self.parked_slots, self.workers] {
            b.extend_from_slice(&word.to_le_bytes());
        }
        for word in [self.completions, self.heap, self.pe_heaps, self.inbox] {
            b.extend_from_slice(&word.to_le_bytes());
        }
        for word in [self.pe, self.n_pes, self.inbox_capacity, self.id_shift] {
            b.extend_from_slice(&word.to_le_bytes());
        }
        b
    }

    pub fn from_bytes(b: &[u8]) -> JoinRecord {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        JoinRecord {
            frames: u64_at(0),
            root_values: u64_at(8),
            parked: u64_at(16),
            stacks: u64_at(24),
            bump: u32_at(32),
            capacity: u32_at(36),
            parked_slots: u32_at(40),
            workers: u32_at(44),
            completions: u64_at(48),
            heap: u64_at(56),
            pe_heaps: u64_at(64),
            inbox: u64_at(72),
            pe: u32_at(80),
            n_pes: u32_at(84),
            inbox_capacity: u32_at(88),
            id_shift: u32_at(92),
        }
    }

    /// Points the module's `wsdsl_join` at this pool.
    pub fn write(self, module: &Arc<CudaModule>, stream: &Arc<CudaStream>) -> Result<(), Error> {
        let mut global = module.get_global("wsdsl_join", stream).map_err(Error::driver("finding the join state"))?;
        stream.memcpy_htod(&self.to_bytes(), &mut global).map_err(Error::driver("writing the join state"))
    }

    /// The module's `wsdsl_join` after a run.
    pub fn read(module: &Arc<CudaModule>, stream: &Arc<CudaStream>) -> Result<JoinRecord, Error> {
        let global = module.get_global("wsdsl_join", stream).map_err(Error::driver("reading the join state"))?;
        Ok(JoinRecord::from_bytes(&stream.clone_dtoh(&global).map_err(Error::driver("reading the join state"))?))
    }

    /// Frames ever handed out: an upper bound on the frames in use at once.
    pub fn high_water(&self) -> u64 {
        self.bump.min(self.capacity) as u64
    }

    /// What a run's statistics say of its joins: the frames' high-water mark, and the
    /// complete handlers run, which every scheduler also counted among its tasks (each ran
    /// as a continuation record or batch): they are taken out of `tasks`.
    pub fn apply_to(&self, stats: &mut Stats) {
        stats.peak_frames = self.high_water();
        stats.completions = self.completions;
        stats.tasks = stats.tasks.saturating_sub(self.completions);
    }
}

/// The initial images of the pool's bookkeeping: per-worker parking slots holding no frames
/// (a count, then `WS_STASH_CAP` ids each) and empty stacks.
pub(crate) struct JoinMemory {
    pub parked: Vec<u32>,
    pub stacks: Vec<u64>,
}

impl JoinMemory {
    pub fn new(frame_bytes: usize, shape: PoolShape) -> JoinMemory {
        let slot = shape.stash_capacity(frame_bytes) + 1;
        JoinMemory { parked: vec![0; shape.parked_slots.max(1) * slot], stacks: vec![NO_FRAME; FRAME_STACKS] }
    }
}

/// Bytes reserved per root for its value (a `wsdsl_value`, at least a word).
pub(crate) fn root_value_bytes<P: Program>() -> usize {
    P::JOIN.map_or(0, |j| j.value_bytes).max(8)
}

/// The roots' values from their device image (`value_bytes` apart).
pub(crate) fn decode_root_values<P: Program>(bytes: &[u8], roots: &[P::Task]) -> Vec<P::Value> {
    let stride = P::JOIN.map_or(0, |j| j.value_bytes);
    if stride == 0 {
        return vec![P::Value::placeholder(); roots.len()];
    }
    bytes.chunks_exact(stride).zip(roots).map(|(b, t)| P::decode_value(t, b)).collect()
}

/// The frame pool size: the requested one, or as many frames as fit in a quarter of free
/// device memory, up to 16 M.
pub(crate) fn choose_frames(frame_bytes: usize, free: usize, shape: PoolShape, requested: Option<u32>) -> Result<u32, Error> {
    let n = match requested {
        Some(n) => n as u64,
        None => ((free as u64 / 4) / frame_bytes.max(1) as u64).min(DEFAULT_MAX_FRAMES),
    };
    // Frame ids stay below WS_JOIN_NONE even when every worker's last fresh batch runs past
    // the end of the pool.
    let overshoot = (shape.workers * shape.stash_capacity(frame_bytes)) as u64;
    if n == 0 || n * frame_bytes as u64 > free as u64 || n + overshoot >= NO_FRAME {
        return Err(Error::InvalidConfig(format!(
            "a pool of {n} join frames of {frame_bytes} bytes does not fit in {} MiB of free device memory",
            free >> 20
        )));
    }
    Ok(n as u32)
}

/// Memory roles of the pool.
const FRAMES: &str = "join frames";
const ROOT_VALUES: &str = "join root values";
const PARKED: &str = "join parking slots";
const STACKS: &str = "join frame stacks";

/// A run's frame pool and roots' values, in its target's memory.
pub(crate) struct JoinPool {
    roots: usize,
}

impl JoinPool {
    /// For a program with joins: takes the pool, the roots' values and the parking slots of
    /// `shape` (the largest launch of the run) from the target, initialised, and points the
    /// kernel's `wsdsl_join` at them. `None` for programs without.
    pub fn prepare<P: Program, T: Target>(target: &mut T, roots: usize, shape: PoolShape, requested: Option<u32>) -> Result<Option<JoinPool>, Error> {
        let Some(layout) = P::JOIN else { return Ok(None) };
        let capacity = choose_frames(layout.frame_bytes, target.free_for(&[FRAMES])?, shape, requested)?;
        // Frames are initialised by the kernel before use (free lists, then the task).
        let frames = target.scratch(FRAMES, capacity as usize * layout.frame_bytes)?;
        let root_values = target.zeroed(ROOT_VALUES, roots.max(1) * root_value_bytes::<P>())?;
        let memory = JoinMemory::new(layout.frame_bytes, shape);
        let parked = target.upload(PARKED, &memory.parked.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>())?;
        let stacks = target.upload(STACKS, &memory.stacks.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>())?;
        target.write_join(JoinRecord::new(frames, root_values, capacity, parked, shape, stacks))?;
        Ok(Some(JoinPool { roots }))
    }

    /// After the run: the roots' values, with the pool's figures put into `stats`
    /// ([`JoinRecord::apply_to`]).
    pub fn results<P: Program, T: Target>(pool: &Option<JoinPool>, target: &mut T, roots: &[P::Task], stats: &mut Stats) -> Result<Vec<P::Value>, Error> {
        let Some(pool) = pool else { return Ok(vec![P::Value::placeholder(); roots.len()]) };
        let record = target.read_join()?;
        let bytes = target.read(ROOT_VALUES, pool.roots.max(1) * root_value_bytes::<P>())?;
        record.apply_to(stats);
        Ok(decode_root_values::<P>(&bytes, &roots[..pool.roots.min(roots.len())]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_join_record_round_trips_in_c_layout() {
        let shape = PoolShape { workers: 9, parked_slots: 7, stash_threads: 32 };
        let r = JoinRecord::new(1, 2, 40, 3, shape, 4);
        assert_eq!((r.heap, r.pe_heaps, r.inbox, r.pe, r.n_pes, r.inbox_capacity), (0, 0, 0, 0, 1, 0), "one GPU unless a multi-GPU run says otherwise");
        let b = JoinRecord { bump: 48, completions: 5, heap: 6, pe_heaps: 7, inbox: 8, pe: 1, n_pes: 2, inbox_capacity: 64, id_shift: 6, ..r }.to_bytes();
        assert_eq!(b.len(), JOIN_RECORD_BYTES, "sizeof(ws_join_state)");
        let back = JoinRecord::from_bytes(&b);
        assert_eq!((back.frames, back.root_values, back.parked, back.stacks), (1, 2, 3, 4));
        assert_eq!((back.bump, back.capacity, back.parked_slots, back.workers), (48, 40, 7, 9));
        assert_eq!(back.completions, 5);
        assert_eq!((back.heap, back.pe_heaps, back.inbox, back.pe, back.n_pes, back.inbox_capacity, back.id_shift), (6, 7, 8, 1, 2, 64, 6));
        assert_eq!(back.high_water(), 40, "the bump runs past the capacity only when the pool is exhausted");
    }

    #[test]
    fn a_batch_of_free_frame_ids_fits_in_one_frame() {
        assert_eq!(frame_batch(40), 4, "a header and a 16-byte task (real frames add a value slot)");
        assert_eq!(frame_batch(1000), 16);
        let shape = PoolShape { workers: 3, parked_slots: 3, stash_threads: 1 };
        assert_eq!(shape.stash_capacity(40), 32, "a ring for a band of 16 and two batches of one");
        let warps = PoolShape { workers: 3, parked_slots: 3, stash_threads: 32 };
        assert_eq!(warps.stash_capacity(56), 512, "a band of eight warps' batches and two more");
        let m = JoinMemory::new(40, shape);
        assert_eq!((m.parked.len(), m.stacks.len()), (99, FRAME_STACKS));
    }

    #[test]
    fn only_the_static_schedulers_workers_park_their_stashes() {
        let warp = PoolShape::of(&KernelConfig::default(), 1024);
        assert_eq!(warp, PoolShape { workers: 32, parked_slots: 0, stash_threads: 32 });
        let stat = PoolShape::of(&KernelConfig { scheduler: Scheduler::Static, ..KernelConfig::default() }, 1024);
        assert_eq!(stat, PoolShape { workers: 1024, parked_slots: 1024, stash_threads: 1 });
    }

    #[test]
    fn the_frame_pool_fits_free_memory() {
        let shape = |workers| PoolShape { workers, parked_slots: 0, stash_threads: 32 };
        assert_eq!(choose_frames(100, 4_000, shape(8), None).unwrap(), 10);
        assert_eq!(choose_frames(100, usize::MAX / 2, shape(8), None).unwrap(), 1 << 24);
        assert!(choose_frames(100, 1_000, shape(8), Some(11)).is_err());
        assert!(choose_frames(100, usize::MAX / 2, shape(1 << 28), Some(1 << 30)).is_err(), "ids would reach WS_JOIN_NONE");
    }
}
