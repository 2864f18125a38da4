//! What every example's command line shares: the backend it runs on, the load-balance chart,
//! the note when the GPU could not be used, and the exit status. Used by every
//! `examples/<name>.rs`.

pub mod graph;
pub mod sort;

use std::fmt::Display;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use wsdsl::prelude::*;

/// The options every example takes (`#[command(flatten)]`).
#[derive(clap::Args)]
pub struct Common {
    /// auto, cpu, gpu or emulate (the GPU's code on the host; slow) (default: $WSDSL_BACKEND, else auto).
    #[arg(long, global = true)]
    pub backend: Option<String>,
    /// Also draw the run's load balance (tasks, steals and most tasks held, per worker) to
    /// this .svg or .png file.
    #[arg(long, global = true, value_name = "FILE")]
    pub chart: Option<PathBuf>,
}

impl Common {
    /// The runtime these options ask for (and a `--chart` file name checked before any
    /// work is done).
    pub fn runtime(&self) -> Result<Runtime, wsdsl::Error> {
        if let Some(path) = &self.chart {
            let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
            if !matches!(ext.as_deref(), Some("svg" | "png")) {
                let reason = "the file name must end in .svg or .png".to_string();
                return Err(wsdsl::Error::Chart { path: path.clone(), reason });
            }
        }
        runtime(self.backend.as_deref())
    }

    /// Draws `stats` to the `--chart` file, if one was given, titled `title`. A chart that
    /// cannot be drawn is said at once, and the run goes on to print its verdict (`exit` then
    /// fails the process).
    pub fn chart(&self, stats: &Stats, title: impl Display) {
        if let Some(path) = &self.chart {
            match stats.write_chart(path, &title.to_string()) {
                Ok(()) => println!("chart: {}", path.display()),
                Err(e) => {
                    eprintln!("error: {e}");
                    CHART_FAILED.store(true, Ordering::Relaxed);
                }
            }
        }
    }
}

/// The runtime from the `WSDSL_*` environment, on `--backend auto|cpu|gpu|emulate` when given.
pub fn runtime(backend: Option<&str>) -> Result<Runtime, wsdsl::Error> {
    let rt = Runtime::from_env()?;
    match backend {
        Some(b) => Ok(rt.on(Backend::parse(b)?)),
        None => Ok(rt),
    }
}

/// A command-line number that must be positive and finite (clap's `value_parser`).
pub fn positive_number(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
        Ok(_) => Err(format!("`{text}` is not a positive finite number")),
        Err(e) => Err(format!("`{text}`: {e}")),
    }
}

/// Says why the automatic backend chose the CPU, if it did.
pub fn note_fallback(note: &Option<String>) {
    if let Some(why) = note {
        println!("note: running on the CPU because {why}");
    }
}

/// Prints the verdict of an example's check, `PASS: what held` or `FAIL: what did not`,
/// and whether it passed.
pub fn report(verdict: Result<String, String>) -> bool {
    match verdict {
        Ok(held) => {
            println!("PASS: {held}");
            true
        }
        Err(why) => {
            println!("FAIL: {why}");
            false
        }
    }
}

/// Whether a `--chart` could not be drawn (`Common::chart`).
static CHART_FAILED: AtomicBool = AtomicBool::new(false);

/// 0 when the answer checked out, 1 when it did not, 2 (after printing it) on an error, or
/// when the answer checked out but its chart could not be drawn.
pub fn exit(outcome: Result<bool, impl Display>) -> ExitCode {
    ExitCode::from(status(outcome))
}

/// The exit status `exit` gives.
pub fn status(outcome: Result<bool, impl Display>) -> u8 {
    match outcome {
        Ok(true) if CHART_FAILED.load(Ordering::Relaxed) => 2,
        Ok(true) => 0,
        Ok(false) => 1,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}
