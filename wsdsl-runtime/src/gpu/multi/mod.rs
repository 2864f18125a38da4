//! One program on several GPUs: the deque megakernel on every GPU, thieves crossing GPUs
//! through NVSHMEM's peer mappings, and one `Output` back (issue 12; `docs/multi-gpu.md`).
//!
//! - `cuda/pe.cuh`: the device side (remote deques, the two-wave termination across GPUs,
//!   stopping every GPU when one fails); `cuda/victims.cuh`: the policies across GPUs
//! - `merge.rs`: the GPUs' results merged into one (counters reduced as declared, statistics
//!   side by side, the failing GPU's error)
//! - `process.rs`: one process per GPU, started by the runtime (SPMD), joined by NVSHMEM's
//!   unique id; `record.rs`: what they exchange; `run.rs`: one GPU's share of a run
//! - `emulate.rs`: several emulated GPUs in one process on the host-compiled templates, with
//!   NVSHMEM's peer mapping shimmed onto host heaps (what CI checks exactness with)

pub mod emulate;
mod merge;
pub(crate) mod process;
mod record;
pub(crate) mod run;

pub(crate) use merge::{merge, PeError};

use crate::buffer::BufferSet;
use crate::error::Error;
use crate::gpu::{KernelConfig, Scheduler};
use crate::program::Program;

/// The most GPUs a run may span (`WS_MAX_PES` in `cuda/pe.cuh`).
pub const MAX_GPUS: u32 = 64;

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
