//! Where the host's time in a run goes, step by step (`WSDSL_TRACE_RUN=1`): the set-up the
//! launch phase sums, the kernel as the host waits for it, and the reads the copy-back phase
//! sums (`runner.rs` marks them); for a multi-GPU run, also the job's start and its steps
//! between processes (`multi/run.rs`), and the job's end (`multi/process.rs`).

use std::time::{Duration, Instant};

/// With `WSDSL_TRACE_RUN=1`, the host's time in each step of a run, one line on standard
/// error per run: where the launch and copy-back phases, and the time between them, go.
pub(crate) struct Steps {
    what: String,
    last: Instant,
    taken: Vec<(&'static str, Duration)>,
    on: bool,
}

impl Steps {
    pub fn new(program: &'static str) -> Steps {
        Steps::of(format!("run of `{program}`"))
    }

    /// Steps of something other than a run (`what`, as the line names it).
    pub fn of(what: String) -> Steps {
        static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let on = *ON.get_or_init(|| std::env::var("WSDSL_TRACE_RUN").is_ok_and(|v| v.trim() == "1"));
        Steps { what, last: Instant::now(), taken: Vec::new(), on }
    }

    /// Names what the steps are of, from now on (a run once it knows its GPU).
    pub fn name(&mut self, what: String) {
        self.what = what;
    }

    /// The step that ends now.
    pub fn mark(&mut self, step: &'static str) {
        if self.on {
            let now = Instant::now();
            self.taken.push((step, now - self.last));
            self.last = now;
        }
    }

    pub fn report(self) {
        if self.on {
            let steps: Vec<String> = self.taken.iter().map(|(step, took)| format!("{step} {:.3}", took.as_secs_f64() * 1e3)).collect();
            eprintln!("wsdsl: {}, ms: {}", self.what, steps.join(", "));
        }
    }
}
