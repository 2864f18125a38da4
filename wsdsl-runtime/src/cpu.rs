//! The CPU backend: the same handlers, run natively on a work-stealing thread pool.
//!
//! One LIFO deque per thread (crossbeam-deque, the Chase-Lev deque), random-victim stealing,
//! and the GPU's termination rule: a thread counts itself idle only with an empty deque and
//! empty hands, and the run ends when every thread is idle. A panicking handler stops the
//! run and comes back as [`Error::TaskPanicked`]; nothing is lost silently.

use crate::error::Error;
use crate::program::{CounterSet, Program};
use crate::stats::{Phases, Stats};
use crossbeam_deque::{Steal, Stealer, Worker};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Failed steal rounds before a thread declares itself idle.
const IDLE_AFTER: u32 = 4;

struct Shared<'a, P: Program> {
    params: &'a P::Params,
    buffers: &'a P::Buffers,
    stealers: Vec<Stealer<P::Task>>,
    idle: AtomicUsize,
    abort: AtomicBool,
    panic: Mutex<Option<String>>,
}

struct WorkerReport<C> {
    counters: C,
    tasks: u64,
    steal_attempts: u64,
    steals: u64,
    peak: u64,
}

/// Runs `roots` and everything they spawn on `threads` threads.
pub fn run<P: Program>(
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    threads: usize,
) -> Result<(P::Counters, Stats), Error> {
    if threads == 0 {
        return Err(Error::InvalidConfig("the CPU backend needs at least one thread".into()));
    }
    let workers: Vec<Worker<P::Task>> = (0..threads).map(|_| Worker::new_lifo()).collect();
    for (i, root) in roots.iter().enumerate() {
        workers[i % threads].push(*root);
    }
    let shared = Shared::<P> {
        params,
        buffers,
        stealers: workers.iter().map(|w| w.stealer()).collect(),
        idle: AtomicUsize::new(0),
        abort: AtomicBool::new(false),
        panic: Mutex::new(None),
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

    if let Some(message) = shared.panic.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(Error::TaskPanicked { message });
    }
    let mut counters = P::Counters::default();
    let mut stats = Stats { phases: Phases { run, ..Phases::default() }, ..Stats::default() };
    for r in &reports {
        counters.merge(&r.counters);
        stats.tasks += r.tasks;
        stats.steal_attempts += r.steal_attempts;
        stats.steals += r.steals;
        stats.peak_queue = stats.peak_queue.max(r.peak);
        stats.per_worker_tasks.push(r.tasks);
    }
    Ok((counters, stats))
}

fn work<P: Program>(shared: &Shared<'_, P>, id: usize, local: Worker<P::Task>) -> WorkerReport<P::Counters> {
    let mut report = WorkerReport { counters: P::Counters::default(), tasks: 0, steal_attempts: 0, steals: 0, peak: 0 };
    let n = shared.stealers.len();
    let mut rng = (id as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut idle = false;
    let mut failed_rounds = 0;
    loop {
        if shared.abort.load(Ordering::Relaxed) {
            return report;
        }
        let task = match local.pop() {
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
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            P::execute(&task, shared.params, shared.buffers, &mut report.counters, &mut |child| local.push(child))
        }));
        if let Err(payload) = outcome {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "non-string panic payload".into());
            shared.panic.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(message);
            shared.abort.store(true, Ordering::Relaxed);
            return report;
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
) -> Option<P::Task> {
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
