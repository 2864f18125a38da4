//! One program on several GPUs: the deque megakernel on every GPU, thieves crossing GPUs
//! through NVSHMEM's peer mappings, and one `Output` back (issue 12; `docs/multi-gpu.md`).
//!
//! - `cuda/pe.cuh`: the device side (remote deques, the two-wave termination across GPUs,
//!   stopping every GPU when one fails); `cuda/victims.cuh`: the policies across GPUs
//! - `merge.rs`: the GPUs' results merged into one (counters reduced as declared, statistics
//!   side by side, the failing GPU's error)
//! - `process.rs`: one process per GPU, started by the runtime (SPMD), joined by NVSHMEM's
//!   unique id; `record.rs`: what they exchange; `run.rs`: one GPU's share of a run
//! - `emulate.rs`: several emulated GPUs in one process on the host-compiled templates, their
//!   symmetric heaps in host memory (what CI checks exactness with)

pub mod emulate;
mod merge;
pub(crate) mod process;
mod record;
pub(crate) mod run;

pub(crate) use merge::{merge, PeError};

use crate::buffer::BufferSet;
use crate::error::Error;
use crate::gpu::persistent::DEQUE_BYTES;
use crate::gpu::{KernelConfig, Scheduler};
use crate::program::Program;

/// The most GPUs a run may span (`WS_MAX_PES` in `cuda/pe.cuh`).
pub const MAX_GPUS: u32 = 64;

/// Bytes of `struct ws_pe_state` (`cuda/termination.cuh`), and where its `stop` word is.
const STATE_BYTES: usize = 128;
pub(crate) const STOP_OFFSET: u64 = 12;

/// Where a GPU's symmetric objects lie in its heap, alike on every GPU (`cuda/pe.cuh`): its
/// `ws_pe_state` first (the heap's address is the state's), then the deques, then the slots.
pub(crate) struct HeapLayout {
    pub deques_at: u64,
    pub slots_at: u64,
    pub bytes: usize,
}

impl HeapLayout {
    pub fn of<P: Program>(workers: u32, capacity: u32) -> HeapLayout {
        let slots_at = STATE_BYTES + workers as usize * DEQUE_BYTES;
        HeapLayout { deques_at: STATE_BYTES as u64, slots_at: slots_at as u64, bytes: slots_at + workers as usize * capacity as usize * P::TASK_BYTES }
    }
}

/// GPU `gpu`'s workers' random seed (each GPU its own streams of victims).
pub(crate) fn seed_of(gpu: u32) -> u32 {
    0x5EED_1234 ^ gpu.wrapping_mul(0x9E37_79B9)
}

/// Whether every GPU's share of `roots` fits its deques (GPU 0's is the largest); the same
/// answer on every GPU.
pub(crate) fn check_root_room(roots: usize, gpus: u32, workers: u32, capacity: u32) -> Result<(), Error> {
    let needed = (roots as u64).div_ceil(gpus as u64).div_ceil(workers as u64);
    if needed > capacity as u64 {
        return Err(Error::QueueOverflow { queue: "a worker deque (holding the initial tasks)".into(), capacity: capacity as u64, needed });
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
    if P::JOIN.is_some() {
        return Err(Error::InvalidConfig(format!(
            "`{}` has complete handlers or task values, which do not run across GPUs yet; run it on one GPU",
            P::NAME
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
}
