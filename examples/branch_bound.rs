//! Branch and bound over a trait: a 0/1 knapsack and a travelling salesman tour searched by
//! one generic `search`, in one run, each checked against an exact dynamic programme.
//!
//!     cargo run --release --example branch_bound -- --items 30 --cities 10 --seed 1

use clap::Parser;
use std::process::ExitCode;
use std::time::Instant;
use wsdsl_examples::branch_bound as kernel;
use wsdsl_examples::cli;

#[derive(Parser)]
#[command(about = "Branch and bound over a trait (0/1 knapsack and a tour), checked against dynamic programming")]
struct Args {
    /// Knapsack items (0..=40): weights 1..=100, values strongly correlated with them.
    #[arg(long, default_value_t = 30)]
    items: usize,
    /// Cities of the tour (1..=12), at random points of a 1000 x 1000 square.
    #[arg(long, default_value_t = 10)]
    cities: usize,
    /// Seed of both instances.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    common: cli::Common,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    let rt = args.common.runtime()?;
    let (items, capacity) = kernel::knapsack_instance(args.items, args.seed);
    let dist = kernel::cities(args.cities, args.seed);
    let (got, out) = kernel::solve(&rt, &items, capacity, &dist)?;
    cli::note_fallback(&out.note);
    println!(
        "branch_bound on {}: knapsack of {} items, capacity {capacity}: best value {}; tour of {} cities: length {} ({} nodes pruned, {} improvements)",
        out.backend,
        items.len(),
        got.knapsack,
        dist.len(),
        got.tour,
        out.counters.pruned.get(),
        out.counters.improved.get()
    );
    println!("{}", out.stats);
    args.common.chart(&out.stats, format!("Branch and bound on {}", out.backend));
    let started = Instant::now();
    let want = kernel::reference(&items, capacity, &dist);
    println!("dynamic programming: value {}, length {} in {:.2?}", want.knapsack, want.tour, started.elapsed());
    let verdict = if got == want {
        Ok(format!("matches dynamic programming (value {}, tour length {})", want.knapsack, want.tour))
    } else {
        Err(format!("dynamic programming says value {}, tour length {}", want.knapsack, want.tour))
    };
    Ok(cli::report(verdict))
}
