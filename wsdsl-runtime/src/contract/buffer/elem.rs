//! The element types a buffer can hold (u32, i32, u64, i64, f32, f64) and their bit-level
//! storage as atomics of the same width.

use std::fmt;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// Element types a buffer can hold (`u32`, `i32`, `u64`, `i64`, `f32`, `f64`), with their
/// bit-level storage: a [`Buffer`](super::Buffer) keeps each element as an atomic of the
/// same width, accessed with relaxed ordering.
pub trait BufferElem: Copy + Send + Sync + PartialOrd + fmt::Debug + Default + 'static {
    /// Atomic storage of the same width.
    type Atom: Send + Sync;
    /// The CUDA scalar type name (`ws_u32`, ...), for generated code and messages.
    const CUDA: &'static str;
    /// An atom holding `v`.
    fn new_atom(v: Self) -> Self::Atom;
    /// The value `a` holds (a relaxed load).
    fn load(a: &Self::Atom) -> Self;
    /// Stores `v` in `a` (a relaxed store).
    fn store(a: &Self::Atom, v: Self);
    /// Atomically replaces the value by `f(old)`; returns `old`.
    fn update(a: &Self::Atom, f: impl Fn(Self) -> Self) -> Self;
    /// Stores `new` in `a` if it holds `current` (bitwise); returns the value found.
    fn cas(a: &Self::Atom, current: Self, new: Self) -> Self;
    /// `self + other`, wrapping for integers (what `atomic_add` adds).
    fn add(self, other: Self) -> Self;
    /// Writes the value's little-endian bytes to the start of `out`.
    fn to_le(self, out: &mut [u8]);
    /// The value from the little-endian bytes at the start of `bytes`.
    fn from_le(bytes: &[u8]) -> Self;
    /// The value's bits, zero-extended (so `-0.0` is not zero).
    fn bits(self) -> u64;
    /// The value an atom holds, taking it.
    fn from_atom(a: Self::Atom) -> Self;
    /// The values of `atoms`, in the same memory: no pass over it (a 16 MB buffer took 2.3 ms
    /// element by element).
    fn atoms_into_values(atoms: Box<[Self::Atom]>) -> Vec<Self>;
    /// Atoms holding `values`, in the vector's memory where the layouts agree (every target
    /// the GPU backend supports): no pass over it. A vector with spare capacity is shrunk to
    /// its length first (the boxed slice's allocation must be exactly its elements).
    fn values_into_atoms(values: Vec<Self>) -> Box<[Self::Atom]>;
}

// Every method is `#[inline]`: the buffers' generic code (`read_le`, `write_le`, the
// accessors) is instantiated in the program's crate, which without it calls these one-line
// methods across the crate boundary for every element. Converting 4 M u32s from an image took
// 10.5 ms on one core that way, 1.3 ms inlined; the whole GPU call of BFS on R-MAT 22 went
// from 9.2-9.5 to 6.8-7.0 ms.
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
            fn values_into_atoms(values: Vec<Self>) -> Box<[$atom]> {
                use rayon::prelude::*;
                use std::mem::{align_of, size_of};
                // The standard library promises an atomic integer the size of its integer;
                // its alignment may be stricter (64-bit atomics on 32-bit x86).
                const { assert!(size_of::<$atom>() == size_of::<$t>()) };
                const SAME_LAYOUT: bool = align_of::<$atom>() == align_of::<$t>();
                if !SAME_LAYOUT {
                    // The vector's memory may be too loosely aligned for the atoms: new memory.
                    return values.par_iter().map(|&v| Self::new_atom(v)).collect::<Vec<_>>().into_boxed_slice();
                }
                let values = values.into_boxed_slice();
                let len = values.len();
                // SAFETY: the atomic has the size (asserted above), alignment (checked above)
                // and bit validity of its integer, and a value's memory holds the bits
                // `new_atom` would store (the same integer, an integer of the same width, or
                // a float's `to_bits`), so each initialised value is an initialised atom; the
                // allocation's layout (length times size, alignment) is unchanged, so the box
                // frees it as the vector allocated it. The vector is consumed: no other
                // reference to its memory remains.
                unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(Box::into_raw(values) as *mut $t as *mut $atom, len)) }
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
