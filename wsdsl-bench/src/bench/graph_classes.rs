//! `bench --rows graphs`: BFS, SSSP, CC and PageRank on every class of graph, each beside
//! GAPBS on the same graph in the same command (`gapbs.rs`).
//!
//! The classes (`--graph-classes`; smaller ones with `--cpu`): a 2048 x 2048 grid (long
//! diameter, degree 4), a road-like random geometric graph of 4 M vertices (degree 8), R-MAT
//! scales 22 and 24 (skewed), a uniform random graph of 4 M vertices (degree 16), and SNAP's
//! p2p-Gnutella31. The generated ones are undirected with weights (`1..=255`; by length on
//! the road-like graph); Gnutella is run as shipped (directed; SSSP on weights hashed from each
//! edge's ends, CC on the graph made undirected), as the examples run it. Every class but
//! R-MAT is written to a file that GAPBS reads (`.wel`: the same edges and weights; an
//! undirected graph's edges once each, read with `-s`); for R-MAT GAPBS generates its own
//! Kronecker graph of the same scale (`-g`: the same generator family, not the same edges;
//! a 4 GB text file at scale 24 would take GAPBS longer to parse than every kernel to run).
//! BFS and SSSP start from the smallest vertex of the largest component (Gnutella: vertex 0)
//! and pass it to GAPBS (`-r`), except on Kronecker graphs, where GAPBS picks its sources.
//!
//! Each row: wsdsl's kernel time (CUDA events; median of `--repeat` after a warm-up), the
//! whole call's (from the call to its results in the program's hands: buffers, upload,
//! kernel, copy-back), GAPBS's "Average Time" of as many trials, their ratio (above 1: wsdsl
//! faster), GTEPS (traversed edges, the out-degrees of the reached vertices, over the kernel
//! time; CC: edges, PageRank: edges times iterations), the rounds (levels, relaxation rounds,
//! phases, iterations) and the edges scanned per traversed edge. Every answer is checked
//! against a sequential reference. PageRank also runs hand-written in CUDA on the same arrays
//! (`baseline_pagerank.rs`, a thread and a warp per vertex) as a ceiling for the task sweep.

use super::baseline_pagerank::{CudaPageRank, DeviceGraph, Mapping};
use super::gapbs::{Gapbs, Input, Outcome};
use super::{bfs, cc, graph_reference, pagerank, relax, Bench};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use wsdsl::graph::{self, Geometric, Graph, GraphOptions, Grid, Pairs, Rmat, Uniform, Weights};
use wsdsl::prelude::*;
use wsdsl::Scheduler;

/// PageRank's iterations, as GAPBS runs them (`-i 8 -t 0`).
const ITERATIONS: u32 = 8;
/// The road-like graph's average degree.
const ROAD_DEGREE: f64 = 8.0;
/// The uniform graph's average degree.
const UNIFORM_DEGREE: u32 = 16;

/// A class of graph, with its size.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Class {
    Grid(u32, u32),
    Road(u32),
    Rmat(u32),
    Uniform(u32),
    Gnutella,
}

impl Class {
    /// The table of the issue: the sizes a GPU run measures (`cpu`: small ones, to try the
    /// plumbing on the CPU backend).
    pub fn defaults(cpu: bool) -> Vec<Class> {
        if cpu {
            vec![Class::Grid(256, 256), Class::Road(1 << 16), Class::Rmat(14), Class::Rmat(16), Class::Uniform(1 << 16), Class::Gnutella]
        } else {
            vec![Class::Grid(2048, 2048), Class::Road(1 << 22), Class::Rmat(22), Class::Rmat(24), Class::Uniform(1 << 22), Class::Gnutella]
        }
    }

