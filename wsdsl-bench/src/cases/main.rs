//! `case-bench`: the case studies of Cederman & Tsigas ("Dynamic Load Balancing Using
//! Work-Stealing", GPU Computing Gems ch. 35, section 35.4) on wsdsl: dynamic load balancing
//! (the persistent megakernel with one work-stealing deque per block) against the static
//! two-array scheme (one launch per generation), as in their figures:
//!
//!   35.8   four-in-a-row look-ahead: tasks per millisecond for look-ahead 4 to 9 and 1 to 8
//!          blocks per SM (64 threads per block, as in the chapter);
//!   35.9   the same at 8 blocks per SM: dynamic vs static tasks per millisecond, and the task
//!          slots each needs (dynamic: the fullest deque times the number of deques; static:
//!          the largest generation);
//!   35.11  octree partitioning of 1 to 15 million particles (uniform and a Plummer cluster):
//!          dynamic vs static, same measures (cooperative blocks of 256 threads).
//!
//! Every run checks its answer (look-ahead values against the CPU backend; octrees with the
//! example's checker); a wrong answer or an error is reported as FAIL and makes the exit
//! status 1. Times are medians of `--repeat` runs after a warm-up, from CUDA events (static:
//! the wall time of all its launches).

use clap::Parser;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use wsdsl::prelude::*;
use wsdsl::{Error, Scheduler, Worker};
use wsdsl_examples::{connect4, octree};

