//! The m,n,k-game (tic-tac-toe on a `columns` x `rows` board, `k` in a row wins) solved by
//! negamax over a task per position, every position searched; checked against the same
//! search as a plain recursion on one thread, which it also times beside the run (and
//! against the known value and tree size of 3 x 3 and 3 x 4).
//!
//!     cargo run --release --example mnk_game                    # 3 x 4, 3 in a row: 277 M positions
//!     cargo run --release --example mnk_game -- 3 3 3           # tic-tac-toe: 549,946 positions
//!     WSDSL_BACKEND=cpu WSDSL_THREADS=2 cargo run --release --example mnk_game
//!     cargo run --release --example mnk_game -- --cutoff 4      # tasks for 4 moves, then recursion

use clap::Parser;
use std::process::ExitCode;
use std::time::Instant;
use wsdsl_examples::cli;
use wsdsl_examples::mnk_game as kernel;
use wsdsl_examples::mnk_game::cutoff;

#[derive(Parser)]
#[command(about = "Solve an m,n,k-game by negamax over a task tree and check it against a plain recursion")]
struct Args {
    /// Cells a row (m).
    #[arg(default_value_t = 3)]
    columns: u32,
    /// Rows (n); at most 16 cells in all.
    #[arg(default_value_t = 4)]
    rows: u32,
    /// Stones in a row that win (k).
    #[arg(default_value_t = 3)]
    k: u32,
    /// Spawn tasks only for the first this many moves, then search each subtree by recursion
    /// on one thread (default: a task per position).
    #[arg(long)]
    cutoff: Option<u32>,
    #[command(flatten)]
    common: cli::Common,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    let board = kernel::Board::checked(args.columns, args.rows, args.k).map_err(wsdsl::Error::InvalidConfig)?;
    let rt = args.common.runtime()?;
    let (value, positions, note, backend, stats) = match args.cutoff {
        None => kernel::solve(&rt, board).map(|(v, p, out)| (v, p, out.note, out.backend, out.stats))?,
        Some(c) => cutoff::solve(&rt, board, c).map(|(v, p, out)| (v, p, out.note, out.backend, out.stats))?,
    };
    cli::note_fallback(&note);
    let form = match args.cutoff {
        None => String::new(),
        Some(c) => format!(" (tasks for {c} moves, then recursion)"),
    };
    let outcome = ["the second player wins", "a draw", "the first player wins"][(value + 1) as usize];
    println!("{board}{form}: {outcome} (value {value}), {positions} positions searched on {backend} in {:.1} ms", stats.phases.run.as_secs_f64() * 1e3);
    println!("{stats}");
    args.common.chart(&stats, format!("{board}{form} on {backend}"));
    let started = Instant::now();
    let want = kernel::sequential(board);
    println!("the plain recursion on one thread: {:.1} ms", started.elapsed().as_secs_f64() * 1e3);
    let mut verdict = if (value, positions) == want {
        Ok(format!("value {value} and {positions} positions, as the plain recursion says"))
    } else {
        Err(format!("the plain recursion says value {} with {} positions", want.0, want.1))
    };
    if let (Ok(_), Some(known)) = (&verdict, board.known()) {
        if known != want {
            verdict = Err(format!("the known answer is value {} with {} positions", known.0, known.1));
        }
    }
    Ok(cli::report(verdict))
}
