//! The watchdog: a run that takes too long is asked to stop, and reported.
//!
//! The stop request is a host-mapped word the device polls (one worker reads it and turns it
//! into the device's error word; `cuda/megakernel.cuh`). A kernel that does not stop within 5 s
//! of the request is stuck in a handler; the caller then abandons the context instead of
//! freeing memory under it, which would block forever.

use crate::error::Error;
use cudarc::driver::sys::{CUdeviceptr, CU_MEMHOSTALLOC_DEVICEMAP, CU_MEMHOSTALLOC_PORTABLE};
use cudarc::driver::{CudaContext, CudaEvent, PinnedHostSlice};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A host-mapped flag, zero until the watchdog fires.
pub(crate) struct StopFlag {
    _pinned: PinnedHostSlice<u32>,
    host: *mut u32,
    pub device: CUdeviceptr,
}

impl StopFlag {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Error> {
        // SAFETY: a 4-byte host-mapped allocation, initialised right below before any use.
        let mut pinned = unsafe { ctx.alloc_pinned_with_flags::<u32>(1, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE) }
            .map_err(Error::driver("allocating the watchdog flag"))?;
        let host = pinned.as_mut_ptr().map_err(Error::driver("mapping the watchdog flag"))?;
        // SAFETY: `host` points to the live pinned allocation owned by `pinned`.
        unsafe { host.write_volatile(0) };
        let mut device: CUdeviceptr = 0;
        // SAFETY: `host` was allocated with CU_MEMHOSTALLOC_DEVICEMAP.
        unsafe { cudarc::driver::sys::cuMemHostGetDevicePointer_v2(&mut device, host as *mut _, 0) }
            .result()
            .map_err(Error::driver("mapping the watchdog flag"))?;
        Ok(StopFlag { _pinned: pinned, host, device })
    }

    fn raise(&self) {
        // SAFETY: the allocation lives as long as `self`; the device reads it volatile.
        unsafe { self.host.write_volatile(1) };
    }

    /// Clears a flag kept from an earlier run (no kernel runs now).
    pub fn lower(&self) {
        // SAFETY: as in `raise`.
        unsafe { self.host.write_volatile(0) };
    }
}

/// Waits until `end` completes. Past `limit` (counted from `started`), raises the stop flag
/// and reports a watchdog error: `stopped` says whether the kernel obeyed within 5 s.
pub(crate) fn watch(end: &CudaEvent, started: Instant, limit: Duration, stop: &StopFlag) -> Result<(), Error> {
    let mut nap = Duration::from_micros(10);
    loop {
        match end.try_is_complete() {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(e) => return Err(Error::Driver { during: "running the kernel", message: e.to_string() }),
        }
        if started.elapsed() > limit {
            stop.raise();
            let asked = Instant::now();
            while asked.elapsed() < Duration::from_secs(5) {
                if end.try_is_complete().unwrap_or(false) {
                    return Err(Error::Watchdog { limit, stopped: true });
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            return Err(Error::Watchdog { limit, stopped: false });
        }
        std::thread::sleep(nap);
        // Naps grow to 100 us: the host notices the end of a run that soon, at the cost of
        // ten wake-ups per millisecond of a long run.
        nap = (nap * 2).min(Duration::from_micros(100));
    }
}
