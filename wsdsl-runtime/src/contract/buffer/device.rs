//! The device side of buffers: what the runtime needs of one buffer to move it to the device
//! and back (`DeviceBuffer`, with its impls for `ReadOnly` and `Buffer`), how a read-only
//! array's device copy is found again (`Residency`), and the helpers that write and scan
//! little-endian images on every core.

use super::elem::BufferElem;
use super::read_only::ReadOnly;
use super::tiles::{word_of, OWED, UNKNOWN};
use super::writable::Buffer;
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::atomic::Ordering::{Relaxed, Release};
use std::sync::{Arc, Weak};
use std::time::Duration;

/// How a device copy of a [`ReadOnly`] array is found again and known to be stale: its id,
/// and a handle that dies with the last clone of the array.
pub struct Residency {
    /// The array's id, shared by its clones: the key of its device copies.
    pub id: u64,
    /// Dies with the array's last clone: its device copies may then be freed.
    pub alive: Weak<()>,
}

/// Elements per piece when a buffer's image is converted in parallel.
pub(super) const CHUNK: usize = 1 << 16;

/// What the runtime needs of one buffer to move it to the device and back; implemented by
/// [`Buffer`] and [`ReadOnly`], and returned for each field of a program's buffers by
/// [`BufferSet::buffers`](super::BufferSet::buffers).
pub trait DeviceBuffer: Sync {
    /// The number of elements.
    fn len(&self) -> usize;
    /// Bytes of one element.
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
    /// of known tiles without reading an element where the map knows (`buffer/mod.rs`).
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
    /// GPU run's kernel runs (`gpu/run/runner.rs`, one thread per part): what would otherwise be
    /// on the call's path after the kernel (page faults, owed fills). Changes no element's
    /// value.
    fn before_copy_back(&self, _part: usize, _parts: usize) {}
    /// How long the buffer's constructor took, the first time this is asked, zero after (a
    /// read-only array's clones share one answer): what the statistics of the first run call
    /// handed it report in [`Phases::inputs_built`](crate::Phases::inputs_built). Zero for
    /// a buffer that does not measure its construction.
    fn take_build_time(&self) -> Duration {
        Duration::ZERO
    }
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
    fn take_build_time(&self) -> Duration {
        self.count_build_time()
    }
}

impl<T: BufferElem> DeviceBuffer for Buffer<T> {
    fn len(&self) -> usize {
        self.cells.len()
    }
    fn scratch(&self) -> bool {
        self.scratch
    }
    fn take_build_time(&self) -> Duration {
        self.count_build_time()
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let labels = Buffer::from_fn(CHUNK + 3, |i| i as u32).unwrap();
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
}