    /// `grid:ROWSxCOLUMNS`, `road:N`, `rmat:SCALE`, `uniform:N` or `gnutella`.
    pub fn parse(token: &str) -> Result<Class, String> {
        let (kind, size) = token.split_once(':').unwrap_or((token, ""));
        let number = |s: &str| s.parse::<u32>().map_err(|e| format!("`{token}`: {e}"));
        match kind {
            "grid" => {
                let (r, c) = size.split_once('x').ok_or_else(|| format!("`{token}`: expected grid:ROWSxCOLUMNS"))?;
                Ok(Class::Grid(number(r)?, number(c)?))
            }
            "road" => Ok(Class::Road(number(size)?)),
            "rmat" => Ok(Class::Rmat(number(size)?)),
            "uniform" => Ok(Class::Uniform(number(size)?)),
            "gnutella" if size.is_empty() => Ok(Class::Gnutella),
            _ => Err(format!("`{token}`: a class is grid:ROWSxCOLUMNS, road:N, rmat:SCALE, uniform:N or gnutella")),
        }
    }

    pub fn name(&self) -> String {
        match self {
            Class::Grid(r, c) => format!("grid {r}x{c}"),
            Class::Road(n) => format!("road-like {n}"),
            Class::Rmat(s) => format!("R-MAT {s}"),
            Class::Uniform(n) => format!("uniform {n}"),
            Class::Gnutella => "p2p-Gnutella31".into(),
        }
    }

    /// The graph: undirected and weighted, or Gnutella as shipped (directed, no weights).
    fn generate(&self, graph_dir: Option<&Path>) -> Result<Graph, String> {
        let seed = 1;
        let undirected = GraphOptions { symmetrize: true, remove_self_loops: true, remove_duplicates: true, quiet: true };
        let g = match *self {
            Class::Grid(rows, columns) => Grid { rows, columns, delete: 0.0, seed, weighted: true }.generate(),
            Class::Road(vertices) => Geometric { vertices, degree: ROAD_DEGREE, seed, weighted: true }.generate(),
            Class::Rmat(scale) => Rmat { scale, edge_factor: 16, seed, weighted: true }.generate(&undirected),
            Class::Uniform(vertices) => Uniform { vertices, degree: UNIFORM_DEGREE, seed, weighted: true }.generate(),
            Class::Gnutella => {
                let path = match graph_dir {
                    Some(dir) => dir.join("p2p-Gnutella31.txt.gz"),
                    None => super::data_file(None, "graphs/p2p-Gnutella31.txt.gz"),
                };
                graph::read(&path, &GraphOptions { symmetrize: false, ..undirected })
            }
        };
        g.map_err(|e| e.to_string())
    }
}

/// One row of the class table.
pub(super) struct ClassRow {
    pub workload: String,
    pub kernel_ms: f64,
    pub call_ms: f64,
    pub gapbs: Outcome,
    pub gteps: f64,
    pub rounds: String,
    pub scanned: f64,
    pub check: Result<String, String>,
}

impl ClassRow {
    pub fn failed(workload: String, why: String) -> ClassRow {
        ClassRow { workload, kernel_ms: 0.0, call_ms: 0.0, gapbs: Outcome::Skipped("wsdsl failed".into()), gteps: 0.0, rounds: String::new(), scanned: 0.0, check: Err(why) }
    }

    /// Prints the row at once (a long bench shows its progress).
    fn announce(self) -> ClassRow {
        let check = match &self.check {
            Ok(s) => format!("PASS {s}"),
            Err(e) => format!("FAIL {e}"),
        };
        let command = match &self.gapbs {
            Outcome::Ms(_, command) => format!(" [{command}]"),
            _ => String::new(),
        };
        println!(
            "{}: wsdsl {:.3} ms (call {:.3} ms), GAPBS {}{command}; {:.3} GTEPS, rounds: {}, {:.2} scanned per edge; {check}",
            self.workload,
            self.kernel_ms,
            self.call_ms,
            self.gapbs.show(),
            self.gteps,
            self.rounds,
            self.scanned
        );
        self
    }
}

/// What one wsdsl kernel's timed runs measured.
struct Timed<T> {
    value: T,
    kernel_ms: f64,
    call_ms: f64,
}

