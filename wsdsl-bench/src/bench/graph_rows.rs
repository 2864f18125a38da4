//! The graph rows of `bench` (`--rows graphs`): BFS beside rayon and a hand-written CUDA BFS,
//! SSSP and PageRank beside rayon, on R-MAT graphs and p2p-Gnutella31, with the answers
//! checked against sequential references and throughput in GTEPS as graph people count it.

use super::{announce, baseline_bfs, bfs, graph_reference, host_graphs, host_median, median_of, pagerank, relax, Bench, Row};
use std::cell::Cell;
use std::time::Duration;
use std::time::Instant;
use wsdsl::graph::{Graph, GraphOptions, Rmat};
use wsdsl::prelude::*;
use wsdsl::Scheduler;

impl Bench<'_> {
    /// The BFS rows of one graph: wsdsl level-synchronous, data-driven, data-driven under the
    /// Broker Queue, and the hand-written CUDA BFS (`cuda`; none with `--cpu`), every one
    /// beside the rayon BFS and in GTEPS (Graph500: the out-degrees of the reached vertices
    /// summed, over the time).
    pub(super) fn bfs(&self, gpu: &dyn Fn() -> Runtime, input: GraphInput, cuda: Option<&Result<baseline_bfs::CudaBfs, String>>, rows: &mut Vec<Row>) {
        let name = input.name();
        let started = Instant::now();
        let g = match input.load(self.args.graph_dir.as_deref()) {
            Ok(g) => g,
            Err(e) => {
                rows.push(announce(Row::failed(format!("BFS {name}"), format!("loading the graph: {e}"))));
                return;
            }
        };
        let source = g.first_vertex_with_edges().unwrap_or(0);
        let want = bfs::reference(&g, source);
        let traversed = bfs::traversed_edges(&g, &want);
        let (reached, deepest) = bfs::reach(&want);
        println!(
            "{name}: {} vertices, {} edges, largest degree {} (loaded in {:.1} s); from {source}: {reached} reached, depth {deepest}, {traversed} edges traversed",
            g.vertices(),
            g.edges(),
            g.max_degree(),
            started.elapsed().as_secs_f64()
        );

        let (host_depth, host_ms) = host_median(self.args.repeat, || host_graphs::bfs(&g, source));
        let host_check = bfs_verdict(&want, &host_depth).map_err(|e| format!("rayon BFS: {e}"));
        let mut finish = |row: Row, detail: String| {
            let rate = |ms| show_teps(gteps(traversed, ms));
            let note = |row: &Row| format!("{} GTEPS (rayon {}){detail}", rate(row.gpu_ms), rate(host_ms));
            rows.push(announce(with_host(row, "rayon level-synchronous BFS", host_ms, &host_check, note)));
        };

        let graph = bfs::device_graph(&g);
        let grain = bfs::DEFAULT_GRAIN;
        let scanned = Cell::new((0u64, 0u64));
        let check = |found: &bfs::Searched| {
            scanned.set((found.edges_scanned, found.stale));
            bfs_verdict(&want, &found.depth)
        };
        let detail = |row: &Row, stale: bool| {
            let (edges, stale_scans) = scanned.get();
            if row.gpu_ms <= 0.0 || traversed == 0 {
                return String::new();
            }
            let mut s = format!("; scanned {:.2}x the traversed edges", edges as f64 / traversed as f64);
            if stale {
                s += &format!(", {stale_scans} stale scans");
            }
            s
        };
        let row = self.gpu_row(
            format!("BFS {name} (level-synchronous)"),
            &gpu(),
            |rt| bfs::search(rt, &graph, source, grain, false).map(|(found, out)| (found, out.stats)),
            check,
        );
        let d = detail(&row, false);
        finish(row, d);
        for (what, rt) in [("data-driven, deques", gpu().scheduler(Scheduler::Deque)), ("data-driven, BQ", gpu().scheduler(Scheduler::Bq))] {
            // The CPU backend has no watchdog, and its depth-first order rescans edges many
            // times over (676x on p2p-Gnutella31; ever more as graphs grow): on an R-MAT
            // graph it would run for hours.
            if self.args.cpu && g.edges() > CPU_DATA_DRIVEN_EDGES {
                println!(
                    "BFS {name} ({what}): SKIPPED on the CPU backend (more than {CPU_DATA_DRIVEN_EDGES} edges: its depth-first order rescans them many times over, and it has no watchdog)"
                );
                continue;
            }
            let row = self.gpu_row(
                format!("BFS {name} ({what})"),
                &rt,
                |rt| bfs::search(rt, &graph, source, grain, true).map(|(found, out)| (found, out.stats)),
                check,
            );
            let d = detail(&row, true);
            finish(row, d);
        }
        drop(graph);

        let workload = format!("BFS {name}, hand-written CUDA");
        let cuda = match cuda {
            Some(Ok(cuda)) => cuda,
            // On one line: the table has one row per line.
            Some(Err(e)) => return finish(Row::failed(workload, e.split_whitespace().collect::<Vec<_>>().join(" ")), String::new()),
            None => {
                println!("{workload}: SKIPPED (a GPU-only row; not run with --cpu)");
                return;
            }
        };
        let levels = Cell::new(0);
        let timed = cuda.upload(&g).and_then(|mut device| {
            let timed = median_of(self.args.repeat, || {
                let searched = cuda.search(&mut device, source)?;
                levels.set(searched.levels);
                Ok(((), Duration::from_secs_f64(searched.ms / 1e3)))
            })?;
            Ok((cuda.depth(&device)?, timed.1))
        });
        let row = match timed {
            Ok((depth, ms)) => Row {
                workload,
                gpu_ms: ms,
                tasks: 0,
                host: None,
                check: bfs_verdict(&want, &depth),
                note: String::new(),
                profile: None,
            },
            Err(e) => Row::failed(workload, e.split_whitespace().collect::<Vec<_>>().join(" ")),
        };
        finish(row, format!("; {} levels, one launch each", levels.get()));
    }

    /// SSSP on one weighted, undirected graph (a file without weights gets hashed ones):
    /// wsdsl in rounds and without them (Broker Queue) beside rayon's frontier Bellman-Ford,
    /// every answer against Dijkstra's.
    pub(super) fn sssp(&self, gpu: &dyn Fn() -> Runtime, input: GraphInput, rows: &mut Vec<Row>) {
        let name = input.name();
        let g = match input.load_with(self.args.graph_dir.as_deref(), true, true) {
            Ok(g) => g,
            Err(e) => return rows.push(announce(Row::failed(format!("SSSP {name}"), format!("loading the graph: {e}")))),
        };
        let weights = g.int_weights().map(<[u32]>::to_vec).unwrap_or_else(|| graph_reference::hashed_weights(&g));
        let source = g.first_vertex_with_edges().unwrap_or(0);
        let want = graph_reference::dijkstra(&g, &weights, source);
        let traversed = bfs::traversed_edges(&g, &want);
        let verdict = |got: &[u32]| relax::compare(got, &want, "distances").map(|()| format!("{} reached", want.iter().filter(|&&d| d != u32::MAX).count()));
        let (host_dist, host_ms) = host_median(self.args.repeat, || host_graphs::sssp(&g, &weights, source));
        let host_check = verdict(&host_dist).map_err(|e| format!("rayon SSSP: {e}"));
        let graph = relax::DeviceGraph::new(&g, Some(weights.clone()));
        let mut initial = vec![u32::MAX; g.vertices()];
        initial[source as usize] = 0;
        let scanned = Cell::new(0u64);
        let how = relax::Relaxation { grain: relax::DEFAULT_GRAIN, step: 0 };
        let delta = relax::default_delta(&g, &weights);
        let delta_stepping = format!("delta-stepping, delta {delta}");
        let methods = [(delta_stepping.as_str(), relax::Method::Ordered { delta }), ("rounds", relax::Method::Rounds), ("data-driven, BQ", relax::Method::DataDriven)];
        for (what, method) in methods {
            let driven = method == relax::Method::DataDriven;
            if self.args.cpu && driven && g.edges() > CPU_DATA_DRIVEN_EDGES {
                println!("SSSP {name} ({what}): SKIPPED on the CPU backend (its depth-first order rescans edges many times over)");
                continue;
            }
            let row = self.gpu_row(
                format!("SSSP {name} ({what})"),
                &gpu(),
                |rt| {
                    let (found, ran) = relax::solve(rt, &graph, initial.clone(), &[source], how, method)?;
                    scanned.set(found.edges);
                    Ok((found, ran.stats))
                },
                |r| verdict(&r.value),
            );
            let note = |row: &Row| {
                let rate = |ms| show_teps(gteps(traversed, ms));
                let rescans = scanned.get() as f64 / traversed.max(1) as f64;
                format!("{} GTEPS (rayon {}); scanned {rescans:.2}x the traversed edges", rate(row.gpu_ms), rate(host_ms))
            };
            rows.push(announce(with_host(row, "rayon frontier Bellman-Ford", host_ms, &host_check, note)));
        }
    }

    /// Eight PageRank iterations on one directed graph, the Broker Queue paper's formulation
    /// under the Broker Queue and the Broker Stealing Queue and the pulled sweeps, beside
    /// rayon's pull-style power iteration; every answer within 1e-9 (relative) of float64 power iteration.
    pub(super) fn pagerank(&self, gpu: &dyn Fn() -> Runtime, input: GraphInput, rows: &mut Vec<Row>) {
        let name = input.name();
        let g = match input.load_with(self.args.graph_dir.as_deref(), false, false) {
            Ok(g) => g,
            Err(e) => return rows.push(announce(Row::failed(format!("PageRank {name}"), format!("loading the graph: {e}")))),
        };
        let iterations = 8;
        let want = pagerank::reference(&g, Some(iterations));
        // The pulled sweeps keep 32-bit shares (`pull_tolerance`); the rest agree to 1e-9.
        let verdict = |got: &[f64], tolerance: f64| {
            let (rel, _) = pagerank::error(got, &want);
            if rel <= tolerance {
                Ok(format!("within {rel:.0e} of float64"))
            } else {
                Err(format!("a rank is {rel:.1e} (relative) from float64 power iteration"))
            }
        };
        let transposed = g.transpose();
        let (host_rank, host_ms) = host_median(self.args.repeat, || host_graphs::pagerank(&g, &transposed, iterations, pagerank::DAMPING));
        let host_check = verdict(&host_rank, 1e-9).map_err(|e| format!("rayon PageRank: {e}"));
        let edges = g.edges() as u64 * iterations as u64;
        let graph = pagerank::DeviceGraph::new(&g);
        let pull_graph = pagerank::PullGraph::new(&g);
        // Every vertex starts as a task: the per-block queues of BSQ need room for their share.
        let roomy = (g.vertices() as u32).next_power_of_two().clamp(1 << 15, 1 << 20);
        for (what, rt) in [
            ("BQ", gpu().scheduler(Scheduler::Bq)),
            ("BSQ", gpu().scheduler(Scheduler::Bsq).deque_capacity(roomy)),
            ("pulled, BQ", gpu().scheduler(Scheduler::Bq)),
            ("pulled, deques", gpu().scheduler(Scheduler::Deque)),
        ] {
            let pulled = what.starts_with("pulled");
            let row = self.gpu_row(
                format!("PageRank {name}, 8 iterations ({what})"),
                &rt,
                |rt| {
                    if pulled {
                        pagerank::pull(rt, &pull_graph, iterations, pagerank::PULL_GRAIN).map(|(rank, _, out)| (rank, out.stats))
                    } else {
                        pagerank::iterate(rt, &graph, iterations).map(|(rank, _, out)| (rank, out.stats))
                    }
                },
                |rank| verdict(rank, if pulled { pagerank::pull_tolerance(iterations) } else { 1e-9 }),
            );
            let note = |row: &Row| format!("{} G edges/s (rayon {})", show_teps(gteps(edges, row.gpu_ms)), show_teps(gteps(edges, host_ms)));
            rows.push(announce(with_host(row, "rayon pull power iteration", host_ms, &host_check, note)));
        }
    }
}


