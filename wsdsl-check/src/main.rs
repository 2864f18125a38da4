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

#[allow(dead_code, unused_imports)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/bfs/kernel.rs"]
mod bfs;
#[allow(dead_code)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/cc/kernel.rs"]
mod cc;
#[allow(dead_code)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/branch_bound/kernel.rs"]
mod branch_bound;
#[allow(dead_code)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/chain/kernel.rs"]
mod chain;
#[allow(dead_code)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/dlb_bench/kernel.rs"]
mod dlb_bench;
#[allow(dead_code)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/connect4/kernel.rs"]
mod connect4;
#[allow(dead_code)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/fib/kernel.rs"]
mod fib;
#[allow(dead_code)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/fifteen/kernel.rs"]
mod fifteen;
#[allow(dead_code)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/common/graph_reference.rs"]
mod graph_reference;
#[allow(dead_code)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/knapsack/kernel.rs"]
mod knapsack;
#[allow(dead_code, unused_imports)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/mergesort/kernel.rs"]
mod mergesort;
#[allow(dead_code)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/nqueens/kernel.rs"]
mod nqueens;
#[allow(dead_code)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/parallel/kernel.rs"]
mod parallel;
#[allow(dead_code)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/octree/kernel.rs"]
mod octree;
#[allow(dead_code)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/pagerank/kernel.rs"]
mod pagerank;
#[allow(dead_code, unused_imports)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/quicksort/kernel.rs"]
mod quicksort;

#[allow(dead_code)] // the graph examples' relaxation engine; gpu-check runs its ordered part
#[path = "../../examples/common/relax.rs"]
mod relax;
#[allow(dead_code)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/sudoku/kernel.rs"]
mod sudoku;
#[allow(dead_code)] // each example kernel file also carries helpers only its CLI uses
#[path = "../../examples/uts/kernel.rs"]
mod uts;

/// The Rust subset's newer constructs, each output checked against native Rust.
#[allow(dead_code)]
#[path = "../../tests/integration/subset_kernel.rs"]
mod subset;

mod chaos;
mod endless_loop;
mod nvshmem_smoke;
use endless_loop::spinning;

use clap::{Parser, Subcommand};
use mergesort::merge_path;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use wsdsl::prelude::*;
use wsdsl::Error;

