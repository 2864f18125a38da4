//! The maximum subarray sum of 2^28 `i32` (1 GiB) by divide and conquer: every task hands
//! its parent its best subarray sum, best prefix, best suffix and total, and a complete
//! handler joins two halves' into theirs. The array is made by `ReadOnly::from_fn` on every
//! core; the four numbers are checked against a sequential pass over it.
//!
//!     cargo run --release --example max_subarray -- --len 268435456 --seed 1

use clap::Parser;
use std::process::ExitCode;
use std::time::Instant;
use wsdsl_examples::cli;
use wsdsl_examples::max_subarray as kernel;

#[derive(Parser)]
#[command(about = "The maximum subarray sum by divide and conquer, checked against a sequential pass")]
struct Args {
    /// Elements of the array (1 to 2^32 - 1; 2^28 is 1 GiB).
    #[arg(long, default_value_t = 1 << 28)]
    len: usize,
    /// Elements a task scans on its own.
    #[arg(long, default_value_t = 4096)]
    leaf: u32,
    /// Seed of the elements (each in -1000..=1000).
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
    let started = Instant::now();
    let values = kernel::input(args.len, args.seed)?;
    let gib = (values.len() * 4) as f64 / (1u64 << 30) as f64;
    println!("{} elements ({gib:.2} GiB) made in {:.2?} by ReadOnly::from_fn", values.len(), started.elapsed());
    let (got, out) = kernel::solve(&rt, &values, args.leaf)?;
    cli::note_fallback(&out.note);
    println!(
        "best subarray sum {}, best prefix {}, best suffix {}, total {}, from {} leaves on {}",
        got.best,
        got.prefix,
        got.suffix,
        got.total,
        out.counters.leaves.get(),
        out.backend
    );
    println!("{}", out.stats);
    args.common.chart(&out.stats, format!("Maximum subarray of {} elements on {}", values.len(), out.backend));
    let started = Instant::now();
    let want = kernel::reference(values.as_slice());
    println!("sequential pass: {:.2?}", started.elapsed());
    let leaves = kernel::leaves(values.len() as u64, args.leaf as u64);
    let verdict = if kernel::four(&got) == kernel::four(&want) && out.counters.leaves.get() == leaves {
        Ok(format!("best {}, prefix {}, suffix {} and total {} as the sequential pass says, {leaves} leaves", want.best, want.prefix, want.suffix, want.total))
    } else {
        Err(format!(
            "the sequential pass says best {}, prefix {}, suffix {}, total {} from {leaves} leaves",
            want.best, want.prefix, want.suffix, want.total
        ))
    };
    Ok(cli::report(verdict))
}
