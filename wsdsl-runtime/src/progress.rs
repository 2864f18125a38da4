//! Progress of a long run: a line on the terminal and a callback for programs.
//!
//! While a run is in progress a reporter thread samples how many tasks have run so far
//! (on the CPU, each pool thread's published count; on the GPU, words each worker writes to
//! host-mapped memory every few milliseconds, `cuda/core/stats.cuh`; under the static scheduler,
//! the generations done), at most every `every`. Runs longer than a second show
//! `tasks done, tasks/s, elapsed` on standard error when it is a terminal (nothing when it
//! is not, so logs stay clean); a callback set with [`crate::Runtime::on_progress`] gets the
//! same figures from the start. Nobody watching: no thread, no device writes.
//!
//! The figures are a lower bound that lags by a few milliseconds: the final statistics come
//! from the run's own counters, not from these.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fmt;
use std::io::IsTerminal;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How far a run has come.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Tasks run so far (spawn handlers; a lower bound).
    pub tasks: u64,
    /// Since the run started.
    pub elapsed: Duration,
}

impl Progress {
    /// Average rate since the start.
    pub fn tasks_per_second(&self) -> f64 {
        self.tasks as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} tasks, {}/s, {:.1} s", si(self.tasks as f64), si(self.tasks_per_second()), self.elapsed.as_secs_f64())
    }
}

/// `1234567` as `1.23 M`.
fn si(x: f64) -> String {
    const UNITS: [(f64, &str); 4] = [(1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " k")];
    UNITS.iter().find(|(scale, _)| x >= *scale).map_or(format!("{x:.0}"), |(scale, unit)| format!("{:.2}{unit}", x / scale))
}

/// A program's progress callback.
pub(crate) type ProgressCallback = Arc<dyn Fn(&Progress) + Send + Sync>;

/// Who watches a run's progress.
#[derive(Clone)]
pub(crate) struct ProgressOptions {
    /// Show the line on standard error (when it is a terminal).
    pub line: bool,
    /// Called about every `callback_every` with the figures so far.
    pub callback: Option<(Duration, ProgressCallback)>,
}

impl Default for ProgressOptions {
    fn default() -> Self {
        ProgressOptions { line: true, callback: None }
    }
}

impl fmt::Debug for ProgressOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProgressOptions")
            .field("line", &self.line)
            .field("callback_every", &self.callback.as_ref().map(|(every, _)| every))
            .finish()
    }
}

/// Runs shorter than this show no line.
const LINE_AFTER: Duration = Duration::from_secs(1);
/// How often the line is redrawn.
const LINE_EVERY: Duration = Duration::from_millis(200);

impl ProgressOptions {
    /// Whether anyone would see progress: then the backends publish it.
    pub fn watched(&self) -> bool {
        self.callback.is_some() || (self.line && std::io::stderr().is_terminal())
    }

    /// Runs `run` on this thread while another samples `tasks_done` and reports it; `what`
    /// names the run on the line.
    pub fn report_while<R>(&self, what: &str, tasks_done: &(dyn Fn() -> u64 + Sync), run: impl FnOnce() -> R) -> R {
        if !self.watched() {
            return run();
        }
        let show_line = self.line && std::io::stderr().is_terminal();
        let every = match &self.callback {
            Some((every, _)) => (*every).max(Duration::from_millis(1)).min(LINE_EVERY),
            None => LINE_EVERY,
        };
        let (finished, wait) = mpsc::channel::<()>();
        std::thread::scope(|scope| {
            scope.spawn(move || {
                let start = Instant::now();
                let mut line: Option<ProgressBar> = None;
                let mut last_call = start;
                // Until the run ends (the sender is dropped): a sample every `every`.
                while let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(every) {
                    let now = Progress { tasks: tasks_done(), elapsed: start.elapsed() };
                    if let Some((callback_every, callback)) = &self.callback {
                        if last_call.elapsed() >= *callback_every {
                            last_call = Instant::now();
                            callback(&now);
                        }
                    }
                    if show_line && now.elapsed >= LINE_AFTER {
                        match &line {
                            Some(bar) => {
                                bar.set_message(now.to_string());
                                bar.tick();
                            }
                            None => line = Some(new_line(what, now)),
                        }
                    }
                }
                if let Some(bar) = line {
                    bar.finish_and_clear();
                }
            });
            let result = run();
            drop(finished);
            result
        })
    }
}

/// The line: a spinner, the run's name and its figures (set before it is first drawn).
fn new_line(what: &str, now: Progress) -> ProgressBar {
    let bar = ProgressBar::hidden();
    let style = ProgressStyle::with_template("{spinner} {prefix}: {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner());
    bar.set_style(style);
    bar.set_prefix(what.to_string());
    bar.set_message(now.to_string());
    bar.set_draw_target(ProgressDrawTarget::stderr());
    bar.tick();
    bar
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Mutex;

    #[test]
    fn figures_read_like_a_person_would_write_them() {
        let p = Progress { tasks: 12_345_678, elapsed: Duration::from_secs(2) };
        assert_eq!(p.to_string(), "12.35 M tasks, 6.17 M/s, 2.0 s");
        assert_eq!(si(999.0), "999");
        assert_eq!(si(4.2e9), "4.20 G");
    }

    #[test]
    fn a_callback_sees_the_count_grow_while_the_run_goes_on() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let opts = ProgressOptions {
            line: false,
            callback: Some((Duration::from_millis(5), Arc::new(move |p: &Progress| sink.lock().unwrap().push(p.tasks)))),
        };
        let done = AtomicU64::new(0);
        let value = opts.report_while("test", &|| done.load(Ordering::Relaxed), || {
            for i in 1..=20u64 {
                done.store(i * 100, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(5));
            }
            7
        });
        assert_eq!(value, 7, "the run's own result comes back");
        let seen = seen.lock().unwrap();
        assert!(seen.len() >= 3, "a 100 ms run reported every 5 ms was seen only {} times", seen.len());
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "counts never go back: {seen:?}");
        assert!(*seen.last().unwrap() > 0 && *seen.last().unwrap() <= 2_000);
    }

    #[test]
    fn nobody_watching_costs_nothing() {
        let opts = ProgressOptions { line: false, callback: None };
        assert!(!opts.watched());
        let sampled = AtomicU64::new(0);
        opts.report_while("test", &|| sampled.fetch_add(1, Ordering::Relaxed), || std::thread::sleep(Duration::from_millis(30)));
        assert_eq!(sampled.load(Ordering::Relaxed), 0, "no sampling thread ran");
    }
}
