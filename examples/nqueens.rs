//! Counts N-Queens solutions with the work-stealing megakernel (GPU if present, else CPU)
//! and checks the count against OEIS A000170.
//!
//!     cargo run --release --example nqueens -- 14
//!     WSDSL_BACKEND=cpu cargo run --release --example nqueens -- 12
//!     cargo run --release --example nqueens -- 17 --cutoff 5   # tasks to row 5, then recursion

use clap::Parser;
use std::process::ExitCode;
use wsdsl_examples::cli;
use wsdsl_examples::nqueens as kernel;
use wsdsl_examples::nqueens::cutoff;

#[derive(Parser)]
#[command(about = "Count N-Queens solutions and check them against OEIS A000170")]
struct Args {
    /// Board size (1..=20).
    #[arg(default_value_t = 12)]
    n: u32,
    /// Spawn tasks only down to this row, then count each subtree by recursion on one thread
    /// (default: one task per board).
    #[arg(long)]
    cutoff: Option<u32>,
    #[command(flatten)]
    common: cli::Common,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    let rt = args.common.runtime()?;
    let (solutions, note, backend, stats) = match args.cutoff {
        None => kernel::solve(&rt, args.n).map(|(s, out)| (s, out.note, out.backend, out.stats))?,
        Some(k) => cutoff::solve(&rt, args.n, k).map(|(s, out)| (s, out.note, out.backend, out.stats))?,
    };
    cli::note_fallback(&note);
    let form = match args.cutoff {
        None => String::new(),
        Some(k) => format!(" (tasks to row {k}, then recursion)"),
    };
    println!("N-Queens n={}{form}: {solutions} solutions on {backend}", args.n);
    println!("{stats}");
    args.common.chart(&stats, format!("N-Queens {}{form} on {backend}", args.n));
    let expected = kernel::expected(args.n).expect("solve rejects n outside the table");
    let verdict = if solutions == expected {
        Ok(format!("matches OEIS A000170 ({expected})"))
    } else {
        Err(format!("OEIS A000170 says {expected}"))
    };
    Ok(cli::report(verdict))
}
