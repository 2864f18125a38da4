//! `Buffer<T>`, the arrays handlers read and write: its storage (atomics, uninitialised while
//! their tile is owed), its constructors, and the accessors handlers call. The module notes
//! named below are `buffer/mod.rs`'s.

use super::built::BuildTime;
use super::elem::BufferElem;
use super::fresh::{converted_on_every_core, from_fn_on_every_core, try_uninit_slots, uninit_slots};
use crate::error::Error;
use super::tiles::{word_of, OWED, UNKNOWN};
use std::cell::UnsafeCell;
use std::fmt;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::time::{Duration, Instant};

/// A buffer's element in memory: uninitialised while its tile is owed (module notes), then an
/// atomic that threads share. The `UnsafeCell` lets the one thread that writes an owed tile
/// initialise it through a shared borrow (`Buffer::write_tile`).
type Slot<A> = UnsafeCell<MaybeUninit<A>>;

/// Slots whose values are initialised, or not, as cells of a buffer.
fn into_cells<A>(slots: Box<[MaybeUninit<A>]>) -> Box<[Slot<A>]> {
    // SAFETY: `UnsafeCell<X>` has the layout of `X` (`repr(transparent)`); nothing is read.
    unsafe { Box::from_raw(Box::into_raw(slots) as *mut [Slot<A>]) }
}

/// Initialised atomics as cells of a buffer, in the same memory.
fn atoms_into_cells<A>(atoms: Box<[A]>) -> Box<[Slot<A>]> {
    const { assert!(std::mem::size_of::<Slot<A>>() == std::mem::size_of::<A>() && std::mem::align_of::<Slot<A>>() == std::mem::align_of::<A>()) };
    // SAFETY: `MaybeUninit<A>` has the size, alignment and ABI of `A` (and holds any `A`), and
    // `UnsafeCell<X>` has the layout of `X` (`repr(transparent)`): the allocation's layout is
    // unchanged, so the box frees it as it was allocated.
    unsafe { Box::from_raw(Box::into_raw(atoms) as *mut [Slot<A>]) }
}

/// An array shared by all tasks of a run: a field of a program's `#[buffers]` struct, filled
/// by the host before the run, read, written and updated atomically by the handlers, and
/// read back by the host after it.
///
/// `T` is one of `u32`, `i32`, `u64`, `i64`, `f32` and `f64`. Handlers call
/// [`len`](Buffer::len), [`get`](Buffer::get), [`set`](Buffer::set), the atomic updates
/// [`atomic_add`](Buffer::atomic_add), [`atomic_min`](Buffer::atomic_min) and
/// [`atomic_max`](Buffer::atomic_max) (each returns the previous value) and
/// [`atomic_cas`](Buffer::atomic_cas); an index past the end panics on the CPU and is an
/// [`Error::DeviceFault`](crate::Error::DeviceFault) on the GPU, either naming the handler's
/// line. Every access takes `&self`: elements are shared by all tasks, and their loads and
/// stores are relaxed, like plain device memory accesses (a handler orders its writes before
/// a signal with `ctx.fence()`). On the GPU the runtime copies the buffer to device memory
/// before the run and back after it; a [`scratch`](Buffer::scratch) buffer stays on the
/// device.
///
/// The host makes one with [`from_vec`](Buffer::from_vec), [`zeroed`](Buffer::zeroed),
/// [`filled`](Buffer::filled), [`from_fn`](Buffer::from_fn), [`from_slice`](Buffer::from_slice)
/// or [`scratch`](Buffer::scratch) (the guide's buffers chapter compares what each costs),
/// hands the program's buffers to [`Runtime::run_with`](crate::Runtime::run_with), and reads
/// the results with [`to_vec`](Buffer::to_vec), [`get`](Buffer::get) or
/// [`into_vec`](Buffer::into_vec). After a run that returned an error the contents are
/// unspecified. Arrays the handlers only read are [`ReadOnly`](crate::ReadOnly).
///
/// # Example
///
/// Squares written to one buffer and summed into another, on the CPU backend:
///
/// ```
/// use wsdsl::prelude::*;
///
/// #[megakernel]
/// pub mod squares {
///     use wsdsl::prelude::*;
///
///     #[buffers]
///     pub struct Buffers {
///         /// Element `i` becomes `i * i`.
///         pub squares: Buffer<u64>,
///         /// Element 0 becomes their sum.
///         pub total: Buffer<u64>,
///     }
///
///     #[task]
///     pub struct Square { pub i: u32 }
///
///     #[spawn]
///     fn square(t: &Square, ctx: &mut Ctx) {
///         let s = t.i as u64 * t.i as u64;
///         ctx.buffers.squares.set(t.i as usize, s);
///         ctx.buffers.total.atomic_add(0, s);
///     }
/// }
///
/// fn main() -> Result<(), wsdsl::Error> {
///     let buffers = squares::Buffers { squares: Buffer::zeroed(10), total: Buffer::zeroed(1) };
///     let rt = Runtime::new(Backend::Cpu);
///     rt.run_with::<squares::Kernel>((), &buffers, (0..10).map(|i| squares::Square { i }))?;
///     assert_eq!(buffers.squares.to_vec(), [0, 1, 4, 9, 16, 25, 36, 49, 64, 81]);
///     assert_eq!(buffers.total.get(0), 285);
///     Ok(())
/// }
/// ```
pub struct Buffer<T: BufferElem> {
    /// The elements: a slot is initialised once its tile is not owed (`known`).
    pub(super) cells: Box<[Slot<T::Atom>]>,
    /// Per tile of `Self::TILE` elements (the last one maybe short): the 32-bit word its image
    /// is known to repeat, or `UNKNOWN` (see the module notes). Atomics, as the cells are:
    /// threads that write the buffer forget tiles through `&self`.
    pub(super) known: Box<[AtomicU64]>,
    /// Tiles owed (`OWED`): while it is not zero, every access first makes sure its tile is
    /// written. Counted down with release stores, so a thread that reads zero sees every cell.
    pub(super) owed: AtomicUsize,
    /// Working memory of the run only (`Buffer::scratch`).
    pub(super) scratch: bool,
    /// The constructor's time, for the first run's statistics (`built.rs`).
    pub(super) built: BuildTime,
}

