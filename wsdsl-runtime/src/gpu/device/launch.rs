//! Launching a kernel whose one argument is a launch record: copy the record to the device,
//! launch between two events, wait under the watchdog, and time it (every run on a GPU goes
//! through here, `target.rs`).

use crate::gpu::device::GpuDevice;
use crate::gpu::device::inputs::ptr;
use crate::gpu::device::watchdog::{watch, StopFlag};
use crate::error::Error;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};
use std::time::{Duration, Instant};

/// How a kernel is launched.
pub(crate) struct Launch<'a> {
    pub func: &'a CudaFunction,
    pub grid: u32,
    pub block: u32,
    /// Cooperative launch: every block resident at once (persistent kernels need it).
    pub cooperative: bool,
    /// The watchdog's limit, counted from `since`.
    pub limit: Duration,
    pub since: Instant,
    pub what: &'static str,
    /// The program, as a watchdog error names it.
    pub program: &'static str,
}

/// Launches with a device copy of `record` and waits. Returns the kernel time from events.
/// A watchdog error with `stopped: false` means the kernel still runs: the record is leaked
/// here, and the caller must leak every buffer the record points to.
///
/// # Safety
/// `record` must describe device memory that outlives the kernel, and `launch.func` must take
/// one pointer to a record of this layout.
pub(crate) unsafe fn launch_with_record(
    dev: &GpuDevice,
    launch: &Launch<'_>,
    record: &[u8],
    stop: &StopFlag,
) -> Result<Duration, Error> {
    let stream = &dev.stream;
    let record_dev = stream.clone_htod(record).map_err(Error::driver("copying the launch record"))?;
    let record_ptr = ptr(&record_dev, stream);
    let start = dev.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(Error::driver("creating events"))?;
    let end = dev.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(Error::driver("creating events"))?;
    start.record(stream).map_err(Error::driver("recording an event"))?;
    let cfg = LaunchConfig { grid_dim: (launch.grid, 1, 1), block_dim: (launch.block, 1, 1), shared_mem_bytes: 0 };
    let mut builder = stream.launch_builder(launch.func);
    builder.arg(&record_ptr);
    // SAFETY: the caller guarantees the record's memory outlives the kernel, which is waited
    // for below; a cooperative grid is within the occupancy limit (checked by the caller).
    let launched = unsafe {
        if launch.cooperative { builder.launch_cooperative(cfg) } else { builder.launch(cfg) }
    };
    launched.map_err(Error::driver(launch.what))?;
    end.record(stream).map_err(Error::driver("recording an event"))?;
    if let Err(e) = watch(&end, launch.since, launch.limit, stop, launch.program) {
        if let Error::Watchdog { stopped: false, .. } = e {
            // The kernel ignores the stop request: freeing its memory would block forever.
            std::mem::forget((record_dev, start, end));
        }
        return Err(e);
    }
    let ms = start.elapsed_ms(&end).map_err(Error::driver("timing the run"))?;
    Ok(Duration::from_secs_f64(ms as f64 / 1e3))
}
