//! Connected components by label propagation: every vertex starts with its own id as its
//! label and the smallest label of a component spreads through it, round by round from the
//! vertices whose label changed (`examples/common/relax.rs`). The graph is made undirected.
//! Checked against components found by a sequential BFS (GPU if present, else CPU).
//!
//!     cargo run --release --example cc                         # p2p-Gnutella31
//!     cargo run --release --example cc -- --rmat 18

#[path = "../common/cli.rs"]
mod cli;
#[path = "../common/graph_cli.rs"]
mod graph_cli;
#[path = "../common/graph_reference.rs"]
mod graph_reference;
#[path = "../common/relax.rs"]
mod relax;

use clap::Parser;
use graph_reference::{component_summary, components};
use std::process::ExitCode;

#[derive(Parser)]
#[command(about = "Connected components by label propagation, checked against a sequential BFS")]
struct Args {
    #[command(flatten)]
    graph: graph_cli::GraphArgs,
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
    let (graph, what) = args.graph.load(false, true)?;
    println!("{what}");
    let device_graph = relax::DeviceGraph::new(&graph, None);
    let everyone: Vec<u32> = (0..graph.vertices() as u32).collect();
    let how = relax::Relaxation { grain: args.grain, step: 0 };
    let (found, relax::Ran { stats, backend, note }) = relax::solve(&rt, &device_graph, everyone.clone(), &everyone, how, relax::Method::driven_or_rounds(args.data_driven))?;
    cli::note_fallback(&note);
    let (count, largest) = component_summary(&found.value);
    println!(
        "components on {}: {count}, the largest {largest} vertices; {} rounds, {} edges scanned, {} stale offers ({:.3} G edges/s)",
        backend,
        found.rounds,
        found.edges,
        found.stale,
        found.edges as f64 / stats.phases.run.as_secs_f64().max(1e-9) / 1e9
    );
    println!("{stats}");
    args.common.chart(&stats, format!("connected components on {} ({backend})", what.split(':').next().unwrap_or("graph")));
    let verdict = relax::compare(&found.value, &components(&graph), "labels")
        .map(|()| "every label is the smallest vertex of its component (sequential BFS)".to_string());
    Ok(cli::report(verdict))
}
