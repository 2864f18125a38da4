//! The watchdog: a run that takes too long is asked to stop, and reported.
//!
//! The stop request is a host-mapped word the device polls (one worker reads it and turns it
//! into the device's error word; `cuda/schedulers/deque.cuh`). A kernel that does not stop within 5 s
//! of the request is stuck in a handler; the caller then abandons the context instead of
//! freeing memory under it, which would block forever.

use crate::error::{Error, RanOn};
use crate::gpu::device::mapped::HostMapped;
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, CudaEvent};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A host-mapped flag, zero until the watchdog fires.
pub(crate) struct StopFlag {
    word: HostMapped<u32>,
    pub device: CUdeviceptr,
}

impl StopFlag {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Error> {
        let word = HostMapped::new(ctx, 1, "allocating the watchdog flag")?;
        Ok(StopFlag { device: word.device, word })
    }

    fn raise(&self) {
        self.word.set(0, 1);
    }

    /// Clears a flag kept from an earlier run (no kernel runs now).
    pub fn lower(&self) {
        self.word.set(0, 0);
    }
}

/// How long after its start a run is watched without napping (one core polls the event).
const SPIN_FOR: Duration = Duration::from_millis(20);

/// Waits until `end` completes. Past `limit` (counted from `started`), raises the stop flag
/// and reports a watchdog error naming `program`: `stopped` says whether the kernel obeyed
/// within 5 s.
pub(crate) fn watch(end: &CudaEvent, started: Instant, limit: Duration, stop: &StopFlag, program: &'static str) -> Result<(), Error> {
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
                    return Err(Error::Watchdog { program, on: RanOn::Gpu, limit, stopped: true });
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            return Err(Error::Watchdog { program, on: RanOn::Gpu, limit, stopped: false });
        }
        if started.elapsed() < SPIN_FOR {
            // A short run's end is noticed within a microsecond or two: a nap of any length
            // lasts at least the system's timer slack (50 us on Linux), which a 3-ms graph
            // kernel's call would wait on average.
            std::thread::yield_now();
            continue;
        }
        std::thread::sleep(nap);
        // Naps grow to 100 us: the host notices the end of a long run that soon, at the cost
        // of ten wake-ups per millisecond.
        nap = (nap * 2).min(Duration::from_micros(100));
    }
}
