//! The device images of values: what a task, a parameter or a value is as bytes in C layout.

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
    /// Writes the image into the start of `out` (at least `DEVICE_SIZE` bytes long), each
    /// field at its C offset.
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
/// `TaskValue` impls in `contract/value.rs` cover the same tuples.
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

#[cfg(test)]
mod tests {
    use super::*;

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
