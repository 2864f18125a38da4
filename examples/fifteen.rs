//! The 15-puzzle: counts the solutions of a scrambled position within a number of moves (one
//! IDA* iteration as a task tree), checked against a sequential recursive search.
//!
//!     cargo run --release --example fifteen -- --scramble 60 --seed 1 --slack 2
//!
//! With `--astar` it finds the fewest moves instead, by A* on the priority scheduler, and
//! runs the same search unordered beside it (nodes expanded and time of each):
//!
//!     cargo run --release --example fifteen -- --astar --scramble 40 --seed 1

use clap::Parser;
use std::process::ExitCode;
use std::time::Instant;
use wsdsl_examples::cli;
use wsdsl_examples::fifteen as kernel;

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
    /// Find the fewest moves by A* (positions in band moves + distance) and by the same
    /// search unordered, instead of counting solutions.
    #[arg(long)]
    astar: bool,
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
    if args.astar {
        return astar(args, &rt, &grid, optimal);
    }
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

/// A* and the same search unordered, both started from the scramble's length as the
/// incumbent, against the sequential IDA*'s optimum.
fn astar(args: &Args, rt: &wsdsl::Runtime, grid: &kernel::Grid, optimal: u32) -> Result<bool, wsdsl::Error> {
    let mut runs = Vec::new();
    for ordered in [true, false] {
        let found = kernel::shortest(rt, grid, args.scramble, ordered)?;
        cli::note_fallback(&found.out.note);
        let name = if ordered { "A* (band = moves + distance)" } else { "unordered (every position in band 0)" };
        let moves = found.moves.map_or("none".to_string(), |m| m.to_string());
        println!(
            "{name}: fewest moves {moves}, {} positions expanded, {} cut off, run {:.2?} on {}",
            found.expanded,
            found.out.counters.cut.get(),
            found.out.stats.phases.run,
            found.out.backend
        );
        if let Some(bands) = &found.out.stats.bands {
            println!("  {bands}");
        }
        runs.push(found);
    }
    let (ordered, unordered) = (&runs[0], &runs[1]);
    println!(
        "A* expanded {:.1}x fewer positions than the unordered run",
        unordered.expanded as f64 / ordered.expanded.max(1) as f64
    );
    let verdict = if ordered.moves == Some(optimal) && unordered.moves == Some(optimal) {
        Ok(format!("both searches find {optimal} moves, the sequential IDA*'s optimum"))
    } else {
        Err(format!("the sequential IDA* finds {optimal} moves; A* {:?}, unordered {:?}", ordered.moves, unordered.moves))
    };
    Ok(cli::report(verdict))
}
