//! The CPU backend's threads and what each keeps: a rayon pool of a fixed size, and one slot
//! of counters and statistics per pool thread, which only that thread touches.

use super::park;
use crate::contract::spawned::Spawned;
use crate::error::Error;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Stack of each pool thread. Tasks run as nested calls (a task waits for its children on
/// its thread's stack), so deep trees need room; the stack also grows on demand beyond it
/// (`tree.rs`), this only makes that rare. It is address space: untouched pages cost nothing.
const THREAD_STACK: usize = 64 << 20;

/// A rayon thread pool for the CPU backend, kept by the `Runtime` and reused by every run.
pub struct CpuPool {
    pool: std::mem::ManuallyDrop<rayon::ThreadPool>,
    threads: usize,
    /// Each pool thread's system id, as it starts: the watchdog parks threads by it (`park.rs`).
    ids: Arc<Mutex<Vec<Option<park::ThreadId>>>>,
    /// Whether a run parked some of the pool's threads for good (the runtime then starts a
    /// new pool).
    lost: AtomicBool,
}

impl CpuPool {
    /// A pool of `threads` worker threads.
    pub fn new(threads: usize) -> Result<CpuPool, Error> {
        if threads == 0 {
            return Err(Error::InvalidConfig("the CPU backend needs at least one thread".into()));
        }
        let ids = Arc::new(Mutex::new(vec![None; threads]));
        let started = ids.clone();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("wsdsl-cpu-{i}"))
            .start_handler(move |i| {
                super::panics::mark_pool_thread();
                started.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(park::ThreadId::current());
            })
            .stack_size(THREAD_STACK)
            .build()
            .map_err(|e| Error::InvalidConfig(format!("could not start {threads} CPU worker threads: {e}")))?;
        Ok(CpuPool { pool: std::mem::ManuallyDrop::new(pool), threads, ids, lost: AtomicBool::new(false) })
    }

    /// Parks for good every thread of this pool that runs a handler of run `run`; how many.
    /// The pool is lost then: the runtime starts a new one for later runs.
    pub(crate) fn park_handlers_of(&self, run: u64) -> usize {
        self.lost.store(true, Ordering::Relaxed);
        let ids: Vec<park::ThreadId> = self.ids.lock().unwrap_or_else(|e| e.into_inner()).iter().flatten().copied().collect();
        park::park(run, &ids)
    }

    /// Whether a run parked some of this pool's threads.
    pub fn lost_threads(&self) -> bool {
        self.lost.load(Ordering::Relaxed)
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Starts `f` on the pool and returns at once.
    pub(crate) fn spawn(&self, f: impl FnOnce() + Send + 'static) {
        self.pool.spawn(f)
    }
}

impl Drop for CpuPool {
    fn drop(&mut self) {
        if !self.lost_threads() {
            // SAFETY: dropped once, here.
            unsafe { std::mem::ManuallyDrop::drop(&mut self.pool) };
        }
        // A pool with parked threads is left as it is: its other threads may wait for the
        // parked ones for good, and nothing must touch what those hold.
    }
}

/// What one pool thread keeps during a run, for program counters `C` and tasks `T`.
pub(crate) struct Worker<C, T> {
    pub counters: C,
    /// Where handlers run on this thread spawn: between handlers, the children of the tasks
    /// waiting on this thread's stack that keep them here, each task's above its parent's
    /// (`tree.rs`, `Run::task`). (Detached tasks spawn onto their stack instead.)
    pub spawned: Spawned<T>,
    /// Empty lists whose memory `spawned` takes over when its tasks are taken away.
    spare: Vec<Spawned<T>>,
    /// Spawn handlers run.
    pub tasks: u64,
    /// Complete handlers run.
    pub completions: u64,
    /// Children this thread took from another thread's `join`.
    pub steals: u64,
    /// Tasks waiting for their children on this thread's stack, now and at most.
    pub waiting: u64,
    pub peak_waiting: u64,
    /// This thread's share of the tasks the run holds, not yet added to its total
    /// (`limits.rs`): spawned, minus started, plus waiting.
    pub held: i64,
    /// The run's bound on tasks held, which every list of spawned tasks keeps.
    limit: usize,
}

impl<C: Default, T> Worker<C, T> {
    fn new(limit: usize) -> Self {
        Worker {
            counters: C::default(),
            spawned: Spawned::with_limit(limit),
            spare: Vec::new(),
            tasks: 0,
            completions: 0,
            steals: 0,
            waiting: 0,
            peak_waiting: 0,
            held: 0,
            limit,
        }
    }
}

impl<C, T> Worker<C, T> {
    /// An empty list, with the memory of one given back if there is one.
    #[inline]
    pub fn spare_list(&mut self) -> Spawned<T> {
        self.spare.pop().unwrap_or_else(|| Spawned::with_limit(self.limit))
    }

    /// Keeps the memory of `list`, now empty, for later.
    #[inline]
    pub fn give_back(&mut self, list: Spawned<T>) {
        debug_assert!(list.is_empty());
        self.spare.push(list);
    }

    /// One more task waits for its children on this thread's stack.
    #[inline]
    pub fn wait(&mut self) {
        self.waiting += 1;
        self.held += 1;
        self.peak_waiting = self.peak_waiting.max(self.waiting);
    }

    /// One more task waits for children it keeps on this thread's list (`tree.rs`,
    /// `Run::task`), which counts them and it instead of `held`.
    #[inline]
    pub fn wait_on_list(&mut self) {
        self.waiting += 1;
        self.peak_waiting = self.peak_waiting.max(self.waiting);
    }

    /// A task that waited for its children goes on (its complete handler runs).
    #[inline]
    pub fn done_waiting(&mut self) {
        self.waiting -= 1;
        self.held -= 1;
    }

    /// A task's spawn handler starts (it was held since its spawn).
    #[inline]
    pub fn start(&mut self) {
        self.tasks += 1;
        self.held -= 1;
    }
}

/// A slot on its own cache line, so that threads updating their slots never share a line;
/// beside it the slot's task count as the progress reporter may read it (`progress.rs`).
#[repr(align(128))]
struct Padded<T> {
    worker: UnsafeCell<T>,
    published: AtomicU64,
}

/// One `Worker` per pool thread, for run `run` (its id, `park.rs`).
pub(crate) struct Slots<C, T> {
    slots: Vec<Padded<Worker<C, T>>>,
    run: u64,
}

// SAFETY: a slot is only reached through `with`, by the pool thread whose index it has (see
// there); the workers move between threads only when the run is over (`into_inner`).
unsafe impl<C: Send, T: Send> Sync for Slots<C, T> {}

impl<C: Default, T> Slots<C, T> {
    /// Slots for run `run`, whose lists of spawned tasks hold at most `limit` tasks.
    pub fn new(threads: usize, run: u64, limit: usize) -> Slots<C, T> {
        let slots = (0..threads).map(|_| Padded { worker: UnsafeCell::new(Worker::new(limit)), published: AtomicU64::new(0) }).collect();
        Slots { slots, run }
    }
}

/// The calling pool thread's index, which names its slot.
pub(crate) fn here() -> usize {
    rayon::current_thread_index().expect("the CPU backend runs its tasks on its own pool")
}

impl<C, T> Slots<C, T> {
    /// Runs `f` on slot `me`, which must be the calling pool thread's (`here`). `f` must not
    /// call into rayon in a way that may run other jobs (a `join`, a scope; looking at the
    /// thread's deque is fine): then no other use of the slot can overlap it, since a pool
    /// thread runs one closure at a time and only that thread uses the slot with its index.
    /// Afterwards the slot's task count is published (a relaxed store to a line only this
    /// thread writes: a plain store on x86 and ARM). While `f` runs, the thread counts as
    /// running a handler of this run, which the watchdog may park (`park.rs`): callers check
    /// whether the run was stopped inside `f`, before a handler starts.
    #[inline(always)]
    pub fn with<R>(&self, me: usize, f: impl FnOnce(&mut Worker<C, T>) -> R) -> R {
        debug_assert_eq!(Some(me), rayon::current_thread_index());
        let slot = &self.slots[me];
        // SAFETY: see above; `f` runs handlers or bookkeeping, never a rayon job.
        let worker = unsafe { &mut *slot.worker.get() };
        let inside = park::Inside::run(self.run);
        let result = f(worker);
        drop(inside);
        slot.published.store(worker.tasks, Ordering::Relaxed);
        result
    }

    /// What `with` gives `f`, for a caller that cannot be a closure (the recursion of
    /// `tree.rs`, `Run::task`): slot `me`, with the thread marked as running handlers of this
    /// run until the second part drops. The caller publishes the slot's task count now and
    /// then (`publish`): a store per handler cost the tasks of a game tree 6% of their time.
    ///
    /// # Safety
    /// `me` is the calling pool thread's index, and until the reference is last used nothing
    /// else uses the slot: no other reference to it from `with` or `slot` is used meanwhile,
    /// and nothing calls into rayon in a way that may run other jobs (as for `with`'s `f`).
    // A `&mut` from `&self`, as `with` hands one to `f`: the slot is this thread's alone.
    #[allow(clippy::mut_from_ref)]
    #[inline(always)]
    pub unsafe fn slot(&self, me: usize) -> (&mut Worker<C, T>, park::Inside) {
        debug_assert_eq!(Some(me), rayon::current_thread_index());
        debug_assert!(me < self.slots.len());
        // SAFETY: `me` is a pool thread's index, and there is a slot for each.
        let slot = unsafe { self.slots.get_unchecked(me) };
        // SAFETY: the caller's promise, as `with`'s for `f`.
        let worker = unsafe { &mut *slot.worker.get() };
        (worker, park::Inside::run(self.run))
    }

    /// Publishes `tasks` as slot `me`'s task count (for the progress reports).
    #[inline]
    pub fn publish(&self, me: usize, tasks: u64) {
        self.slots[me].published.store(tasks, Ordering::Relaxed);
    }

    /// Tasks run so far, as published (callable from any thread while the run goes on).
    pub fn tasks_published(&self) -> u64 {
        self.slots.iter().map(|s| s.published.load(Ordering::Relaxed)).sum()
    }

    /// The slots, once no task runs any more.
    pub fn into_inner(self) -> Vec<Worker<C, T>> {
        self.slots.into_iter().map(|p| p.worker.into_inner()).collect()
    }
}