// SAFETY: a slot is written other than atomically only while it is uninitialised, by the one
// thread that claimed its owed tile (`write_tile`: `OWED` to `WRITING` by compare-and-swap);
// no reference to it exists before the claim ends (accessors wait for the tile with an
// acquire load that the writer's release store answers). From then on every access is an
// atomic operation.
unsafe impl<T: BufferElem> Sync for Buffer<T> {}

// As an array of atomics is: every access is atomic, and writing an owed tile runs no code
// that can panic, so no tile is ever left half written.
impl<T: BufferElem> std::panic::RefUnwindSafe for Buffer<T> {}

impl<T: BufferElem> From<Vec<T>> for Buffer<T> {
    /// [`Buffer::from_vec`]: the vector's memory, no copy.
    fn from(values: Vec<T>) -> Self {
        Buffer::from_vec(values)
    }
}

impl<T: BufferElem> Buffer<T> {
    /// A buffer of initialised `cells` whose contents the map does not know, made by a
    /// constructor that began at `started`.
    fn with_cells(cells: Box<[Slot<T::Atom>]>, started: Instant) -> Self {
        let known = (0..cells.len().div_ceil(Self::TILE)).map(|_| AtomicU64::new(UNKNOWN)).collect();
        Buffer { cells, known, owed: AtomicUsize::new(0), scratch: false, built: BuildTime::since(started) }
    }

    /// A buffer of `len` elements whose every tile is owed `word`'s repetition (module notes),
    /// made by a constructor that began at `started`.
    fn owed(len: usize, word: u32, scratch: bool, started: Instant) -> Self {
        let cells = into_cells(uninit_slots::<T::Atom>(len));
        let known: Box<[AtomicU64]> = (0..len.div_ceil(Self::TILE)).map(|_| AtomicU64::new(OWED | u64::from(word))).collect();
        let owed = AtomicUsize::new(known.len());
        Buffer { cells, known, owed, scratch, built: BuildTime::since(started) }
    }

    /// The constructor's time the first time a run asks (`Phases::inputs_built`), zero after.
    pub(super) fn count_build_time(&self) -> Duration {
        self.built.count()
    }

