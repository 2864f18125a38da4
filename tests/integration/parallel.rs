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

/// Sums of 32-bit keys past 32 bits: a reduction's sum and a scan's total come back whole (as
/// `i64` for `i32` keys, `u64` for `u32`), the same on the CPU backend and the host-compiled
/// templates, long enough to split into pieces on both.
#[megakernel]
pub mod wide_sums {
    use wsdsl::prelude::*;

    #[buffers]
    pub struct Data {
        pub signed: ReadOnly<i32>,
        pub unsigned: ReadOnly<u32>,
        pub scanned: Buffer<i32>,
        pub sums: Buffer<u64>,
    }

    #[task]
    pub struct Sum {
        pub n: u32,
    }

    #[spawn]
    fn sum(t: &Sum, ctx: &mut Ctx) {
        let n = t.n as usize;
        ctx.reduce_sum(&ctx.buffers.signed, 0..n);
        ctx.reduce_sum(&ctx.buffers.unsigned, 0..n);
        ctx.exclusive_scan(&ctx.buffers.signed, 0..n, -7, &ctx.buffers.scanned, 0);
    }

    #[complete]
    fn keep(_t: &Sum, ctx: &mut Ctx) {
        for k in 0..3 {
            ctx.buffers.sums.set(k, ctx.result(k));
        }
    }
}

#[test]
fn sums_of_32_bit_keys_are_64_bit_on_every_backend() {
    let n = 300_000usize;
    let signed: Vec<i32> = (0..n).map(|i| -2_000_000_000 + (i as i32 % 1000)).collect();
    let unsigned: Vec<u32> = (0..n).map(|i| 4_000_000_000 + i as u32).collect();
    let want_signed: i64 = signed.iter().map(|&v| v as i64).sum();
    let want_unsigned: u64 = unsigned.iter().map(|&v| v as u64).sum();
    assert!(want_signed < i32::MIN as i64 && want_unsigned > u32::MAX as u64);
    let data = || wide_sums::Data {
        signed: ReadOnly::from_vec(signed.clone()),
        unsigned: ReadOnly::from_vec(unsigned.clone()),
        scanned: Buffer::zeroed(n),
        sums: Buffer::zeroed(3),
    };
    let check = |d: &wide_sums::Data, backend: &str| {
        let sums = d.sums.to_vec();
        assert_eq!(sums[0] as i64, want_signed, "{backend}: reduce_sum of i32 keys");
        assert_eq!(sums[1], want_unsigned, "{backend}: reduce_sum of u32 keys");
        assert_eq!(sums[2] as i64, want_signed - 7, "{backend}: exclusive_scan's total");
        // The scan itself stays in the keys' type, wrapping as `i32` arithmetic does.
        let at = n - 1;
        let want_at = signed[..at].iter().fold(-7i32, |s, &v| s.wrapping_add(v));
        assert_eq!(d.scanned.get(at), want_at, "{backend}: the scan's last key");
    };
    let root = [wide_sums::Sum { n: n as u32 }];
    for threads in [1, 2] {
        let d = data();
        Runtime::new(Backend::Cpu).cpu_threads(threads).run_with::<wide_sums::Kernel>((), &d, root).unwrap();
        check(&d, &format!("CPU backend, {threads} threads"));
    }
    let d = data();
    run_emulated::<wide_sums::Kernel>(&(), &d, &[root[0].into()], &KernelConfig::default(), &Emulation::default()).unwrap();
    check(&d, "host-compiled templates");
}
