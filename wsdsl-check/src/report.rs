//! The report: a row per check, how a workload is measured into one, and the table.

use std::time::Duration;
use wsdsl::prelude::*;
use wsdsl::Error;

/// One row of the report.
pub struct Row {
    pub workload: String,
    pub backend: String,
    pub answer: String,
    pub expected: String,
    pub pass: bool,
    pub median_ms: f64,
    pub tasks: u64,
    pub steals: u64,
    pub note: String,
}

impl Row {
    /// A row of one GPU check, without timings.
    pub fn gpu_check(workload: String, answer: String, expected: String, pass: bool) -> Row {
        Row { workload, backend: "GPU".into(), answer, expected, pass, median_ms: 0.0, tasks: 0, steals: 0, note: String::new() }
    }
}

/// A workload: runs once on a runtime, returns (answer, expected, stats).
pub type Job<'a> = Box<dyn Fn(&Runtime) -> Result<(String, String, Stats), Error> + 'a>;

/// Whether a workload has work for more than one worker, so that the deque scheduler must
/// steal to run it (a single chain has one task at a time: nothing to steal; the
/// differential check's roots are dealt to every worker and need no stealing).
fn spreads(workload: &str) -> bool {
    !workload.starts_with("chain 1 x")
        && !workload.starts_with("rust subset")
        // A few small cases, one task each with its jobs: nothing to spread.
        && !workload.starts_with("parallel ")
        // Ordered programs run on the broker queues' bands (`order = priority`), not deques.
        && !workload.contains("delta-stepping")
        && !workload.contains("(ordered)")
        // The pulled PageRank, union-find CC and the direction-optimizing BFS name
        // `scheduler = bq` in their modules: a broker queue, no deques.
        && !workload.starts_with("pagerank pulled")
        && !workload.starts_with("cc union-find")
        && !workload.starts_with("bfs direction-optimizing")
}

/// Runs a job once to warm up (compile, load), then `repeat` times; median run time.
pub fn measure(name: &str, rt: &Runtime, job: &Job<'_>, repeat: usize) -> Row {
    let backend = match rt.backend() {
        Backend::Gpu => "GPU",
        _ => "CPU",
    };
    let mut row = Row {
        workload: name.to_string(),
        backend: backend.to_string(),
        answer: String::new(),
        expected: String::new(),
        pass: false,
        median_ms: 0.0,
        tasks: 0,
        steals: 0,
        note: String::new(),
    };
    let runs = if backend == "GPU" { repeat + 1 } else { repeat };
    let mut times = Vec::new();
    for i in 0..runs {
        match job(rt) {
            Ok((answer, expected, stats)) => {
                // Every run's answer counts, the warm-up's too.
                if answer != expected {
                    row.note = format!("wrong answer on run {i}{}", if backend == "GPU" && i == 0 { " (the warm-up)" } else { "" });
                    row.answer = answer;
                    row.expected = expected;
                    return row;
                }
                if backend == "GPU" && i == 0 {
                    row.note = format!(
                        "first run: compile {:.0} ms{}; {} workers, peak deque {}/{}",
                        stats.phases.compile.as_secs_f64() * 1e3,
                        if stats.phases.cache_hit { " (cached)" } else { "" },
                        stats.workers(),
                        stats.peak_queue,
                        stats.queue_capacity
                    );
                    if repeat > 0 {
                        continue;
                    }
                }
                row.pass = row.answer.is_empty() || row.answer == answer;
                if !row.pass {
                    row.note = format!("answer changed on run {i}; {}", row.note);
                    row.answer = answer;
                    row.expected = expected;
                    return row;
                }
                row.answer = answer;
                row.expected = expected;
                row.tasks = stats.tasks;
                row.steals = stats.steals;
                times.push(stats.phases.run);
            }
            Err(e) => {
                row.pass = false;
                row.note = format!("error: {e}");
                return row;
            }
        }
    }
    times.sort();
    row.median_ms = times.get(times.len() / 2).map_or(0.0, |d: &Duration| d.as_secs_f64() * 1e3);
    // Only the deques must steal to spread one root; the broker queues are shared.
    if backend == "GPU" && row.steals == 0 && spreads(name) && matches!(rt.schedule().scheduler, None | Some(wsdsl::Scheduler::Deque)) {
        row.pass = false;
        row.note = format!("no steals happened; {}", row.note);
    }
    row
}

pub fn first_words(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    if line.len() > 70 { format!("{}...", &line[..70]) } else { line.to_string() }
}

pub fn print_row(r: &Row) {
    println!(
        "{:<5} {:<36} {:<4} {:>10.3} ms  {}{}",
        if r.pass { "PASS" } else { "FAIL" },
        r.workload,
        r.backend,
        r.median_ms,
        r.answer,
        if r.note.is_empty() { String::new() } else { format!("  [{}]", r.note) }
    );
}

pub fn render(rows: &[Row]) -> String {
    let mut t = String::from(
        "| workload | backend | result | expected | check | median run (ms) | tasks | M tasks/s | steals | notes |\n|---|---|---|---|---|---:|---:|---:|---:|---|\n",
    );
    for r in rows {
        let rate = if r.median_ms > 0.0 { r.tasks as f64 / r.median_ms / 1e3 } else { 0.0 };
        t.push_str(&format!(
            "| {} | {} | {} | {} | {} | {:.3} | {} | {:.1} | {} | {} |\n",
            r.workload,
            r.backend,
            r.answer,
            r.expected,
            if r.pass { "PASS" } else { "FAIL" },
            r.median_ms,
            r.tasks,
            rate,
            r.steals,
            r.note
        ));
    }
    t
}
