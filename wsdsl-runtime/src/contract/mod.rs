//! The contract between `#[megakernel]` (crate `wsdsl-macros`) and the runtime: what the macro
//! generates for a program ([`Program`], its counters, device images, task values, the
//! buffers it declares, the jobs its handlers record, the lists they spawn into, its scheduler
//! choice and its recursion bound), and what every backend reads from it. The backends
//! (`cpu/`, `gpu/`) import this module; it imports none of them, so a program's meaning is
//! stated once, apart from how any backend runs it. The numbers it shares with the CUDA
//! template library come from `wsdsl-abi`.

pub mod buffer;
pub mod counters;
pub mod device_bytes;
pub mod jobs;
pub mod program;
pub mod recursion;
pub mod schedule;
pub mod spawned;
pub mod value;

pub use buffer::{Buffer, BufferElem, BufferSet, DeviceBuffer, ReadOnly};
pub use counters::{CounterCell, CounterInt, CounterSet, CounterSlot, Max, Min, Reduce, Sum};
pub use device_bytes::{align_up, DeviceBytes};
pub use program::{Program, RunResult};
pub use schedule::{KernelConfig, Order, Schedule, Scheduler, Steal, Victim, Worker};
pub use spawned::Spawned;
pub use value::{JoinLayout, TaskValue};
