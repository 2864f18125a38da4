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
//! 1. `cuda/rust_semantics.cuh` — scalar typedefs `ws_u8 .. ws_u64`, `ws_i8 .. ws_i64`,
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
//! 3. `cuda/context.cuh` (the runtime) — `struct wsdsl_ctx` and the calls handlers use:
//!    `wsdsl_ctx_params(ctx)`, `wsdsl_ctx_buffers(ctx)`, `wsdsl_ctx_counters(ctx)`,
//!    `wsdsl_ctx_spawn(ctx, const wsdsl_task*)`.
//! 4. [`Program::CUDA_HANDLERS`] — helper functions, one device function per handler, and
//!    `__device__ void wsdsl_execute(const wsdsl_task* task, wsdsl_ctx* ctx)`. Programs with
//!    complete handlers or values ([`Program::JOIN`]) also define `WSDSL_JOIN`, `wsdsl_value`
//!    and `struct ws_frame` in part 2, call `ws_join_begin`/`ws_join_end` around the spawn
//!    handler in `wsdsl_execute`, and define `wsdsl_value wsdsl_complete(const wsdsl_task*,
//!    const wsdsl_value* values, ws_u32 n, wsdsl_ctx*)`; `cuda/join.cuh` (part 3) runs them.
//! 5. The scheduler templates and the kernel entry point (the runtime).
//!
//! Every fragment is deterministic: the same program always yields byte-identical text.

use crate::buffer::BufferSet;
use crate::value::{JoinLayout, TaskValue};
use std::fmt::Debug;

pub use crate::schedule::Schedule;
pub use crate::spawned::Spawned;

/// A megakernel program, implemented by `#[megakernel]` on a marker type `Kernel`.
pub trait Program: Sized + 'static {
    /// Module name, used in kernel cache file names and messages.
    const NAME: &'static str;
    /// CUDA C: user types, task record, counters (part 2 of the assembly order above).
    const CUDA_TYPES: &'static str;
    /// CUDA C: helpers, handlers and `wsdsl_execute` (part 4 of the assembly order above).
    const CUDA_HANDLERS: &'static str;
    /// The message of each place handler code may panic, `wsdsl_fault(i, a0, .., a3)` naming
    /// entry `i`, e.g. `"examples/uts/kernel.rs:41: index out of bounds: the len is {0:u} but
    /// the index is {1:u}"`. `{{` and `}}` are braces; `{K:kind}` shows value `aK` as Rust
    /// formats it: `u`/`i` an unsigned/signed integer, `b` a bool, `f32`/`f64` a float's
    /// bits (`f32?`/`f64?` with `{:?}`), `e:A=0,B=7` a field-less enum by variant name.
    const FAULT_SITES: &'static [&'static str];
    /// Names of the task types, indexed by tag.
    const TASK_NAMES: &'static [&'static str];
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
    /// Their task records carry `join_frame`/`join_slot` after the tag (`cuda/join.cuh`).
    const JOIN: Option<JoinLayout> = None;
    /// The program's recursive helpers, if it has any: the GPU's per-thread stack is sized
    /// for them (`gpu/stack.rs`).
    const RECURSION: Option<crate::recursion::Recursion> = None;

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

/// How a counter combines the values of different workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduce {
    Sum,
    Max,
    Min,
}

/// One device counter slot: a `u64` that every worker's local value is folded into with an
/// atomic at the end of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterSlot {
    pub name: &'static str,
    pub reduce: Reduce,
    /// Whether the counter's integer type is signed (selects signed atomics and sentinels).
    pub signed: bool,
}

impl CounterSlot {
    /// The value the device slot starts from: the identity of its reduction, as the
    /// device atomics see it (signed values sign-extended to 64 bits).
    pub fn initial_bits(&self) -> u64 {
        match (self.reduce, self.signed) {
            (Reduce::Sum, _) => 0,
            (Reduce::Max, false) => 0,
            (Reduce::Max, true) => i64::MIN as u64,
            (Reduce::Min, false) => u64::MAX,
            (Reduce::Min, true) => i64::MAX as u64,
        }
    }
}

