//! A buffer's map of known contents: per tile of `TILE_BYTES` of its image, the 32-bit word
//! the tile is known to repeat, and whether its cells are still owed (not written yet) or
//! being written; the `Buffer` methods that write owed tiles and forget written ones. The
//! module notes named below are `buffer/mod.rs`'s.

use super::elem::BufferElem;
use super::writable::Buffer;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::{Acquire, Relaxed, Release}};

/// Bytes of a buffer's image per tile of its map of known contents: the tiles the GPU upload
/// looks at for one repeated word (`gpu/device/staging.rs` uses this constant), so each tile
/// it asks about is one entry of the map. A multiple of every element width.
pub(crate) const TILE_BYTES: usize = 1 << 20;

/// A tile of a buffer whose contents are not known without reading them (a known tile holds
/// the 32-bit word it repeats, which never equals this).
pub(super) const UNKNOWN: u64 = u64::MAX;
/// Beside a known tile's word: its cells are not written yet (owed, module notes).
pub(super) const OWED: u64 = 1 << 32;
/// Beside a known tile's word: a thread is writing its cells now.
pub(super) const WRITING: u64 = 1 << 33;

impl<T: BufferElem> Buffer<T> {
    /// Elements per tile of the map of known contents (`TILE_BYTES` of image).
    pub(super) const TILE: usize = TILE_BYTES / std::mem::size_of::<T>();

    /// Makes sure the tile of element `i` (a valid index) is written (module notes): one
    /// acquire load (a plain load on x86-64) while no tile is owed.
    #[inline]
    pub(super) fn written(&self, i: usize) {
        if self.owed.load(Acquire) != 0 {
            self.write_tile(i / Self::TILE);
        }
    }

    /// Writes tile `t` if it is owed, or waits while another thread writes it.
    #[cold]
    pub(super) fn write_tile(&self, t: usize) {
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
    pub(super) fn write_owed(&self) {
        if self.owed.load(Acquire) != 0 {
            (0..self.known.len()).into_par_iter().for_each(|t| self.write_tile(t));
        }
    }

    /// Writes the owed tiles among elements `first..first + count`.
    pub(super) fn write_owed_in(&self, first: usize, count: usize) {
        if count > 0 && self.owed.load(Acquire) != 0 {
            (first / Self::TILE..=(first + count - 1) / Self::TILE).for_each(|t| self.write_tile(t));
        }
    }

    /// Forgets what the tile of element `i` (a valid index) is known to hold, after a write.
    /// A relaxed load first: writes to a tile already unknown (a host loop setting many
    /// elements) leave the map's shared cache line alone.
    #[inline]
    pub(super) fn forget(&self, i: usize) {
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
}

/// The value whose little-endian image repeats `word` (the inverse of [`word_of`]).
pub(super) fn value_of_word<T: BufferElem>(word: u32) -> T {
    let b = word.to_le_bytes();
    T::from_le(&[b[0], b[1], b[2], b[3], b[0], b[1], b[2], b[3]])
}

/// The 32-bit word that the little-endian image of `value` repeats, if it repeats one (a
/// 4-byte value's own bits; an 8-byte value's if both halves are alike).
pub(super) fn word_of<T: BufferElem>(value: T) -> Option<u32> {
    let bits = value.bits();
    let word = bits as u32;
    (std::mem::size_of::<T>() == 4 || (bits >> 32) as u32 == word).then_some(word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::buffer::DeviceBuffer;

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
        let z = Buffer::from_fn(T32 + 1, |_| 0u32).unwrap();
        assert!(z.known_word(0, T32 + 1).is_none() && z.repeated_word(0, T32 + 1) == Some(0));
        let labels = Buffer::from_fn(6, |i| i as u32).unwrap();
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
