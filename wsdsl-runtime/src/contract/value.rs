//! Values flowing up the task tree: what a task hands its parent (`#[task(value = T)]`) and
//! the device layout of the frames that collect them.

use crate::contract::{align_up, DeviceBytes};
use std::fmt::Debug;

/// A type a task may hand its parent: a scalar, or (through `#[megakernel]`, which implements
/// this for the module's structs and enums) any value type of the subset. Read back from
/// device memory for the roots.
pub trait TaskValue: Copy + Send + Sync + Debug + 'static {
    /// Bytes of the value on the device (0 for `()`).
    const DEVICE_BYTES: usize;
    /// Decodes the device image (`DEVICE_BYTES` long, little-endian, C layout).
    fn from_device_bytes(bytes: &[u8]) -> Self;
    /// A value to fill slots no task has written yet (zeros, `false`, `None`, the first
    /// variant): never handed to a handler as a child's value.
    fn placeholder() -> Self;
}

macro_rules! scalar_value {
    ($($t:ty),*) => {$(
        impl TaskValue for $t {
            const DEVICE_BYTES: usize = core::mem::size_of::<$t>();
            #[inline]
            fn from_device_bytes(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes[..Self::DEVICE_BYTES].try_into().expect("value bytes"))
            }
            #[inline]
            fn placeholder() -> Self {
                0 as $t
            }
        }
    )*};
}
scalar_value!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64);

impl TaskValue for bool {
    const DEVICE_BYTES: usize = 1;
    fn from_device_bytes(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
    fn placeholder() -> Self {
        false
    }
}

impl TaskValue for () {
    const DEVICE_BYTES: usize = 0;
    fn from_device_bytes(_: &[u8]) -> Self {}
    fn placeholder() -> Self {}
}

impl<T: TaskValue + DeviceBytes, const N: usize> TaskValue for [T; N] {
    const DEVICE_BYTES: usize = <Self as DeviceBytes>::DEVICE_SIZE;
    fn from_device_bytes(bytes: &[u8]) -> Self {
        std::array::from_fn(|i| T::from_device_bytes(&bytes[i * T::DEVICE_SIZE..]))
    }
    fn placeholder() -> Self {
        [T::placeholder(); N]
    }
}

/// `struct ws_opt_T { bool some; T v; }`.
impl<T: TaskValue + DeviceBytes> TaskValue for Option<T> {
    const DEVICE_BYTES: usize = <Self as DeviceBytes>::DEVICE_SIZE;
    fn from_device_bytes(bytes: &[u8]) -> Self {
        (bytes[0] != 0).then(|| T::from_device_bytes(&bytes[align_up(1, T::DEVICE_ALIGN)..]))
    }
    fn placeholder() -> Self {
        None
    }
}

macro_rules! tuple_value {
    ($(($($t:ident $i:tt),+))*) => {$(
        impl<$($t: TaskValue + DeviceBytes),+> TaskValue for ($($t,)+) {
            const DEVICE_BYTES: usize = <Self as DeviceBytes>::DEVICE_SIZE;
            #[allow(unused_assignments)]
            fn from_device_bytes(bytes: &[u8]) -> Self {
                let mut off = 0;
                ($({
                    off = align_up(off, $t::DEVICE_ALIGN);
                    let v = $t::from_device_bytes(&bytes[off..]);
                    off += $t::DEVICE_SIZE;
                    v
                },)+)
            }
            fn placeholder() -> Self {
                ($($t::placeholder(),)+)
            }
        }
    )*};
}
crate::contract::device_bytes::for_each_tuple!(tuple_value);

/// Sizes of a program's join machinery on the device (`struct ws_frame` and its values), for
/// programs with complete handlers or task values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JoinLayout {
    /// `sizeof(ws_frame)`.
    pub frame_bytes: usize,
    /// Bytes of one value (0 when tasks hand none: the program only joins).
    pub value_bytes: usize,
}

/// `join_frame` of a task record whose value goes to the host (the roots).
pub const JOIN_ROOT: u32 = u32::MAX;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_decode_from_little_endian_device_bytes() {
        assert_eq!(i32::from_device_bytes(&(-7i32).to_le_bytes()), -7);
        assert_eq!(u64::from_device_bytes(&[1, 0, 0, 0, 0, 0, 0, 1]), (1u64 << 56) | 1);
        assert_eq!(f64::from_device_bytes(&2.5f64.to_le_bytes()), 2.5);
        assert!(bool::from_device_bytes(&[1]));
    }

    #[test]
    fn compound_values_decode_from_their_c_layout() {
        let mut out = [0u8; 16];
        (3u8, Some(-2i32)).write_device_bytes(&mut out);
        assert_eq!(<(u8, Option<i32>)>::from_device_bytes(&out), (3, Some(-2)));
        let mut out = [0u8; 12];
        [Some(1u16), None, Some(7)].write_device_bytes(&mut out);
        assert_eq!(<[Option<u16>; 3]>::from_device_bytes(&out), [Some(1), None, Some(7)]);
    }
}
