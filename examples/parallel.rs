//! Runs every data-parallel building block (`ctx.copy`, `ctx.merge`, `ctx.sort`,
//! `ctx.partition`, `ctx.exclusive_scan`, `ctx.reduce_sum/min/max`, and several jobs mixed
//! with children in one task) on random inputs of many lengths, one root task per case (GPU if
//! present, else CPU), and checks each output and result word against plain Rust.
//!
//!     cargo run --release --example parallel
//!     cargo run --release --example parallel -- --kind merge --seed 3

use clap::Parser;
use std::process::ExitCode;
use wsdsl_examples::cli;
use wsdsl_examples::parallel as kernel;

#[derive(Parser)]
#[command(about = "Every data-parallel building block against its definition in plain Rust")]
struct Args {
    /// Only this building block (copy, merge, sort, partition, exclusive_scan, reduce_sum,
    /// reduce_min, reduce_max), or `mixed`: jobs and children of one task together.
    #[arg(long)]
    kind: Option<String>,
    /// Seed of the pseudo-random inputs.
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
    let kinds: Vec<u32> = match &args.kind {
        None => (0..kernel::KINDS.len() as u32).collect(),
        Some(name) => match kernel::KINDS.iter().position(|k| k == name) {
            Some(k) => vec![k as u32],
            None => return Err(wsdsl::Error::InvalidConfig(format!("unknown building block `{name}`; choose one of {}", kernel::KINDS.join(", ")))),
        },
    };
    let suite = kernel::Suite::new(args.seed, &kernel::LENGTHS, &kinds);
    let buffers = suite.buffers();
    let out = rt.run_with::<kernel::blocks::Kernel>((), &buffers, suite.roots())?;
    cli::note_fallback(&out.note);
    println!("{} cases of {} on {}", suite.case_count(), kinds.iter().map(|&k| kernel::KINDS[k as usize]).collect::<Vec<_>>().join(", "), out.backend);
    println!("{}", out.stats);
    args.common.chart(&out.stats, format!("data-parallel building blocks on {}", out.backend));
    Ok(cli::report(suite.check(&buffers).map(|()| "every output and result word as plain Rust computes it".to_string())))
}
