//! Hammers the queue templates of `cuda/` from host threads, without a GPU.
//!
//! Each harness in `tests/hammer/` includes a queue header after `cuda/host/ws_host_shim.h`
//! (the `ws_*` memory-model wrappers of `core/atomics.cuh` spelled with GCC `__atomic` builtins),
//! is compiled with the host C++ compiler (`$CXX`, else `c++`) as
//! `-O2 -std=c++17 -pthread`, and run: random mixes of operations from many threads on small
//! capacities (so Full/Empty, ticket rounds and 2^32 wrap-around happen constantly), every
//! element carrying a unique id that must come out exactly once, plus a linearizability
//! check of short Broker Queue histories. Each harness is also built and run once more with
//! ThreadSanitizer (at a smaller scale) where the compiler and the kernel support it.
//!
//! Without a C++ compiler the tests print `SKIPPED: no C++ compiler` and pass.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn cxx() -> Option<String> {
    static CXX: OnceLock<Option<String>> = OnceLock::new();
    CXX.get_or_init(|| {
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
        match Command::new(&cxx).arg("--version").output() {
            Ok(out) if out.status.success() => Some(cxx),
            _ => None,
        }
    })
    .clone()
}

fn hammer_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("hammer")
}

fn build(cxx: &str, name: &str, tsan: bool) -> Result<PathBuf, String> {
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("queue_hammer");
    std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    let exe = out_dir.join(if tsan { format!("{name}-tsan") } else { name.to_string() });
    let mut cmd = Command::new(cxx);
    cmd.arg("-std=c++17").arg("-pthread").arg("-Wall").arg("-Wextra");
    if tsan {
        cmd.args(["-O1", "-g", "-fsanitize=thread", "-Wno-tsan"]);
    } else {
        cmd.arg("-O2");
    }
    cmd.arg(hammer_dir().join(format!("{name}.cpp"))).arg("-o").arg(&exe);
    let out = cmd.output().map_err(|e| format!("running {cxx}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{cxx} failed on {name}.cpp:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(exe)
}

fn run(exe: &Path, scale: u32, tsan: bool) -> (bool, String) {
    let mut cmd = Command::new(exe);
    cmd.arg(scale.to_string());
    if tsan {
        let supp = hammer_dir().join("tsan.supp");
        // The largest history: a race's earlier access must keep its stack, or a suppression
        // that names it (the deque's by-design speculative read) cannot match; with the
        // default history, a busy machine sometimes lost that stack and failed the run.
        cmd.env("TSAN_OPTIONS", format!("halt_on_error=1 exitcode=66 history_size=7 suppressions={}", supp.display()));
    }
    let out = cmd.output().expect("the harness runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// ThreadSanitizer needs compiler support and a kernel whose address layout it accepts; a
/// tiny threaded program tells whether both are there.
fn tsan_works(cxx: &str) -> Result<(), String> {
    static WORKS: OnceLock<Result<(), String>> = OnceLock::new();
    WORKS
        .get_or_init(|| {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("queue_hammer");
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            let src = dir.join("tsan_probe.cpp");
            std::fs::write(&src, "#include <thread>\nint main(){int x=0;std::thread t([&]{x=1;});t.join();return x-1;}\n")
                .map_err(|e| e.to_string())?;
            let exe = dir.join("tsan_probe");
            let out = Command::new(cxx)
                .args(["-std=c++17", "-pthread", "-fsanitize=thread"])
                .arg(&src)
                .arg("-o")
                .arg(&exe)
                .output()
                .map_err(|e| e.to_string())?;
            if !out.status.success() {
                return Err(format!("-fsanitize=thread does not compile: {}", String::from_utf8_lossy(&out.stderr)));
            }
            let out = Command::new(&exe).output().map_err(|e| e.to_string())?;
            if !out.status.success() {
                return Err(format!("a ThreadSanitizer binary does not run here: {}", String::from_utf8_lossy(&out.stderr)));
            }
            Ok(())
        })
        .clone()
}

fn hammer(name: &str, scale: u32, tsan_scale: u32) {
    let Some(cxx) = cxx() else {
        println!("SKIPPED: no C++ compiler (set CXX or install c++); {name} not hammered");
        eprintln!("SKIPPED: no C++ compiler (set CXX or install c++); {name} not hammered");
        return;
    };
    let exe = build(&cxx, name, false).unwrap_or_else(|e| panic!("{e}"));
    let (ok, text) = run(&exe, scale, false);
    println!("{name}:\n{text}");
    assert!(ok, "{name} failed:\n{text}");

    match tsan_works(&cxx) {
        Err(why) => println!("SKIPPED: {name} under ThreadSanitizer: {why}"),
        Ok(()) => {
            let exe = build(&cxx, name, true).unwrap_or_else(|e| panic!("{e}"));
            let (ok, text) = run(&exe, tsan_scale, true);
            println!("{name} under ThreadSanitizer (scale {tsan_scale}%):\n{text}");
            assert!(ok, "{name} failed under ThreadSanitizer:\n{text}");
        }
    }
}

#[test]
fn broker_queue_bq_bwd_bsq_lose_and_duplicate_nothing() {
    hammer("bq_hammer", 40, 4);
}

#[test]
fn broker_queue_histories_are_linearizable() {
    hammer("bq_linearizability", 100, 10);
}

#[test]
fn work_stealing_deque_loses_and_duplicates_nothing() {
    hammer("deque_hammer", 100, 4);
}

#[test]
fn the_deque_whose_scope_follows_sharing_loses_and_duplicates_nothing() {
    hammer("deque_hammer_shared", 100, 4);
}