/// A graph of the BFS rows.
#[derive(Clone, Copy)]
pub(super) enum GraphInput {
    /// Graph500-style R-MAT of this scale, edge factor 16, seed 1, made undirected.
    Rmat(u32),
    /// A SNAP file of `--graph-dir` (directed).
    File(&'static str),
}

impl GraphInput {
    fn name(self) -> String {
        match self {
            GraphInput::Rmat(scale) => format!("R-MAT {scale}"),
            GraphInput::File(file) => file.split('.').next().unwrap_or(file).to_string(),
        }
    }

    fn load(self, graph_dir: Option<&std::path::Path>) -> Result<Graph, String> {
        self.load_with(graph_dir, false, matches!(self, GraphInput::Rmat(_)))
    }

    /// The graph, R-MAT with weights 1..=255 when `weighted`, made undirected when `symmetrize`.
    fn load_with(self, graph_dir: Option<&std::path::Path>, weighted: bool, symmetrize: bool) -> Result<Graph, String> {
        let opts = |symmetrize| GraphOptions { symmetrize, remove_self_loops: true, remove_duplicates: true, quiet: true };
        match self {
            GraphInput::Rmat(scale) => {
                Rmat { scale, edge_factor: 16, seed: 1, weighted }.generate(&opts(symmetrize)).map_err(|e| e.to_string())
            }
            GraphInput::File(file) => {
                let path = match graph_dir {
                    Some(dir) => dir.join(file),
                    None => super::data_file(None, &format!("graphs/{file}")),
                };
                // The error names the file already.
                wsdsl::graph::read(&path, &opts(symmetrize)).map_err(|e| e.to_string())
            }
        }
    }
}

/// A GPU row beside its host baseline: the baseline's name and time, the baseline's failed
/// check (if it failed) as the row's, and `note` once the row has run.
fn with_host(mut row: Row, baseline: &str, host_ms: f64, host_check: &Result<String, String>, note: impl FnOnce(&Row) -> String) -> Row {
    if row.gpu_ms > 0.0 {
        row.note = note(&row);
    }
    if let Err(e) = host_check {
        row.check = Err(e.clone());
    }
    row.host = Some((baseline.to_string(), host_ms));
    row
}

/// A BFS row's verdict: the depths against the sequential reference `want`.
fn bfs_verdict(want: &[u32], depth: &[u32]) -> Result<String, String> {
    if depth.len() != want.len() {
        return Err(format!("{} depths for {} vertices", depth.len(), want.len()));
    }
    relax::compare(depth, want, "depths")?;
    let (reached, deepest) = bfs::reach(depth);
    Ok(format!("{reached} reached, depth {deepest}"))
}

/// A rate with three significant digits (a data-driven run on the CPU can be a few thousandths).
fn show_teps(g: f64) -> String {
    let digits = if g <= 0.0 { 3 } else { (2 - g.log10().floor() as i32).clamp(2, 8) as usize };
    format!("{g:.digits$}")
}

/// The largest graph the data-driven BFS rows run on with `--cpu`.
const CPU_DATA_DRIVEN_EDGES: usize = 1 << 20;

/// Giga traversed edges per second.
fn gteps(edges: u64, ms: f64) -> f64 {
    if ms > 0.0 { edges as f64 / ms / 1e6 } else { 0.0 }
}
