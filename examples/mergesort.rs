//! Sorts pseudo-random keys with fork-join merge sort tasks (GPU if present, else CPU) and
//! checks the result: ascending, a permutation of the input, and the task tree's shape. The
//! complete handler merges the sorted halves with one `ctx.merge` call; `--merge-path` runs the
//! same sort with the merge written by hand as tasks instead, for comparison.
//!
//!     cargo run --release --example mergesort -- --keys 1000000
//!     WSDSL_BACKEND=cpu cargo run --release --example mergesort -- --keys 100000 --cutoff 16
//!     cargo run --release --example mergesort -- --keys 1000000 --merge-path --grain 64

use clap::Parser;
use kernel::merge_path;
use std::process::ExitCode;
use wsdsl_examples::cli;
use wsdsl_examples::mergesort as kernel;

#[derive(Parser)]
#[command(about = "Merge sort whose complete handler merges with ctx.merge, checked against the standard library's sort")]
struct Args {
    #[command(flatten)]
    input: cli::sort::KeyArgs,
    /// Merge by hand-written merge-path tasks instead of `ctx.merge` (the leaves then sort up
    /// to 32 keys in a local array).
    #[arg(long)]
    merge_path: bool,
    /// Output keys per hand-written merge piece (with `--merge-path`).
    #[arg(long, default_value_t = merge_path::DEFAULT_GRAIN)]
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
    let title = format!("mergesort of {} keys", args.input.keys);
    if args.merge_path {
        let cutoff = args.input.cutoff.unwrap_or(merge_path::merge_path::LEAF as u32);
        let (sorted, out) = merge_path::sort(&rt, &input, cutoff, args.grain)?;
        cli::note_fallback(&out.note);
        println!(
            "merge sort of {} keys by merge-path tasks (cutoff {cutoff}, grain {}): {} leaves, {} merges in {} pieces, on {}",
            args.input.keys, args.grain, sorted.leaves, sorted.merges, sorted.pieces, out.backend
        );
        println!("{}", out.stats);
        args.common.chart(&out.stats, format!("{title} on {}", out.backend));
        let shape = merge_path::tree_shape(args.input.keys as u32, cutoff, args.grain);
        let got = (sorted.leaves, sorted.merges, sorted.pieces);
        let verdict = kernel::check(&input, &sorted.data).and_then(|()| {
            if got == shape {
                Ok(format!("sorted, a permutation of the input, and {} leaves / {} merges / {} pieces as the tree has", shape.0, shape.1, shape.2))
            } else {
                Err(format!("sorted, but the task tree has {got:?} leaves / merges / pieces, not {shape:?}"))
            }
        });
        return Ok(cli::report(verdict));
    }
    let cutoff = args.input.cutoff.unwrap_or(kernel::mergesort::LEAF as u32);
    let (sorted, out) = kernel::sort(&rt, &input, cutoff)?;
    cli::note_fallback(&out.note);
    println!(
        "merge sort of {} keys (cutoff {cutoff}): {} leaves sorted by ctx.sort, {} ctx.merge calls, on {}",
        args.input.keys, sorted.leaves, sorted.merges, out.backend
    );
    println!("{}", out.stats);
    args.common.chart(&out.stats, format!("{title} on {}", out.backend));
    let shape = kernel::tree_shape(args.input.keys as u32, cutoff);
    let got = (sorted.leaves, sorted.merges);
    let verdict = kernel::check(&input, &sorted.data).and_then(|()| {
        if got == shape {
            Ok(format!("sorted, a permutation of the input, and {} leaves / {} merges as the tree has", shape.0, shape.1))
        } else {
            Err(format!("sorted, but the task tree has {got:?} leaves / merges, not {shape:?}"))
        }
    });
    Ok(cli::report(verdict))
}
