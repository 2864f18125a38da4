//! Sudoku: solves a set of generated puzzles, one root task per puzzle and one task per
//! branching board, and checks that each has exactly one solution, the one a sequential
//! backtracking solver finds.
//!
//!     cargo run --release --example sudoku -- --puzzles 1000 --clues 24 --seed 1

use clap::Parser;
use std::process::ExitCode;
use std::time::Instant;
use wsdsl_examples::cli;
use wsdsl_examples::sudoku as kernel;

#[derive(Parser)]
#[command(about = "Solve generated Sudoku puzzles (unique solutions) and check them against a sequential solver")]
struct Args {
    /// How many puzzles to generate and solve.
    #[arg(long, default_value_t = 200)]
    puzzles: usize,
    /// Clues to leave in each puzzle (17..=81): clues are removed while the solution stays
    /// unique, so some puzzles keep more.
    #[arg(long, default_value_t = 24)]
    clues: usize,
    /// Seed of the generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    common: cli::Common,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    kernel::check_request(args.puzzles, args.clues)?;
    let rt = args.common.runtime()?;
    let started = Instant::now();
    let set = kernel::generate_set(args.puzzles, args.clues, args.seed);
    let puzzles: Vec<kernel::Grid> = set.iter().map(|(p, _)| *p).collect();
    let clues: usize = puzzles.iter().map(kernel::clue_count).sum();
    println!(
        "generated {} puzzles ({:.1} clues on average, asked for {}) in {:.2?}",
        puzzles.len(),
        clues as f64 / puzzles.len() as f64,
        args.clues,
        started.elapsed()
    );
    let (solved, out) = kernel::solve(&rt, &puzzles)?;
    cli::note_fallback(&out.note);
    println!(
        "Sudoku: {} solutions of {} puzzles on {} ({} forced cells, {} dead ends)",
        out.counters.solutions.get(),
        puzzles.len(),
        out.backend,
        out.counters.forced.get(),
        out.counters.dead_ends.get()
    );
    println!("{}", out.stats);
    args.common.chart(&out.stats, format!("Sudoku, {} puzzles on {}", puzzles.len(), out.backend));
    let started = Instant::now();
    let mut wrong = Vec::new();
    let references = kernel::references(&puzzles);
    for (i, (&(count, first), (_, generated))) in references.iter().zip(&set).enumerate() {
        let reference = first.filter(|_| count == 1);
        if reference != Some(*generated) {
            wrong.push(format!("puzzle {i}: the sequential solver finds {count} solutions, not the generated grid"));
        } else if solved.counts[i] != 1 {
            wrong.push(format!("puzzle {i}: {} solutions found, not 1", solved.counts[i]));
        } else if solved.grids[i] != *generated {
            wrong.push(format!("puzzle {i}: the solution found is not the sequential solver's"));
        }
    }
    println!("sequential solver (each puzzle on one thread): {:.2?}", started.elapsed());
    let verdict = if wrong.is_empty() {
        Ok(format!("each of the {} puzzles has exactly one solution, the sequential solver's", puzzles.len()))
    } else {
        Err(format!("{} of {} puzzles wrong; {}", wrong.len(), puzzles.len(), wrong[..wrong.len().min(5)].join("; ")))
    };
    Ok(cli::report(verdict))
}
