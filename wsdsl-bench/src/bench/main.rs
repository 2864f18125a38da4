//! bench: the fork-join, deep-tree and divide-and-conquer workloads on the GPU, side by side
//! with idiomatic rayon programs for the same algorithms on the host's cores, in one run;
//! and graphs: BFS, SSSP, CC and PageRank on every class of graph beside GAPBS on the same
//! graph (`--rows graphs`, `graph_classes.rs`), and BFS beside rayon and a hand-written CUDA
//! BFS, SSSP and PageRank beside rayon (`--rows graphs-rayon`, `graph_rows.rs`).
//! Every GPU run's answer is checked against the host's (or a known value); times are
//! medians of `--repeat` runs after a warm-up (CUDA events around the kernel; wall clock
//! around the rayon call).
//!
//!     bench                                # every row
//!     bench --rows chain,fib --repeat 5   # some rows
//!     bench --cpu --threads 2 --rows fib,mnk   # the CPU backend and rayon on 2 threads
//!     bench --rows graphs --gapbs gapbs/   # every graph class, GAPBS beside wsdsl
//!     bench --rows graphs-rayon            # BFS: wsdsl, rayon and hand-written CUDA
//!     bench --profile                      # also where the GPU workers' time went
//!
//! Built where Rust is, run where the GPU is: it needs only the CUDA driver and NVRTC.

mod baseline_bfs;
mod baseline_cuda;
mod baseline_pagerank;
mod best_first;
mod end_to_end;
mod gapbs;
mod graph_classes;
mod graph_rows;
mod host;
mod host_graphs;
mod kernels;
#[cfg(test)]
mod scaling_script;

use mergesort::merge_path;
use wsdsl_examples::nqueens::cutoff as nqueens_cutoff;
use wsdsl_examples::{bfs, cc, chain, connect4, fib, fifteen, graph_reference, knapsack, mergesort, mnk_game, nqueens, octree, pagerank, quicksort, relax, uts};

use clap::Parser;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use graph_rows::GraphInput;
use wsdsl::prelude::*;
use wsdsl::{Scheduler, Steal, Worker};

