//! The GPU backend, by stage: `build/` (assemble the megakernel from the template library
//! and the program's fragments, NVRTC into the disk cache, load it), `run/` (one set-up path
//! for every run: inputs, roots, join pool, launch, read back), `schedulers/` (what each
//! scheduler brings to a run, and the one place that picks among them), and the two targets a
//! kernel runs on: `device/` (a real GPU) and `emulate/` (the same templates compiled for the
//! host, each GPU thread a fiber). Several GPUs and hosts are `multi/`, over `nvshmem/`.

pub mod build;
pub mod device;
pub mod emulate;
pub mod multi;
pub mod nvshmem;
pub(crate) mod run;
pub(crate) mod schedulers;

pub use build::assemble::{kernel_source, pe_kernel_source, pe_kernel_source_across_hosts};
pub use emulate::source::{host_kernel_source, host_pe_kernel_source};
pub use build::{compile, elf, libs};
pub use crate::contract::schedule::{KernelConfig, Order, Schedule, Scheduler, Steal, Victim, Worker};
pub use device::GpuDevice;
pub use schedulers::broker::broker_kernel_source;
pub use schedulers::slots::{slots_for as broker_slots_for, STAGING_PER_THREAD as BROKER_STAGING_PER_THREAD};

use std::time::Duration;

/// Knobs of a GPU run.
#[derive(Debug, Clone)]
pub(crate) struct GpuOptions {
    pub kernel: KernelConfig,
    /// Slots per worker deque (static scheduler: per task array); `None` picks a default
    /// from free device memory.
    pub capacity: Option<u32>,
    /// Stop the run (and report an error) after this long.
    pub watchdog: Duration,
    /// Cap on blocks per SM (default: as many as fit).
    pub blocks_per_sm: Option<u32>,
    /// Join frames in the pool (programs with complete handlers); `None` picks a default
    /// from free device memory.
    pub frames: Option<u32>,
    /// Who watches the run's progress (`progress.rs`).
    pub progress: crate::progress::ProgressOptions,
}

/// Runs `roots` on `dev` with the scheduler `opts` selects.
pub(crate) fn run<P: Program>(
    dev: &GpuDevice,
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &run::spread::Roots<'_, P>,
    opts: &GpuOptions,
) -> Result<crate::contract::RunResult<P>, Error> {
    run_raw::<P>(dev, params, buffers, roots, opts).map(run::runner::decoded::<P>)
}

/// `run`, the counters left as the device's slots.
pub(crate) fn run_raw<P: Program>(
    dev: &GpuDevice,
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &run::spread::Roots<'_, P>,
    opts: &GpuOptions,
) -> Result<run::runner::RawResult<P>, Error> {
    // A capacity set on the runtime sizes whichever queues the scheduler has.
    let sizes = Sizes { deque: opts.capacity, task_array: opts.capacity, broker_queue: opts.capacity, frames: opts.frames };
    run::runner::run_scheduled::<P, _>(&mut OnGpu::new(dev, opts), &opts.kernel, &sizes, params, buffers, roots)
}

use crate::error::Error;
use crate::contract::Program;
use device::target::OnGpu;
use run::target::Sizes;

/// The number of GPUs the driver sees.
pub fn device_count() -> Result<u32, Error> {
    // Without the driver library cudarc would panic: say what is missing instead.
    libs::ensure_driver()?;
    cudarc::driver::result::init().map_err(Error::driver("initialising the driver"))?;
    cudarc::driver::result::device::get_count().map(|n| n as u32).map_err(Error::driver("counting GPUs"))
}

/// Compiles `P`'s megakernel for `arch` (e.g. `"sm_90"`) with NVRTC, without a GPU and
/// without the cache. Returns the CUBIN size. Used by tests and tools to check that a
/// program's generated CUDA compiles.
pub fn compile_check<P: Program>(arch: &str) -> Result<usize, Error> {
    // The program's own attribute's configuration (the band queues of an ordered program,
    // `scheduler = bq`, ...): the kernel its runs build unless a runtime overrides it.
    compile_check_with::<P>(arch, &P::SCHEDULE.resolve())
}

/// [`compile_check`] for a given scheduler configuration.
pub fn compile_check_with<P: Program>(arch: &str, config: &KernelConfig) -> Result<usize, Error> {
    config.validate_for::<P>().map_err(Error::InvalidConfig)?;
    let source = kernel_source::<P>(&config.with_order_of::<P>());
    compile::compile_uncached(P::NAME, &source, arch).map(|cubin| cubin.len())
}

/// [`compile_check_with`]'s first step alone: NVRTC's C++ front end on `P`'s megakernel
/// under `config` ([`compile::front_end_uncached`]), for checks of many programs and
/// configurations, where the CUBIN of each would take seconds.
pub fn front_end_check_with<P: Program>(arch: &str, config: &KernelConfig) -> Result<(), Error> {
    config.validate_for::<P>().map_err(Error::InvalidConfig)?;
    let source = kernel_source::<P>(&config.with_order_of::<P>());
    compile::front_end_uncached(P::NAME, &source, arch)
}

/// Every scheduler configuration for a block size: each worker granularity with each victim
/// policy and steal amount for the deque scheduler, then the static baseline. The broker
/// schedulers are listed apart ([`broker_kernel_configs`]).
pub fn all_kernel_configs(block_threads: u32) -> Vec<KernelConfig> {
    let mut all = Vec::new();
    for worker in [Worker::Thread, Worker::Warp, Worker::Block] {
        for victim in [Victim::Random, Victim::RoundRobin, Victim::Pws, Victim::Hws, Victim::SmallWorld] {
            for steal in [Steal::One, Steal::Half] {
                all.push(KernelConfig { scheduler: Scheduler::Deque, block_threads, worker, victim, steal, ..KernelConfig::default() });
            }
        }
    }
    all.push(KernelConfig { scheduler: Scheduler::Static, ..KernelConfig::default() });
    all
}

/// Every broker scheduler configuration for a block size: BQ, BWD and BSQ with each worker
/// granularity (victim and steal do not apply to them).
pub fn broker_kernel_configs(block_threads: u32) -> Vec<KernelConfig> {
    let mut all = Vec::new();
    for scheduler in [Scheduler::Bq, Scheduler::Bwd, Scheduler::Bsq] {
        for worker in [Worker::Thread, Worker::Warp, Worker::Block] {
            all.push(KernelConfig { scheduler, block_threads, worker, ..KernelConfig::default() });
        }
    }
    all
}

/// Every configuration that runs ordered programs (`order = priority`): the band queues as
/// BQ and as BWD, with thread and warp workers (block workers are refused for now:
/// `KernelConfig::validate`).
pub fn ordered_kernel_configs(block_threads: u32) -> Vec<KernelConfig> {
    let mut all = Vec::new();
    for scheduler in [Scheduler::Bq, Scheduler::Bwd] {
        for worker in [Worker::Thread, Worker::Warp] {
            all.push(KernelConfig { scheduler, block_threads, worker, order: Order::Priority, ..KernelConfig::default() });
        }
    }
    all
}
