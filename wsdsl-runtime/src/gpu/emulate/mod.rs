//! Runs a program's kernel on the host, so the scheduler templates are exercised without a
//! GPU: the assembled source (templates + generated handlers) is compiled by the host C++
//! compiler with `cuda/host/` shims in place of the PTX atomics, and run with every emulated
//! GPU thread a fiber (see `cuda/host/emulation.h`). This is a test instrument — it checks
//! that every scheduler configuration computes exact answers — not a fast backend.
//!
//! The host is a run's target (`target.rs`) as a GPU is: the same set-up path
//! (`gpu/run/runner.rs`) and the same scheduler code lay out "device memory" in host memory
//! exactly as the launch records describe it, and only loading, memory and launching are the
//! host's own: the host source (`source.rs`), the host compiler (`compiler.rs`, with its
//! precompiled headers, `pch.rs`), the loaded library (`library.rs`) and its launch on fibers
//! (`fibers.rs`).

mod compiler;
pub(crate) mod fibers;
pub(crate) mod library;
mod pch;
pub(crate) mod source;
pub(crate) mod stack;
pub(crate) mod target;

use crate::contract::schedule::KernelConfig;
use crate::contract::{Program, RunResult};
use crate::error::Error;
use crate::gpu::run::runner::run_scheduled;
use crate::gpu::run::spread::Roots;
use crate::gpu::run::target::Sizes;
use std::time::Duration;
use target::OnHost;

/// The emulated grid.
#[derive(Debug, Clone, Copy)]
pub struct Emulation {
    /// Blocks (two share an emulated SM).
    pub grid: u32,
    /// Threads per block (replaces the configuration's block size).
    pub block_threads: u32,
    /// OS threads the blocks are dealt to.
    pub os_threads: u32,
    /// Slots per deque (static scheduler: per task array).
    pub capacity: u32,
    /// Slots per broker queue. A FIFO queue holds a whole breadth-first level of the task
    /// tree, not a depth-first frontier as a deque does, so it needs far more.
    pub queue_capacity: u32,
    /// Longest a run may take before it is stopped and reported.
    pub watchdog: Duration,
    /// How long a run the watchdog asked to stop has to stop before it is reported as one
    /// that does not (`Error::Watchdog` with `stopped: false`); its threads then spin on until
    /// the process ends.
    pub stop_wait: Duration,
    /// Join frames in the pool (programs with complete handlers).
    pub frames: u32,
    /// Across emulated GPUs: the offer at which another GPU's thief asks to share a deque
    /// (`WS_REMOTE_ASK`, `cuda/queues/deque.cuh`; 128 on GPUs). An emulated GPU has a few workers,
    /// whose deques rarely hold 128 tasks: a quarter by default.
    pub remote_ask: u32,
}

impl Default for Emulation {
    fn default() -> Self {
        Emulation {
            grid: 4,
            block_threads: 64,
            os_threads: 2,
            capacity: 8192,
            queue_capacity: 1 << 20,
            watchdog: Duration::from_secs(120),
            stop_wait: Duration::from_secs(10),
            frames: 1 << 18,
            remote_ask: 32,
        }
    }
}

/// Bytes of each emulated GPU thread's fiber stack for code without recursion; a program with
/// recursive helpers gets more, up to [`MAX_FIBER_STACK`] (`stack.rs`).
pub(crate) const FIBER_STACK: usize = 256 * 1024;

pub use stack::MAX_FIBER_STACK;

/// The largest task the emulation runs: a fiber's stack holds several copies of the task it
/// runs (the one popped, the handler's, the children it spawns), and a task that does not
/// fit would overflow it and kill the process.
pub const MAX_TASK_BYTES: usize = FIBER_STACK / 16;

/// Refuses a program whose task record is larger than [`MAX_TASK_BYTES`].
pub(crate) fn check_task_size<P: Program>() -> Result<(), Error> {
    if P::TASK_BYTES > MAX_TASK_BYTES {
        return Err(Error::InvalidConfig(format!(
            "a task of `{}` takes {} bytes, but the host emulation runs tasks of at most {MAX_TASK_BYTES} bytes \
             (each emulated GPU thread runs on a fiber stack of {} KiB); keep large data in a #[buffers] array \
             and the index in the task",
            P::NAME,
            P::TASK_BYTES,
            FIBER_STACK >> 10
        )));
    }
    Ok(())
}

/// Runs `roots` on the host build of `P`'s kernel for `config`.
pub fn run_emulated<P: Program>(
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    config: &KernelConfig,
    emu: &Emulation,
) -> Result<RunResult<P>, Error> {
    run_emulated_raw::<P>(params, buffers, roots, config, emu).map(crate::gpu::run::runner::decoded::<P>)
}

/// `run_emulated`, the counters left as slots.
pub(crate) fn run_emulated_raw<P: Program>(
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    config: &KernelConfig,
    emu: &Emulation,
) -> Result<crate::gpu::run::runner::RawResult<P>, Error> {
    let config = KernelConfig { block_threads: emu.block_threads, ..*config };
    config.validate_for::<P>().map_err(Error::InvalidConfig)?;
    check_task_size::<P>()?;
    let sizes = Sizes {
        deque: Some(emu.capacity),
        // The static scheduler's arrays hold a whole generation: room for them all.
        task_array: Some((emu.capacity as usize * 64).max(roots.len()).min(u32::MAX as usize) as u32),
        broker_queue: Some(emu.queue_capacity),
        frames: Some(emu.frames),
    };
    run_scheduled::<P, _>(&mut OnHost::new(emu), &config, &sizes, params, buffers, &Roots::as_given(roots))
}
