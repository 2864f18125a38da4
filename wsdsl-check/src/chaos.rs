//! The chaos rows: faults that must come back as a recompile or a clear error, on the GPU.
//!
//! - The kernel cache: a CUBIN entry truncated, overwritten with random bytes, or replaced by
//!   another kernel's is compiled again (with a warning on standard error) and the run is
//!   exact; the next run finds the entry whole again.
//! - A helper that loops for ever without side effects (`wsdsl_examples::endless_loop`, Rust:
//!   never returns): the watchdog stops the run and its error names the run, on the GPU, on
//!   the CPU backend and on the host-compiled templates. A kernel that does not stop abandons its GPU
//!   context (and an emulated one keeps a host thread), so each of these runs in a child
//!   process of its own (`gpu-check spin --on ...`).

use crate::report::{first_words, print_row, Row};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};
use wsdsl::prelude::*;
use wsdsl::Error;
use wsdsl_examples::endless_loop::spinning;
use wsdsl_examples::nqueens;

/// The watchdog of the endless-loop runs.
const SPIN_LIMIT: Duration = Duration::from_secs(2);

/// Runs `spinning` with an odd start on `on` (gpu, cpu or emulated) and prints its outcome;
/// the child side of [`endless_loop_rows`].
pub fn spin(on: &str) -> ExitCode {
    let params = spinning::Params { start: 1 };
    let outcome = match on {
        "gpu" | "host" | "cpu" => {
            let rt = Runtime::new(if on == "cpu" { Backend::Cpu } else { Backend::Gpu }).watchdog(SPIN_LIMIT).progress_line(false);
            // `gpu`: every task on the GPU, whose watchdog must catch the loop; `host`: the
            // root run by the host before the GPU run (`Runtime::spread`), which must too.
            let rt = if on == "gpu" { rt.spread(0) } else { rt };
            rt.run::<spinning::Kernel>(params, [spinning::Spin { unused: 0 }]).map(|o| o.counters.answer.get())
        }
        _ => {
            use wsdsl::gpu::emulate::{run_emulated, Emulation};
            let emu = Emulation { watchdog: SPIN_LIMIT, ..Emulation::default() };
            let roots = [spinning::Task::from(spinning::Spin { unused: 0 })];
            run_emulated::<spinning::Kernel>(&params, &(), &roots, &wsdsl::KernelConfig::default(), &emu).map(|(c, _, _)| c.answer.get())
        }
    };
    match outcome {
        Ok(answer) => println!("OUTCOME: returned {answer}"),
        Err(e @ Error::Watchdog { .. }) => println!("OUTCOME: watchdog: {e}"),
        Err(e) => println!("OUTCOME: other error: {e}"),
    }
    // Out at once: a kernel that would not stop still holds its context (or a host thread),
    // which must not be torn down on the way out.
    use std::io::Write;
    let _ = std::io::stdout().flush();
    std::process::exit(0)
}

/// Longest a child of [`endless_loop_rows`] may take: the watchdog, its grace, and start-up.
const CHILD_LIMIT: Duration = Duration::from_secs(90);