#[derive(Parser)]
#[command(about = "Run every wsdsl example on the GPU and check its answer")]
struct Args {
    /// Small sizes only (a quick smoke test).
    #[arg(long)]
    quick: bool,
    /// Timed GPU runs per workload after one warm-up run; the median is reported.
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// Skip the CPU backend comparison runs.
    #[arg(long)]
    no_cpu: bool,
    /// Skip the matrix of scheduler configurations (worker x victim x steal).
    #[arg(long)]
    no_matrix: bool,
    /// Timed runs per matrix cell after its warm-up (each run's answer is checked).
    #[arg(long, default_value_t = 3)]
    matrix_repeat: usize,
    /// Watchdog for every GPU run, in seconds: a run that hangs fails its row instead of
    /// holding up the whole check.
    #[arg(long, default_value_t = 60)]
    watchdog: u64,
    /// Skip the error-path checks (overflow, watchdog): for runs under compute-sanitizer,
    /// whose slowdown defeats the watchdog's grace period.
    #[arg(long)]
    no_error_paths: bool,
    /// Only the workloads whose name contains this text; the error paths and the matrix are
    /// then skipped (to rerun one check many times: `--only "best-first" --repeat 20`).
    #[arg(long)]
    only: Option<String>,
    /// Also write the table (Markdown) to this file.
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

/// Checks run on their own instead of the table.
#[derive(Subcommand)]
enum Command {
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

/// One row of the report.
struct Row {
    workload: String,
    backend: String,
    answer: String,
    expected: String,
    pass: bool,
    median_ms: f64,
    tasks: u64,
    steals: u64,
    note: String,
}

impl Row {
    /// A row of one GPU check, without timings.
    fn gpu_check(workload: String, answer: String, expected: String, pass: bool) -> Row {
        Row { workload, backend: "GPU".into(), answer, expected, pass, median_ms: 0.0, tasks: 0, steals: 0, note: String::new() }
    }
}

/// A workload: runs once on a runtime, returns (answer, expected, stats).
type Job<'a> = Box<dyn Fn(&Runtime) -> Result<(String, String, Stats), Error> + 'a>;

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

fn jobs(quick: bool) -> Vec<(String, Job<'static>)> {
    let mut list: Vec<(String, Job<'static>)> = Vec::new();
    let queens: &[u32] = if quick { &[8, 12] } else { &[12, 14, 16] };
    for &n in queens {
        list.push((
            format!("nqueens {n}"),
            Box::new(move |rt: &Runtime| {
                let (got, out) = nqueens::solve(rt, n)?;
                Ok((got.to_string(), nqueens::expected(n).unwrap().to_string(), out.stats))
            }),
        ));
    }
    let fibs: &[u32] = if quick { &[20] } else { &[30, 35] };
    for &n in fibs {
        list.push((
            format!("fib {n}"),
            Box::new(move |rt: &Runtime| {
                let (leaves, value, out) = fib::solve(rt, n)?;
                Ok((format!("{value} / {leaves} leaves"), format!("{} / {} leaves", fib::reference(n), fib::reference(n + 1)), out.stats))
            }),
        ));
    }
    // Each data-parallel building block against plain Rust, at every length of the suite.
    for (kind, name) in parallel::KINDS.iter().enumerate() {
        list.push((
            format!("parallel {name}"),
            Box::new(move |rt: &Runtime| {
                let suite = parallel::Suite::new(7, &parallel::LENGTHS, &[kind as u32]);
                let buffers = suite.buffers();
                let out = rt.run_with::<parallel::blocks::Kernel>((), &buffers, suite.roots())?;
                let verdict = suite.check(&buffers).map_or_else(|e| e, |()| "as plain Rust".to_string());
                Ok((format!("{verdict}, {} cases", suite.case_count()), format!("as plain Rust, {} cases", suite.case_count()), out.stats))
            }),
        ));
    }
    let sorts: &[usize] = if quick { &[100_000] } else { &[1 << 20, 1 << 22] };
    for &n in sorts {
        list.push((
            format!("mergesort {n}"),
            Box::new(move |rt: &Runtime| {
                let input = mergesort::keys(n, 7, u32::MAX);
                let cutoff = mergesort::mergesort::LEAF as u32;
                let (sorted, out) = mergesort::sort(rt, &input, cutoff)?;
                let shape = mergesort::tree_shape(n as u32, cutoff);
                let verdict = mergesort::check(&input, &sorted.data).map_or_else(|e| e, |()| "sorted permutation".to_string());
                Ok((
                    format!("{verdict}, {} leaves / {} merges", sorted.leaves, sorted.merges),
                    format!("sorted permutation, {} leaves / {} merges", shape.0, shape.1),
                    out.stats,
                ))
            }),
        ));
        list.push((
            format!("mergesort --merge-path {n}"),
            Box::new(move |rt: &Runtime| {
                let input = mergesort::keys(n, 7, u32::MAX);
                let grain = merge_path::DEFAULT_GRAIN;
                let (sorted, out) = merge_path::sort(rt, &input, 32, grain)?;
                let shape = merge_path::tree_shape(n as u32, 32, grain);
                let verdict = mergesort::check(&input, &sorted.data).map_or_else(|e| e, |()| "sorted permutation".to_string());
                Ok((
                    format!("{verdict}, {} leaves / {} merges / {} pieces", sorted.leaves, sorted.merges, sorted.pieces),
                    format!("sorted permutation, {} leaves / {} merges / {} pieces", shape.0, shape.1, shape.2),
                    out.stats,
                ))
            }),
        ));
    }
    for &n in sorts {
        list.push((
            format!("quicksort {n}"),
            Box::new(move |rt: &Runtime| {
                let input = quicksort::keys(n, 7, if n % 2 == 0 { u32::MAX } else { 1000 });
                let (sorted, out) = quicksort::sort(rt, &input, quicksort::quicksort::LEAF as u32)?;
                let verdict = quicksort::check(&input, &sorted.data).map_or_else(|e| e, |()| "sorted permutation".to_string());
                Ok((verdict, "sorted permutation".to_string(), out.stats))
            }),
        ));
    }
    // Chains: the hand-off latency per level, and values carried back up by complete handlers.
    for (chains, length, joined) in [(1u32, 10_000u32, false), (1, 10_000, true), (2_600, 2_000, false)] {
        list.push((
            format!("chain {chains} x {length}{}", if joined { ", joined" } else { "" }),
            Box::new(move |rt: &Runtime| {
                let m = chain::run(rt, chains, length, joined)?;
                let verdict = m.check(chains, length, joined).map_or_else(|e| e, |()| "every link ran".to_string());
                Ok((verdict, "every link ran".to_string(), m.stats))
            }),
        ));
    }
    // DLB_Bench: the paper's placement (68% of the tasks on a tenth of the holders), every
    // task once, counters equal to the host's own computation.
    let dlb_tasks: u64 = if quick { 200_000 } else { 4_000_000 };
    list.push((
        format!("dlb_bench {dlb_tasks} tasks, paper imbalance"),
        Box::new(move |rt: &Runtime| {
            let params = dlb_bench::dlb::Params { cost: dlb_bench::dlb::Cost::Gaussian, mean: 1000, spread: 300, seed: 1 };
            let bench = dlb_bench::Bench { tasks: dlb_tasks, holders: 1024, imbalance: dlb_bench::Imbalance::Paper, params };
            let (got, out) = dlb_bench::run(rt, &bench)?;
            let want = dlb_bench::reference(&bench);
            let show = |t: dlb_bench::Totals| format!("{} tasks, {} units, checksum {:#x}", t.tasks, t.units, t.checksum);
            Ok((show(got), show(want), out.stats))
        }),
    ));
    // Four-in-a-row end-games with known exact scores: all 1000 in one launch.
    let limit = if quick { 100 } else { 1000 };
    list.push((
        format!("connect4 Test_L3_R1, {limit} roots"),
        Box::new(move |rt: &Runtime| {
            let cases = connect4::parse_test_set(include_str!("../../data/connect4/Test_L3_R1")).expect("the bundled test set parses");
            let cases = &cases[..limit.min(cases.len())];
            let positions: Vec<_> = cases.iter().map(|c| c.position.clone()).collect();
            let (scores, out) = connect4::solve_all(rt, &positions)?;
            let matching = scores.iter().zip(cases).filter(|(s, c)| **s == c.score).count();
            Ok((format!("{matching}/{} scores match", cases.len()), format!("{0}/{0} scores match", cases.len()), out.stats))
        }),
    ));
    // The chapter's look-ahead with its heuristic, against the sequential reference search.
    let plies = if quick { 5 } else { 8 };
    let start = connect4::Position::empty();
    let (want, _) = connect4::reference_lookahead(&start, plies).expect("a valid look-ahead");
    list.push((
        format!("connect4 look-ahead {plies}, empty board"),
        Box::new(move |rt: &Runtime| {
            let (got, out) = connect4::lookahead(rt, &start, plies)?;
            Ok((format!("{:?}, best {}", got.values, got.best_column), format!("{:?}, best {}", want.values, want.best_column), out.stats))
        }),
    ));
    // Sudoku: generated puzzles with unique solutions, one root task each, against the
    // grids the sequential solver proved unique when it generated them.
    let puzzles = if quick { 100 } else { 5000 };
    let set = sudoku::generate_set(puzzles, 24, 1);
    list.push((
        format!("sudoku {puzzles} puzzles"),
        Box::new(move |rt: &Runtime| {
            let clues: Vec<sudoku::Grid> = set.iter().map(|(p, _)| *p).collect();
            let (solved, out) = sudoku::solve(rt, &clues)?;
            let right = set.iter().enumerate().filter(|&(i, (_, s))| solved.counts[i] == 1 && solved.grids[i] == *s).count();
            Ok((format!("{right}/{} unique and right", set.len()), format!("{0}/{0} unique and right", set.len()), out.stats))
        }),
    ));
    // 0/1 knapsack by branch and bound (strongly correlated items), against dynamic programming.
    let n = if quick { 60 } else { 80 };
    let items = knapsack::generate(n, 1000, knapsack::Correlation::Strong, 1);
    let capacity = items.iter().map(|&(w, _)| w).sum::<u32>() / 2;
    let optimum = knapsack::reference(&items, capacity);
    list.push((
        format!("knapsack {n} items"),
        Box::new(move |rt: &Runtime| {
            let (best, out) = knapsack::solve(rt, &items, capacity)?;
            Ok((best.to_string(), optimum.to_string(), out.stats))
        }),
    ));
    // Helpers taking the context, traits, iterator adaptors and slice methods, against native Rust.
    list.push(("rust subset differential".to_string(), Box::new(subset::run)));
    // Branch and bound over a trait: a knapsack and a tour in one run, against dynamic programming.
    let (items, cities) = if quick { (30, 9) } else { (40, 12) };
    let (knap, capacity) = branch_bound::knapsack_instance(items, 1);
    let dist = branch_bound::cities(cities, 1);
    let want = branch_bound::reference(&knap, capacity, &dist);
    list.push((
        format!("branch_bound {items} items, {cities} cities"),
        Box::new(move |rt: &Runtime| {
            let (got, out) = branch_bound::solve(rt, &knap, capacity, &dist)?;
            let show = |s: branch_bound::Solution| format!("value {}, tour {}", s.knapsack, s.tour);
            Ok((show(got), show(want), out.stats))
        }),
    ));
    // The 15-puzzle: solutions within the optimal moves + 2, against a sequential search.
    let (scramble, seed) = if quick { (100, 1) } else { (120, 1) };
    let grid = fifteen::scramble(scramble, seed);
    let bound = fifteen::optimal(&grid, scramble).expect("a scramble is solved within its moves") + 2;
    let want = fifteen::reference(&grid, bound);
    list.push((
        format!("fifteen scramble {scramble}, within {bound} moves"),
        Box::new(move |rt: &Runtime| {
            let (found, shortest, out) = fifteen::solve(rt, &grid, bound)?;
            Ok((format!("{found} solutions, shortest {shortest}"), format!("{} solutions, shortest {}", want.0, want.1), out.stats))
        }),
    ));
    // A* on the 15-puzzle (band = moves + Manhattan distance), against sequential IDA*.
    let (scramble, seed) = if quick { (40, 1) } else { (40, 3) };
    let grid = fifteen::scramble(scramble, seed);
    let optimal = fifteen::optimal(&grid, scramble).expect("a scramble is solved within its moves");
    list.push((
        format!("fifteen A* scramble {scramble} seed {seed} (ordered)"),
        Box::new(move |rt: &Runtime| {
            let found = fifteen::shortest(rt, &grid, scramble, true)?;
            let show = |m: Option<u32>| m.map_or("none".to_string(), |m| format!("{m} moves"));
            Ok((show(found.moves), show(Some(optimal)), found.out.stats))
        }),
    ));
    // Best-first branch and bound (band by bound) on the knapsack above, against dynamic
    // programming. (Its own capacity and optimum: branch_bound's instance above has others.)
    let items = knapsack::generate(n, 1000, knapsack::Correlation::Strong, 1);
    let capacity = items.iter().map(|&(w, _)| w).sum::<u32>() / 2;
    let optimum = knapsack::reference(&items, capacity);
    list.push((
        format!("knapsack best-first {n} items (ordered)"),
        Box::new(move |rt: &Runtime| {
            let run = knapsack::solve_best_first(rt, &items, capacity, true)?;
            Ok((run.best.to_string(), optimum.to_string(), run.out.stats))
        }),
    ));
    // SSSP by delta-stepping on the priority scheduler (R-MAT, weights 1..255 hashed from the
    // ends), against Dijkstra.
    let scale = if quick { 14 } else { 18 };
    let sssp = ordered_sssp_case(scale);
    list.push((
        format!("sssp delta-stepping R-MAT {scale} (delta {})", sssp.delta),
        Box::new(move |rt: &Runtime| {
            let (found, stats) = sssp.run(rt)?;
            Ok((sssp.verdict(&found), sssp.expected(), stats))
        }),
    ));
    // Octrees of up to 15 million particles, each checked particle by particle.
    let clouds: &[(usize, octree::Distribution)] = if quick {
        &[(200_000, octree::Distribution::Uniform)]
    } else {
        &[(1_000_000, octree::Distribution::Uniform), (15_000_000, octree::Distribution::Uniform), (15_000_000, octree::Distribution::Plummer)]
    };
    for &(n, distribution) in clouds {
        let particles = std::sync::Arc::new(octree::Particles::generate(distribution, n, 1));
        list.push((
            format!("octree {n} {distribution:?}"),
            Box::new(move |rt: &Runtime| {
                let (tree, out) = octree::build(rt, &particles, 32)?;
                let verdict = octree::check(&particles, 32, &tree).map_or_else(|e| format!("FAILED: {e}"), |_| "checked".to_string());
                Ok((format!("{verdict}, {} leaves", tree.leaves.len()), format!("checked, {} leaves", tree.leaves.len()), out.stats))
            }),
        ));
    }
    // Graphs: direction-optimizing BFS (a step's last task starts the next level: counts,
    // fences and compare-and-swap across the whole GPU) and union-find connected components
    // (compare-and-swap hooking), on a long-diameter grid and a skewed R-MAT graph, against
    // sequential references.
    let (side, scale) = if quick { (128, 14) } else { (1024, 20) };
    let undirected = wsdsl::graph::GraphOptions { symmetrize: true, remove_self_loops: true, remove_duplicates: true, quiet: true };
    let graphs = [
        (format!("grid {side}x{side}"), wsdsl::graph::Grid { rows: side, columns: side, delete: 0.0, seed: 1, weighted: false }.generate()),
        (format!("R-MAT {scale}"), wsdsl::graph::Rmat { scale, edge_factor: 16, seed: 1, weighted: false }.generate(&undirected)),
    ];
    for (name, g) in graphs {
        let g = g.expect("the generator's parameters are valid");
        let source = g.first_vertex_with_edges().unwrap_or(0);
        let want = bfs::reference(&g, source);
        let (reached, deepest) = bfs::reach(&want);
        let dg = bfs::device_graph(&g);
        let expected = format!("{reached} reached, depth {deepest}");
        list.push((
            format!("bfs direction-optimizing {name}"),
            Box::new(move |rt: &Runtime| {
                let (found, out) = bfs::search_direction(rt, &dg, source, bfs::Direction::default())?;
                let got = bfs::check_against(&found.depth, &want).map_or_else(|e| e, |()| expected.clone());
                Ok((got, expected.clone(), out.stats))
            }),
        ));
        let labels = graph_reference::components(&g);
        let (count, _) = graph_reference::component_summary(&labels);
        let dg = cc::DeviceGraph::new(&g).expect("generated undirected");
        list.push((
            format!("cc union-find {name}"),
            Box::new(move |rt: &Runtime| {
                let (found, out) = cc::afforest(rt, &dg, cc::Afforest::default())?;
                let got = if found.labels == labels { format!("{count} components") } else { "labels differ from the sequential BFS's".to_string() };
                Ok((got, format!("{count} components"), out.stats))
            }),
        ));
        // The pulled PageRank: shares computed on the device, scratch buffers never uploaded
        // nor copied back.
        let pg = pagerank::PullGraph::new(&g);
        let ranks = pagerank::reference(&g, Some(8));
        list.push((
            format!("pagerank pulled {name}"),
            Box::new(move |rt: &Runtime| {
                let (rank, _, out) = pagerank::pull(rt, &pg, 8, pagerank::PULL_GRAIN)?;
                let (rel, _) = pagerank::error(&rank, &ranks);
                let expected = format!("every rank within {:.0e} of float64 power iteration (32-bit shares)", pagerank::pull_tolerance(8));
                let got = if rel <= pagerank::pull_tolerance(8) { expected.clone() } else { format!("a rank off by {rel:.1e} (relative)") };
                Ok((got, expected, out.stats))
            }),
        ));
    }
    let trees: &[&str] = if quick { &["T1"] } else { &["T1", "T2", "T3", "T4", "T5", "T1L", "T2L", "T3L"] };
    for &name in trees {
        list.push((
            format!("uts {name}"),
            Box::new(move |rt: &Runtime| {
                let tree = uts::preset(name).unwrap();
                let (got, out) = uts::solve(rt, &tree)?;
                let want = tree.known.unwrap();
                let show = |t: (u64, u64, u32)| format!("{} nodes, {} leaves, depth {}", t.0, t.1, t.2);
                Ok((show(got), show(want), out.stats))
            }),
        ));
    }
    list
}

/// Whether a workload has work for more than one worker, so that the deque scheduler must
/// steal to run it (a single chain has one task at a time: nothing to steal; the
/// differential check's roots are dealt to every worker and need no stealing).
fn spreads(workload: &str) -> bool {
    !workload.starts_with("chain 1 x")
        && !workload.starts_with("rust subset")
        // A few small cases, one task each with its jobs: nothing to spread.
        && !workload.starts_with("parallel ")
        // Ordered programs run on the broker queues' bands (`order = priority`), not deques.
        && !workload.contains("delta-stepping")
        && !workload.contains("(ordered)")
        // The pulled PageRank, union-find CC and the direction-optimizing BFS name
        // `scheduler = bq` in their modules: a broker queue, no deques.
        && !workload.starts_with("pagerank pulled")
        && !workload.starts_with("cc union-find")
        && !workload.starts_with("bfs direction-optimizing")
}

/// Runs a job once to warm up (compile, load), then `repeat` times; median run time.
fn measure(name: &str, rt: &Runtime, job: &Job<'_>, repeat: usize) -> Row {
    let backend = match rt.backend() {
        Backend::Gpu => "GPU",
        _ => "CPU",
    };
    let mut row = Row {
        workload: name.to_string(),
        backend: backend.to_string(),
        answer: String::new(),
        expected: String::new(),
        pass: false,
        median_ms: 0.0,
        tasks: 0,
        steals: 0,
        note: String::new(),
    };
    let runs = if backend == "GPU" { repeat + 1 } else { repeat };
    let mut times = Vec::new();
    for i in 0..runs {
        match job(rt) {
            Ok((answer, expected, stats)) => {
                // Every run's answer counts, the warm-up's too.
                if answer != expected {
                    row.note = format!("wrong answer on run {i}{}", if backend == "GPU" && i == 0 { " (the warm-up)" } else { "" });
                    row.answer = answer;
                    row.expected = expected;
                    return row;
                }
                if backend == "GPU" && i == 0 {
                    row.note = format!(
                        "first run: compile {:.0} ms{}; {} workers, peak deque {}/{}",
                        stats.phases.compile.as_secs_f64() * 1e3,
                        if stats.phases.cache_hit { " (cached)" } else { "" },
                        stats.workers(),
                        stats.peak_queue,
                        stats.queue_capacity
                    );
                    if repeat > 0 {
                        continue;
                    }
                }
                row.pass = row.answer.is_empty() || row.answer == answer;
                if !row.pass {
                    row.note = format!("answer changed on run {i}; {}", row.note);
                    row.answer = answer;
                    row.expected = expected;
                    return row;
                }
                row.answer = answer;
                row.expected = expected;
                row.tasks = stats.tasks;
                row.steals = stats.steals;
                times.push(stats.phases.run);
            }
            Err(e) => {
                row.pass = false;
                row.note = format!("error: {e}");
                return row;
            }
        }
    }
    times.sort();
    row.median_ms = times.get(times.len() / 2).map_or(0.0, |d: &Duration| d.as_secs_f64() * 1e3);
    // Only the deques must steal to spread one root; the broker queues are shared.
    if backend == "GPU" && row.steals == 0 && spreads(name) && matches!(rt.schedule().scheduler, None | Some(wsdsl::Scheduler::Deque)) {
        row.pass = false;
        row.note = format!("no steals happened; {}", row.note);
    }
    row
}

/// A chain of tasks whose assertion fails at depth 5: a panic in a handler.
#[megakernel]
mod asserting {
    #[task]
    pub struct Step {
        pub depth: u32,
    }

    #[spawn]
    fn step(s: &Step, ctx: &mut Ctx) {
        assert!(s.depth < 5, "depth {} reached", s.depth);
        ctx.spawn(Step { depth: s.depth + 1 });
    }
}

/// The failures a user can cause must come back as the right errors, not hangs or panics,
/// and the GPU must still work afterwards.
fn error_path_checks(gpu: &Runtime) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut check = |workload: &str, expected: &str, outcome: Result<String, Error>, pass: bool| {
        let answer = match &outcome {
            Ok(v) => v.clone(),
            Err(e) => first_words(&e.to_string()),
        };
        let row = Row::gpu_check(workload.into(), answer, expected.into(), pass);
        print_row(&row);
        rows.push(row);
    };
    let tiny = Runtime::new(Backend::Gpu).deque_capacity(4).watchdog(Duration::from_secs(60));
    let outcome = nqueens::solve(&tiny, 12).map(|r| r.0.to_string());
    let pass = matches!(outcome, Err(Error::QueueOverflow { .. }));
    check("nqueens 12, deques of 4 slots", "QueueOverflow error", outcome, pass);

    let hurried = Runtime::new(Backend::Gpu).watchdog(Duration::from_millis(50));
    let started = Instant::now();
    let outcome = nqueens::solve(&hurried, 18).map(|r| r.0.to_string());
    let pass = matches!(outcome, Err(Error::Watchdog { stopped: true, .. })) && started.elapsed() < Duration::from_secs(10);
    check("nqueens 18, watchdog 50 ms", "Watchdog error, stopped", outcome, pass);

    let small_pool = Runtime::new(Backend::Gpu).frames(64).watchdog(Duration::from_secs(60));
    let outcome = fib::solve(&small_pool, 25).map(|r| r.1.to_string());
    let pass = matches!(outcome, Err(Error::FramePoolExhausted { capacity: 64 }));
    check("fib 25 (joins), a pool of 64 frames", "FramePoolExhausted error", outcome, pass);

    // The GPU's error names the Rust line and says what the CPU backend's does.
    let root = [asserting::Step { depth: 0 }];
    let native = Runtime::new(Backend::Cpu).run::<asserting::Kernel>((), root).map(|_| ());
    let outcome = gpu.run::<asserting::Kernel>((), root).map(|_| "no error".to_string());
    let pass = match (&outcome, &native) {
        (Err(Error::DeviceFault { site }), Err(Error::TaskPanicked { message })) => site == message && site.ends_with(": depth 5 reached"),
        _ => false,
    };
    check("a handler's assert! fails at depth 5", "DeviceFault, as on the CPU", outcome, pass);

    let outcome = nqueens::solve(gpu, 10).map(|r| r.0.to_string());
    let pass = matches!(&outcome, Ok(v) if v == "724");
    check("nqueens 10 after those errors", "724", outcome, pass);
    rows
}

/// The host's first levels dealt to the GPU (`Runtime::spread`, on by default): one root of
/// N-Queens 12 and of UTS T3 each, exact, with the host's levels reported.
fn spread_rows(limit: Duration) -> Vec<Row> {
    let rt = Runtime::new(Backend::Gpu).watchdog(limit);
    let t3 = uts::preset("T3").expect("a preset");
    let cases: [(&str, Job<'_>); 2] = [
        (
            "nqueens 12",
            Box::new(|rt: &Runtime| {
                let (got, out) = nqueens::solve(rt, 12)?;
                Ok((got.to_string(), nqueens::expected(12).unwrap().to_string(), out.stats))
            }),
        ),
        (
            "uts T3",
            Box::new(|rt: &Runtime| {
                let out = rt.run::<uts::uts::Kernel>(t3.params, [uts::root(t3.seed)])?;
                let got = (out.counters.nodes.get(), out.counters.leaves.get(), out.counters.depth.get());
                Ok((format!("{got:?}"), format!("{:?}", t3.known.expect("known counts")), out.stats))
            }),
        ),
    ];
    let mut rows = Vec::new();
    for (name, job) in cases {
        let row = match job(&rt) {
            Ok((answer, expected, stats)) => {
                let levels = stats.spread.as_ref().map_or(0, |s| s.levels);
                let pass = answer == expected && levels > 0;
                let mut row = Row::gpu_check(format!("{name}, first levels run by the host"), answer, expected, pass);
                row.tasks = stats.tasks;
                row.steals = stats.steals;
                row.median_ms = stats.phases.run.as_secs_f64() * 1e3;
                row.note = stats.spread.map_or("the host ran no level".into(), |s| format!("{} levels on the host, {} tasks dealt", s.levels, s.dealt));
                row
            }
            Err(e) => Row::gpu_check(format!("{name}, first levels run by the host"), first_words(&e.to_string()), "the answer".into(), false),
        };
        print_row(&row);
        rows.push(row);
    }
    rows
}

/// A progress callback sees the count grow while a run goes on, under the persistent
/// deques (host-mapped words written by the workers), a broker queue (the same) and the
/// static scheduler (the host's count of generations), and the answer stays exact.
fn progress_checks(watchdog: u64) -> Vec<Row> {
    let mut rows = Vec::new();
    for (what, n, config) in [
        ("deque", 17, wsdsl::Scheduler::Deque),
        ("BQ", 15, wsdsl::Scheduler::Bq),
        ("static", 15, wsdsl::Scheduler::Static),
    ] {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = seen.clone();
        let rt = Runtime::new(Backend::Gpu)
            .scheduler(config)
            .watchdog(Duration::from_secs(watchdog))
            .on_progress(Duration::from_millis(1), move |p| sink.lock().unwrap_or_else(|e| e.into_inner()).push(p.tasks));
        let want = nqueens::expected(n).expect("n <= 20");
        let started = Instant::now();
        let outcome = nqueens::solve(&rt, n);
        let ms = started.elapsed().as_secs_f64() * 1e3;
        let seen = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let (answer, pass, tasks) = match outcome {
            Ok((count, out)) => {
                let rising = seen.windows(2).all(|w| w[0] <= w[1]);
                let last = seen.last().copied().unwrap_or(0);
                let pass = count == want && seen.len() >= 3 && rising && last > 0 && last <= out.stats.tasks;
                (format!("{count}; {} reports, last {last} of {} tasks", seen.len(), out.stats.tasks), pass, out.stats.tasks)
            }
            Err(e) => (first_words(&e.to_string()), false, 0),
        };
        let workload = format!("nqueens {n} ({what}), progress callback every ms");
        let row = Row { median_ms: ms, tasks, ..Row::gpu_check(workload, answer, format!("{want}; rising counts"), pass) };
        print_row(&row);
        rows.push(row);
    }
    rows
}

/// N-Queens 12, UTS T3 and fork-join fib 25 under every scheduler configuration: exact
/// answers, and the run time of each (median of `repeat` runs after a warm-up).
fn scheduler_matrix(rows: &mut Vec<Row>, repeat: usize, limit: Duration) -> String {
    let mut table = String::from(
        "\n| worker | victim | steal | nqueens 12 | ms | steals | uts T3 | ms | steals | fib 25 (joins) | ms | frames |\n|---|---|---|---|---:|---:|---|---:|---:|---|---:|---:|\n",
    );
    let t3 = uts::preset("T3").unwrap();
    for config in wsdsl::gpu::all_kernel_configs(256).into_iter().chain(wsdsl::gpu::broker_kernel_configs(256)) {
        let rt = Runtime::new(Backend::Gpu).kernel_config(config).watchdog(limit).spread(0);
        let name = match config.scheduler {
            wsdsl::Scheduler::Static => "Static".to_string(),
            s @ (wsdsl::Scheduler::Bq | wsdsl::Scheduler::Bwd | wsdsl::Scheduler::Bsq) => format!("{s:?}/{:?}", config.worker),
            wsdsl::Scheduler::Deque => format!("{:?}/{:?}/{:?}", config.worker, config.victim, config.steal),
        };
        let queens: Job<'_> = Box::new(|rt: &Runtime| {
            let (got, out) = nqueens::solve(rt, 12)?;
            Ok((got.to_string(), "14200".to_string(), out.stats))
        });
        let tree: Job<'_> = Box::new(|rt: &Runtime| {
            let (got, out) = uts::solve(rt, &t3)?;
            let want = t3.known.unwrap();
            Ok((format!("{got:?}"), format!("{want:?}"), out.stats))
        });
        let joins: Job<'_> = Box::new(|rt: &Runtime| {
            let (leaves, value, out) = fib::solve(rt, 25)?;
            let joins = out.counters.joins.get();
            let mut stats = out.stats;
            // The frame high-water mark rides in `steals` for this column (see the table).
            stats.steals = stats.peak_frames;
            Ok((format!("{value}/{leaves}/{joins}"), format!("{}/{}/{}", fib::reference(25), fib::reference(26), fib::reference(26) - 1), stats))
        });
        let q = measure(&format!("nqueens 12 [{name}]"), &rt, &queens, repeat);
        let u = measure(&format!("uts T3 [{name}]"), &rt, &tree, repeat);
        let f = measure(&format!("fib 25 joins [{name}]"), &rt, &joins, repeat);
        print_row(&q);
        print_row(&u);
        print_row(&f);
        let cell = |r: &Row| if r.pass { "PASS".to_string() } else { format!("FAIL: {} {}", r.answer, r.note) };
        let (w, v, s) = match config.scheduler {
            wsdsl::Scheduler::Static => ("static baseline".to_string(), "-".to_string(), "-".to_string()),
            s @ (wsdsl::Scheduler::Bq | wsdsl::Scheduler::Bwd | wsdsl::Scheduler::Bsq) => {
                (format!("{:?} ({s:?})", config.worker), "-".to_string(), "-".to_string())
            }
            wsdsl::Scheduler::Deque => (format!("{:?}", config.worker), format!("{:?}", config.victim), format!("{:?}", config.steal)),
        };
        table.push_str(&format!(
            "| {w} | {v} | {s} | {} | {:.2} | {} | {} | {:.2} | {} | {} | {:.2} | {} |\n",
            cell(&q), q.median_ms, q.steals, cell(&u), u.median_ms, u.steals, cell(&f), f.median_ms, f.steals
        ));
        rows.push(q);
        rows.push(u);
        rows.push(f);
    }
    table
}

