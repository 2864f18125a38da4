//! Breadth-first search from one vertex of a real or generated graph by `wsdsl_graph::bfs`,
//! checked against a sequential BFS (GPU if present, else CPU). By default the method follows
//! the graph (`BfsMethod::Auto`): on a dense graph (average degree 12 or more: power-law and
//! random graphs, whose diameter is short) Beamer's top-down and bottom-up steps
//! (`kernel::direction`, on the Broker Queue); on a sparse one (grids, road networks: thousands
//! of levels) the priority scheduler, where depth d waits in band d, so levels run in order
//! without a round per level. `--direction-optimizing` and `--ordered` choose one;
//! `--level` expands one depth at a time through a continuation, `--data-driven` passes every
//! lowered depth on at once (on the Broker Queue). BENCHMARKS.md has both on every class.
//!
//!     cargo run --release --example bfs                       # p2p-Gnutella31, from vertex 0
//!     cargo run --release --example bfs -- --rmat 18 --symmetrize
//!     cargo run --release --example bfs -- --grid 2048x2048
//!     cargo run --release --example bfs -- --rmat 18 --symmetrize --direction-optimizing
//!     cargo run --release --example bfs -- roads.gr.gz --source 1 --level

use clap::Parser;
use std::process::ExitCode;
use wsdsl_examples::cli;
use wsdsl_graph::kernels::{bfs as kernel, relax};
use wsdsl_graph::{reference, BfsMethod, BfsOptions, Run};

#[derive(Parser)]
#[command(about = "Breadth-first search (on the priority bands, direction-optimizing, level-synchronous or data-driven), checked against a sequential BFS")]
struct Args {
    #[command(flatten)]
    graph: cli::graph::GraphArgs,
    /// The vertex the search starts from (default: 0, or the first vertex with an edge).
    #[arg(long)]
    source: Option<u32>,
    /// Edges one task scans (longer edge lists are split across tasks).
    #[arg(long, default_value_t = kernel::DEFAULT_GRAIN)]
    grain: u32,
    /// Direction-optimizing BFS whatever the graph: Beamer's top-down and bottom-up steps, a
    /// round per level (fast on power-law graphs, slow on long diameters).
    #[arg(long, conflicts_with_all = ["level", "data_driven", "ordered"])]
    direction_optimizing: bool,
    /// Direction-optimizing: frontier vertices per top-down task.
    #[arg(long, default_value_t = kernel::Direction::default().frontier_grain)]
    frontier_grain: u32,
    /// Direction-optimizing: vertices per bottom-up task.
    #[arg(long, default_value_t = kernel::Direction::default().vertex_grain)]
    vertex_grain: u32,
    /// Direction-optimizing: go bottom-up when the frontier's edges exceed the unexplored
    /// edges / ALPHA (0: never, top-down only).
    #[arg(long, default_value_t = kernel::Direction::default().alpha)]
    alpha: u32,
    /// Direction-optimizing: top-down again once the frontier shrinks below vertices / BETA.
    #[arg(long, default_value_t = kernel::Direction::default().beta)]
    beta: u32,
    /// Level-synchronous relaxation: expand one depth's frontier at a time (a continuation per level).
    #[arg(long, conflicts_with_all = ["data_driven", "ordered"])]
    level: bool,
    /// Data-driven relaxation: pass every lowered depth on at once (on the Broker Queue).
    #[arg(long, conflicts_with = "ordered")]
    data_driven: bool,
    /// On the priority scheduler whatever the graph (DELTA 1 by default): depth d waits in band d / DELTA
    /// (levels in order without a barrier per level; within a band, depths may be lowered
    /// again).
    #[arg(long, value_name = "DELTA", num_args = 0..=1, default_missing_value = "1")]
    ordered: Option<u32>,
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
    // The direction-optimizing settings apply whenever that search runs, chosen or not.
    let tuned = direction(args) != kernel::Direction::default();
    let method = if args.level {
        BfsMethod::LevelSynchronous
    } else if args.data_driven {
        BfsMethod::DataDriven
    } else if let Some(delta) = args.ordered {
        BfsMethod::Bands { delta }
    } else if args.direction_optimizing || (tuned && kernel::prefers_direction(&graph)) {
        BfsMethod::DirectionOptimizing(direction(args))
    } else {
        BfsMethod::Auto
    };
    if !(args.level || args.data_driven || args.ordered.is_some() || args.direction_optimizing) {
        let chosen = if kernel::prefers_direction(&graph) { "direction-optimizing" } else { "the priority bands" };
        println!("method: {chosen}, for an average degree of {:.1} (direction-optimizing from {})", kernel::average_degree(&graph), kernel::DENSE_DEGREE);
    }
    let opts = BfsOptions { method, grain: args.grain, parents: true };
    let found = wsdsl_graph::bfs_with(&rt, &graph, source, &opts)?;
    let Run { stats, backend, note } = &found.run;
    cli::note_fallback(note);
    let (style, steps) = match found.method {
        BfsMethod::DirectionOptimizing(_) => ("direction-optimizing", format!("{} levels ({} bottom-up); ", found.levels, found.bottom_up)),
        BfsMethod::LevelSynchronous => ("level-synchronous", format!("{} levels; ", found.levels)),
        BfsMethod::DataDriven => ("data-driven", String::new()),
        _ => ("ordered (priority bands)", String::new()),
    };
    let traversed = kernel::traversed_edges(&graph, &found.depth);
    println!(
        "{style} BFS from {source} on {backend}: {} vertices reached, largest depth {}; {steps}\
         {traversed} edges traversed, {} scanned, {} stale scans; {:.3} GTEPS",
        found.reached(),
        found.max_depth(),
        found.edges_scanned,
        found.stale,
        traversed as f64 / stats.phases.run.as_secs_f64().max(1e-9) / 1e9
    );
    println!("{stats}");
    args.common.chart(stats, format!("{style} BFS on {} ({backend})", what.split(':').next().unwrap_or("graph")));
    let verdict = kernel::check(&graph, source, &found.depth)
        .and_then(|()| relax::compare(&found.parent, &reference::bfs_parents(&graph, &found.depth, source), "parents"))
        .map(|()| "every depth equals a sequential BFS's, and every parent is its in-neighbour one level up with the smallest id".to_string());
    Ok(cli::report(verdict))
}

/// The direction-optimizing search's settings from the command line.
fn direction(args: &Args) -> kernel::Direction {
    kernel::Direction { frontier_grain: args.frontier_grain, vertex_grain: args.vertex_grain, edge_grain: args.grain, alpha: args.alpha, beta: args.beta }
}
