//! The 15-puzzle: counts the solutions of a scrambled position within a number of moves (one
//! IDA* iteration as a task tree), checked against a sequential recursive search.
//!
//!     cargo run --release --example fifteen -- --scramble 60 --seed 1 --slack 2

#[path = "../common/cli.rs"]
mod cli;
mod kernel;

use clap::Parser;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(about = "Count the shortest (and near-shortest) solutions of a 15-puzzle, checked against a sequential search")]
struct Args {
    /// Random moves from the solved position.
    #[arg(long, default_value_t = 50)]
    scramble: u32,
    /// Seed of the scramble.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Moves allowed beyond the optimal number (solutions have the optimum's parity, so
    /// odd slack adds nothing).
    #[arg(long, default_value_t = 0)]
    slack: u32,
    #[command(flatten)]
    common: cli::Common,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    let rt = args.common.runtime()?;
    let grid = kernel::scramble(args.scramble, args.seed);
    let started = Instant::now();
    let optimal = kernel::optimal(&grid, args.scramble).expect("a scramble of k moves is solved within k");
    println!(
        "position {:?}: Manhattan distance {}, solved in {optimal} moves at best (sequential IDA*, {:.2?})",
        grid,
        kernel::manhattan(&grid),
        started.elapsed()
    );
    let bound = optimal + args.slack;
    let (solutions, shortest, out) = kernel::solve(&rt, &grid, bound)?;
    cli::note_fallback(&out.note);
    println!(
        "15-puzzle: {solutions} solutions within {bound} moves (shortest {shortest}) on {} ({} positions cut off)",
        out.backend,
        out.counters.cut.get()
    );
    println!("{}", out.stats);
    args.common.chart(&out.stats, format!("15-puzzle within {bound} moves on {}", out.backend));
    let started = Instant::now();
    let (expected, expected_shortest) = kernel::reference(&grid, bound);
    println!("sequential search: {expected} solutions in {:.2?}", started.elapsed());
    let verdict = if (solutions, shortest) == (expected, expected_shortest) && shortest == optimal {
        Ok(format!("{expected} solutions within {bound} moves, the shortest {optimal}, as the sequential search finds"))
    } else {
        Err(format!("the sequential search finds {expected} solutions, the shortest {expected_shortest} (optimal {optimal})"))
    };
    Ok(cli::report(verdict))
}
