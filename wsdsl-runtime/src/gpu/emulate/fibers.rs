//! Launching a host kernel: the emulated grid's blocks dealt to OS threads, each GPU thread a
//! fiber (`cuda/host/emulation.h`), under the watchdog.

use super::library::{Gate, HostKernel};
use crate::error::{Error, RanOn};
use crate::gpu::run::status::STATUS_WORDS;
use std::sync::{mpsc, Arc, Barrier};
use std::time::Duration;

/// The guard below each fiber's stack (`WS_EMU_GUARD_BYTES`, `cuda/host/emulation.h`).
const GUARD_BYTES: u64 = 64 << 10;

/// The shape of an emulated launch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Grid {
    pub blocks: u32,
    pub block_threads: u32,
    /// OS threads the blocks are dealt to.
    pub os_threads: u32,
}

/// How long a launch may take: `left` of the run's `limit` (a run of generations shares one).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Watchdog {
    pub limit: Duration,
    pub left: Duration,
    pub stop_wait: Duration,
}

/// The kernel's OS threads wait here (`ws_emu_gate`) until every thread of the gate's
/// launches is ready.
unsafe extern "C" fn wait_at_gate(gate: *mut std::ffi::c_void) {
    // SAFETY: `launch` passes a live `Barrier` that its thread keeps until the kernel returns.
    unsafe { (*(gate as *const Barrier)).wait() };
}

/// Clears the status record, runs the kernel on `grid` with the victim policy and steal
/// amount `policy` on its own thread, its OS threads waiting at `gate` first if given, and
/// applies the watchdog. `stop_flag` is the address of the record's stop flag, which the
/// watchdog raises.
pub(crate) fn launch(
    kernel: &HostKernel,
    record: *const u8,
    stop_flag: u64,
    grid: Grid,
    policy: (u32, u32),
    gate: Option<Arc<Barrier>>,
    watchdog: Watchdog,
) -> Result<(), Error> {
    let limit = watchdog.limit;
    // SAFETY: the status record is STATUS_WORDS u64 in the loaded library; no kernel is running.
    unsafe { std::ptr::write_bytes((kernel.status)(), 0, STATUS_WORDS) };
    let (done_tx, done_rx) = mpsc::channel();
    let (launch_fn, record_addr, stack_bytes) = (kernel.launch, record as usize, kernel.stack_bytes);
    let handle = std::thread::spawn(move || {
        // SAFETY: the record and everything it points to outlive this call: the caller waits
        // for the thread below (or leaks the memory if the kernel never returns).
        let (wait, gate_arg) = match &gate {
            Some(g) => (Some(wait_at_gate as Gate), Arc::as_ptr(g) as *mut std::ffi::c_void),
            None => (None, std::ptr::null_mut()),
        };
        let mapped = unsafe { launch_fn(record_addr as *const u8, grid.blocks, grid.block_threads, grid.os_threads, policy.0, policy.1, stack_bytes as u64, wait, gate_arg) } == 0;
        let _ = done_tx.send(mapped);
    });
    if let Ok(mapped) = done_rx.recv_timeout(watchdog.left) {
        let _ = handle.join();
        if !mapped {
            let threads = grid.blocks as u64 * grid.block_threads as u64;
            return Err(Error::InvalidConfig(format!(
                "the stacks of the {threads} emulated GPU threads of `{}` ({} KiB each, {:.1} GiB in all, address space of which only \
                 the pages used become memory) could not be mapped: lower #[megakernel(recursion_limit = N)], or emulate fewer threads \
                 (Emulation::grid, block_threads)",
                kernel.program,
                stack_bytes >> 10,
                threads.saturating_mul(stack_bytes as u64 + GUARD_BYTES) as f64 / (1u64 << 30) as f64,
            )));
        }
        return Ok(());
    }
    // SAFETY: the flag is a live, 8-byte aligned u32 that the kernel reads atomically.
    unsafe { (*(stop_flag as *const std::sync::atomic::AtomicU32)).store(1, std::sync::atomic::Ordering::SeqCst) };
    if done_rx.recv_timeout(watchdog.stop_wait).is_ok() {
        let _ = handle.join();
        return Err(Error::Watchdog { program: kernel.program, on: RanOn::EmulatedGpu, limit, stopped: true });
    }
    // The emulated kernel ignores the stop request; the caller leaks its memory.
    std::mem::forget(handle);
    Err(Error::Watchdog { program: kernel.program, on: RanOn::EmulatedGpu, limit, stopped: false })
}

pub(crate) fn status(kernel: &HostKernel) -> Vec<u64> {
    // SAFETY: STATUS_WORDS u64 in the loaded library, written by the kernel that has returned.
    unsafe { std::slice::from_raw_parts((kernel.status)(), STATUS_WORDS).to_vec() }
}
