//! Running a task tree on the pool: a task is a call that runs its spawn handler, runs its
//! children in parallel (`rayon::join`, halving the list), and then its complete handler with
//! their values; a complete handler that spawns makes the task wait again, one round on.
//!
//! Children of a task without a complete handler are *detached*: nobody waits for their
//! values. They still run inside their parent's call, after its value is known (so the run
//! ends when everything has run), and a single detached child runs in a loop rather than a
//! nested call, so chains of any length use no stack. Nested calls (a task waiting for its
//! children) use the thread's stack; past a red zone it grows on the heap (`stacker`), so a
//! deep tree never overflows it.

use super::workers::{Slots, Worker};
use crate::error::Error;
use crate::program::Program;
use smallvec::SmallVec;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Children (and their values) kept on the stack up to this many.
type Few<T> = SmallVec<[T; 8]>;

/// How often (in levels of nesting) a call checks that the stack has room, and how much room
/// it wants: enough for that many levels of calls in between.
const CHECK_STACK_EVERY: u32 = 16;
const STACK_RED_ZONE: usize = 256 << 10;
const STACK_SEGMENT: usize = 16 << 20;

/// One run of program `P`.
pub(crate) struct Run<'a, P: Program> {
    params: &'a P::Params,
    buffers: &'a P::Buffers,
    workers: Slots<P::Counters>,
    /// Set by the first failure: every task still to run returns at once.
    abort: AtomicBool,
    failure: Mutex<Option<Error>>,
}

/// What a run leaves: each thread's counters and statistics, and the first failure.
pub(crate) struct Outcome<C> {
    pub workers: Vec<Worker<C>>,
    pub failure: Option<Error>,
}

impl<'a, P: Program> Run<'a, P> {
    pub fn new(params: &'a P::Params, buffers: &'a P::Buffers, threads: usize) -> Self {
        Run { params, buffers, workers: Slots::new(threads), abort: AtomicBool::new(false), failure: Mutex::new(None) }
    }

    /// Runs the roots side by side; their values in root order. Call on the pool.
    pub fn roots(&self, roots: &[P::Task]) -> Vec<P::Value> {
        let mut values = vec![P::Value::default(); roots.len()];
        self.all(Slots::<P::Counters>::here(), roots, &mut values, 0);
        values
    }

    /// Tasks run so far (from any thread, while the run goes on).
    pub fn tasks_published(&self) -> u64 {
        self.workers.tasks_published()
    }

    pub fn finish(self) -> Outcome<P::Counters> {
        let failure = self.failure.into_inner().unwrap_or_else(|e| e.into_inner());
        Outcome { workers: self.workers.into_inner(), failure }
    }

    /// Runs `tasks` in parallel, each value into the same place of `values`. `me` is the
    /// calling thread's index (a child stolen by another thread learns that one's).
    fn all(&self, me: usize, tasks: &[P::Task], values: &mut [P::Value], depth: u32) {
        match tasks.len() {
            0 => {}
            1 => values[0] = self.task(me, tasks[0], depth),
            2 => {
                // The common case of binary fork-join, without slicing.
                let (a, b) = rayon::join(|| self.task(me, tasks[0], depth), || self.task(self.runner(me), tasks[1], depth));
                values[0] = a;
                values[1] = b;
            }
            n => {
                let (left, right) = tasks.split_at(n / 2);
                let (left_values, right_values) = values.split_at_mut(n / 2);
                rayon::join(|| self.all(me, left, left_values, depth), || self.all(self.runner(me), right, right_values, depth));
            }
        }
    }

    /// In the second half of a `join` forked by thread `me`: the thread running it, counted
    /// as a steal when it is another one.
    fn runner(&self, me: usize) -> usize {
        let runner = Slots::<P::Counters>::here();
        if runner != me {
            self.workers.with(runner, |w| w.steals += 1);
        }
        runner
    }

