//! Values flowing up the task tree: what a task hands its parent (`#[task(value = T)]`) and
//! the device layout of the frames that collect them.

use std::fmt::Debug;

/// A type a task may hand its parent: a scalar, read back from device memory for the roots.
pub trait TaskValue: Copy + Default + Send + Sync + Debug + 'static {
    /// Bytes of the value on the device (0 for `()`).
    const DEVICE_BYTES: usize;
    /// Decodes the device image (`DEVICE_BYTES` long, little-endian).
    fn from_device_bytes(bytes: &[u8]) -> Self;
}

macro_rules! scalar_value {
    ($($t:ty),*) => {$(
        impl TaskValue for $t {
            const DEVICE_BYTES: usize = core::mem::size_of::<$t>();
            #[inline]
            fn from_device_bytes(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes[..Self::DEVICE_BYTES].try_into().expect("value bytes"))
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
}

impl TaskValue for () {
    const DEVICE_BYTES: usize = 0;
    fn from_device_bytes(_: &[u8]) -> Self {}
}

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
}
