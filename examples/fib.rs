//! Fork-join Fibonacci: every call waits for its two children and adds their values in its
//! complete handler. Checks fib(n), the fib(n+1) leaves and the fib(n+1) - 1 joins against an
//! iterative reference.
//!
//!     cargo run --release --example fib -- 30

use clap::Parser;
use std::process::ExitCode;
use wsdsl_examples::cli;
use wsdsl_examples::fib as kernel;

#[derive(Parser)]
#[command(about = "Compute fib(n) by fork-join tasks and check it")]
struct Args {
    /// Which Fibonacci number (0..=60).
    #[arg(default_value_t = 30)]
    n: u32,
    #[command(flatten)]
    common: cli::Common,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    let rt = args.common.runtime()?;
    let (leaves, value, out) = kernel::solve(&rt, args.n)?;
    cli::note_fallback(&out.note);
    let joins = out.counters.joins.get();
    println!("fib({}) = {value}, call tree with {leaves} leaves and {joins} joins, on {}", args.n, out.backend);
    println!("{}", out.stats);
    args.common.chart(&out.stats, format!("fib({}) on {}", args.n, out.backend));
    let (want_value, want_leaves) = (kernel::reference(args.n), kernel::reference(args.n + 1));
    let verdict = if value == want_value && leaves == want_leaves && joins + 1 == want_leaves {
        Ok(format!("fib({}) = {want_value}, {want_leaves} leaves and {} joins, as the iterative reference says", args.n, want_leaves - 1))
    } else {
        Err(format!("expected fib({}) = {want_value} with {want_leaves} leaves and {} joins", args.n, want_leaves - 1))
    };
    Ok(cli::report(verdict))
}
