//! Running a task tree on the pool: a task is a call that runs its spawn handler, runs its
//! children (in parallel when other threads need work, see `all`), and then its complete
//! handler with their values; a complete handler that spawns makes the task wait again, one
//! round on.
//!
//! Task creation is lazy: a task that waits for a few children leaves them on its thread's
//! list of spawned tasks, and while no other thread needs work (`forks_here`) each runs
//! there as a plain nested call, reading itself from the list (`task`). Only when the
//! thread's deque has nothing left for thieves are the children still to run copied out and
//! forked with `rayon::join`, where an idle thread can take half. A subtree that no thread
//! asks for is so one recursion on one thread, whatever its size, at little more than the
//! recursion written by hand costs; on one thread nothing is ever forked.
//!
//! Children of a task without a complete handler are *detached*: nobody waits for their
//! values. They still run inside their parent's call, after its value is known (so the run
//! ends when everything has run), from a stack of tasks rather than as nested calls, so
//! chains and trees of them of any depth use no thread stack. Nested calls (a task waiting
//! for its children) use the thread's stack; past a red zone it grows on the heap
//! (`stacker`), so a deep tree never overflows it (and memory that runs out for it is an
//! error, `Error::OutOfMemory`). Tasks held at once are counted against the run's bound
//! (`limits.rs`).

use crate::contract::value::TaskValue;
use super::limits::Held;
use crate::contract::spawned::Stop;
use super::panics::Caught;
use crate::contract::spawned::Spawned;
use super::park::Inside;
use super::workers::{here, Slots, Worker};
use crate::error::Error;
use crate::contract::jobs::{Job, NO_RESULT, RESULT_WORDS};
use crate::contract::program::too_many_children;
use crate::contract::Program;
use rayon::prelude::*;
use rayon::FnContext;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Children a task waits for whose values are kept on the stack, up to this many (more go
/// to a vector, `wait`); a task with no more children than this, no jobs, and no more than
/// its complete handler takes, keeps them on its thread's list of spawned tasks (`task`).
const FEW_VALUES: usize = 16;

/// Detached tasks run between two publications of a thread's progress (tasks run as nested
/// calls publish it as often).
const BATCH: u32 = 256;

/// Detached tasks run between two looks at whether others may need work: a task is short,
/// so splitting a few of them later costs others little, while looking costs each task.
const LOOK_FOR_THIEVES_EVERY: u32 = 8;

/// How often (in levels of nesting) a call checks that the stack has room, and how much room
/// it wants: enough for that many levels of calls in between.
const CHECK_STACK_EVERY: u32 = 16;
const STACK_RED_ZONE: usize = 256 << 10;
const STACK_SEGMENT: usize = 16 << 20;

/// One run of program `P`.
pub(crate) struct Run<'a, P: Program> {
    pub(super) params: P::Params,
    pub(super) buffers: &'a P::Buffers,
    /// This run's id (`park.rs`).
    id: u64,
    held: Held,
    workers: Slots<P::Counters, P::Task>,
    /// Set by the first failure: every task still to run returns at once.
    pub(super) abort: AtomicBool,
    failure: Mutex<Option<Error>>,
    /// `eager_depth()`, read once.
    eager_depth: u32,
    /// Whether the pool has more than one thread: with one, nothing is ever forked.
    forks: bool,
}

/// What a run leaves: each thread's counters and statistics, and the first failure.
pub(crate) struct Outcome<C, T> {
    pub workers: Vec<Worker<C, T>>,
    pub failure: Option<Error>,
}

impl<'a, P: Program> Run<'a, P> {
    /// A run of `roots` roots on `threads` threads, holding at most `limit` tasks at once.
    pub fn new(params: P::Params, buffers: &'a P::Buffers, roots: usize, threads: usize, limit: u64) -> Self {
        let id = super::park::new_run_id();
        Run {
            params,
            buffers,
            id,
            held: Held::new(roots, threads, limit),
            workers: Slots::new(threads, id, usize::try_from(limit).unwrap_or(usize::MAX)),
            abort: AtomicBool::new(false),
            failure: Mutex::new(None),
            eager_depth: eager_depth(),
            forks: threads > 1,
        }
    }

