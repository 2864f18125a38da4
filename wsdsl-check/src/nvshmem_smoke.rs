//! `gpu-check nvshmem-smoke`: the runtime's one-PE NVSHMEM smoke check
//! (`wsdsl::gpu::nvshmem::smoke`), one PASS/FAIL line per property.

use std::process::ExitCode;
use wsdsl::gpu::nvshmem::smoke;

pub fn run(device: usize, threads: u32) -> ExitCode {
    println!("NVSHMEM smoke check: GPU {device}, 1 PE, {threads} threads");
    match smoke::run(device, threads) {
        Ok(checks) => {
            for c in &checks {
                println!("{} {}: {}", if c.pass { "PASS" } else { "FAIL" }, c.name, c.detail);
            }
            let failed = checks.iter().filter(|c| !c.pass).count();
            println!("{} passed, {failed} failed", checks.len() - failed);
            if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) }
        }
        Err(e) => {
            println!("FAIL nvshmem smoke check could not run: {e}");
            ExitCode::from(1)
        }
    }
}
