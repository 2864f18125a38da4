//! The wsdsl host runtime: runs a program that `#[megakernel]` generated, as one persistent
//! work-stealing GPU kernel (compiled with NVRTC and cached), on the CPU work-stealing backend,
//! or as the GPU's code compiled for the host, and returns its counters, its roots' values and
//! the scheduler's statistics. Users reach all of it through the `wsdsl` crate, which
//! re-exports this one.
//!
//! # The pipeline, by module
//!
//! - [`contract`]: what `#[megakernel]` generates for a program and every backend reads: the
//!   [`Program`] trait with its counters, buffers, device images, task values, data-parallel
//!   jobs, spawn list and scheduler choice ([`Schedule`]). It imports no backend.
//! - [`runtime`]: the entry point. A [`Runtime`] holds the settings, checks them, picks the
//!   backend for each run ([`Backend`]) and returns an [`Output`] or an [`Error`].
//! - [`cpu`]: the CPU backend, the handlers run natively on a work-stealing thread pool.
//! - [`gpu`]: the GPU backend, by stage: [`gpu::build`] assembles the megakernel from the
//!   template library and the program's CUDA fragments ([`gpu::kernel_source`]), compiles it
//!   ([`gpu::compile`]) into the disk cache and loads it; `gpu/run/` is the one set-up path of
//!   every run (inputs, roots, join frames, launch, read back) and `gpu/schedulers/` what each
//!   [`Scheduler`] brings to it; a kernel runs on a real GPU ([`gpu::device`]) or on the host
//!   ([`gpu::emulate`], [`Backend::Emulate`]); several GPUs and hosts are [`gpu::multi`], over
//!   [`gpu::nvshmem`].
//! - [`stats`]: what every run reports besides the counters ([`Stats`] in [`Output::stats`]);
//!   [`chart`] draws its load balance.
//! - [`progress`]: a progress line and callback while a run is in progress.
//! - [`error`]: every way a run can fail, each with what to do about it.
//! - [`graph`]: graph files read into compressed sparse rows, generated graphs, and writers,
//!   for programs that take graphs as [`ReadOnly`] arrays.
#![warn(missing_docs)]

mod cache;
pub mod chart;
pub mod contract;
pub mod cpu;
pub mod error;
pub mod gpu;
pub mod graph;
pub mod progress;
pub mod runtime;
mod settings;
pub mod stats;

pub use contract::buffer::{Buffer, ReadOnly};
pub use contract::schedule::{KernelConfig, Order, Schedule, Scheduler, Steal, Victim, Worker};
pub use contract::{Max, Min, Program, Sum};
pub use contract::{JoinLayout, TaskValue};
pub use error::{Error, RanOn};
pub use progress::Progress;
pub use runtime::{Backend, Output, Runtime, DEFAULT_SPREAD};
pub use stats::{BackendKind, BandStats, Phases, Profile, SpreadStats, Stats, Transfers};