    /// Runs `task` and everything it spawns; its value.
    fn task(&self, me: usize, task: P::Task, depth: u32) -> P::Value {
        if depth % CHECK_STACK_EVERY == 0 {
            stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.task_here(me, task, depth))
        } else {
            self.task_here(me, task, depth)
        }
    }

    fn task_here(&self, me: usize, task: P::Task, depth: u32) -> P::Value {
        let mut detached = Few::new();
        let value = self.complete(me, task, depth, &mut detached);
        // Detached descendants: a single one in this loop, several in parallel.
        loop {
            match detached.len() {
                0 => return value,
                1 => {
                    let next = detached.pop().expect("one detached child");
                    self.complete(me, next, depth + 1, &mut detached);
                }
                n => {
                    let mut ignored: Few<P::Value> = SmallVec::from_elem(P::Value::default(), n);
                    self.all(me, &detached, &mut ignored, depth + 1);
                    return value;
                }
            }
        }
    }

    /// Runs `task`'s spawn handler and, if it has a complete handler and spawned, waits for
    /// the children and runs the complete handler, round after round. Returns the task's
    /// value; the children nobody waits for (those of a task without a complete handler) are
    /// left in `detached` (empty on entry).
    fn complete(&self, me: usize, task: P::Task, depth: u32, detached: &mut Few<P::Task>) -> P::Value {
        if self.abort.load(Ordering::Relaxed) {
            return P::Value::default();
        }
        let Some(value) = self.handler(me, |w, spawn| {
            w.tasks += 1;
            P::execute(&task, self.params, self.buffers, &mut w.counters, spawn)
        }, detached) else {
            return P::Value::default();
        };
        let Some(max) = P::complete_of(&task) else { return value };
        if detached.is_empty() {
            return value;
        }
        // The task waits for these children: they are not detached.
        let mut children = std::mem::take(detached);
        let keeps_values = max != u32::MAX;
        for round in 1.. {
            if children.len() > max as usize {
                let name = P::TASK_NAMES.get(task_index::<P>(&task)).copied().unwrap_or("?");
                self.fail(Error::TooManyChildren { task: name, max_children: max });
                return P::Value::default();
            }
            let mut values: Few<P::Value> = SmallVec::from_elem(P::Value::default(), children.len());
            self.workers.with(me, |w| {
                w.waiting += 1;
                w.peak_waiting = w.peak_waiting.max(w.waiting);
            });
            self.all(me, &children, &mut values, depth + 1);
            self.workers.with(me, |w| w.waiting -= 1);
            if self.abort.load(Ordering::Relaxed) {
                return P::Value::default();
            }
            let received: &[P::Value] = if keeps_values { &values } else { &[] };
            children.clear();
            let Some(value) = self.handler(me, |w, spawn| {
                w.completions += 1;
                P::complete(&task, received, round, self.params, self.buffers, &mut w.counters, spawn)
            }, &mut children) else {
                return P::Value::default();
            };
            if children.is_empty() {
                return value;
            }
        }
        unreachable!("the rounds end when a complete handler spawns nothing")
    }

    /// Runs a handler on this thread's slot, collecting what it spawns into `spawned`;
    /// `None` after a panic, which stops the run.
    fn handler<R>(
        &self,
        me: usize,
        f: impl FnOnce(&mut Worker<P::Counters>, &mut dyn FnMut(P::Task)) -> R,
        spawned: &mut Few<P::Task>,
    ) -> Option<R> {
        let outcome = self.workers.with(me, |w| super::panics::catch(|| f(w, &mut |child| spawned.push(child))));
        match outcome {
            Ok(r) => Some(r),
            Err(message) => {
                self.fail(Error::TaskPanicked { message });
                None
            }
        }
    }

    /// Keeps the first failure and stops the run.
    fn fail(&self, error: Error) {
        self.failure.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(error);
        self.abort.store(true, Ordering::Relaxed);
    }
}

/// The tag of `task` (its index in `Program::TASK_NAMES`), from its device encoding.
fn task_index<P: Program>(task: &P::Task) -> usize {
    let mut bytes = vec![0u8; P::TASK_BYTES];
    P::encode_task(task, &mut bytes);
    u32::from_le_bytes(bytes[..4].try_into().expect("tag")) as usize
}
