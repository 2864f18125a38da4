//! Loops that never end in Rust never end in the generated code either. C++ lets a compiler
//! assume that a loop without side effects terminates and delete it (the forward-progress
//! rule; NVRTC and GCC at -O2 do); the lowering makes every `loop` and `while` go round
//! through a side effect (`ws_loop_progress` in `core/rust_semantics.cuh`).
//!
//! On the host-compiled templates (`wsdsl::gpu::emulate`) and on the GPU (skipped without
//! one) each endless loop must end in the watchdog's error, not in `Ok` with a made-up value;
//! NVRTC's PTX must still hold the loops. (The CPU backend is Rust itself: it loops, as it
//! should, so it is not run here.)

use std::process::{Command, Stdio};
use std::time::Duration;
use wsdsl::gpu::emulate::{run_emulated, Emulation};
use wsdsl::gpu::{kernel_source, KernelConfig};
use wsdsl::prelude::*;
use wsdsl::Error;

#[megakernel]
pub mod endless {
    use wsdsl::prelude::*;

    #[counters]
    pub struct Counters {
        pub returned: Sum<u64>,
    }

    #[task]
    pub struct Spin {
        /// 0: a `while` whose condition never changes; 1: the helper below.
        pub which: u32,
        pub i: u32,
    }

    /// For an odd `i`, Rust never returns: `i` stays odd, so it is never 0 (a helper a C++
    /// compiler may delete as a side-effect-free loop, and then return 7).
    fn seven_at_zero(i: u32) -> u32 {
        let mut i = i;
        loop {
            if i == 0 {
                return 7;
            }
            i = i.wrapping_add(2);
        }
    }

    #[spawn]
    fn spin(s: &Spin, ctx: &mut Ctx) {
        if s.which == 0 {
            let mut i = s.i;
            while i != 1 {
                i = i.wrapping_add(0);
            }
            ctx.counters.returned.add(i as u64);
        } else {
            ctx.counters.returned.add(seven_at_zero(s.i) as u64);
        }
    }
}

/// The environment variables that make `endless_loop_in_a_child` run a case, and where.
const CASE: &str = "WSDSL_ENDLESS_CASE";
const ON_GPU: &str = "WSDSL_ENDLESS_ON_GPU";

/// Runs one endless case on the host-compiled templates (or the GPU) and prints how it ended.
/// It runs in a child process of this test binary: the emulated thread spinning in the loop
/// outlives the watchdog's error (nothing can stop it), as a kernel that ignores the stop
/// request holds the GPU context; only the end of the process ends them.
#[test]
#[ignore = "run in a child process by the tests below"]
fn endless_loop_in_a_child() {
    let Some(which) = std::env::var(CASE).ok().and_then(|v| v.parse::<u32>().ok()) else { return };
    // Never 1 for the `while`; odd for the helper.
    let root = endless::Spin { which, i: 2 + which };
    let limit = Duration::from_secs(2);
    let ran = if std::env::var_os(ON_GPU).is_some() {
        // Every task on the GPU, whose watchdog is under test (with the host's first levels,
        // `Runtime::spread`, the host would run the loop: `tests/integration/spread.rs`).
        Runtime::new(Backend::Gpu).watchdog(limit).spread(0).run::<endless::Kernel>((), [root]).map(|out| out.counters)
    } else {
        // Neither loop can see the stop request: waiting the default 10 s for it kept two
        // cores spinning in CI.
        let emu = Emulation { grid: 1, block_threads: 32, os_threads: 1, watchdog: limit, stop_wait: Duration::from_millis(500), ..Emulation::default() };
        run_emulated::<endless::Kernel>(&(), &(), &[root.into()], &KernelConfig::default(), &emu).map(|(counters, _, _)| counters)
    };
    match ran {
        Err(Error::Watchdog { .. }) => println!("ENDED: watchdog"),
        Ok(counters) => println!("ENDED: returned {}", counters.returned.get()),
        Err(e) => println!("ENDED: {e}"),
    }
}

#[test]
fn host_compiled_endless_loops_end_in_the_watchdog() {
    both_cases_end_in_the_watchdog(false);
}

/// On a GPU machine: `target/release/deps/integration-* forward_progress:: --nocapture`.
#[test]
fn endless_loops_on_the_gpu_end_in_the_watchdog() {
    if let Err(e) = Runtime::new(Backend::Gpu).gpu() {
        println!("SKIPPED (no GPU): {e}");
        return;
    }
    both_cases_end_in_the_watchdog(true);
    println!("GPU ENDLESS LOOPS: PASS (both stopped by the watchdog)");
}

fn both_cases_end_in_the_watchdog(on_gpu: bool) {
    let exe = std::env::current_exe().expect("this test binary");
    // Both at once: each waits for its watchdog and then for the loop to stop, which it never does.
    let children: Vec<_> = (0..2u32)
        .map(|which| {
            let mut child = Command::new(&exe);
            child.args(["--exact", "forward_progress::endless_loop_in_a_child", "--ignored", "--nocapture", "--test-threads=1"]);
            child.env(CASE, which.to_string());
            if on_gpu {
                child.env(ON_GPU, "1");
            }
            let child = child.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the child test starts");
            (which, child)
        })
        .collect();
    let mut wrong = Vec::new();
    for (which, child) in children {
        let out = child.wait_with_output().expect("the child test runs");
        let text = String::from_utf8_lossy(&out.stdout);
        // libtest prints the test's name on the same line.
        let ended = text.split("ENDED: ").nth(1).and_then(|rest| rest.lines().next()).unwrap_or("no result");
        if ended != "watchdog" {
            wrong.push(format!("case {which} ended: {ended}\n{text}{}", String::from_utf8_lossy(&out.stderr)));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The PTX NVRTC makes of the program still holds both loops: each one's side effect (a
/// volatile store to `ws_loop_sink` in shared memory, which the PTX assembler must keep) lies
/// between a label and a branch back to it, in one function.
#[test]
fn nvrtc_keeps_endless_loops() {
    let is_mark = |l: &str| l.starts_with("st.volatile.shared") && l.contains("ws_loop_sink");
    let source = kernel_source::<endless::Kernel>(&KernelConfig::default());
    let ptx = wsdsl::gpu::compile::ptx_uncached("endless", &source, "compute_90").unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
    let marks: Vec<usize> = lines.iter().enumerate().filter(|(_, l)| is_mark(l)).map(|(i, _)| i).collect();
    assert!(marks.len() >= 2, "the two loops' markers in the PTX: {}", marks.len());
    let starts_function = |l: &str| l.contains(".entry ") || l.contains(".func ");
    let in_a_loop = |mark: usize| {
        let labels = lines[..mark].iter().rev().take_while(|l| !starts_function(l)).filter_map(|l| l.strip_suffix(':'));
        labels.into_iter().any(|label| {
            let target = format!("{label};");
            lines[mark..].iter().take_while(|l| !starts_function(l)).any(|l| l.contains("bra") && l.ends_with(&target))
        })
    };
    for mark in marks {
        assert!(in_a_loop(mark), "no branch back over the marker at PTX line {}:\n{}", mark + 1, lines[mark.saturating_sub(12)..(mark + 12).min(lines.len())].join("\n"));
    }
}
