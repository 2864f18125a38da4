//! Every example's generated megakernel compiles with NVRTC for the H100 (sm_90). NVRTC needs
//! no GPU; README's test command installs it (`pip install nvidia-cuda-nvrtc`).
//!
//! The small kernels (N-Queens, fib, UTS, the chains, DLB_Bench, branch and bound, the band
//! queues' programs) are built to CUBINs, under every scheduler path and for the
//! architectures before Hopper: the template code NVVM and ptxas see (the queues' inline PTX,
//! the worker loops) is theirs as much as any program's. The large ones (the sorts, the
//! data-parallel building blocks, the graph kernels, the searches) and the matrices of
//! configurations go through NVRTC's C++ front end only ([`front_end`]): every line the macros
//! generate for them is parsed and type-checked in milliseconds, where their CUBINs took one to
//! sixteen seconds each. gpu-check builds and runs every kernel to a CUBIN on the GPU.

// The examples' kernels, for their generated CUDA.
use wsdsl_examples::bfs;
use wsdsl_examples::branch_bound;
use wsdsl_examples::cc;
use wsdsl_examples::chain;
use wsdsl_examples::dlb_bench;
use wsdsl_examples::fib;
use wsdsl_examples::fifteen;
use wsdsl_examples::knapsack;
use wsdsl_examples::max_subarray;
use wsdsl_examples::mergesort;
use wsdsl_examples::nqueens;
use wsdsl_examples::nqueens::cutoff as nqueens_cutoff;
use wsdsl_examples::pagerank;
use wsdsl_examples::quicksort;
use wsdsl_examples::sudoku;
use wsdsl_examples::uts;

use wsdsl::gpu::{compile_check, front_end_check_with, kernel_source, KernelConfig};
use wsdsl::Scheduler;
use wsdsl::Program;

fn compiles<P: Program>() {
    match compile_check::<P>("sm_90") {
        Ok(bytes) => assert!(bytes > 1000, "{}: a CUBIN of {bytes} bytes is too small to hold the kernel", P::NAME),
        Err(e) => panic!("{}: {e}", P::NAME),
    }
}

/// `P`'s kernel under `config` through NVRTC's C++ front end (no code made).
fn front_end<P: Program>(config: &KernelConfig) -> Result<(), wsdsl::Error> {
    front_end_check_with::<P>("sm_90", config)
}

/// `P`'s kernel under its own configuration through the front end, or the test fails.
fn parses<P: Program>() {
    front_end::<P>(&P::SCHEDULE.resolve()).unwrap_or_else(|e| panic!("{}: {e}", P::NAME));
}

/// The front end refuses what is not CUDA: a check that could not fail would pass anything.
#[test]
fn the_front_end_check_refuses_broken_cuda() {
    let source = kernel_source::<fib::fib::Kernel>(&KernelConfig::default());
    wsdsl::gpu::compile::front_end_uncached("fib", &source, "sm_90").unwrap();
    let broken = format!("{source}\ntemplate <class T> __device__ int broken(T x) {{ return x.no_such_field; }}\n__global__ void uses_it() {{ broken(3); }}\n");
    let err = wsdsl::gpu::compile::front_end_uncached("fib", &broken, "sm_90").unwrap_err().to_string();
    assert!(err.contains("no_such_field"), "{err}");
}

#[test]
fn nqueens_kernel_compiles() {
    compiles::<nqueens::nqueens::Kernel>();
}

/// A program with a recursive helper: ptxas records the frames its GPU stack is sized by
/// (`wsdsl-runtime/src/gpu/device/stack.rs`), the recursive helper's among them under its
/// mangled CUDA name.
#[test]
fn recursive_nqueens_kernel_compiles_and_records_its_frames() {
    use wsdsl::contract::recursion::{RecursiveFn, Recursion};
    let source = kernel_source::<nqueens_cutoff::nqueens_cutoff::Kernel>(&KernelConfig::default());
    let cubin = wsdsl::gpu::compile::compile_uncached("nqueens_cutoff", &source, "sm_90").unwrap();
    let frames = wsdsl::gpu::elf::function_frames(&cubin).expect("frame sizes in .nv.info");
    assert!(frames.iter().all(|&(_, f)| f < 4096), "{frames:?}");
    println!("frame sizes: {frames:?}");
    assert!(frames.iter().any(|(symbol, _)| symbol.contains("7f_solveE") || symbol.contains("_ZL7f_solve")), "the helper's own frame: {frames:?}");
    assert!(source.contains("ws_u32 ws_depth"), "the recursive helper takes its depth");
    let functions: &[RecursiveFn] = &[RecursiveFn { name: "solve", symbol: "f_solve", cycle: 0 }];
    assert_eq!(nqueens_cutoff::nqueens_cutoff::Kernel::RECURSION, Some(Recursion { limit: 24, cycles: 1, functions }));
}

