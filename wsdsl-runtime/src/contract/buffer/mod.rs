//! User-declared device buffers: arrays that handlers read, write and update atomically.
//!
//! A program declares them in a `#[buffers]` struct whose fields are `Buffer<T>`; the host
//! fills them before a run and reads them after. On the CPU backend every worker thread
//! works on the same storage, so elements are kept as atomics (relaxed ordering, like plain
//! device loads and stores; atomic updates are single read-modify-write operations). On the
//! GPU the runtime copies them to device memory and back.
//!
//! Handlers see (for `T` one of u32, i32, u64, i64, f32, f64):
//! `len()`, `get(i)`, `set(i, v)`, `atomic_add(i, v)`, `atomic_min(i, v)`, `atomic_max(i, v)`
//! (each returns the previous value) and `atomic_cas(i, current, new)` (returns the value
//! found; the store happened if it equals `current`). An index past the end panics on the
//! CPU and is a device fault on the GPU, as Rust would have it; either error names the
//! handler's line (the accessors are `#[track_caller]`).
//!
//! A buffer also keeps, per tile of `TILE_BYTES` (1 MB) of its image, the 32-bit word the tile is
//! known to repeat, if one is known without reading it: every tile of `zeroed` and `scratch`
//! (zero), and of `filled` with a value whose image repeats one word; every write through the
//! buffer's methods (`set`, the atomic updates, `read_le` after a GPU run) forgets its tile.
//! The GPU upload sets tiles that repeat one word on the device instead of copying them, and
//! asks `DeviceBuffer::repeated_word` per tile: answered from the map, it reads no element,
//! so a launch does not fault in (and clear) the pages of a zeroed buffer, which only the
//! copy back needs (reading PageRank's zeroed 33 MB buffer cost its launch 3.4 ms).
//!
//! The tiles of `zeroed`, `scratch` and `filled` are *owed*: known to repeat their word, their
//! memory taken from the allocator and not written yet (uninitialised: no fresh page is
//! faulted in, no reused block is cleared). The first access to an element writes its tile
//! (every accessor asks: one load, while nothing is owed); a GPU run writes what is still owed
//! on the host's cores while the kernel runs (`DeviceBuffer::before_copy_back`). So a BFS's
//! 4 M unreached depths and its scratch queue cost the call no host pass before the launch:
//! their tiles are set on the device from the map, and their memory is written under the
//! kernel. (Clearing a reused 16.8 MB block took `calloc` 0.65 ms per buffer on an H200
//! machine: `BENCHMARKS.md`, ninth session.)

use rayon::prelude::*;
use std::borrow::Cow;
use std::fmt;
use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::{Acquire, Relaxed, Release}};
use std::sync::{Arc, Weak};

pub(crate) mod pages;

/// Element types a buffer can hold, with their bit-level storage.
pub trait BufferElem: Copy + Send + Sync + PartialOrd + fmt::Debug + Default + 'static {
    /// Atomic storage of the same width.
    type Atom: Send + Sync;
    /// The CUDA scalar type name (`ws_u32`, ...), for generated code and messages.
    const CUDA: &'static str;
    fn new_atom(v: Self) -> Self::Atom;
    fn load(a: &Self::Atom) -> Self;
    fn store(a: &Self::Atom, v: Self);
    /// Atomically replaces the value by `f(old)`; returns `old`.
    fn update(a: &Self::Atom, f: impl Fn(Self) -> Self) -> Self;
    fn cas(a: &Self::Atom, current: Self, new: Self) -> Self;
    fn add(self, other: Self) -> Self;
    fn to_le(self, out: &mut [u8]);
    fn from_le(bytes: &[u8]) -> Self;
    /// The value's bits, zero-extended (so `-0.0` is not zero).
    fn bits(self) -> u64;
    /// The value an atom holds, taking it.
    fn from_atom(a: Self::Atom) -> Self;
    /// The values of `atoms`, in the same memory: no pass over it (a 16 MB buffer took 2.3 ms
    /// element by element).
    fn atoms_into_values(atoms: Box<[Self::Atom]>) -> Vec<Self>;
}