    /// A buffer holding `values`, in the vector's own memory: its elements become the
    /// buffer's atomics where they are, with no copy and no pass over them (an atomic has the
    /// size, alignment and bits of its value on every target the GPU backend supports; where
    /// the alignment differs, as for 64-bit atomics on some 32-bit targets, they are converted
    /// on every core into new memory). A vector with spare capacity gives it back first
    /// (`Vec::into_boxed_slice`: the allocator shrinks the block, in place for the system
    /// allocator's large blocks); one of exactly its length, as `collect` and `vec![v; n]`
    /// make, costs nothing: 0.02 ms for 1 GiB of `u32` on a 2-core Xeon, where a pass over it
    /// on one thread into atomics takes 178 ms (BENCHMARKS.md, "Building inputs"). Its
    /// contents are unknown to the map of tiles (not scanned), so the GPU upload copies them;
    /// pages of the vector nothing wrote yet (`vec![0; n]`) are faulted in as huge pages where
    /// granted, on first access.
    ///
    /// ```
    /// use wsdsl::prelude::*;
    ///
    /// let depths = vec![0u32, 7, 9];
    /// let start = depths.as_ptr();
    /// let buffer = Buffer::from_vec(depths);
    /// buffer.set(1, 3);
    /// let back = buffer.into_vec();
    /// assert_eq!(back, [0, 3, 9]);
    /// assert_eq!(back.as_ptr(), start, "the same memory all the way");
    /// ```
    pub fn from_vec(values: Vec<T>) -> Self {
        let started = Instant::now();
        crate::contract::buffer::pages::advise_huge_pages(values.as_ptr() as *const u8, std::mem::size_of_val(&*values));
        Self::with_cells(atoms_into_cells(T::values_into_atoms(values)), started)
    }

    /// A buffer holding a copy of `values`, copied on every core into fresh memory (huge pages
    /// where granted), for elements the program keeps using itself, which then take their
    /// memory twice: 353 ms for 1 GiB of `u32` on a 2-core Xeon (BENCHMARKS.md, "Building
    /// inputs"). A buffer built from a vector the program no longer needs is
    /// [`from_vec`](Buffer::from_vec), which copies nothing. Its contents are unknown to the
    /// map of tiles (not scanned).
    ///
    /// ```
    /// use wsdsl::prelude::*;
    ///
    /// let start = [4i64, -1, 8];
    /// let buffer = Buffer::from_slice(&start);
    /// buffer.atomic_add(1, 2);
    /// assert_eq!(buffer.to_vec(), [4, 1, 8]);
    /// assert_eq!(start, [4, -1, 8], "the slice is left as it was");
    /// ```
    pub fn from_slice(values: &[T]) -> Self {
        let started = Instant::now();
        Self::with_cells(atoms_into_cells(converted_on_every_core(values, T::new_atom)), started)
    }

    /// A buffer of `len` elements, all `T::default()` (zero). Known to be zero without a byte
    /// of it written: owed (module notes), so the upload sets it on the device, and the host
    /// writes each tile on first access, or under a GPU run's kernel. It costs an allocation
    /// and a map of 8 bytes per MB of elements, whatever the length; the writing comes later,
    /// on every core where a GPU run or `into_vec` does it, tile by tile where the host's
    /// accesses do.
    ///
    /// ```
    /// use wsdsl::prelude::*;
    ///
    /// let counts = Buffer::<u64>::zeroed(4);
    /// counts.atomic_add(2, 5);
    /// assert_eq!(counts.to_vec(), [0, 0, 5, 0]);
    /// ```
    pub fn zeroed(len: usize) -> Self {
        Self::owed(len, 0, false, Instant::now())
    }

    /// Working memory of a run: `len` elements, zero. On the GPU (and the emulated GPUs) it
    /// lives on the device only: cleared there at each launch instead of uploaded, and not
    /// copied back, so the host's copy does not see what the run wrote; on the CPU backend
    /// it is the buffer itself. For arrays a program uses only during the run (partial
    /// sums, the next iteration's values): on the GPU they cost no transfer and no host
    /// memory the program touches. Made as [`zeroed`](Buffer::zeroed) is: nothing written.
    ///
    /// ```
    /// use wsdsl::prelude::*;
    ///
    /// let partial = Buffer::<f64>::scratch(3);
    /// assert_eq!(partial.to_vec(), [0.0; 3]);
    /// ```
    pub fn scratch(len: usize) -> Self {
        Self::owed(len, 0, true, Instant::now())
    }

