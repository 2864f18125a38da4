//! PageRank on a real or generated graph, checked against float64 power iteration (GPU if
//! present, else CPU): 8 iterations as in the Broker Queue paper by default, or to a
//! tolerance with `--tolerance`.
//!
//!     cargo run --release --example pagerank                   # p2p-Gnutella31, 8 iterations
//!     cargo run --release --example pagerank -- --tolerance 1e-10
//!     WSDSL_SCHEDULER=bsq cargo run --release --example pagerank -- --rmat 18

use clap::Parser;
use std::process::ExitCode;
use wsdsl_examples::cli;
use wsdsl_examples::pagerank as kernel;

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
    let device_graph = kernel::DeviceGraph::new(&graph);
    let n = graph.vertices() as f64;
    let (rank, edges, stats, backend, note, want, allowed, mode) = match args.tolerance {
        None if args.pull => {
            let pulled = kernel::PullGraph::new(&graph);
            let (rank, edges, out) = kernel::pull(&rt, &pulled, args.iterations, args.grain)?;
            let want = kernel::reference(&graph, Some(args.iterations));
            let leaves = if pulled.skewed { "skewed in-degrees: leaves cut by walks" } else { "even in-degrees: leaves cut evenly" };
            (rank, edges, out.stats, out.backend, out.note, want, kernel::pull_tolerance(args.iterations), format!("{} iterations, pulled (32-bit shares; {leaves})", args.iterations))
        }
        None => {
            let (rank, edges, out) = kernel::iterate(&rt, &device_graph, args.iterations)?;
            let want = kernel::reference(&graph, Some(args.iterations));
            // Only the order of the additions differs from the reference.
            (rank, edges, out.stats, out.backend, out.note, want, 1e-9, format!("{} iterations", args.iterations))
        }
        Some(tol) => {
            let (rank, edges, out) = kernel::converge(&rt, &device_graph, tol)?;
            let want = kernel::reference(&graph, None);
            let bound = tol * (n + graph.edges() as f64) / (1.0 - kernel::DAMPING);
            (rank, edges, out.stats, out.backend, out.note, want, bound, format!("to a tolerance of {tol:e}"))
        }
    };
    cli::note_fallback(&note);
    let mut top: Vec<usize> = (0..rank.len()).collect();
    top.sort_by(|&a, &b| rank[b].total_cmp(&rank[a]));
    let show: Vec<String> = top.iter().take(3).map(|&v| format!("{v} ({:.3e})", rank[v])).collect();
    println!(
        "PageRank {mode} on {backend}: {edges} edges scanned ({:.3} G edges/s); highest ranks: {}",
        edges as f64 / stats.phases.run.as_secs_f64().max(1e-9) / 1e9,
        show.join(", ")
    );
    println!("{stats}");
    args.common.chart(&stats, format!("PageRank on {} ({backend})", what.split(':').next().unwrap_or("graph")));
    let (rel, total) = kernel::error(&rank, &want);
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