/// A delta-stepping SSSP instance and its Dijkstra distances.
struct OrderedSssp {
    graph: relax::DeviceGraph,
    want: Vec<u32>,
    source: u32,
    delta: u32,
}

fn ordered_sssp_case(scale: u32) -> OrderedSssp {
    let opts = wsdsl::graph::GraphOptions { symmetrize: true, remove_self_loops: true, remove_duplicates: true, quiet: true };
    let g = wsdsl::graph::Rmat { scale, edge_factor: 16, seed: 1, weighted: false }.generate(&opts).expect("an R-MAT graph");
    let weights = graph_reference::hashed_weights(&g);
    let source = g.first_vertex_with_edges().unwrap_or(0);
    let want = graph_reference::dijkstra(&g, &weights, source);
    let delta = relax::default_delta(&g, &weights);
    OrderedSssp { graph: relax::DeviceGraph::new(&g, Some(weights)), want, source, delta }
}

impl OrderedSssp {
    fn run(&self, rt: &Runtime) -> Result<(Vec<u32>, wsdsl::Stats), wsdsl::Error> {
        let mut initial = vec![u32::MAX; self.want.len()];
        initial[self.source as usize] = 0;
        let how = relax::Relaxation { grain: relax::DEFAULT_GRAIN, step: 0 };
        let (found, out) = relax::run_ordered(rt, &self.graph, initial, &[self.source], how, self.delta)?;
        Ok((found.value, out.stats))
    }