    /// The contents, taking the buffer: its memory becomes the vector's (no copy into new
    /// memory, as `to_vec` makes).
    pub fn into_vec(self) -> Vec<T> {
        self.write_owed();
        // SAFETY: every tile is written, so every slot holds an initialised atomic, and a
        // slot has the layout of its atomic (`UnsafeCell` and `MaybeUninit` are transparent).
        let atoms = unsafe { Box::from_raw(Box::into_raw(self.cells) as *mut [T::Atom]) };
        T::atoms_into_values(atoms)
    }

    /// A buffer of `len` copies of `value`. Where `value`'s image repeats one 32-bit word
    /// (every 4-byte value; zero, `u64::MAX` and the like), no element is written here: the
    /// tiles are owed (module notes), written on first access or while a GPU run's kernel
    /// runs: made as [`zeroed`](Buffer::zeroed) is. Otherwise written now on every core, as
    /// [`from_fn`](Buffer::from_fn) writes.
    ///
    /// ```
    /// use wsdsl::prelude::*;
    ///
    /// let depth = Buffer::filled(3, u32::MAX); // nothing written yet
    /// depth.set(0, 0);
    /// assert_eq!(depth.to_vec(), [0, u32::MAX, u32::MAX]);
    /// assert_eq!(Buffer::filled(2, 0.5f64).to_vec(), [0.5, 0.5]); // written now
    /// ```
    pub fn filled(len: usize, value: T) -> Self {
        let started = Instant::now();
        match word_of(value) {
            Some(word) => Self::owed(len, word, false, started),
            None => Self::with_cells(atoms_into_cells(from_fn_on_every_core(uninit_slots(len), |_| T::new_atom(value))), started),
        }
    }

    /// Element `i`, its tile written first; an index past the end panics here, naming the
    /// caller's line.
    #[inline]
    #[track_caller]
    fn cell(&self, i: usize) -> &T::Atom {
        let slot = &self.cells[i];
        self.written(i);
        // SAFETY: the slot's tile is written (`written` returned), so it holds an initialised
        // atomic, and from now on it is only accessed as one.
        unsafe { (*slot.get()).assume_init_ref() }
    }

    /// Elements `first..first + count` (in bounds) as atomics, their owed tiles written first.
    pub(super) fn cells_in(&self, first: usize, count: usize) -> &[T::Atom] {
        let slots = &self.cells[first..first + count];
        self.write_owed_in(first, count);
        // SAFETY: every tile the range overlaps is written, so every slot in it holds an
        // initialised atomic; a slot has the layout of its atomic.
        unsafe { &*(slots as *const [Slot<T::Atom>] as *const [T::Atom]) }
    }

    /// A buffer whose element `i` is `f(i)` (labels `0..n`, say), written on every core into
    /// fresh memory, as [`zeroed`](Buffer::zeroed) allocates it (its contents unknown to the
    /// map): the one allocation the buffer keeps, with no vector built first. Its cost is one
    /// write of the memory, shared by the cores, and the system's faulting in of its pages:
    /// 331 ms for 1 GiB of `u32` on a 2-core Xeon (BENCHMARKS.md, "Building inputs"). `f` is
    /// called once per element, from several threads, in no particular order.
    ///
    /// A length whose bytes no allocation can hold, or that the allocator refuses, is
    /// [`Error::BufferTooLarge`], before `f` is called.
    ///
    /// ```
    /// use wsdsl::prelude::*;
    ///
    /// let labels = Buffer::from_fn(4, |i| i as u32)?;
    /// assert_eq!(labels.to_vec(), [0, 1, 2, 3]);
    /// assert!(Buffer::from_fn(usize::MAX / 4, |i| i as f64).is_err(), "more than the address space");
    /// # Ok::<(), wsdsl::Error>(())
    /// ```
    pub fn from_fn(len: usize, f: impl Fn(usize) -> T + Sync) -> Result<Self, Error> {
        let started = Instant::now();
        let slots = try_uninit_slots(len, "Buffer::from_fn", std::any::type_name::<T>())?;
        Ok(Self::with_cells(atoms_into_cells(from_fn_on_every_core(slots, |i| T::new_atom(f(i)))), started))
    }

