//! Every number a run can be configured with, checked in one place: the `WSDSL_*` variables
//! that [`Runtime::from_env`](crate::Runtime::from_env) reads and the `Runtime` builder
//! values that set the same things. A value that is not a whole number, or lies outside what
//! the setting accepts, is an error naming the variable (or the builder method), the value
//! and the accepted range; nothing is truncated or clamped on the way.

use crate::error::Error;

/// A whole-number setting: the variable and the builder method that set it, and the values
/// it accepts (`min..=max`, multiples of `step`).
pub(crate) struct Whole {
    pub var: &'static str,
    pub method: &'static str,
    /// What the number counts, for the error ("threads per GPU block").
    pub what: &'static str,
    pub min: u64,
    pub max: u64,
    pub step: u64,
}

impl Whole {
    /// The variable's value, if it is set (and not blank).
    pub fn from_env(&self) -> Result<Option<u64>, Error> {
        let Some(raw) = var(self.var)? else { return Ok(None) };
        match raw.trim().parse::<u64>() {
            Ok(v) if self.accepts(v) => Ok(Some(v)),
            _ => Err(self.refuse(format!("{}=`{raw}`", self.var))),
        }
    }

    /// Checks a value given to the builder method.
    pub fn check(&self, value: u64) -> Result<(), Error> {
        if self.accepts(value) {
            Ok(())
        } else {
            Err(self.refuse(format!("{}({value})", self.method)))
        }
    }

    /// [`Whole::from_env`] for a measurement setting, which takes effect only in builds with
    /// the `lab` feature; elsewhere a value set is said once to be ignored.
    pub fn lab_from_env(&self) -> Result<Option<u64>, Error> {
        if cfg!(feature = "lab") {
            self.from_env()
        } else {
            ignored_outside_lab(self.var);
            Ok(None)
        }
    }

    fn accepts(&self, v: u64) -> bool {
        (self.min..=self.max).contains(&v) && v % self.step == 0
    }

    fn refuse(&self, given: String) -> Error {
        let range = if self.step > 1 {
            format!("a multiple of {} from {} to {}", self.step, self.min, self.max)
        } else {
            format!("a whole number from {} to {}", self.min, self.max)
        };
        Error::InvalidConfig(format!("{given}: {} must be {range} ({} sets the same)", self.what, self.other(&given)))
    }

    /// The other way to set it than the one `given` used.
    fn other(&self, given: &str) -> &'static str {
        if given.starts_with(self.var) { self.method } else { self.var }
    }
}

/// Runs span 1 to this many GPUs.
pub(crate) const MAX_GPUS: u64 = 1024;

pub(crate) const THREADS: Whole =
    Whole { var: "WSDSL_THREADS", method: "Runtime::cpu_threads", what: "CPU backend threads", min: 1, max: 4096, step: 1 };
pub(crate) const DEQUE_CAPACITY: Whole = Whole {
    var: "WSDSL_DEQUE_CAPACITY",
    method: "Runtime::deque_capacity",
    what: "slots per GPU worker deque",
    min: 1,
    max: 1 << 31,
    step: 1,
};
pub(crate) const FRAMES: Whole = Whole {
    var: "WSDSL_FRAMES",
    method: "Runtime::frames",
    what: "join frames (one per task waiting for its children; a program with complete handlers needs at least one)",
    min: 1,
    max: 1 << 31,
    step: 1,
};
pub(crate) const WATCHDOG_SECS: Whole = Whole {
    var: "WSDSL_WATCHDOG_SECS",
    method: "Runtime::watchdog",
    what: "the watchdog limit in seconds",
    min: 1,
    max: u32::MAX as u64,
    step: 1,
};
pub(crate) const DEVICE: Whole =
    Whole { var: "WSDSL_DEVICE", method: "(no builder method)", what: "the GPU ordinal", min: 0, max: MAX_GPUS - 1, step: 1 };
pub(crate) const PROFILE: Whole =
    Whole { var: "WSDSL_PROFILE", method: "Runtime::profile", what: "profiling (1) or not (0)", min: 0, max: 1, step: 1 };
/// A measurement (`lab` builds): the multi-GPU kernel on one GPU, beside the one-GPU kernel.
pub(crate) const MULTI_ON_ONE: Whole = Whole {
    var: "WSDSL_MULTI_ON_ONE",
    method: "(no builder method)",
    what: "the multi-GPU kernel on one GPU, a measurement (1; 2: its heap in ordinary device memory; 3: the across-hosts kernel) or not (0)",
    min: 0,
    max: 3,
    step: 1,
};
pub(crate) const SPREAD: Whole = Whole {
    var: "WSDSL_SPREAD",
    method: "Runtime::spread",
    what: "tasks per GPU the host deals before a run (0: the roots as they are)",
    min: 0,
    max: 1 << 16,
    step: 1,
};
pub(crate) const ALONE_WHEN_NARROW: Whole = Whole {
    var: "WSDSL_ALONE_WHEN_NARROW",
    method: "Runtime::alone_when_narrow",
    what: "whether a run on several GPUs whose tree the host judges narrow goes to GPU 0 alone (1) or stays on all its GPUs (0)",
    min: 0,
    max: 1,
    step: 1,
};
pub(crate) const PROGRESS: Whole =
    Whole { var: "WSDSL_PROGRESS", method: "Runtime::progress_line", what: "the progress line (1) or none (0)", min: 0, max: 1, step: 1 };
