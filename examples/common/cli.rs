//! What every example's command line shares: the backend it runs on, the note when the GPU
//! could not be used, and the exit status. Included by each `examples/<name>/main.rs`.

use std::fmt::Display;
use std::process::ExitCode;
use wsdsl::prelude::*;

/// The runtime from the `WSDSL_*` environment, or on `--backend auto|cpu|gpu` when given.
pub fn runtime(backend: Option<&str>) -> Result<Runtime, wsdsl::Error> {
    let rt = Runtime::from_env()?;
    match backend {
        Some(b) => Ok(Runtime::new(Backend::parse(b)?)),
        None => Ok(rt),
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

/// 0 when the answer checked out, 1 when it did not, 2 (after printing it) on an error.
pub fn exit(outcome: Result<bool, impl Display>) -> ExitCode {
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
