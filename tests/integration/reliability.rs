//! Faults that must come back as clear errors, never as a hang, an abort, a panic or a value
//! changed behind the program's back: the CPU backend's watchdog and its bound on tasks held
//! (an endless chain, an endless tree, a handler spawning or looping for ever), settings out
//! of range, and a `Runtime` shared between threads.

use std::process::Command;
use std::time::{Duration, Instant};
use wsdsl::prelude::*;
use wsdsl::{Error, RanOn};

use wsdsl_examples::cli;
// A helper that loops for ever (gpu-check's chaos rows run it too).
use wsdsl_examples::endless_loop::spinning;

/// Runs `spinning` from `start` (odd: never returns; even: 7) on `rt`.
fn spin(rt: &Runtime, start: u32) -> Result<u64, Error> {
    rt.run::<spinning::Kernel>(spinning::Params { start }, [spinning::Spin { unused: 0 }]).map(|out| out.counters.answer.get())
}

#[megakernel]
pub mod endless {
    #[params]
    pub struct Params {
        /// What the tasks do: 0 an endless chain, 1 an endless binary tree, 2 one handler
        /// spawning in a loop that never ends (4: the roots are `Link`s, an endless chain of
        /// tasks that wait for their child).
        pub shape: u32,
    }

    #[task]
    pub struct Step {
        pub depth: u64,
    }

    #[task(value = u64)]
    pub struct Link {
        pub depth: u64,
    }

    #[spawn]
    fn step(s: &Step, ctx: &mut Ctx) {
        match ctx.params.shape {
            0 => ctx.spawn(Step { depth: s.depth + 1 }),
            1 => {
                ctx.spawn(Step { depth: s.depth + 1 });
                ctx.spawn(Step { depth: s.depth + 1 });
            }
            _ => loop {
                ctx.spawn(Step { depth: s.depth + 1 });
            },
        }
    }

    #[spawn]
    fn link(l: &Link, ctx: &mut Ctx) -> u64 {
        ctx.spawn(Link { depth: l.depth + 1 });
        0
    }

    #[complete(max_children = 1)]
    fn linked(_l: &Link, children: &[u64], _ctx: &mut Ctx) -> u64 {
        children[0] + 1
    }
}

fn cpu(watchdog: Duration) -> Runtime {
    Runtime::new(Backend::Cpu).cpu_threads(2).watchdog(watchdog).progress_line(false)
}

fn run_shape(rt: &Runtime, shape: u32) -> (Result<Output<endless::Kernel>, Error>, Duration) {
    let started = Instant::now();
    let params = endless::Params { shape };
    let out = match shape {
        4 => rt.run::<endless::Kernel>(params, [endless::Link { depth: 0 }]),
        _ => rt.run::<endless::Kernel>(params, [endless::Step { depth: 0 }]),
    };
    (out, started.elapsed())
}