/// Runs `run` once to warm up (compile, upload) and `repeat` times more; the medians of the
/// kernel times and of the call times `run` measured itself, and the last run's answer.
fn timed<T>(repeat: usize, mut run: impl FnMut() -> Result<(T, Stats, Duration), wsdsl::Error>) -> Result<Timed<T>, String> {
    run().map_err(|e| e.to_string())?;
    let (mut kernel, mut call, mut last) = (Vec::new(), Vec::new(), None);
    for _ in 0..repeat.max(1) {
        let (value, stats, took) = run().map_err(|e| e.to_string())?;
        kernel.push(stats.phases.run.as_secs_f64() * 1e3);
        call.push(took.as_secs_f64() * 1e3);
        last = Some(value);
        // Where a warm call's time goes (the whole-call target): the runtime's phases, the
        // runtime's own work between them, and the program's around the run call (preparing
        // its buffers, reading the results).
        let p = &stats.phases;
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let inside = p.context + p.compile + p.launch + p.run + p.copy_back;
        println!(
            "  call {:.1} ms: context {:.1}, compile {:.1}, launch {:.1}, run {:.3}, copy-back {:.1}; in the run call between phases {:.1}, around the run call {:.1}",
            ms(took),
            ms(p.context),
            ms(p.compile),
            ms(p.launch),
            ms(p.run),
            ms(p.copy_back),
            ms(p.call.saturating_sub(inside)),
            ms(took.saturating_sub(p.call))
        );
    }
    let value = last.expect("at least one run");
    Ok(Timed { value, kernel_ms: median(kernel), call_ms: median(call) })
}

/// The median of at least one time.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// What building a call's inputs costs on its own (the inputs built and dropped three times):
/// the share of "around the run call" that is the program's input preparation, printed beside
/// the call breakdown so that the rest is known to be the runtime's or the results'.
fn print_input_cost<T>(what: &str, mut build: impl FnMut() -> Result<T, wsdsl::Error>) {
    let mut built = Vec::new();
    let mut dropped = Vec::new();
    for _ in 0..3 {
        let started = Instant::now();
        // Bad inputs print nothing here: the timed run that follows names the error in its row.
        let Ok(inputs) = build() else { return };
        built.push(started.elapsed().as_secs_f64() * 1e3);
        let started = Instant::now();
        drop(inputs);
        dropped.push(started.elapsed().as_secs_f64() * 1e3);
    }
    let list = |v: &[f64]| v.iter().map(|ms| format!("{ms:.2}")).collect::<Vec<_>>().join(", ");
    println!("  {what}: building the inputs {} ms, dropping them {} ms", list(&built), list(&dropped));
}

/// Calls `f` and measures the call.
fn clocked<T>(f: impl FnOnce() -> Result<T, wsdsl::Error>) -> Result<(T, Duration), wsdsl::Error> {
    let started = Instant::now();
    let value = f()?;
    Ok((value, started.elapsed()))
}

/// Giga edges per second.
fn gteps(edges: u64, ms: f64) -> f64 {
    if ms > 0.0 { edges as f64 / ms / 1e6 } else { 0.0 }
}

