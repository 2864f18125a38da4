//! Enumerates the call tree of naive Fibonacci and checks it: fib(n+1) leaves whose values
//! sum to fib(n), against an iterative reference.
//!
//!     cargo run --release --example fib -- 30

mod kernel;

use clap::Parser;
use std::process::ExitCode;
use wsdsl::prelude::*;

#[derive(Parser)]
#[command(about = "Count the leaves of fib(n)'s call tree and check them")]
struct Args {
    /// Which Fibonacci number (0..=60).
    #[arg(default_value_t = 30)]
    n: u32,
    /// auto, cpu or gpu (default: $WSDSL_BACKEND, else auto).
    #[arg(long)]
    backend: Option<String>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    let mut rt = Runtime::from_env()?;
    if let Some(b) = &args.backend {
        rt = Runtime::new(Backend::parse(b)?);
    }
    let (leaves, value, out) = kernel::solve(&rt, args.n)?;
    if let Some(why) = &out.note {
        println!("note: running on the CPU because {why}");
    }
    println!("fib({}) = {value}, call tree with {leaves} leaves, on {}", args.n, out.backend);
    println!("{}", out.stats);
    let (want_value, want_leaves) = (kernel::reference(args.n), kernel::reference(args.n + 1));
    if value == want_value && leaves == want_leaves {
        println!("PASS: fib({}) = {want_value} and {want_leaves} leaves, as the iterative reference says", args.n);
        Ok(true)
    } else {
        println!("FAIL: expected fib({}) = {want_value} with {want_leaves} leaves", args.n);
        Ok(false)
    }
}
