//! Every example's generated megakernel compiles with NVRTC for the H100 (sm_90), the deque
//! kernels for older architectures too. NVRTC needs no GPU; README's test command installs it
//! (`pip install nvidia-cuda-nvrtc`).

// The examples' kernels, for their generated CUDA only (their host helpers go unused here).
use crate::kernels::bfs;
use crate::kernels::cc;
use crate::kernels::dlb_bench;
use crate::kernels::fib;
#[allow(dead_code, unused_imports)]
use crate::kernels::mergesort;
use crate::kernels::nqueens;
use crate::kernels::pagerank;
#[allow(dead_code, unused_imports)]
use crate::kernels::quicksort;
use crate::kernels::nqueens_cutoff;
use crate::kernels::uts;
use crate::kernels::chain;
use crate::kernels::sudoku;
use crate::kernels::knapsack;
use crate::kernels::branch_bound;
use crate::kernels::fifteen;

use wsdsl::gpu::{compile_check, kernel_source, KernelConfig};
use wsdsl::Scheduler;
use wsdsl::Program;

fn compiles<P: Program>() {
    match compile_check::<P>("sm_90") {
        Ok(bytes) => assert!(bytes > 1000, "{}: a CUBIN of {bytes} bytes is too small to hold the kernel", P::NAME),
        Err(e) => panic!("{}: {e}", P::NAME),
    }
}

/// The bytes of the PTX NVRTC makes of `P`'s kernel under `config`: the C++ front end and
/// NVVM, without ptxas, which takes about half of a CUBIN build. For the tests that go
/// through matrices of configurations: each kernel's default configuration is built to a
/// CUBIN by its own test above, and every configuration to a CUBIN on the GPU (gpu-check).
fn ptx_bytes<P: Program>(config: &KernelConfig) -> Result<usize, wsdsl::Error> {
    config.validate_for::<P>().map_err(wsdsl::Error::InvalidConfig)?;
    let source = kernel_source::<P>(&config.with_order_of::<P>());
    wsdsl::gpu::compile::ptx_uncached(P::NAME, &source, "compute_90").map(|ptx| ptx.len())
}

#[test]
fn nqueens_kernel_compiles() {
    compiles::<nqueens::nqueens::Kernel>();
}

/// A program with a recursive helper: ptxas records the frames its GPU stack is sized by
/// (`wsdsl-runtime/src/gpu/stack.rs`).
#[test]
fn recursive_nqueens_kernel_compiles_and_records_its_frames() {
    compiles::<nqueens_cutoff::nqueens_cutoff::Kernel>();
    let source = kernel_source::<nqueens_cutoff::nqueens_cutoff::Kernel>(&KernelConfig::default());
    let cubin = wsdsl::gpu::compile::compile_uncached("nqueens_cutoff", &source, "sm_90").unwrap();
    let frames = wsdsl::gpu::elf::frame_sizes(&cubin).expect("frame sizes in .nv.info");
    assert!(frames.iter().all(|&f| f < 4096), "{frames:?}");
    println!("frame sizes: {frames:?}");
    assert!(source.contains("ws_u32 ws_depth"), "the recursive helper takes its depth");
    assert_eq!(nqueens_cutoff::nqueens_cutoff::Kernel::RECURSION, Some(wsdsl::recursion::Recursion { limit: 24, cycles: 1 }));
}

#[test]
fn fib_kernel_compiles() {
    compiles::<fib::fib::Kernel>();
}

#[test]
fn mergesort_kernels_compile() {
    compiles::<mergesort::mergesort::Kernel>();
    compiles::<mergesort::merge_path::merge_path::Kernel>();
}

/// The kernel of every data-parallel building block, under the default schedule (to a
/// CUBIN) and with block workers (a tile of 16 KiB and a scan word per thread; to PTX).
#[test]
fn parallel_jobs_kernel_compiles() {
    compiles::<crate::kernels::parallel::blocks::Kernel>();
    let config = KernelConfig { worker: wsdsl::Worker::Block, ..KernelConfig::default() };
    let bytes = ptx_bytes::<crate::kernels::parallel::blocks::Kernel>(&config).unwrap_or_else(|e| panic!("block workers: {e}"));
    assert!(bytes > 1000);
}

#[test]
fn quicksort_kernel_compiles() {
    compiles::<quicksort::quicksort::Kernel>();
}

#[test]
fn chain_kernels_compile() {
    compiles::<chain::chain::Kernel>();
    compiles::<chain::joined::Kernel>();
}

#[test]
fn sudoku_knapsack_and_fifteen_kernels_compile() {
    compiles::<sudoku::sudoku::Kernel>();
    compiles::<knapsack::knapsack::Kernel>();
    compiles::<fifteen::fifteen::Kernel>();
    compiles::<fifteen::astar::Kernel>();
    compiles::<knapsack::best_first::Kernel>();
}