// Every method is `#[inline]`: the buffers' generic code (`read_le`, `write_le`, the
// accessors) is instantiated in the program's crate, which without it calls these one-line
// methods across the crate boundary for every element. Converting 4 M u32s from an image took
// 10.5 ms on one core that way, 1.3 ms inlined; the whole GPU call of BFS on R-MAT 22 went
// from 9.2-9.5 to 6.8-7.0 ms (BENCHMARKS.md, 2026-11-28 sixth session).
macro_rules! buffer_elem {
    ($t:ty, $atom:ty, $bits:ty, $cuda:literal, $to:expr, $from:expr, $add:expr) => {
        impl BufferElem for $t {
            type Atom = $atom;
            const CUDA: &'static str = $cuda;
            #[inline]
            fn new_atom(v: Self) -> $atom {
                <$atom>::new($to(v))
            }
            #[inline]
            fn load(a: &$atom) -> Self {
                $from(a.load(Relaxed))
            }
            #[inline]
            fn store(a: &$atom, v: Self) {
                a.store($to(v), Relaxed)
            }
            #[inline]
            fn update(a: &$atom, f: impl Fn(Self) -> Self) -> Self {
                let old = a.fetch_update(Relaxed, Relaxed, |bits| Some($to(f($from(bits))))).unwrap_or_else(|b| b);
                $from(old)
            }
            #[inline]
            fn cas(a: &$atom, current: Self, new: Self) -> Self {
                match a.compare_exchange($to(current), $to(new), Relaxed, Relaxed) {
                    Ok(b) | Err(b) => $from(b),
                }
            }
            #[inline]
            fn add(self, other: Self) -> Self {
                $add(self, other)
            }
            #[inline]
            fn to_le(self, out: &mut [u8]) {
                out[..std::mem::size_of::<$t>()].copy_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn from_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes[..std::mem::size_of::<$t>()].try_into().expect("element width"))
            }
            #[inline]
            fn bits(self) -> u64 {
                $to(self) as u64
            }
            #[inline]
            fn from_atom(a: $atom) -> Self {
                $from(a.into_inner())
            }
            #[inline]
            fn atoms_into_values(atoms: Box<[$atom]>) -> Vec<Self> {
                use std::mem::{align_of, size_of};
                if size_of::<$atom>() != size_of::<$t>() || align_of::<$atom>() != align_of::<$t>() {
                    // A target where the atomic is aligned more strictly than its value: the
                    // memory's layout differs, so convert element by element.
                    return atoms.into_vec().into_iter().map(Self::from_atom).collect();
                }
                let len = atoms.len();
                // SAFETY: an atomic integer has the size and bit validity of its integer, and
                // every bit pattern of that integer is a valid value of this type (integers of
                // the same width, floats from their bits; `from_atom` is the same
                // reinterpretation), so the initialised atoms are initialised values; the
                // allocation's layout (size and alignment, checked above) is the vector's.
                unsafe { Vec::from_raw_parts(Box::into_raw(atoms) as *mut $atom as *mut $t, len, len) }
            }
        }
    };
}
buffer_elem!(u32, AtomicU32, u32, "ws_u32", |v: u32| v, |b: u32| b, u32::wrapping_add);
buffer_elem!(i32, AtomicU32, u32, "ws_i32", |v: i32| v as u32, |b: u32| b as i32, i32::wrapping_add);
buffer_elem!(u64, AtomicU64, u64, "ws_u64", |v: u64| v, |b: u64| b, u64::wrapping_add);
buffer_elem!(i64, AtomicU64, u64, "ws_i64", |v: i64| v as u64, |b: u64| b as i64, i64::wrapping_add);
buffer_elem!(f32, AtomicU32, u32, "ws_f32", f32::to_bits, f32::from_bits, |a: f32, b: f32| a + b);
buffer_elem!(f64, AtomicU64, u64, "ws_f64", f64::to_bits, f64::from_bits, |a: f64, b: f64| a + b);

/// Bytes of a buffer's image per tile of its map of known contents: the tiles the GPU upload
/// looks at for one repeated word (`gpu/staging.rs` uses this constant), so each tile it asks
/// about is one entry of the map. A multiple of every element width.
pub(crate) const TILE_BYTES: usize = 1 << 20;

/// A tile of a buffer whose contents are not known without reading them (a known tile holds
/// the 32-bit word it repeats, which never equals this).
const UNKNOWN: u64 = u64::MAX;
/// Beside a known tile's word: its cells are not written yet (owed, module notes).
const OWED: u64 = 1 << 32;
/// Beside a known tile's word: a thread is writing its cells now.
const WRITING: u64 = 1 << 33;

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

/// An array shared by all tasks of a run.
pub struct Buffer<T: BufferElem> {
    /// The elements: a slot is initialised once its tile is not owed (`known`).
    cells: Box<[Slot<T::Atom>]>,
    /// Per tile of `Self::TILE` elements (the last one maybe short): the 32-bit word its image
    /// is known to repeat, or `UNKNOWN` (see the module notes). Atomics, as the cells are:
    /// threads that write the buffer forget tiles through `&self`.
    known: Box<[AtomicU64]>,
    /// Tiles owed (`OWED`): while it is not zero, every access first makes sure its tile is
    /// written. Counted down with release stores, so a thread that reads zero sees every cell.
    owed: AtomicUsize,
    /// Working memory of the run only (`Buffer::scratch`).
    scratch: bool,
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
    /// Elements per tile of the map of known contents (`TILE_BYTES` of image).
    const TILE: usize = TILE_BYTES / std::mem::size_of::<T>();

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
    fn cells_in(&self, first: usize, count: usize) -> &[T::Atom] {
        let slots = &self.cells[first..first + count];
        self.write_owed_in(first, count);
        // SAFETY: every tile the range overlaps is written, so every slot in it holds an
        // initialised atomic; a slot has the layout of its atomic.
        unsafe { &*(slots as *const [Slot<T::Atom>] as *const [T::Atom]) }
    }

    /// Makes sure the tile of element `i` (a valid index) is written (module notes): one
    /// acquire load (a plain load on x86-64) while no tile is owed.
    #[inline]
    fn written(&self, i: usize) {
        if self.owed.load(Acquire) != 0 {
            self.write_tile(i / Self::TILE);
        }
    }

