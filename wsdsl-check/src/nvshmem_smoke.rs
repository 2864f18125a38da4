//! `gpu-check nvshmem-smoke`: the runtime's NVSHMEM smoke check (`wsdsl::gpu::nvshmem::smoke`),
//! one PASS/FAIL line per property, prefixed by the PE when there are several.

use std::process::ExitCode;
use wsdsl::gpu::nvshmem::smoke::{self, Job};

pub fn run(device: usize, threads: u32, job: &Job) -> ExitCode {
    let who = if job.nranks > 1 { format!("PE {}/{}: ", job.rank, job.nranks) } else { String::new() };
    println!("{who}NVSHMEM smoke check: GPU {device}, PE {} of {}, {threads} threads", job.rank, job.nranks);
    match smoke::run(device, threads, job) {
        Ok(checks) => {
            for c in &checks {
                println!("{who}{} {}: {}", if c.pass { "PASS" } else { "FAIL" }, c.name, c.detail);
            }
            let failed = checks.iter().filter(|c| !c.pass).count();
            println!("{who}{} passed, {failed} failed", checks.len() - failed);
            if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) }
        }
        Err(e) => {
            println!("{who}FAIL nvshmem smoke check could not run: {e}");
            ExitCode::from(1)
        }
    }
}