#[derive(Parser)]
#[command(about = "Fork-join and deep-tree workloads on the GPU beside rayon on the host")]
struct Args {
    /// Rows to run, comma-separated (default: all): chain, chain-schedulers, chain-joined,
    /// chains, fib, fib-plain, uts, nqueens, nqueens-cutoff, mnk (the 3 x 4 m,n,k-game beside
    /// a plain recursion on one thread), warm-call, end-to-end, mergesort
    /// (merging with ctx.merge), mergesort-path (merge-path tasks), quicksort, sorts (those
    /// three), sort-variants (block workers, 1 M keys), graphs (BFS, SSSP, CC and PageRank on
    /// every graph class beside GAPBS), graphs-rayon (BFS, SSSP and PageRank on R-MAT and
    /// p2p-Gnutella31 beside rayon and a hand-written CUDA BFS), best-first (A* on the
    /// 15-puzzle and best-first knapsack on the priority scheduler, beside the same kernels
    /// unordered).
    #[arg(long, value_delimiter = ',')]
    rows: Vec<String>,
    /// Timed runs per measurement after one warm-up; the median is reported.
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// After the timed runs, one profiled run per GPU row (where its workers' time went).
    #[arg(long)]
    profile: bool,
    /// Larger sizes too (fib 38, N-Queens 17, 16 M keys).
    #[arg(long)]
    full: bool,
    /// Run the wsdsl rows on the CPU backend instead (every core of this machine, beside the
    /// same rayon baselines).
    #[arg(long)]
    cpu: bool,
    /// Threads of the CPU backend and of the rayon baselines (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Watchdog for every GPU run, in seconds (default 120; 30 for the graph rows, so that a
    /// data-driven BFS rescanning edges without end costs half a minute, not two).
    #[arg(long)]
    watchdog: Option<u64>,
    /// Also write the table (Markdown) to this file.
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Where p2p-Gnutella31.txt.gz is (default: the repository's data/graphs, else
    /// ./data/graphs).
    #[arg(long)]
    graph_dir: Option<std::path::PathBuf>,
    /// The graph classes of `--rows graphs`, comma-separated: grid:ROWSxCOLUMNS, road:N,
    /// rmat:SCALE, uniform:N, gnutella (default: grid:2048x2048, road:4194304, rmat:22,
    /// rmat:24, uniform:4194304, gnutella; with --cpu grid:256x256, road:65536, rmat:14,
    /// rmat:16, uniform:65536, gnutella).
    #[arg(long, value_delimiter = ',', value_parser = graph_classes::Class::parse)]
    graph_classes: Vec<graph_classes::Class>,
    /// GAPBS's directory (its bfs, sssp, cc and pr binaries), run beside `--rows graphs`;
    /// without it those columns say "skipped".
    #[arg(long, value_name = "DIR")]
    gapbs: Option<std::path::PathBuf>,
    /// GAPBS's threads (OMP_NUM_THREADS; default: every core).
    #[arg(long)]
    gapbs_threads: Option<usize>,
    /// GAPBS's trials per kernel (default: --repeat).
    #[arg(long)]
    gapbs_trials: Option<usize>,
    /// Where to write the graph files GAPBS reads (default: a new directory in the system's
    /// temporary directory; each file is removed after its class).
    #[arg(long, value_name = "DIR")]
    gapbs_work: Option<std::path::PathBuf>,
    /// Where the connect4 test sets are (`connect4/Test_L3_R1`; default: the repository's
    /// data folder, else ./data).
    #[arg(long)]
    data_dir: Option<std::path::PathBuf>,
}

/// `name` under `dir`, or under the repository's data folder (else ./data).
fn data_file(dir: Option<&std::path::Path>, name: &str) -> std::path::PathBuf {
    match dir {
        Some(dir) => dir.join(name),
        None => {
            let shipped = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../data")).join(name);
            let here = std::path::Path::new("data").join(name);
            if !shipped.exists() && here.exists() { here } else { shipped }
        }
    }
}

/// One line of the report.
struct Row {
    workload: String,
    gpu_ms: f64,
    tasks: u64,
    host: Option<(String, f64)>,
    check: Result<String, String>,
    note: String,
    profile: Option<wsdsl::Profile>,
}

impl Row {
    /// A row whose runs failed with `error`.
    fn failed(workload: String, error: String) -> Row {
        Row { workload, gpu_ms: 0.0, tasks: 0, host: None, check: Err(error), note: String::new(), profile: None }
    }
}

/// N-Queens `n`'s verdict: `count` against the known number of solutions.
fn queens_verdict(n: u32, count: u64) -> Result<String, String> {
    let want = nqueens::expected(n).expect("n <= 20");
    if count == want { Ok(format!("{count}")) } else { Err(format!("got {count}, want {want}")) }
}

fn main() -> ExitCode {
    let args = Args::parse();
    // UTS T3 recurses 1,572 levels deep through rayon's parallel iterators: give the pool's
    // threads room for it (the default 2 MiB overflows).
    if let Err(e) = rayon::ThreadPoolBuilder::new().stack_size(256 << 20).num_threads(args.threads.unwrap_or(0)).build_global() {
        eprintln!("rayon pool: {e}");
    }
    let wanted = |name: &str| args.rows.is_empty() || args.rows.iter().any(|r| r == name);
    let backend = if args.cpu { Backend::Cpu } else { Backend::Gpu };
    let gpu = || {
        let rt = Runtime::new(backend).watchdog(Duration::from_secs(args.watchdog.unwrap_or(120)));
        match args.threads {
            Some(n) => rt.cpu_threads(n),
            None => rt,
        }
    };
    let mut rows = Vec::new();
    let t0 = Instant::now();
    let b = Bench { args: &args };

    if wanted("chain") {
        rows.push(announce(b.chain("chain 1 x 10000 (default scheduler)", &gpu(), 1, 10_000, false)));
    }
    if wanted("chain-schedulers") {
        for (name, rt) in [
            ("thread workers", gpu().worker(Worker::Thread)),
            ("block workers", gpu().worker(Worker::Block)),
            ("static", gpu().scheduler(Scheduler::Static)),
            ("BQ, warp", gpu().scheduler(Scheduler::Bq)),
            ("BWD, warp", gpu().scheduler(Scheduler::Bwd)),
            ("BSQ, warp", gpu().scheduler(Scheduler::Bsq)),
        ] {
            let length = if name == "static" { 2_000 } else { 10_000 };
            rows.push(announce(b.chain(&format!("chain 1 x {length} ({name})"), &rt, 1, length, false)));
        }
    }
    if wanted("chain-joined") {
        rows.push(announce(b.chain("chain 1 x 10000, joined", &gpu(), 1, 10_000, true)));
    }
    if wanted("chains") {
        for chains in [132, 1056, 2600, 8448] {
            // One root spawns every chain into one deque: give it room.
            let rt = gpu().deque_capacity(16_384);
            rows.push(announce(b.chain(&format!("chains {chains} x 2000"), &rt, chains, 2_000, false)));
        }
        let rt = gpu().deque_capacity(16_384).steal(Steal::One);
        rows.push(announce(b.chain("chains 2600 x 2000 (steal one)", &rt, 2600, 2_000, false)));
        rows.push(announce(b.chain("chains 2600 x 2000, joined", &gpu(), 2600, 2_000, true)));
    }
    if wanted("fib") {
        let sizes: &[u32] = if args.full { &[30, 35, 38] } else { &[30, 35] };
        for &n in sizes {
            rows.push(announce(b.fib(&gpu(), n, n == *sizes.last().unwrap())));
        }
        let n = *sizes.last().unwrap();
        rows.push(announce(b.fib_variant(&gpu().steal(Steal::One), n, "steal one")));
        rows.push(announce(b.fib_variant(&gpu().worker(Worker::Block), n, "block workers")));
        rows.push(announce(b.fib_variant(&gpu().min_blocks_per_sm(3), n, "registers for 3 blocks per SM")));
    }
    if wanted("fib-plain") {
        let n = if args.full { 38 } else { 35 };
        rows.push(announce(b.fib_plain(&gpu(), n)));
    }
    if wanted("uts") {
        for name in ["T1", "T3"] {
            for hash_in_child in [false, true] {
                rows.push(announce(b.uts(&gpu(), name, hash_in_child)));
            }
        }
        if args.full {
            rows.push(announce(b.uts(&gpu(), "T1L", true)));
        }
        let t3_ms = rows.iter().find(|r| r.workload == "UTS T3 (hashed in the child)").map(|r| r.gpu_ms);
        let bare = announce(b.uts_chain(&gpu(), "T3", 1, t3_ms, None));
        let bare_ms = bare.gpu_ms;
        rows.push(bare);
        rows.push(announce(b.uts_chain(&gpu(), "T3", 8, t3_ms, Some(bare_ms))));
        rows.push(announce(b.uts_variant(&gpu().steal(Steal::One), "T3", "steal one")));
        rows.push(announce(b.uts_variant(&gpu().worker(Worker::Block), "T3", "block workers")));
        rows.push(announce(b.uts_variant(&gpu().worker(Worker::Block), "T1", "block workers")));

    }
    if wanted("nqueens") {
        let sizes: &[u32] = if args.full { &[16, 17] } else { &[14, 16] };
        for &n in sizes {
            rows.push(announce(b.nqueens(&gpu(), n)));
        }
        let n = *sizes.last().unwrap();
        rows.push(announce(b.nqueens_variant(&gpu().worker(Worker::Block), n, "block workers")));
    }
    if wanted("nqueens-cutoff") {
        // Today's one task per board beside tasks to a cutoff row and then a recursive search
        // per task (`wsdsl_examples::nqueens::cutoff`), in one run.
        rows.push(announce(b.nqueens_variant(&gpu(), 17, "one task per board")));
        for cutoff in [4, 5, 6] {
            rows.push(announce(b.nqueens_cutoff(&gpu(), 17, cutoff)));
        }
    }
    if wanted("mnk") {
        // A task per position beside tasks for the first moves and then a recursion per
        // task (`wsdsl_examples::mnk_game::cutoff`), both beside the plain recursion.
        let board = mnk_game::Board { columns: 3, rows: 4, k: 3 };
        rows.push(announce(b.mnk(&gpu(), board, None)));
        rows.push(announce(b.mnk(&gpu(), board, Some(4))));
    }
    if wanted("warm-call") && !args.cpu {
        rows.push(announce(b.warm_call(&gpu(), 14)));
        // What watching costs the kernel: the same runs with a progress callback (the workers
        // then write their counts to host-mapped memory every 8 ms), beside the rows above.
        let watched = || gpu().on_progress(Duration::from_millis(100), |_| {});
        rows.push(announce(b.nqueens_variant(&watched(), 16, "watched")));
        rows.push(announce(b.fib_variant(&watched(), 35, "watched")));
        rows.push(announce(b.uts_variant(&watched(), "T3", "watched")));
    }
    if wanted("end-to-end") && !args.cpu {
        rows.push(announce(b.octree_call(&gpu(), if args.full { 15_000_000 } else { 1_000_000 })));
        rows.push(announce(b.connect4_call(&gpu(), &data_file(args.data_dir.as_deref(), "connect4/Test_L3_R1"))));
    }
    let sort_keys = if args.full { 16 << 20 } else { 1 << 20 };
    if wanted("mergesort") || wanted("sorts") {
        rows.push(announce(b.sort(&gpu(), Sort::Merge, sort_keys)));
    }
    if wanted("mergesort-path") || wanted("sorts") {
        rows.push(announce(b.sort(&gpu(), Sort::MergePath, sort_keys)));
    }
    if wanted("quicksort") || wanted("sorts") {
        rows.push(announce(b.sort(&gpu(), Sort::Quick, sort_keys)));
    }
    if wanted("best-first") {
        for (scramble, seed) in [(40, 3), (40, 1)] {
            rows.push(announce(b.astar(&gpu(), scramble, seed, true)));
            rows.push(announce(b.astar(&gpu(), scramble, seed, false)));
        }
        for (n, seed) in [(100, 2), (60, 1)] {
            rows.push(announce(b.knapsack_best_first(&gpu(), n, seed, true)));
            rows.push(announce(b.knapsack_best_first(&gpu(), n, seed, false)));
            rows.push(announce(b.knapsack_depth_first(&gpu(), n, seed)));
        }
    }
    if wanted("sort-variants") {
        for which in [Sort::Merge, Sort::Quick] {
            rows.push(announce(b.sort(&gpu().worker(Worker::Block), which, sort_keys)));
            rows.push(announce(b.sort(&gpu(), which, 1 << 20)));
        }
    }
    let mut class_rows = Vec::new();
    let gapbs = gapbs::Gapbs {
        dir: args.gapbs.clone(),
        threads: args.gapbs_threads.unwrap_or_else(gapbs::all_cores),
        trials: args.gapbs_trials.unwrap_or(args.repeat),
    };
    if wanted("graphs") {
        let graph_rt = || Runtime::new(backend).watchdog(Duration::from_secs(args.watchdog.unwrap_or(30)));
        let classes = if args.graph_classes.is_empty() { graph_classes::Class::defaults(args.cpu) } else { args.graph_classes.clone() };
        // The hand-written CUDA PageRank needs the GPU itself: compiled once for every class.
        let cuda_pagerank = if args.cpu { None } else { Some(baseline_pagerank::CudaPageRank::new()) };
        match graph_classes::work_dir(args.gapbs_work.as_deref()) {
            Ok(work) => {
                for class in &classes {
                    b.graph_class(&graph_rt, class, &gapbs, &work, cuda_pagerank.as_ref(), &mut class_rows);
                }
                if args.gapbs_work.is_none() {
                    let _ = std::fs::remove_dir(&work);
                }
            }
            Err(e) => class_rows.push(graph_classes::ClassRow::failed("graphs".into(), format!("no directory for GAPBS's graph files: {e}"))),
        }
    }
    if wanted("graphs-rayon") {
        // The hand-written CUDA BFS needs the GPU itself: compiled once for every graph.
        let cuda = if args.cpu { None } else { Some(baseline_bfs::CudaBfs::new()) };
        let graph_rt = || Runtime::new(backend).watchdog(Duration::from_secs(args.watchdog.unwrap_or(30)));
        for input in [GraphInput::Rmat(20), GraphInput::Rmat(22), GraphInput::File("p2p-Gnutella31.txt.gz")] {
            b.bfs(&graph_rt, input, cuda.as_ref(), &mut rows);
        }
        for input in [GraphInput::Rmat(22), GraphInput::File("p2p-Gnutella31.txt.gz")] {
            b.sssp(&graph_rt, input, &mut rows);
            b.pagerank(&graph_rt, input, &mut rows);
        }
    }

    let wsdsl = if args.cpu { "CPU backend" } else { "GPU" };
    let mut tables = Vec::new();
    if !rows.is_empty() {
        tables.push(render(&rows, wsdsl));
    }
    if !class_rows.is_empty() {
        tables.push(graph_classes::render(&class_rows, wsdsl, &gapbs));
    }
    let table = tables.join("\n");
    println!("\n{table}");
    println!("wall time {:.1} s", t0.elapsed().as_secs_f64());
    if let Some(path) = &args.out {
        if let Err(e) = std::fs::write(path, &table) {
            eprintln!("could not write {}: {e}", path.display());
        }
    }
    if rows.iter().all(|r| r.check.is_ok()) && class_rows.iter().all(|r| r.check.is_ok()) {
        println!("all rows checked: PASS");
        ExitCode::SUCCESS
    } else {
        println!("some rows FAILED");
        ExitCode::from(1)
    }
}

struct Bench<'a> {
    args: &'a Args,
}

