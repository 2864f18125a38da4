//! Every way a run can fail, each with what to do about it.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Why a run did not produce a result. Every variant names the problem and a next step.
#[derive(Debug)]
pub enum Error {
    /// The GPU backend was asked for but no usable GPU was found.
    NoGpu { reason: String },
    /// A CUDA library could not be loaded.
    LibraryMissing { library: &'static str, searched: Vec<String>, hint: &'static str },
    /// A CUDA driver call failed.
    Driver { during: &'static str, message: String },
    /// NVRTC (or, for the host emulation, the host C++ compiler) rejected the generated kernel.
    Compile { program: &'static str, compiler: &'static str, log: String, source: Option<PathBuf>, excerpt: String },
    /// nvJitLink could not link a kernel with a device library (the NVSHMEM path):
    /// `log` is the linker's error log.
    Link { program: &'static str, log: String },
    /// An NVSHMEM host call failed (`status` is its return code).
    Nvshmem { during: &'static str, status: i32 },
    /// A fixed-size queue ran out of room on the device.
    QueueOverflow { queue: String, capacity: u64, needed: u64 },
    /// The pool of join frames (one per task waiting for its children) ran out.
    FramePoolExhausted { capacity: u64 },
    /// A task spawned more children than its complete handler's `max_children`.
    TooManyChildren { task: &'static str, max_children: u32 },
    /// A handler panicked on the GPU (`panic!`, a failed `assert!`, `unwrap()` of `None`, ...)
    /// or did something Rust panics on (index out of bounds, division by zero): `site` is
    /// `file:line: message`, e.g. `examples/x.rs:12: assertion failed: a < b`.
    DeviceFault { site: String },
    /// A handler panicked on the CPU backend: `message` is `file:line: message` as for
    /// [`Error::DeviceFault`] (the message alone if the program replaced the panic hook).
    TaskPanicked { message: String },
    /// The run of `program` exceeded the watchdog limit; `stopped` says whether it stopped
    /// when asked (if not, a handler is probably looping forever).
    Watchdog { program: &'static str, on: RanOn, limit: Duration, stopped: bool },
    /// The CPU backend could not get memory for the run's own bookkeeping (`what`, `bytes`
    /// more): a stack segment for tasks waiting for their children, or room for spawned tasks.
    OutOfMemory { what: &'static str, bytes: u64 },
    /// The run configuration is not usable.
    InvalidConfig(String),
    /// A chart of a run's statistics could not be written.
    Chart { path: std::path::PathBuf, reason: String },
    /// A graph file could not be read, or a graph could not be built or generated.
    Graph(crate::graph::GraphError),
    /// One GPU of a multi-GPU run failed (`message` is its error); the others were stopped.
    OnGpu { gpu: u32, gpus: u32, message: String },
    /// This GPU stopped because another GPU of the run failed (that GPU's error is the run's).
    StoppedByPeer,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoGpu { reason } => write!(
                f,
                "no usable GPU: {reason}; run with the CPU backend instead (WSDSL_BACKEND=cpu, or Backend::Cpu)"
            ),
            Error::LibraryMissing { library, searched, hint } => {
                write!(f, "could not load {library}; searched:")?;
                for s in searched {
                    write!(f, "\n  - {s}")?;
                }
                write!(f, "\n{hint}")
            }
            Error::Driver { during, message } => write!(f, "CUDA driver error while {during}: {message}"),
            Error::Chart { path, reason } => write!(f, "could not write the chart {}: {reason}", path.display()),
            Error::Compile { program, compiler, log, source, excerpt } => {
                write!(f, "{compiler} could not compile the megakernel of `{program}`:\n{log}")?;
                if !excerpt.is_empty() {
                    write!(f, "\ngenerated source around the first error:\n{excerpt}")?;
                }
                if let Some(p) = source {
                    write!(f, "\nfull generated source: {}", p.display())?;
                }
                Ok(())
            }
            Error::Link { program, log } => write!(f, "nvJitLink could not link the kernel of `{program}`:\n{log}"),
            Error::Nvshmem { during, status } => write!(
                f,
                "NVSHMEM failed while {during} (status {status}); NVSHMEM_DEBUG=WARN (or INFO) makes it say why"
            ),
            Error::QueueOverflow { queue, capacity, needed } if queue == CPU_TASKS_HELD => write!(
                f,
                "{queue} passed the bound of {capacity} (at least {needed}): the task tree is probably endless, \
                 or a handler spawns in a loop that does not end. If the work is genuinely this wide, raise the \
                 bound (Runtime::cpu_task_limit or WSDSL_CPU_TASK_LIMIT) to {} or more.",
                needed.saturating_mul(2).next_power_of_two()
            ),
            Error::QueueOverflow { queue, capacity, needed } => write!(
                f,
                "{queue} overflowed: it holds {capacity} tasks but needed at least {needed}. \
                 Raise the capacity (Runtime::deque_capacity or WSDSL_DEQUE_CAPACITY) to {} or more.",
                needed.next_power_of_two()
            ),
            Error::OutOfMemory { what, bytes } => write!(
                f,
                "the CPU backend could not allocate {bytes} more bytes for {what}: the task tree is probably \
                 endless, or the machine is short of memory. Lower the bound on tasks held at once \
                 (Runtime::cpu_task_limit or WSDSL_CPU_TASK_LIMIT) to get a clear error sooner."
            ),
            Error::FramePoolExhausted { capacity } => write!(
                f,
                "the pool of {capacity} join frames ran out: tasks waiting for their children hold one \
                 each, and every GPU thread keeps up to 16 spare ones. Raise it (Runtime::frames or \
                 WSDSL_FRAMES) to {} or more; breadth-first schedules (the static scheduler, broker \
                 queues) keep many more tasks waiting than the deques.",
                (capacity * 2).next_power_of_two()
            ),
            Error::TooManyChildren { task, max_children } => write!(
                f,
                "a `{task}` task spawned more than {max_children} children, the `max_children` of its complete handler; \
                 raise it in `#[complete(max_children = N)]`"
            ),
            Error::DeviceFault { site } => write!(f, "a handler panicked on the device: {site}"),
            Error::TaskPanicked { message } => write!(f, "a handler panicked on the CPU backend: {message}"),
            Error::Watchdog { program, on, limit, stopped } => {
                write!(f, "the run of `{program}` on {on} exceeded the watchdog limit of {limit:?}")?;
                if *stopped {
                    write!(f, " and was stopped. Raise the limit (Runtime::watchdog or WSDSL_WATCHDOG_SECS) if the work is genuinely this large.")
                } else {
                    write!(f, " and did not stop when asked: a handler is probably looping forever. {}", on.when_stuck())
                }
            }
            Error::InvalidConfig(msg) => write!(f, "invalid configuration: {msg}"),
            Error::Graph(e) => write!(f, "{e}"),
            Error::OnGpu { gpu, gpus, message } => write!(f, "GPU {gpu} of the {gpus} in the run failed, and the others were stopped: {message}"),
            Error::StoppedByPeer => write!(f, "stopped because another GPU of the run failed"),
        }
    }
}

impl std::error::Error for Error {}

/// The queue of [`Error::QueueOverflow`] when the CPU backend's bound on tasks held at once
/// is passed (`cpu/limits.rs`); its advice names that bound's settings.
pub const CPU_TASKS_HELD: &str = "the CPU backend's tasks held at once (spawned and not yet run, or waiting for their children)";

/// Where a run that a watchdog stopped ran, and what a handler that would not stop costs there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RanOn {
    Gpu,
    /// The host-compiled templates (`gpu::emulate`).
    EmulatedGpu,
    Cpu,
    /// The host running a GPU run's first levels before it (`gpu/run/spread.rs`).
    HostBeforeGpu,
}

impl RanOn {
    fn when_stuck(self) -> &'static str {
        match self {
            RanOn::Gpu => "The GPU context is abandoned; restart the process before using the GPU again.",
            RanOn::EmulatedGpu => "Its host thread keeps running and its memory is leaked; restart the process.",
            RanOn::Cpu => "The CPU threads running such handlers are parked for good (later runs start new ones); \
                           restart the process to get their cores back.",
            RanOn::HostBeforeGpu => "Its host thread keeps running; restart the process to get its core back \
                                     (WSDSL_SPREAD=0 runs every task on the GPU, whose watchdog reports the same).",
        }
    }
}

impl fmt::Display for RanOn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RanOn::Gpu => "the GPU",
            RanOn::EmulatedGpu => "the emulated GPU",
            RanOn::Cpu => "the CPU backend",
            RanOn::HostBeforeGpu => "the host, running its first levels before the GPUs",
        })
    }
}

impl From<crate::graph::GraphError> for Error {
    fn from(e: crate::graph::GraphError) -> Error {
        Error::Graph(e)
    }
}

impl Error {
    /// The same error as text in an `InvalidConfig` (errors hold no `Clone` parts), without
    /// saying "invalid configuration" twice when it was one.
    pub(crate) fn copied(&self) -> Error {
        match self {
            Error::InvalidConfig(message) => Error::InvalidConfig(message.clone()),
            other => Error::InvalidConfig(other.to_string()),
        }
    }

    /// The CPU backend's bound on tasks held at once, `limit`, passed with `held` tasks.
    pub(crate) fn too_many_held(limit: u64, held: u64) -> Error {
        Error::QueueOverflow { queue: CPU_TASKS_HELD.into(), capacity: limit, needed: held }
    }

    pub(crate) fn driver(during: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> Error {
        move |e| Error::Driver { during, message: e.to_string() }
    }
}
