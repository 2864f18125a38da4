//! `ReadOnly<T>`, the arrays handlers only read: shared by their clones, and named by an id
//! so that the GPU backend can keep their device copies between runs. The module notes named
//! below are `buffer/mod.rs`'s.

use super::elem::BufferElem;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// An array handlers only read: `len()` and `get(i)`. Cloning shares the elements; the
/// GPU backend keeps one device copy per device while any clone lives (see the module notes).
pub struct ReadOnly<T: BufferElem> {
    pub(super) values: Arc<[T]>,
    /// Names the device copies; a fresh one per array built, shared by its clones.
    pub(super) id: u64,
    /// Dies with the last clone, telling the runtime that the device copies can go.
    pub(super) alive: Arc<()>,
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