/// The result counters of a program: a struct of [`Sum`], [`Max`] and [`Min`] fields.
pub trait CounterSet: Default + Clone + Send + Debug + 'static {
    /// One slot per field, in declaration order (the device slot order).
    const SLOTS: &'static [CounterSlot];
    /// Folds another worker's counters into these.
    fn merge(&mut self, other: &Self);
    /// Rebuilds the counters from the device slots after the run.
    fn from_slots(slots: &[u64]) -> Self;
}

impl CounterSet for () {
    const SLOTS: &'static [CounterSlot] = &[];
    fn merge(&mut self, _: &Self) {}
    fn from_slots(_: &[u64]) -> Self {}
}

/// Byte image of a value as the device lays it out (C layout, little-endian).
///
/// The image is written field by field at C offsets, so it never depends on how rustc lays
/// out the Rust value (tuples, `Option`s and enums with data have no fixed Rust layout).
/// Implemented here for scalars, arrays, tuples and `Option`; `#[megakernel]` implements it
/// for user structs and enums with the offsets it computed for their C declarations.
pub trait DeviceBytes {
    /// `sizeof` of the C type.
    const DEVICE_SIZE: usize;
    /// `alignof` of the C type.
    const DEVICE_ALIGN: usize;
    fn write_device_bytes(&self, out: &mut [u8]);
}

/// `x` rounded up to a multiple of `align`, for C offsets.
pub const fn align_up(x: usize, align: usize) -> usize {
    x.div_ceil(align) * align
}

macro_rules! scalar_device_bytes {
    ($($t:ty),*) => {$(
        impl DeviceBytes for $t {
            const DEVICE_SIZE: usize = core::mem::size_of::<$t>();
            const DEVICE_ALIGN: usize = core::mem::size_of::<$t>();
            #[inline]
            fn write_device_bytes(&self, out: &mut [u8]) {
                let bytes = self.to_le_bytes();
                out[..bytes.len()].copy_from_slice(&bytes);
            }
        }
    )*};
}
scalar_device_bytes!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64);

impl DeviceBytes for bool {
    const DEVICE_SIZE: usize = 1;
    const DEVICE_ALIGN: usize = 1;
    #[inline]
    fn write_device_bytes(&self, out: &mut [u8]) {
        out[0] = *self as u8;
    }
}

impl DeviceBytes for () {
    const DEVICE_SIZE: usize = 0;
    const DEVICE_ALIGN: usize = 1;
    #[inline]
    fn write_device_bytes(&self, _: &mut [u8]) {}
}

impl<T: DeviceBytes, const N: usize> DeviceBytes for [T; N] {
    const DEVICE_SIZE: usize = N * T::DEVICE_SIZE;
    const DEVICE_ALIGN: usize = T::DEVICE_ALIGN;
    #[inline]
    fn write_device_bytes(&self, out: &mut [u8]) {
        for (i, item) in self.iter().enumerate() {
            item.write_device_bytes(&mut out[i * T::DEVICE_SIZE..]);
        }
    }
}

/// `struct ws_opt_T { bool some; T v; }`; a `None` writes zeros for `v`.
impl<T: DeviceBytes> DeviceBytes for Option<T> {
    const DEVICE_SIZE: usize = align_up(align_up(1, T::DEVICE_ALIGN) + T::DEVICE_SIZE, T::DEVICE_ALIGN);
    const DEVICE_ALIGN: usize = T::DEVICE_ALIGN;
    #[inline]
    fn write_device_bytes(&self, out: &mut [u8]) {
        let at = align_up(1, T::DEVICE_ALIGN);
        out[0] = self.is_some() as u8;
        match self {
            Some(v) => v.write_device_bytes(&mut out[at..]),
            None => out[at..at + T::DEVICE_SIZE].fill(0),
        }
    }
}