impl Bench<'_> {
    /// Every kernel's rows on one class, GAPBS beside each.
    /// `cuda_pagerank`: the hand-written CUDA PageRank (none with `--cpu`), run beside wsdsl's.
    pub(super) fn graph_class(
        &self,
        gpu: &dyn Fn() -> Runtime,
        class: &Class,
        gapbs: &Gapbs,
        work: &Path,
        cuda_pagerank: Option<&Result<CudaPageRank, String>>,
        rows: &mut Vec<ClassRow>,
    ) {
        let name = class.name();
        let started = Instant::now();
        let g = match class.generate(self.args.graph_dir.as_deref()) {
            Ok(g) => g,
            Err(e) => return rows.push(ClassRow::failed(name, format!("making the graph: {e}")).announce()),
        };
        let directed = *class == Class::Gnutella;
        // CC runs on the graph made undirected: Gnutella's, or the class graph itself.
        let made_undirected = directed.then(|| symmetrized(&g));
        let undirected = made_undirected.as_ref().unwrap_or(&g);
        let labels = graph_reference::components(undirected);
        let (count, largest) = graph_reference::component_summary(&labels);
        let source = if directed { 0 } else { largest_component_root(&labels) };
        let weights = match g.integer_weights() {
            Ok(Some(w)) => w,
            Ok(None) => graph_reference::hashed_weights(&g),
            Err(e) => return rows.push(ClassRow::failed(name, format!("the graph's weights: {e}")).announce()),
        };
        println!(
            "{name}: {} vertices, {} edges, largest degree {}; {count} components, the largest {largest} vertices; source {source} (made in {:.1} s)",
            g.vertices(),
            g.edges(),
            g.max_degree(),
            started.elapsed().as_secs_f64()
        );

        // GAPBS's input: this very graph in a file, or its own Kronecker graph.
        let file = work.join(format!("{}.wel", name.replace(' ', "-")));
        let written = match class {
            Class::Rmat(_) => Ok(None),
            _ => {
                let weighted = Graph { weights: Weights::Int(weights.clone()), ..g.clone() };
                let pairs = if directed { Pairs::All } else { Pairs::Once };
                let t = Instant::now();
                graph::write(&weighted, &file, pairs).map(|()| {
                    println!("{name}: wrote {} for GAPBS in {:.1} s", file.display(), t.elapsed().as_secs_f64());
                    Some(file.clone())
                })
            }
        };
        let (input, cc_input) = match (&written, class) {
            (_, Class::Rmat(scale)) => (Some(Input::Kronecker(*scale)), Some(Input::Kronecker(*scale))),
            (Ok(Some(path)), _) => (
                Some(Input::File { path, symmetrize: !directed }),
                Some(Input::File { path, symmetrize: true }),
            ),
            _ => (None, None),
        };
        let gapbs_run = |kernel: &str, input: &Option<Input<'_>>, args: Vec<String>| match (input, &written) {
            (Some(input), _) => gapbs.run(kernel, input, &args),
            (None, Err(e)) => Outcome::Failed(format!("writing the graph: {e}")),
            (None, Ok(_)) => Outcome::Failed("no input".into()),
        };
        let kronecker = matches!(class, Class::Rmat(_));
        let from = |args: &[&str]| {
            let mut all: Vec<String> = if kronecker { vec![] } else { vec!["-r".into(), source.to_string()] };
            all.extend(args.iter().map(|a| a.to_string()));
            all
        };
        let average_degree = g.edges() as f64 / g.vertices().max(1) as f64;
        // Delta for GAPBS's delta-stepping: about a bucket of a vertex's edges (the grid's
        // 64 is what the baselines' README measured with).
        let delta = ((255.0 / average_degree.max(1.0)).round() as u32).max(1);

        // BFS.
        let want_depth = bfs::reference(&g, source);
        let traversed = bfs::traversed_edges(&g, &want_depth);
        let (reached, deepest) = bfs::reach(&want_depth);
        // Direction-optimizing, and level by level on the priority bands (depth d in band d,
        // the example's default), without a barrier per level.
        let dg = bfs::device_graph(&g);
        for ordered in [false, true] {
            let workload = format!("BFS {name} ({})", if ordered { "priority bands, delta 1" } else { "direction-optimizing" });
            if !ordered {
                print_input_cost(&workload, || bfs::direction_inputs(&dg, source, bfs::Direction::default()));
                // And its buffers alone: where the inputs' time goes.
                let n = g.vertices();
                print_input_cost("    a zeroed buffer of a u32 per vertex", || Ok(Buffer::<u32>::zeroed(n)));
                print_input_cost("    a scratch buffer of as many", || Ok(Buffer::<u32>::scratch(n)));
                print_input_cost("    a filled one", || Ok(Buffer::filled(n, u32::MAX)));
                print_input_cost("    the depths (filled, the source's set)", || Ok(relax::from_source(n, source)));
            }
            let rt = gpu();
            let run = timed(self.args.repeat, || {
                let ((found, stats), took) = clocked(|| match ordered {
                    true => bfs::search_ordered(&rt, &dg, source, bfs::DEFAULT_GRAIN, 1).map(|(found, ran)| (found, ran.stats)),
                    false => bfs::search_direction(&rt, &dg, source, bfs::Direction::default()).map(|(found, out)| (found, out.stats)),
                })?;
                Ok((found, stats, took))
            });
            let row = match run {
                Ok(t) => ClassRow {
                    workload,
                    kernel_ms: t.kernel_ms,
                    call_ms: t.call_ms,
                    gapbs: gapbs_run("bfs", &input, from(&[])),
                    gteps: gteps(traversed, t.kernel_ms),
                    rounds: if ordered { "-".into() } else { format!("{} ({} bottom-up)", t.value.levels, t.value.bottom_up) },
                    scanned: t.value.edges_scanned as f64 / traversed.max(1) as f64,
                    check: relax::compare(&t.value.depth, &want_depth, "depths").map(|()| format!("{reached} reached, depth {deepest}")),
                },
                Err(e) => ClassRow::failed(workload, e),
            };
            rows.push(row.announce());
        }

        // SSSP: delta-stepping on the priority scheduler (the example's default, its delta
        // from the weights), in rounds, and data-driven on the Broker Queue.
        let want_dist = graph_reference::dijkstra(&g, &weights, source);
        let traversed = bfs::traversed_edges(&g, &want_dist);
        {
            let dg = relax::DeviceGraph::new(&g, Some(weights.clone()));
            let how = relax::Relaxation { grain: relax::DEFAULT_GRAIN, step: 0 };
            let ordered = relax::default_delta(&g, &weights);
            let delta_stepping = format!("delta-stepping, delta {ordered}");
            let methods = [
                (delta_stepping.as_str(), relax::Method::Ordered { delta: ordered }, gpu()),
                ("rounds", relax::Method::Rounds, gpu()),
                ("data-driven, BQ", relax::Method::DataDriven, gpu().scheduler(Scheduler::Bq)),
            ];
            for (what, method, rt) in methods {
                let driven = method == relax::Method::DataDriven;
                let workload = format!("SSSP {name} ({what})");
                if self.args.cpu && driven {
                    // Its depth-first order rescans edges hundreds of times over (958x on
                    // p2p-Gnutella31), and the CPU backend has no watchdog.
                    println!("{workload}: SKIPPED on the CPU backend (its depth-first order rescans edges many times over)");
                    continue;
                }
                let run = timed(self.args.repeat, || {
                    // The initial distances are built inside the call, as BFS's, CC's and
                    // PageRank's inputs are.
                    let ((found, ran), took) = clocked(|| relax::solve(&rt, &dg, relax::from_source(g.vertices(), source), &[source], how, method))?;
                    Ok((found, ran.stats, took))
                });
                let row = match run {
                    Ok(t) => ClassRow {
                        workload,
                        kernel_ms: t.kernel_ms,
                        call_ms: t.call_ms,
                        gapbs: gapbs_run("sssp", &input, from(&["-d", &delta.to_string()])),
                        gteps: gteps(traversed, t.kernel_ms),
                        rounds: if method == relax::Method::Rounds { t.value.rounds.to_string() } else { "-".into() },
                        scanned: t.value.edges as f64 / traversed.max(1) as f64,
                        check: relax::compare(&t.value.value, &want_dist, "distances").map(|()| format!("Dijkstra's distances; GAPBS -d {delta}")),
                    },
                    Err(e) => ClassRow::failed(workload, e),
                };
                rows.push(row.announce());
            }
        }

        // CC by union-find (Afforest), on the graph made undirected.
        {
            let workload = format!("CC {name} (union-find)");
            let row = match cc::DeviceGraph::new(undirected) {
                Ok(dg) => {
                    let rt = gpu();
                    let how = cc::Afforest::default();
                    print_input_cost(&workload, || cc::afforest_inputs(&dg, how));
                    match timed(self.args.repeat, || {
                        let ((found, out), took) = clocked(|| cc::afforest(&rt, &dg, how))?;
                        Ok((found, out.stats, took))
                    }) {
                        Ok(t) => ClassRow {
                            workload,
                            kernel_ms: t.kernel_ms,
                            call_ms: t.call_ms,
                            gapbs: gapbs_run("cc", &cc_input, vec![]),
                            gteps: gteps(undirected.edges() as u64, t.kernel_ms),
                            rounds: format!("{} phases", cc::afforest::phases(how.rounds)),
                            scanned: t.value.links as f64 / undirected.edges().max(1) as f64,
                            check: relax::compare(&t.value.labels, &labels, "labels").map(|()| format!("{count} components")),
                        },
                        Err(e) => ClassRow::failed(workload, e),
                    }
                }
                Err(e) => ClassRow::failed(workload, e.to_string()),
            };
            rows.push(row.announce());
        }

        // PageRank, 8 iterations: the pulled sweeps on the Broker Queue (the fastest formulation).
        let want = pagerank::reference(&g, Some(ITERATIONS));
        let pg = pagerank::PullGraph::new(&g);
        let pagerank_verdict = |rank: &[f64]| {
            let (rel, _) = pagerank::error(rank, &want);
            if rel <= pagerank::pull_tolerance(ITERATIONS) {
                Ok(format!("within {rel:.0e} of float64 (GAPBS: Gauss-Seidel, not compared)"))
            } else {
                Err(format!("a rank is {rel:.1e} (relative) from float64 power iteration"))
            }
        };
        let mut pagerank_gapbs = Outcome::Skipped("wsdsl failed".into());
        {
            let workload = format!("PageRank {name}, {ITERATIONS} iterations (pulled, BQ)");
            let rt = gpu().scheduler(Scheduler::Bq);
            let row = match timed(self.args.repeat, || {
                let ((rank, edges, out), took) = clocked(|| pagerank::pull(&rt, &pg, ITERATIONS, pagerank::PULL_GRAIN))?;
                Ok(((rank, edges), out.stats, took))
            }) {
                Ok(t) => {
                    pagerank_gapbs = gapbs_run("pr", &input, vec!["-i".into(), ITERATIONS.to_string(), "-t".into(), "0".into()]);
                    ClassRow {
                        workload,
                        kernel_ms: t.kernel_ms,
                        call_ms: t.call_ms,
                        gapbs: pagerank_gapbs.clone(),
                        gteps: gteps(g.edges() as u64 * ITERATIONS as u64, t.kernel_ms),
                        rounds: format!("{ITERATIONS} iterations"),
                        scanned: t.value.1 as f64 / (g.edges().max(1) as u64 * ITERATIONS as u64) as f64,
                        check: pagerank_verdict(&t.value.0),
                    }
                }
                Err(e) => ClassRow::failed(workload, e),
            };
            rows.push(row.announce());
        }
        // The same sweeps hand-written in CUDA, as a ceiling (beside the same GAPBS run), on
        // one upload of the arrays for both mappings.
        let one_line = |e: &str| e.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut uploaded = cuda_pagerank.map(|cuda| {
            let cuda = cuda.as_ref().map_err(|e| e.clone())?;
            cuda.upload(pg.in_offsets.as_slice(), pg.sources.as_slice(), pg.out_degree.as_slice()).map(|device| (cuda, device))
        });
        for mapping in [Mapping::Thread, Mapping::Warp] {
            let workload = format!("PageRank {name}, {ITERATIONS} iterations (hand-written CUDA, {})", mapping.name());
            let (cuda, device) = match &mut uploaded {
                Some(Ok((cuda, device))) => (*cuda, device),
                Some(Err(e)) => {
                    rows.push(ClassRow::failed(workload, one_line(e)).announce());
                    continue;
                }
                None => {
                    println!("{workload}: SKIPPED (a GPU-only row; not run with --cpu)");
                    continue;
                }
            };
            let row = match self.cuda_pagerank(cuda, device, mapping) {
                Ok((rank, kernel_ms, call_ms)) => ClassRow {
                    workload,
                    kernel_ms,
                    call_ms,
                    gapbs: pagerank_gapbs.clone(),
                    gteps: gteps(g.edges() as u64 * ITERATIONS as u64, kernel_ms),
                    rounds: format!("{ITERATIONS} launches"),
                    scanned: 1.0,
                    check: pagerank_verdict(&rank),
                },
                Err(e) => ClassRow::failed(workload, one_line(&e)),
            };
            rows.push(row.announce());
        }
        if let Ok(Some(path)) = &written {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl Bench<'_> {
    /// The hand-written CUDA PageRank on the uploaded arrays: the last run's ranks and the
    /// medians of the kernels' time (CUDA events) and of the call's (the run and the ranks'
    /// download), over `--repeat` runs after a warm-up.
    fn cuda_pagerank(&self, cuda: &CudaPageRank, device: &mut DeviceGraph, mapping: Mapping) -> Result<(Vec<f64>, f64, f64), String> {
        let (mut kernel, mut call, mut rank) = (Vec::new(), Vec::new(), Vec::new());
        for run in 0..=self.args.repeat.max(1) {
            let started = Instant::now();
            let ms = cuda.run(device, ITERATIONS, pagerank::DAMPING, mapping)?;
            rank = cuda.ranks(device)?;
            if run > 0 {
                kernel.push(ms);
                call.push(started.elapsed().as_secs_f64() * 1e3);
            }
        }
        Ok((rank, median(kernel), median(call)))
    }
}

