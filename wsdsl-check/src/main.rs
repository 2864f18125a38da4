//! gpu-check: runs every example on the GPU against its known answer, with the CPU backend
//! in the same run for comparison, then the error paths (queue overflow, watchdog, a panic), and
//! prints a pass/fail table. Built where Rust is, run where the GPU is: it needs nothing
//! beside the binary but the CUDA driver and NVRTC.
//!
//!     gpu-check                 # everything
//!     gpu-check --quick         # small sizes only
//!     gpu-check --repeat 7      # timed GPU runs per workload (median reported)
//!     gpu-check nvshmem-smoke   # only the NVSHMEM smoke check (one PE by default; nvshmem_smoke.rs)
//!
//! The error paths end with the chaos rows (`chaos.rs`): damaged kernel-cache entries, and a
//! helper looping for ever on the GPU, the CPU backend and the host-compiled templates.
//!
//! The rows, a module per family: every example's workloads (`workloads.rs`), the error paths
//! (`error_paths.rs`), the progress callback (`progress.rs`), the host's first levels
//! (`spread.rs`), the chaos rows, and the scheduler matrices (`matrix.rs`); `report.rs` measures
//! a workload into a row and renders the table; `cli.rs` is the command line.

mod chaos;
mod cli;
mod error_paths;
mod matrix;
mod nvshmem_smoke;
mod progress;
mod report;
mod spread;
mod workloads;

use clap::Parser;
use cli::{Args, Command};
use error_paths::error_path_checks;
use matrix::{ordered_matrix, scheduler_matrix};
use progress::progress_checks;
use report::{measure, print_row, render};
use spread::spread_rows;
use std::process::ExitCode;
use std::time::Duration;
use workloads::jobs;
use wsdsl::prelude::*;

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(Command::NvshmemSmoke { device, threads, pes, rank, uid_file }) = args.command {
        let job = wsdsl::gpu::nvshmem::smoke::Job { rank, nranks: pes, uid_file };
        return nvshmem_smoke::run(device.unwrap_or(rank as usize), threads, &job);
    }
    if let Some(Command::Spin { on }) = &args.command {
        return chaos::spin(on);
    }
    let limit = Duration::from_secs(args.watchdog);
    // Every task on the GPU (no first levels run by the host, `Runtime::spread`): one root
    // must then spread through steals, which the rows check; `spread_rows` check the host's.
    let gpu = Runtime::new(Backend::Gpu).watchdog(limit).spread(0);
    match gpu.gpu() {
        Ok(dev) => println!("device: {} ({}, {} SMs)", dev.name, dev.arch, dev.sm_count),
        Err(e) => {
            eprintln!("gpu-check needs a GPU: {e}");
            return ExitCode::from(2);
        }
    }
    let cpu = Runtime::new(Backend::Cpu);
    let mut rows = Vec::new();
    let only = args.only.as_deref();
    for (name, job) in jobs(args.quick).into_iter().filter(|(name, _)| only.is_none_or(|o| name.contains(o))) {
        rows.push(measure(&name, &gpu, &job, args.repeat.max(1)));
        if !args.no_cpu {
            rows.push(measure(&name, &cpu, &job, 1));
        }
        print_row(rows.last().unwrap());
    }
    if !args.no_error_paths && only.is_none() {
        rows.extend(error_path_checks(&gpu));
        rows.extend(progress_checks(args.watchdog));
        rows.extend(spread_rows(limit));
        rows.extend(chaos::cache_rows(limit));
        rows.extend(chaos::endless_loop_rows());
    }
    let matrix = if args.no_matrix || only.is_some() {
        String::new()
    } else {
        let repeat = args.matrix_repeat.max(1);
        scheduler_matrix(&mut rows, repeat, limit) + &ordered_matrix(&mut rows, repeat, limit)
    };

    let table = format!("{}{matrix}", render(&rows));
    println!("\n{table}");
    if let Some(path) = &args.out {
        if let Err(e) = std::fs::write(path, &table) {
            eprintln!("could not write {}: {e}", path.display());
        }
    }
    let failed = rows.iter().filter(|r| !r.pass).count();
    println!("{} passed, {} failed", rows.len() - failed, failed);
    if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) }
}