/// Runs `gpu-check spin --on on` and returns what it printed (killed past `CHILD_LIMIT`).
fn spin_child(on: &str) -> String {
    let spawned = std::env::current_exe().and_then(|exe| {
        Command::new(exe).args(["spin", "--on", on]).stdout(Stdio::piped()).stderr(Stdio::null()).spawn()
    });
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => return format!("OUTCOME: could not start the child: {e}"),
    };
    let started = Instant::now();
    while started.elapsed() < CHILD_LIMIT {
        if let Ok(Some(_)) = child.try_wait() {
            let mut printed = String::new();
            if let Some(mut out) = child.stdout.take() {
                use std::io::Read;
                let _ = out.read_to_string(&mut printed);
            }
            return printed;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    format!("OUTCOME: the child did not end within {CHILD_LIMIT:?}")
}

/// The endless loop on the GPU, the CPU backend and the host-compiled templates, each in a
/// child process: every one must end with a watchdog error that names the run.
pub fn endless_loop_rows() -> Vec<Row> {
    let mut rows = Vec::new();
    for on in ["gpu", "host", "cpu", "emulated"] {
        let started = Instant::now();
        let printed = spin_child(on);
        let secs = started.elapsed().as_secs_f64();
        let outcome = printed.lines().find_map(|l| l.strip_prefix("OUTCOME: ")).unwrap_or("the child printed no outcome").to_string();
        let pass = outcome.starts_with("watchdog:") && outcome.contains("`spinning`");
        let mut row = Row::gpu_check(
            format!("a helper looping for ever (Rust never returns), {on}"),
            first_words(&outcome),
            "Watchdog error naming `spinning`".into(),
            pass,
        );
        row.backend = on.to_uppercase();
        row.median_ms = secs * 1e3;
        if outcome.starts_with("returned") {
            row.note = "the loop was deleted by the compiler (forward-progress rule)".into();
        }
        print_row(&row);
        rows.push(row);
    }
    rows
}

/// Corrupt, truncated and foreign CUBIN entries of the kernel cache: each run must compile
/// again and be exact, and the entry must be whole afterwards. The cache is a fresh private
/// directory; each run uses a fresh `Runtime` (its own context), whose kernels are not loaded
/// yet, so it reads the disk cache.
pub fn cache_rows(watchdog: Duration) -> Vec<Row> {
    let dir = std::env::temp_dir().join(format!("gpu-check-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // gpu-check runs one check at a time: nothing reads the environment while it changes.
    let previous = std::env::var_os("WSDSL_CACHE_DIR");
    std::env::set_var("WSDSL_CACHE_DIR", &dir);
    let rows = damaged_entries(&dir, watchdog);
    match previous {
        Some(p) => std::env::set_var("WSDSL_CACHE_DIR", p),
        None => std::env::remove_var("WSDSL_CACHE_DIR"),
    }
    let _ = std::fs::remove_dir_all(&dir);
    rows
}

fn damaged_entries(dir: &Path, watchdog: Duration) -> Vec<Row> {
    let run = || -> Result<(u64, bool), Error> {
        let rt = Runtime::new(Backend::Gpu).watchdog(watchdog);
        nqueens::solve(&rt, 10).map(|(count, out)| (count, out.stats.phases.cache_hit))
    };
    let mut rows = Vec::new();
    let mut row = |workload: &str, outcome: Result<(u64, bool), Error>, want_hit: bool| {
        let (answer, pass) = match outcome {
            Ok((count, hit)) => (format!("{count}, {}", if hit { "from the cache" } else { "compiled" }), count == 724 && hit == want_hit),
            Err(e) => (first_words(&e.to_string()), false),
        };
        let expected = format!("724, {}", if want_hit { "from the cache" } else { "compiled" });
        let row = Row::gpu_check(format!("kernel cache: {workload}"), answer, expected, pass);
        print_row(&row);
        rows.push(row);
    };
    row("nqueens 10, empty cache", run(), false);
    let Some(entry) = cubin_in(dir) else {
        row("the entry written", Err(Error::InvalidConfig(format!("no .cubin in {}", dir.display()))), false);
        return rows;
    };
    let image = std::fs::read(&entry).unwrap_or_default();
    row("nqueens 10, cached", run(), true);
    let damage: [(&str, Vec<u8>); 3] = [
        ("entry truncated to 1000 bytes", image[..image.len().min(1000)].to_vec()),
        ("entry overwritten with random bytes", image.iter().enumerate().map(|(i, b)| b ^ (i as u8).wrapping_mul(151).wrapping_add(1)).collect()),
        ("entry replaced by another kernel's", foreign_cubin(watchdog)),
    ];
    for (how, bytes) in damage {
        let written = std::fs::write(&entry, &bytes).map_err(|e| Error::InvalidConfig(format!("cannot damage {}: {e}", entry.display())));
        row(&format!("nqueens 10, {how}"), written.and_then(|()| run()), false);
        row(&format!("nqueens 10, after the {how}"), run(), true);
    }
    rows
}

/// The `.cubin` entry in `dir`.
fn cubin_in(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir).ok()?.flatten().map(|e| e.path()).find(|p| p.extension().is_some_and(|e| e == "cubin"))
}

/// Another program's CUBIN: `spinning`, compiled for this GPU without the cache.
fn foreign_cubin(watchdog: Duration) -> Vec<u8> {
    let rt = Runtime::new(Backend::Gpu).watchdog(watchdog);
    match rt.gpu() {
        Ok(dev) => {
            let source = wsdsl::gpu::kernel_source::<spinning::Kernel>(&wsdsl::KernelConfig::default());
            wsdsl::gpu::compile::compile_uncached("spinning", &source, &dev.arch).unwrap_or_default()
        }
        Err(_) => Vec::new(),
    }
}
