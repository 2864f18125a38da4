//! Where a handler's spawns go natively: the `ctx.spawn` of a program's generated `Ctx`
//! pushes here directly (a concrete type rather than a callback, so the push is inlined into
//! the handler), and the CPU backend then runs what the list holds (`cpu/tree.rs`). Part of
//! the contract ([`crate::contract::Program::execute`]); the one thing it takes from a backend
//! is how a push past the CPU backend's bound on tasks held stops the handler
//! (`cpu/limits.rs`). The jobs a handler records (`ctx.merge(..)` and the other
//! data-parallel building blocks, `contract/jobs/`) go here too, and so do the results of the jobs
//! of the round before, which a complete handler reads with `ctx.result(k)`.

use super::jobs::{Job, RESULT_WORDS};
use crate::error::Error;

/// The tasks spawned by a handler, in spawn order. A plain vector, so that a push costs a
/// store and an increment: a pool thread's handlers spawn into one that it keeps, and takes
/// away whole when it has tasks to wait for (reusing the memory of lists given back,
/// `cpu/workers.rs`); a stack of detached tasks is one too (`cpu/tree.rs`). It holds at most
/// `limit` tasks, the run's bound on tasks held (`cpu/limits.rs`): checked only when the
/// vector must grow, so that a handler spawning in an endless loop stops there.
pub struct Spawned<T> {
    tasks: Vec<T>,
    limit: usize,
    /// Priorities, jobs and results, which most handlers never use: behind a box that is
    /// allocated only by the first use, so that a list stays three words and a limit, and
    /// moving it or a task's children that hold it costs what it did without them.
    rare: Option<Box<Rare>>,
}

/// The parts of a [`Spawned`] that only some programs use.
#[derive(Default)]
struct Rare {
    /// `(index, priority)` of the tasks pushed with a priority (`order = priority`); the
    /// others keep their parent's. Empty in unordered programs, whose handlers cannot call
    /// `spawn_with_priority`.
    priorities: Vec<(u32, u32)>,
    /// Jobs the handler recorded.
    jobs: Vec<Job>,
    /// Result words the recorded jobs will give.
    result_words: usize,
    /// What the jobs of the round before gave, for the complete handler (`ctx.result(k)`).
    results: [u64; RESULT_WORDS],
}

/// What `ctx.result(k)` reads where no job ran.
static NO_RESULTS: [u64; RESULT_WORDS] = [0; RESULT_WORDS];

impl<T> Spawned<T> {
    /// Adds a task (what `ctx.spawn` does).
    #[inline]
    pub fn push(&mut self, task: T) {
        if self.tasks.len() == self.tasks.capacity() {
            self.make_room();
        }
        self.tasks.push(task);
    }

    /// Adds a task in band `priority` (what `ctx.spawn_with_priority` does).
    #[inline]
    pub fn push_with_priority(&mut self, priority: u32, task: T) {
        let at = self.tasks.len() as u32;
        self.push(task);
        self.rare_mut().priorities.push((at, priority));
    }

    /// The tasks with their bands, those without one of their own in `parent`'s.
    pub(crate) fn with_priorities(&self, parent: u32) -> impl Iterator<Item = (u32, &T)> + '_ {
        let mut given = self.rare.as_ref().map_or(&[][..], |r| &r.priorities[..]).iter().peekable();
        self.tasks.iter().enumerate().map(move |(i, t)| match given.next_if(|(at, _)| *at as usize == i) {
            Some(&(_, p)) => (p, t),
            None => (parent, t),
        })
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

    /// Adds a job giving `words` result words (`parallel::record`).
    pub fn push_job(&mut self, job: Job, words: usize) {
        let rare = self.rare_mut();
        rare.jobs.push(job);
        rare.result_words += words;
    }

