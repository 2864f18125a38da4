//! The GPU backend: assemble -> NVRTC (cached) -> launch -> terminate -> results.

pub mod assemble;
pub mod compile;
pub mod device;
pub mod launch;
pub mod libs;

pub use assemble::{megakernel_source, KernelConfig, Steal, Victim, Worker};
pub use device::GpuDevice;
pub use launch::GpuOptions;

use crate::error::Error;
use crate::program::Program;

/// Compiles `P`'s megakernel for `arch` (e.g. `"sm_90"`) with NVRTC, without a GPU and
/// without the cache. Returns the CUBIN size. Used by tests and tools to check that a
/// program's generated CUDA compiles.
pub fn compile_check<P: Program>(arch: &str) -> Result<usize, Error> {
    compile_check_with::<P>(arch, &KernelConfig::default())
}

/// [`compile_check`] for a given scheduler configuration.
pub fn compile_check_with<P: Program>(arch: &str, config: &KernelConfig) -> Result<usize, Error> {
    let source = megakernel_source::<P>(config);
    compile::compile_uncached(P::NAME, &source, arch).map(|cubin| cubin.len())
}

/// Every scheduler configuration for a block size: each worker granularity with each victim
/// policy and steal amount.
pub fn all_kernel_configs(block_threads: u32) -> Vec<KernelConfig> {
    let mut all = Vec::new();
    for worker in [Worker::Thread, Worker::Warp, Worker::Block] {
        for victim in [Victim::Random, Victim::RoundRobin, Victim::Pws, Victim::Hws, Victim::SmallWorld] {
            for steal in [Steal::One, Steal::Half] {
                all.push(KernelConfig { block_threads, worker, victim, steal });
            }
        }
    }
    all
}
