//! Panics in handlers and helpers (`panic!`, `assert!`, `assert_eq!`, `assert_ne!`,
//! `debug_assert!`, `unreachable!`, `unwrap()`, `expect()`, and what Rust panics on by itself:
//! an index out of bounds, a division by zero, and a recursion deeper than the program's
//! `recursion_limit`): each stops the run and comes back as one
//! error, `file:line: message`, with the same text on the CPU backend (Rust's own panic), on
//! the scheduler templates compiled for the host (`wsdsl::gpu::emulate`) and on the GPU (which
//! skips with a visible message without one). A run after a panic on the same `Runtime` works.
//!
//! On the GPU machine: `target/release/deps/panics-* --nocapture`.

use std::time::Duration;
use wsdsl::gpu::emulate::{run_emulated, Emulation};
use wsdsl::prelude::*;
use wsdsl::{Error, KernelConfig};

#[megakernel]
pub mod panicky {
    use wsdsl::prelude::*;

    #[buffers]
    pub struct Bufs {
        pub table: ReadOnly<u32>,
        pub out: Buffer<u64>,
    }

    #[task]
    pub struct Case {
        pub which: u32,
        pub x: i64,
    }

    pub enum Mode {
        Fast,
        Slow = 3,
    }

    fn mode(x: i64) -> Mode {
        if x > 0 { Mode::Slow } else { Mode::Fast }
    }

    /// Panics on its sixth call; a caller that went on after that would loop for good.
    fn step(i: u32) -> u32 {
        assert!(i < 5, "step {} of at most {}", i, 5);
        i + 1
    }

    fn total(s: &[u64]) -> u64 {
        let mut t = 0;
        for i in 0..s.len() {
            t += s[i];
        }
        t
    }

    fn small(r: &i64) {
        assert!(*r < 3, "r = {}", r);
    }

    /// Recurses `n` calls deep: past the default limit of 256 it panics at its 257th call.
    fn depth(n: u32) -> u32 {
        if n == 0 { 0 } else { depth(n - 1) + 1 }
    }

    #[spawn]
    fn case(c: &Case, ctx: &mut Ctx) {
        let x = c.x;
        match c.which {
            0 => panic!("plain"),
            1 => panic!("x = {} and {x:?}, half {}", x, x as f64 / 2.0),
            2 => assert!(x < 3),
            3 => assert!(x < 3, "x was {}", x),
            4 => assert_eq!(x, 7),
            5 => assert_ne!(x as f32 / 2.0, 2.5, "floats {}", x > 0),
            6 => ctx.buffers.out.set(0, (x as u32).checked_add(u32::MAX).unwrap() as u64),
            7 => ctx.buffers.out.set(0, (x as u8).checked_mul(200).expect("x * 200 fits in a u8") as u64),
            8 => unreachable!("which = {}", c.which),
            9 => {
                let mut i = 0u32;
                loop {
                    i = step(i);
                }
            }
            10 => assert_eq!(mode(x), Mode::Fast),
            11 => {
                let t = [1u32, 2, 3];
                ctx.buffers.out.set(0, t[x as usize] as u64);
            }
            12 => ctx.buffers.out.set(0, ctx.buffers.table.get(x as usize) as u64),
            13 => ctx.buffers.out.set(0, (100 / (x - 5)) as u64),
            14 => ctx.buffers.out.set(0, (i64::MIN / (4 - x)) as u64),
            15 => debug_assert!(x < 0, "debug {}", x),
            16 => ctx.buffers.out.set(0, total(&[1, 2, 3][x as usize..])),
            17 => ctx.buffers.out.set(0, total(&[1, 2, 3][1..x as usize])),
            18 => ctx.buffers.out.set(0, total(&[1, 2, 3][x as usize - 3..1])),
            19 => small(&x),
            20 => ctx.buffers.out.set(0, depth(x as u32 * 100) as u64),
            _ => ctx.buffers.out.set(0, 42 + depth(x as u32 * 50) as u64 - 250),
        }
    }
}

