//! 0/1 knapsack by branch and bound with a shared best value, checked against dynamic
//! programming.
//!
//!     cargo run --release --example knapsack -- --items 50 --seed 1
//!
//! With `--best-first` it also runs best-first branch and bound on the priority scheduler
//! (highest bound first) and the same search unordered, reporting packings expanded and time:
//!
//!     cargo run --release --example knapsack -- --items 60 --best-first

use clap::Parser;
use kernel::Correlation;
use std::process::ExitCode;
use std::time::Instant;
use wsdsl_examples::cli;
use wsdsl_examples::knapsack as kernel;

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
    /// Also run best-first branch and bound (packings in bands by bound) and the same
    /// search unordered.
    #[arg(long)]
    best_first: bool,
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
    let mut wrong = Vec::new();
    if best != expected {
        wrong.push(format!("branch and bound found {best}"));
    }
    if args.best_first {
        let tasks = out.stats.tasks;
        println!("depth-first ({}): {tasks} packings run, run {:.2?}", out.backend, out.stats.phases.run);
        for ordered in [true, false] {
            let run = kernel::solve_best_first(&rt, &items, capacity, ordered)?;
            let name = if ordered { "best-first (band by bound)" } else { "unordered (every packing in band 0)" };
            println!(
                "{name}: best value {}, {} packings run, {} expanded, {} pruned, run {:.2?} on {}",
                run.best,
                run.out.stats.tasks,
                run.expanded,
                run.out.counters.pruned.get(),
                run.out.stats.phases.run,
                run.out.backend
            );
            if let Some(bands) = &run.out.stats.bands {
                println!("  {bands}");
            }
            if run.best != expected {
                wrong.push(format!("{name} found {}", run.best));
            }
        }
    }
    let verdict = if wrong.is_empty() {
        Ok(format!("matches dynamic programming ({expected})"))
    } else {
        Err(format!("dynamic programming says {expected}; {}", wrong.join(", ")))
    };
    Ok(cli::report(verdict))
}
