//! What the hand-written CUDA baselines share (`baseline_bfs.rs`, `baseline_pagerank.rs`):
//! GPU 0 opened, their source compiled by the runtime's NVRTC path for its architecture, and
//! launch grids capped at enough blocks to fill every SM many times (the kernels loop
//! grid-stride beyond it).

use cudarc::driver::{CudaContext, CudaModule, CudaStream, DriverError, LaunchConfig};
use std::sync::Arc;

/// Threads per block.
pub const BLOCK: u32 = 256;

/// A driver error as a message naming what was being done.
pub fn driver(during: &'static str) -> impl FnOnce(DriverError) -> String {
    move |e| format!("{during}: {e}")
}

/// A baseline's kernels, compiled and loaded on GPU 0.
pub struct Compiled {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub module: Arc<CudaModule>,
    max_blocks: u32,
}

impl Compiled {
    /// Opens GPU 0 and compiles `source` (named `name` in errors) for its architecture.
    pub fn new(name: &'static str, source: &str) -> Result<Compiled, String> {
        wsdsl_runtime::gpu::libs::ensure_driver().map_err(|e| e.to_string())?;
        wsdsl_runtime::gpu::libs::ensure_nvrtc().map_err(|e| e.to_string())?;
        let ctx = CudaContext::new(0).map_err(driver("opening GPU 0"))?;
        let (major, minor) = ctx.compute_capability().map_err(driver("reading the compute capability"))?;
        let arch = format!("sm_{major}{minor}");
        let cubin = wsdsl_runtime::gpu::compile::compile_uncached(name, source, &arch).map_err(|e| e.to_string())?;
        let module = ctx.load_module(cudarc::nvrtc::Ptx::from_binary(cubin)).map_err(driver("loading the baseline's kernels"))?;
        let sms = ctx
            .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(driver("reading the SM count"))? as u32;
        let stream = ctx.default_stream();
        Ok(Compiled { ctx, stream, module, max_blocks: sms.max(1) * 32 })
    }

    /// Blocks of `BLOCK` threads for `threads` threads, within the cap.
    pub fn grid(&self, threads: u64) -> LaunchConfig {
        let blocks = threads.div_ceil(BLOCK as u64).clamp(1, self.max_blocks as u64) as u32;
        LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
    }
}

#[cfg(test)]
mod tests {
    /// The baselines' kernels compile with NVRTC for the H100 (skipped, visibly, without NVRTC).
    #[test]
    fn baselines_compile_for_sm_90() {
        if let Err(e) = wsdsl_runtime::gpu::libs::ensure_nvrtc() {
            println!("SKIPPED: no NVRTC: {e}");
            return;
        }
        for (name, source) in [("baseline_bfs", super::super::baseline_bfs::SOURCE), ("baseline_pagerank", super::super::baseline_pagerank::SOURCE)] {
            let cubin = wsdsl_runtime::gpu::compile::compile_uncached(name, source, "sm_90").unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!cubin.is_empty(), "{name}");
        }
    }
}
