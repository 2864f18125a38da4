//! Single-source shortest paths with integer edge weights by `wsdsl_graph::sssp`:
//! delta-stepping on the priority scheduler (`order = priority`: an offer of distance d
//! waits in band d / delta; delta from the weights unless `--delta` says), or with
//! `--rounds` by Bellman-Ford driven by the vertices whose distance changed (frontier rounds
//! as a continuation), or with `--data-driven` without rounds on the Broker Queue
//! (`wsdsl_graph::kernels::relax`); checked against Dijkstra's algorithm. A graph without
//! weights (a SNAP edge list, a pattern matrix) gets weights 1..=255 hashed from each edge's
//! ends; a file's weights are used as they are (integers, or whole real numbers; a negative
//! or fractional one is refused, naming its edge). Generated graphs come weighted. For a
//! file, Dijkstra runs on the file's edges and weights as its own parser reads them
//! (`wsdsl_graph::reference::file_distances`), not on the graph the runtime's reader built,
//! so the check also catches a reader that got one wrong.
//!
//!     cargo run --release --example sssp                       # p2p-Gnutella31, from vertex 0
//!     cargo run --release --example sssp -- --rmat 18 --symmetrize --delta 64
//!     cargo run --release --example sssp -- --rmat 18 --symmetrize
//!     cargo run --release --example sssp -- USA-road-d.NY.gr.gz --source 1
//!     cargo run --release --example sssp -- --grid 512x512 --delete 0.1

use clap::Parser;
use std::process::ExitCode;
use wsdsl::graph::Weights;
use wsdsl_examples::cli;
use wsdsl_graph::kernels::relax;
use wsdsl_graph::reference::{dijkstra, file_distances, hashed_weights, UNREACHED};
use wsdsl_graph::{Run, SsspMethod, SsspOptions};

#[derive(Parser)]
#[command(about = "Single-source shortest paths by delta-stepping (or frontier relaxation), checked against Dijkstra")]
struct Args {
    #[command(flatten)]
    graph: cli::graph::GraphArgs,
    /// The vertex distances are measured from (default: 0, or the first vertex with an edge).
    #[arg(long)]
    source: Option<u32>,
    /// Frontier vertices, or edges of one vertex, per task.
    #[arg(long, default_value_t = relax::DEFAULT_GRAIN)]
    grain: u32,
    /// Width of a band of distances for delta-stepping (default: from the weights, see
    /// `relax::default_delta`).
    #[arg(long, conflicts_with_all = ["rounds", "data_driven"])]
    delta: Option<u32>,
    /// Frontier rounds (Bellman-Ford driven by the changed vertices) instead of delta-stepping.
    #[arg(long, conflicts_with = "data_driven")]
    rounds: bool,
    /// Without rounds or bands: every lowered value is passed on at once (on the Broker Queue).
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
    let (mut graph, what) = args.graph.load(true, false)?;
    println!("{what}");
    // A file's own weights, exactly (real ones only when whole; negative ones are refused).
    // The library weighs an unweighted graph's edges 1; this example hashes weights instead,
    // as the reference reading the file does.
    let weights = match graph.integer_weights()? {
        Some(w) => w,
        None => {
            println!("weights: 1..=255, hashed from each edge's ends (the graph has none)");
            hashed_weights(&graph)
        }
    };
    graph.weights = Weights::Int(weights.clone());
    let source = args.source.unwrap_or_else(|| graph.first_vertex_with_edges().unwrap_or(0));
    let method = if args.rounds {
        SsspMethod::Rounds
    } else if args.data_driven {
        SsspMethod::DataDriven
    } else if let Some(delta) = args.delta {
        SsspMethod::DeltaStepping { delta }
    } else {
        SsspMethod::Auto
    };
    let found = wsdsl_graph::sssp_with(&rt, &graph, source, &SsspOptions { method, grain: args.grain })?;
    if let SsspMethod::DeltaStepping { delta } = found.method {
        println!("delta-stepping with delta {delta}{}", if args.delta.is_some() { "" } else { " (from the mean weight and degree; --delta to choose)" });
    }
    let Run { stats, backend, note } = &found.run;
    cli::note_fallback(note);
    let reached: Vec<u32> = found.distance.iter().copied().filter(|&d| d != UNREACHED).collect();
    let traversed = relax::traversed_edges(&graph, &found.distance);
    println!(
        "SSSP from {source} on {}: {} vertices reached, largest distance {}; {} rounds, {} edges scanned ({:.2} per edge of a reached vertex), {} stale offers; {:.3} GTEPS",
        backend,
        reached.len(),
        reached.iter().copied().max().unwrap_or(0),
        found.rounds,
        found.edges_scanned,
        found.edges_scanned as f64 / traversed.max(1) as f64,
        found.stale,
        traversed as f64 / stats.phases.run.as_secs_f64().max(1e-9) / 1e9
    );
    println!("{stats}");
    args.common.chart(stats, format!("SSSP on {} ({backend})", what.split(':').next().unwrap_or("graph")));
    let (want, reference) = match args.graph.file_read() {
        Some(path) => (file_distances(&path, args.graph.symmetrize, graph.vertices(), source), "Dijkstra's on the file's edges and weights, read on their own"),
        None => (Ok(dijkstra(&graph, &weights, source)), "Dijkstra's"),
    };
    let verdict = want.and_then(|want| relax::compare(&found.distance, &want, "distances")).map(|()| format!("every distance equals {reference}"));
    Ok(cli::report(verdict))
}