    /// Writes tile `t` if it is owed, or waits while another thread writes it.
    #[cold]
    fn write_tile(&self, t: usize) {
        let k = &self.known[t];
        loop {
            let entry = k.load(Acquire);
            if entry == UNKNOWN || entry & (OWED | WRITING) == 0 {
                return;
            }
            if entry & OWED == 0 {
                std::hint::spin_loop();
                continue;
            }
            if k.compare_exchange(entry, (entry & !OWED) | WRITING, Acquire, Relaxed).is_err() {
                continue;
            }
            let value = value_of_word::<T>(entry as u32);
            let end = ((t + 1) * Self::TILE).min(self.cells.len());
            for slot in &self.cells[t * Self::TILE..end] {
                // SAFETY: this thread claimed the owed tile; nothing refers to its slots
                // until the release store below ends the claim (the `Sync` notes).
                unsafe { (*slot.get()).write(T::new_atom(value)) };
            }
            k.store(u64::from(entry as u32), Release);
            self.owed.fetch_sub(1, Release);
            return;
        }
    }

    /// Writes every tile still owed, on every core.
    fn write_owed(&self) {
        if self.owed.load(Acquire) != 0 {
            (0..self.known.len()).into_par_iter().for_each(|t| self.write_tile(t));
        }
    }