/// `g` with every edge's reverse added (the graph connected components are of).
fn symmetrized(g: &Graph) -> Graph {
    let edges: Vec<(u32, u32, u32)> =
        (0..g.vertices() as u32).flat_map(|v| g.neighbours(v).iter().map(move |&u| (v, u, 0))).collect();
    let opts = GraphOptions { symmetrize: true, remove_self_loops: true, remove_duplicates: true, quiet: true };
    Graph::from_edges(g.vertices(), edges, false, &opts).expect("a graph's own edges fit it")
}

/// The smallest vertex of the largest component (labels are each component's smallest vertex).
fn largest_component_root(labels: &[u32]) -> u32 {
    let mut size = vec![0u32; labels.len()];
    for &l in labels {
        size[l as usize] += 1;
    }
    (0..labels.len()).max_by_key(|&v| (size[v], std::cmp::Reverse(v))).unwrap_or(0) as u32
}

/// Where the bench writes graph files for GAPBS: `--gapbs-work`, else a fresh directory in
/// the system's temporary directory.
pub(super) fn work_dir(given: Option<&Path>) -> std::io::Result<PathBuf> {
    let dir = match given {
        Some(dir) => dir.to_path_buf(),
        None => std::env::temp_dir().join(format!("wsdsl-gapbs-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// The class table (Markdown).
pub(super) fn render(rows: &[ClassRow], wsdsl: &str, gapbs: &Gapbs) -> String {
    let mut t = format!(
        "GAPBS: {} threads, {} trials each, \"Average Time\".\n\n| workload | check | {wsdsl} kernel ms | {wsdsl} call ms | GAPBS ms | GAPBS ÷ {wsdsl} | GTEPS | rounds | scanned per edge |\n|---|---|---:|---:|---:|---:|---:|---|---:|\n",
        gapbs.threads, gapbs.trials
    );
    for r in rows {
        let check = match &r.check {
            Ok(s) => format!("PASS {s}"),
            Err(e) => format!("FAIL: {e}"),
        };
        let ratio = match r.gapbs.ms() {
            Some(ms) if r.kernel_ms > 0.0 => format!("{:.2}x", ms / r.kernel_ms),
            _ => "-".into(),
        };
        let ms = |x: f64| if x > 0.0 { format!("{x:.3}") } else { "-".into() };
        t.push_str(&format!(
            "| {} | {check} | {} | {} | {} | {ratio} | {:.3} | {} | {:.2} |\n",
            r.workload,
            ms(r.kernel_ms),
            ms(r.call_ms),
            r.gapbs.show(),
            r.gteps,
            r.rounds,
            r.scanned
        ));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_parse_and_refuse_what_they_are_not() {
        assert_eq!(Class::parse("grid:2048x1024"), Ok(Class::Grid(2048, 1024)));
        assert_eq!(Class::parse("road:4194304"), Ok(Class::Road(4_194_304)));
        assert_eq!(Class::parse("rmat:22"), Ok(Class::Rmat(22)));
        assert_eq!(Class::parse("uniform:100"), Ok(Class::Uniform(100)));
        assert_eq!(Class::parse("gnutella"), Ok(Class::Gnutella));
        assert!(Class::parse("grid:20").unwrap_err().contains("ROWSxCOLUMNS"));
        assert!(Class::parse("torus:3").unwrap_err().contains("a class is"));
        assert!(Class::parse("rmat:x").is_err());
    }

    #[test]
    fn the_source_is_the_largest_components_smallest_vertex() {
        assert_eq!(largest_component_root(&[0, 1, 1, 3, 1, 3]), 1);
        assert_eq!(largest_component_root(&[0, 0, 2, 2]), 0, "ties: the smaller root");
    }
}