    pub fn id(&self) -> u64 {
        self.id
    }

    /// Stops the run with `error` unless it failed already (the watchdog's request).
    pub fn stop_with(&self, error: Error) {
        self.fail(error);
    }

    /// Runs the roots side by side; their values in root order. Call on the pool.
    pub fn roots(&self, roots: &[P::Task]) -> Vec<P::Value> {
        let mut values = vec![MaybeUninit::uninit(); roots.len()];
        self.all(here(), roots, &mut values, 0, self.eager_depth);
        // SAFETY: `all` wrote every value.
        values.into_iter().map(|v| unsafe { v.assume_init() }).collect()
    }

    /// Records a panic that unwound out of the roots (`call`), unless its handler's guard
    /// did already (it has the location; this has only the payload): a handler's, or the
    /// backend's own stop (`limits.rs`).
    pub fn unwound(&self, payload: &(dyn std::any::Any + Send)) {
        match payload.downcast_ref::<Stop>() {
            Some(stop) => self.fail(stop.into_error()),
            None => self.fail(Error::TaskPanicked { message: super::panics::payload_text(payload).to_string() }),
        }
    }

    /// Tasks run so far (from any thread, while the run goes on).
    pub fn tasks_published(&self) -> u64 {
        self.workers.tasks_published()
    }

    pub fn finish(self) -> Outcome<P::Counters, P::Task> {
        let failure = self.failure.into_inner().unwrap_or_else(|e| e.into_inner());
        Outcome { workers: self.workers.into_inner(), failure }
    }

    /// Runs `tasks`, each value into the same place of `values`. `me` is the calling
    /// thread's index (a child stolen by another thread learns that one's). While `eager`
    /// forks are left on the way down from the roots every list is halved with
    /// `rayon::join`; below that, splitting is lazy (`forks_here`): while this thread has a
    /// job in its deque that idle threads can steal, it runs the tasks one after the other,
    /// which costs no more than a call; once that job is gone it forks the rest in two. So a
    /// thread exposes work only when others may need it, and a list is split again as soon
    /// as they took it (a deep, narrow tree is never run on one thread while others wait).
    fn all(&self, me: usize, tasks: &[P::Task], values: &mut [MaybeUninit<P::Value>], depth: u32, eager: u32) {
        for i in 0..tasks.len() {
            let rest = tasks.len() - i;
            if rest >= 2 && self.forks_here(eager) {
                let (left, right) = tasks[i..].split_at(rest / 2);
                let (left_values, right_values) = values[i..].split_at_mut(rest / 2);
                let eager = eager.saturating_sub(1);
                rayon::join_context(
                    |_| self.all(me, left, left_values, depth, eager),
                    |second| self.all(self.runner(second, me), right, right_values, depth, eager),
                );
                return;
            }
            values[i].write(self.given(me, tasks[i], depth, eager));
        }
    }

    /// Whether a task's remaining children (two or more) should go to a `join` rather than
    /// run here one after the other: always while `eager` forks are left, never with one
    /// thread, else when this thread has nothing in its deque for idle threads to take.
    #[inline]
    fn forks_here(&self, eager: u32) -> bool {
        self.forks && (eager > 0 || !others_can_steal())
    }

    /// The thread running the second half of a `join` forked by thread `me`, with the steal
    /// counted when it is another one.
    fn runner(&self, second: FnContext, me: usize) -> usize {
        if !second.migrated() {
            return me;
        }
        let runner = here();
        self.workers.with(runner, |w| w.steals += 1);
        runner
    }