/// `struct ws_tupN_.. { A f0; B f1; .. }`: the elements in order, each at its C offset.
macro_rules! tuple_device_bytes {
    ($(($($t:ident $i:tt),+))*) => {$(
        impl<$($t: DeviceBytes),+> DeviceBytes for ($($t,)+) {
            const DEVICE_SIZE: usize = {
                let mut off = 0;
                $(off = align_up(off, $t::DEVICE_ALIGN) + $t::DEVICE_SIZE;)+
                align_up(off, Self::DEVICE_ALIGN)
            };
            const DEVICE_ALIGN: usize = {
                let mut a = 1;
                $(if $t::DEVICE_ALIGN > a { a = $t::DEVICE_ALIGN; })+
                a
            };
            #[inline]
            fn write_device_bytes(&self, out: &mut [u8]) {
                let mut off = 0;
                $(
                    off = align_up(off, $t::DEVICE_ALIGN);
                    self.$i.write_device_bytes(&mut out[off..]);
                    off += $t::DEVICE_SIZE;
                )+
                let _ = off;
            }
        }
    )*};
}
/// Invokes `$m!` with the tuple arities the subset's values may have (2 to 8 elements), each
/// as its type parameters and field indices: the `DeviceBytes` impls here and the
/// `TaskValue` impls in `value.rs` cover the same tuples.
macro_rules! for_each_tuple {
    ($m:ident) => {
        $m! {
            (A 0, B 1)
            (A 0, B 1, C 2)
            (A 0, B 1, C 2, D 3)
            (A 0, B 1, C 2, D 3, E 4)
            (A 0, B 1, C 2, D 3, E 4, F 5)
            (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
            (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
        }
    };
}
pub(crate) use for_each_tuple;

for_each_tuple!(tuple_device_bytes);

/// A counter cell: what one field of a `#[counters]` struct holds.
pub trait CounterCell: Copy + Default + Debug + Send + 'static {
    /// Folds another worker's cell into this one.
    fn merge(&mut self, other: &Self);
    /// Rebuilds the cell from its device slot.
    fn from_slot(bits: u64) -> Self;
}

/// Integer types a counter may hold.
pub trait CounterInt: Copy + Default + Debug + Send + Ord + 'static {
    const MIN: Self;
    const MAX: Self;
    /// `self + other`, wrapping (sums wrap as in a release build).
    fn wrapping_add_(self, other: Self) -> Self;
    /// The value from the low bits of a slot (sums: truncation).
    fn from_bits_truncating(bits: u64) -> Self;
    /// The value of a slot that holds the type's value extended to 64 bits (min / max).
    fn from_bits_extended(bits: u64) -> Self;
}

macro_rules! counter_int {
    ($($t:ty => $wide:ty),*) => {$(
        impl CounterInt for $t {
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            #[inline]
            fn wrapping_add_(self, other: Self) -> Self { self.wrapping_add(other) }
            #[inline]
            fn from_bits_truncating(bits: u64) -> Self { bits as $t }
            #[inline]
            fn from_bits_extended(bits: u64) -> Self {
                // Sentinels (no worker touched the slot) are the wide type's extremes;
                // clamp them to this type's extremes, which are the CPU backend's defaults.
                (bits as $wide).clamp(<$t>::MIN as $wide, <$t>::MAX as $wide) as $t
            }
        }
    )*};
}
counter_int!(u8 => u64, u16 => u64, u32 => u64, u64 => u64, usize => u64,
             i8 => i64, i16 => i64, i32 => i64, i64 => i64, isize => i64);

/// A counter that sums the values added by every task (wrapping on overflow).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sum<T>(T);

/// A counter that keeps the largest value offered by any task (starts at `T::MIN`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Max<T>(T);

/// A counter that keeps the smallest value offered by any task (starts at `T::MAX`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Min<T>(T);

impl<T: CounterInt> Sum<T> {
    /// Adds `value` (handlers: `ctx.counters.name.add(v)`).
    #[inline]
    pub fn add(&mut self, value: T) {
        self.0 = self.0.wrapping_add_(value);
    }
    /// The total.
    pub fn get(&self) -> T {
        self.0
    }
}