/// Every case (with x = 5), and the message it panics with after `file:line: `; `line` is
/// that of the first line of this file containing `at`.
fn cases() -> Vec<(u32, &'static str, String)> {
    let mut v = vec![
        (0, "panic!(\"plain\")", "plain".to_string()),
        (1, "panic!(\"x = {}", "x = 5 and 5, half 2.5".into()),
        (2, "2 => assert!(x < 3)", "assertion failed: x < 3".into()),
        (3, "assert!(x < 3, \"x was", "x was 5".into()),
        (4, "assert_eq!(x, 7)", "assertion `left == right` failed\n  left: 5\n right: 7".into()),
        (5, "assert_ne!(x as f32", "assertion `left != right` failed: floats true\n  left: 2.5\n right: 2.5".into()),
        (6, "checked_add(u32::MAX).unwrap()", "called `Option::unwrap()` on a `None` value".into()),
        (7, ".expect(\"x * 200", "x * 200 fits in a u8".into()),
        (8, "unreachable!(\"which", "internal error: entered unreachable code: which = 8".into()),
        (9, "assert!(i < 5", "step 5 of at most 5".into()),
        (10, "assert_eq!(mode(x)", "assertion `left == right` failed\n  left: Slow\n right: Fast".into()),
        (11, "t[x as usize]", "index out of bounds: the len is 3 but the index is 5".into()),
        (12, "table.get(x as usize)", "index out of bounds: the len is 3 but the index is 5".into()),
        (13, "(100 / (x - 5))", "attempt to divide by zero".into()),
        (14, "(i64::MIN / (4 - x))", "attempt to divide with overflow".into()),
        (16, "total(&[1, 2, 3][x as usize..])", "range start index 5 out of range for slice of length 3".into()),
        (17, "total(&[1, 2, 3][1..x as usize])", "range end index 5 out of range for slice of length 3".into()),
        (18, "total(&[1, 2, 3][x as usize - 3..1])", "slice index starts at 2 but ends at 1".into()),
        (19, "assert!(*r < 3", "r = 5".into()),
        (20, "fn depth(n: u32)", "recursion in `depth` deeper than 256 calls (raise it with #[megakernel(recursion_limit = N)])".into()),
    ];
    if cfg!(debug_assertions) {
        v.push((15, "debug_assert!(x < 0", "debug 5".into()));
    }
    let source = include_str!("panics.rs");
    v.into_iter()
        .map(|(which, at, message)| {
            let line = source.lines().position(|l| l.contains(at)).expect("the case's line") + 1;
            (which, at, format!("tests/integration/panics.rs:{line}: {message}"))
        })
        .collect()
}

/// The case that panics nowhere (and `debug_assert!` without debug assertions); it recurses
/// 251 calls deep, within the limit.
const FINE: u32 = 21;

fn buffers() -> panicky::Bufs {
    panicky::Bufs { table: ReadOnly::from_vec(vec![1, 2, 3]), out: Buffer::zeroed(1) }
}

fn root(which: u32) -> panicky::Case {
    panicky::Case { which, x: 5 }
}

/// Panics in tasks that wait for their children: on the CPU backend these handlers' panics
/// unwind through the waiting tasks and rayon's joins to the run's end (`cpu/tree.rs`), so
/// this checks that path: the error names the line, the run stops, the runtime runs again.
#[megakernel]
pub mod joined {
    #[params]
    pub struct Params {
        /// The `n` whose spawn handler fails (none if above the root's).
        pub bad_spawn: u32,
        /// The sum at which a complete handler fails (none if 0).
        pub bad_sum: u64,
    }

    #[task(value = u64)]
    pub struct Call {
        pub n: u32,
    }

    #[spawn]
    fn call(c: &Call, ctx: &mut Ctx) -> u64 {
        assert!(c.n != ctx.params.bad_spawn, "spawn handler reached n = {}", c.n);
        if c.n < 2 {
            return c.n as u64;
        }
        ctx.spawn(Call { n: c.n - 1 });
        ctx.spawn(Call { n: c.n - 2 });
        0
    }

    #[complete(max_children = 2)]
    fn add(_c: &Call, children: &[u64], ctx: &mut Ctx) -> u64 {
        let sum = children[0] + children[1];
        assert_ne!(sum, ctx.params.bad_sum, "complete handler");
        sum
    }
}