#[test]
fn an_endless_chain_is_stopped_by_the_watchdog_and_named() {
    let (out, took) = run_shape(&cpu(Duration::from_millis(300)), 0);
    let err = out.expect_err("an endless chain never ends");
    assert!(matches!(err, Error::Watchdog { program: "endless", on: RanOn::Cpu, stopped: true, .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("`endless`") && message.contains("WSDSL_WATCHDOG_SECS"), "{message}");
    assert!(took < Duration::from_secs(5), "stopped within the limit and a task's time, not {took:?}");
}

#[test]
fn an_endless_chain_of_waiting_tasks_is_stopped_by_the_watchdog() {
    let rt = cpu(Duration::from_millis(300)).cpu_task_limit(1 << 30);
    let (out, took) = run_shape(&rt, 4);
    let err = out.expect_err("an endless joined chain never ends");
    assert!(matches!(err, Error::Watchdog { stopped: true, .. } | Error::OutOfMemory { .. }), "{err:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn an_endless_tree_passes_the_bound_on_tasks_held_instead_of_taking_all_memory() {
    let rt = cpu(Duration::from_secs(60)).cpu_task_limit(100_000);
    let (out, took) = run_shape(&rt, 1);
    let err = out.expect_err("an endless tree never ends");
    let message = err.to_string();
    assert!(matches!(&err, Error::QueueOverflow { capacity: 100_000, .. }), "{err:?}");
    assert!(message.contains("Runtime::cpu_task_limit") && message.contains("WSDSL_CPU_TASK_LIMIT"), "{message}");
    assert!(took < Duration::from_secs(20), "{took:?}");
    let joined = cpu(Duration::from_secs(60)).cpu_task_limit(100_000);
    let err = run_shape(&joined, 4).0.expect_err("an endless chain of waiting tasks never ends");
    assert!(matches!(&err, Error::QueueOverflow { capacity: 100_000, .. }), "waiting tasks count too: {err:?}");
}

#[test]
fn a_handler_spawning_in_an_endless_loop_passes_the_bound() {
    let rt = cpu(Duration::from_secs(60)).cpu_task_limit(1 << 20);
    let (out, took) = run_shape(&rt, 2);
    let err = out.expect_err("the loop never ends");
    assert!(matches!(&err, Error::QueueOverflow { capacity: 1_048_576, .. }), "{err:?}");
    assert!(took < Duration::from_secs(20), "{took:?}");
    // The same runtime runs the next program.
    assert_eq!(spin(&rt, 0).unwrap(), 7);
}

#[test]
fn a_handler_looping_for_ever_is_reported_and_the_runtime_goes_on() {
    let rt = cpu(Duration::from_millis(500));
    let started = Instant::now();
    let err = spin(&rt, 1).expect_err("the helper never returns");
    assert!(matches!(err, Error::Watchdog { program: "spinning", on: RanOn::Cpu, stopped: false, .. }), "{err:?}");
    assert!(err.to_string().contains("looping forever"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    // The parked thread is gone with its pool; the runtime starts another.
    assert_eq!(spin(&rt, 4_294_967_294).expect("a fresh pool"), 7);
}

#[test]
fn a_runtime_may_be_shared_between_threads() {
    use wsdsl_examples::fib::{fib, reference};
    let rt = Runtime::new(Backend::Cpu).cpu_threads(2).progress_line(false);
    std::thread::scope(|s| {
        for t in 0..8u32 {
            let rt = &rt;
            s.spawn(move || {
                for n in [10 + t, 15 + t] {
                    let out = rt.run::<fib::Kernel>((), [fib::Call { n }]).expect("runs");
                    assert_eq!(out.values[0], reference(n));
                }
            });
        }
    });
}

#[test]
fn builder_values_out_of_range_are_refused_before_the_run() {
    let run = |rt: Runtime| spin(&rt, 0).unwrap_err().to_string();
    let cases = [
        (run(cpu(Duration::from_secs(9)).frames(0)), "Runtime::frames(0)"),
        (run(cpu(Duration::from_secs(9)).cpu_threads(0)), "Runtime::cpu_threads(0)"),
        (run(cpu(Duration::from_secs(9)).block_threads(33)), "Runtime::block_threads(33)"),
        (run(cpu(Duration::from_secs(9)).min_blocks_per_sm(1000)), "Runtime::min_blocks_per_sm(1000)"),
        (run(cpu(Duration::from_secs(9)).gpus(0)), "Runtime::gpus(0)"),
        (run(cpu(Duration::ZERO)), "Runtime::watchdog(0s)"),
    ];
    for (message, names) in cases {
        assert!(message.contains(names), "{message}");
        assert_eq!(message.matches("invalid configuration").count(), 1, "{message}");
    }
}

/// Runs this test binary's `reliability::from_env_in_a_child` with `vars` set; what it printed.
fn from_env_with(vars: &[(&str, &str)]) -> String {
    let mut child = Command::new(std::env::current_exe().expect("the test binary"));
    child.args(["--exact", "reliability::from_env_in_a_child", "--nocapture", "--test-threads=1"]).env("WSDSL_RELIABILITY_CHILD", "1");
    for (k, v) in vars {
        child.env(k, v);
    }
    let out = child.output().expect("the test binary runs");
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// In a child process (`from_env_with`): reads the environment, runs a small program on the
/// backend it names, and prints the outcome.
#[test]
fn from_env_in_a_child() {
    if std::env::var_os("WSDSL_RELIABILITY_CHILD").is_none() {
        return;
    }
    match Runtime::from_env().and_then(|rt| spin(&rt, 0)) {
        Ok(answer) => println!("OUTCOME: ran, answer {answer}"),
        Err(e) => println!("OUTCOME: error: {e}"),
    }
}

#[test]
fn settings_out_of_range_are_errors_naming_the_variable_value_and_range() {
    let cases = [
        ("WSDSL_BLOCK_THREADS", "33", "a multiple of 32 from 32 to 1024"),
        ("WSDSL_BLOCK_THREADS", "0", "a multiple of 32 from 32 to 1024"),
        ("WSDSL_BLOCK_THREADS", "99999", "a multiple of 32 from 32 to 1024"),
        ("WSDSL_MIN_BLOCKS", "1000", "from 0 to 32"),
        ("WSDSL_BAND_LOOKAHEAD", "32", "from 0 to 31"),
        ("WSDSL_DEQUE_CAPACITY", "4294967297", "from 1 to 2147483648"),
        ("WSDSL_THREADS", "0", "from 1 to 4096"),
        ("WSDSL_FRAMES", "0", "from 1 to 2147483648"),
        ("WSDSL_WATCHDOG_SECS", "soon", "from 1 to 4294967295"),
        ("WSDSL_GPUS", "0", "from 1 to 1024"),
        ("WSDSL_PROFILE", "2", "from 0 to 1"),
        ("WSDSL_CPU_TASK_LIMIT", "-5", "from 1 to"),
    ];
    for (var, value, range) in cases {
        let printed = from_env_with(&[("WSDSL_BACKEND", "cpu"), (var, value)]);
        let expected = format!("error: invalid configuration: {var}=`{value}`");
        assert!(printed.contains(&expected) && printed.contains(range), "{var}={value}:\n{printed}");
        assert!(!printed.contains("invalid configuration: invalid configuration"), "{printed}");
    }
}

#[test]
fn all_gpus_without_a_driver_is_an_error_or_nothing_never_a_panic() {
    // A CPU run never asks the driver how many GPUs there are.
    let printed = from_env_with(&[("WSDSL_BACKEND", "cpu"), ("WSDSL_GPUS", "all")]);
    assert!(printed.contains("OUTCOME: ran, answer 7"), "{printed}");
    if wsdsl::gpu::device_count().is_err() {
        let printed = from_env_with(&[("WSDSL_BACKEND", "gpu"), ("WSDSL_GPUS", "all")]);
        assert!(printed.contains("OUTCOME: error: no usable GPU"), "{printed}");
        assert!(!printed.contains("panicked"), "{printed}");
    }
}

/// In a child process (`emulated_with_cache`): runs a small program on the host-compiled
/// templates twice (the second run is the same process's next), and prints each outcome.
#[test]
fn emulated_in_a_child() {
    if std::env::var_os("WSDSL_RELIABILITY_CHILD").is_none() {
        return;
    }
    use wsdsl::gpu::emulate::{run_emulated, Emulation};
    let roots = [spinning::Task::from(spinning::Spin { unused: 0 })];
    for _ in 0..2 {
        let outcome = run_emulated::<spinning::Kernel>(&spinning::Params { start: 0 }, &(), &roots, &wsdsl::KernelConfig::default(), &Emulation::default());
        match outcome {
            Ok((counters, _, _)) => println!("OUTCOME: ran, answer {}", counters.answer.get()),
            Err(e) => println!("OUTCOME: error: {e}"),
        }
    }
}

/// Runs `reliability::emulated_in_a_child` with the kernel cache in `cache`; what it printed.
fn emulated_with_cache(cache: &std::path::Path) -> String {
    emulated_child(cache, "", "")
}

/// [`emulated_with_cache`] started by `sh` after the shell commands `shell` (a limit, a
/// trap), through the command `wrapper` (none: ""), and stopped after two minutes; what it
/// printed, then how it ended (`ENDED: ...`).
fn emulated_child(cache: &std::path::Path, shell: &str, wrapper: &str) -> String {
    let script = format!("{shell}\nexec {wrapper} timeout -s KILL 120 \"$0\" --exact reliability::emulated_in_a_child --nocapture --test-threads=1");
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(std::env::current_exe().expect("the test binary"))
        .env("WSDSL_RELIABILITY_CHILD", "1")
        .env("WSDSL_CACHE_DIR", cache)
        .output()
        .expect("sh runs");
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr) + &format!("\nENDED: {:?}", out.status)
}

/// Whether both runs of [`emulated_in_a_child`] ran and answered.
fn ran_twice(printed: &str) -> bool {
    printed.matches("OUTCOME: ran, answer 7").count() == 2
}

/// A scratch directory of this test, empty.
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("wsdsl-reliability-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The files of `dir` whose names end with `suffix`.
fn files_ending(dir: &std::path::Path, suffix: &str) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .map(|entries| entries.map(|e| e.unwrap().path()).filter(|p| p.to_string_lossy().ends_with(suffix)).collect())
        .unwrap_or_default();
    found.sort();
    found
}

/// Builds a shared library of `c_source` (C++) at `path`.
fn build_library(c_source: &str, path: &std::path::Path) {
    let built = Command::new("c++")
        .args(["-shared", "-fPIC", "-x", "c++", "-", "-o"])
        .arg(path)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(c_source.as_bytes())?;
            c.wait()
        })
        .expect("c++ runs");
    assert!(built.success());
}

/// C++ whose initialiser, once in a library that is loaded, makes the file `marker`.
fn leaves_a_mark(marker: &std::path::Path) -> String {
    format!(
        "#include <cstdio>\n__attribute__((constructor)) static void wsdsl_planted() {{ if (FILE* f = std::fopen(\"{}\", \"w\")) std::fclose(f); }}\n",
        marker.display()
    )
}

/// The host emulation's library cache: a truncated or emptied library is compiled again
/// (it used to kill the process with SIGBUS, or fail every later run); a library planted
/// under the expected name, in the old shared `/tmp/wsdsl-emulation` or in the cache itself,
/// is never loaded; the cache directory is private.
#[test]
fn damaged_or_planted_host_kernels_are_never_loaded() {
    use std::os::unix::fs::MetadataExt;
    let scratch = std::env::temp_dir().join(format!("wsdsl-reliability-emulation-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let cache = scratch.join("cache");
    let first = emulated_with_cache(&cache);
    assert!(first.contains("OUTCOME: ran, answer 7"), "{first}");
    assert_eq!(std::fs::metadata(&cache).unwrap().mode() & 0o777, 0o700, "the cache directory is private");
    let library = std::fs::read_dir(cache.join("emulation"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "so"))
        .expect("the host kernel is cached");
    let image = std::fs::read(&library).unwrap();

    std::fs::write(&library, &image[..1000]).unwrap();
    let truncated = emulated_with_cache(&cache);
    assert!(truncated.contains("OUTCOME: ran, answer 7") && truncated.contains("compiling it again"), "{truncated}");
    std::fs::write(&library, b"").unwrap();
    let emptied = emulated_with_cache(&cache);
    assert!(emptied.contains("OUTCOME: ran, answer 7") && emptied.contains("compiling it again"), "{emptied}");

    // A library whose initialiser leaves a mark, planted under the name the kernel has.
    let marker = scratch.join("planted-library-ran");
    let planted = scratch.join("planted.so");
    build_library(&leaves_a_mark(&marker), &planted);
    let old_shared = std::env::temp_dir().join("wsdsl-emulation");
    std::fs::create_dir_all(&old_shared).unwrap();
    let in_old = old_shared.join(library.file_name().unwrap());
    std::fs::copy(&planted, &in_old).unwrap();
    std::fs::copy(&planted, &library).unwrap();
    let after_planting = emulated_with_cache(&cache);
    assert!(after_planting.contains("OUTCOME: ran, answer 7"), "{after_planting}");
    assert!(!marker.exists(), "a planted library was loaded:\n{after_planting}");
    let _ = std::fs::remove_file(in_old);
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// The emulation's precompiled headers are checked like every entry: headers planted in their
/// place (code that leaves a mark, precompiled as the emulation does) are rebuilt, not
/// compiled into the next kernel library: that library is cached as it comes out, so what
/// it took in would run in every later run too.
#[test]
fn planted_precompiled_headers_are_never_compiled_in() {
    let scratch = scratch_dir("pch");
    let cache = scratch.join("cache");
    let first = emulated_with_cache(&cache);
    assert!(ran_twice(&first), "{first}");
    let emulation = cache.join("emulation");
    let header = files_ending(&emulation, ".h").pop().expect("the precompiled headers are cached");
    let gch = std::path::PathBuf::from(format!("{}.gch", header.display()));
    assert!(gch.is_file(), "{}", gch.display());
    let marker = scratch.join("planted-header-ran");
    let planted = std::fs::read_to_string(&header).unwrap() + &leaves_a_mark(&marker);
    std::fs::write(&header, planted).unwrap();
    // With the emulation's options (were they others, GCC would read the planted header itself).
    let built = Command::new("c++").args(["-std=c++17", "-O1", "-U_FORTIFY_SOURCE", "-fPIC", "-pthread", "-w", "-x", "c++-header"]).arg(&header).arg("-o").arg(&gch).status();
    assert!(built.expect("c++ runs").success());
    // A kernel library not built yet.
    for library in files_ending(&emulation, ".so").into_iter().chain(files_ending(&emulation, ".so.check")) {
        std::fs::remove_file(library).unwrap();
    }
    let after = emulated_with_cache(&cache);
    assert!(ran_twice(&after), "{after}");
    assert!(!marker.exists(), "the planted headers were compiled in:\n{after}");
    assert!(after.contains("precompiled headers") && after.contains("not used"), "the planted headers are named:\n{after}");
    let next = emulated_with_cache(&cache);
    assert!(ran_twice(&next) && !marker.exists(), "{next}");
    assert!(!next.contains("not used"), "the headers are whole again:\n{next}");
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// A FIFO, a link to `/dev/zero` or a directory in place of the host kernel's library or of
/// its check is a miss, said in one line: the run goes on, as does the next in a new process.
/// Read as files, a FIFO would block the run for ever and the link fill memory; a directory
/// cannot be written over, so it must cost the cache and not the run.
#[test]
fn anything_but_a_file_in_place_of_a_host_kernel_is_a_miss() {
    let scratch = scratch_dir("not-files");
    let cache = scratch.join("cache");
    let first = emulated_with_cache(&cache);
    assert!(ran_twice(&first), "{first}");
    let library = files_ending(&cache.join("emulation"), ".so").pop().expect("the host kernel is cached");
    let check = std::path::PathBuf::from(format!("{}.check", library.display()));
    let fifo = |path: &std::path::Path| assert!(Command::new("mkfifo").arg(path).status().expect("mkfifo runs").success());
    let link = |path: &std::path::Path| std::os::unix::fs::symlink("/dev/zero", path).unwrap();
    let directory = |path: &std::path::Path| std::fs::create_dir_all(path.join("inside")).unwrap();
    let cases: [(&str, &dyn Fn(&std::path::Path)); 3] = [("a FIFO", &fifo), ("a link to /dev/zero", &link), ("a directory", &directory)];
    for (what, make) in cases {
        for victim in [&check, &library] {
            std::fs::remove_file(victim).unwrap();
            make(victim);
            let after = emulated_with_cache(&cache);
            assert!(ran_twice(&after) && after.contains("not a regular file"), "{what} in place of {}:\n{after}", victim.display());
            let next = emulated_with_cache(&cache);
            assert!(ran_twice(&next), "{what} in place of {}, the next process:\n{next}", victim.display());
            if victim.is_dir() {
                std::fs::remove_dir_all(victim).unwrap();
                let whole = emulated_with_cache(&cache);
                assert!(ran_twice(&whole) && library.is_file() && check.is_file(), "{whole}");
            }
        }
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// Whether this process may write where the owner of a directory may not (root).
fn writes_past_permissions() -> bool {
    use std::os::unix::fs::MetadataExt;
    let probe = scratch_dir("whoami").join("probe");
    std::fs::write(&probe, b"").unwrap();
    let root = std::fs::metadata(&probe).unwrap().uid() == 0;
    std::fs::remove_dir_all(probe.parent().unwrap()).unwrap();
    root
}

/// A cache directory that takes no files (as a full disk) costs the cache, not the run: the
/// kernel is built and loaded elsewhere, with a warning, and cached by the next process once
/// files can be written.
#[test]
fn a_cache_directory_that_takes_no_files_costs_the_cache_not_the_run() {
    use std::os::unix::fs::PermissionsExt;
    // Root writes whatever the permissions: without CAP_DAC_OVERRIDE, it may not.
    let wrapper = if writes_past_permissions() {
        if !Command::new("setpriv").arg("--version").output().is_ok_and(|o| o.status.success()) {
            eprintln!("skipped: as root, this needs setpriv (util-linux) to give up CAP_DAC_OVERRIDE");
            return;
        }
        "setpriv --inh-caps=-dac_override --bounding-set=-dac_override --"
    } else {
        ""
    };
    let scratch = scratch_dir("no-files");
    let cache = scratch.join("cache");
    let emulation = cache.join("emulation");
    std::fs::create_dir_all(&emulation).unwrap();
    std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::set_permissions(&emulation, std::fs::Permissions::from_mode(0o500)).unwrap();
    let full = emulated_child(&cache, "", wrapper);
    assert!(ran_twice(&full), "{full}");
    assert!(full.contains("not cached"), "the warning:\n{full}");
    std::fs::set_permissions(&emulation, std::fs::Permissions::from_mode(0o700)).unwrap();
    let next = emulated_child(&cache, "", wrapper);
    assert!(ran_twice(&next) && !next.contains("wsdsl:"), "{next}");
    assert_eq!(files_ending(&emulation, ".so").len(), 1, "cached by the next process");
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// A file size limit (`ulimit -f`) is a write error, reported, not a process killed by
/// SIGXFSZ; a write that fails leaves no file behind (not even an empty temporary header);
/// a cached kernel runs under the limit, and the next process without it caches the kernel.
#[test]
fn a_file_size_limit_is_a_reported_error_that_leaves_nothing_behind() {
    let scratch = scratch_dir("fsize");
    let cache = scratch.join("cache");
    let emulation = cache.join("emulation");
    for shell in ["trap '' XFSZ; ulimit -f 0", "ulimit -f 0"] {
        let limited = emulated_child(&cache, shell, "");
        assert!(limited.contains("OUTCOME: error") && limited.contains("File too large"), "`{shell}`:\n{limited}");
        let left: Vec<_> = std::fs::read_dir(&emulation).map(|d| d.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
        assert!(left.is_empty(), "`{shell}` left {left:?}");
    }
    let unlimited = emulated_with_cache(&cache);
    assert!(ran_twice(&unlimited), "{unlimited}");
    let hit = emulated_child(&cache, "ulimit -f 0", "");
    assert!(ran_twice(&hit), "a cached kernel needs no writes:\n{hit}");
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// In a child process: makes sure NVRTC can be loaded (`WSDSL_NVRTC` or the search), and
/// prints the outcome.
#[test]
fn nvrtc_in_a_child() {
    if std::env::var_os("WSDSL_RELIABILITY_CHILD").is_none() {
        return;
    }
    match wsdsl::gpu::build::libs::ensure_nvrtc() {
        Ok(()) => println!("OUTCOME: NVRTC loaded"),
        Err(e) => println!("OUTCOME: error: {e}"),
    }
}

/// `nvrtc_in_a_child` with `WSDSL_NVRTC` set to `path` (none: unset); what it printed.
fn nvrtc_named(path: Option<&std::path::Path>) -> String {
    let mut child = Command::new(std::env::current_exe().expect("the test binary"));
    child.args(["--exact", "reliability::nvrtc_in_a_child", "--nocapture", "--test-threads=1"]).env("WSDSL_RELIABILITY_CHILD", "1");
    match path {
        Some(path) => child.env("WSDSL_NVRTC", path),
        None => child.env_remove("WSDSL_NVRTC"),
    };
    let out = child.output().expect("the test binary runs");
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// `WSDSL_NVRTC` naming a missing file, a library that is not NVRTC or a file that is no
/// library is an error naming the variable and the path, never another NVRTC found by the
/// search: the user asked for that file.
#[test]
fn wsdsl_nvrtc_naming_anything_but_nvrtc_is_an_error() {
    let searched = nvrtc_named(None);
    if !searched.contains("OUTCOME: NVRTC loaded") {
        eprintln!("skipped: no NVRTC to fall back to here:\n{searched}");
        return;
    }
    let scratch = scratch_dir("nvrtc");
    let other_library = scratch.join("libnotnvrtc.so");
    build_library("extern \"C\" int not_nvrtc() { return 1; }\n", &other_library);
    let text = scratch.join("libnvrtc.so.13");
    std::fs::write(&text, "not a library").unwrap();
    for (path, why) in [
        (scratch.join("missing/libnvrtc.so.13"), "cannot be loaded"),
        (other_library, "is not NVRTC: it has no nvrtc"),
        (text, "cannot be loaded"),
    ] {
        let printed = nvrtc_named(Some(&path));
        assert!(printed.contains("OUTCOME: error") && printed.contains("WSDSL_NVRTC") && printed.contains(&path.display().to_string()) && printed.contains(why), "{}:\n{printed}", path.display());
    }
    // NVRTC itself, named, is used.
    let sites = Command::new("python3").args(["-c", "import site\nfor p in site.getsitepackages() + [site.getusersitepackages()]: print(p)"]).output();
    let sites = sites.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    if let Some(nvrtc) = sites.lines().map(|site| std::path::Path::new(site).join("nvidia/cu13/lib/libnvrtc.so.13")).find(|p| p.is_file()) {
        let printed = nvrtc_named(Some(&nvrtc));
        assert!(printed.contains("OUTCOME: NVRTC loaded"), "{}:\n{printed}", nvrtc.display());
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}

#[megakernel]
pub mod wide {
    use wsdsl::prelude::*;

    #[counters]
    pub struct Counters {
        pub sum: Sum<u64>,
    }

    /// 8 MB.
    #[task]
    pub struct Huge {
        pub data: [u64; 1048576],
    }

    #[spawn]
    fn huge(h: &Huge, ctx: &mut Ctx) {
        ctx.counters.sum.add(h.data[0]);
    }
}

#[megakernel]
pub mod roomy {
    use wsdsl::prelude::*;

    #[counters]
    pub struct Counters {
        pub sum: Sum<u64>,
    }

    /// Just below the emulation's limit on a task's size.
    #[task]
    pub struct Big {
        pub data: [u64; 2040],
        pub left: u32,
    }

    #[spawn]
    fn big(b: &Big, ctx: &mut Ctx) {
        ctx.counters.sum.add(b.data[2039]);
        if b.left > 0 {
            let mut child = *b;
            child.left -= 1;
            ctx.spawn(child);
            ctx.spawn(child);
        }
    }
}

/// The host-compiled templates run each GPU thread on a fiber with a fixed stack: a task too
/// large for it is refused with the limit, never an abort; one within it runs.
#[test]
fn the_emulation_refuses_a_task_too_large_for_its_fibers() {
    use wsdsl::gpu::emulate::{run_emulated, Emulation, MAX_TASK_BYTES};
    let emu = Emulation::default();
    let err = run_emulated::<wide::Kernel>(&(), &(), &[], &wsdsl::KernelConfig::default(), &emu).unwrap_err().to_string();
    assert!(err.contains(&format!("at most {MAX_TASK_BYTES} bytes")) && err.contains("8388"), "{err}");
    let mut big = roomy::Big { data: [0; 2040], left: 6 };
    big.data[2039] = 1;
    let roots = [roomy::Task::from(big)];
    let (counters, _, _) = run_emulated::<roomy::Kernel>(&(), &(), &roots, &wsdsl::KernelConfig::default(), &emu).expect("fits the fibers");
    assert_eq!(counters.sum.get(), 127, "a binary tree of 7 levels");
}

/// A `--chart` that cannot be drawn is said, and the run still prints its verdict (the
/// process then fails); it used to end the run before the PASS/FAIL line.
#[test]
fn a_chart_that_cannot_be_drawn_never_hides_the_verdict() {
    let common = cli::Common { backend: None, chart: Some("/nonexistent/folder/chart.svg".into()) };
    common.chart(&wsdsl::Stats::default(), "a run");
    assert!(cli::report(Ok("the answer held".into())));
    assert_eq!(cli::status(Ok::<bool, String>(true)), 2, "the process fails after its verdict");
}

#[test]
fn fib_beyond_its_range_is_refused_with_the_true_leaf_count() {
    let err = wsdsl_examples::fib::solve(&Runtime::new(Backend::Cpu), 100).unwrap_err().to_string();
    assert!(err.contains("fib(100) has 573147844013817084101 leaves"), "{err}");
    let err = wsdsl_examples::fib::solve(&Runtime::new(Backend::Cpu), 4_000_000_000).unwrap_err().to_string();
    assert!(err.contains("more than 10^38 leaves"), "{err}");
}

/// Sizes that would take all memory are refused before anything is allocated.
#[test]
fn huge_example_inputs_are_refused_before_allocating() {
    for keys in [wsdsl_examples::mergesort::checked_keys, wsdsl_examples::quicksort::checked_keys] {
        let err = keys(1 << 33, 1, 10).unwrap_err().to_string();
        assert!(err.contains("at most 2^31 - 1"), "{err}");
    }
    let rt = Runtime::new(Backend::Cpu).progress_line(false);
    let err = wsdsl_examples::chain::run(&rt, u32::MAX, 10, true).err().expect("refused").to_string();
    assert!(err.contains("at most 16777216 chains"), "{err}");
    let err = wsdsl_examples::sudoku::check_request(usize::MAX, 24).unwrap_err().to_string();
    assert!(err.contains("--puzzles 1..=1000000"), "{err}");
    // A capacity beyond the items' total weight needs no table beyond it.
    assert_eq!(wsdsl_examples::knapsack::reference(&[(3, 4), (5, 6)], u32::MAX), 10);
}

/// In a child process: loads the chart font as `WSDSL_CHART_FONT` says, and prints the outcome.
#[test]
fn chart_font_in_a_child() {
    if std::env::var_os("WSDSL_RELIABILITY_CHILD").is_none() {
        return;
    }
    match wsdsl::chart::font() {
        Ok(()) => println!("OUTCOME: font loaded"),
        Err(e) => println!("OUTCOME: error: {e}"),
    }
}

#[test]
fn a_chart_font_that_is_not_a_font_file_is_refused_without_reading_it() {
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--exact", "reliability::chart_font_in_a_child", "--nocapture", "--test-threads=1"])
        .env("WSDSL_RELIABILITY_CHILD", "1")
        .env("WSDSL_CHART_FONT", "/dev/zero")
        .output()
        .expect("the test binary runs");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("OUTCOME: error: WSDSL_CHART_FONT=/dev/zero: not a regular file"), "{printed}");
}

/// In a child process with little address space (`ulimit -v`): an endless chain of tasks
/// that wait for their child, until the CPU stack cannot grow.
#[test]
fn stack_growth_in_a_child() {
    if std::env::var_os("WSDSL_RELIABILITY_CHILD").is_none() {
        return;
    }
    let rt = cpu(Duration::from_secs(120)).cpu_task_limit(1 << 40);
    match run_shape(&rt, 4).0 {
        Ok(_) => println!("OUTCOME: ran"),
        Err(e) => println!("OUTCOME: error: {e:?}"),
    }
}

/// Memory that runs out for the stack of waiting tasks is its own error, not a handler's
/// panic (it was reported as `TaskPanicked` with `stacker`'s message).
#[test]
fn a_stack_that_cannot_grow_is_out_of_memory_not_a_panic() {
    let exe = std::env::current_exe().expect("the test binary");
    let out = Command::new("sh")
        .args(["-c", "ulimit -v 1000000 && exec \"$0\" --exact reliability::stack_growth_in_a_child --nocapture --test-threads=1"])
        .arg(exe)
        .env("WSDSL_RELIABILITY_CHILD", "1")
        .output()
        .expect("sh runs");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("OUTCOME: error: OutOfMemory { what: \"a stack segment for tasks waiting for their children\""), "{printed}\n{}", String::from_utf8_lossy(&out.stderr));
}
