//! Where a handler's spawns go natively: the `ctx.spawn` of a program's generated `Ctx`
//! pushes here directly (a concrete type rather than a callback, so the push is inlined into
//! the handler), and the CPU backend then runs what the list holds (`cpu/tree.rs`). Part of
//! the contract ([`crate::program::Program::execute`]), so it imports no backend.

/// The tasks spawned by a handler, in spawn order. A plain vector, so that a push costs a
/// store and an increment: a pool thread's handlers spawn into one that it keeps, and takes
/// away whole when it has tasks to wait for (reusing the memory of lists given back,
/// `cpu/workers.rs`); a stack of detached tasks is one too (`cpu/tree.rs`).
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
