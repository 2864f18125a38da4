//! The deque scheduler's part of a run (`runner.rs` does the rest): one work-stealing deque
//! per worker, sized from free memory, its control blocks and the victim policies' SM tables;
//! one cooperative launch of the persistent megakernel (`cuda/schedulers/deque.cuh`).

use crate::gpu::schedulers::worker_stats::{read_worker_stats, zeroed_worker_stats};
use super::{Run, Scheme};
use crate::gpu::run::target::{Sizes, Target};
use crate::error::Error;
use crate::contract::Program;
use crate::stats::{Phases, Stats};

/// Bytes of one deque control block (`struct ws_deque`, one 128-byte line).
pub(crate) const DEQUE_BYTES: usize = 128;
/// Entries of the per-SM leader table (SM ids are below the SM count; this is generous).
pub(crate) const MAX_SM_IDS: usize = 4096;
/// Memory role of the deques' task slots.
const SLOTS: &str = "deque slots";
/// Largest default deque capacity; the memory budget may lower it. A batch whose tasks each
/// spawn up to 256 children (a parallel partition) needs 8192 slots above what the deque holds.
const DEFAULT_MAX_CAPACITY: u64 = 32768;
/// Bytes of the idle count and run-wide flags of one GPU (`struct ws_pe_state`).
pub(crate) const STATE_BYTES: usize = 128;
/// The workers' random seed on one GPU (several GPUs: `multi::seed_of`).
const SEED: u32 = 0x5EED_1234;

/// Host mirror of `struct ws_launch` in `cuda/core/launch.cuh` (same order, C layout).
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
    /// `ws_pe_state`: idle workers and the run-wide flags (`cuda/core/termination.cuh`).
    pub state: u64,
    pub stop: u64,
    pub progress: u64,
    pub sm_of: u64,
    pub sm_leader: u64,
    pub workers: u32,
    pub capacity: u32,
    pub root_count: u32,
    pub seed: u32,
    /// Multi-GPU runs: where every GPU's symmetric heap is mapped for this GPU (`cuda/features/pe.cuh`).
    pub pe_heaps: u64,
    /// This GPU's index in a multi-GPU run, and the number of GPUs (0 and 1 alone).
    pub pe: u32,
    pub n_pes: u32,
}

/// Where the deques and the run-wide state lie: the run's own memory on one GPU, the
/// symmetric heap every GPU can reach across GPUs (`multi/`).
pub(crate) struct DequePlacement {
    pub slots: u64,
    pub deques: u64,
    pub state: u64,
}

/// A worker's memory besides its deque: its statistics and the victim policies' SM tables,
/// "unknown" (all ones) until the workers write them.
pub(crate) struct WorkerTables {
    pub stats: u64,
    pub sm_of: u64,
    pub sm_leader: u64,
}

impl WorkerTables {
    pub fn prepare<T: Target>(target: &mut T, workers: u32) -> Result<WorkerTables, Error> {
        let unknown = |n: usize| vec![0xFFu8; n * 4];
        Ok(WorkerTables {
            stats: zeroed_worker_stats(target, workers)?,
            sm_of: target.upload("SM of each worker", &unknown(workers as usize))?,
            sm_leader: target.upload("SM leaders", &unknown(MAX_SM_IDS))?,
        })
    }
}

impl LaunchRecord {
    /// The record of `run` on one GPU, its deques of `capacity` slots placed at `at`.
    pub fn new(run: &Run, tables: &WorkerTables, at: DequePlacement, capacity: u32) -> LaunchRecord {
        LaunchRecord {
            slots: at.slots,
            deques: at.deques,
            roots: run.roots,
            params: run.inputs.params,
            buffers: run.inputs.buffers,
            counter_slots: run.inputs.counters,
            stats: tables.stats,
            state: at.state,
            stop: run.stop,
            progress: run.progress,
            sm_of: tables.sm_of,
            sm_leader: tables.sm_leader,
            workers: run.workers,
            capacity,
            root_count: run.root_count,
            seed: SEED,
            pe_heaps: 0,
            pe: 0,
            n_pes: 1,
        }
    }
}

/// The deque scheduler; its capacity once chosen.
#[derive(Default)]
pub(crate) struct Deque {
    capacity: u64,
}

impl Scheme for Deque {
    type Record = LaunchRecord;
    const PERSISTENT: Option<&'static str> = Some("megakernel");
    const LAUNCHING: &'static str = "launching the megakernel";

    fn prepare<P: Program, T: Target>(&mut self, target: &mut T, run: &Run, sizes: &Sizes) -> Result<LaunchRecord, Error> {
        let workers = run.workers;
        self.capacity = choose_capacity::<P>(target.free_for(&[SLOTS])?, workers as u64, sizes.deque)?;
        check_root_room(run.root_count as usize, 1, workers, self.capacity)?;
        // Slots are written before they are read (deque invariant).
        let slots = target.scratch(SLOTS, workers as usize * self.capacity as usize * P::TASK_BYTES)?;
        let deques = target.zeroed("deque control blocks", workers as usize * DEQUE_BYTES)?;
        let state = target.zeroed("idle counter", STATE_BYTES)?;
        let tables = WorkerTables::prepare(target, workers)?;
        Ok(LaunchRecord::new(run, &tables, DequePlacement { slots, deques, state }, self.capacity as u32))
    }

    fn queue(&self, worker: u64, noun: &str, program: &str) -> String {
        format!("the deque of {noun} {worker} (program `{program}`)")
    }

    fn stats<T: Target>(&self, target: &mut T, run: &Run, phases: Phases) -> Result<Stats, Error> {
        read_worker_stats(target, run.workers, self.capacity, phases)
    }
}

/// Whether every worker's share of `roots` dealt over `gpus` GPUs (GPU 0's is the largest)
/// fits its deque.
pub(crate) fn check_root_room(roots: usize, gpus: u32, workers: u32, capacity: u64) -> Result<(), Error> {
    let needed = (roots as u64).div_ceil(gpus as u64).div_ceil(workers as u64);
    if needed > capacity {
        return Err(Error::QueueOverflow { queue: "a worker deque (holding the initial tasks)".into(), capacity, needed });
    }
    Ok(())
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
