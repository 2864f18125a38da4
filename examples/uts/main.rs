//! Unbalanced Tree Search: walks a SHA-1-defined tree with the work-stealing megakernel and
//! checks nodes, leaves and depth against the published sample trees (T1, T3), or, for
//! custom parameters, against a sequential reference walk.
//!
//!     cargo run --release --example uts -- T1
//!     cargo run --release --example uts -- --shape binomial --b0 200 --q 0.12 --m 8 --seed 7

#[path = "../common/cli.rs"]
mod cli;
mod kernel;

use clap::{Parser, ValueEnum};
use std::process::ExitCode;

#[derive(Clone, Copy, ValueEnum)]
enum Shape {
    Binomial,
    Geometric,
}

#[derive(Parser)]
#[command(about = "Walk a UTS tree and check its size")]
struct Args {
    /// A published sample tree: T1 or T3. Omit to give parameters instead.
    preset: Option<String>,
    /// Tree type (custom trees).
    #[arg(long, value_enum, default_value = "geometric")]
    shape: Shape,
    /// Root (binomial) or expected (geometric) branching factor.
    #[arg(long, default_value_t = 4.0)]
    b0: f64,
    /// Geometric: depth where the tree stops growing.
    #[arg(long, default_value_t = 6)]
    gen_mx: u32,
    /// Binomial: probability of having children.
    #[arg(long, default_value_t = 0.2)]
    q: f64,
    /// Binomial: number of children when there are any.
    #[arg(long, default_value_t = 4)]
    m: u32,
    /// Root seed.
    #[arg(long, default_value_t = 0)]
    seed: u32,
    /// auto, cpu or gpu (default: $WSDSL_BACKEND, else auto).
    #[arg(long)]
    backend: Option<String>,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

fn tree(args: &Args) -> Result<kernel::Tree, wsdsl::Error> {
    if let Some(name) = &args.preset {
        return kernel::preset(name)
            .ok_or_else(|| wsdsl::Error::InvalidConfig(format!("unknown preset `{name}`; the samples are T1 and T3")));
    }
    if !(args.q >= 0.0 && args.q <= 1.0) || !(args.b0 >= 0.0) {
        return Err(wsdsl::Error::InvalidConfig("need 0 <= q <= 1 and b0 >= 0".into()));
    }
    if matches!(args.shape, Shape::Binomial) && args.q * args.m as f64 >= 1.0 {
        return Err(wsdsl::Error::InvalidConfig(format!(
            "q * m = {} >= 1: this binomial tree is infinite in expectation; use q * m < 1",
            args.q * args.m as f64
        )));
    }
    let shape = match args.shape {
        Shape::Binomial => 0,
        Shape::Geometric => 1,
    };
    let params = kernel::uts::Params { shape, b0: args.b0, gen_mx: args.gen_mx, q: args.q, m: args.m };
    Ok(kernel::Tree { params, seed: args.seed, known: None })
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    let tree = tree(args)?;
    let rt = cli::runtime(args.backend.as_deref())?;
    let (got, out) = kernel::solve(&rt, &tree)?;
    cli::note_fallback(&out.note);
    println!("UTS {:?} seed {}: {} nodes, {} leaves, depth {} on {}", tree.params, tree.seed, got.0, got.1, got.2, out.backend);
    println!("{}", out.stats);
    let (want, source) = match tree.known {
        Some(k) => (k, "the published sample"),
        None => (kernel::reference(&tree), "a sequential reference walk"),
    };
    if got == want {
        println!("PASS: matches {source}");
        Ok(true)
    } else {
        println!("FAIL: {source} has {} nodes, {} leaves, depth {}", want.0, want.1, want.2);
        Ok(false)
    }
}
