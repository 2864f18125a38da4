//! Counts N-Queens solutions with the work-stealing megakernel (GPU if present, else CPU)
//! and checks the count against OEIS A000170.
//!
//!     cargo run --release --example nqueens -- 14
//!     WSDSL_BACKEND=cpu cargo run --release --example nqueens -- 12

#[path = "../common/cli.rs"]
mod cli;
mod kernel;

use clap::Parser;
use std::process::ExitCode;

#[derive(Parser)]
#[command(about = "Count N-Queens solutions and check them against OEIS A000170")]
struct Args {
    /// Board size (1..=20).
    #[arg(default_value_t = 12)]
    n: u32,
    #[command(flatten)]
    common: cli::Common,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    let rt = args.common.runtime()?;
    let (solutions, out) = kernel::solve(&rt, args.n)?;
    cli::note_fallback(&out.note);
    println!("N-Queens n={}: {solutions} solutions on {}", args.n, out.backend);
    println!("{}", out.stats);
    args.common.chart(&out.stats, format!("N-Queens {} on {}", args.n, out.backend))?;
    let expected = kernel::expected(args.n).expect("solve rejects n outside the table");
    let verdict = if solutions == expected {
        Ok(format!("matches OEIS A000170 ({expected})"))
    } else {
        Err(format!("OEIS A000170 says {expected}"))
    };
    Ok(cli::report(verdict))
}
