//! Sorts pseudo-random keys with fork-join quicksort tasks: a three-way partition by
//! `ctx.partition`, then the two outer parts sorted by new tasks from the partition's complete
//! handler (GPU if present, else CPU). Checks that the result is ascending and a permutation of
//! the input.
//!
//!     cargo run --release --example quicksort -- --keys 1000000
//!     cargo run --release --example quicksort -- --keys 100000 --distinct 3

use clap::Parser;
use std::process::ExitCode;
use wsdsl_examples::cli;
use wsdsl_examples::quicksort as kernel;

#[derive(Parser)]
#[command(about = "Quicksort partitioning with ctx.partition, checked against the standard library's sort")]
struct Args {
    #[command(flatten)]
    input: cli::sort::KeyArgs,
    #[command(flatten)]
    common: cli::Common,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    let rt = args.common.runtime()?;
    let input = kernel::checked_keys(args.input.keys, args.input.seed, args.input.distinct)?;
    let cutoff = args.input.cutoff.unwrap_or(kernel::quicksort::LEAF as u32);
    let (sorted, out) = kernel::sort(&rt, &input, cutoff)?;
    cli::note_fallback(&out.note);
    println!(
        "quicksort of {} keys (cutoff {cutoff}): {} partitions, {} leaves, recursion depth {}, on {}",
        args.input.keys, sorted.partitions, sorted.leaves, sorted.depth, out.backend
    );
    println!("{}", out.stats);
    args.common.chart(&out.stats, format!("quicksort of {} keys on {}", args.input.keys, out.backend));
    let held = "sorted and a permutation of the input (checked against the standard library's sort)";
    Ok(cli::report(kernel::check(&input, &sorted.data).map(|()| held.to_string())))
}
