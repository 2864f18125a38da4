//! Result counters: what a `#[counters]` struct holds ([`Sum`], [`Max`], [`Min`] cells) and
//! how each is kept on the device, as one `u64` slot folded into by every worker at the end.

use std::fmt::Debug;

/// How a counter combines the values of different workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduce {
    /// Added up, wrapping ([`Sum`]).
    Sum,
    /// The largest kept ([`Max`]).
    Max,
    /// The smallest kept ([`Min`]).
    Min,
}

/// One device counter slot: a `u64` that every worker's local value is folded into with an
/// atomic at the end of the run. `#[megakernel]` lists one per field of the `#[counters]`
/// struct ([`CounterSet::SLOTS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterSlot {
    /// The field's name.
    pub name: &'static str,
    /// How workers' values combine.
    pub reduce: Reduce,
    /// Whether the counter's integer type is signed (selects signed atomics and sentinels).
    pub signed: bool,
}

impl CounterSlot {
    /// The value the device slot starts from: the identity of its reduction, as the
    /// device atomics see it (signed values sign-extended to 64 bits).
    pub fn initial_bits(&self) -> u64 {
        match (self.reduce, self.signed) {
            (Reduce::Sum, _) => 0,
            (Reduce::Max, false) => 0,
            (Reduce::Max, true) => i64::MIN as u64,
            (Reduce::Min, false) => u64::MAX,
            (Reduce::Min, true) => i64::MAX as u64,
        }
    }
}

/// The result counters of a program: a struct of [`Sum`], [`Max`] and [`Min`] fields (its
/// `#[counters]` struct, for which `#[megakernel]` implements this trait), or `()`. Each
/// worker keeps its own copy; the run's [`Output::counters`](crate::Output::counters) is
/// their merge.
pub trait CounterSet: Default + Clone + Send + Debug + 'static {
    /// One slot per field, in declaration order (the device slot order).
    const SLOTS: &'static [CounterSlot];
    /// Folds another worker's counters into these.
    fn merge(&mut self, other: &Self);
    /// Rebuilds the counters from the device slots after the run.
    fn from_slots(slots: &[u64]) -> Self;
}

impl CounterSet for () {
    const SLOTS: &'static [CounterSlot] = &[];
    fn merge(&mut self, _: &Self) {}
    fn from_slots(_: &[u64]) -> Self {}
}

/// A counter cell: what one field of a `#[counters]` struct holds ([`Sum`], [`Max`] or
/// [`Min`]).
pub trait CounterCell: Copy + Default + Debug + Send + 'static {
    /// Folds another worker's cell into this one.
    fn merge(&mut self, other: &Self);
    /// Rebuilds the cell from its device slot.
    fn from_slot(bits: u64) -> Self;
}

/// Integer types a counter may hold: `u8` to `u64`, `usize`, `i8` to `i64` and `isize`.
pub trait CounterInt: Copy + Default + Debug + Send + Ord + 'static {
    /// The type's least value ([`Max`]'s start).
    const MIN: Self;
    /// The type's greatest value ([`Min`]'s start).
    const MAX: Self;
    /// `self + other`, wrapping (sums wrap as in a release build).
    fn wrapping_add_(self, other: Self) -> Self;
    /// The value from the low bits of a slot (sums: truncation).
    fn from_bits_truncating(bits: u64) -> Self;
    /// The value of a slot that holds the type's value extended to 64 bits (min / max).
    fn from_bits_extended(bits: u64) -> Self;
}

macro_rules! counter_int {
    ($($t:ty => $wide:ty),*) => {$(
        impl CounterInt for $t {
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            #[inline]
            fn wrapping_add_(self, other: Self) -> Self { self.wrapping_add(other) }
            #[inline]
            fn from_bits_truncating(bits: u64) -> Self { bits as $t }
            #[inline]
            fn from_bits_extended(bits: u64) -> Self {
                // Sentinels (no worker touched the slot) are the wide type's extremes;
                // clamp them to this type's extremes, which are the CPU backend's defaults.
                (bits as $wide).clamp(<$t>::MIN as $wide, <$t>::MAX as $wide) as $t
            }
        }
    )*};
}
counter_int!(u8 => u64, u16 => u64, u32 => u64, u64 => u64, usize => u64,
             i8 => i64, i16 => i64, i32 => i64, i64 => i64, isize => i64);

/// A counter that sums the values added by every task (wrapping on overflow).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sum<T>(T);

/// A counter that keeps the largest value offered by any task (starts at `T::MIN`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Max<T>(T);

/// A counter that keeps the smallest value offered by any task (starts at `T::MAX`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Min<T>(T);

impl<T: CounterInt> Sum<T> {
    /// Adds `value` (handlers: `ctx.counters.name.add(v)`).
    #[inline]
    pub fn add(&mut self, value: T) {
        self.0 = self.0.wrapping_add_(value);
    }
    /// The total.
    pub fn get(&self) -> T {
        self.0
    }
}

impl<T: CounterInt> Max<T> {
    /// Offers `value` (handlers: `ctx.counters.name.max(v)`).
    #[inline]
    pub fn max(&mut self, value: T) {
        self.0 = self.0.max(value);
    }
    /// The largest value offered, or `T::MIN` if none was.
    pub fn get(&self) -> T {
        self.0
    }
}

impl<T: CounterInt> Min<T> {
    /// Offers `value` (handlers: `ctx.counters.name.min(v)`).
    #[inline]
    pub fn min(&mut self, value: T) {
        self.0 = self.0.min(value);
    }
    /// The smallest value offered, or `T::MAX` if none was.
    pub fn get(&self) -> T {
        self.0
    }
}

impl<T: CounterInt> Default for Max<T> {
    fn default() -> Self {
        Max(T::MIN)
    }
}

impl<T: CounterInt> Default for Min<T> {
    fn default() -> Self {
        Min(T::MAX)
    }
}

impl<T: CounterInt> CounterCell for Sum<T> {
    fn merge(&mut self, other: &Self) {
        self.add(other.0)
    }
    fn from_slot(bits: u64) -> Self {
        Sum(T::from_bits_truncating(bits))
    }
}

impl<T: CounterInt> CounterCell for Max<T> {
    fn merge(&mut self, other: &Self) {
        self.max(other.0)
    }
    fn from_slot(bits: u64) -> Self {
        Max(T::from_bits_extended(bits))
    }
}

impl<T: CounterInt> CounterCell for Min<T> {
    fn merge(&mut self, other: &Self) {
        self.min(other.0)
    }
    fn from_slot(bits: u64) -> Self {
        Min(T::from_bits_extended(bits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_merge_and_decode_like_the_device() {
        let mut a = Sum::<u32>::default();
        a.add(u32::MAX);
        a.add(2);
        assert_eq!(a.get(), 1, "sums wrap");
        assert_eq!(Sum::<i32>::from_slot((-5i64) as u64).get(), -5);

        let slot = CounterSlot { name: "m", reduce: Reduce::Max, signed: true };
        assert_eq!(Max::<i32>::from_slot(slot.initial_bits()).get(), i32::MIN);
        let slot = CounterSlot { name: "m", reduce: Reduce::Min, signed: false };
        assert_eq!(Min::<u16>::from_slot(slot.initial_bits()).get(), u16::MAX);
        let mut m = Max::<i64>::default();
        m.merge(&Max(-3));
        assert_eq!(m.get(), -3);
    }
}