#[derive(Parser)]
#[command(about = "Dynamic vs static load balancing on the case studies of Cederman & Tsigas")]
struct Args {
    /// Timed runs per cell after one warm-up (the median is reported).
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// Deepest look-ahead (the chapter goes to 7).
    #[arg(long, default_value_t = 9)]
    max_plies: u32,
    /// Small sizes only.
    #[arg(long)]
    quick: bool,
    /// Also write the tables (Markdown) to this file.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Threads per block: the chapter's choice for four-in-a-row ("the work in each task is not
/// sufficient to take advantage of more").
const BLOCK_THREADS: u32 = 64;
/// Blocks per SM for the dynamic-vs-static comparison (the chapter's 8 per multiprocessor).
const FULL_BLOCKS_PER_SM: u32 = 8;

/// A measured configuration: median run time, tasks, and memory.
#[derive(Clone, Copy, Default)]
struct Sample {
    ms: f64,
    tasks: u64,
    /// Task slots the run needed (see the module comment).
    slots: u64,
    /// Join frames' high-water mark.
    frames: u64,
}

impl Sample {
    fn tasks_per_ms(&self) -> f64 {
        if self.ms > 0.0 { self.tasks as f64 / self.ms } else { 0.0 }
    }
}

/// Task slots a run needed: deques hold at most `peak_queue` each; the static scheme's
/// largest generation is its `peak_queue`.
fn slots(stats: &Stats, scheduler: Scheduler) -> u64 {
    match scheduler {
        Scheduler::Static => stats.peak_queue,
        _ => stats.peak_queue * stats.workers() as u64,
    }
}

/// One warm-up and `repeat` timed runs of `run`, each checked; the median.
fn measure(repeat: usize, scheduler: Scheduler, run: impl Fn() -> Result<(Stats, Result<(), String>), Error>) -> Result<Sample, String> {
    let mut samples = Vec::new();
    for i in 0..=repeat {
        let (stats, verdict) = run().map_err(|e| e.to_string())?;
        verdict.map_err(|why| format!("run {i}: {why}"))?;
        if i > 0 || repeat == 0 {
            let ms = stats.phases.run.as_secs_f64() * 1e3;
            samples.push(Sample { ms, tasks: stats.tasks, slots: slots(&stats, scheduler), frames: stats.peak_frames });
        }
    }
    samples.sort_by(|a, b| a.ms.total_cmp(&b.ms));
    Ok(samples[samples.len() / 2])
}

/// The columns both comparisons share: tasks, the two times (`digits` decimals), the two rates
/// and their ratio, and the two task-slot counts.
fn versus(dy: &Sample, st: &Sample, digits: usize) -> String {
    format!(
        "{} | {:.digits$} | {:.digits$} | {:.0} | {:.0} | {:.2} | {} | {}",
        dy.tasks,
        dy.ms,
        st.ms,
        dy.tasks_per_ms(),
        st.tasks_per_ms(),
        dy.tasks_per_ms() / st.tasks_per_ms().max(1e-9),
        dy.slots,
        st.slots
    )
}

fn gpu(scheduler: Scheduler, blocks_per_sm: u32) -> Runtime {
    Runtime::new(Backend::Gpu)
        .scheduler(scheduler)
        .block_threads(BLOCK_THREADS)
        .worker(Worker::Block)
        .blocks_per_sm(blocks_per_sm)
        .watchdog(Duration::from_secs(120))
}

/// Tables and a pass/fail tally.
struct Report {
    text: String,
    failures: Vec<String>,
}

impl Report {
    fn cell(&mut self, what: &str, r: Result<Sample, String>) -> Sample {
        match r {
            Ok(s) => s,
            Err(why) => {
                eprintln!("FAIL {what}: {why}");
                self.failures.push(format!("{what}: {why}"));
                Sample::default()
            }
        }
    }
}

/// The look-ahead from the empty board: the widest tree four-in-a-row offers (the chapter's
/// own starting position is in a figure we do not have).
fn connect4(args: &Args, report: &mut Report) {
    let start = connect4::Position::empty();
    let max_plies = if args.quick { 6 } else { args.max_plies };
    let cpu = Runtime::new(Backend::Cpu);
    let plies: Vec<u32> = (4..=max_plies).collect();
    let mut expected = Vec::new();
    for &p in &plies {
        match connect4::lookahead(&cpu, &start, p) {
            Ok((l, out)) => {
                println!("look-ahead {p}: {} positions, best column {} (CPU backend, the reference for the GPU runs)", out.stats.tasks, l.best_column + 1);
                expected.push(l);
            }
            Err(e) => {
                report.failures.push(format!("CPU look-ahead {p}: {e}"));
                return;
            }
        }
    }
    let run = |rt: &Runtime, p: u32, want: &connect4::Lookahead| {
        let (got, out) = connect4::lookahead(rt, &start, p)?;
        let verdict = if &got == want { Ok(()) } else { Err(format!("look-ahead {p}: {got:?}, the CPU backend says {want:?}")) };
        Ok((out.stats, verdict))
    };

    // Figure 35.8: tasks per ms by look-ahead and blocks per SM.
    let per_sm: Vec<u32> = if args.quick { vec![1, 8] } else { (1..=8).collect() };
    let mut t = String::from("\n### Four-in-a-row: tasks per ms, dynamic (Figure 35.8)\n\n| look-ahead | tasks |");
    for b in &per_sm {
        write!(t, " {b}/SM |").unwrap();
    }
    t.push_str("\n|---:|---:|");
    t.push_str(&"---:|".repeat(per_sm.len()));
    t.push('\n');
    for (&p, want) in plies.iter().zip(&expected) {
        let mut row = String::new();
        let mut tasks = 0;
        for &b in &per_sm {
            let rt = gpu(Scheduler::Deque, b);
            let s = report.cell(&format!("dynamic look-ahead {p}, {b} blocks/SM"), measure(args.repeat, Scheduler::Deque, || run(&rt, p, want)));
            tasks = s.tasks;
            write!(row, " {:.0} |", s.tasks_per_ms()).unwrap();
        }
        writeln!(t, "| {p} | {tasks} |{row}").unwrap();
        println!("look-ahead {p}:{row}");
    }
    report.text.push_str(&t);

    // Figure 35.9: dynamic vs static at 8 blocks per SM.
    let mut t = format!(
        "\n### Four-in-a-row: dynamic vs static, {FULL_BLOCKS_PER_SM} blocks of {BLOCK_THREADS} threads per SM (Figure 35.9)\n\n\
         | look-ahead | tasks | dynamic ms | static ms | dynamic tasks/ms | static tasks/ms | dynamic / static | dynamic task slots | static task slots | frames (dynamic / static) |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    for (&p, want) in plies.iter().zip(&expected) {
        let d = gpu(Scheduler::Deque, FULL_BLOCKS_PER_SM);
        let s = gpu(Scheduler::Static, FULL_BLOCKS_PER_SM);
        let dy = report.cell(&format!("dynamic look-ahead {p}"), measure(args.repeat, Scheduler::Deque, || run(&d, p, want)));
        let st = report.cell(&format!("static look-ahead {p}"), measure(args.repeat, Scheduler::Static, || run(&s, p, want)));
        let line = format!("| {p} | {} | {} / {} |", versus(&dy, &st, 3), dy.frames, st.frames);
        println!("{line}");
        writeln!(t, "{line}").unwrap();
    }
    report.text.push_str(&t);
}

/// Octree partitioning (leaves of at most 32 particles) of 1 to 15 million particles, as in
/// the chapter, for a uniform cube and a Plummer cluster. Cooperative blocks of 256 threads
/// (the program's attribute), as many per SM as fit, for both schedulers.
fn octree(args: &Args, report: &mut Report) {
    const MAX_LEAF: u32 = 32;
    let millions: &[usize] = if args.quick { &[1] } else { &[1, 3, 5, 10, 15] };
    let mut t = String::from(
        concat!(
            "\n### Octree partitioning: dynamic vs static (Figure 35.11)\n\n",
            "| particles | distribution | tasks | dynamic ms | static ms | dynamic tasks/ms | static tasks/ms | dynamic / static | dynamic task slots | static task slots |\n",
            "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        ),
    );
    for distribution in [octree::Distribution::Uniform, octree::Distribution::Plummer] {
        for &m in millions {
            let particles = octree::Particles::generate(distribution, m * 1_000_000, 1);
            let run = |rt: &Runtime| {
                let (tree, out) = octree::build(rt, &particles, MAX_LEAF)?;
                let verdict = octree::check(&particles, MAX_LEAF, &tree).map(|_| ());
                Ok((out.stats, verdict))
            };
            let d = Runtime::new(Backend::Gpu).watchdog(Duration::from_secs(120));
            let s = Runtime::new(Backend::Gpu).scheduler(Scheduler::Static).watchdog(Duration::from_secs(120));
            let what = format!("{m} M {distribution:?}");
            let dy = report.cell(&format!("dynamic octree {what}"), measure(args.repeat, Scheduler::Deque, || run(&d)));
            let st = report.cell(&format!("static octree {what}"), measure(args.repeat, Scheduler::Static, || run(&s)));
            let line = format!("| {m} M | {distribution:?} | {} |", versus(&dy, &st, 2));
            println!("{line}");
            writeln!(t, "{line}").unwrap();
        }
    }
    report.text.push_str(&t);
}

fn main() -> ExitCode {
    let args = Args::parse();
    let probe = Runtime::new(Backend::Gpu);
    match probe.gpu() {
        Ok(dev) => println!("device: {} ({}, {} SMs)", dev.name, dev.arch, dev.sm_count),
        Err(e) => {
            eprintln!("case-bench needs a GPU: {e}");
            return ExitCode::from(2);
        }
    }
    let mut report = Report { text: String::new(), failures: Vec::new() };
    connect4(&args, &mut report);
    octree(&args, &mut report);
    println!("{}", report.text);
    if let Some(path) = &args.out {
        if let Err(e) = std::fs::write(path, &report.text) {
            eprintln!("could not write {}: {e}", path.display());
        }
    }
    if report.failures.is_empty() {
        println!("all runs checked: PASS");
        ExitCode::SUCCESS
    } else {
        println!("{} FAILED:\n{}", report.failures.len(), report.failures.join("\n"));
        ExitCode::from(1)
    }
}
