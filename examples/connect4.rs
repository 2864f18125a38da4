//! Connect Four by minimax over a task tree (Cederman & Tsigas, GPU Computing Gems ch. 35.4.1).
//!
//! `solve` computes the exact value of every position of an end-game test set by exhaustive
//! negamax, all positions in one run, and checks each against its known score. `lookahead`
//! searches a few plies ahead with the chapter's heuristic and checks the result against the
//! CPU backend and a plain recursive reference.
//!
//!     cargo run --release --example connect4 -- solve
//!     cargo run --release --example connect4 -- lookahead --plies 8

use clap::{Parser, Subcommand};
use kernel::{Lookahead, Position};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use wsdsl::BackendKind;
use wsdsl::prelude::*;
use wsdsl_examples::cli;
use wsdsl_examples::connect4 as kernel;

#[derive(Parser)]
#[command(about = "Connect Four minimax as a task tree, checked against known scores and a reference")]
struct Args {
    #[command(subcommand)]
    mode: Mode,
    #[command(flatten)]
    common: cli::Common,
}

#[derive(Subcommand)]
enum Mode {
    /// Exact score of every position of a test set (exhaustive minimax, no pruning), checked
    /// against the file. Only end-games are feasible: the tree grows about sevenfold per empty cell.
    Solve {
        /// A test set, one `<moves> <score>` per line.
        #[arg(long, default_value = "data/connect4/Test_L3_R1")]
        file: PathBuf,
        /// Solve only the first N positions.
        #[arg(long)]
        limit: Option<usize>,
        /// Also run the plain recursive reference (one thread) and compare scores and node counts.
        #[arg(long)]
        reference: bool,
    },
    /// The side to move looks ahead with the chapter's heuristic; prints each move's value
    /// and the best move, checked against the CPU backend and a plain recursive reference.
    Lookahead {
        /// The position, as the 1-based columns played from the empty board.
        #[arg(long, default_value = kernel::DEFAULT_LOOKAHEAD_MOVES)]
        moves: String,
        /// How many moves ahead to look (1 to 12; the first move is ply 1).
        #[arg(long, default_value_t = 9)]
        plies: u32,
    },
}

type Failure = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<bool, Failure> {
    let rt = args.common.runtime()?;
    match &args.mode {
        Mode::Solve { file, limit, reference } => solve(&rt, &args.common, file, *limit, *reference),
        Mode::Lookahead { moves, plies } => lookahead(&rt, &args.common, moves, *plies),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn solve(rt: &Runtime, common: &cli::Common, file: &Path, limit: Option<usize>, reference: bool) -> Result<bool, Failure> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let mut cases = kernel::parse_test_set(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    cases.truncate(limit.unwrap_or(cases.len()));
    if cases.is_empty() {
        return Err(format!("{}: no positions to solve", file.display()).into());
    }
    let positions: Vec<Position> = cases.iter().map(|c| c.position).collect();
    let fewest = positions.iter().map(Position::moves).min().unwrap_or(0);
    let most = positions.iter().map(Position::moves).max().unwrap_or(0);

    let start = Instant::now();
    let (values, out) = kernel::solve_all(rt, &positions)?;
    let elapsed = start.elapsed();
    cli::note_fallback(&out.note);
    println!(
        "{}: {} positions with {fewest} to {most} moves played, exhaustive minimax on {}",
        file.display(),
        cases.len(),
        out.backend
    );
    let mismatches: Vec<_> = cases.iter().zip(&values).filter(|(case, &value)| case.score != value).collect();
    for (case, value) in mismatches.iter().take(10) {
        println!("  line {}: {} scores {} in the file, {value} here", case.line, case.moves, case.score);
    }
    println!("scores      {} of {} match the file", cases.len() - mismatches.len(), cases.len());
    println!(
        "nodes       {} evaluated in {:.1} ms ({:.1} ms in all, with setup)",
        out.stats.tasks,
        ms(out.stats.phases.run),
        ms(elapsed)
    );
    println!("{}", out.stats);
    common.chart(&out.stats, format!("connect4 solve of {} positions on {}", cases.len(), out.backend));
    let mut pass = mismatches.is_empty();

    if reference {
        let start = Instant::now();
        let answers: Vec<(i32, u64)> = positions.iter().map(kernel::reference_score).collect();
        let elapsed = start.elapsed();
        let nodes: u64 = answers.iter().map(|&(_, n)| n).sum();
        let same_scores = answers.iter().zip(&values).all(|(&(score, _), &value)| score == value);
        println!(
            "reference   plain recursive negamax, one thread: {nodes} nodes in {:.1} ms; scores {}, node count {}",
            ms(elapsed),
            if same_scores { "agree" } else { "DIFFER" },
            if nodes == out.stats.tasks { "agrees" } else { "DIFFERS" }
        );
        pass &= same_scores && nodes == out.stats.tasks;
    }
    Ok(cli::report(if pass { Ok("every score and node count agrees".into()) } else { Err("a score or a node count differs (above)".into()) }))
}

fn show_values(label: &str, result: &Lookahead) {
    let cells: String = result.values.iter().map(|v| format!("{:>9}", v.map_or("full".to_string(), |v| v.to_string()))).collect();
    println!("{label:<10}{cells}   best: column {}", result.best_column + 1);
}

fn lookahead(rt: &Runtime, common: &cli::Common, moves: &str, plies: u32) -> Result<bool, Failure> {
    let position = Position::from_moves(moves).map_err(|e| format!("--moves {moves}: {e}"))?;
    let computer = match position.side_to_move() {
        kernel::Player::First => "X",
        kernel::Player::Second => "O",
    };
    let (result, out) = kernel::lookahead(rt, &position, plies)?;
    cli::note_fallback(&out.note);
    println!("{position}");
    println!("{} moves played; {computer} to move looks {plies} plies ahead on {}", position.moves(), out.backend);
    let header: String = (1..=kernel::WIDTH).map(|c| format!("{:>9}", format!("col {c}"))).collect();
    println!("{:<10}{header}", "");
    show_values("values", &result);
    let run_ms = ms(out.stats.phases.run);
    println!(
        "tasks       {} in {run_ms:.3} ms: {:.0} tasks/ms",
        out.stats.tasks,
        if run_ms > 0.0 { out.stats.tasks as f64 / run_ms } else { 0.0 }
    );
    common.chart(&out.stats, format!("connect4 look-ahead of {plies} plies on {}", out.backend));
    let mut pass = true;

    if !matches!(out.backend, BackendKind::Cpu { .. }) {
        let (cpu, cpu_out) = kernel::lookahead(&Runtime::new(Backend::Cpu), &position, plies)?;
        show_values("CPU", &cpu);
        let agree = cpu == result && cpu_out.stats.tasks == out.stats.tasks;
        println!(
            "CPU run     {} tasks in {:.1} ms; {}",
            cpu_out.stats.tasks,
            ms(cpu_out.stats.phases.run),
            if agree { "agrees" } else { "DIFFERS" }
        );
        pass &= agree;
    }

    let start = Instant::now();
    let (expected, nodes) = kernel::reference_lookahead(&position, plies)?;
    let elapsed = start.elapsed();
    let agree = expected == result && nodes == out.stats.tasks;
    if expected != result {
        show_values("reference", &expected);
    }
    println!(
        "reference   plain recursive minimax, one thread: {nodes} positions in {:.1} ms; {}",
        ms(elapsed),
        if agree { "agrees" } else { "DIFFERS" }
    );
    pass &= agree;
    Ok(cli::report(if pass { Ok("the look-ahead agrees with the sequential search".into()) } else { Err("the look-ahead differs (above)".into()) }))
}
