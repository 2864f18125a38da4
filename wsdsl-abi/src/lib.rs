//! The contract's numbers and names, written once.
//!
//! Three parties must agree on them: the `#[megakernel]` macro (`wsdsl-macros`), which checks
//! a program and writes its CUDA; the runtime (`wsdsl-runtime`), which runs it and reads back
//! what the device wrote; and the CUDA template library (`wsdsl-runtime/cuda/`), which holds the
//! same numbers as `#define`s and `enum`s. The two Rust parties take them from here; a test of
//! the runtime (`tests/runtime/abi.rs`) reads the headers and fails where they differ.
//!
//! - [`schedule`]: the scheduler's dimensions (queue, worker, victim, steal amount, order), the
//!   names the attribute and the settings spell them with, their device codes and which
//!   combinations can run;
//! - [`jobs`]: the data-parallel building blocks a handler calls (`ctx.merge`, ...);
//! - [`status`]: how the device reports that a run went wrong;
//! - [`stats`]: the statistics words every GPU worker writes;
//! - [`limits`]: bounds that the macro checks at compile time and the runtime at run time.
#![warn(missing_docs)]

pub mod jobs;
pub mod limits;
pub mod schedule;
pub mod stats;
pub mod status;
