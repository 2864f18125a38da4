//! Kernels that use NVSHMEM: NVRTC (`-rdc=true`, NVSHMEM/CUDA/CCCL include directories) to
//! PTX, then nvJitLink with `libnvshmem_device.a` to a CUBIN, through the same disk cache as
//! single-GPU kernels (`gpu/build/compile.rs`).
//!
//! The path the H100 machine verified: PTX + the device library as a *library* input. Linking
//! NVSHMEM's `.bc` as LTO-IR does not work, and the device API cannot be declared `extern "C"`
//! instead of including the headers (it is inline code in them).

use super::jitlink::{self, Input};
use super::locate::{self, Nvshmem, Overrides};
use crate::error::Error;
use crate::cache::stable_hash;
use crate::gpu::build::compile::{self as nvrtc, Cubin, Output};
use std::path::PathBuf;
use std::sync::OnceLock;

/// Pre-included ahead of the kernel (see the file for why).
const STD_TRAITS: &str = include_str!("../../../cuda/nvshmem/std_traits.cuh");

/// Where the headers and the device library are.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// NVSHMEM's headers and device library.
    pub nvshmem: Nvshmem,
    /// `cuda_runtime.h`, `cuda_fp16.h`.
    pub cuda_include: PathBuf,
    /// `cuda/std/...`.
    pub cccl_include: PathBuf,
}

impl Toolchain {
    /// Finds everything, under `overrides`; the first thing missing is the error.
    pub fn locate(overrides: &Overrides) -> Result<Toolchain, Error> {
        Ok(Toolchain { nvshmem: locate::nvshmem(overrides)?, cuda_include: locate::cuda_headers()?, cccl_include: locate::cccl_headers()? })
    }

    /// NVRTC's options for relocatable PTX of `arch` (`sm_90` -> `compute_90`).
    fn nvrtc_options(&self, arch: &str) -> Vec<String> {
        let mut opts = nvrtc::options(&arch.replacen("sm_", "compute_", 1));
        opts.push("--relocatable-device-code=true".into());
        // Older NVSHMEM headers (3.4) leave a few inline constructors unannotated; NVRTC
        // compiles only device code, so take those as `__device__` rather than refuse them.
        opts.push("--device-as-default-execution-space".into());
        for dir in [&self.nvshmem.include, &self.cccl_include, &self.cuda_include] {
            opts.push(format!("--include-path={}", dir.display()));
        }
        opts
    }

    /// What identifies the device library's contents for the cache: path, size and mtime.
    fn device_lib_identity(&self) -> String {
        let lib = self.nvshmem.device_lib();
        let meta = std::fs::metadata(&lib).ok();
        let size = meta.as_ref().map_or(0, |m| m.len());
        let mtime = meta.and_then(|m| m.modified().ok()).and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
        format!("{} {size} {mtime:?}", lib.display())
    }
}

/// The toolchain for this process, located on first use from the environment.
pub fn toolchain() -> Result<&'static Toolchain, Error> {
    static TOOLCHAIN: OnceLock<Toolchain> = OnceLock::new();
    if let Some(t) = TOOLCHAIN.get() {
        return Ok(t);
    }
    let found = Toolchain::locate(&Overrides::from_env())?;
    Ok(TOOLCHAIN.get_or_init(|| found))
}

/// The source NVRTC sees: the type-traits header, then `source`, each under its own
/// `#line` name so diagnostics point at the right file.
pub fn full_source(program: &str, source: &str) -> String {
    format!("#line 1 \"wsdsl-runtime/cuda/nvshmem/std_traits.cuh\"\n{STD_TRAITS}\n#line 1 \"{program}.cu\"\n{source}")
}

/// Compiles `source` (which includes `<nvshmem.h>`) and links it with NVSHMEM's device
/// library into a CUBIN for `arch` (e.g. `sm_90`); cached on disk like every kernel.
pub fn compile_linked(program: &'static str, source: &str, arch: &str) -> Result<Cubin, Error> {
    compile_linked_with(toolchain()?, program, source, arch)
}

/// [`compile_linked`] with a given toolchain.
pub fn compile_linked_with(tc: &Toolchain, program: &'static str, source: &str, arch: &str) -> Result<Cubin, Error> {
    let full = full_source(program, source);
    let opts = tc.nvrtc_options(arch);
    let key = stable_hash(&[&full, arch, &opts.join(" "), &tc.device_lib_identity()]);
    nvrtc::cached(program, &full, arch, key, || build(tc, program, &full, &opts, arch))
}

/// [`compile_linked_with`] without the cache: always runs NVRTC and nvJitLink.
pub fn link_uncached(tc: &Toolchain, program: &'static str, source: &str, arch: &str) -> Result<Vec<u8>, Error> {
    build(tc, program, &full_source(program, source), &tc.nvrtc_options(arch), arch)
}

/// NVRTC to PTX, then nvJitLink with the device library.
fn build(tc: &Toolchain, program: &'static str, full: &str, opts: &[String], arch: &str) -> Result<Vec<u8>, Error> {
    let ptx = nvrtc::compile(program, full, opts, Output::Ptx)?;
    let device_lib = tc.nvshmem.device_lib();
    jitlink::link(program, &[Input::Ptx { name: &format!("{program}.ptx"), text: &ptx }, Input::Library(&device_lib)], arch)
}