#[test]
fn fib_kernel_compiles() {
    compiles::<fib::fib::Kernel>();
}

#[test]
fn mnk_game_kernels_compile() {
    compiles::<wsdsl_examples::mnk_game::mnk::Kernel>();
    compiles::<wsdsl_examples::mnk_game::cutoff::mnk_cutoff::Kernel>();
}

#[test]
fn max_subarray_kernel_compiles() {
    compiles::<max_subarray::max_subarray::Kernel>();
}

#[test]
fn mergesort_kernels_compile() {
    parses::<mergesort::mergesort::Kernel>();
    parses::<mergesort::merge_path::merge_path::Kernel>();
}

/// The kernel of every data-parallel building block, under the default schedule and with
/// block workers (a tile of 16 KiB and a scan word per thread).
#[test]
fn parallel_jobs_kernel_compiles() {
    parses::<wsdsl_examples::parallel::blocks::Kernel>();
    let config = KernelConfig { worker: wsdsl::Worker::Block, ..KernelConfig::default() };
    front_end::<wsdsl_examples::parallel::blocks::Kernel>(&config).unwrap_or_else(|e| panic!("block workers: {e}"));
}

#[test]
fn quicksort_kernel_compiles() {
    parses::<quicksort::quicksort::Kernel>();
}

#[test]
fn chain_kernels_compile() {
    compiles::<chain::chain::Kernel>();
    compiles::<chain::joined::Kernel>();
}

#[test]
fn sudoku_knapsack_and_fifteen_kernels_compile() {
    parses::<sudoku::sudoku::Kernel>();
    parses::<knapsack::knapsack::Kernel>();
    parses::<fifteen::fifteen::Kernel>();
    parses::<fifteen::astar::Kernel>();
    parses::<knapsack::best_first::Kernel>();
}

#[test]
fn graph_kernels_compile() {
    parses::<bfs::direction::direction::Kernel>();
    parses::<bfs::relax::relax::Kernel>();
    parses::<bfs::relax::relax_driven::Kernel>();
    parses::<cc::afforest::Kernel>();
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
        ("fib, BQ", wsdsl::gpu::compile_check_with::<fib::fib::Kernel>("sm_90", &KernelConfig { scheduler: Scheduler::Bq, ..profiled })),
        ("fib, BSQ", wsdsl::gpu::compile_check_with::<fib::fib::Kernel>("sm_90", &KernelConfig { scheduler: Scheduler::Bsq, ..profiled })),
    ] {
        result.unwrap_or_else(|e| panic!("{name}, profiled: {e}"));
    }
    for scheduler in [Scheduler::Bq, Scheduler::Bsq] {
        front_end::<pagerank::pagerank_pull::Kernel>(&KernelConfig { scheduler, ..profiled }).unwrap_or_else(|e| panic!("pagerank pulled, {scheduler:?}, profiled: {e}"));
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
    assert!(a.contains("#line") && a.contains("wsdsl-examples/src/uts.rs"), "the CUDA names the Rust file it came from");
}

/// Every example's kernel under the broker schedulers (BQ, BWD, BSQ; warp workers) through
/// the front end, and fib's to a CUBIN under each (their queues' own inline PTX).
#[test]
fn example_kernels_compile_under_the_broker_schedulers() {
    for scheduler in [Scheduler::Bq, Scheduler::Bwd, Scheduler::Bsq] {
        let config = KernelConfig { scheduler, ..KernelConfig::default() };
        for (name, result) in [
            ("nqueens", front_end::<nqueens::nqueens::Kernel>(&config)),
            ("mergesort", front_end::<mergesort::mergesort::Kernel>(&config)),
            ("quicksort", front_end::<quicksort::quicksort::Kernel>(&config)),
            ("uts", front_end::<uts::uts::Kernel>(&config)),
            ("dlb_bench", front_end::<dlb_bench::dlb::Kernel>(&config)),
        ] {
            result.unwrap_or_else(|e| panic!("{name} under {scheduler:?}: {e}"));
        }
        let bytes = wsdsl::gpu::compile_check_with::<fib::fib::Kernel>("sm_90", &config).unwrap_or_else(|e| panic!("fib under {scheduler:?}: {e}"));
        assert!(bytes > 1000, "fib under {scheduler:?}");
    }
}

/// The priority scheduler's kernel (`cuda/schedulers/bands.cuh`) compiles with NVRTC, under each band
/// queue and worker granularity, for delta-stepping and for a program that spawns into bands
/// with plain spawns too.
#[test]
fn ordered_kernels_compile_under_the_band_queues() {
    use wsdsl_examples::relax::relax_ordered;
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
/// `fence.acquire` and `fence.release` (`cuda/core/atomics.cuh`), which LLVM's PTX backend allows
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
