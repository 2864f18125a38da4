//! Where a handler's spawns go on the CPU backend: the `ctx.spawn` of a program's generated
//! `Ctx` pushes here directly (a concrete type rather than a callback, so the push is
//! inlined into the handler), and the backend then runs what the list holds. The jobs a
//! handler records (`ctx.merge(..)` and the other data-parallel building blocks,
//! `parallel/`) go here too, and so do the results of the jobs of the round before, which
//! a complete handler reads with `ctx.result(k)`.

use crate::parallel::{Job, RESULT_WORDS};
use std::mem::MaybeUninit;

/// The tasks spawned by a handler, in spawn order. A plain vector, so that a push costs a
/// store and an increment: a pool thread's handlers spawn into one that it keeps, and takes
/// away whole when it has tasks to wait for (reusing the memory of lists given back,
/// `workers.rs`); a stack of detached tasks is one too (`tree.rs`).
pub struct Spawned<T> {
    tasks: Vec<T>,
    /// Jobs the handler recorded (rare: most handlers record none, and then this costs
    /// nothing but its empty vector).
    jobs: Vec<Job>,
    /// Result words the recorded jobs will give.
    result_words: usize,
    /// What the jobs of the round before gave, for the complete handler (`ctx.result(k)`).
    results: [u64; RESULT_WORDS],
}

impl<T> Spawned<T> {
    /// Adds a task (what `ctx.spawn` does).
    #[inline]
    pub fn push(&mut self, task: T) {
        self.tasks.push(task);
    }

    /// Adds a job giving `words` result words (`parallel::record`).
    pub fn push_job(&mut self, job: Job, words: usize) {
        self.jobs.push(job);
        self.result_words += words;
    }

    /// Result words of the jobs recorded so far: the next job's first one.
    pub fn result_words_used(&self) -> usize {
        self.result_words
    }

    /// Result word `k` of the jobs of the round before (0 where they gave fewer), as
    /// `ctx.result(k)` reads it: an index past `RESULT_WORDS` panics with Rust's message.
    #[inline]
    #[track_caller]
    pub fn result(&self, k: usize) -> u64 {
        self.results[k]
    }

    pub(crate) fn new() -> Self {
        Spawned { tasks: Vec::new(), jobs: Vec::new(), result_words: 0, results: [0; RESULT_WORDS] }
    }

    /// The recorded jobs.
    #[cfg(test)]
    pub(crate) fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    /// Whether the handler recorded jobs.
    #[inline]
    pub(crate) fn has_jobs(&self) -> bool {
        !self.jobs.is_empty()
    }

    /// Takes the recorded jobs away (their results come back through `set_results`).
    pub(crate) fn take_jobs(&mut self) -> Vec<Job> {
        self.result_words = 0;
        std::mem::take(&mut self.jobs)
    }

    /// What the next complete handler run on this list reads with `ctx.result(k)`.
    pub(crate) fn set_results(&mut self, results: [u64; RESULT_WORDS]) {
        self.results = results;
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
        self.jobs.clear();
        self.result_words = 0;
    }

    /// Takes the first `n` tasks.
    pub(crate) fn take_first(&mut self, n: usize) -> Spawned<T> {
        Spawned { tasks: self.tasks.drain(..n).collect(), ..Spawned::new() }
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
        list.tasks.clear();
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
