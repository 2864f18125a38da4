//! `Buffer<T>`, the arrays handlers read and write: its storage (atomics, uninitialised while
//! their tile is owed), its constructors, and the accessors handlers call. The module notes
//! named below are `buffer/mod.rs`'s.

use super::device::CHUNK;
use super::elem::BufferElem;
use super::tiles::{word_of, OWED, UNKNOWN};
use rayon::prelude::*;
use std::cell::UnsafeCell;
use std::fmt;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, AtomicUsize};

/// A buffer's element in memory: uninitialised while its tile is owed (module notes), then an
/// atomic that threads share. The `UnsafeCell` lets the one thread that writes an owed tile
/// initialise it through a shared borrow (`Buffer::write_tile`).
type Slot<A> = UnsafeCell<MaybeUninit<A>>;

/// `len` slots of memory from the allocator, not written (a large block may be fresh pages,
/// which stay untouched, or a block freed before, which is not cleared).
fn uninit_slots<A>(len: usize) -> Box<[MaybeUninit<A>]> {
    let slots = Box::<[A]>::new_uninit_slice(len);
    crate::contract::buffer::pages::advise_huge_pages(slots.as_ptr() as *const u8, std::mem::size_of_val(&*slots));
    slots
}

/// Slots whose values are initialised, or not, as cells of a buffer.
fn into_cells<A>(slots: Box<[MaybeUninit<A>]>) -> Box<[Slot<A>]> {
    // SAFETY: `UnsafeCell<X>` has the layout of `X` (`repr(transparent)`); nothing is read.
    unsafe { Box::from_raw(Box::into_raw(slots) as *mut [Slot<A>]) }
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
/// [`filled`](Buffer::filled), [`from_fn`](Buffer::from_fn) or [`scratch`](Buffer::scratch),
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
    fn from(values: Vec<T>) -> Self {
        Buffer::from_vec(values)
    }
}


impl<T: BufferElem> Buffer<T> {
    /// A buffer of initialised `cells` whose contents the map does not know.
    fn with_cells(cells: Box<[Slot<T::Atom>]>) -> Self {
        let known = (0..cells.len().div_ceil(Self::TILE)).map(|_| AtomicU64::new(UNKNOWN)).collect();
        Buffer { cells, known, owed: AtomicUsize::new(0), scratch: false }
    }

    /// A buffer of `len` elements whose every tile is owed `word`'s repetition (module notes).
    fn owed(len: usize, word: u32, scratch: bool) -> Self {
        let cells = into_cells(uninit_slots::<T::Atom>(len));
        let known: Box<[AtomicU64]> = (0..len.div_ceil(Self::TILE)).map(|_| AtomicU64::new(OWED | u64::from(word))).collect();
        let owed = AtomicUsize::new(known.len());
        Buffer { cells, known, owed, scratch }
    }

    /// A buffer holding `values` (its contents unknown to the map: not scanned).
    pub fn from_vec(values: Vec<T>) -> Self {
        // Pages of the vector that nothing wrote yet (`vec![0; n]`) are faulted in by the
        // conversion below, which reuses the vector's memory: as huge pages where granted.
        crate::contract::buffer::pages::advise_huge_pages(values.as_ptr() as *const u8, std::mem::size_of_val(&*values));
        Self::with_cells(values.into_iter().map(|v| UnsafeCell::new(MaybeUninit::new(T::new_atom(v)))).collect())
    }

    /// A buffer of `len` elements, all `T::default()` (zero). Known to be zero without a byte
    /// of it written: owed (module notes), so the upload sets it on the device, and the host
    /// writes each tile on first access, or under a GPU run's kernel.
    pub fn zeroed(len: usize) -> Self {
        Self::owed(len, 0, false)
    }

    /// Working memory of a run: `len` elements, zero. On the GPU (and the emulated GPUs) it
    /// lives on the device only: cleared there at each launch instead of uploaded, and not
    /// copied back, so the host's copy does not see what the run wrote; on the CPU backend
    /// it is the buffer itself. For arrays a program uses only during the run (partial
    /// sums, the next iteration's values): on the GPU they cost no transfer and no host
    /// memory the program touches.
    pub fn scratch(len: usize) -> Self {
        Self::owed(len, 0, true)
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
    /// runs. Otherwise written now on every core.
    pub fn filled(len: usize, value: T) -> Self {
        match word_of(value) {
            Some(word) => Self::owed(len, word, false),
            None => Self::from_fn(len, |_| value),
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
    /// the pages of [`Buffer::zeroed`] (its contents unknown to the map).
    pub fn from_fn(len: usize, f: impl Fn(usize) -> T + Sync) -> Self {
        let mut slots = uninit_slots::<T::Atom>(len);
        slots.par_chunks_mut(CHUNK).enumerate().for_each(|(k, chunk)| {
            for (i, slot) in chunk.iter_mut().enumerate() {
                slot.write(T::new_atom(f(k * CHUNK + i)));
            }
        });
        Self::with_cells(into_cells(slots))
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
        let big = Buffer::from_fn(300_000, |i| i as u32 * 3);
        big.atomic_add(7, 1);
        let v = big.into_vec();
        assert!(v.len() == 300_000 && v[7] == 22 && v[299_999] == 899_997);
    }
}