/// Prints a finished row at once (a long bench shows its progress, and a crash keeps what
/// was measured before it).
fn announce(row: Row) -> Row {
    let host = row.host.as_ref().map_or(String::new(), |(name, ms)| format!(", host {ms:.2} ms ({name})"));
    let check = match &row.check {
        Ok(s) => format!("PASS {s}"),
        Err(e) => format!("FAIL {e}"),
    };
    println!("{}: wsdsl {:.3} ms{host}; {check} {}", row.workload, row.gpu_ms, row.note);
    if let Some(p) = &row.profile {
        println!("  {p}");
    }
    row
}

/// The median of `repeat` runs after a warm-up, with the last run's result.
fn median_of<T>(repeat: usize, mut run: impl FnMut() -> Result<(T, Duration), String>) -> Result<(T, f64), String> {
    run()?;
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..repeat.max(1) {
        let (value, took) = run()?;
        times.push(took.as_secs_f64() * 1e3);
        last = Some(value);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    Ok((last.expect("at least one run"), times[times.len() / 2]))
}

/// The host baseline: median wall time of `repeat` runs after a warm-up.
fn host_median<T>(repeat: usize, mut run: impl FnMut() -> T) -> (T, f64) {
    median_of(repeat, || {
        let t = Instant::now();
        let v = run();
        Ok((v, t.elapsed()))
    })
    .expect("host runs do not fail")
}

impl Bench<'_> {
    /// A GPU row: times `run` (which returns the answer and the run's statistics), checks
    /// the last answer, and with `--profile` runs once more profiled.
    fn gpu_row<T>(
        &self,
        workload: String,
        rt: &Runtime,
        run: impl Fn(&Runtime) -> Result<(T, Stats), wsdsl::Error>,
        check: impl Fn(&T) -> Result<String, String>,
    ) -> Row {
        let timed = median_of(self.args.repeat, || {
            let (v, stats) = run(rt).map_err(|e| e.to_string())?;
            let took = stats.phases.run;
            Ok(((v, stats), took))
        });
        let ((value, stats), ms) = match timed {
            Ok(t) => t,
            Err(e) => return Row::failed(workload, e),
        };
        let profile = if self.args.profile && !self.args.cpu {
            let mut profiled =
                Runtime::new(Backend::Gpu).kernel_config(rt.schedule().resolve()).profile(true).min_blocks_per_sm(rt.min_blocks());
            if let Some(slots) = rt.schedule().capacity {
                profiled = profiled.deque_capacity(slots);
            }
            run(&profiled).ok().and_then(|(_, s)| s.profile)
        } else {
            None
        };
        Row { workload, gpu_ms: ms, tasks: stats.tasks, host: None, check: check(&value), note: String::new(), profile }
    }

    fn chain(&self, name: &str, rt: &Runtime, chains: u32, length: u32, joined: bool) -> Row {
        let mut row = self.gpu_row(
            name.to_string(),
            rt,
            |rt| chain::run(rt, chains, length, joined).map(|m| (m.check(chains, length, joined), m.stats)),
            |checked| checked.clone().map(|()| "every link ran".to_string()),
        );
        row.note = format!("{:.2} us per level", row.gpu_ms * 1e3 / length as f64);
        row
    }

    fn fib(&self, rt: &Runtime, n: u32, with_host: bool) -> Row {
        let mut row = self.gpu_row(
            format!("fib({n}) with joins"),
            rt,
            |rt| fib::solve(rt, n).map(|(leaves, value, out)| ((leaves, value), out.stats)),
            |&(leaves, value)| {
                let want = (fib::reference(n), fib::reference(n + 1));
                if (value, leaves) == want { Ok(format!("{value}")) } else { Err(format!("got {value} / {leaves} leaves, want {want:?}")) }
            },
        );
        if with_host {
            let (got, ms) = host_median(self.args.repeat, || host::fib(n));
            if got != (fib::reference(n), fib::reference(n + 1)) {
                row.check = Err(format!("rayon fib({n}) gave {got:?}"));
            }
            row.host = Some((format!("rayon join, fib({n})"), ms));
        }
        row
    }

    /// fib(n) with joins under another scheduler configuration (no host baseline).
    fn fib_variant(&self, rt: &Runtime, n: u32, what: &str) -> Row {
        let mut row = self.fib(rt, n, false);
        row.workload = format!("fib({n}) with joins ({what})");
        row
    }

    fn fib_plain(&self, rt: &Runtime, n: u32) -> Row {
        self.gpu_row(
            format!("fib({n}) without joins (leaves sum their n)"),
            rt,
            |rt| {
                let out = rt.run::<kernels::fib_plain::Kernel>((), [kernels::fib_plain::Call { n }])?;
                Ok(((out.counters.value.get(), out.counters.leaves.get()), out.stats))
            },
            |&(value, leaves)| {
                let want = (fib::reference(n), fib::reference(n + 1));
                if (value, leaves) == want { Ok(format!("{value}")) } else { Err(format!("got {value} / {leaves} leaves, want {want:?}")) }
            },
        )
    }

    fn uts(&self, rt: &Runtime, name: &str, hash_in_child: bool) -> Row {
        let mut tree = uts::preset(name).expect("a published tree");
        tree.params.hash_in_child = hash_in_child as u32;
        let known = tree.known.expect("published trees have known sizes");
        let mut row = self.gpu_row(
            format!("UTS {name} (hashed in the {})", if hash_in_child { "child" } else { "parent" }),
            rt,
            |rt| uts::solve(rt, &tree).map(|(shape, out)| (shape, out.stats)),
            |&shape| if shape == known { Ok(format!("{} nodes", shape.0)) } else { Err(format!("got {shape:?}, want {known:?}")) },
        );
        let (got, ms) = host_median(self.args.repeat, || host::uts(&tree));
        if got != known {
            row.check = Err(format!("rayon UTS {name} gave {got:?}"));
        }
        row.host = Some(("rayon par_iter per node".into(), ms));
        row
    }

    /// A published UTS tree (hashed in the child) under another configuration, no host run.
    fn uts_variant(&self, rt: &Runtime, name: &str, what: &str) -> Row {
        let tree = uts::preset(name).expect("a published tree");
        let known = tree.known.expect("published trees have known sizes");
        self.gpu_row(
            format!("UTS {name} ({what})"),
            rt,
            |rt| uts::solve(rt, &tree).map(|(shape, out)| (shape, out.stats)),
            |&shape| if shape == known { Ok(format!("{} nodes", shape.0)) } else { Err(format!("got {shape:?}, want {known:?}")) },
        )
    }

    /// The depth bound of tree `name`: a chain as deep as the tree, each node doing a node's
    /// work and spawning `width` children of which one goes on (1: a bare chain; the tree's
    /// m: the work of its inner nodes, which all have m children). `bare_ms`: the bare chain's
    /// time, to state both bounds. Its time per level is one node's latency, and the tree's
    /// run time (`tree_ms`) is compared with levels x that.
    fn uts_chain(&self, rt: &Runtime, name: &str, width: u32, tree_ms: Option<f64>, bare_ms: Option<f64>) -> Row {
        let mut tree = uts::preset(name).expect("a published tree");
        let (_, _, depth) = tree.known.expect("published trees have known sizes");
        let levels = depth + 1;
        tree.params.chain_depth = levels;
        tree.params.chain_width = width;
        let want = (1 + depth as u64 * width as u64, depth as u64 * (width as u64 - 1) + 1, depth);
        let shape = if width == 1 { "one child each".to_string() } else { format!("{width} children each, one going on") };
        let mut row = self.gpu_row(
            format!("UTS {name} node chain ({levels} levels, {shape})"),
            rt,
            |rt| uts::solve(rt, &tree).map(|(shape, out)| (shape, out.stats)),
            |&shape| if shape == want { Ok(format!("{} nodes, {levels} levels", want.0)) } else { Err(format!("got {shape:?}, want {want:?}")) },
        );
        let per_level_us = row.gpu_ms * 1e3 / levels as f64;
        let mut note = format!("{per_level_us:.2} us per level");
        if let Some(t) = tree_ms {
            note += &format!("; {name}'s depth bound {:.2} ms, its run {t:.2} ms = {:.2}x the bound", row.gpu_ms, t / row.gpu_ms);
            if let Some(bare) = bare_ms {
                note += &format!(" ({:.2}x the bare chain's {bare:.2} ms)", t / bare);
            }
        }
        row.note = note;
        row
    }

    /// N-Queens under another configuration (no host run).
    fn nqueens_variant(&self, rt: &Runtime, n: u32, what: &str) -> Row {
        self.nqueens_row(rt, n, format!("N-Queens {n} ({what})"))
    }

    fn nqueens_row(&self, rt: &Runtime, n: u32, workload: String) -> Row {
        self.gpu_row(workload, rt, |rt| nqueens::solve(rt, n).map(|(count, out)| (count, out.stats)), |&count| queens_verdict(n, count))
    }

    /// N-Queens with tasks down to row `cutoff`, then a recursive search on each task's thread.
    fn nqueens_cutoff(&self, rt: &Runtime, n: u32, cutoff: u32) -> Row {
        let workload = format!("N-Queens {n} (tasks to row {cutoff}, then recursion)");
        self.gpu_row(workload, rt, |rt| nqueens_cutoff::solve(rt, n, cutoff).map(|(count, out)| (count, out.stats)), |&count| queens_verdict(n, count))
    }

    /// The m,n,k-game on `board`, a task per position or tasks for `cutoff` moves, beside the
    /// plain recursion on one host thread.
    fn mnk(&self, rt: &Runtime, board: mnk_game::Board, cutoff: Option<u32>) -> Row {
        let form = cutoff.map_or(String::new(), |c| format!(", tasks for {c} moves, then recursion"));
        let want = board.known().expect("a board of known value");
        let mut row = self.gpu_row(
            format!("m,n,k-game {board} ({} positions{form})", want.1),
            rt,
            |rt| match cutoff {
                None => mnk_game::solve(rt, board).map(|(v, p, out)| ((v, p), out.stats)),
                Some(c) => mnk_game::cutoff::solve(rt, board, c).map(|(v, p, out)| ((v, p), out.stats)),
            },
            |&got| if got == want { Ok(format!("value {}", got.0)) } else { Err(format!("got {got:?}, want {want:?}")) },
        );
        let (got, ms) = host_median(self.args.repeat, || mnk_game::sequential(board));
        if got != want {
            row.check = Err(format!("the plain recursion gave {got:?}"));
        }
        row.host = Some(("plain recursion, one thread".into(), ms));
        row
    }

    fn nqueens(&self, rt: &Runtime, n: u32) -> Row {
        let mut row = self.nqueens_row(rt, n, format!("N-Queens {n}"));
        let (got, ms) = host_median(self.args.repeat, || host::nqueens(n));
        if queens_verdict(n, got).is_err() {
            row.check = Err(format!("rayon N-Queens {n} gave {got}"));
        }
        row.host = Some(("rayon, parallel top 4 rows".into(), ms));
        row
    }

    /// A GPU sort of `keys` pseudo-random u32 keys beside rayon's `par_sort_unstable` of the
    /// same keys (the host time includes copying the input, as the GPU's excludes it).
    fn sort(&self, rt: &Runtime, which: Sort, keys: usize) -> Row {
        let input = mergesort::keys(keys, 7, u32::MAX);
        let check = |sorted: &Vec<u32>| mergesort::check(&input, sorted).map(|()| "sorted permutation".into());
        let leaf = mergesort::mergesort::LEAF as u32;
        let mut row = match which {
            Sort::Merge => self.gpu_row(
                format!("mergesort {} M keys (ctx.merge, cutoff {leaf})", keys >> 20),
                rt,
                |rt| mergesort::sort(rt, &input, leaf).map(|(sorted, out)| (sorted.data, out.stats)),
                check,
            ),
            Sort::MergePath => self.gpu_row(
                format!("mergesort {} M keys (merge-path tasks, cutoff 32, grain {})", keys >> 20, merge_path::DEFAULT_GRAIN),
                rt,
                |rt| merge_path::sort(rt, &input, 32, merge_path::DEFAULT_GRAIN).map(|(sorted, out)| (sorted.data, out.stats)),
                check,
            ),
            Sort::Quick => self.gpu_row(
                format!("quicksort {} M keys (ctx.partition, cutoff {leaf})", keys >> 20),
                rt,
                |rt| quicksort::sort(rt, &input, leaf).map(|(sorted, out)| (sorted.data, out.stats)),
                check,
            ),
        };
        let (sorted, ms) = host_median(self.args.repeat, || {
            let mut k = input.clone();
            host::sort(&mut k);
            k
        });
        if let Err(e) = mergesort::check(&input, &sorted) {
            row.check = Err(format!("rayon: {e}"));
        }
        row.host = Some(("rayon par_sort_unstable".into(), ms));
        row
    }

}

