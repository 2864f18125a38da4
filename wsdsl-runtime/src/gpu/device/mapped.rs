//! Host memory the device reads and writes while a kernel runs (pinned and mapped into the
//! device's address space): the watchdog's stop flag, the workers' progress words.
//!
//! Both sides access the words one at a time with volatile loads and stores (the device with
//! system-scope ones, `cuda/core/atomics.cuh`); nothing is ordered between words, and nothing
//! needs to be: a flag and counters for display.

use crate::error::Error;
use cudarc::driver::sys::{CUdeviceptr, CU_MEMHOSTALLOC_DEVICEMAP, CU_MEMHOSTALLOC_PORTABLE};
use cudarc::driver::{CudaContext, DeviceRepr, PinnedHostSlice, ValidAsZeroBits};
use std::sync::Arc;

/// `len` words of `T` in host-mapped memory, zeroed.
pub(crate) struct HostMapped<T: DeviceRepr> {
    _pinned: PinnedHostSlice<T>,
    host: *mut T,
    len: usize,
    /// The same memory as the device addresses it.
    pub device: CUdeviceptr,
}

// SAFETY: the words are reached only through volatile reads and writes of whole `Copy`
// values (`get`, `set`), never through references, so threads sharing them race only the way
// the device and host do by design (a word read is one written, whole, for aligned words).
unsafe impl<T: DeviceRepr + Copy + Send> Send for HostMapped<T> {}
unsafe impl<T: DeviceRepr + Copy + Send> Sync for HostMapped<T> {}

impl<T: DeviceRepr + ValidAsZeroBits + Copy + Default> HostMapped<T> {
    pub fn new(ctx: &Arc<CudaContext>, len: usize, what: &'static str) -> Result<Self, Error> {
        let len = len.max(1);
        // SAFETY: a host-mapped allocation, initialised right below before any use.
        let mut pinned = unsafe { ctx.alloc_pinned_with_flags::<T>(len, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE) }
            .map_err(Error::driver(what))?;
        let host = pinned.as_mut_ptr().map_err(Error::driver(what))?;
        let mut device: CUdeviceptr = 0;
        // SAFETY: `host` was allocated with CU_MEMHOSTALLOC_DEVICEMAP.
        unsafe { cudarc::driver::sys::cuMemHostGetDevicePointer_v2(&mut device, host as *mut _, 0) }
            .result()
            .map_err(Error::driver(what))?;
        let mapped = HostMapped { _pinned: pinned, host, len, device };
        mapped.fill(T::default());
        Ok(mapped)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn get(&self, i: usize) -> T {
        assert!(i < self.len, "word {i} of {}", self.len);
        // SAFETY: in bounds of the live allocation owned by `self`.
        unsafe { self.host.add(i).read_volatile() }
    }

    pub fn set(&self, i: usize, value: T) {
        assert!(i < self.len, "word {i} of {}", self.len);
        // SAFETY: as in `get`.
        unsafe { self.host.add(i).write_volatile(value) }
    }

    pub fn fill(&self, value: T) {
        for i in 0..self.len {
            self.set(i, value);
        }
    }
}

impl HostMapped<u64> {
    /// The sum of the first `n` words.
    pub fn sum(&self, n: usize) -> u64 {
        (0..n.min(self.len)).map(|i| self.get(i)).sum()
    }
}