    /// Runs `task` (a root, or a task of a list of its own) and everything it spawns; its
    /// value. It goes on this thread's list of spawned tasks first, where `task` reads it,
    /// and leaves it after: from there on it is counted as the list's (`task`), not as held.
    fn given(&self, me: usize, task: P::Task, depth: u32, eager: u32) -> P::Value {
        let at = self.workers.with(me, |w| {
            w.held -= 1;
            w.spawned.push(task);
            w.spawned.len() - 1
        });
        let value = self.task(me, at, depth, eager);
        self.workers.with(me, |w| w.spawned.truncate(at));
        value
    }

    /// Runs the task at place `at` of this thread's list of spawned tasks and everything it
    /// spawns; its value.
    ///
    /// The common case, a task that waits for a few children and records no jobs, keeps
    /// them where its spawn handler pushed them: on the list, above the children of the
    /// tasks waiting further up. A child runs here, reading itself from the list, until
    /// others may need work (`forks_here`): then the children left are copied out and
    /// forked (`fork_rest`). Children that ran here leave the list as they found it, and so
    /// do other tasks this thread runs while it waits in a `join` (each keeps its children
    /// above what it found), so the places from `base` on hold this task's children until it
    /// completes. Nothing is copied, taken or given back per task, and the handlers and the
    /// bookkeeping between them run in this one function, so a subtree that runs here costs
    /// little more than the same recursion written by hand. The tasks on the list are not
    /// counted as held one by one: the list itself is bounded by the run's bound on tasks
    /// held (`Spawned::push`), and it holds every task of such a subtree that waits or is
    /// still to run. Every other case takes its children away in a list of their own
    /// (`take_children`, `other`), counted as held.
    fn task(&self, me: usize, at: usize, depth: u32, eager: u32) -> P::Value {
        if depth.is_multiple_of(CHECK_STACK_EVERY) && stacker::remaining_stack().is_none_or(|room| room < STACK_RED_ZONE) {
            return self.on_a_new_stack(|| self.task_here(me, at, depth, eager));
        }
        self.task_here(me, at, depth, eager)
    }

    /// `task`, on a stack with room for it: the spawn handler, and the common end of a task
    /// that spawned nothing; what follows for one that did is `spawned`.
    #[inline(always)]
    fn task_here(&self, me: usize, at: usize, depth: u32, eager: u32) -> P::Value {
        let armed = Unwinding { run: self, me };
        // SAFETY: no other reference to the slot is alive, and this one is not used past the
        // handler and the bookkeeping after it (in `spawned`, before the children run).
        let (w, inside) = unsafe { self.workers.slot(me) };
        // Checked after the thread marks itself inside the run: see `park.rs`.
        if self.abort.load(Ordering::Relaxed) {
            std::mem::forget(armed);
            return P::Value::placeholder();
        }
        let task = w.spawned.tasks()[at];
        w.tasks += 1;
        if w.tasks % BATCH as u64 == 0 {
            self.workers.publish(me, w.tasks);
        }
        let base = w.spawned.len();
        let value = P::execute(&task, &self.params, self.buffers, &mut w.counters, &mut w.spawned);
        std::mem::forget(armed);
        if w.spawned.len() == base && !w.spawned.has_jobs() {
            return value;
        }
        self.spawned(me, w, inside, task, value, base, depth, eager)
    }

