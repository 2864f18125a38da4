//! wsdsl host runtime: assemble the megakernel, compile it with NVRTC (cached), launch it,
//! detect termination, and return results and statistics; or run the same program on the
//! CPU work-stealing backend.
//!
//! Pipeline, by module: [`program`] (what `#[megakernel]` generates; with [`schedule`] and
//! [`spawned`], the contract, which imports neither backend) -> [`gpu::assemble`]
//! -> [`gpu::compile`] -> [`gpu::launch`] (or [`cpu`]) -> [`Output`].

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
