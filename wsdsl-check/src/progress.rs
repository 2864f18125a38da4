//! The progress rows: a progress callback's counts during GPU runs.

use crate::report::{first_words, print_row, Row};
use std::time::{Duration, Instant};
use wsdsl::prelude::*;
use wsdsl_examples::nqueens;

/// A progress callback sees the count grow while a run goes on, under the persistent
/// deques (host-mapped words written by the workers), a broker queue (the same) and the
/// static scheduler (the host's count of generations), and the answer stays exact.
pub fn progress_checks(watchdog: u64) -> Vec<Row> {
    let mut rows = Vec::new();
    for (what, n, config) in [
        ("deque", 17, wsdsl::Scheduler::Deque),
        ("BQ", 15, wsdsl::Scheduler::Bq),
        ("static", 15, wsdsl::Scheduler::Static),
    ] {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = seen.clone();
        let rt = Runtime::new(Backend::Gpu)
            .scheduler(config)
            .watchdog(Duration::from_secs(watchdog))
            .on_progress(Duration::from_millis(1), move |p| sink.lock().unwrap_or_else(|e| e.into_inner()).push(p.tasks));
        let want = nqueens::expected(n).expect("n <= 20");
        let started = Instant::now();
        let outcome = nqueens::solve(&rt, n);
        let ms = started.elapsed().as_secs_f64() * 1e3;
        let seen = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let (answer, pass, tasks) = match outcome {
            Ok((count, out)) => {
                let rising = seen.windows(2).all(|w| w[0] <= w[1]);
                let last = seen.last().copied().unwrap_or(0);
                let pass = count == want && seen.len() >= 3 && rising && last > 0 && last <= out.stats.tasks;
                (format!("{count}; {} reports, last {last} of {} tasks", seen.len(), out.stats.tasks), pass, out.stats.tasks)
            }
            Err(e) => (first_words(&e.to_string()), false, 0),
        };
        let workload = format!("nqueens {n} ({what}), progress callback every ms");
        let row = Row { median_ms: ms, tasks, ..Row::gpu_check(workload, answer, format!("{want}; rising counts"), pass) };
        print_row(&row);
        rows.push(row);
    }
    rows
}
