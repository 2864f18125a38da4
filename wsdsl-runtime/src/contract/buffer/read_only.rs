//! `ReadOnly<T>`, the arrays handlers only read: shared by their clones, and named by an id
//! so that the GPU backend can keep their device copies between runs. The module notes named
//! below are `buffer/mod.rs`'s.

use super::built::BuildTime;
use super::elem::BufferElem;
use super::fresh::{converted_on_every_core, from_fn_on_every_core, try_uninit_slots};
use crate::error::Error;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
/// The host makes one with [`from_vec`](ReadOnly::from_vec) (or `From<Vec<T>>`: the vector's
/// own memory, no copy), [`from_fn`](ReadOnly::from_fn) (written on every core) or
/// [`from_slice`](ReadOnly::from_slice) (a copy, on every core); the guide's buffers chapter
/// compares what each costs.
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
    pub(super) values: Elements<T>,
    /// Names the device copies; a fresh one per array built, shared by its clones.
    pub(super) id: u64,
    /// Dies with the last clone, telling the runtime that the device copies can go.
    pub(super) alive: Arc<()>,
}

/// A read-only array's elements, shared by its clones: the vector it was made from, kept
/// whole (so that `from_vec` takes the vector's memory as it is, spare capacity and all, where
/// an `Arc<[T]>` would copy it behind its counts), and where its memory is, kept beside it so
/// that `get` reads an element with one load, as through a slice.
pub(super) struct Elements<T> {
    start: *const T,
    len: usize,
    owner: Arc<Owner<T>>,
}

/// What the clones of a read-only array share.
struct Owner<T> {
    /// Never changed nor moved once here: `Elements::start` points into it, and its elements
    /// are read through that (this field keeps and frees their memory).
    #[allow(dead_code)]
    values: Vec<T>,
    /// The constructor's time, for the first run's statistics (`built.rs`).
    built: BuildTime,
}

// SAFETY: `Elements` is a shared borrow of `owner.values`, which it keeps alive and which
// nothing changes: sending or sharing it is sending or sharing `&[T]`.
unsafe impl<T: Sync> Send for Elements<T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Sync> Sync for Elements<T> {}

impl<T> std::ops::Deref for Elements<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: `start` and `len` are `owner.values`' pointer and length, taken when it was
        // stored; the vector is alive while `owner` is and is never changed, so its elements
        // stay there, initialised and unwritten.
        unsafe { std::slice::from_raw_parts(self.start, self.len) }
    }
}

impl<T> Clone for Elements<T> {
    fn clone(&self) -> Self {
        Elements { start: self.start, len: self.len, owner: self.owner.clone() }
    }
}

impl<T: BufferElem> From<Vec<T>> for ReadOnly<T> {
    /// [`ReadOnly::from_vec`]: the vector's memory, no copy.
    ///
    /// ```
    /// use wsdsl::prelude::*;
    ///
    /// let targets: ReadOnly<u32> = vec![1, 2, 0].into();
    /// assert_eq!(targets.as_slice(), [1, 2, 0]);
    /// ```
    fn from(values: Vec<T>) -> Self {
        ReadOnly::from_vec(values)
    }
}

impl<T: BufferElem> ReadOnly<T> {
    /// An array holding `values`, in the vector's own memory: no copy and no pass over it
    /// (the vector is kept as it is, spare capacity included), so it costs the same for 1 GiB
    /// as for a few elements, and no memory beyond the vector's: 0.003 ms for 1 GiB of `u32`
    /// on a 2-core Xeon, where a copy into an `Arc<[T]>` takes 665 ms and twice the vector's
    /// memory at its peak (BENCHMARKS.md, "Building inputs"). The cheapest way to make a large
    /// array from a vector the program has; [`from_fn`](ReadOnly::from_fn) saves building
    /// the vector.
    ///
    /// ```
    /// use wsdsl::prelude::*;
    ///
    /// let offsets = vec![0u32, 2, 3, 3];
    /// let start = offsets.as_ptr();
    /// let array = ReadOnly::from_vec(offsets);
    /// assert_eq!(array.as_slice(), [0, 2, 3, 3]);
    /// assert_eq!(array.as_slice().as_ptr(), start, "the vector's memory, not a copy");
    /// ```
    pub fn from_vec(values: Vec<T>) -> Self {
        Self::holding(values, Instant::now())
    }

    /// An array whose element `i` is `f(i)`, written on every core into fresh memory (huge
    /// pages where the system grants them): the one allocation the array keeps, with no vector
    /// built first. Its cost is one write of the memory, shared by the cores, and the system's
    /// faulting in of its pages: 285 ms for 1 GiB of `u32` on a 2-core Xeon with the array
    /// the only memory at its peak, where building the vector for
    /// [`from_vec`](ReadOnly::from_vec) on one thread took 459 ms (BENCHMARKS.md, "Building
    /// inputs"). `f` is called once per element, from several threads, in no particular
    /// order.
    ///
    /// A length whose bytes no allocation can hold, or that the allocator refuses, is
    /// [`Error::BufferTooLarge`], before `f` is called.
    ///
    /// ```
    /// use wsdsl::prelude::*;
    ///
    /// let squares = ReadOnly::from_fn(5, |i| (i * i) as u64)?;
    /// assert_eq!(squares.as_slice(), [0, 1, 4, 9, 16]);
    /// assert!(ReadOnly::from_fn(usize::MAX, |i| i as u32).is_err(), "16 EiB");
    /// # Ok::<(), wsdsl::Error>(())
    /// ```
    pub fn from_fn(len: usize, f: impl Fn(usize) -> T + Sync) -> Result<Self, Error> {
        let started = Instant::now();
        let slots = try_uninit_slots(len, "ReadOnly::from_fn", std::any::type_name::<T>())?;
        Ok(Self::holding(from_fn_on_every_core(slots, f).into_vec(), started))
    }