/// The GPU sorts: merge sort merging with `ctx.merge` or with hand-written merge-path tasks,
/// and quicksort partitioning with `ctx.partition`.
#[derive(Clone, Copy)]
enum Sort {
    Merge,
    MergePath,
    Quick,
}

fn render(rows: &[Row], wsdsl: &str) -> String {
    let mut t = format!(
        "| workload | check | {wsdsl} ms | G tasks/s | host baseline | host ms | {wsdsl} speedup | note |\n|---|---|---:|---:|---|---:|---:|---|\n"
    );
    for r in rows {
        let (check, ok) = match &r.check {
            Ok(s) => (format!("PASS {s}"), true),
            Err(e) => (format!("FAIL: {e}"), false),
        };
        let _ = ok;
        let rate = if r.gpu_ms > 0.0 { r.tasks as f64 / r.gpu_ms / 1e6 } else { 0.0 };
        let (host_name, host_ms) = r.host.clone().unwrap_or_default();
        let speedup = if r.gpu_ms > 0.0 && host_ms > 0.0 { format!("{:.2}x", host_ms / r.gpu_ms) } else { "-".into() };
        t.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.workload,
            check,
            if r.gpu_ms > 0.0 { format!("{:.3}", r.gpu_ms) } else { "-".into() },
            if rate > 0.0 { format!("{rate:.2}") } else { "-".into() },
            if host_name.is_empty() { "-".into() } else { host_name },
            if host_ms > 0.0 { format!("{host_ms:.1}") } else { "-".into() },
            speedup,
            r.note
        ));
    }
    let profiled: Vec<&Row> = rows.iter().filter(|r| r.profile.is_some()).collect();
    if !profiled.is_empty() {
        t.push_str("\nWhere the GPU workers' time went (one profiled run per row; % of all workers' cycles):\n\n");
        t.push_str("| workload | own deque | search | idle | batches | publish | tasks/batch | cycles/batch | join cycles/batch | frame cycles/batch |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for r in profiled {
            let p = r.profile.as_ref().expect("filtered");
            let [own, search, idle, batches, publish, tasks, cycles, join, frames] = p.summary();
            t.push_str(&format!(
                "| {} | {own:.1} | {search:.1} | {idle:.1} | {batches:.1} | {publish:.1} | {tasks:.1} | {cycles:.0} | {join:.0} | {frames:.0} |\n",
                r.workload
            ));
        }
    }
    t
}
