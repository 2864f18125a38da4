//! gpu-check's command line: the options of the table run, and the checks run on their own.

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(about = "Run every wsdsl example on the GPU and check its answer")]
pub struct Args {
    /// Small sizes only (a quick smoke test).
    #[arg(long)]
    pub quick: bool,
    /// Timed GPU runs per workload after one warm-up run; the median is reported.
    #[arg(long, default_value_t = 5)]
    pub repeat: usize,
    /// Skip the CPU backend comparison runs.
    #[arg(long)]
    pub no_cpu: bool,
    /// Skip the matrix of scheduler configurations (worker x victim x steal).
    #[arg(long)]
    pub no_matrix: bool,
    /// Timed runs per matrix cell after its warm-up (each run's answer is checked).
    #[arg(long, default_value_t = 3)]
    pub matrix_repeat: usize,
    /// Watchdog for every GPU run, in seconds: a run that hangs fails its row instead of
    /// holding up the whole check.
    #[arg(long, default_value_t = 60)]
    pub watchdog: u64,
    /// Skip the error-path checks (overflow, watchdog): for runs under compute-sanitizer,
    /// whose slowdown defeats the watchdog's grace period.
    #[arg(long)]
    pub no_error_paths: bool,
    /// Only the workloads whose name contains this text; the error paths and the matrix are
    /// then skipped (to rerun one check many times: `--only "best-first" --repeat 20`).
    #[arg(long)]
    pub only: Option<String>,
    /// Also write the table (Markdown) to this file.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Checks run on their own instead of the table.
#[derive(Subcommand)]
pub enum Command {
    /// NVSHMEM: unique-id init, NVRTC + nvJitLink with libnvshmem_device.a,
    /// nvshmemx_cumodule_init, symmetric memory, put/quiet/atomic_fetch_add (to the next PE)
    /// and barrier/get from kernels, finalize. One PE by default; for more, start one process
    /// per PE with --pes, --rank and the same new --uid-file. Needs the pip packages of
    /// README's test command beside the driver.
    NvshmemSmoke {
        /// GPU ordinal (default: the rank).
        #[arg(long)]
        device: Option<usize>,
        /// Threads that each put and atomically add.
        #[arg(long, default_value_t = 4096)]
        threads: u32,
        /// Number of PEs (processes) in the job.
        #[arg(long, default_value_t = 1)]
        pes: u32,
        /// This process's PE.
        #[arg(long, default_value_t = 0)]
        rank: u32,
        /// With several PEs: where PE 0 writes the unique id and the others read it (a new
        /// path for every run).
        #[arg(long)]
        uid_file: Option<std::path::PathBuf>,
    },
    /// Runs a helper that loops for ever under a 2 s watchdog and prints the outcome (the
    /// child process of a chaos row, `chaos.rs`).
    #[command(hide = true)]
    Spin {
        /// gpu, host (the GPU backend, the root run by the host first), cpu or emulated.
        #[arg(long)]
        on: String,
    },
}