    /// An array holding a copy of `values`, copied on every core into fresh memory (huge pages
    /// where granted): for elements the program keeps using itself, which then take their
    /// memory twice. 280 ms for 1 GiB of `u32` on a 2-core Xeon (BENCHMARKS.md, "Building
    /// inputs"). An array built from a vector the program no longer needs is
    /// [`from_vec`](ReadOnly::from_vec), which copies nothing.
    ///
    /// ```
    /// use wsdsl::prelude::*;
    ///
    /// let weights = [2.5f32, 1.0, 4.0];
    /// let array = ReadOnly::from_slice(&weights);
    /// assert_eq!(array.as_slice(), weights);
    /// ```
    pub fn from_slice(values: &[T]) -> Self {
        let started = Instant::now();
        Self::holding(converted_on_every_core(values, |v| v).into_vec(), started)
    }

    /// An array holding `values`, whose constructor began at `started`.
    fn holding(values: Vec<T>, started: Instant) -> Self {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let (start, len) = (values.as_ptr(), values.len());
        let owner = Arc::new(Owner { values, built: BuildTime::since(started) });
        ReadOnly { values: Elements { start, len, owner }, id: NEXT_ID.fetch_add(1, Relaxed), alive: Arc::new(()) }
    }

    /// The constructor's time the first time a run asks (`Phases::inputs_built`), zero after,
    /// for this array and all its clones.
    pub(super) fn count_build_time(&self) -> Duration {
        self.values.owner.built.count()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::buffer::DeviceBuffer;

    #[test]
    fn from_vec_keeps_the_vectors_memory() {
        let values: Vec<u32> = (0..1000).collect();
        let start = values.as_ptr();
        let array = ReadOnly::from_vec(values);
        assert_eq!(array.as_slice().as_ptr(), start, "no copy");
        let clone = array.clone();
        assert_eq!(clone.as_slice().as_ptr(), start, "clones share it");
        drop(array);
        assert!(clone.len() == 1000 && clone.get(999) == 999, "the last clone keeps it");
        // Spare capacity is kept, not shrunk into a new block.
        let mut spare = Vec::with_capacity(64);
        spare.extend([1.5f64, -0.0]);
        let start = spare.as_ptr();
        let array = ReadOnly::from(spare);
        assert!(array.as_slice().as_ptr() == start && array.len() == 2 && array.get(1).is_sign_negative());
        assert!(ReadOnly::<i64>::from_vec(Vec::new()).is_empty());
    }

    #[test]
    fn every_constructor_holds_the_same_elements() {
        fn alike<T: BufferElem + PartialEq>(n: usize, f: impl Fn(usize) -> T + Sync) {
            let values: Vec<T> = (0..n).map(&f).collect();
            let made = [ReadOnly::from_vec(values.clone()), ReadOnly::from_fn(n, &f).unwrap(), ReadOnly::from_slice(&values)];
            for (how, array) in ["from_vec", "from_fn", "from_slice"].iter().zip(&made) {
                assert_eq!(array.as_slice(), &values[..], "{how}, {n} {}", T::CUDA);
                assert_eq!(&*array.to_bytes(), &*made[0].to_bytes(), "{how}: the device image");
            }
            let ids: std::collections::HashSet<u64> = made.iter().map(|a| a.id).collect();
            assert_eq!(ids.len(), 3, "each array its own device copy");
        }
        // Across the pieces of the parallel fill, the last one short, and none at all.
        for n in [0, 1, 5, (1 << 16) * 3 + 7] {
            alike(n, |i| (i as u32).wrapping_mul(2_654_435_761));
            alike(n, |i| -(i as i32));
            alike(n, |i| (i as u64) << 33 | 5);
            alike(n, |i| i as i64 - 7);
            alike(n, |i| i as f32 * -0.5);
            alike(n, |i| if i % 2 == 0 { -0.0 } else { i as f64 / 3.0 });
        }
    }

    #[test]
    fn a_build_time_is_counted_once_for_all_clones() {
        let array = ReadOnly::from_fn(1 << 18, |i| i as u32).unwrap();
        let clone = array.clone();
        let took = clone.take_build_time();
        assert!(took > Duration::ZERO, "a constructor that wrote 1 MB took some time");
        assert_eq!(array.take_build_time(), Duration::ZERO, "counted already, through the clone");
        assert_eq!(clone.take_build_time(), Duration::ZERO);
        let copy = ReadOnly::from_slice(array.as_slice());
        assert!(copy.take_build_time() > Duration::ZERO, "a new array has its own record");
    }

    #[test]
    fn a_length_no_allocation_can_hold_is_an_error_before_any_element() {
        for len in [usize::MAX, usize::MAX / 8 + 1] {
            let err = ReadOnly::<u64>::from_fn(len, |_| unreachable!("no element is made")).unwrap_err();
            assert!(matches!(err, Error::BufferTooLarge { constructor: "ReadOnly::from_fn", elem: "u64", elem_bytes: 8, refused: false, .. }), "{err:?}");
        }
        let err = ReadOnly::<f32>::from_fn(1 << 60, |_| unreachable!("no element is made")).unwrap_err();
        assert!(matches!(err, Error::BufferTooLarge { elem: "f32", refused: true, .. }), "{err:?}");
        assert!(err.to_string().starts_with("ReadOnly::from_fn could not allocate 1152921504606846976 elements of f32"), "{err}");
    }
}
