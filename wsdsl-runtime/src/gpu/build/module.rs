//! A program's compiled kernel on a device: from this process's modules, the disk cache, or
//! NVRTC, in that order; for a program with recursive helpers, with the stack it needs.

use crate::cache::{stable_hash, stable_hash_bytes};
use crate::gpu::build::compile::{compile_cached, Cubin};
use crate::gpu::device::GpuDevice;
use crate::error::Error;
use crate::contract::Program;
use crate::stats::Phases;
use cudarc::driver::{CudaFunction, CudaModule};
use std::sync::Arc;
use std::time::Instant;

/// `source` compiled for `arch` through the disk cache: by NVRTC, or, for a source that calls
/// NVSHMEM's device API, by NVRTC and nvJitLink with NVSHMEM's device library.
pub(crate) fn compile_any(program: &'static str, source: &str, arch: &str) -> Result<Cubin, Error> {
    if crate::gpu::build::assemble::calls_nvshmem(source) {
        crate::gpu::nvshmem::compile_linked(program, source, arch)
    } else {
        compile_cached(program, source, arch)
    }
}

/// Loads the kernel `entry` of `P`'s assembled `source`; records compile time and cache use
/// in `phases`.
pub(crate) fn load_source<P: Program>(
    dev: &GpuDevice,
    source: &str,
    entry: &str,
    phases: &mut Phases,
) -> Result<(Arc<CudaModule>, CudaFunction), Error> {
    let started = Instant::now();
    let loaded = load_hashed_source::<P>(dev, source, stable_hash(&[source]), entry, phases);
    phases.compile = started.elapsed();
    loaded
}

/// [`load_source`] of a source whose [`stable_hash`] is known (`assemble::kernel_source_once`
/// keeps it beside the source, so a warm run hashes nothing).
pub(crate) fn load_hashed_source<P: Program>(
    dev: &GpuDevice,
    source: &str,
    source_hash: u64,
    entry: &str,
    phases: &mut Phases,
) -> Result<(Arc<CudaModule>, CudaFunction), Error> {
    let started = Instant::now();
    let key = stable_hash_bytes(&[&source_hash.to_le_bytes(), dev.arch.as_bytes()]);
    let mut modules = dev.modules.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((m, f, stack)) = modules.get(&key) {
        phases.cache_hit = true;
        if let Some(need) = stack {
            crate::gpu::device::stack::ensure(dev, need)?;
        }
        phases.compile = started.elapsed();
        return Ok((m.clone(), f.clone()));
    }
    let cubin = compile_any(P::NAME, source, &dev.arch)?;
    let stack = match P::RECURSION {
        Some(r) => {
            let need = crate::gpu::device::stack::needed(&r, crate::gpu::build::elf::function_frames(&cubin.image).as_deref());
            crate::gpu::device::stack::ensure(dev, &need)?;
            Some(need)
        }
        None => None,
    };
    phases.cache_hit = cubin.from_cache;
    let module = dev
        .ctx
        .load_module(cudarc::nvrtc::Ptx::from_binary(cubin.image))
        .map_err(Error::driver("loading the compiled kernel"))?;
    let func = module.load_function(entry).map_err(Error::driver("finding the kernel entry point"))?;
    modules.insert(key, (module.clone(), func.clone(), stack));
    phases.compile = started.elapsed();
    Ok((module, func))
}