#[test]
fn graph_kernels_compile() {
    compiles::<bfs::direction::direction::Kernel>();
    compiles::<bfs::relax::relax::Kernel>();
    compiles::<bfs::relax::relax_driven::Kernel>();
    compiles::<cc::afforest::Kernel>();
}

#[test]
fn branch_bound_kernel_compiles() {
    compiles::<branch_bound::bnb::Kernel>();
}

#[test]
fn dlb_bench_kernel_compiles() {
    compiles::<dlb_bench::dlb::Kernel>();
}

#[test]
fn profiled_kernels_compile() {
    let profiled = KernelConfig { profile: true, ..KernelConfig::default() };
    for (name, result) in [
        ("fib", wsdsl::gpu::compile_check_with::<fib::fib::Kernel>("sm_90", &profiled)),
        ("nqueens", wsdsl::gpu::compile_check_with::<nqueens::nqueens::Kernel>("sm_90", &profiled)),
        // On the broker queues (their own worker loop, timed the same way).
        ("pagerank pulled, BQ", wsdsl::gpu::compile_check_with::<pagerank::pagerank_pull::Kernel>("sm_90", &KernelConfig { scheduler: Scheduler::Bq, ..profiled })),
        ("pagerank pulled, BSQ", wsdsl::gpu::compile_check_with::<pagerank::pagerank_pull::Kernel>("sm_90", &KernelConfig { scheduler: Scheduler::Bsq, ..profiled })),
    ] {
        result.unwrap_or_else(|e| panic!("{name}, profiled: {e}"));
    }
}

#[test]
fn uts_kernel_compiles() {
    compiles::<uts::uts::Kernel>();
}

#[test]
fn generated_source_is_deterministic_and_points_back_at_rust() {
    let a = kernel_source::<uts::uts::Kernel>(&KernelConfig::default());
    let b = kernel_source::<uts::uts::Kernel>(&KernelConfig::default());
    assert_eq!(a, b);
    assert!(a.contains("#line") && a.contains("uts/kernel.rs"), "the CUDA names the Rust file it came from");
}

/// Every example's kernel compiles under the broker schedulers (BQ, BWD, BSQ; warp workers),
/// to PTX ([`ptx_bytes`]).
#[test]
fn example_kernels_compile_under_the_broker_schedulers() {
    for scheduler in [Scheduler::Bq, Scheduler::Bwd, Scheduler::Bsq] {
        let config = KernelConfig { scheduler, ..KernelConfig::default() };
        for (name, result) in [
            ("nqueens", ptx_bytes::<nqueens::nqueens::Kernel>(&config)),
            ("fib", ptx_bytes::<fib::fib::Kernel>(&config)),
            ("mergesort", ptx_bytes::<mergesort::mergesort::Kernel>(&config)),
            ("quicksort", ptx_bytes::<quicksort::quicksort::Kernel>(&config)),
            ("uts", ptx_bytes::<uts::uts::Kernel>(&config)),
            ("dlb_bench", ptx_bytes::<dlb_bench::dlb::Kernel>(&config)),
        ] {
            let bytes = result.unwrap_or_else(|e| panic!("{name} under {scheduler:?}: {e}"));
            assert!(bytes > 1000, "{name} under {scheduler:?}");
        }
    }
}

/// The priority scheduler's kernel (`cuda/bands.cuh`) compiles with NVRTC, under each band
/// queue and worker granularity, for delta-stepping and for a program that spawns into bands
/// with plain spawns too.
#[test]
fn ordered_kernels_compile_under_the_band_queues() {
    use crate::kernels::relax::relax_ordered;
    use crate::ordered::bands_log;
    use wsdsl::gpu::{compile_check_with, ordered_kernel_configs};
    compiles::<relax_ordered::Kernel>();
    for config in ordered_kernel_configs(256) {
        let bytes = compile_check_with::<bands_log::Kernel>("sm_90", &config).unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert!(bytes > 1000, "{config:?}");
    }
    let profiled = KernelConfig { profile: true, ..ordered_kernel_configs(256)[1] };
    compile_check_with::<relax_ordered::Kernel>("sm_90", &profiled).unwrap();
}

/// The deque kernels compile for the architectures before Hopper too (`compile_check` takes
/// the device's own one at run time): their fences include the one-directional
/// `fence.acquire` and `fence.release` (`cuda/atomics.cuh`), which LLVM's PTX backend allows
/// from sm_90 only, but NVRTC accepts for every architecture it targets. fib has joins (an
/// acquire fence per frame), UTS none.
#[test]
fn deque_kernels_compile_for_the_architectures_before_hopper() {
    for arch in ["sm_75", "sm_80", "sm_89"] {
        for (name, result) in [
            ("fib", compile_check::<fib::fib::Kernel>(arch)),
            ("uts", compile_check::<uts::uts::Kernel>(arch)),
        ] {
            let bytes = result.unwrap_or_else(|e| panic!("{name} for {arch}: {e}"));
            assert!(bytes > 1000, "{name} for {arch}: a CUBIN of {bytes} bytes");
        }
    }
}
