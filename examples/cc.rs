//! Connected components of the graph made undirected by
//! `wsdsl_graph::connected_components`, checked against components found by a sequential
//! BFS (GPU if present, else CPU). By default union-find with sampling (Afforest,
//! `wsdsl_graph::kernels::cc`); `--label-propagation` spreads the smallest label through each
//! component round by round instead (`wsdsl_graph::kernels::relax`; with `--data-driven`,
//! without rounds).
//!
//!     cargo run --release --example cc                         # p2p-Gnutella31
//!     cargo run --release --example cc -- --rmat 18
//!     cargo run --release --example cc -- --grid 2048x2048 --delete 0.4

use clap::Parser;
use std::process::ExitCode;
use wsdsl_examples::cli;
use wsdsl_graph::kernels::{cc as kernel, relax};
use wsdsl_graph::reference::components;
use wsdsl_graph::{Afforest, CcMethod, CcOptions, Run};

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
    let union_find = Afforest { grain: args.grain.unwrap_or(kernel::DEFAULT_GRAIN), rounds: args.rounds, samples: args.samples };
    let method = match (args.label_propagation, args.data_driven) {
        (false, _) => CcMethod::UnionFind(union_find),
        (true, false) => CcMethod::LabelPropagation,
        (true, true) => CcMethod::LabelPropagationDataDriven,
    };
    let opts = CcOptions { method, grain: args.grain.unwrap_or(relax::DEFAULT_GRAIN) };
    let found = wsdsl_graph::connected_components_with(&rt, &graph, &opts)?;
    let style = match found.method {
        CcMethod::UnionFind(how) => format!(
            "union-find (Afforest): {} phases, {} edges linked ({:.2} per edge)",
            kernel::afforest::phases(how.rounds),
            found.edges_scanned,
            found.edges_scanned as f64 / graph.edges().max(1) as f64
        ),
        CcMethod::LabelPropagationDataDriven => format!("label propagation (data-driven): {} edges scanned", found.edges_scanned),
        _ => format!("label propagation: {} edges scanned", found.edges_scanned),
    };
    let Run { stats, backend, note } = &found.run;
    cli::note_fallback(note);
    println!(
        "components on {backend}: {}, the largest {} vertices; {style}; {:.3} G edges/s",
        found.count(),
        found.largest(),
        graph.edges() as f64 / stats.phases.run.as_secs_f64().max(1e-9) / 1e9
    );
    println!("{stats}");
    args.common.chart(stats, format!("connected components on {} ({backend})", what.split(':').next().unwrap_or("graph")));
    let verdict = relax::compare(&found.label, &components(&graph), "labels")
        .map(|()| "every label is the smallest vertex of its component (sequential BFS)".to_string());
    Ok(cli::report(verdict))
}