impl<T: CounterInt> Max<T> {
    /// Offers `value` (handlers: `ctx.counters.name.max(v)`).
    #[inline]
    pub fn max(&mut self, value: T) {
        self.0 = self.0.max(value);
    }
    /// The largest value offered, or `T::MIN` if none was.
    pub fn get(&self) -> T {
        self.0
    }
}

impl<T: CounterInt> Min<T> {
    /// Offers `value` (handlers: `ctx.counters.name.min(v)`).
    #[inline]
    pub fn min(&mut self, value: T) {
        self.0 = self.0.min(value);
    }
    /// The smallest value offered, or `T::MAX` if none was.
    pub fn get(&self) -> T {
        self.0
    }
}

impl<T: CounterInt> Default for Max<T> {
    fn default() -> Self {
        Max(T::MIN)
    }
}

impl<T: CounterInt> Default for Min<T> {
    fn default() -> Self {
        Min(T::MAX)
    }
}

impl<T: CounterInt> CounterCell for Sum<T> {
    fn merge(&mut self, other: &Self) {
        self.add(other.0)
    }
    fn from_slot(bits: u64) -> Self {
        Sum(T::from_bits_truncating(bits))
    }
}

impl<T: CounterInt> CounterCell for Max<T> {
    fn merge(&mut self, other: &Self) {
        self.max(other.0)
    }
    fn from_slot(bits: u64) -> Self {
        Max(T::from_bits_extended(bits))
    }
}

impl<T: CounterInt> CounterCell for Min<T> {
    fn merge(&mut self, other: &Self) {
        self.min(other.0)
    }
    fn from_slot(bits: u64) -> Self {
        Min(T::from_bits_extended(bits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_merge_and_decode_like_the_device() {
        let mut a = Sum::<u32>::default();
        a.add(u32::MAX);
        a.add(2);
        assert_eq!(a.get(), 1, "sums wrap");
        assert_eq!(Sum::<i32>::from_slot((-5i64) as u64).get(), -5);

        let slot = CounterSlot { name: "m", reduce: Reduce::Max, signed: true };
        assert_eq!(Max::<i32>::from_slot(slot.initial_bits()).get(), i32::MIN);
        let slot = CounterSlot { name: "m", reduce: Reduce::Min, signed: false };
        assert_eq!(Min::<u16>::from_slot(slot.initial_bits()).get(), u16::MAX);
        let mut m = Max::<i64>::default();
        m.merge(&Max(-3));
        assert_eq!(m.get(), -3);
    }

    #[test]
    fn arrays_are_written_element_by_element() {
        let mut out = [0u8; 8];
        [1u16, 2, 3, 0xABCD].write_device_bytes(&mut out);
        assert_eq!(out, [1, 0, 2, 0, 3, 0, 0xCD, 0xAB]);
    }

    #[test]
    fn tuples_and_options_take_their_c_layout() {
        // struct { u8 f0; u32 f1; u16 f2; }: f1 at 4, f2 at 8, size 12.
        assert_eq!(<(u8, u32, u16)>::DEVICE_SIZE, 12);
        let mut out = [0xFFu8; 12];
        (7u8, 0x01020304u32, 9u16).write_device_bytes(&mut out);
        assert_eq!(out[0], 7);
        assert_eq!(out[4..8], [4, 3, 2, 1]);
        assert_eq!(out[8..10], [9, 0]);
        // struct { bool some; u64 v; }: v at 8, size 16; `None` zeroes v.
        assert_eq!(<Option<u64>>::DEVICE_SIZE, 16);
        let mut out = [0xFFu8; 16];
        None::<u64>.write_device_bytes(&mut out);
        assert_eq!(out[0], 0);
        assert_eq!(out[8..], [0; 8]);
        Some(5u64).write_device_bytes(&mut out);
        assert_eq!((out[0], out[8]), (1, 5));
        assert_eq!(<Option<(u8, bool)>>::DEVICE_SIZE, 3);
        assert_eq!(<[Option<u16>; 3]>::DEVICE_SIZE, 12);
    }
}
