//! The CPU backend: the same handlers, run natively on rayon's work-stealing thread pool.
//!
//! A task is a function call: its spawn handler runs, pushing what it spawns onto a plain
//! list (`crate::spawned`), then its children run, and when all of them are done the task's
//! complete handler runs with their values, on the thread that ran the task. A complete
//! handler that spawns makes the task wait again (`tree.rs`). Children near the roots are
//! forked with rayon's `join`, as a rayon program would; deeper down only when another
//! thread may need the work: while the running thread has a job in its deque for thieves,
//! it runs children one after the other like plain calls (lazy splitting), so a wsdsl
//! program costs about what the same algorithm written with rayon and a sequential cutoff
//! does, without the program choosing the cutoff. Each pool thread keeps
//! its counters and statistics in a slot of its own (`workers.rs`), merged at the end.
//! A panicking handler, or more children than `max_children`, stops the run and comes back
//! as an error; nothing is lost silently. A panic's error names the Rust file and line and
//! its message, as the GPU's does (`panics.rs`). A run is bounded as a GPU run is: by the
//! watchdog (a run past it is stopped; threads whose handlers would not stop are parked for
//! good, `park.rs`) and by a bound on the tasks it holds at once (`limits.rs`). Ordered
//! programs (`order = priority`) run band by band instead (`bands.rs`).

mod bands;
pub(crate) mod jobs;
pub(crate) mod limits;
pub(crate) mod panics;
mod park;
mod tree;
mod workers;

use crate::error::{Error, RanOn};
use crate::contract::{CounterSet, Program, RunResult};
use crate::contract::schedule::Order;
use crate::contract::value::TaskValue;
use crate::progress::ProgressOptions;
use crate::stats::{Phases, Stats};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

pub use limits::DEFAULT_TASK_LIMIT;
pub(crate) use limits::Limits;
pub(crate) use workers::CpuPool;

/// How long a run stopped by the watchdog may take to end before the threads still in its
/// handlers are parked (`park.rs`): every task checks for the stop before it starts, so a
/// run whose handlers return ends within a task's time.
const GRACE: Duration = Duration::from_secs(2);

/// Runs `roots` and everything they spawn on `pool`, reporting progress to `progress`,
/// within `limits`.
pub(crate) fn run<P: Program>(
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    pool: &CpuPool,
    progress: &ProgressOptions,
    limits: &Limits,
) -> Result<RunResult<P>, Error> {
    panics::install_hook();
    // SAFETY: the run's jobs use `buffers` until they end, and this function returns only
    // after that, or after parking for good every thread still in a handler of the run
    // (`park.rs`): the other threads then start no handler and never read the buffers again.
    // The run itself (and with it this reference) is leaked in that case.
    let buffers: &'static P::Buffers = unsafe { &*(buffers as *const P::Buffers) };
    let run = Arc::new(tree::Run::<P>::new(*params, buffers, roots.len(), pool.threads(), limits.tasks));
    let (done, finished) = mpsc::channel();
    let (job, roots) = (run.clone(), roots.to_vec());
    let start = Instant::now();
    pool.spawn(move || {
        // A handler's panic may unwind out of the pool (`tree.rs`, `Run::call`).
        let values = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if P::SCHEDULE.order == Some(Order::Priority) {
                let bands = job.bands(&roots);
                (vec![P::Value::placeholder(); roots.len()], Some(bands))
            } else {
                (job.roots(&roots), None)
            }
        }))
        .unwrap_or_else(|payload| {
            job.unwound(&*payload);
            (Vec::new(), None)
        });
        // The job's hold on the run ends before the caller hears of it (`Arc::try_unwrap`).
        drop(job);
        let _ = done.send(values);
    });
    let waited = progress.report_while(P::NAME, &|| run.tasks_published(), || {
        if let Ok(values) = finished.recv_timeout(limits.watchdog) {
            return Some(values);
        }
        run.stop_with(Error::Watchdog { program: P::NAME, on: RanOn::Cpu, limit: limits.watchdog, stopped: true });
        finished.recv_timeout(GRACE).ok()
    });
    let elapsed = start.elapsed();
    let Some((values, bands)) = waited else {
        // A handler did not return when asked: park the threads that are still in one.
        pool.park_handlers_of(run.id());
        std::mem::forget(run);
        return Err(Error::Watchdog { program: P::NAME, on: RanOn::Cpu, limit: limits.watchdog, stopped: false });
    };
    let run = Arc::try_unwrap(run).unwrap_or_else(|_| unreachable!("the job let go of the run before it sent its values"));
    let outcome = run.finish();
    if let Some(error) = outcome.failure {
        return Err(error);
    }
    let mut counters = P::Counters::default();
    let mut stats = Stats { phases: Phases { run: elapsed, ..Phases::default() }, ..Stats::default() };
    for w in &outcome.workers {
        counters.merge(&w.counters);
        stats.tasks += w.tasks;
        stats.completions += w.completions;
        stats.steals += w.steals;
        stats.peak_frames = stats.peak_frames.max(w.peak_waiting);
        stats.per_worker_tasks.push(w.tasks);
        stats.per_worker_steals.push(w.steals);
        stats.per_worker_peak.push(w.peak_waiting);
    }
    stats.steal_attempts = stats.steals;
    stats.bands = bands;
    Ok((counters, values, stats))
}