    /// The rare parts, allocated at their first use.
    fn rare_mut(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Box::default)
    }

    /// Result words of the jobs recorded so far: the next job's first one.
    pub fn result_words_used(&self) -> usize {
        self.rare.as_ref().map_or(0, |r| r.result_words)
    }

    /// Result word `k` of the jobs of the round before (0 where they gave fewer), as
    /// `ctx.result(k)` reads it: an index past `RESULT_WORDS` panics with Rust's message.
    #[inline]
    #[track_caller]
    pub fn result(&self, k: usize) -> u64 {
        self.rare.as_ref().map_or(&NO_RESULTS, |r| &r.results)[k]
    }

    /// The recorded jobs.
    #[cfg(test)]
    pub(crate) fn jobs(&self) -> &[Job] {
        self.rare.as_ref().map_or(&[], |r| &r.jobs)
    }

    /// Whether the handler recorded jobs.
    #[inline]
    pub(crate) fn has_jobs(&self) -> bool {
        self.rare.as_ref().is_some_and(|r| !r.jobs.is_empty())
    }

    /// Takes the recorded jobs away (their results come back through `set_results`); an
    /// empty vector, which costs no allocation, where there are none.
    #[inline]
    pub(crate) fn take_jobs(&mut self) -> Vec<Job> {
        match &mut self.rare {
            Some(rare) if !rare.jobs.is_empty() => {
                rare.result_words = 0;
                std::mem::take(&mut rare.jobs)
            }
            _ => Vec::new(),
        }
    }

    /// What the next complete handler run on this list reads with `ctx.result(k)`, until
    /// `clear_results`.
    pub(crate) fn set_results(&mut self, results: &[u64; RESULT_WORDS]) {
        self.rare_mut().results = *results;
    }

    /// Makes `ctx.result(k)` read 0 again (after `set_results`).
    pub(crate) fn clear_results(&mut self) {
        if let Some(rare) = &mut self.rare {
            rare.results = [0; RESULT_WORDS];
        }
    }

    pub(crate) fn new() -> Self {
        Self::with_limit(usize::MAX)
    }

    /// An empty list that holds at most `limit` tasks.
    pub(crate) fn with_limit(limit: usize) -> Self {
        Spawned { tasks: Vec::new(), limit, rare: None }
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

    /// Keeps the first `len` tasks (the CPU backend's list of a thread, on which a task's
    /// children sit above those of the tasks waiting further up, `cpu/tree.rs`).
    #[inline]
    pub(crate) fn truncate(&mut self, len: usize) {
        self.tasks.truncate(len);
    }

    #[inline]
    pub(crate) fn clear(&mut self) {
        self.tasks.clear();
        if let Some(rare) = &mut self.rare {
            rare.priorities.clear();
            rare.jobs.clear();
            rare.result_words = 0;
        }
    }

    /// Takes the first `n` tasks.
    pub(crate) fn take_first(&mut self, n: usize) -> Spawned<T> {
        debug_assert!(self.rare.as_ref().is_none_or(|r| r.priorities.is_empty()), "lists of ordered programs are not split");
        Spawned { tasks: self.tasks.drain(..n).collect(), ..Spawned::with_limit(self.limit) }
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

/// Why the backend itself stopped a handler in the middle: the payload of the panic that
/// unwinds out of it, never a panic of the handler's own (the CPU backend's panic hook lets it pass unreported).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Stop {
    /// A handler's list of spawned tasks reached the bound on tasks held.
    TooManyTasks { limit: u64 },
    /// Memory for `what` could not be had.
    NoMemory { what: &'static str, bytes: u64 },
}

impl Stop {
    /// Unwinds out of the running handler with this reason.
    #[cold]
    pub fn raise(self) -> ! {
        std::panic::resume_unwind(Box::new(self))
    }

    pub fn into_error(self) -> Error {
        match self {
            Stop::TooManyTasks { limit } => Error::too_many_held(limit, limit + 1),
            Stop::NoMemory { what, bytes } => Error::OutOfMemory { what, bytes, file: None },
        }
    }
}
