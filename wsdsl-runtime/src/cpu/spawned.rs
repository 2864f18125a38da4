//! Where a handler's spawns go on the CPU backend: the `ctx.spawn` of a program's generated
//! `Ctx` pushes here directly (a concrete type rather than a callback, so the push is
//! inlined into the handler), and the backend then runs what the list holds.

use super::limits::Stop;
use std::mem::MaybeUninit;

/// The tasks spawned by a handler, in spawn order. A plain vector, so that a push costs a
/// store and an increment: a pool thread's handlers spawn into one that it keeps, and takes
/// away whole when it has tasks to wait for (reusing the memory of lists given back,
/// `workers.rs`); a stack of detached tasks is one too (`tree.rs`). It holds at most `limit`
/// tasks, the run's bound on tasks held (`limits.rs`): checked only when the vector must
/// grow, so that a handler spawning in an endless loop stops there.
pub struct Spawned<T> {
    tasks: Vec<T>,
    limit: usize,
}

impl<T> Spawned<T> {
    /// Adds a task (what `ctx.spawn` does).
    #[inline]
    pub fn push(&mut self, task: T) {
        if self.tasks.len() == self.tasks.capacity() {
            self.make_room();
        }
        self.tasks.push(task);
    }

    /// Grows the list, or stops the handler: at the bound, or when memory runs out (a
    /// failed allocation would abort the process).
    #[cold]
    #[inline(never)]
    fn make_room(&mut self) {
        let len = self.tasks.len();
        if len >= self.limit {
            Stop::TooManyTasks { limit: self.limit as u64 }.raise();
        }
        let more = len.max(4).min(self.limit - len);
        if self.tasks.try_reserve(more).is_err() {
            Stop::NoMemory { what: "the tasks a handler spawned", bytes: (more * std::mem::size_of::<T>()) as u64 }.raise();
        }
    }

    pub(crate) fn new() -> Self {
        Self::with_limit(usize::MAX)
    }

    /// An empty list that holds at most `limit` tasks.
    pub(crate) fn with_limit(limit: usize) -> Self {
        Spawned { tasks: Vec::new(), limit }
    }

    pub(crate) fn tasks(&self) -> &[T] {
        &self.tasks
    }

    pub(crate) fn len(&self) -> usize {
        self.tasks.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    pub(crate) fn pop(&mut self) -> Option<T> {
        self.tasks.pop()
    }

    pub(crate) fn clear(&mut self) {
        self.tasks.clear();
    }

    /// Takes the first `n` tasks.
    pub(crate) fn take_first(&mut self, n: usize) -> Spawned<T> {
        Spawned { tasks: self.tasks.drain(..n).collect(), limit: self.limit }
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
        self.tasks.extend_from_slice(&other.tasks[at..]);
        other.tasks.truncate(at);
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
                slot.write(list.tasks[i]);
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
