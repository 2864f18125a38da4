//! The CPU backend: the same handlers, run natively on a work-stealing thread pool.
//!
//! One LIFO deque per thread (crossbeam-deque, the Chase-Lev deque), random-victim stealing,
//! and the GPU's termination rule: a thread counts itself idle only with an empty deque and
//! empty hands, and the run ends when every thread is idle. A panicking handler stops the
//! run and comes back as [`Error::TaskPanicked`]; nothing is lost silently. Complete
//! handlers and values: `join.rs`.

mod join;

use crate::error::Error;
use crate::program::{CounterSet, Program, RunResult};
use crate::stats::{Phases, Stats};
use crossbeam_deque::{Steal, Stealer, Worker};
use join::{Finisher, Job, Link};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// Failed steal rounds before a thread declares itself idle.
const IDLE_AFTER: u32 = 4;

struct Shared<'a, P: Program> {
    join: Finisher<'a, P>,
    stealers: Vec<Stealer<Job<P>>>,
    idle: AtomicUsize,
    abort: AtomicBool,
    /// The first error (a panic, too many children); it stops the run.
    failure: Mutex<Option<Error>>,
}

impl<P: Program> Shared<'_, P> {
    fn fail(&self, error: Error) {
        self.failure.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(error);
        self.abort.store(true, Ordering::Relaxed);
    }
}

struct WorkerReport<C> {
    counters: C,
    tasks: u64,
    steal_attempts: u64,
    steals: u64,
    peak: u64,
}

/// Runs `roots` and everything they spawn on `threads` threads.
pub fn run<P: Program>(params: &P::Params, buffers: &P::Buffers, roots: &[P::Task], threads: usize) -> Result<RunResult<P>, Error> {
    if threads == 0 {
        return Err(Error::InvalidConfig("the CPU backend needs at least one thread".into()));
    }
    let workers: Vec<Worker<Job<P>>> = (0..threads).map(|_| Worker::new_lifo()).collect();
    for (i, root) in roots.iter().enumerate() {
        workers[i % threads].push(Job { task: *root, link: Link::Root(i) });
    }
    let shared = Shared::<P> {
        join: Finisher {
            params,
            buffers,
            root_values: roots.iter().map(|_| OnceLock::new()).collect(),
            live_frames: AtomicUsize::new(0),
            peak_frames: AtomicUsize::new(0),
            completions: AtomicU64::new(0),
        },
        stealers: workers.iter().map(|w| w.stealer()).collect(),
        idle: AtomicUsize::new(0),
        abort: AtomicBool::new(false),
        failure: Mutex::new(None),
    };

    let start = Instant::now();
    let reports: Vec<WorkerReport<P::Counters>> = std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .into_iter()
            .enumerate()
            .map(|(id, local)| {
                let shared = &shared;
                scope.spawn(move || work(shared, id, local))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("worker threads catch handler panics")).collect()
    });
    let run = start.elapsed();

    if let Some(error) = shared.failure.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(error);
    }
    let mut counters = P::Counters::default();
    let frames = shared.join.peak_frames.load(Ordering::Relaxed) as u64;
    let completions = shared.join.completions.load(Ordering::Relaxed);
    let mut stats = Stats { phases: Phases { run, ..Phases::default() }, peak_frames: frames, completions, ..Stats::default() };
    for r in &reports {
        counters.merge(&r.counters);
        stats.tasks += r.tasks;
        stats.steal_attempts += r.steal_attempts;
        stats.steals += r.steals;
        stats.peak_queue = stats.peak_queue.max(r.peak);
        stats.per_worker_tasks.push(r.tasks);
    }
    // Every root is finished once the run ends without error: the last child of a frame
    // always completes it.
    let values = shared.join.root_values.iter().map(|v| v.get().copied().unwrap_or_default()).collect();
    Ok((counters, values, stats))
}

fn work<P: Program>(shared: &Shared<'_, P>, id: usize, local: Worker<Job<P>>) -> WorkerReport<P::Counters> {
    let mut report = WorkerReport { counters: P::Counters::default(), tasks: 0, steal_attempts: 0, steals: 0, peak: 0 };
    let mut children: Vec<P::Task> = Vec::new();
    let n = shared.stealers.len();
    let mut rng = (id as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut idle = false;
    let mut failed_rounds = 0;
    loop {
        if shared.abort.load(Ordering::Relaxed) {
            return report;
        }
        let job = match local.pop() {
            Some(t) => t,
            None => match steal(shared, id, &mut rng, &mut idle, &mut report) {
                Some(t) => {
                    failed_rounds = 0;
                    t
                }
                None => {
                    failed_rounds += 1;
                    if !idle && failed_rounds >= IDLE_AFTER {
                        shared.idle.fetch_add(1, Ordering::AcqRel);
                        idle = true;
                    }
                    if idle && shared.idle.load(Ordering::Acquire) == n {
                        return report;
                    }
                    std::thread::yield_now();
                    continue;
                }
            },
        };
        report.tasks += 1;
        let task = job.task;
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let (join, counters) = (&shared.join, &mut report.counters);
            children.clear();
            let value = P::execute(&task, join.params, join.buffers, counters, &mut |child| children.push(child));
            join.after_spawn(job, value, &mut children, counters, |child| local.push(child))
        }));
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(max_children)) => {
                let name = P::TASK_NAMES.get(task_index::<P>(&task)).copied().unwrap_or("?");
                shared.fail(Error::TooManyChildren { task: name, max_children });
                return report;
            }
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "non-string panic payload".into());
                shared.fail(Error::TaskPanicked { message });
                return report;
            }
        }
        report.peak = report.peak.max(local.len() as u64);
    }
}

/// One round over all victims in random order; leaves the idle state before taking a task.
fn steal<P: Program>(
    shared: &Shared<'_, P>,
    id: usize,
    rng: &mut u64,
    idle: &mut bool,
    report: &mut WorkerReport<P::Counters>,
) -> Option<Job<P>> {
    let n = shared.stealers.len();
    if n < 2 {
        return None;
    }
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    let offset = (*rng % (n as u64 - 1)) as usize;
    for k in 0..n - 1 {
        let victim = (id + 1 + (offset + k) % (n - 1)) % n;
        let stealer = &shared.stealers[victim];
        if stealer.is_empty() {
            continue;
        }
        if *idle {
            shared.idle.fetch_sub(1, Ordering::AcqRel);
            *idle = false;
        }
        loop {
            report.steal_attempts += 1;
            match stealer.steal() {
                Steal::Success(t) => {
                    report.steals += 1;
                    return Some(t);
                }
                Steal::Retry => continue,
                Steal::Empty => break,
            }
        }
    }
    None
}

/// The tag of `task` (its index in `Program::TASK_NAMES`), from its device encoding.
fn task_index<P: Program>(task: &P::Task) -> usize {
    let mut bytes = vec![0u8; P::TASK_BYTES];
    P::encode_task(task, &mut bytes);
    u32::from_le_bytes(bytes[..4].try_into().expect("tag")) as usize
}
