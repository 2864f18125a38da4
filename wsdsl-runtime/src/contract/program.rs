//! The contract between `#[megakernel]` (crate `wsdsl-macros`) and the runtime.
//!
//! The macro turns a user's module into one type implementing [`Program`]: the Rust side
//! (native task execution for the CPU backend, byte encoding of tasks and parameters for the
//! GPU) and the CUDA side (two source fragments). The runtime never looks at user code
//! otherwise, so everything a backend needs about a program is here.
//!
//! # The CUDA fragments
//!
//! The runtime assembles one translation unit in this order:
//!
//! 1. `cuda/core/rust_semantics.cuh` — scalar typedefs `ws_u8 .. ws_u64`, `ws_i8 .. ws_i64`,
//!    `ws_f32`, `ws_f64`, `ws_usize`, `ws_isize` and the helpers that give C Rust's integer and
//!    float semantics. It declares `void wsdsl_fault(ws_u32 site, ws_u64 a0 = 0, .., a3 = 0)`,
//!    which records a panic (index out of bounds, division by zero, `panic!`, `assert!`, ...)
//!    numbered by [`Program::FAULT_SITES`], with up to four values its message shows.
//! 2. [`Program::CUDA_TYPES`] — the user's structs (prefixed `u_`), then
//!    `typedef ... wsdsl_params;`, the tagged task record `struct wsdsl_task { ws_u32 tag;
//!    union { ... } u; }` (tag = index of the task type in declaration order), and
//!    `struct wsdsl_counters` with `wsdsl_counters_init(wsdsl_counters*)` and
//!    `wsdsl_counters_flush(const wsdsl_counters*, unsigned long long* slots)`.
//!    It also defines `struct wsdsl_buffers`: for each `#[buffers]` field in order, the element
//!    pointer `u_<name>` and the length `n_<name>` (`ws_u64`); a dummy field if there are none.
//! 3. `cuda/core/context.cuh` (the runtime) — `struct wsdsl_ctx` and the calls handlers use:
//!    `wsdsl_ctx_params(ctx)`, `wsdsl_ctx_buffers(ctx)`, `wsdsl_ctx_counters(ctx)`,
//!    `wsdsl_ctx_spawn(ctx, const wsdsl_task*)`.
//! 4. [`Program::CUDA_HANDLERS`] — helper functions, one device function per handler, and
//!    `__device__ void wsdsl_execute(const wsdsl_task* task, wsdsl_ctx* ctx)`. Programs with
//!    complete handlers or values ([`Program::JOIN`]) also define `WSDSL_JOIN`, `wsdsl_value`
//!    and `struct ws_frame` in part 2, call `ws_join_begin`/`ws_join_end` around the spawn
//!    handler in `wsdsl_execute`, and define `wsdsl_value wsdsl_complete(const wsdsl_task*,
//!    const wsdsl_value* values, ws_u32 n, wsdsl_ctx*)`; `cuda/features/join.cuh` (part 3) runs them.
//! 5. The scheduler templates and the kernel entry point (the runtime).
//!
//! Every fragment is deterministic: the same program always yields byte-identical text.

use super::buffer::BufferSet;
use super::counters::CounterSet;
use super::schedule::Schedule;
use super::spawned::Spawned;
use super::value::{JoinLayout, TaskValue};
use std::fmt::Debug;

