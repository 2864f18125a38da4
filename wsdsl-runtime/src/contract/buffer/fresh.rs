//! Fresh memory for the constructors: taken from the allocator unwritten, with huge pages asked
//! for, and filled on every core where a constructor fills it (`Buffer::from_fn`,
//! `ReadOnly::from_slice`, ...).

use super::device::CHUNK;
use crate::error::Error;
use rayon::prelude::*;
use std::alloc::Layout;
use std::mem::MaybeUninit;

/// `len` slots of memory from the allocator, not written (a large block may be fresh pages,
/// which stay untouched, or a block freed before, which is not cleared).
pub(super) fn uninit_slots<A>(len: usize) -> Box<[MaybeUninit<A>]> {
    advised(Box::<[A]>::new_uninit_slice(len))
}

/// [`uninit_slots`] for a length the caller chose freely (`from_fn`'s): a size past what one
/// allocation may hold, or one the allocator refuses, is `Error::BufferTooLarge` naming
/// `constructor` and the element type `elem`, where the infallible allocation would panic or
/// abort the process.
pub(super) fn try_uninit_slots<A>(len: usize, constructor: &'static str, elem: &'static str) -> Result<Box<[MaybeUninit<A>]>, Error> {
    let too_large = |refused| Error::BufferTooLarge { constructor, elem, len, elem_bytes: std::mem::size_of::<A>(), refused };
    // `try_reserve_exact` reports both failures alike; the layout tells them apart.
    Layout::array::<A>(len).map_err(|_| too_large(false))?;
    let mut slots: Vec<MaybeUninit<A>> = Vec::new();
    slots.try_reserve_exact(len).map_err(|_| too_large(true))?;
    // SAFETY: the capacity is at least `len` (reserved above), and a `MaybeUninit` needs no
    // initialisation.
    unsafe { slots.set_len(len) };
    // The capacity is exactly `len` from the global allocator, so this moves nothing.
    Ok(advised(slots.into_boxed_slice()))
}

/// `slots`, with huge pages asked for their memory.
fn advised<A>(slots: Box<[MaybeUninit<A>]>) -> Box<[MaybeUninit<A>]> {
    super::pages::advise_huge_pages(slots.as_ptr() as *const u8, std::mem::size_of_val(&*slots));
    slots
}

/// `slots` written on every core: `write(first, piece)` initialises every slot of `piece`,
/// elements `first..first + piece.len()`. One piece is `CHUNK` elements, so each job is a
/// plain loop the compiler can vectorise, and the pages (huge where granted) are faulted in
/// by the threads that write them: a single-threaded fill of 1 GB spends most of its time in
/// the faults.
fn written_on_every_core<A: Send>(mut slots: Box<[MaybeUninit<A>]>, write: impl Fn(usize, &mut [MaybeUninit<A>]) + Sync) -> Box<[A]> {
    slots.par_chunks_mut(CHUNK).enumerate().for_each(|(k, piece)| write(k * CHUNK, piece));
    // SAFETY: every piece, so every slot, was written by `write` (its contract); a panic in it
    // propagates before this line, dropping the slots as uninitialised memory.
    unsafe { slots.assume_init() }
}

/// Element `i` of `slots` is `f(i)`, written on every core (`written_on_every_core`).
pub(super) fn from_fn_on_every_core<A: Send>(slots: Box<[MaybeUninit<A>]>, f: impl Fn(usize) -> A + Sync) -> Box<[A]> {
    written_on_every_core(slots, |first, piece| {
        for (i, slot) in piece.iter_mut().enumerate() {
            slot.write(f(first + i));
        }
    })
}

/// `convert(v)` for each `v` of `values`, in order, written on every core into fresh memory
/// (`written_on_every_core`): a copy where `convert` only changes the type. The length is a
/// slice's, whose memory exists already: no size check beyond the allocator's.
pub(super) fn converted_on_every_core<E: Copy + Sync, A: Send>(values: &[E], convert: impl Fn(E) -> A + Sync) -> Box<[A]> {
    written_on_every_core(uninit_slots(values.len()), |first, piece| {
        let values = &values[first..first + piece.len()];
        for (slot, &v) in piece.iter_mut().zip(values) {
            slot.write(convert(v));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_slot_is_written_in_order_across_pieces() {
        let n = 3 * CHUNK + 7; // the last piece short
        let made = from_fn_on_every_core(uninit_slots(n), |i| i as u64 * 3);
        assert!(made.len() == n && made.iter().enumerate().all(|(i, &v)| v == i as u64 * 3));
        let values: Vec<u32> = (0..n as u32).rev().collect();
        let copied = converted_on_every_core(&values, |v| v);
        assert_eq!(&*copied, &values[..]);
        assert_eq!(&*converted_on_every_core(&[1.5f32, -0.0], f32::to_bits), &[1.5f32.to_bits(), 0x8000_0000]);
        assert!(from_fn_on_every_core::<u32>(uninit_slots(0), |_| unreachable!()).is_empty());
    }

    #[test]
    fn lengths_no_allocation_can_hold_are_errors() {
        let slots = try_uninit_slots::<u64>(CHUNK + 1, "f", "u64").unwrap();
        assert_eq!(slots.len(), CHUNK + 1);
        assert!(try_uninit_slots::<u64>(0, "f", "u64").unwrap().is_empty());
        // Past `isize::MAX` bytes: no allocation may be that large.
        for len in [usize::MAX, usize::MAX / 8 + 1, (isize::MAX as usize) / 8 + 1] {
            let err = try_uninit_slots::<u64>(len, "Buffer::from_fn", "u64").unwrap_err();
            assert!(matches!(err, Error::BufferTooLarge { len: l, elem_bytes: 8, refused: false, .. } if l == len), "{len}: {err:?}");
            assert!(err.to_string().contains(&format!("Buffer::from_fn was asked for {len} elements of u64")), "{err}");
        }
        // 4 EiB: a size one allocation may have, but more than any address space maps, so
        // the allocator refuses it whatever the system's overcommit policy.
        let err = try_uninit_slots::<u32>(1 << 60, "ReadOnly::from_fn", "u32").unwrap_err();
        assert!(matches!(err, Error::BufferTooLarge { refused: true, .. }), "{err:?}");
        assert!(err.to_string().contains("could not allocate 1152921504606846976 elements of u32 (4611686018427387904 bytes)"), "{err}");
    }
}