    /// Writes the owed tiles among elements `first..first + count`.
    fn write_owed_in(&self, first: usize, count: usize) {
        if count > 0 && self.owed.load(Acquire) != 0 {
            (first / Self::TILE..=(first + count - 1) / Self::TILE).for_each(|t| self.write_tile(t));
        }
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

    /// Forgets what the tile of element `i` (a valid index) is known to hold, after a write.
    /// A relaxed load first: writes to a tile already unknown (a host loop setting many
    /// elements) leave the map's shared cache line alone.
    #[inline]
    fn forget(&self, i: usize) {
        // Every caller wrote the element, so its tile was written first (`written`). A
        // release store: a thread that finds the tile unknown (an acquire load in
        // `write_tile`) must also see the fill that this thread saw before writing.
        let k = &self.known[i / Self::TILE];
        if k.load(Relaxed) != UNKNOWN {
            k.store(UNKNOWN, Release);
        }
    }

    /// The 32-bit word that elements `first..first + count` repeat, from the map alone (no
    /// element read): `Some` if every tile they overlap is known to repeat that one word;
    /// `None` if any is unknown, two differ, or `count` is zero.
    pub(crate) fn known_word(&self, first: usize, count: usize) -> Option<u32> {
        if count == 0 {
            return None;
        }
        let tiles = &self.known[first / Self::TILE..=(first + count - 1) / Self::TILE];
        // Owed or written, a known tile's word is its low half.
        let word = |k: &AtomicU64| Some(k.load(Relaxed)).filter(|&e| e != UNKNOWN).map(|e| e as u32);
        let first_word = word(&tiles[0])?;
        tiles[1..].iter().all(|k| word(k) == Some(first_word)).then_some(first_word)
    }

    /// The current contents.
    pub fn to_vec(&self) -> Vec<T> {
        self.cells_in(0, self.len()).iter().map(T::load).collect()
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    #[inline]
    #[track_caller]
    pub fn get(&self, i: usize) -> T {
        T::load(self.cell(i))
    }

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

/// An array handlers only read: `len()` and `get(i)`. Cloning shares the elements; the
/// GPU backend keeps one device copy per device while any clone lives (see the module notes).
pub struct ReadOnly<T: BufferElem> {
    values: Arc<[T]>,
    /// Names the device copies; a fresh one per array built, shared by its clones.
    id: u64,
    /// Dies with the last clone, telling the runtime that the device copies can go.
    alive: Arc<()>,
}

impl<T: BufferElem> ReadOnly<T> {
    /// An array holding `values`.
    pub fn from_vec(values: Vec<T>) -> Self {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        ReadOnly { values: values.into(), id: NEXT_ID.fetch_add(1, Relaxed), alive: Arc::new(()) }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    #[inline]
    #[track_caller]
    pub fn get(&self, i: usize) -> T {
        self.values[i]
    }

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

/// How a device copy of a [`ReadOnly`] array is found again and known to be stale: its id,
/// and a handle that dies with the last clone of the array.
pub struct Residency {
    pub id: u64,
    pub alive: Weak<()>,
}

/// Elements per piece when a buffer's image is converted in parallel.
const CHUNK: usize = 1 << 16;

/// What the runtime needs of one buffer to move it to the device and back.
pub trait DeviceBuffer: Sync {
    fn len(&self) -> usize;
    fn elem_bytes(&self) -> usize;
    /// Writes the little-endian image of elements `first..` into `out` (whole elements, as
    /// many as it holds or as there are), converting on every core.
    fn write_le(&self, first: usize, out: &mut [u8]);
    /// Overwrites elements `first..` from a little-endian image (whole elements, as many as
    /// it holds or as there are; after a GPU run).
    fn read_le(&self, first: usize, bytes: &[u8]);
    /// The 32-bit word that the little-endian image of elements `first..first + count`
    /// repeats, if it repeats one (every element alike, and for 8-byte elements both halves
    /// alike: zero, `u64::MAX`): the GPU backend sets such a piece on the device instead of
    /// copying it. Stops at the first element that differs. A `Buffer` answers from its map
    /// of known tiles without reading an element where the map knows (module notes).
    fn repeated_word(&self, first: usize, count: usize) -> Option<u32>;
    /// Little-endian image of all elements.
    fn to_bytes(&self) -> Cow<'_, [u8]> {
        let mut out = vec![0u8; self.len() * self.elem_bytes()];
        self.write_le(0, &mut out);
        Cow::Owned(out)
    }
    /// Overwrites all elements from a little-endian image.
    fn load_bytes(&self, bytes: &[u8]) {
        self.read_le(0, bytes)
    }
    /// `Some` for arrays handlers never write: the device copy may be kept between runs
    /// and is never copied back.
    fn residency(&self) -> Option<Residency> {
        None
    }
    /// Whether the buffer is a run's working memory (`Buffer::scratch`): cleared on the
    /// device, never copied either way.
    fn scratch(&self) -> bool {
        false
    }
    /// Readies part `part` of `parts` of the host memory the copy back will write, while a
    /// GPU run's kernel runs (`gpu/runner.rs`, one thread per part): what would otherwise be
    /// on the call's path after the kernel (page faults, owed fills). Changes no element's
    /// value.
    fn before_copy_back(&self, _part: usize, _parts: usize) {}
}

impl<T: BufferElem> ReadOnly<T> {
    /// The elements' memory, which on a little-endian host is their little-endian image.
    #[cfg(target_endian = "little")]
    fn image(&self) -> &[u8] {
        // SAFETY: the element types are plain numbers without padding (u32 .. f64), and the
        // elements are immutable for the life of the borrow.
        unsafe { std::slice::from_raw_parts(self.values.as_ptr() as *const u8, std::mem::size_of_val(&*self.values)) }
    }
}

impl<T: BufferElem> DeviceBuffer for ReadOnly<T> {
    fn len(&self) -> usize {
        self.values.len()
    }
    fn elem_bytes(&self) -> usize {
        std::mem::size_of::<T>()
    }
    fn write_le(&self, first: usize, out: &mut [u8]) {
        // The image is the elements' memory (every platform the GPU backend supports, x86-64
        // and aarch64, is little-endian): a copy, not a conversion.
        #[cfg(target_endian = "little")]
        {
            let image = &self.image()[first * std::mem::size_of::<T>()..];
            let n = out.len().min(image.len());
            copy_on_every_core(&mut out[..n], &image[..n]);
        }
        #[cfg(not(target_endian = "little"))]
        write_image(&self.values, first, out, |&v| v);
    }
    fn read_le(&self, _first: usize, _bytes: &[u8]) {}
    fn repeated_word(&self, first: usize, count: usize) -> Option<u32> {
        repeated_word(&self.values[first..first + count], |&v| v)
    }
    fn to_bytes(&self) -> Cow<'_, [u8]> {
        #[cfg(target_endian = "little")]
        return Cow::Borrowed(self.image());
        #[cfg(not(target_endian = "little"))]
        {
            let mut out = vec![0u8; self.len() * std::mem::size_of::<T>()];
            self.write_le(0, &mut out);
            Cow::Owned(out)
        }
    }
    fn residency(&self) -> Option<Residency> {
        Some(Residency { id: self.id, alive: Arc::downgrade(&self.alive) })
    }
}

impl<T: BufferElem> DeviceBuffer for Buffer<T> {
    fn len(&self) -> usize {
        self.cells.len()
    }
    fn scratch(&self) -> bool {
        self.scratch
    }
    fn elem_bytes(&self) -> usize {
        std::mem::size_of::<T>()
    }
    fn write_le(&self, first: usize, out: &mut [u8]) {
        let count = (out.len() / std::mem::size_of::<T>()).min(self.len().saturating_sub(first));
        write_image(self.cells_in(first, count), 0, out, T::load);
    }
    fn repeated_word(&self, first: usize, count: usize) -> Option<u32> {
        // Bounds checked before the map is asked; the cells are read only if it does not know.
        let _ = &self.cells[first..first + count];
        self.known_word(first, count).or_else(|| repeated_word(self.cells_in(first, count), T::load))
    }
    fn before_copy_back(&self, part: usize, parts: usize) {
        if self.scratch {
            return;
        }
        // The copy back writes every element: owed tiles written and the others' pages
        // faulted in now cost the call nothing while the kernel runs.
        let bytes = std::mem::size_of::<T>();
        for t in (part..self.known.len()).step_by(parts.max(1)) {
            let entry = self.known[t].load(Relaxed);
            if entry != UNKNOWN && entry & OWED != 0 {
                self.write_tile(t);
            } else {
                let tile = &self.cells[t * Self::TILE..((t + 1) * Self::TILE).min(self.cells.len())];
                crate::contract::buffer::pages::populate(tile.as_ptr() as *const u8, tile.len() * bytes);
            }
        }
    }
    fn read_le(&self, first: usize, bytes: &[u8]) {
        // Element by element with atomic stores, never a plain copy into the cells: another
        // thread may hold the buffer meanwhile (its accessors are atomic), and a plain write
        // beside an atomic access is a data race. Relaxed stores are plain moves, so this
        // runs at about a copy's speed on every core (`image_timing.rs`).
        let w = std::mem::size_of::<T>();
        let count = (bytes.len() / w).min(self.len().saturating_sub(first));
        // Owed tiles written first: one written later would overwrite the copy.
        let cells = self.cells_in(first, count);
        if !cells.is_empty() {
            // The tiles written are no longer known (not scanned for a word: the copy back
            // runs after every GPU run, and is all the host does with most buffers).
            let last = first + cells.len() - 1;
            // Release stores, as `forget`'s.
            self.known[first / Self::TILE..=last / Self::TILE].iter().for_each(|k| k.store(UNKNOWN, Release));
        }
        bytes.par_chunks(CHUNK * w).zip(cells.par_chunks(CHUNK)).for_each(|(bytes, cells)| {
            for (c, image) in cells.iter().zip(bytes.chunks_exact(w)) {
                T::store(c, T::from_le(image));
            }
        });
    }
}

/// Writes the little-endian image of `items[first..]` (as many as `out` holds) into `out`,
/// element by element (`value` reads one: buffer cells are atomics, read atomically for the
/// reason `read_le` gives), on every core: a buffer of hundreds of megabytes is converted in
/// milliseconds, not a second.
fn write_image<E: Sync, T: BufferElem>(items: &[E], first: usize, out: &mut [u8], value: impl Fn(&E) -> T + Sync) {
    let w = std::mem::size_of::<T>();
    let items = &items[first..(first + out.len() / w).min(items.len())];
    out.par_chunks_mut(CHUNK * w).zip(items.par_chunks(CHUNK)).for_each(|(bytes, items)| {
        for (image, item) in bytes.chunks_exact_mut(w).zip(items) {
            value(item).to_le(image);
        }
    });
}

/// Copies `src` into `dst` (as long) on every core.
#[cfg(target_endian = "little")]
fn copy_on_every_core(dst: &mut [u8], src: &[u8]) {
    dst.par_chunks_mut(CHUNK * 8).zip(src.par_chunks(CHUNK * 8)).for_each(|(d, s)| d.copy_from_slice(s));
}

/// The 32-bit word the image of `items` repeats (`DeviceBuffer::repeated_word`). The first
/// few elements are looked at alone, so that the usual answer for an input (no) costs no
/// parallel scan; the rest in chunks, each a plain loop (a parallel job per element cost ten
/// times as much).
fn repeated_word<E: Sync, T: BufferElem>(items: &[E], value: impl Fn(&E) -> T + Sync) -> Option<u32> {
    let Some(first) = items.first() else { return Some(0) };
    let first = value(first);
    let (bits, word) = (first.bits(), word_of(first)?);
    let alike = |chunk: &[E]| chunk.iter().fold(true, |same, item| same & (value(item).bits() == bits));
    (alike(&items[..items.len().min(64)]) && items.par_chunks(CHUNK).all(alike)).then_some(word)
}

/// The value whose little-endian image repeats `word` (the inverse of [`word_of`]).
fn value_of_word<T: BufferElem>(word: u32) -> T {
    let b = word.to_le_bytes();
    T::from_le(&[b[0], b[1], b[2], b[3], b[0], b[1], b[2], b[3]])
}

/// The 32-bit word that the little-endian image of `value` repeats, if it repeats one (a
/// 4-byte value's own bits; an 8-byte value's if both halves are alike).
fn word_of<T: BufferElem>(value: T) -> Option<u32> {
    let bits = value.bits();
    let word = bits as u32;
    (std::mem::size_of::<T>() == 4 || (bits >> 32) as u32 == word).then_some(word)
}

/// The buffers of a program (`#[buffers]` struct, or `()`), in declaration order.
///
/// Device side: `struct wsdsl_buffers` holds, for each buffer in this order, its element
/// pointer and its length as a `ws_u64` (16 bytes per buffer).
pub trait BufferSet: Sync + 'static {
    fn buffers(&self) -> Vec<&dyn DeviceBuffer>;

    /// Buffer `index` as a data-parallel job sees it (`parallel/`); `Other` for a float
    /// buffer or no buffer. `#[megakernel]` implements it for programs that record jobs.
    fn job_buffer(&self, _index: u32) -> crate::contract::jobs::JobBuffer<'_> {
        crate::contract::jobs::JobBuffer::Other
    }

    /// The index of the buffer at `address` (a field of this struct), which a job records.
    fn job_index(&self, _address: *const ()) -> Option<u32> {
        None
    }
}

impl BufferSet for () {
    fn buffers(&self) -> Vec<&dyn DeviceBuffer> {
        Vec::new()
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

    #[test]
    fn scratch_buffers_are_zero_and_say_so_to_the_device() {
        let s = Buffer::<u64>::scratch(5);
        assert!(s.scratch() && !Buffer::<u64>::zeroed(5).scratch() && !Buffer::from_vec(vec![1u32]).scratch());
        assert_eq!(s.repeated_word(0, 5), Some(0));
        s.atomic_add(3, 9);
        assert_eq!(s.to_vec(), vec![0, 0, 0, 9, 0], "on the host it is an ordinary buffer");
    }

    #[test]
    fn pieces_that_repeat_one_word_say_which() {
        let depth = Buffer::filled(5, u32::MAX);
        assert_eq!(depth.to_vec(), vec![u32::MAX; 5]);
        assert_eq!(depth.repeated_word(0, 5), Some(u32::MAX));
        depth.set(3, 7);
        assert!(depth.repeated_word(0, 5).is_none() && depth.repeated_word(4, 1) == Some(u32::MAX));
        assert_eq!(Buffer::filled(3, u64::MAX).repeated_word(0, 3), Some(u32::MAX), "both halves alike");
        assert!(Buffer::filled(3, 1u64).repeated_word(0, 3).is_none(), "halves differ: no 32-bit pattern");
        assert!(Buffer::filled(3, 0.25f64).repeated_word(0, 3).is_none());
        assert_eq!(Buffer::filled(2, 1.5f32).repeated_word(0, 2), Some(1.5f32.to_bits()));
        assert_eq!(ReadOnly::from_vec(vec![-1i32; 4]).repeated_word(1, 3), Some(u32::MAX));
        assert_eq!(Buffer::filled(0, 9u32).repeated_word(0, 0), Some(0), "nothing to copy");
        let labels = Buffer::from_fn(CHUNK + 3, |i| i as u32);
        assert!(labels.to_vec().iter().enumerate().all(|(i, &l)| l == i as u32), "element i is f(i), across chunks");
        // Large enough for huge pages: still every element, and zero where asked.
        let big = Buffer::filled(3 << 20, 2.5f32);
        assert!(big.repeated_word(0, 3 << 20) == Some(2.5f32.to_bits()) && big.get(3 << 19) == 2.5);
        assert_eq!(Buffer::<u64>::zeroed(3 << 20).repeated_word(0, 3 << 20), Some(0));
    }

    #[test]
    fn byte_images_round_trip() {
        let b = Buffer::from_vec(vec![-1i64, 2, i64::MIN]);
        let c = Buffer::<i64>::zeroed(3);
        c.load_bytes(&b.to_bytes());
        assert_eq!(c.to_vec(), b.to_vec());
    }

    #[test]
    fn pieces_of_an_image_land_where_they_belong() {
        let b = Buffer::from_vec((0..10u32).collect());
        let mut piece = vec![0u8; 3 * 4];
        b.write_le(4, &mut piece);
        assert_eq!(piece, [4u32, 5, 6].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>());
        let c = Buffer::<u32>::zeroed(10);
        c.read_le(7, &piece);
        assert_eq!(c.to_vec(), vec![0, 0, 0, 0, 0, 0, 0, 4, 5, 6]);
        let r = ReadOnly::from_vec(vec![1.5f64, -2.0]);
        let mut image = vec![0u8; 8];
        r.write_le(1, &mut image);
        assert_eq!(image, (-2.0f64).to_le_bytes());
        assert_eq!(r.to_bytes().len(), 16);
        assert!(c.repeated_word(0, 7) == Some(0) && c.repeated_word(5, 3).is_none());
        assert!(Buffer::from_vec(vec![0.0f64, -0.0]).repeated_word(0, 2).is_none(), "-0.0 has a bit set");
        let r = ReadOnly::from_vec(vec![0u32, 0, 0x100, 0]);
        assert!(r.repeated_word(0, 2) == Some(0) && r.repeated_word(3, 1) == Some(0) && r.repeated_word(1, 2).is_none(), "a read-only array's zero elements");
        assert_eq!(ReadOnly::from_vec(vec![-0.0f32]).repeated_word(0, 1), Some(0x8000_0000), "-0.0 repeats its own word");
        let mut image = vec![0u8; 8];
        r.write_le(2, &mut image);
        assert_eq!(image, [0, 1, 0, 0, 0, 0, 0, 0], "the last elements of a read-only array");
        let mut longer = vec![7u8; 12];
        r.write_le(2, &mut longer);
        assert_eq!(longer[8..], [7; 4], "a piece longer than what is left keeps its tail");
    }

    /// Elements per tile of `Buffer<u32>`'s map.
    const T32: usize = Buffer::<u32>::TILE;

    #[test]
    fn zeroed_buffers_are_known_zero_until_a_tile_is_written() {
        assert_eq!(T32, TILE_BYTES / 4);
        let len = 3 * T32 + 5; // the last tile short
        let b = Buffer::<u32>::zeroed(len);
        assert_eq!(b.known.len(), 4);
        for (first, count) in [(0, len), (10, 100), (T32 - 1, 2), (3 * T32, 5), (len - 1, 1)] {
            assert_eq!(b.known_word(first, count), Some(0), "from the map: {first} + {count}");
            assert_eq!(b.repeated_word(first, count), Some(0));
        }
        assert_eq!(b.known_word(7, 0), None, "an empty range is not the map's to answer");
        assert_eq!(b.repeated_word(7, 0), Some(0), "nothing to copy");
        b.set(T32 + 7, 5);
        assert_eq!(b.get(T32 + 7), 5);
        for (first, count) in [(T32, T32), (T32 + 7, 1), (0, len), (T32 - 1, 2), (T32, 7)] {
            assert_eq!(b.known_word(first, count), None, "the written tile is forgotten: {first} + {count}");
        }
        assert!(b.repeated_word(0, len).is_none() && b.repeated_word(T32, T32).is_none() && b.repeated_word(T32 - 1, 9).is_none());
        assert_eq!(b.repeated_word(T32, 7), Some(0), "read: the zeros before the 5");
        assert_eq!(b.repeated_word(T32 + 8, T32 - 8), Some(0), "read: the zeros after it");
        for (first, count) in [(0, T32), (2 * T32, T32 + 5), (T32 - 3, 3), (2 * T32, 1)] {
            assert_eq!(b.known_word(first, count), Some(0), "other tiles still known: {first} + {count}");
            assert_eq!(b.repeated_word(first, count), Some(0));
        }
        b.set(T32 + 7, 0);
        assert!(b.known_word(T32, T32).is_none() && b.repeated_word(T32, T32) == Some(0), "zero again, found by reading");
        let s = Buffer::<u64>::scratch(3 << 20);
        assert_eq!(s.known_word(0, 3 << 20), Some(0));
        assert_eq!(s.known.len(), 24, "one entry per megabyte of image");
        assert_eq!(Buffer::<u32>::zeroed(1).known.len(), 1, "a tiny buffer has a tiny map");
        assert!(Buffer::<f64>::zeroed(0).known.is_empty());
    }

    #[test]
    #[should_panic]
    fn the_map_does_not_answer_past_the_end() {
        Buffer::<u32>::zeroed(5).repeated_word(3, 5);
    }

    #[test]
    fn filled_buffers_are_known_where_the_value_repeats_one_word() {
        let len = 2 * T32 + 3;
        let b = Buffer::filled(len, 7u32);
        assert!(b.known_word(0, len) == Some(7) && b.repeated_word(0, len) == Some(7) && b.repeated_word(T32 + 1, 2) == Some(7));
        let m = Buffer::filled(3 << 17, u64::MAX);
        assert!(m.known_word(0, 3 << 17) == Some(0xffff_ffff) && m.repeated_word(0, 3 << 17) == Some(0xffff_ffff), "both halves alike");
        let one = Buffer::filled(5, 1u64);
        assert!(one.known_word(0, 5).is_none() && one.repeated_word(0, 5).is_none(), "halves differ: unknown, and read");
        assert_eq!(Buffer::filled(4, -0.0f32).known_word(0, 4), Some(0x8000_0000));
        assert_eq!(Buffer::filled(4, -1i64).known_word(1, 3), Some(u32::MAX));
        let f = Buffer::filled(4, 0.25f64);
        assert!(f.known_word(0, 4).is_none() && f.repeated_word(0, 4).is_none());
        // Built from values: unknown (not scanned), read when asked.
        let v = Buffer::from_vec(vec![3u32; 4]);
        assert!(v.known_word(0, 4).is_none() && v.repeated_word(0, 4) == Some(3));
        let z = Buffer::from_fn(T32 + 1, |_| 0u32);
        assert!(z.known_word(0, T32 + 1).is_none() && z.repeated_word(0, T32 + 1) == Some(0));
        let labels = Buffer::from_fn(6, |i| i as u32);
        assert!(labels.known_word(0, 6).is_none() && labels.repeated_word(0, 6).is_none(), "from_fn writes over zeroed pages: not known as zero");
        // BFS: one depth set, its tile alone unknown.
        b.set(T32 + 2, 0);
        assert!(b.known_word(0, T32) == Some(7) && b.known_word(2 * T32, 3) == Some(7) && b.known_word(T32, T32).is_none());
        assert!(b.repeated_word(T32, T32).is_none() && b.repeated_word(T32 + 3, 5) == Some(7));
    }

    #[test]
    fn every_atomic_update_forgets_its_tile() {
        type Update = fn(&Buffer<u32>, usize);
        let updates: [(&str, Update); 6] = [
            ("atomic_add", |b, i| {
                b.atomic_add(i, 1);
            }),
            ("atomic_min", |b, i| {
                b.atomic_min(i, 0);
            }),
            ("atomic_max", |b, i| {
                b.atomic_max(i, 4);
            }),
            ("atomic_cas", |b, i| {
                b.atomic_cas(i, 0, 9);
            }),
            ("atomic_cas that fails", |b, i| {
                b.atomic_cas(i, 1, 9);
            }),
            ("set", |b, i| b.set(i, 0)),
        ];
        for (name, update) in updates {
            let b = Buffer::<u32>::zeroed(2 * T32);
            update(&b, T32 + 1);
            assert_eq!(b.known_word(T32, T32), None, "{name} forgets its tile");
            assert_eq!(b.known_word(0, T32), Some(0), "{name} leaves the other tile known");
            let changed = b.get(T32 + 1) != 0;
            assert_eq!(b.repeated_word(T32, T32).is_none(), changed, "{name}: the answer read is right");
        }
        // Without the map forgetting, these would answer Some(0) without reading.
        let sum = Buffer::<u64>::zeroed(3);
        sum.atomic_add(1, 1);
        assert_eq!(sum.repeated_word(0, 3), None);
        let f = Buffer::filled(3, 2.5f64);
        f.atomic_max(2, 3.0);
        assert!(f.repeated_word(0, 3).is_none() && f.repeated_word(0, 2).is_none(), "one tile: all of it read");
        let i = Buffer::filled(3, -1i32);
        assert_eq!(i.atomic_min(0, -2), -1);
        assert_eq!(i.repeated_word(0, 3), None);
    }

    #[test]
    fn images_read_back_forget_the_tiles_they_write() {
        let b = Buffer::<u32>::zeroed(3 * T32);
        let image: Vec<u8> = [1u32, 2].iter().flat_map(|v| v.to_le_bytes()).collect();
        b.read_le(T32 - 1, &image);
        assert!(b.known_word(0, T32).is_none() && b.known_word(T32, T32).is_none(), "both tiles the image spans");
        assert_eq!(b.known_word(2 * T32, T32), Some(0));
        assert!(b.repeated_word(0, T32).is_none() && b.repeated_word(T32, T32).is_none() && b.repeated_word(0, T32 - 1) == Some(0));
        b.read_le(2 * T32, &[]);
        assert_eq!(b.known_word(2 * T32, T32), Some(0), "nothing read back, nothing forgotten");
        let c = Buffer::filled(5, 4u64);
        c.load_bytes(&[0u8; 40]);
        assert!(c.known_word(0, 5).is_none() && c.repeated_word(0, 5) == Some(0), "a zero image: unknown, then read as zero");
        let d = Buffer::<u64>::zeroed(4);
        d.load_bytes(&Buffer::from_vec(vec![1u64, 2, 3, 4]).to_bytes());
        assert!(d.known_word(0, 4).is_none() && d.repeated_word(0, 4).is_none());
    }

    #[test]
    fn filled_tiles_are_written_on_first_access_only() {
        let len = 3 * T32 + 5;
        let b = Buffer::filled(len, 9u32);
        assert_eq!(b.owed.load(Relaxed), 4, "nothing written by the fill");
        let owed = |b: &Buffer<u32>, t: usize| b.known[t].load(Relaxed) & OWED != 0;
        assert_eq!(b.known_word(0, len), Some(9), "owed tiles are known: the upload sets them on the device");
        assert_eq!(b.get(T32 + 1), 9, "a read writes its tile");
        assert_eq!(b.owed.load(Relaxed), 3);
        assert!(!owed(&b, 1) && owed(&b, 0) && owed(&b, 2), "and that tile alone");
        b.set(2 * T32, 4);
        assert!(b.get(2 * T32) == 4 && b.get(2 * T32 + 1) == 9 && b.known_word(2 * T32, 1).is_none(), "a write lands after its tile's fill");
        assert_eq!(b.atomic_min(len - 1, 3), 9);
        let mut image = vec![0u8; 8];
        b.write_le(T32 - 2, &mut image);
        assert_eq!(image, [9u32, 9].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(), "an image reads the fill");
        // A copy back over an owed tile writes the fill first, then the image over it.
        let c = Buffer::filled(2 * T32, -1i32);
        c.read_le(T32 - 1, &[7u8, 0, 0, 0]);
        assert!(c.get(T32 - 1) == 7 && c.get(T32 - 2) == -1 && c.get(T32) == -1);
        // Readied for a copy back (as while a kernel runs): every tile written, no value changed.
        let d = Buffer::filled(2 * T32 + 1, 2.5f32);
        (0..2).for_each(|part| d.before_copy_back(part, 2));
        assert!(d.owed.load(Relaxed) == 0 && d.known_word(0, 2 * T32 + 1) == Some(2.5f32.to_bits()));
        assert!(d.to_vec().iter().all(|&v| v == 2.5));
        // Zeroed and scratch buffers are owed zeros: nothing written until asked.
        let z = Buffer::<u64>::zeroed(T32 + 1);
        assert!(z.owed.load(Relaxed) == 3 && z.known_word(0, T32 + 1) == Some(0));
        assert!(z.get(T32) == 0 && z.owed.load(Relaxed) == 2 && z.into_vec() == vec![0; T32 + 1]);
        let s = Buffer::<i32>::scratch(5);
        assert!(s.owed.load(Relaxed) == 1 && s.atomic_add(4, -2) == 0 && s.to_vec() == vec![0, 0, 0, 0, -2]);
        assert_eq!(Buffer::filled(T32 + 1, u64::MAX).into_vec(), vec![u64::MAX; T32 + 1]);
        assert_eq!(Buffer::filled(3, 5i64).to_vec(), vec![5; 3], "halves differ: written at once");
        // Many threads reading the same owed buffer each see the fill.
        let e = Buffer::filled(4 * T32, 6u32);
        std::thread::scope(|s| {
            for t in 0..4 {
                let e = &e;
                s.spawn(move || assert!((0..4 * T32).step_by(997).all(|i| e.get((i + t * 13) % (4 * T32)) == 6)));
            }
        });
        assert_eq!(e.owed.load(Relaxed), 0);
        // Shared across threads and across `catch_unwind`, as an array of atomics is.
        fn shareable<B: Send + Sync + std::panic::RefUnwindSafe>() {}
        shareable::<Buffer<f64>>();
    }
}
