//! Every way a run can fail, each with what to do about it.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Why a run did not produce a result. Every variant names the problem, and its `Display`
/// (the message to show a user) says what to do next; each variant's documentation here says
/// the same.
#[derive(Debug)]
pub enum Error {
    /// The GPU backend was asked for ([`Backend::Gpu`](crate::Backend::Gpu)) but no usable
    /// GPU was found. Run on the CPU backend instead (`Backend::Cpu`, `WSDSL_BACKEND=cpu`), or
    /// with `Backend::Auto`, which falls back to the CPU by itself.
    NoGpu {
        /// Why no GPU could be opened (no driver, no device, the driver's error).
        reason: String,
    },
    /// A CUDA library could not be loaded (NVRTC, the driver, NVSHMEM, nvJitLink). Install it
    /// or put it where the loader looks: `hint` says how.
    LibraryMissing {
        /// The library that is missing.
        library: &'static str,
        /// Every place it was looked for, in order.
        searched: Vec<String>,
        /// How to install it (a `pip install` line, or the variable that names its path).
        hint: &'static str,
    },
    /// A CUDA driver call failed. `message` is the driver's own: check the GPU and its driver
    /// (`nvidia-smi`), or run on the CPU backend meanwhile.
    Driver {
        /// What the runtime was doing.
        during: &'static str,
        /// The driver's error.
        message: String,
    },
    /// NVRTC (or, for the host emulation, the host C++ compiler) rejected the generated
    /// kernel. The macro checks programs so that their CUDA compiles: a rejected kernel is a
    /// bug of wsdsl's (or a compiler older than the one README names) to report with the log
    /// and the saved source.
    Compile {
        /// The program's module name.
        program: &'static str,
        /// Which compiler rejected it.
        compiler: &'static str,
        /// The compiler's log.
        log: String,
        /// The whole generated source, where it could be saved.
        source: Option<PathBuf>,
        /// The generated lines around the first error (empty if they could not be found).
        excerpt: String,
    },
    /// nvJitLink could not link a kernel with NVSHMEM's device library (runs on several GPUs).
    /// Check that the NVSHMEM and nvJitLink packages are the versions README names.
    Link {
        /// The program's module name.
        program: &'static str,
        /// The linker's error log.
        log: String,
    },
    /// An NVSHMEM host call failed (runs on several GPUs). `NVSHMEM_DEBUG=WARN` (or `INFO`)
    /// makes NVSHMEM say why.
    Nvshmem {
        /// The call that failed.
        during: &'static str,
        /// Its return code.
        status: i32,
    },
    /// A fixed-size queue ran out of room: a GPU worker's deque (raise it with
    /// [`Runtime::deque_capacity`](crate::Runtime::deque_capacity) or
    /// `WSDSL_DEQUE_CAPACITY`), or the CPU backend's bound on tasks held at once
    /// (`queue` is then [`CPU_TASKS_HELD`]; raise
    /// [`Runtime::cpu_task_limit`](crate::Runtime::cpu_task_limit) if the tree is genuinely
    /// this wide, else look for a task tree that never ends).
    QueueOverflow {
        /// Which queue.
        queue: String,
        /// The tasks it holds.
        capacity: u64,
        /// At least as many as the run needed.
        needed: u64,
    },
    /// The pool of join frames (one per task waiting for its children) ran out. Raise it
    /// with [`Runtime::frames`](crate::Runtime::frames) or `WSDSL_FRAMES`.
    FramePoolExhausted {
        /// The frames the pool held.
        capacity: u64,
    },
    /// A task spawned more children than its complete handler's `max_children`. Raise it in
    /// `#[complete(max_children = N)]`.
    TooManyChildren {
        /// The task type.
        task: &'static str,
        /// Its complete handler's bound.
        max_children: u32,
        /// Where its complete handler is written (`file:line`; empty where unknown).
        handler: &'static str,
    },
    /// A handler panicked on the GPU (`panic!`, a failed `assert!`, `unwrap()` of `None`, ...)
    /// or did something Rust panics on (index out of bounds, division by zero). Fix the
    /// handler at the line `site` names.
    DeviceFault {
        /// `file:line: message`, e.g. `examples/x.rs:12: assertion failed: a < b`.
        site: String,
    },
    /// A handler panicked on the CPU backend. Fix the handler at the line `message` names.
    TaskPanicked {
        /// `file:line: message` as for [`Error::DeviceFault`] (the message alone if the
        /// program replaced the panic hook).
        message: String,
    },
    /// The run exceeded the watchdog limit. If it `stopped`, the work is larger than the
    /// limit: raise it ([`Runtime::watchdog`](crate::Runtime::watchdog),
    /// `WSDSL_WATCHDOG_SECS`). If it did not, a handler is probably looping forever: fix it,
    /// and restart the process as the message says (`on` tells what the stuck handler holds).
    Watchdog {
        /// The program's module name.
        program: &'static str,
        /// Where it ran.
        on: RanOn,
        /// The limit it exceeded.
        limit: Duration,
        /// Whether it stopped when asked.
        stopped: bool,
    },
    /// Memory could not be had. With no `file`, the CPU backend could not get memory for the
    /// run's own bookkeeping: a stack segment for tasks waiting for their children or for a
    /// deep recursion, or room for spawned tasks; the task tree is probably endless, or the
    /// machine short of memory, and a lower
    /// [`Runtime::cpu_task_limit`](crate::Runtime::cpu_task_limit) (or `recursion_limit`) stops
    /// such a run sooner. With a `file`, the graph reader could not grow its edge list while
    /// reading that file: the graph is larger than the memory left.
    OutOfMemory {
        /// What it was for.
        what: &'static str,
        /// How many more bytes it needed.
        bytes: u64,
        /// The graph file being read, when it was the graph reader that ran short.
        file: Option<std::path::PathBuf>,
    },
    /// A buffer constructor that makes its elements ([`Buffer::from_fn`](crate::Buffer::from_fn),
    /// [`ReadOnly::from_fn`](crate::ReadOnly::from_fn)) was asked for more than the host can
    /// hold: their bytes pass the largest allocation the address space allows, or the
    /// allocator refused them (`refused`). Ask for fewer elements, or free memory; a GPU run
    /// needs room for them in the device's memory too.
    ///
    /// ```
    /// use wsdsl::prelude::*;
    ///
    /// let err = ReadOnly::from_fn(usize::MAX / 2, |i| i as u64).unwrap_err();
    /// assert!(matches!(err, wsdsl::Error::BufferTooLarge { refused: false, .. }), "{err}");
    /// assert!(err.to_string().contains("ReadOnly::from_fn"), "{err}");
    /// ```
    BufferTooLarge {
        /// The constructor, `Buffer::from_fn` or `ReadOnly::from_fn`.
        constructor: &'static str,
        /// The element type, `u32` to `f64`.
        elem: &'static str,
        /// The elements asked for.
        len: usize,
        /// Bytes of one element.
        elem_bytes: usize,
        /// Whether the size was one allocation may have and the allocator refused it
        /// (otherwise the size itself is too large).
        refused: bool,
    },
    /// The run configuration is not usable: a setting out of range, a scheduler choice the
    /// program cannot run under, an input the backend refuses. The message names the setting
    /// (or the variable) and what it accepts.
    InvalidConfig(String),
    /// A chart of a run's statistics could not be written ([`Stats::write_chart`](crate::Stats::write_chart)):
    /// a file name not ending in `.svg` or `.png`, no font, or the file itself.
    Chart {
        /// The chart's file.
        path: std::path::PathBuf,
        /// Why it could not be written.
        reason: String,
    },
    /// A graph file could not be read, or a graph could not be built or generated; the
    /// [`GraphError`](crate::graph::GraphError) names the file, line and token.
    Graph(crate::graph::GraphError),
    /// One GPU of a multi-GPU run failed; the others were stopped. `message` is that GPU's
    /// error, which says what to do.
    OnGpu {
        /// The failing GPU's index in the run (`0..gpus`).
        gpu: u32,
        /// The GPUs of the run.
        gpus: u32,
        /// Its error.
        message: String,
    },
    /// This GPU stopped because another GPU of the run failed; that GPU's error is the
    /// run's, reported by the process that started the run.
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
            Error::OutOfMemory { what, bytes, file: Some(path) } => write!(
                f,
                "could not allocate {bytes} more bytes for {what} while reading the graph file {}: the graph \
                 is larger than the memory left. Free memory, or read it with duplicate edges removed \
                 (GraphOptions::remove_duplicates), which keeps the list to about the distinct edges.",
                path.display()
            ),
            Error::OutOfMemory { what, bytes, file: None } => write!(
                f,
                "the CPU backend could not allocate {bytes} more bytes for {what}: the task tree is probably \
                 endless, or the machine is short of memory. Lower the bound on tasks held at once \
                 (Runtime::cpu_task_limit or WSDSL_CPU_TASK_LIMIT), or a recursion's \
                 #[megakernel(recursion_limit = N)], to get a clear error sooner."
            ),
            Error::FramePoolExhausted { capacity } => write!(
                f,
                "the pool of {capacity} join frames ran out: tasks waiting for their children hold one \
                 each, and every GPU thread keeps up to 16 spare ones. Raise it (Runtime::frames or \
                 WSDSL_FRAMES) to {} or more; breadth-first schedules (the static scheduler, broker \
                 queues) keep many more tasks waiting than the deques.",
                (capacity * 2).next_power_of_two()
            ),
            Error::TooManyChildren { task, max_children, handler } => {
                if !handler.is_empty() {
                    write!(f, "{handler}: ")?;
                }
                write!(
                    f,
                    "a `{task}` task spawned more than {max_children} children, the `max_children` of its complete handler; \
                     raise it in `#[complete(max_children = N)]`"
                )
            }
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
            Error::BufferTooLarge { constructor, elem, len, elem_bytes, refused } => {
                let bytes = *len as u128 * *elem_bytes as u128;
                if *refused {
                    write!(
                        f,
                        "{constructor} could not allocate {len} elements of {elem} ({bytes} bytes): the host is short of \
                         memory. Ask for fewer elements or free memory (a GPU run needs room for them on the device too)."
                    )
                } else {
                    write!(
                        f,
                        "{constructor} was asked for {len} elements of {elem} ({bytes} bytes), more than one allocation can \
                         hold ({} bytes): ask for fewer elements.",
                        isize::MAX
                    )
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
    /// A GPU.
    Gpu,
    /// The host-compiled templates (`gpu::emulate`).
    EmulatedGpu,
    /// The CPU backend.
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
        match (e.out_of_memory(), e.path()) {
            (Some(bytes), Some(path)) => Error::OutOfMemory { what: "the edge list", bytes, file: Some(path.to_path_buf()) },
            _ => Error::Graph(e),
        }
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
