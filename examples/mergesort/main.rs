//! Sorts pseudo-random keys with fork-join merge sort tasks and a parallel merge (GPU if
//! present, else CPU) and checks the result: ascending, a permutation of the input, and the
//! task tree's shape.
//!
//!     cargo run --release --example mergesort -- --keys 1000000
//!     WSDSL_BACKEND=cpu cargo run --release --example mergesort -- --keys 100000 --cutoff 16

#[path = "../common/cli.rs"]
mod cli;
#[path = "../common/sort_cli.rs"]
mod sort_cli;
mod kernel;

use clap::Parser;
use std::process::ExitCode;

#[derive(Parser)]
#[command(about = "Merge sort with a parallel merge spawned by complete handlers, checked against the standard library's sort")]
struct Args {
    #[command(flatten)]
    input: sort_cli::KeyArgs,
    /// Output keys per merge piece.
    #[arg(long, default_value_t = kernel::DEFAULT_GRAIN)]
    grain: u32,
    #[command(flatten)]
    common: cli::Common,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    let rt = args.common.runtime()?;
    let input = kernel::checked_keys(args.input.keys, args.input.seed, args.input.distinct)?;
    let (sorted, out) = kernel::sort(&rt, &input, args.input.cutoff, args.grain)?;
    cli::note_fallback(&out.note);
    println!(
        "merge sort of {} keys (cutoff {}, grain {}): {} leaves, {} merges in {} pieces, on {}",
        args.input.keys, args.input.cutoff, args.grain, sorted.leaves, sorted.merges, sorted.pieces, out.backend
    );
    println!("{}", out.stats);
    args.common.chart(&out.stats, format!("mergesort of {} keys on {}", args.input.keys, out.backend));
    let shape = kernel::tree_shape(args.input.keys as u32, args.input.cutoff, args.grain);
    let got = (sorted.leaves, sorted.merges, sorted.pieces);
    let verdict = kernel::check(&input, &sorted.data).and_then(|()| {
        if got == shape {
            Ok(format!("sorted, a permutation of the input, and {} leaves / {} merges / {} pieces as the tree has", shape.0, shape.1, shape.2))
        } else {
            Err(format!("sorted, but the task tree has {got:?} leaves / merges / pieces, not {shape:?}"))
        }
    });
    Ok(cli::report(verdict))
}
