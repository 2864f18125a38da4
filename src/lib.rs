//! wsdsl: irregular GPU algorithms written as plain Rust tasks.
//!
//! Write task structs and their handlers inside a `#[megakernel] mod`; the macro type-checks
//! them and lowers them to CUDA C, and [`Runtime::run`] executes the program either as one
//! persistent work-stealing GPU kernel or on the CPU work-stealing backend.
//! See the README (below) for a walk-through and `examples/` for complete programs.
#![doc = include_str!("../README.md")]

#![warn(missing_docs)]

// The code `#[megakernel]` generates names this crate `::wsdsl`, as it is named where users
// write programs: so the example program below compiles here too.
extern crate self as wsdsl;

pub use wsdsl_macros::megakernel;
pub use wsdsl_runtime::*;

/// The user's guide (`docs/guide/`), one module per chapter; its programs run as doc tests.
pub mod guide {
    #[doc = include_str!("../docs/guide/1-tasks-and-counters.md")]
    pub mod tasks_and_counters {}
    #[doc = include_str!("../docs/guide/2-buffers.md")]
    pub mod buffers {}
    #[doc = include_str!("../docs/guide/3-values-and-complete-handlers.md")]
    pub mod values_and_complete_handlers {}
    #[doc = include_str!("../docs/guide/4-jobs.md")]
    pub mod jobs {}
    #[doc = include_str!("../docs/guide/5-priority-order.md")]
    pub mod priority_order {}
    #[doc = include_str!("../docs/guide/6-several-gpus-and-hosts.md")]
    pub mod several_gpus_and_hosts {}
    #[doc = include_str!("../docs/guide/7-settings.md")]
    pub mod settings {}
    #[doc = include_str!("../docs/guide/8-limits-and-failures.md")]
    pub mod limits_and_failures {}
    #[doc = include_str!("../docs/guide/9-graph-algorithms.md")]
    pub mod graph_algorithms {}
}

/// Everything a program usually needs: `use wsdsl::prelude::*;`.
pub mod prelude {
    pub use wsdsl_macros::megakernel;
    pub use wsdsl_runtime::{Backend, Buffer, Max, Min, Output, ReadOnly, Runtime, Stats, Sum};
}

pub mod example;

/// Paths used by code that `#[megakernel]` generates; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use wsdsl_runtime::contract::buffer::{Buffer, BufferElem, BufferSet, DeviceBuffer};
    pub use wsdsl_runtime::contract::jobs as parallel;
    pub use wsdsl_runtime::contract::recursion::{enter as enter_recursion, RecursiveFn, Recursion};
    pub use wsdsl_runtime::contract::schedule::{Order, Schedule, Scheduler, Steal, Victim, Worker};
    pub use wsdsl_runtime::contract::value::{JoinLayout, TaskValue};
    pub use wsdsl_runtime::contract::{CounterCell, CounterSet, CounterSlot, DeviceBytes, Program, Reduce, Spawned};
}