    /// The rest of `task` for a `task` whose spawn handler, just run on slot `w`, spawned
    /// from `base` on or recorded jobs and returned `value`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn spawned(
        &self,
        me: usize,
        w: &mut Worker<P::Counters, P::Task>,
        inside: Inside,
        task: P::Task,
        value: P::Value,
        base: usize,
        depth: u32,
        eager: u32,
    ) -> P::Value {
        let (n, max) = {
            let n = w.spawned.len() - base;
            match P::complete_of(&task) {
                Some(max) if n <= max as usize && n <= FEW_VALUES && !w.spawned.has_jobs() => {
                    w.wait_on_list();
                    (n, max)
                }
                waits => {
                    let other = self.take_children(w, task, waits, value, base);
                    drop(inside);
                    return self.other(me, *other, depth, eager);
                }
            }
        };
        // The children may fork: the thread is not inside a handler while they do.
        drop(inside);
        let mut values = [const { MaybeUninit::uninit() }; FEW_VALUES];
        for i in 0..n {
            if n - i >= 2 && self.forks_here(eager) {
                self.fork_rest(me, base + i, &mut values[i..n], depth + 1, eager);
                break;
            }
            values[i].write(self.task(me, base + i, depth + 1, eager));
        }
        // SAFETY: every child wrote its value, here or in `fork_rest`.
        let values = unsafe { assume_init(&values[..n]) };
        let received: &[P::Value] = if max == u32::MAX { &[] } else { values };
        let armed = Unwinding { run: self, me };
        // SAFETY: as in `task`; the children's references are gone.
        let (w, inside) = unsafe { self.workers.slot(me) };
        w.spawned.truncate(base);
        if self.abort.load(Ordering::Relaxed) {
            std::mem::forget(armed);
            return P::Value::placeholder();
        }
        w.waiting -= 1;
        w.completions += 1;
        let value = P::complete(&task, received, 1, &self.params, self.buffers, &mut w.counters, &mut w.spawned);
        std::mem::forget(armed);
        if w.spawned.len() == base && !w.spawned.has_jobs() {
            return value;
        }
        // The complete handler spawned or recorded: another round, which waits again.
        let Other { children, jobs, .. } = *self.take_children(w, task, Some(max), value, base);
        drop(inside);
        let children = children.unwrap_or_else(|| self.workers.with(me, |w| w.spare_list()));
        self.wait(me, task, max, children, jobs, 2, depth, eager)
    }

    /// What the spawn or complete handler of `task` (with the complete handler `waits`, if
    /// any) that just ran on slot `w` spawned from `base` on, and the jobs it recorded, taken
    /// away in a list of their own: for a task that is not one for `task`'s common case (it
    /// has no complete handler, recorded jobs, spawned more than that keeps, or more than its
    /// complete handler takes), or a complete handler's next round.
    #[inline(never)]
    fn take_children(&self, w: &mut Worker<P::Counters, P::Task>, task: P::Task, waits: Option<u32>, value: P::Value, base: usize) -> Box<Other<P::Task, P::Value>> {
        let jobs = w.spawned.take_jobs();
        w.held += (w.spawned.len() - base) as i64;
        let children = (w.spawned.len() > base).then(|| {
            let mut children = w.spare_list();
            children.move_from(&mut w.spawned, base);
            children
        });
        if waits.is_some() {
            w.wait();
        }
        self.count_held(w);
        Box::new(Other { task, waits, value, children, jobs })
    }

    /// Goes on with a task that `take_children` took the children of.
    #[inline(never)]
    fn other(&self, me: usize, other: Other<P::Task, P::Value>, depth: u32, eager: u32) -> P::Value {
        let Other { task, waits, value, children, jobs } = other;
        if let Some(max) = waits {
            let children = children.unwrap_or_else(|| self.workers.with(me, |w| w.spare_list()));
            return self.wait(me, task, max, children, jobs, 1, depth, eager);
        }
        // Nobody waits for these jobs: they run before the task's detached children.
        self.jobs(&jobs);
        if let Some(children) = children {
            self.detached(me, children, depth + 1);
        }
        value
    }

    /// Runs the children on this thread's list from `at` on, one for each place of
    /// `values`, forked: copied out first, since the tasks this thread runs meanwhile push
    /// onto the list and may move it.
    #[inline(never)]
    fn fork_rest(&self, me: usize, at: usize, values: &mut [MaybeUninit<P::Value>], depth: u32, eager: u32) {
        let n = values.len();
        let mut tasks = [const { MaybeUninit::<P::Task>::uninit() }; FEW_VALUES];
        let aborted = self.workers.with(me, |w| {
            // A handler's panic caught further down clears the list (`stop`): then nothing
            // runs any more.
            if self.abort.load(Ordering::Relaxed) {
                return true;
            }
            for (slot, task) in tasks.iter_mut().zip(&w.spawned.tasks()[at..at + n]) {
                slot.write(*task);
            }
            // Copied out, they are counted as held until they start (`given`).
            w.held += n as i64;
            false
        });
        if aborted {
            values.fill(MaybeUninit::new(P::Value::placeholder()));
            return;
        }
        // SAFETY: the first `n` were written just above.
        let tasks = unsafe { assume_init(&tasks[..n]) };
        self.all(me, tasks, values, depth, eager);
    }

    /// Runs the detached tasks of `stack` and everything they spawn, depth first, the last
    /// spawned first (the top of the stack is the next to run; nothing waits for detached
    /// tasks, so their order is not the program's to see, as on the GPU). Splitting is lazy
    /// as in `all`: once this thread's deque is empty, the bottom half of the stack (the
    /// oldest tasks' siblings, the largest pieces of work) goes to a `join` where others can
    /// take it.
    fn detached(&self, me: usize, mut stack: Spawned<P::Task>, depth: u32) {
        self.nested(depth, || loop {
            match self.handler(me, |w| self.batch(w, &mut stack)) {
                None | Some(Batch::Done) => return,
                Some(Batch::Full) => {}
                Some(Batch::Split) => {
                    let bottom = stack.take_first(stack.len() / 2);
                    rayon::join_context(
                        |_| self.detached(me, stack, depth + 1),
                        |second| self.detached(self.runner(second, me), bottom, depth + 1),
                    );
                    return;
                }
                Some(Batch::Wait { task, max, children, jobs }) => {
                    self.wait(me, task, max, children, jobs, 1, depth, 0);
                }
                Some(Batch::Jobs(jobs)) => {
                    self.jobs(&jobs);
                }
            }
        })
    }

    /// Runs spawn handlers of detached tasks from the top of `stack`, on this thread's slot
    /// `w`, up to `BATCH` of them (then the slot's progress is published), until the stack
    /// is empty, until it should be split, or until a task waits for the children it
    /// spawned. (Looking at this thread's deque does not run anything, so `Slots::with`
    /// allows it.)
    fn batch(&self, w: &mut Worker<P::Counters, P::Task>, stack: &mut Spawned<P::Task>) -> Batch<P::Task> {
        for i in 0..BATCH {
            if i % LOOK_FOR_THIEVES_EVERY == 0 && stack.len() >= 2 && self.forks_here(0) {
                return Batch::Split;
            }
            let Some(task) = stack.pop() else {
                w.give_back(std::mem::take(stack));
                return Batch::Done;
            };
            if self.abort.load(Ordering::Relaxed) {
                return Batch::Done;
            }
            let above = stack.len();
            w.start();
            P::execute(&task, &self.params, self.buffers, &mut w.counters, stack);
            if stack.len() > above || stack.has_jobs() {
                let jobs = stack.take_jobs();
                w.held += (stack.len() - above) as i64;
                if !self.count_held(w) {
                    return Batch::Done;
                }
                if let Some(max) = P::complete_of(&task) {
                    w.wait();
                    let mut children = w.spare_list();
                    children.move_from(stack, above);
                    return Batch::Wait { task, max, children, jobs };
                }
                if !jobs.is_empty() {
                    // Run outside this slot (they fork on the pool); its children stay here.
                    return Batch::Jobs(jobs);
                }
            }
        }
        Batch::Full
    }

    /// Waits for `children` of `task` (at most `max` of them) and its `jobs`, runs its
    /// complete handler with the children's values and the jobs' results and waits again for
    /// what that spawns and records, round after round from round `first`; the value of its
    /// last round. The general case of `task`'s: any number of children, and jobs.
    #[allow(clippy::too_many_arguments)]
    fn wait(&self, me: usize, task: P::Task, max: u32, mut children: Spawned<P::Task>, mut jobs: Vec<Job>, first: u32, depth: u32, eager: u32) -> P::Value {
        for round in first.. {
            let results = self.jobs(&jobs);
            let n = children.len();
            if n > max as usize {
                self.fail(too_many_children::<P>(task_index::<P>(&task), max));
                return P::Value::placeholder();
            }
            let (mut few, mut many) = ([const { MaybeUninit::uninit() }; FEW_VALUES], Vec::new());
            let values: &mut [MaybeUninit<P::Value>] = if n <= FEW_VALUES {
                &mut few[..n]
            } else {
                many.resize_with(n, MaybeUninit::uninit);
                &mut many
            };
            self.all(me, children.tasks(), values, depth + 1, eager);
            // SAFETY: `all` wrote every value.
            let values = unsafe { assume_init(values) };
            let received: &[P::Value] = if max == u32::MAX { &[] } else { values };
            let (value, next) = self.call(me, |w| {
                // Checked inside the slot, as in `task`.
                if self.abort.load(Ordering::Relaxed) {
                    return (P::Value::placeholder(), None);
                }
                w.done_waiting();
                w.completions += 1;
                if let Some(results) = &results {
                    w.spawned.set_results(results);
                }
                let base = w.spawned.len();
                let value = P::complete(&task, received, round, &self.params, self.buffers, &mut w.counters, &mut w.spawned);
                if results.is_some() {
                    w.spawned.clear_results();
                }
                children.clear();
                if w.spawned.len() == base && !w.spawned.has_jobs() {
                    w.give_back(std::mem::take(&mut children));
                    return (value, None);
                }
                // What this round spawned and recorded: the next round waits for it.
                let jobs = w.spawned.take_jobs();
                w.held += (w.spawned.len() - base) as i64;
                w.wait();
                self.count_held(w);
                children.move_from(&mut w.spawned, base);
                (value, Some(jobs))
            });
            match next {
                Some(next_jobs) => jobs = next_jobs,
                None => return value,
            }
        }
        unreachable!("the rounds end when a complete handler spawns nothing")
    }

    /// Runs `jobs` (side by side when there are several; each forks on the pool when long)
    /// and returns the result words they give, where the handler's `ctx.result(k)` reads
    /// them; `None` where there are no jobs, which is every task of most programs, so that
    /// case is an inlined test and the rest a call.
    /// Called outside any slot: a job's pieces may run other tasks' work meanwhile.
    #[inline]
    fn jobs(&self, jobs: &[Job]) -> Option<[u64; RESULT_WORDS]> {
        if jobs.is_empty() {
            return None;
        }
        Some(self.run_jobs(jobs))
    }

    #[inline(never)]
    fn run_jobs(&self, jobs: &[Job]) -> [u64; RESULT_WORDS] {
        let mut results = [0; RESULT_WORDS];
        if self.abort.load(Ordering::Relaxed) {
            return results;
        }
        let gave: Vec<[u64; 2]> = if jobs.len() == 1 {
            vec![super::jobs::run(&jobs[0], self.buffers)]
        } else {
            jobs.par_iter().map(|job| super::jobs::run(job, self.buffers)).collect()
        };
        for (job, words) in jobs.iter().zip(gave) {
            if job.result != NO_RESULT {
                let at = job.result as usize;
                let n = job.kind.result_words();
                results[at..at + n].copy_from_slice(&words[..n]);
            }
        }
        results
    }

    /// Runs a handler on this thread's slot, letting a panic unwind: it then becomes the
    /// run's failure at once (`Unwinding`) and goes on up through the `join`s to `run`'s
    /// catch (`mod.rs`). This costs nothing while nothing panics, where catching every
    /// handler's panic (`handler`) costs a call and its bookkeeping per handler: tasks that
    /// wait for their children run two handlers each, so they take this path.
    #[inline(always)]
    fn call<R>(&self, me: usize, f: impl FnOnce(&mut Worker<P::Counters, P::Task>) -> R) -> R {
        let armed = Unwinding { run: self, me };
        let result = self.workers.with(me, f);
        std::mem::forget(armed);
        result
    }

    /// Runs a handler on this thread's slot; `None` after a panic, which stops the run.
    /// (Detached tasks run in batches of handlers, each batch one call of this.)
    #[inline]
    pub(super) fn handler<R>(&self, me: usize, f: impl FnOnce(&mut Worker<P::Counters, P::Task>) -> R) -> Option<R> {
        match self.workers.with(me, |w| super::panics::catch(|| f(w))) {
            Ok(r) => Some(r),
            Err(Caught::Panic(message)) => {
                self.panicked(me, message);
                None
            }
            Err(Caught::Stop(stop)) => {
                self.stop(me);
                self.fail(stop.into_error());
                None
            }
        }
    }

    /// Makes a handler's panic (`file:line: message`, `panics.rs`) the run's failure.
    #[cold]
    fn panicked(&self, me: usize, message: String) {
        self.stop(me);
        self.fail(Error::TaskPanicked { message });
    }

    /// Stops the run after a handler on thread `me` panicked.
    #[cold]
    fn stop(&self, me: usize) {
        // What the handler spawned before it panicked never runs.
        self.workers.with(me, |w| w.spawned.clear());
        self.abort.store(true, Ordering::Relaxed);
    }

    /// Adds thread slot `w`'s share of the tasks held to the run's total when it is due;
    /// false (the run failed) when the total passed the bound.
    #[inline]
    pub(super) fn count_held(&self, w: &mut Worker<P::Counters, P::Task>) -> bool {
        match self.held.add(&mut w.held) {
            Ok(()) => true,
            Err(e) => {
                self.fail(e);
                false
            }
        }
    }

    /// Runs `f`, a call `depth` levels down, making sure every `CHECK_STACK_EVERY` levels
    /// that the stack has room for that many more; memory that runs out for more stack
    /// stops the run with its own error, not as a handler's panic.
    #[inline(always)]
    fn nested<R>(&self, depth: u32, f: impl FnOnce() -> R) -> R {
        if depth.is_multiple_of(CHECK_STACK_EVERY) && stacker::remaining_stack().is_none_or(|room| room < STACK_RED_ZONE) {
            return self.on_a_new_stack(f);
        }
        f()
    }

    /// Runs `f` on a stack segment of its own; rare, so out of the way.
    #[cold]
    #[inline(never)]
    fn on_a_new_stack<R>(&self, f: impl FnOnce() -> R) -> R {
        let entered = std::cell::Cell::new(false);
        // Recursive helpers measure their room again on the segment, and after it.
        crate::contract::recursion::forget_room();
        let grown = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            stacker::grow(STACK_SEGMENT, || {
                entered.set(true);
                f()
            })
        }));
        crate::contract::recursion::forget_room();
        match grown {
            Ok(r) => r,
            Err(payload) if entered.get() => std::panic::resume_unwind(payload),
            Err(_) => {
                // `stacker` could not map the segment (its panic, which the hook recorded as
                // if a handler's, is dropped here).
                let _ = super::panics::caught();
                let stop = Stop::NoMemory { what: "a stack segment for tasks waiting for their children", bytes: STACK_SEGMENT as u64 };
                self.fail(stop.into_error());
                stop.raise()
            }
        }
    }

    /// Keeps the first failure and stops the run.
    fn fail(&self, error: Error) {
        self.failure.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(error);
        self.abort.store(true, Ordering::Relaxed);
    }
}

