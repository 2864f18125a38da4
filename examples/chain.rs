//! The chain micro-benchmark: one task spawns one child, `length` levels deep, so the run
//! time per level is the scheduler's hand-off latency. Checks that every link ran (and, with
//! `--joined`, that every chain's value came back up as its length).
//!
//!     cargo run --release --example chain -- --length 10000
//!     cargo run --release --example chain -- --length 2000 --chains 2600 --joined

use clap::Parser;
use std::process::ExitCode;
use wsdsl_examples::chain as kernel;
use wsdsl_examples::cli;

#[derive(Parser)]
#[command(about = "Measure the hand-off latency per level of chains of tasks")]
struct Args {
    /// Links per chain.
    #[arg(long, default_value_t = 10_000)]
    length: u32,
    /// Chains side by side.
    #[arg(long, default_value_t = 1)]
    chains: u32,
    /// Every link waits for its child (a complete handler per link).
    #[arg(long)]
    joined: bool,
    #[command(flatten)]
    common: cli::Common,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    let rt = args.common.runtime()?;
    let m = kernel::run(&rt, args.chains, args.length, args.joined)?;
    cli::note_fallback(&m.note);
    println!(
        "{} chain(s) of {} links{} on {}: {:.3} us per level",
        args.chains,
        args.length,
        if args.joined { ", joined" } else { "" },
        m.backend,
        m.per_level(args.length).as_secs_f64() * 1e6
    );
    println!("{}", m.stats);
    args.common.chart(&m.stats, format!("chain {} x {} on {}", args.chains, args.length, m.backend));
    let links = args.chains as u64 * args.length as u64;
    let values = if args.joined { ", every chain's value is its length" } else { "" };
    Ok(cli::report(m.check(args.chains, args.length, args.joined).map(|()| format!("{links} links ran{values}"))))
}
