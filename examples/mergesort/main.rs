//! Sorts pseudo-random keys with fork-join merge sort tasks and a parallel merge (GPU if
//! present, else CPU) and checks the result: ascending, a permutation of the input, and the
//! task tree's shape.
//!
//!     cargo run --release --example mergesort -- --keys 1000000
//!     WSDSL_BACKEND=cpu cargo run --release --example mergesort -- --keys 100000 --cutoff 16

#[path = "../common/cli.rs"]
mod cli;
mod kernel;

use clap::Parser;
use std::process::ExitCode;

#[derive(Parser)]
#[command(about = "Merge sort with a parallel merge spawned by complete handlers, checked against the standard library's sort")]
struct Args {
    /// Number of keys.
    #[arg(long, default_value_t = 1 << 20)]
    keys: usize,
    /// Ranges of at most this many keys (up to 32) are sorted by one task.
    #[arg(long, default_value_t = 32)]
    cutoff: u32,
    /// Output keys per merge piece.
    #[arg(long, default_value_t = kernel::DEFAULT_GRAIN)]
    grain: u32,
    /// Keys are drawn from 0..distinct (small values give many repeats).
    #[arg(long, default_value_t = u32::MAX)]
    distinct: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// auto, cpu or gpu (default: $WSDSL_BACKEND, else auto).
    #[arg(long)]
    backend: Option<String>,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    let rt = cli::runtime(args.backend.as_deref())?;
    let input = kernel::keys(args.keys, args.seed, args.distinct);
    let (sorted, out) = kernel::sort(&rt, &input, args.cutoff, args.grain)?;
    cli::note_fallback(&out.note);
    println!(
        "merge sort of {} keys (cutoff {}, grain {}): {} leaves, {} merges in {} pieces, on {}",
        args.keys, args.cutoff, args.grain, sorted.leaves, sorted.merges, sorted.pieces, out.backend
    );
    println!("{}", out.stats);
    let shape = kernel::tree_shape(args.keys as u32, args.cutoff, args.grain);
    let got = (sorted.leaves, sorted.merges, sorted.pieces);
    match kernel::check(&input, &sorted.data) {
        Ok(()) if got == shape => {
            println!("PASS: sorted, a permutation of the input, and {} leaves / {} merges / {} pieces as the tree has", shape.0, shape.1, shape.2);
            Ok(true)
        }
        Ok(()) => {
            println!("FAIL: sorted, but the task tree has {got:?} leaves / merges / pieces, not {shape:?}");
            Ok(false)
        }
        Err(why) => {
            println!("FAIL: {why}");
            Ok(false)
        }
    }
}
