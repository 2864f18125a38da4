//! A real GPU as a run's target: the device itself (its context, its properties, the kernels
//! already loaded on it: [`GpuDevice`], here), the `Target` it is for the runner (`target.rs`), the memory kept between runs (`workspace.rs`), the
//! program's inputs in device memory (`inputs.rs`) moved through pinned pieces
//! (`staging.rs`), host memory the kernel reads while it runs (`mapped.rs`: the watchdog's
//! stop flag, `watchdog.rs`, and the progress words), the launch under the watchdog
//! (`launch.rs`) and the stack of programs with recursive helpers (`stack.rs`).

pub(crate) mod inputs;
pub(crate) mod launch;
pub(crate) mod mapped;
pub(crate) mod stack;
pub(crate) mod staging;
pub(crate) mod target;
pub(crate) mod watchdog;
pub(crate) mod workspace;

use crate::gpu::build::libs;
use workspace::Workspace;
use crate::error::Error;
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// An opened GPU.
pub struct GpuDevice {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    /// The device's name, as the driver gives it.
    pub name: String,
    /// e.g. `sm_90`: the exact architecture kernels are compiled for.
    pub arch: String,
    /// Its streaming multiprocessors.
    pub sm_count: u32,
    /// Kernels loaded in this process, by source hash: a second run skips NVRTC and loading.
    /// With each, the per-thread stack it needs (0: CUDA's default will do, `stack.rs`).
    pub(crate) modules: Mutex<HashMap<u64, (Arc<CudaModule>, CudaFunction, Option<stack::Need>)>>,
    /// Device memory kept between runs (one run at a time holds it).
    pub(crate) workspace: Mutex<Workspace>,
}

impl GpuDevice {
    /// Opens GPU `ordinal`, or explains why there is none.
    pub fn open(ordinal: usize) -> Result<GpuDevice, Error> {
        libs::ensure_driver().map_err(|_| Error::NoGpu {
            reason: "the CUDA driver (libcuda.so.1, installed with the NVIDIA driver) is not on the dynamic loader path".into(),
        })?;
        let count = CudaContext::device_count().map_err(|e| Error::NoGpu {
            reason: format!("the CUDA driver could not be initialised ({e})"),
        })?;
        if count <= ordinal as i32 {
            return Err(Error::NoGpu { reason: format!("GPU {ordinal} requested but the driver reports {count} GPU(s)") });
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| Error::NoGpu { reason: format!("opening GPU {ordinal}: {e}") })?;
        let name = ctx.name().map_err(Error::driver("reading the device name"))?;
        let (major, minor) = ctx.compute_capability().map_err(Error::driver("reading the compute capability"))?;
        let sm_count = ctx
            .attribute(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(Error::driver("reading the SM count"))? as u32;
        let coop = ctx
            .attribute(Attr::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)
            .map_err(Error::driver("reading cooperative-launch support"))?;
        if coop == 0 {
            return Err(Error::NoGpu {
                reason: format!("{name} cannot launch cooperative kernels, which the persistent megakernel needs"),
            });
        }
        let stream = ctx.new_stream().map_err(Error::driver("creating a stream"))?;
        Ok(GpuDevice {
            ctx,
            stream,
            name,
            arch: format!("sm_{major}{minor}"),
            sm_count,
            modules: Mutex::new(HashMap::new()),
            workspace: Mutex::new(Workspace::default()),
        })
    }
}
