//! Where a handler's spawns go on the CPU backend: the `ctx.spawn` of a program's generated
//! `Ctx` pushes here directly (a concrete type rather than a callback, so the push is
//! inlined into the handler), and the backend then runs what the list holds.

use std::mem::MaybeUninit;

/// The tasks spawned by a handler, in spawn order. A plain vector, so that a push costs a
/// store and an increment: a pool thread's handlers spawn into one that it keeps, and takes
/// away whole when it has tasks to wait for (reusing the memory of lists given back,
/// `workers.rs`); a stack of detached tasks is one too (`tree.rs`).
pub struct Spawned<T>(Vec<T>);

impl<T> Spawned<T> {
    /// Adds a task (what `ctx.spawn` does).
    #[inline]
    pub fn push(&mut self, task: T) {
        self.0.push(task);
    }

    pub(crate) fn new() -> Self {
        Spawned(Vec::new())
    }

    pub(crate) fn tasks(&self) -> &[T] {
        &self.0
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn pop(&mut self) -> Option<T> {
        self.0.pop()
    }

    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }

    /// Takes the first `n` tasks.
    pub(crate) fn take_first(&mut self, n: usize) -> Spawned<T> {
        Spawned(self.0.drain(..n).collect())
    }
}

impl<T> Default for Spawned<T> {
    fn default() -> Self {
        Spawned::new()
    }
}

impl<T: Copy> Spawned<T> {
    /// Appends the tasks of `other` from `at` on, taking them from there.
    pub(crate) fn move_from(&mut self, other: &mut Spawned<T>, at: usize) {
        self.0.extend_from_slice(&other.0[at..]);
        other.0.truncate(at);
    }
}

/// The children a task waits for: up to `FEW` of them copied onto the waiting call's stack
/// (what fork-join programs spawn; the handler's list is then cleared, not handed over, which
/// saves taking and giving back a list per task), or a list taken whole.
pub(crate) enum Children<T> {
    Few([MaybeUninit<T>; FEW], usize),
    List(Spawned<T>),
}

/// Children kept on the stack (`Children::Few`) up to this many.
pub(crate) const FEW: usize = 2;

impl<T: Copy> Children<T> {
    /// Copies the tasks of `list` (at most `FEW`) and clears it.
    #[inline]
    pub fn few_from(list: &mut Spawned<T>) -> Children<T> {
        debug_assert!(list.len() <= FEW);
        let mut tasks = [const { MaybeUninit::uninit() }; FEW];
        let n = list.len();
        // A loop over `FEW` places, not `n` tasks: the compiler unrolls it into a few moves
        // where a loop over `n` would become a call to `memcpy`.
        for (i, slot) in tasks.iter_mut().enumerate() {
            if i < n {
                slot.write(list.0[i]);
            }
        }
        list.clear();
        Children::Few(tasks, n)
    }

    #[inline]
    pub fn tasks(&self) -> &[T] {
        match self {
            // SAFETY: the first `n` were written by `few_from`.
            Children::Few(tasks, n) => unsafe { std::slice::from_raw_parts(tasks.as_ptr().cast::<T>(), *n) },
            Children::List(list) => list.tasks(),
        }
    }
}
