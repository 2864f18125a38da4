//! wsdsl host runtime: assemble the megakernel, compile it with NVRTC (cached), launch it,
//! detect termination, and return results and statistics; or run the same program on the
//! CPU work-stealing backend.
//!
//! Pipeline, by module: [`program`] (what `#[megakernel]` generates; with [`schedule`] and
//! [`spawned`], the contract, which imports neither backend) -> [`gpu::assemble`]
//! -> [`gpu::compile`] -> [`gpu::launch`] (or [`cpu`]) -> [`Output`].

pub mod buffer;
mod cache;
mod host_memory;
pub mod chart;
pub mod cpu;
pub mod error;
pub mod gpu;
pub mod graph;
pub mod parallel;
pub mod program;
pub mod progress;
pub mod recursion;
pub mod runtime;
pub mod schedule;
mod settings;
pub mod spawned;
pub mod stats;
pub mod value;

pub use buffer::{Buffer, ReadOnly};
pub use error::{Error, RanOn};
pub use schedule::{KernelConfig, Order, Schedule, Scheduler, Steal, Victim, Worker};
pub use program::{Max, Min, Program, Sum};
pub use progress::Progress;
pub use runtime::{Backend, Output, Runtime, DEFAULT_SPREAD};
pub use stats::{BackendKind, BandStats, Phases, Profile, SpreadStats, Stats, Transfers};
pub use value::{JoinLayout, TaskValue};