    /// The current contents.
    pub fn to_vec(&self) -> Vec<T> {
        self.cells_in(0, self.len()).iter().map(T::load).collect()
    }

    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether it has no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Element `i`. An index past the end panics (in a handler on the GPU: a device fault),
    /// naming the caller's line.
    #[inline]
    #[track_caller]
    pub fn get(&self, i: usize) -> T {
        T::load(self.cell(i))
    }

    /// Stores `v` as element `i`. An index past the end panics (in a handler on the GPU: a
    /// device fault), naming the caller's line.
    #[inline]
    #[track_caller]
    pub fn set(&self, i: usize, v: T) {
        let c = self.cell(i);
        T::store(c, v);
        self.forget(i);
    }

    /// Adds `v` (wrapping for integers); returns the previous value.
    #[inline]
    #[track_caller]
    pub fn atomic_add(&self, i: usize, v: T) -> T {
        let c = self.cell(i);
        let old = T::update(c, |old| old.add(v));
        self.forget(i);
        old
    }

    /// Stores the smaller of the element and `v`; returns the previous value.
    #[inline]
    #[track_caller]
    pub fn atomic_min(&self, i: usize, v: T) -> T {
        let c = self.cell(i);
        let old = T::update(c, |old| if v < old { v } else { old });
        self.forget(i);
        old
    }

    /// Stores the larger of the element and `v`; returns the previous value.
    #[inline]
    #[track_caller]
    pub fn atomic_max(&self, i: usize, v: T) -> T {
        let c = self.cell(i);
        let old = T::update(c, |old| if v > old { v } else { old });
        self.forget(i);
        old
    }

    /// Stores `new` if the element equals `current` (bitwise); returns the value found.
    #[inline]
    #[track_caller]
    pub fn atomic_cas(&self, i: usize, current: T, new: T) -> T {
        let c = self.cell(i);
        let found = T::cas(c, current, new);
        // Forgotten whether or not it stored (one relaxed load once the tile is unknown).
        self.forget(i);
        found
    }
}

