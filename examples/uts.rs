//! Unbalanced Tree Search: walks a SHA-1-defined tree with the work-stealing megakernel and
//! checks nodes, leaves and depth against the published sample trees (T1 … T1XL), or, for
//! custom parameters, against a sequential reference walk.
//!
//!     cargo run --release --example uts -- T2
//!     cargo run --release --example uts -- --type binomial --b0 200 --q 0.12 --m 8 --seed 7
//!     cargo run --release --example uts -- --type hybrid --shape cyclic --b0 3 --gen-mx 8 --q 0.2

use clap::{Parser, ValueEnum};
use kernel::uts::{Shape, TreeType};
use std::fmt::Write;
use std::process::ExitCode;
use wsdsl_examples::cli;
use wsdsl_examples::uts as kernel;

/// `--type`, as UTS's `-t` names them.
#[derive(Clone, Copy, ValueEnum)]
enum TypeArg {
    Binomial,
    Geometric,
    Hybrid,
}

/// `--shape`, as UTS's `-a` names them.
#[derive(Clone, Copy, ValueEnum)]
enum ShapeArg {
    Linear,
    #[value(name = "expdec")]
    ExpDec,
    Cyclic,
    Fixed,
}

#[derive(Parser)]
#[command(about = "Walk a UTS tree and check its size", after_help = presets_help())]
struct Args {
    /// A published sample tree (listed below; any case). Omit it to give parameters instead;
    /// their defaults are UTS's.
    preset: Option<String>,
    /// How a node's number of children is drawn (UTS -t).
    #[arg(long = "type", value_enum, default_value = "geometric", conflicts_with = "preset")]
    tree_type: TypeArg,
    /// Geometric and hybrid trees: how the expected number of children b_i changes with the
    /// depth d (UTS -a): linear b0 * (1 - d / gen_mx); expdec b0 * d^(-ln b0 / ln gen_mx);
    /// cyclic b0^sin(2 pi d / gen_mx) down to depth 5 * gen_mx; fixed b0 down to gen_mx.
    #[arg(long, value_enum, default_value = "linear", conflicts_with = "preset")]
    shape: ShapeArg,
    /// The root's number of children (binomial) or expected number (geometric, hybrid) (UTS -b).
    #[arg(long, default_value_t = kernel::DEFAULTS.b0, conflicts_with = "preset")]
    b0: f64,
    /// Geometric and hybrid trees: the depth scale of the shape (UTS -d).
    #[arg(long, default_value_t = kernel::DEFAULTS.gen_mx, conflicts_with = "preset")]
    gen_mx: u32,
    /// Binomial and hybrid trees: probability that a node below the root has m children (UTS -q).
    #[arg(long, default_value_t = kernel::DEFAULTS.q, conflicts_with = "preset")]
    q: f64,
    /// Binomial and hybrid trees: the number of children of a node that has any (UTS -m).
    #[arg(long, default_value_t = kernel::DEFAULTS.m, conflicts_with = "preset")]
    m: u32,
    /// Hybrid trees: nodes shallower than shift_depth * gen_mx are geometric (UTS -f).
    #[arg(long, default_value_t = kernel::DEFAULTS.shift_depth, conflicts_with = "preset")]
    shift_depth: f64,
    /// Root seed (UTS -r).
    #[arg(long, default_value_t = 0, conflicts_with = "preset")]
    seed: u32,
    #[command(flatten)]
    common: cli::Common,
}

fn main() -> ExitCode {
    cli::exit(run(&Args::parse()))
}

/// The tree's parameters as UTS's command-line flags, those its type uses.
fn uts_flags(tree: &kernel::Tree) -> String {
    let p = &tree.params;
    let mut flags = format!("-t {}", p.tree_type as u32);
    if p.tree_type != TreeType::Binomial {
        write!(flags, " -a {} -d {}", p.shape as u32, p.gen_mx).unwrap();
    }
    write!(flags, " -b {}", p.b0).unwrap();
    if p.tree_type != TreeType::Geometric {
        write!(flags, " -q {} -m {}", p.q, p.m).unwrap();
    }
    if p.tree_type == TreeType::Hybrid {
        write!(flags, " -f {}", p.shift_depth).unwrap();
    }
    write!(flags, " -r {}", tree.seed).unwrap();
    flags
}

fn presets_help() -> String {
    let mut help = String::from("Published sample trees:\n");
    for (name, tree) in &kernel::PRESETS {
        let (nodes, leaves, depth) = tree.known.expect("the presets are published trees");
        writeln!(help, "  {name:<5} {:<50} {nodes:>10} nodes, {leaves:>10} leaves, depth {depth}", uts_flags(tree)).unwrap();
    }
    help
}

/// The preset named on the command line, or the tree the flags describe.
fn tree(args: &Args) -> Result<(String, kernel::Tree), wsdsl::Error> {
    if let Some(name) = &args.preset {
        let names: Vec<&str> = kernel::PRESETS.iter().map(|&(n, _)| n).collect();
        let tree = kernel::preset(name).ok_or_else(|| {
            wsdsl::Error::InvalidConfig(format!("unknown preset `{name}`; the samples are {}", names.join(", ")))
        })?;
        return Ok((name.to_ascii_uppercase(), tree));
    }
    let tree_type = match args.tree_type {
        TypeArg::Binomial => TreeType::Binomial,
        TypeArg::Geometric => TreeType::Geometric,
        TypeArg::Hybrid => TreeType::Hybrid,
    };
    let shape = match args.shape {
        ShapeArg::Linear => Shape::Linear,
        ShapeArg::ExpDec => Shape::ExpDec,
        ShapeArg::Cyclic => Shape::Cyclic,
        ShapeArg::Fixed => Shape::Fixed,
    };
    let params = kernel::uts::Params {
        tree_type,
        shape,
        b0: args.b0,
        gen_mx: args.gen_mx,
        q: args.q,
        m: args.m,
        shift_depth: args.shift_depth,
        ..kernel::DEFAULTS
    };
    Ok(("custom tree".into(), kernel::custom(params, args.seed)?))
}

fn run(args: &Args) -> Result<bool, wsdsl::Error> {
    let (name, tree) = tree(args)?;
    let rt = args.common.runtime()?;
    let (got, out) = kernel::solve(&rt, &tree)?;
    cli::note_fallback(&out.note);
    println!("UTS {name} ({}): {} nodes, {} leaves, depth {} on {}", uts_flags(&tree), got.0, got.1, got.2, out.backend);
    println!("{}", out.stats);
    args.common.chart(&out.stats, format!("UTS {name} on {}", out.backend));
    let (want, source) = match tree.known {
        Some(k) => (k, "the published sample"),
        None => (kernel::reference(&tree), "a sequential reference walk"),
    };
    let verdict = if got == want {
        Ok(format!("matches {source}"))
    } else {
        Err(format!("{source} has {} nodes, {} leaves, depth {}", want.0, want.1, want.2))
    };
    Ok(cli::report(verdict))
}
