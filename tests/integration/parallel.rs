//! Data-parallel jobs inside a task (`ctx.copy`, `ctx.merge`, `ctx.sort`, `ctx.partition`,
//! `ctx.exclusive_scan`, `ctx.reduce_sum/min/max`, `ctx.result`): every building block against
//! its definition in plain Rust (`wsdsl_examples::parallel`), on random inputs of lengths from empty
//! to ranges that split into pieces of pieces; on the CPU backend and on the host-compiled
//! templates under every scheduler configuration (the GPU runs the same kernel: `gpu-check`).
//! Misuse panics with the same message on every backend.

use wsdsl_examples::parallel::blocks::{Case, Kernel};
use wsdsl_examples::parallel::{Suite, LENGTHS};
use crate::schedulers::{join_configs, label};
use wsdsl::gpu::emulate::{run_emulated, Emulation};
use wsdsl::prelude::*;
use wsdsl::{Error, KernelConfig};

const ALL: [u32; 9] = [0, 1, 2, 3, 4, 5, 6, 7, 8];

#[test]
fn every_building_block_matches_its_definition_on_the_cpu_backend() {
    for seed in [1, 2, 3] {
        let suite = Suite::new(seed, &LENGTHS, &ALL);
        for threads in [1, 3] {
            let rt = Runtime::new(Backend::Cpu).cpu_threads(threads);
            let b = suite.buffers();
            rt.run_with::<Kernel>((), &b, suite.roots()).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            suite.check(&b).unwrap_or_else(|e| panic!("seed {seed}, {threads} threads: {e}"));
        }
    }
}

#[test]
fn every_building_block_matches_its_definition_on_the_host_build_under_every_scheduler() {
    let suite = Suite::new(7, &LENGTHS, &ALL);
    let emu = Emulation::default();
    let mut failures = Vec::new();
    for config in join_configs() {
        let b = suite.buffers();
        match run_emulated::<Kernel>(&(), &b, &suite.roots(), &config, &emu) {
            Ok(_) => {
                if let Err(e) = suite.check(&b) {
                    failures.push(format!("{}: {e}", label(&config)));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", label(&config))),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn block_workers_run_jobs_together_on_the_host_build() {
    // A block of 64 threads is one worker: its jobs run on a tile of 4 KiB and 64 scan words.
    let suite = Suite::new(11, &[0, 1, 100, 256, 5000, 70_000], &ALL);
    let emu = Emulation::default();
    let config = KernelConfig { worker: wsdsl::Worker::Block, ..KernelConfig::default() };
    let b = suite.buffers();
    run_emulated::<Kernel>(&(), &b, &suite.roots(), &config, &emu).unwrap();
    suite.check(&b).unwrap();
}

/// A case that misuses a job, and the panic every backend reports for it.
fn misuses(suite: &Suite) -> Vec<(Case, String)> {
    // The file as Rust's panics name it: relative to the workspace's root, where Cargo
    // compiles its members from.
    let line = |text: &str| format!("wsdsl-examples/src/parallel.rs:{}: {text}", start_line());
    let base = Case { kind: 0, wide: false, lo: 0, mid: 0, hi: 10, at: 0, arg: 0, slot: 0 };
    let keys = suite.keys.len();
    vec![
        (Case { lo: 12, ..base }, line("slice index starts at 12 but ends at 10")),
        (Case { hi: keys as u32 + 1, ..base }, line(&format!("range end index {} out of range for slice of length {keys}", keys + 1))),
        (Case { kind: 1, mid: 4, hi: 3, ..base }, line("slice index starts at 4 but ends at 3")),
        (Case { at: suite.out.len() as u32 - 5, ..base }, line(&format!("range end index {} out of range for slice of length {}", suite.out.len() + 5, suite.out.len()))),
        (Case { kind: 2, hi: 300, ..base }, line("ctx.sort sorts at most 256 keys at a time, not 300; merge sorted pieces with ctx.merge")),
    ]
}

/// The line of `ctx.copy` in `start`, where a misused job panics (the others are on the
/// lines after it).
fn start_line() -> u32 {
    let source = include_str!("../../wsdsl-examples/src/parallel.rs");
    source.lines().position(|l| l.contains("0 => ctx.copy(&ctx.buffers.keys")).expect("the copy in `start`") as u32 + 1
}

#[test]
fn misused_jobs_panic_alike_on_every_backend() {
    let suite = Suite::new(5, &[10, 400], &ALL);
    for (case, want) in misuses(&suite) {
        // Each call is on its own line of `start`: the copy's, then one per kind.
        let want = want.replace(&format!(":{}:", start_line()), &format!(":{}:", start_line() + case.kind));
        let cpu = Runtime::new(Backend::Cpu).run_with::<Kernel>((), &suite.buffers(), [case]);
        match cpu {
            Err(Error::TaskPanicked { message }) => assert_eq!(message, want, "CPU backend"),
            other => panic!("{case:?}: expected a panic on the CPU backend, got {:?}", other.map(|o| o.stats)),
        }
        let emulated = run_emulated::<Kernel>(&(), &suite.buffers(), &[case.into()], &KernelConfig::default(), &Emulation::default());
        match emulated {
            Err(Error::DeviceFault { site }) => assert_eq!(site, want, "host-compiled templates"),
            other => panic!("{case:?}: expected a device fault, got {:?}", other.map(|(_, _, s)| s)),
        }
    }
}