#[test]
fn panics_in_tasks_that_wait_unwind_to_one_error_and_the_runtime_runs_again() {
    let rt = Runtime::new(Backend::Cpu).cpu_threads(4);
    let run = |bad_spawn, bad_sum| {
        rt.run_with::<joined::Kernel>(joined::Params { bad_spawn, bad_sum }, &(), [joined::Call { n: 24 }]).map(|out| out.values[0])
    };
    let spawn_line = line_of("assert!(c.n != ctx.params.bad_spawn");
    let complete_line = line_of("assert_ne!(sum, ctx.params.bad_sum");
    // n = 3 occurs thousands of times, on every thread.
    let got = panic_text(run(3, 0).map(|_| ()));
    assert_eq!(got, format!("tests/integration/panics.rs:{spawn_line}: spawn handler reached n = 3"));
    let got = panic_text(run(99, 6765).map(|_| ()));
    assert_eq!(got, format!("tests/integration/panics.rs:{complete_line}: assertion `left != right` failed: complete handler\n  left: 6765\n right: 6765"));
    assert_eq!(run(99, 0).expect("a run after the panics"), 46368, "fib(24)");
}

/// The line of this file that holds `text` (1-based).
fn line_of(text: &str) -> usize {
    include_str!("panics.rs").lines().position(|l| l.contains(text)).expect("the line is in this file") + 1
}

/// The error's text after the backend's prefix, or why there is none.
fn panic_text(result: Result<(), Error>) -> String {
    match result {
        Err(Error::TaskPanicked { message }) => message,
        Err(Error::DeviceFault { site }) => site,
        Err(other) => format!("another error: {other}"),
        Ok(()) => "no error".into(),
    }
}

