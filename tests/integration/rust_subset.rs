//! The Rust a programmer writes first — helpers taking the context, traits with static
//! dispatch, the newer iterator adaptors and slice methods — as a megakernel
//! (`wsdsl_examples::subset`) whose every output native Rust recomputes: on the CPU backend, the
//! host-compiled templates and the GPU (here when there is one, and in gpu-check's
//! `rust subset differential` row), and compiled by NVRTC.

use wsdsl_examples::subset;

use wsdsl::gpu::emulate::{run_emulated, Emulation};
use wsdsl::prelude::*;
use wsdsl::KernelConfig;

fn agrees(rt: &Runtime) {
    let (answer, expected, stats) = subset::run(rt).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer, expected);
    assert!(stats.tasks > 0);
    println!("{answer}");
}

#[test]
fn rust_subset_cases_on_the_cpu_backend() {
    agrees(&Runtime::new(Backend::Cpu).cpu_threads(2));
}

#[test]
fn rust_subset_cases_on_the_host_compiled_templates() {
    let input = subset::inputs();
    let bufs = subset::buffers(&input);
    let cfg = subset::subsetk::Cfg { depth: subset::DEPTH };
    let (counters, _, _) = run_emulated::<subset::subsetk::Kernel>(&cfg, &bufs, &subset::roots(&input), &KernelConfig::default(), &Emulation::default())
        .unwrap_or_else(|e| panic!("{e}"));
    if let Err(e) = subset::check(&bufs, &counters) {
        panic!("host-compiled templates: {e}");
    }
}

#[test]
fn rust_subset_cases_on_the_gpu() {
    let rt = Runtime::new(Backend::Gpu);
    if let Err(e) = rt.gpu() {
        println!("SKIPPED (no GPU): {e}");
        return;
    }
    agrees(&rt);
    println!("GPU RUST SUBSET: PASS");
}

#[test]
fn rust_subset_program_compiles_with_nvrtc() {
    match wsdsl::gpu::compile_check::<subset::subsetk::Kernel>("sm_90") {
        Ok(bytes) => assert!(bytes > 1000),
        Err(e) => panic!("{e}"),
    }
}
