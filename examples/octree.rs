//! Octree partitioning: splits a particle set into octants, each cell a task that a whole
//! block partitions, until every leaf holds at most `--max-leaf` particles; then checks
//! the tree against the particles on the host.
//!
//!     cargo run --release --example octree -- --particles 1000000
//!     cargo run --release --example octree -- --distribution plummer --max-leaf 16 --seed 7

use clap::{Parser, ValueEnum};
use std::process::ExitCode;
use std::time::Instant;
use wsdsl_examples::cli;
use wsdsl_examples::octree as kernel;

#[derive(Clone, Copy, ValueEnum)]
enum DistributionArg {
    /// Uniform in the unit cube.
    Uniform,
    /// A Plummer model cluster (radii up to 10 Plummer radii).
    Plummer,
}

#[derive(Parser)]
#[command(about = "Build an octree of particles with cooperative tasks and check it")]
struct Args {
    /// Number of particles.
    #[arg(long, default_value_t = 1_000_000)]
    particles: usize,
    /// How the particles are spread.
    #[arg(long, value_enum, default_value = "uniform")]
    distribution: DistributionArg,
    /// Most particles a leaf may hold (leaves at the depth cap excepted).
    #[arg(long, default_value_t = 32)]
    max_leaf: u32,
    /// Seed of the particle generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    common: cli::Common,
    /// Threads per GPU block, i.e. per task (a multiple of 32; default 256).
    #[arg(long)]
    block_threads: Option<u32>,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    kernel::validate(args.particles, args.max_leaf)?;
    let mut rt = args.common.runtime()?;
    if let Some(threads) = args.block_threads {
        rt = rt.block_threads(threads);
    }
    let (distribution, name) = match args.distribution {
        DistributionArg::Uniform => (kernel::Distribution::Uniform, "uniform"),
        DistributionArg::Plummer => (kernel::Distribution::Plummer, "plummer"),
    };
    let particles = kernel::Particles::generate(distribution, args.particles, args.seed);
    let (tree, out) = kernel::build(&rt, &particles, args.max_leaf)?;
    cli::note_fallback(&out.note);
    println!(
        "octree of {} {name} particles (seed {}, max leaf {}) on {}",
        args.particles, args.seed, args.max_leaf, out.backend
    );
    println!("{}", out.stats);
    args.common.chart(&out.stats, format!("octree of {} particles on {}", args.particles, out.backend));
    let ms = out.stats.phases.run.as_secs_f64() * 1e3;
    println!(
        "built in {ms:.1} ms: {:.1} tasks/ms, {:.1} M particles/s",
        out.stats.tasks as f64 / ms,
        args.particles as f64 / ms / 1e3
    );
    let started = Instant::now();
    let verdict = kernel::check(&particles, args.max_leaf, &tree);
    let check_ms = started.elapsed().as_secs_f64() * 1e3;
    let verdict = verdict.map(|summary| {
        println!("{summary}");
        format!("every particle is in exactly one leaf that contains it (checked in {check_ms:.0} ms)")
    });
    Ok(cli::report(verdict))
}
