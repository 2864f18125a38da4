//! DLB_Bench (Fontenaille et al. §5.1): independent synthetic tasks that start out on a few
//! "holders" — 68.3% of them ("70%") on the middle 10% of the holders, as the paper's
//! gaussian places them — and must be spread by work stealing. Checks that every task ran
//! once and that the sum of their results equals the host's own computation, and reports the
//! kernel time, tasks/s and cost units/s.
//!
//!     cargo run --release --example dlb_bench
//!     cargo run --release --example dlb_bench -- --tasks 4000000 --cost gaussian --mean-cost 500 --spread 200
//!     cargo run --release --example dlb_bench -- --imbalance none --repeat 5   # the balanced baseline, median of 5

use clap::{Parser, ValueEnum};
use kernel::dlb::{Cost, Params};
use kernel::{Bench, Imbalance};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use wsdsl_examples::cli;
use wsdsl_examples::dlb_bench as kernel;

#[derive(Clone, Copy, ValueEnum)]
enum ImbalanceArg {
    /// The paper's: a gaussian over the holders, 68.3% of the tasks on the middle 10%.
    Paper,
    /// The same number of tasks on every holder.
    None,
}

#[derive(Clone, Copy, ValueEnum)]
enum CostArg {
    /// Every task costs --mean-cost rounds (the paper's).
    Constant,
    /// Uniform on mean ± spread.
    Uniform,
    /// Normal with standard deviation --spread (Irwin–Hall), clipped to 0..=2 × mean.
    Gaussian,
}

#[derive(Parser)]
#[command(about = "DLB_Bench: spread synthetic tasks that start on a few holders, and check them")]
struct Args {
    /// Tasks in all.
    #[arg(long, default_value_t = 1_000_000)]
    tasks: u64,
    /// Initial holders of the tasks, one root task each (the paper's processes).
    #[arg(long, default_value_t = 1024)]
    holders: u32,
    /// How the tasks start out over the holders.
    #[arg(long, value_enum, default_value = "paper")]
    imbalance: ImbalanceArg,
    /// How a task's cost is drawn.
    #[arg(long, value_enum, default_value = "constant")]
    cost: CostArg,
    /// Mean cost of a task, in rounds of the work loop (a 32-bit multiply-add and xor-shift).
    #[arg(long, default_value_t = 1000)]
    mean_cost: u32,
    /// Uniform: half the width of the range; gaussian: the standard deviation (default: a
    /// quarter of the mean).
    #[arg(long)]
    spread: Option<u32>,
    /// Seed of the task costs and results.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run K times after a warm-up run and report the median kernel time (the paper reports
    /// the median of 5).
    #[arg(long, default_value_t = 1, value_name = "K")]
    repeat: u32,
    #[command(flatten)]
    common: cli::Common,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn bench(args: &Args) -> Bench {
    let cost = match args.cost {
        CostArg::Constant => Cost::Constant,
        CostArg::Uniform => Cost::Uniform,
        CostArg::Gaussian => Cost::Gaussian,
    };
    let imbalance = match args.imbalance {
        ImbalanceArg::Paper => Imbalance::Paper,
        ImbalanceArg::None => Imbalance::None,
    };
    let spread = args.spread.unwrap_or(args.mean_cost / 4);
    let params = Params { cost, mean: args.mean_cost, spread, seed: args.seed };
    Bench { tasks: args.tasks, holders: args.holders, imbalance, params }
}

fn describe(b: &Bench) -> String {
    let p = &b.params;
    let placement = match b.imbalance {
        Imbalance::Paper => {
            format!("the paper's imbalance: the busiest 10% hold {:.1}%", 100.0 * kernel::busiest_tenth(&b.shares()))
        }
        Imbalance::None => "evenly".to_string(),
    };
    let cost = match p.cost {
        Cost::Constant => format!("constant cost {}", p.mean),
        Cost::Uniform => format!("uniform cost {} ± {}", p.mean, p.spread),
        Cost::Gaussian => format!("gaussian cost, mean {}, sd {}", p.mean, p.spread),
    };
    format!("{} tasks on {} holders ({placement}), {cost}, seed {}", b.tasks, b.holders, p.seed)
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    let bench = bench(args);
    bench.validate()?;
    if args.repeat == 0 {
        return Err(wsdsl::Error::InvalidConfig("--repeat must be at least 1".into()));
    }
    let rt = args.common.runtime()?;
    // The warm-up opens the GPU and compiles (or loads) the kernel, so that the timed runs
    // measure the kernel alone; a single run needs none (its phases show those costs apart).
    if args.repeat > 1 {
        kernel::run(&rt, &bench)?;
    }
    let mut runs = Vec::with_capacity(args.repeat as usize);
    for _ in 0..args.repeat {
        runs.push(kernel::run(&rt, &bench)?);
    }
    let started = Instant::now();
    let want = kernel::reference(&bench);
    let check_ms = started.elapsed().as_secs_f64() * 1e3;

    // Every run is checked; the median one (by kernel time) is reported.
    runs.sort_by_key(|(_, out)| out.stats.phases.run);
    let times: Vec<Duration> = runs.iter().map(|(_, out)| out.stats.phases.run).collect();
    let wrong = runs.iter().find(|(got, _)| *got != want).map(|(got, _)| *got);
    // Each task runs once, so the run's task count is the size of the holders' task trees.
    let spawned = bench.spawned();
    let miscounted = runs.iter().map(|(_, out)| out.stats.tasks).find(|&t| t != spawned);
    let (got, out) = &runs[runs.len() / 2];
    cli::note_fallback(&out.note);
    println!("DLB_Bench: {} on {}", describe(&bench), out.backend);
    println!("{}", out.stats);
    args.common
        .chart(&out.stats, format!("DLB_Bench, {} tasks on {} holders, on {}", bench.tasks, bench.holders, out.backend));
    let secs = out.stats.phases.run.as_secs_f64();
    if runs.len() > 1 {
        let listed: Vec<String> = times.iter().map(|t| format!("{:.3}", t.as_secs_f64() * 1e3)).collect();
        println!("runs        {} ms; the median is reported", listed.join(", "));
    }
    println!(
        "kernel      {:.3} ms: {:.2} M tasks/s, {:.3} G cost units/s ({:.1} units a task)",
        secs * 1e3,
        got.tasks as f64 / secs / 1e6,
        got.units as f64 / secs / 1e9,
        got.units as f64 / got.tasks as f64
    );
    let verdict = match (wrong, miscounted) {
        (Some(bad), _) => Err(format!(
            "a run counted {} tasks, {} units, checksum {:#018x}; the host computes {} tasks, {} units, checksum {:#018x}",
            bad.tasks, bad.units, bad.checksum, want.tasks, want.units, want.checksum
        )),
        (None, Some(ran)) => {
            Err(format!("a run ran {ran} tasks in all; the holders' trees have {spawned} (work and splitting tasks)"))
        }
        (None, None) => Ok(format!(
            "{} tasks ran once each, {} cost units, checksum {:#018x}, as the host computes them (in {check_ms:.0} ms){}",
            want.tasks,
            want.units,
            want.checksum,
            if runs.len() > 1 { format!(", in all {} runs", runs.len()) } else { String::new() }
        )),
    };
    Ok(cli::report(verdict))
}