/// Armed around a handler that may unwind (`Run::call`); dropped only if it does.
struct Unwinding<'r, 'a, P: Program> {
    run: &'r Run<'a, P>,
    me: usize,
}

impl<P: Program> Drop for Unwinding<'_, '_, P> {
    fn drop(&mut self) {
        // Unwinding from the handler: make its panic the run's failure now, so that every
        // thread stops taking tasks while the panic travels up to `run`.
        match super::panics::caught() {
            Some(message) => self.run.panicked(self.me, message),
            // The hook is not ours: `run` records the payload's text when the panic gets there.
            None => self.run.stop(self.me),
        }
    }
}

/// A task whose children and jobs were taken away from its thread's list.
struct Other<T, V> {
    task: T,
    /// Its complete handler's most values, if it has one (then it waits).
    waits: Option<u32>,
    /// The value its handler returned.
    value: V,
    children: Option<Spawned<T>>,
    jobs: Vec<Job>,
}

/// The values of `slots`, which must all have been written.
///
/// # Safety
/// Every slot holds a value.
unsafe fn assume_init<T>(slots: &[MaybeUninit<T>]) -> &[T] {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout, and the caller says every slot is written.
    unsafe { std::slice::from_raw_parts(slots.as_ptr().cast::<T>(), slots.len()) }
}