    fn expected(&self) -> String {
        format!("{} reached, as Dijkstra", self.want.iter().filter(|&&d| d != u32::MAX).count())
    }

    fn verdict(&self, got: &[u32]) -> String {
        match relax::compare(got, &self.want, "distances") {
            Ok(()) => self.expected(),
            Err(e) => e,
        }
    }
}

/// Delta-stepping SSSP on R-MAT 14 under every configuration of the priority scheduler
/// (band queues as BQ and BWD, each worker granularity): exact distances, run time, and how
/// the bands went.
fn ordered_matrix(rows: &mut Vec<Row>, repeat: usize, limit: Duration) -> String {
    let mut table = String::from("\n| ordered: band queues | worker | SSSP R-MAT 14 (delta-stepping) | ms | bands |\n|---|---|---|---:|---|\n");
    let sssp = ordered_sssp_case(14);
    for config in wsdsl::gpu::ordered_kernel_configs(256) {
        let rt = Runtime::new(Backend::Gpu).kernel_config(config).watchdog(limit);
        let job: Job<'_> = Box::new(|rt: &Runtime| {
            let (found, stats) = sssp.run(rt)?;
            Ok((sssp.verdict(&found), sssp.expected(), stats))
        });
        let name = format!("sssp R-MAT 14 ordered [{:?}/{:?}]", config.scheduler, config.worker);
        let row = measure(&name, &rt, &job, repeat);
        print_row(&row);
        let bands = job(&rt).ok().and_then(|(_, _, stats)| stats.bands).map(|b| b.to_string().replace("bands       ", "")).unwrap_or_default();
        let cell = if row.pass { "PASS".to_string() } else { format!("FAIL: {} {}", row.answer, row.note) };
        table.push_str(&format!("| {:?} | {:?} | {cell} | {:.2} | {bands} |\n", config.scheduler, config.worker, row.median_ms));
        rows.push(row);
    }
    table
}

fn first_words(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    if line.len() > 70 { format!("{}...", &line[..70]) } else { line.to_string() }
}

fn print_row(r: &Row) {
    println!(
        "{:<5} {:<36} {:<4} {:>10.3} ms  {}{}",
        if r.pass { "PASS" } else { "FAIL" },
        r.workload,
        r.backend,
        r.median_ms,
        r.answer,
        if r.note.is_empty() { String::new() } else { format!("  [{}]", r.note) }
    );
}

fn render(rows: &[Row]) -> String {
    let mut t = String::from(
        "| workload | backend | result | expected | check | median run (ms) | tasks | M tasks/s | steals | notes |\n|---|---|---|---|---|---:|---:|---:|---:|---|\n",
    );
    for r in rows {
        let rate = if r.median_ms > 0.0 { r.tasks as f64 / r.median_ms / 1e3 } else { 0.0 };
        t.push_str(&format!(
            "| {} | {} | {} | {} | {} | {:.3} | {} | {:.1} | {} | {} |\n",
            r.workload,
            r.backend,
            r.answer,
            r.expected,
            if r.pass { "PASS" } else { "FAIL" },
            r.median_ms,
            r.tasks,
            rate,
            r.steals,
            r.note
        ));
    }
    t
}

