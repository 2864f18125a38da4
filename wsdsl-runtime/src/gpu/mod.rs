//! The GPU backend: assemble -> NVRTC (cached) -> launch -> terminate -> results.

pub mod assemble;
pub mod compile;
pub mod device;
pub mod launch;
pub mod libs;

pub use assemble::{megakernel_source, KernelConfig};
pub use device::GpuDevice;
pub use launch::GpuOptions;

use crate::error::Error;
use crate::program::Program;

/// Compiles `P`'s megakernel for `arch` (e.g. `"sm_90"`) with NVRTC, without a GPU and
/// without the cache. Returns the CUBIN size. Used by tests and tools to check that a
/// program's generated CUDA compiles.
pub fn compile_check<P: Program>(arch: &str) -> Result<usize, Error> {
    let source = megakernel_source::<P>(&KernelConfig::default());
    compile::compile_uncached(P::NAME, &source, arch).map(|cubin| cubin.len())
}