/// A megakernel program, implemented by `#[megakernel]` on a marker type `Kernel`.
pub trait Program: Sized + 'static {
    /// Module name, used in kernel cache file names and messages.
    const NAME: &'static str;
    /// CUDA C: user types, task record, counters (part 2 of the assembly order above).
    const CUDA_TYPES: &'static str;
    /// CUDA C: helpers, handlers and `wsdsl_execute` (part 4 of the assembly order above).
    const CUDA_HANDLERS: &'static str;
    /// The message of each place handler code may panic, `wsdsl_fault(i, a0, .., a3)` naming
    /// entry `i`, e.g. `"wsdsl-examples/src/uts.rs:41: index out of bounds: the len is {0:u} but
    /// the index is {1:u}"`. `{{` and `}}` are braces; `{K:kind}` shows value `aK` as Rust
    /// formats it: `u`/`i` an unsigned/signed integer, `b` a bool, `f32`/`f64` a float's
    /// bits (`f32?`/`f64?` with `{:?}`), `e:A=0,B=7` a field-less enum by variant name.
    const FAULT_SITES: &'static [&'static str];
    /// Names of the task types, indexed by tag.
    const TASK_NAMES: &'static [&'static str];
    /// Where each task type's complete handler is written (`file:line`), indexed by tag;
    /// empty for a type without one. Errors about a complete handler name it.
    const COMPLETE_SITES: &'static [&'static str] = &[];
    /// `sizeof(wsdsl_task)` on the device.
    const TASK_BYTES: usize;
    /// `sizeof(wsdsl_params)` on the device (at least 1).
    const PARAMS_BYTES: usize;
    /// The scheduler chosen by `#[megakernel(...)]` (runtime settings take precedence).
    const SCHEDULE: Schedule = Schedule::DEFAULT;

    /// Launch parameters, read by handlers through `ctx.params`.
    type Params: Copy + Send + Sync + Debug + 'static;
    /// The generated enum of all task types of this program.
    type Task: Copy + Send + Sync + Debug + 'static;
    /// The user's result counters (or `()` when the program declares none).
    type Counters: CounterSet;
    /// The user's device buffers (or `()` when the program declares none).
    type Buffers: BufferSet;
    /// What tasks hand their parents (`#[task(value = T)]`), or `()`.
    type Value: TaskValue;
    /// The device layout of join frames, for programs with complete handlers or values.
    /// Their task records carry `join_frame`/`join_slot` after the tag (`cuda/features/join.cuh`).
    const JOIN: Option<JoinLayout> = None;
    /// The program's recursive helpers, if it has any: the GPU's per-thread stack is sized
    /// for them (`gpu/device/stack.rs`).
    const RECURSION: Option<super::recursion::Recursion> = None;

    /// Writes the device image of `task` (a `wsdsl_task`: tag, then the task struct at the
    /// union's offset) into `out`, which is `TASK_BYTES` long and zeroed.
    fn encode_task(task: &Self::Task, out: &mut [u8]);
    /// Writes the device image of the parameters into `out` (`PARAMS_BYTES`, zeroed).
    fn encode_params(params: &Self::Params, out: &mut [u8]);
    /// Runs the spawn handler of `task` natively; every `ctx.spawn` pushes onto `spawn`.
    /// Returns the task's value (its parent's, if it spawned nothing and has a complete
    /// handler).
    fn execute(
        task: &Self::Task,
        params: &Self::Params,
        buffers: &Self::Buffers,
        counters: &mut Self::Counters,
        spawn: &mut Spawned<Self::Task>,
    ) -> Self::Value;

    /// For a task type with a complete handler: the most children whose values it receives
    /// (`u32::MAX` when it takes none). `None`: the task has no complete handler.
    fn complete_of(_task: &Self::Task) -> Option<u32> {
        None
    }

    /// Runs the complete handler of `task` natively for the `round`-th time (1 the first),
    /// with the values of the children it waited for in spawn order; every `ctx.spawn` pushes
    /// onto `spawn`. Returns the task's value (ignored when it spawned: the handler runs again).
    fn complete(
        _task: &Self::Task,
        _children: &[Self::Value],
        _round: u32,
        _params: &Self::Params,
        _buffers: &Self::Buffers,
        _counters: &mut Self::Counters,
        _spawn: &mut Spawned<Self::Task>,
    ) -> Self::Value {
        Self::Value::placeholder()
    }

    /// The value of root `task` from its device image (a `wsdsl_value`): a module whose tasks
    /// hand values of several types tells them apart by the task.
    fn decode_value(_task: &Self::Task, bytes: &[u8]) -> Self::Value {
        Self::Value::from_device_bytes(bytes)
    }
}

/// What a backend's run of `P` yields: the counters, the roots' values in root order
/// (`()` each for programs without values) and the statistics.
pub type RunResult<P> = (<P as Program>::Counters, Vec<<P as Program>::Value>, crate::stats::Stats);

/// `Error::TooManyChildren` for a task of tag `tag` whose complete handler allows `max`
/// children, naming the handler's type and line.
pub(crate) fn too_many_children<P: Program>(tag: usize, max: u32) -> crate::error::Error {
    crate::error::Error::TooManyChildren {
        task: P::TASK_NAMES.get(tag).copied().unwrap_or("?"),
        max_children: max,
        handler: P::COMPLETE_SITES.get(tag).copied().unwrap_or(""),
    }
}
