//! Connected components of the graph made undirected, checked against components found by
//! a sequential BFS (GPU if present, else CPU). By default union-find with sampling
//! (Afforest, `wsdsl_examples::cc`); `--label-propagation` spreads the smallest label through each
//! component round by round instead (`wsdsl_examples::relax`; with `--data-driven`,
//! without rounds).
//!
//!     cargo run --release --example cc                         # p2p-Gnutella31
//!     cargo run --release --example cc -- --rmat 18
//!     cargo run --release --example cc -- --grid 2048x2048 --delete 0.4

use clap::Parser;
use std::process::ExitCode;
use wsdsl_examples::cc as kernel;
use wsdsl_examples::cli;
use wsdsl_examples::graph_reference::{component_summary, components};
use wsdsl_examples::relax;

#[derive(Parser)]
#[command(about = "Connected components by union-find (Afforest) or label propagation, checked against a sequential BFS")]
struct Args {
    #[command(flatten)]
    graph: cli::graph::GraphArgs,
    /// Vertices, samples or edges per task (label propagation: frontier vertices or edges).
    #[arg(long)]
    grain: Option<u32>,
    /// Union-find: neighbour positions linked before sampling.
    #[arg(long, default_value_t = kernel::Afforest::default().rounds)]
    rounds: u32,
    /// Union-find: vertices sampled to find the largest component.
    #[arg(long, default_value_t = kernel::Afforest::default().samples)]
    samples: u32,
    /// Label propagation instead of union-find: the smallest label spreads round by round.
    #[arg(long)]
    label_propagation: bool,
    /// Label propagation without rounds: every lowered label is passed on at once (on the Broker Queue).
    #[arg(long, requires = "label_propagation")]
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
    let (labels, style, stats, backend, note) = if args.label_propagation {
        let device_graph = relax::DeviceGraph::new(&graph, None);
        let everyone: Vec<u32> = (0..graph.vertices() as u32).collect();
        let how = relax::Relaxation { grain: args.grain.unwrap_or(relax::DEFAULT_GRAIN), step: 0 };
        let (found, relax::Ran { stats, backend, note }) = relax::solve(&rt, &device_graph, everyone.clone(), &everyone, how, relax::Method::driven_or_rounds(args.data_driven))?;
        let style = format!(
            "label propagation{}: {} rounds, {} edges scanned, {} stale offers",
            if args.data_driven { " (data-driven)" } else { "" },
            found.rounds,
            found.edges,
            found.stale
        );
        (found.value, style, stats, backend, note)
    } else {
        let how = kernel::Afforest { grain: args.grain.unwrap_or(kernel::DEFAULT_GRAIN), rounds: args.rounds, samples: args.samples };
        let (found, out) = kernel::afforest(&rt, &kernel::DeviceGraph::new(&graph)?, how)?;
        let style = format!(
            "union-find (Afforest): {} phases, {} edges linked ({:.2} per edge), {} vertices skipped with the sampled largest component (root {})",
            kernel::afforest::phases(how.rounds),
            found.links,
            found.links as f64 / graph.edges().max(1) as f64,
            found.skipped,
            found.largest_root
        );
        (found.labels, style, out.stats, out.backend, out.note)
    };
    cli::note_fallback(&note);
    let (count, largest) = component_summary(&labels);
    println!(
        "components on {backend}: {count}, the largest {largest} vertices; {style}; {:.3} G edges/s",
        graph.edges() as f64 / stats.phases.run.as_secs_f64().max(1e-9) / 1e9
    );
    println!("{stats}");
    args.common.chart(&stats, format!("connected components on {} ({backend})", what.split(':').next().unwrap_or("graph")));
    let verdict = relax::compare(&labels, &components(&graph), "labels")
        .map(|()| "every label is the smallest vertex of its component (sequential BFS)".to_string());
    Ok(cli::report(verdict))
}
