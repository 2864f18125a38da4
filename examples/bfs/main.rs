//! Breadth-first search from one vertex of a real or generated graph, checked against a
//! sequential BFS (GPU if present, else CPU): data-driven on the GPU, level by level on the
//! CPU backend (whose depth-first order would make a data-driven search rescan edges
//! hundreds of times), or as `--data-driven` / `--level` say.
//!
//!     cargo run --release --example bfs                       # p2p-Gnutella31, from vertex 0
//!     cargo run --release --example bfs -- --rmat 18 --symmetrize
//!     cargo run --release --example bfs -- roads.gr.gz --source 1 --level

#[path = "../common/cli.rs"]
mod cli;
#[path = "../common/graph_cli.rs"]
mod graph_cli;
mod kernel;

use clap::Parser;
use std::process::ExitCode;
use wsdsl::prelude::*;

#[derive(Parser)]
#[command(about = "Breadth-first search as data-driven tasks, checked against a sequential BFS")]
struct Args {
    #[command(flatten)]
    graph: graph_cli::GraphArgs,
    /// The vertex the search starts from (default: 0, or the first vertex with an edge).
    #[arg(long)]
    source: Option<u32>,
    /// Edges one task scans (longer edge lists are split across tasks).
    #[arg(long, default_value_t = kernel::DEFAULT_GRAIN)]
    grain: u32,
    /// Level-synchronous: expand one depth's frontier at a time (a continuation per level).
    #[arg(long, conflicts_with = "data_driven")]
    level: bool,
    /// Data-driven: pass every lowered depth on at once (on the Broker Queue).
    #[arg(long)]
    data_driven: bool,
    #[command(flatten)]
    common: cli::Common,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    let rt = args.common.runtime()?;
    let (graph, what) = args.graph.load(false, false)?;
    println!("{what}");
    let source = args.source.unwrap_or_else(|| graph.first_vertex_with_edges().unwrap_or(0));
    let device_graph = kernel::device_graph(&graph);
    let level = args.level || (!args.data_driven && (rt.backend() == Backend::Cpu || rt.gpu().is_err()));
    let (found, kernel::Ran { stats, backend, note }) = kernel::search(&rt, &device_graph, source, args.grain, !level)?;
    cli::note_fallback(&note);
    let (reached, max_depth) = kernel::reach(&found.depth);
    let traversed = kernel::traversed_edges(&graph, &found.depth);
    let style = if level { "level-synchronous" } else { "data-driven" };
    println!(
        "{style} BFS from {source} on {backend}: {reached} vertices reached, largest depth {max_depth}; \
         {traversed} edges traversed, {} scanned, {} stale scans; {:.3} GTEPS",
        found.edges_scanned,
        found.stale,
        traversed as f64 / stats.phases.run.as_secs_f64().max(1e-9) / 1e9
    );
    println!("{stats}");
    args.common.chart(&stats, format!("{style} BFS on {} ({backend})", what.split(':').next().unwrap_or("graph")));
    let verdict = kernel::check(&graph, source, &found.depth).map(|()| "every depth equals a sequential BFS's".to_string());
    Ok(cli::report(verdict))
}
