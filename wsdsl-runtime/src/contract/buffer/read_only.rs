//! `ReadOnly<T>`, the arrays handlers only read: shared by their clones, and named by an id
//! so that the GPU backend can keep their device copies between runs. The module notes named
//! below are `buffer/mod.rs`'s.

use super::elem::BufferElem;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// An array handlers only read: a field of a program's `#[buffers]` struct, of `u32`, `i32`,
/// `u64`, `i64`, `f32` or `f64`. Handlers call [`len`](ReadOnly::len) and
/// [`get`](ReadOnly::get) (an index past the end panics on the CPU and is an
/// [`Error::DeviceFault`](crate::Error::DeviceFault) on the GPU, naming the handler's line).
///
/// Cloning shares the elements. The GPU backend copies the array to each device once and
/// keeps that copy for every later run handed the array or a clone of it, until the last
/// clone is dropped; it is never copied back, and handlers read it through the read-only data
/// cache. A graph, an instance or a lookup table is uploaded once for many runs.
///
/// # Example
///
/// Weights read by one task each, on the CPU backend:
///
/// ```
/// use wsdsl::prelude::*;
///
/// #[megakernel]
/// pub mod weigh {
///     use wsdsl::prelude::*;
///
///     #[buffers]
///     pub struct Buffers { pub weights: ReadOnly<u32> }
///
///     #[counters]
///     pub struct Counters { pub heaviest: Max<u32>, pub total: Sum<u64> }
///
///     #[task]
///     pub struct Item { pub i: u32 }
///
///     #[spawn]
///     fn add_up(t: &Item, ctx: &mut Ctx) {
///         let w = ctx.buffers.weights.get(t.i as usize);
///         ctx.counters.heaviest.max(w);
///         ctx.counters.total.add(w as u64);
///     }
/// }
///
/// fn main() -> Result<(), wsdsl::Error> {
///     let weights = ReadOnly::from_vec(vec![3, 1, 4, 1, 5, 9, 2, 6]);
///     let rt = Runtime::new(Backend::Cpu);
///     // A clone shares the elements: on a GPU both runs read the same device copy.
///     let buffers = weigh::Buffers { weights: weights.clone() };
///     for _ in 0..2 {
///         let items = (0..weights.len() as u32).map(|i| weigh::Item { i });
///         let out = rt.run_with::<weigh::Kernel>((), &buffers, items)?;
///         assert_eq!((out.counters.heaviest.get(), out.counters.total.get()), (9, 31));
///     }
///     assert_eq!(weights.as_slice(), [3, 1, 4, 1, 5, 9, 2, 6]);
///     Ok(())
/// }
/// ```
pub struct ReadOnly<T: BufferElem> {
    pub(super) values: Arc<[T]>,
    /// Names the device copies; a fresh one per array built, shared by its clones.
    pub(super) id: u64,
    /// Dies with the last clone, telling the runtime that the device copies can go.
    pub(super) alive: Arc<()>,
}

impl<T: BufferElem> ReadOnly<T> {
    /// An array holding `values`.
    pub fn from_vec(values: Vec<T>) -> Self {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        ReadOnly { values: values.into(), id: NEXT_ID.fetch_add(1, Relaxed), alive: Arc::new(()) }
    }

    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether it has no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Element `i`. An index past the end panics (in a handler on the GPU: a device fault),
    /// naming the caller's line.
    #[inline]
    #[track_caller]
    pub fn get(&self, i: usize) -> T {
        self.values[i]
    }

    /// The elements, for the host.
    pub fn as_slice(&self) -> &[T] {
        &self.values
    }
}

impl<T: BufferElem> Clone for ReadOnly<T> {
    fn clone(&self) -> Self {
        ReadOnly { values: self.values.clone(), id: self.id, alive: self.alive.clone() }
    }
}

impl<T: BufferElem> fmt::Debug for ReadOnly<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ReadOnly<{}>[{}]", T::CUDA, self.len())
    }
}