pub(crate) const MIN_BLOCKS: Whole = Whole {
    var: "WSDSL_MIN_BLOCKS",
    method: "Runtime::min_blocks_per_sm",
    what: "blocks per SM the GPU compiler must fit (0: its choice)",
    min: 0,
    max: 32,
    step: 1,
};
pub(crate) const BAND_LOOKAHEAD: Whole = Whole {
    var: "WSDSL_BAND_LOOKAHEAD",
    method: "Runtime::band_lookahead",
    what: "priority bands above the lowest live one that GPU workers may take from",
    min: 0,
    max: crate::contract::schedule::MAX_LOOKAHEAD as u64,
    step: 1,
};
pub(crate) const BLOCK_THREADS: Whole =
    Whole { var: "WSDSL_BLOCK_THREADS", method: "Runtime::block_threads", what: "threads per GPU block", min: 32, max: 1024, step: 32 };
pub(crate) const BLOCKS_PER_SM: Whole =
    Whole { var: "WSDSL_BLOCKS_PER_SM", method: "Runtime::blocks_per_sm", what: "GPU blocks per SM", min: 1, max: 32, step: 1 };
pub(crate) const GPUS: Whole =
    Whole { var: "WSDSL_GPUS", method: "Runtime::gpus", what: "GPUs a run spans (or `all`)", min: 1, max: MAX_GPUS, step: 1 };
pub(crate) const CPU_TASK_LIMIT: Whole = Whole {
    var: "WSDSL_CPU_TASK_LIMIT",
    method: "Runtime::cpu_task_limit",
    what: "the CPU backend's bound on tasks held at once",
    min: 1,
    max: 1 << 40,
    step: 1,
};
/// A measurement of the CPU backend (`lab` builds, `cpu/tree.rs`).
pub(crate) const CPU_EAGER_DEPTH: Whole = Whole {
    var: "WSDSL_CPU_EAGER_DEPTH",
    method: "(no builder method)",
    what: "tree levels the CPU backend always forks",
    min: 0,
    max: 64,
    step: 1,
};

/// A measurement variable's text (`WSDSL_DEFINES`): as [`var`] in builds with the `lab`
/// feature; elsewhere `None`, a value set being said once to be ignored.
pub(crate) fn lab_var(name: &'static str) -> Option<String> {
    if cfg!(feature = "lab") {
        std::env::var(name).ok()
    } else {
        ignored_outside_lab(name);
        None
    }
}

/// Says once per variable that `name`, set, is a measurement setting this build ignores.
fn ignored_outside_lab(name: &'static str) {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static SAID: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    if std::env::var_os(name).is_none() {
        return;
    }
    if SAID.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner()).insert(name) {
        eprintln!("wsdsl: {name} is a measurement setting, read only by builds with the `lab` feature (cargo build --features lab); ignored");
    }
}

/// A variable's value: `None` when it is unset or blank; an error when it is not text.
pub(crate) fn var(name: &str) -> Result<Option<String>, Error> {
    match std::env::var(name) {
        Ok(v) if v.trim().is_empty() => Ok(None),
        Ok(v) => Ok(Some(v)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(v)) => Err(Error::InvalidConfig(format!("{name}={v:?} is not valid UTF-8 text"))),
    }
}

/// How many GPUs `WSDSL_GPUS` asks for: a number, or every GPU of the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GpuCount {
    Some(u32),
    All,
}

/// `WSDSL_GPUS`, if set.
pub(crate) fn gpus_from_env() -> Result<Option<GpuCount>, Error> {
    match var(GPUS.var)? {
        Some(v) if v.trim() == "all" => Ok(Some(GpuCount::All)),
        Some(_) => Ok(GPUS.from_env()?.map(|n| GpuCount::Some(n as u32))),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_outside_the_range_are_refused_with_the_range() {
        assert!(BLOCK_THREADS.check(256).is_ok());
        for bad in [0, 33, 99_999] {
            let message = BLOCK_THREADS.check(bad).unwrap_err().to_string();
            assert!(message.contains(&format!("Runtime::block_threads({bad})")), "{message}");
            assert!(message.contains("a multiple of 32 from 32 to 1024") && message.contains("WSDSL_BLOCK_THREADS"), "{message}");
            assert_eq!(message.matches("invalid configuration").count(), 1, "{message}");
        }
        assert!(DEQUE_CAPACITY.check(4_294_967_297).is_err(), "never truncated to 32 bits");
        assert!(MIN_BLOCKS.check(1000).is_err() && MIN_BLOCKS.check(32).is_ok(), "never clamped");
        assert!(FRAMES.check(0).is_err());
    }
}