impl<T: BufferElem> fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Buffer<{}>[{}]", T::CUDA, self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_updates_return_the_previous_value() {
        let b = Buffer::from_vec(vec![5u32, 7]);
        assert_eq!(b.atomic_add(0, 3), 5);
        assert_eq!(b.atomic_min(1, 2), 7);
        assert_eq!(b.atomic_max(1, 9), 2);
        assert_eq!(b.atomic_cas(0, 8, 1), 8);
        assert_eq!(b.atomic_cas(0, 8, 2), 1, "no store when the current value differs");
        assert_eq!(b.to_vec(), vec![1, 9]);
        let f = Buffer::from_vec(vec![1.5f64]);
        assert_eq!(f.atomic_add(0, 2.0), 1.5);
        assert_eq!(f.get(0), 3.5);
        assert_eq!(Buffer::from_vec(vec![-3i32]).atomic_max(0, -5), -3);
    }

    #[test]
    fn into_vec_hands_over_the_contents_and_zeroed_buffers_read_zero() {
        let b = Buffer::from_vec(vec![1.5f64, -0.0, 7.0]);
        b.set(2, 8.0);
        let v = b.into_vec();
        assert_eq!(v, vec![1.5, -0.0, 8.0]);
        assert!(v[1].is_sign_negative(), "the bits themselves come back");
        assert_eq!(Buffer::<i64>::zeroed(4).into_vec(), vec![0; 4]);
        assert_eq!(Buffer::<f32>::zeroed(3).to_vec(), vec![0.0; 3]);
        assert!(Buffer::<u32>::zeroed(0).into_vec().is_empty());
        // Every element type, negative values and all bits, handed over in place.
        assert_eq!(Buffer::from_vec(vec![-3i32, i32::MIN, 5]).into_vec(), vec![-3, i32::MIN, 5]);
        assert_eq!(Buffer::from_vec(vec![-3i64, i64::MIN, 5]).into_vec(), vec![-3, i64::MIN, 5]);
        assert_eq!(Buffer::from_vec(vec![u32::MAX, 0, 9]).into_vec(), vec![u32::MAX, 0, 9]);
        assert_eq!(Buffer::from_vec(vec![u64::MAX, 0, 9]).into_vec(), vec![u64::MAX, 0, 9]);
        assert_eq!(Buffer::from_vec(vec![-1.25f32, f32::INFINITY]).into_vec(), vec![-1.25, f32::INFINITY]);
        let big = Buffer::from_fn(300_000, |i| i as u32 * 3).unwrap();
        big.atomic_add(7, 1);
        let v = big.into_vec();
        assert!(v.len() == 300_000 && v[7] == 22 && v[299_999] == 899_997);
    }

    #[test]
    fn from_vec_turns_the_vectors_memory_into_the_cells() {
        let values: Vec<u64> = (0..1000).collect();
        let start = values.as_ptr();
        let b = Buffer::from_vec(values);
        assert_eq!(b.cells.as_ptr() as *const u64, start, "no copy");
        b.atomic_add(999, 1);
        let back = b.into_vec();
        assert!(back.as_ptr() == start && back[999] == 1000 && back[0] == 0, "and back, still no copy");
        // Spare capacity is given back; the values stay.
        let mut spare = Vec::with_capacity(100);
        spare.extend([-1.5f32, -0.0, f32::NAN]);
        let b = Buffer::from(spare);
        assert!(b.len() == 3 && b.get(0) == -1.5 && b.get(1).to_bits() == 0x8000_0000 && b.get(2).is_nan());
        assert!(Buffer::<i32>::from_vec(Vec::new()).is_empty());
    }

    #[test]
    fn every_constructor_holds_the_same_elements() {
        fn alike<T: BufferElem + PartialEq>(n: usize, f: impl Fn(usize) -> T + Sync) {
            let values: Vec<T> = (0..n).map(&f).collect();
            let made = [Buffer::from_vec(values.clone()), Buffer::from_fn(n, &f).unwrap(), Buffer::from_slice(&values)];
            for (how, b) in ["from_vec", "from_fn", "from_slice"].iter().zip(made) {
                assert_eq!(b.to_vec(), values, "{how}, {n} {}", T::CUDA);
                assert_eq!(b.known_word(0, n), None, "{how}: not scanned");
                assert_eq!(b.into_vec(), values, "{how}");
            }
        }
        for n in [0, 1, 5, (1 << 16) * 3 + 7] {
            alike(n, |i| (i as u32).wrapping_mul(2_654_435_761));
            alike(n, |i| -(i as i32));
            alike(n, |i| (i as u64) << 33 | 5);
            alike(n, |i| i as i64 - 7);
            alike(n, |i| i as f32 * -0.5);
            alike(n, |i| if i % 2 == 0 { -0.0 } else { i as f64 / 3.0 });
        }
        // `filled` with a value whose image repeats no word: every element written at once.
        assert_eq!(Buffer::filled((1 << 16) + 1, 0.25f64).into_vec(), vec![0.25; (1 << 16) + 1]);
    }

    #[test]
    fn a_build_time_is_counted_once() {
        use crate::contract::buffer::DeviceBuffer;
        let b = Buffer::from_fn(1 << 18, |i| i as u32).unwrap();
        assert!(b.take_build_time() > Duration::ZERO);
        assert_eq!(b.take_build_time(), Duration::ZERO, "counted already");
        // Every constructor keeps a record, counted once.
        let z = Buffer::<u64>::zeroed(1 << 20);
        z.take_build_time();
        assert_eq!(z.take_build_time(), Duration::ZERO, "zeroed: counted already");
        let v = Buffer::from_vec(vec![1u32; 10]);
        v.take_build_time();
        assert_eq!(v.take_build_time(), Duration::ZERO, "from_vec: counted already");
    }

    #[test]
    fn a_length_no_allocation_can_hold_is_an_error_before_any_element() {
        let err = Buffer::<i32>::from_fn(usize::MAX / 2, |_| unreachable!("no element is made")).unwrap_err();
        assert!(matches!(err, Error::BufferTooLarge { constructor: "Buffer::from_fn", elem: "i32", elem_bytes: 4, refused: false, .. }), "{err:?}");
        assert!(err.to_string().contains("more than one allocation can hold"), "{err}");
        let err = Buffer::<u64>::from_fn(1 << 59, |_| unreachable!("no element is made")).unwrap_err();
        assert!(matches!(err, Error::BufferTooLarge { refused: true, .. }), "{err:?}");
    }
}