#[test]
fn panics_are_errors_naming_the_rust_line_on_the_cpu_backend() {
    let rt = Runtime::new(Backend::Cpu).cpu_threads(2);
    let mut bad = Vec::new();
    for (which, at, want) in cases() {
        let got = panic_text(rt.run_with::<panicky::Kernel>((), &buffers(), [root(which)]).map(|_| ()));
        if got != want {
            bad.push(format!("case {which} ({at}):\n  want {want:?}\n  got  {got:?}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn a_failed_assert_is_an_error_and_the_runtime_runs_again() {
    let rt = Runtime::new(Backend::Cpu).cpu_threads(4);
    // Many tasks fail at once: the run still comes back with one error.
    let roots: Vec<panicky::Case> = (0..1000).map(|_| root(3)).collect();
    let err = rt.run_with::<panicky::Kernel>((), &buffers(), roots).map(|_| ()).expect_err("the assertion fails");
    let text = err.to_string();
    assert!(text.starts_with("a handler panicked on the CPU backend: tests/integration/panics.rs:") && text.ends_with(": x was 5"), "{text}");
    let bufs = buffers();
    rt.run_with::<panicky::Kernel>((), &bufs, [root(FINE)]).expect("a run after the panic");
    assert_eq!(bufs.out.get(0), 42);
}

#[test]
fn the_host_compiled_kernel_reports_what_the_cpu_backend_does() {
    // Case 9 loops for good if a panic in a helper did not end its caller: the watchdog says so.
    let emu = Emulation { watchdog: Duration::from_secs(60), ..Emulation::default() };
    let cpu = Runtime::new(Backend::Cpu).cpu_threads(2);
    let mut bad = Vec::new();
    for (which, at, want) in cases() {
        let emulated = panic_text(run_emulated::<panicky::Kernel>(&(), &buffers(), &[root(which).into()], &KernelConfig::default(), &emu).map(|_| ()));
        let native = panic_text(cpu.run_with::<panicky::Kernel>((), &buffers(), [root(which)]).map(|_| ()));
        if emulated != want || native != want {
            bad.push(format!("case {which} ({at}):\n  want     {want:?}\n  emulated {emulated:?}\n  cpu      {native:?}"));
        }
    }
    let bufs = buffers();
    let fine = run_emulated::<panicky::Kernel>(&(), &bufs, &[root(FINE).into()], &KernelConfig::default(), &emu);
    assert!(fine.is_ok() && bufs.out.get(0) == 42, "{:?}", fine.err());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn panics_on_the_gpu_read_as_on_the_cpu_backend() {
    let rt = Runtime::new(Backend::Gpu);
    if let Err(e) = rt.gpu() {
        println!("SKIPPED (no GPU): {e}");
        return;
    }
    let mut bad = Vec::new();
    for (which, at, want) in cases() {
        let got = panic_text(rt.run_with::<panicky::Kernel>((), &buffers(), [root(which)]).map(|_| ()));
        if got != want {
            bad.push(format!("case {which} ({at}):\n  want {want:?}\n  got  {got:?}"));
        }
    }
    let bufs = buffers();
    rt.run_with::<panicky::Kernel>((), &bufs, [root(FINE)]).expect("a run after the panics");
    assert_eq!(bufs.out.get(0), 42);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    println!("GPU PANICS: PASS ({} cases)", cases().len());
}

#[test]
fn panicking_program_compiles_with_nvrtc() {
    match wsdsl::gpu::compile_check::<panicky::Kernel>("sm_90") {
        Ok(bytes) => assert!(bytes > 1000),
        Err(e) => panic!("{e}"),
    }
}

/// A method calling itself and two helpers calling each other, limited to 10 active calls
/// per cycle: the 11th call panics, in whichever function of the cycle it enters.
#[megakernel(recursion_limit = 10)]
pub mod recursive {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        pub n: u32,
    }

    #[counters]
    pub struct Counters {
        pub total: Sum<u64>,
    }

    #[task]
    pub struct Walk {
        pub mutual: bool,
    }

    pub struct Walker {
        pub steps: u32,
    }

    impl Walker {
        fn down(&mut self, n: u32) -> u32 {
            if n == 0 { self.steps } else { self.steps += 1; self.down(n - 1) }
        }
    }

    fn even(n: u32) -> bool {
        if n == 0 { true } else { odd(n - 1) }
    }

    fn odd(n: u32) -> bool {
        if n == 0 { false } else { even(n - 1) }
    }

    #[spawn]
    fn walk(w: &Walk, ctx: &mut Ctx) {
        let n = ctx.params.n;
        let v = if w.mutual { even(n) as u64 + 100 } else { Walker { steps: 0 }.down(n) as u64 };
        ctx.counters.total.add(v);
    }
}

/// For `n` (method, then mutual): the total, or the panic's text; `run` runs the program.
fn recursion_outcomes(run: impl Fn(u32, bool) -> Result<u64, Error>) -> Vec<String> {
    let mut out = Vec::new();
    for n in [9, 10] {
        for mutual in [false, true] {
            out.push(match run(n, mutual) {
                Ok(total) => total.to_string(),
                Err(e) => panic_text(Err(e)),
            });
        }
    }
    out
}

fn recursion_wanted() -> Vec<String> {
    let too_deep = |name: &str, at: &str| {
        format!("tests/integration/panics.rs:{}: recursion in `{name}` deeper than 10 calls (raise it with #[megakernel(recursion_limit = N)])", line_of(at))
    };
    // even(9) is 10 calls (false); even(10) enters `even` an 11th time.
    vec!["9".into(), "100".into(), too_deep("Walker::down", "fn down(&mut self"), too_deep("even", "fn even(n: u32)")]
}

#[test]
fn recursion_deeper_than_the_limit_panics_alike_on_the_cpu_backend_and_the_host_compiled_kernel() {
    let cpu = Runtime::new(Backend::Cpu).cpu_threads(2);
    let native = recursion_outcomes(|n, mutual| {
        cpu.run_with::<recursive::Kernel>(recursive::Params { n }, &(), [recursive::Walk { mutual }]).map(|o| o.counters.total.get())
    });
    assert_eq!(native, recursion_wanted(), "CPU backend");
    let emu = Emulation { watchdog: Duration::from_secs(60), ..Emulation::default() };
    let emulated = recursion_outcomes(|n, mutual| {
        run_emulated::<recursive::Kernel>(&recursive::Params { n }, &(), &[recursive::Walk { mutual }.into()], &KernelConfig::default(), &emu)
            .map(|(c, _, _)| c.total.get())
    });
    assert_eq!(emulated, recursion_wanted(), "host-compiled templates");
}

#[test]
fn recursion_deeper_than_the_limit_panics_alike_on_the_gpu() {
    let rt = Runtime::new(Backend::Gpu);
    if let Err(e) = rt.gpu() {
        println!("SKIPPED (no GPU): {e}");
        return;
    }
    let got = recursion_outcomes(|n, mutual| {
        rt.run_with::<recursive::Kernel>(recursive::Params { n }, &(), [recursive::Walk { mutual }]).map(|o| o.counters.total.get())
    });
    assert_eq!(got, recursion_wanted());
    println!("GPU RECURSION: PASS");
}
