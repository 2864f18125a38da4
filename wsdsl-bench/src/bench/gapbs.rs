//! GAPBS, the reference CPU graph suite, run side by side with wsdsl: its `bfs`, `sssp`, `cc`
//! and `pr` binaries from a directory (`--gapbs DIR`), on a graph file the bench wrote (the
//! same edges and weights wsdsl ran on) or on GAPBS's own Kronecker graph (`-g SCALE`, the
//! class R-MAT stands for: the same generator family and scale, not the same edges). Each
//! kernel runs `trials` times in one process; its "Average Time" line is the time reported.
//! Without a directory, or without a binary in it, a row says "skipped" instead.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where GAPBS is and how to run it.
pub(super) struct Gapbs {
    /// `None`: no `--gapbs` given.
    pub dir: Option<PathBuf>,
    /// OMP_NUM_THREADS.
    pub threads: usize,
    pub trials: usize,
}

/// The graph a GAPBS kernel reads.
pub(super) enum Input<'a> {
    /// A file the bench wrote; `symmetrize`: it holds each undirected edge once (`-s`).
    File { path: &'a Path, symmetrize: bool },
    /// GAPBS's Kronecker generator at this scale (edge factor 16, undirected).
    Kronecker(u32),
}

/// What became of one GAPBS run.
#[derive(Clone, Debug)]
pub(super) enum Outcome {
    /// The average of the trials, in milliseconds, and the command that measured it.
    Ms(f64, String),
    /// Not run, and why (no directory, no binary): a visible gap, not an error.
    Skipped(String),
    /// Run, but it failed or printed no time.
    Failed(String),
}

impl Outcome {
    pub fn ms(&self) -> Option<f64> {
        match self {
            Outcome::Ms(ms, _) => Some(*ms),
            _ => None,
        }
    }

    /// For the table: the time, or the reason there is none.
    pub fn show(&self) -> String {
        match self {
            Outcome::Ms(ms, _) => format!("{ms:.2}"),
            Outcome::Skipped(why) => format!("skipped ({why})"),
            Outcome::Failed(why) => format!("FAILED ({why})"),
        }
    }
}

impl Gapbs {
    /// Runs `kernel` (`bfs`, `sssp`, `cc`, `pr`) on `input` with `args` (source, delta,
    /// iterations) after the input's and the trials' options.
    pub fn run(&self, kernel: &str, input: &Input<'_>, args: &[String]) -> Outcome {
        let Some(dir) = &self.dir else {
            return Outcome::Skipped("no --gapbs directory".into());
        };
        let binary = dir.join(kernel);
        if !binary.is_file() {
            return Outcome::Skipped(format!("no {} (build: make -C {} bfs sssp cc pr)", binary.display(), dir.display()));
        }
        let mut command = Command::new(&binary);
        match input {
            Input::File { path, symmetrize } => {
                command.arg("-f").arg(path);
                if *symmetrize {
                    command.arg("-s");
                }
            }
            Input::Kronecker(scale) => {
                command.arg("-g").arg(scale.to_string());
            }
        }
        command.arg("-n").arg(self.trials.max(1).to_string()).args(args).env("OMP_NUM_THREADS", self.threads.to_string());
        let shown = format!(
            "OMP_NUM_THREADS={} {} {}",
            self.threads,
            binary.display(),
            command.get_args().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>().join(" ")
        );
        let output = match command.output() {
            Ok(o) => o,
            Err(e) => return Outcome::Failed(format!("{shown}: {e}")),
        };
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() {
            let last = stdout.lines().last().unwrap_or("").trim().to_string();
            return Outcome::Failed(format!("{shown}: {} ({last})", output.status));
        }
        match average_time(&stdout) {
            Some(seconds) => Outcome::Ms(seconds * 1e3, shown),
            None => Outcome::Failed(format!("{shown}: no \"Average Time\" line")),
        }
    }
}

/// The seconds on GAPBS's `Average Time:` line.
fn average_time(stdout: &str) -> Option<f64> {
    stdout.lines().find_map(|line| line.strip_prefix("Average Time:")).and_then(|rest| rest.trim().parse().ok())
}

/// The available cores: GAPBS's threads unless `--gapbs-threads` says otherwise.
pub(super) fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_average_time_line_is_read_in_seconds() {
        let out = "Read Time:           0.01\nGraph has 4 nodes\nTrial Time:          0.00007\nAverage Time:        0.01250\n";
        assert_eq!(average_time(out), Some(0.0125));
        assert_eq!(average_time("Trial Time: 1\n"), None);
    }

    #[test]
    fn a_missing_directory_or_binary_is_skipped_not_failed() {
        let input = Input::Kronecker(10);
        let none = Gapbs { dir: None, threads: 1, trials: 1 };
        assert!(matches!(none.run("bfs", &input, &[]), Outcome::Skipped(_)));
        let empty = Gapbs { dir: Some(std::env::temp_dir().join("no-such-gapbs-dir")), threads: 1, trials: 1 };
        let outcome = empty.run("bfs", &input, &[]);
        assert!(matches!(&outcome, Outcome::Skipped(why) if why.contains("no-such-gapbs-dir")), "{outcome:?}");
        assert!(outcome.show().starts_with("skipped"));
    }
}
