//! Single-source shortest paths with integer edge weights: Bellman-Ford driven by the
//! vertices whose distance changed (frontier rounds as a continuation, `examples/common/relax.rs`),
//! checked against Dijkstra's algorithm (GPU if present, else CPU). A file's weights are
//! used as they are: integers, or real numbers that are whole (a negative or fractional
//! weight is refused, naming its edge); a graph without weights (a SNAP edge list, a pattern
//! matrix) gets weights 1..=255 hashed from each edge's ends. Generated graphs come weighted.
//!
//!     cargo run --release --example sssp                       # p2p-Gnutella31, from vertex 0
//!     cargo run --release --example sssp -- --rmat 18 --symmetrize
//!     cargo run --release --example sssp -- USA-road-d.NY.gr.gz --source 1
//!     cargo run --release --example sssp -- --grid 512x512 --delete 0.1

#[path = "../common/cli.rs"]
mod cli;
#[path = "../common/graph_cli.rs"]
mod graph_cli;
#[path = "../common/graph_reference.rs"]
mod graph_reference;
#[path = "../common/relax.rs"]
mod relax;

use clap::Parser;
use graph_reference::{dijkstra, hashed_weights, UNREACHED};
use std::process::ExitCode;

#[derive(Parser)]
#[command(about = "Single-source shortest paths as frontier relaxation, checked against Dijkstra")]
struct Args {
    #[command(flatten)]
    graph: graph_cli::GraphArgs,
    /// The vertex distances are measured from (default: 0, or the first vertex with an edge).
    #[arg(long)]
    source: Option<u32>,
    /// Frontier vertices, or edges of one vertex, per task.
    #[arg(long, default_value_t = relax::DEFAULT_GRAIN)]
    grain: u32,
    /// Without rounds: every lowered value is passed on at once (on the Broker Queue).
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
    let (graph, what) = args.graph.load(true, false)?;
    println!("{what}");
    // A file's own weights, exactly (real ones only when whole; negative ones are refused).
    let weights = match graph.integer_weights()? {
        Some(w) => w,
        None => {
            println!("weights: 1..=255, hashed from each edge's ends (the graph has none)");
            hashed_weights(&graph)
        }
    };
    let source = args.source.unwrap_or_else(|| graph.first_vertex_with_edges().unwrap_or(0));
    if source as usize >= graph.vertices() {
        return Err(wsdsl::Error::InvalidConfig(format!("the source vertex {source} is not in the graph (vertices 0..{})", graph.vertices())));
    }
    let device_graph = relax::DeviceGraph::new(&graph, Some(weights.clone()));
    let mut initial = vec![UNREACHED; graph.vertices()];
    initial[source as usize] = 0;
    let how = relax::Relaxation { grain: args.grain, step: 0 };
    let (found, relax::Ran { stats, backend, note }) = relax::solve(&rt, &device_graph, initial, &[source], how, args.data_driven)?;
    cli::note_fallback(&note);
    let reached: Vec<u32> = found.value.iter().copied().filter(|&d| d != UNREACHED).collect();
    let traversed = relax::traversed_edges(&graph, &found.value);
    println!(
        "SSSP from {source} on {}: {} vertices reached, largest distance {}; {} rounds, {} edges scanned ({:.2} per edge of a reached vertex), {} stale offers; {:.3} GTEPS",
        backend,
        reached.len(),
        reached.iter().copied().max().unwrap_or(0),
        found.rounds,
        found.edges,
        found.edges as f64 / traversed.max(1) as f64,
        found.stale,
        traversed as f64 / stats.phases.run.as_secs_f64().max(1e-9) / 1e9
    );
    println!("{stats}");
    args.common.chart(&stats, format!("SSSP on {} ({backend})", what.split(':').next().unwrap_or("graph")));
    let verdict = relax::compare(&found.value, &dijkstra(&graph, &weights, source), "distances")
        .map(|()| "every distance equals Dijkstra's".to_string());
    Ok(cli::report(verdict))
}
