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
//! its message, as the GPU's does (`panics.rs`).

mod children;
mod panics;
mod tree;
mod workers;

use crate::error::Error;
use crate::program::{CounterSet, Program, RunResult};
use crate::progress::ProgressOptions;
use crate::stats::{Phases, Stats};
use std::time::Instant;

pub use crate::spawned::Spawned;
pub use workers::CpuPool;

/// Runs `roots` and everything they spawn on `pool`, reporting progress to `progress`.
pub fn run<P: Program>(
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    pool: &CpuPool,
    progress: &ProgressOptions,
) -> Result<RunResult<P>, Error> {
    panics::install_hook();
    let run = tree::Run::<P>::new(params, buffers, pool.threads());
    let start = Instant::now();
    let values = progress.report_while(P::NAME, &|| run.tasks_published(), || {
        // A handler's panic may unwind out of the pool (`tree.rs`, `Run::call`).
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pool.install(|| run.roots(roots))))
            .unwrap_or_else(|payload| {
                run.unwound(&*payload);
                Vec::new()
            })
    });
    let elapsed = start.elapsed();
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
    Ok((counters, values, stats))
}