/// Why `Run::batch` stopped.
enum Batch<T> {
    /// The stack is empty (its memory given back to the slot), or the run was aborted.
    Done,
    /// `BATCH` tasks ran.
    Full,
    /// This thread's deque is empty: others may need work.
    Split,
    /// `task` (with a complete handler taking up to `max` children) spawned `children`
    /// and recorded `jobs`, and waits for them.
    Wait { task: T, max: u32, children: Spawned<T>, jobs: Vec<Job> },
    /// A task nobody waits for recorded `jobs`: they run before the stack goes on.
    Jobs(Vec<Job>),
}

/// Forks always made on the way down from the roots (each halves a list of children with
/// `join`: one a level for tasks of two children, as fib's), as rayon's own fork-join does:
/// thieves take the oldest job in a deque, so jobs forked near the roots hand them large
/// subtrees. Below, splitting is lazy. Without this, a thread running a subtree one call
/// after the other could offer thieves only work from the depth it was at when they came,
/// ever smaller pieces (fib(38) on 16 cores: 9x rayon's time, against 1.3x on 2). Counted
/// in forks rather than levels, so that a tree of wide nodes (a game's, a dozen moves a
/// position) forks the same 4,096 pieces near its roots as fib's does, not a dozen to the
/// twelfth.
const EAGER_DEPTH: u32 = 12;

/// `EAGER_DEPTH`, or `WSDSL_CPU_EAGER_DEPTH` where set (read once per process, in builds with
/// the `lab` feature: a measurement). A value it does not accept is reported once and not used.
fn eager_depth() -> u32 {
    static DEPTH: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *DEPTH.get_or_init(|| match crate::settings::CPU_EAGER_DEPTH.lab_from_env() {
        Ok(depth) => depth.map_or(EAGER_DEPTH, |d| d as u32),
        Err(e) => {
            eprintln!("wsdsl: {e}; using {EAGER_DEPTH}");
            EAGER_DEPTH
        }
    })
}

/// Whether this thread has a job in its deque that idle threads can take (then splitting
/// more work off would only cost).
#[inline]
fn others_can_steal() -> bool {
    rayon_core::current_thread_has_pending_tasks() == Some(true)
}

/// The tag of `task` (its index in `Program::TASK_NAMES`), from its device encoding.
fn task_index<P: Program>(task: &P::Task) -> usize {
    let mut bytes = vec![0u8; P::TASK_BYTES];
    P::encode_task(task, &mut bytes);
    u32::from_le_bytes(bytes[..4].try_into().expect("tag")) as usize
}
