//! PageRank on a real or generated graph by `wsdsl_graph::pagerank`, checked against float64
//! power iteration (GPU if present, else CPU): 8 iterations in the Broker Queue paper's
//! formulation by default, pulled with `--pull` (the library's default), or to a tolerance
//! with `--tolerance`.
//!
//!     cargo run --release --example pagerank                   # p2p-Gnutella31, 8 iterations
//!     cargo run --release --example pagerank -- --tolerance 1e-10
//!     WSDSL_SCHEDULER=bsq cargo run --release --example pagerank -- --rmat 18

use clap::Parser;
use std::process::ExitCode;
use wsdsl_examples::cli;
use wsdsl_graph::kernels::pagerank as kernel;
use wsdsl_graph::{PageRankMethod, PageRankOptions, Run};

#[derive(Parser)]
#[command(about = "Data-driven PageRank (the Broker Queue paper's formulation), checked against float64 power iteration")]
struct Args {
    #[command(flatten)]
    graph: cli::graph::GraphArgs,
    /// Iterations from 1/n (the paper runs 8).
    #[arg(long, default_value_t = 8, conflicts_with = "tolerance")]
    iterations: u32,
    /// The iterations as synchronous sweeps pulling over in-edges (no atomics; for speed).
    #[arg(long, conflicts_with = "tolerance")]
    pull: bool,
    /// With --pull: in-edges per task (a vertex with more is summed in parts).
    #[arg(long, default_value_t = kernel::PULL_GRAIN)]
    grain: u32,
    /// Run to convergence instead: stop when no vertex holds this much rank not passed on
    /// per out-edge. At least f64::EPSILON * (1 - d) / n (about 5e-22 on p2p-Gnutella31):
    /// smaller residuals change no float64 rank.
    #[arg(long, value_parser = cli::positive_number)]
    tolerance: Option<f64>,
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
    if let Some(tol) = args.tolerance {
        kernel::check_tolerance(tol, graph.vertices()).map_err(|why| wsdsl::Error::InvalidConfig(format!("--tolerance: {why}")))?;
    }
    // The paper's formulation unless --pull (the library's own default) or --tolerance.
    let method = match args.tolerance {
        Some(tolerance) => PageRankMethod::ToTolerance { tolerance },
        None if args.pull => PageRankMethod::Pull { grain: args.grain },
        None => PageRankMethod::Push,
    };
    let found = wsdsl_graph::pagerank(&rt, &graph, &PageRankOptions { iterations: args.iterations, method })?;
    let n = graph.vertices() as f64;
    let (want, allowed, mode) = match method {
        PageRankMethod::ToTolerance { tolerance } => {
            let bound = tolerance * (n + graph.edges() as f64) / (1.0 - kernel::DAMPING);
            (kernel::reference(&graph, None), bound, format!("to a tolerance of {tolerance:e}"))
        }
        PageRankMethod::Pull { .. } => {
            let mode = format!("{} iterations, pulled (32-bit shares)", args.iterations);
            (kernel::reference(&graph, Some(args.iterations)), kernel::pull_tolerance(args.iterations), mode)
        }
        // Only the order of the additions differs from the reference.
        _ => (kernel::reference(&graph, Some(args.iterations)), 1e-9, format!("{} iterations", args.iterations)),
    };
    let Run { stats, backend, note } = &found.run;
    cli::note_fallback(note);
    let rank = &found.rank;
    let mut top: Vec<usize> = (0..rank.len()).collect();
    top.sort_by(|&a, &b| rank[b].total_cmp(&rank[a]));
    let show: Vec<String> = top.iter().take(3).map(|&v| format!("{v} ({:.3e})", rank[v])).collect();
    println!(
        "PageRank {mode} on {backend}: {} edges scanned ({:.3} G edges/s); highest ranks: {}",
        found.edges_scanned,
        found.edges_scanned as f64 / stats.phases.run.as_secs_f64().max(1e-9) / 1e9,
        show.join(", ")
    );
    println!("{stats}");
    args.common.chart(stats, format!("PageRank on {} ({backend})", what.split(':').next().unwrap_or("graph")));
    let (rel, total) = kernel::error(rank, &want);
    let verdict = if args.tolerance.is_none() {
        if rel <= allowed {
            Ok(format!("every rank within {rel:.1e} (relative) of float64 power iteration"))
        } else {
            Err(format!("a rank differs by {rel:.1e} (relative) from float64 power iteration; allowed {allowed:.0e}"))
        }
    } else if total <= allowed {
        Ok(format!("ranks within {total:.2e} in total of the fixed point (bound tolerance x (edges + n) / (1 - d) = {allowed:.2e})"))
    } else {
        Err(format!("ranks differ by {total:.2e} in total from the fixed point; the bound is {allowed:.2e}"))
    };
    Ok(cli::report(verdict))
}
