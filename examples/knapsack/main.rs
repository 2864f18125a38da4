//! 0/1 knapsack by branch and bound with a shared best value, checked against dynamic
//! programming.
//!
//!     cargo run --release --example knapsack -- --items 50 --seed 1

#[path = "../common/cli.rs"]
mod cli;
mod kernel;

use clap::Parser;
use kernel::Correlation;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(about = "0/1 knapsack by branch and bound, checked against dynamic programming")]
struct Args {
    /// Items (1..=128).
    #[arg(long, default_value_t = 50)]
    items: usize,
    /// Capacity of the knapsack (default: half the items' total weight).
    #[arg(long)]
    capacity: Option<u32>,
    /// Weights are drawn from 1..=RANGE.
    #[arg(long, default_value_t = 1000)]
    range: u32,
    /// How values relate to weights.
    #[arg(long, value_enum, default_value_t = Correlation::Strong)]
    correlation: Correlation,
    /// Seed of the instance.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    common: cli::Common,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    if args.range == 0 || args.range > 1_000_000 {
        return Err(wsdsl::Error::InvalidConfig("--range must be 1..=1000000".into()));
    }
    if args.items == 0 || args.items > kernel::knapsack::MAX_ITEMS {
        return Err(wsdsl::Error::InvalidConfig(format!("--items must be 1..={}", kernel::knapsack::MAX_ITEMS)));
    }
    let rt = args.common.runtime()?;
    let items = kernel::generate(args.items, args.range, args.correlation, args.seed);
    let total: u64 = items.iter().map(|&(w, _)| w as u64).sum();
    let capacity = args.capacity.unwrap_or((total / 2) as u32);
    let (best, out) = kernel::solve(&rt, &items, capacity)?;
    cli::note_fallback(&out.note);
    println!(
        "knapsack: {} items ({:?} correlation), capacity {capacity}: best value {best} on {} ({} tasks pruned, {} improvements)",
        items.len(),
        args.correlation,
        out.backend,
        out.counters.pruned.get(),
        out.counters.improved.get()
    );
    println!("{}", out.stats);
    args.common.chart(&out.stats, format!("Knapsack, {} items on {}", items.len(), out.backend));
    let started = Instant::now();
    let expected = kernel::reference(&items, capacity);
    println!("dynamic programming: {expected} in {:.2?}", started.elapsed());
    let verdict = if best == expected {
        Ok(format!("matches dynamic programming ({expected})"))
    } else {
        Err(format!("dynamic programming says {expected}"))
    };
    Ok(cli::report(verdict))
}
