//! Recursive helpers as deep as `recursion_limit` allows, on every backend: the stacks they
//! run on hold `limit` frames of the helper (the emulated GPU's fibers and the CPU backend's
//! threads grow; the GPU's per-thread stack is sized for them), and a limit whose frames a
//! backend cannot hold is an error before the run names the helper, not a crash in it.
//!
//! The runs that used to crash the process (a fiber's stack overflowing: SIGSEGV; a CPU
//! thread's: "has overflowed its stack" and an abort) run in a child process of this test
//! binary (`in_a_child`), so a crash fails its test instead of killing the harness.
//!
//! On the GPU machine: `target/release/deps/integration-* recursion:: --nocapture`.

use std::process::Command;
use wsdsl::gpu::emulate::{run_emulated, Emulation};
use wsdsl::prelude::*;
use wsdsl::{Error, KernelConfig};

/// A recursive helper whose frame holds a 4 KiB array, at the default limit (256 calls).
#[megakernel]
pub mod frames_4k {
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
    pub struct Go {
        pub seed: u32,
    }

    /// 0 + 1 + ... + n, with a 4 KiB array live across the call.
    fn deep(n: u32, seed: u32) -> u32 {
        let mut a = [0u32; 1024];
        let i = (seed % 1024) as usize;
        a[i] = n;
        let below = if n == 0 { 0 } else { deep(n - 1, seed.wrapping_mul(31).wrapping_add(7)) };
        below.wrapping_add(a[i]).wrapping_add(a[(i + 1) % 1024])
    }

    #[spawn]
    fn go(g: &Go, ctx: &mut Ctx) {
        ctx.counters.total.add(deep(ctx.params.n, g.seed) as u64);
    }
}

/// The same helper with 128 bytes of array, allowed 20,000 calls deep.
#[megakernel(recursion_limit = 20000)]
pub mod frames_128 {
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
    pub struct Go {
        pub seed: u32,
    }

    fn deep(n: u32, seed: u32) -> u32 {
        let mut a = [0u32; 32];
        let i = (seed % 32) as usize;
        a[i] = n;
        let below = if n == 0 { 0 } else { deep(n - 1, seed.wrapping_mul(31).wrapping_add(7)) };
        below.wrapping_add(a[i]).wrapping_add(a[(i + 1) % 32])
    }

    #[spawn]
    fn go(g: &Go, ctx: &mut Ctx) {
        ctx.counters.total.add(deep(ctx.params.n, g.seed) as u64);
    }
}

/// 4 KiB frames a million calls deep: 4 GB of stack for each thread, which neither the
/// emulated GPU's fibers nor a GPU's threads are given.
#[megakernel(recursion_limit = 1000000)]
pub mod frames_4k_unbounded {
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
    pub struct Go {
        pub seed: u32,
    }

    fn deep(n: u32, seed: u32) -> u32 {
        let mut a = [0u32; 1024];
        let i = (seed % 1024) as usize;
        a[i] = n;
        let below = if n == 0 { 0 } else { deep(n - 1, seed.wrapping_mul(31).wrapping_add(7)) };
        below.wrapping_add(a[i]).wrapping_add(a[(i + 1) % 1024])
    }

    #[spawn]
    fn go(g: &Go, ctx: &mut Ctx) {
        ctx.counters.total.add(deep(ctx.params.n, g.seed) as u64);
    }
}

/// 4 KiB frames (8 KiB with the copy of the array) 7,000 calls deep: 57 MB of stack for each
/// of the emulated GPU's 256 threads, under its 64 MiB a fiber.
#[megakernel(recursion_limit = 7000)]
pub mod frames_4k_deep {
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
    pub struct Go {
        pub seed: u32,
    }

    fn deep(n: u32, seed: u32) -> u32 {
        let mut a = [0u32; 1024];
        let i = (seed % 1024) as usize;
        a[i] = n;
        let below = if n == 0 { 0 } else { deep(n - 1, seed.wrapping_mul(31).wrapping_add(7)) };
        below.wrapping_add(a[i]).wrapping_add(a[(i + 1) % 1024])
    }

    #[spawn]
    fn go(g: &Go, ctx: &mut Ctx) {
        ctx.counters.total.add(deep(ctx.params.n, g.seed) as u64);
    }
}

/// Small frames, two million calls allowed: the CPU backend's threads grow their stacks for
/// them.
#[megakernel(recursion_limit = 2000000)]
pub mod small_frames {
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
    pub struct Go {
        pub unused: u32,
    }

    fn down(n: u32) -> u64 {
        if n == 0 { 0 } else { down(n - 1) + n as u64 }
    }

    #[spawn]
    fn go(_g: &Go, ctx: &mut Ctx) {
        ctx.counters.total.add(down(ctx.params.n));
    }
}

/// Small frames at a limit a GPU's per-thread stack holds.
#[megakernel(recursion_limit = 1000)]
pub mod gpu_deep {
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
    pub struct Go {
        pub unused: u32,
    }

    fn down(n: u32) -> u64 {
        if n == 0 { 0 } else { down(n - 1) + n as u64 }
    }

    #[spawn]
    fn go(_g: &Go, ctx: &mut Ctx) {
        ctx.counters.total.add(down(ctx.params.n));
    }
}

/// Frames of a KiB, at a limit a GPU's per-thread stack holds: the recursion fills most of the
/// stack it is given, which the frames of the CUBIN's `EIATTR_FRAME_SIZE` records (528 bytes
/// a call) would have left it half short of.
#[megakernel(recursion_limit = 100)]
pub mod gpu_frames_1k {
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
    pub struct Go {
        pub seed: u32,
    }

    fn deep(n: u32, seed: u32) -> u32 {
        let mut a = [0u32; 256];
        let i = (seed % 256) as usize;
        a[i] = n;
        let below = if n == 0 { 0 } else { deep(n - 1, seed.wrapping_mul(31).wrapping_add(7)) };
        below.wrapping_add(a[i]).wrapping_add(a[(i + 1) % 256])
    }

    #[spawn]
    fn go(g: &Go, ctx: &mut Ctx) {
        ctx.counters.total.add(deep(ctx.params.n, g.seed) as u64);
    }
}

/// No recursion, but a handler with a 512 KiB local array: more than a fiber's 256 KiB.
#[megakernel]
pub mod big_local {
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
    pub struct Go {
        pub seed: u32,
    }

    #[spawn]
    fn go(g: &Go, ctx: &mut Ctx) {
        let mut a = [0u64; 65536];
        let i = (g.seed as usize * 7919) % 65536;
        a[i] = ctx.params.n as u64;
        ctx.counters.total.add(a[i] + a[(i + 1) % 65536]);
    }
}

/// 0 + 1 + ... + n.
fn triangle(n: u32) -> u64 {
    n as u64 * (n as u64 + 1) / 2
}

/// The panic of a recursion one call deeper than `limit` in the `n`th helper called `name`
/// of this file.
fn too_deep(name: &str, nth: usize, limit: u32) -> String {
    let at = format!("fn {name}(n: u32");
    let line = include_str!("recursion.rs").lines().enumerate().filter(|(_, l)| l.contains(&at)).nth(nth).expect("the helper").0 + 1;
    format!("tests/integration/recursion.rs:{line}: recursion in `{name}` deeper than {limit} calls (raise it with #[megakernel(recursion_limit = N)])")
}

/// A run's total, or its error's text.
fn outcome<C>(result: Result<C, Error>, total: impl Fn(&C) -> u64) -> String {
    match result {
        Ok(c) => format!("total {}", total(&c)),
        Err(Error::TaskPanicked { message }) => format!("panic {message}"),
        Err(Error::DeviceFault { site }) => format!("panic {site}"),
        Err(e) => format!("error {e}"),
    }
}

fn emulation() -> Emulation {
    Emulation { watchdog: std::time::Duration::from_secs(120), ..Emulation::default() }
}

macro_rules! emulated {
    ($m:ident, $n:expr) => {
        outcome(
            run_emulated::<$m::Kernel>(&$m::Params { n: $n }, &(), &[$m::Go { seed: 5 }.into()], &KernelConfig::default(), &emulation()),
            |(c, _, _)| c.total.get(),
        )
    };
}

/// What the case `case` printed in a child process of this test binary, and how it ended.
fn in_a_child(case: &str) -> String {
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--exact", "recursion::child", "--nocapture", "--test-threads=1"])
        .env("WSDSL_RECURSION_CHILD", case)
        .output()
        .expect("the test binary runs");
    let printed = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    format!("{printed}\n[the child process ended: {}]", out.status)
}

/// What follows `OUTCOME: ` on each line of a child's output (the first follows the test
/// harness's `test recursion::child ... `).
fn outcomes(printed: &str) -> Vec<String> {
    printed.lines().filter_map(|l| l.split_once("OUTCOME: ")).map(|(_, o)| o.to_string()).collect()
}

/// In a child process (`in_a_child`): runs the case `WSDSL_RECURSION_CHILD` names, printing
/// each outcome.
#[test]
fn child() {
    let Some(case) = std::env::var_os("WSDSL_RECURSION_CHILD") else { return };
    let say = |s: String| println!("OUTCOME: {s}");
    match case.to_str().unwrap_or_default() {
        "emulated 4 KiB frames" => {
            for n in [50, 255, 256] {
                say(emulated!(frames_4k, n));
            }
        }
        "emulated 128-byte frames" => {
            for n in [1000, 19999, 20000] {
                say(emulated!(frames_128, n));
            }
        }
        "emulated 4 KiB frames unbounded" => say(emulated!(frames_4k_unbounded, 10)),
        "emulated big local array" => say(emulated!(big_local, 10)),
        "emulated 4 KiB frames 7000 deep" => {
            for n in [6999, 7000] {
                say(emulated!(frames_4k_deep, n));
            }
        }
        "cpu a million deep" => {
            let rt = Runtime::new(Backend::Cpu).cpu_threads(2);
            for n in [1_000_000, 1_999_999, 2_000_000] {
                say(outcome(rt.run::<small_frames::Kernel>(small_frames::Params { n }, [small_frames::Go { unused: 0 }]), |o| o.counters.total.get()));
            }
        }
        other => panic!("no case {other:?}"),
    }
}

/// Before: the child died of SIGSEGV without a word at 50 calls (a 4 KiB frame each) of the
/// 256 allowed: the fibers' 256 KiB stacks were fixed, whatever the recursion.
#[test]
fn four_kib_frames_recurse_to_the_default_limit_on_the_emulated_gpu() {
    let printed = in_a_child("emulated 4 KiB frames");
    let want = vec![format!("total {}", triangle(50)), format!("total {}", triangle(255)), format!("panic {}", too_deep("deep", 0, 256))];
    assert_eq!(outcomes(&printed), want, "{printed}");
}

/// Before: SIGSEGV at 1,000 calls of 128-byte frames, with the limit raised to 20,000.
#[test]
fn small_frames_recurse_to_a_raised_limit_on_the_emulated_gpu() {
    let printed = in_a_child("emulated 128-byte frames");
    let want = vec![format!("total {}", triangle(1000)), format!("total {}", triangle(19999)), format!("panic {}", too_deep("deep", 1, 20000))];
    assert_eq!(outcomes(&printed), want, "{printed}");
}

/// Before: the run started (and any recursion past the fibers' 256 KiB crashed it). Now the
/// limit's frames are weighed against the largest fiber stack before the launch.
#[test]
fn a_limit_the_fibers_cannot_hold_is_refused_naming_the_helper_on_the_emulated_gpu() {
    let printed = in_a_child("emulated 4 KiB frames unbounded");
    let got = outcomes(&printed);
    assert_eq!(got.len(), 1, "{printed}");
    let message = &got[0];
    for part in ["error invalid configuration", "`deep`", "recursion_limit = 1000000", "bytes a call", "lower #[megakernel(recursion_limit = N)]"] {
        assert!(message.contains(part), "{part:?} missing from: {message}");
    }
}

/// A fiber that overflows all the same (here a handler's local array, which no recursion
/// accounts for) faults in the guard below its stack, and the process says which program's
/// thread overflowed before it dies. Before: a bare SIGSEGV.
#[test]
fn an_overflow_the_sizing_misses_is_reported_naming_the_program() {
    let printed = in_a_child("emulated big local array");
    assert!(outcomes(&printed).is_empty(), "{printed}");
    assert!(printed.contains("wsdsl: an emulated GPU thread of `big_local` overflowed its stack of 256 KiB"), "{printed}");
    assert!(printed.contains("SIGSEGV"), "{printed}");
}

/// The fibers' stacks are address space: 14 GB of it for 7,000 calls of 8 KiB on each of
/// 256 fibers, of which the one recursing touches 57 MB. With less address space than that
/// (`ulimit -v`) the launch is an error saying so, not an abort.
#[test]
fn deep_stacks_run_and_stacks_that_cannot_be_mapped_are_an_error_on_the_emulated_gpu() {
    let printed = in_a_child("emulated 4 KiB frames 7000 deep");
    assert_eq!(outcomes(&printed), vec![format!("total {}", triangle(6999)), format!("panic {}", too_deep("deep", 3, 7000))], "{printed}");
    let out = Command::new("sh")
        .args(["-c", "ulimit -v 4000000 && exec \"$0\" --exact recursion::child --nocapture --test-threads=1"])
        .arg(std::env::current_exe().expect("the test binary"))
        .env("WSDSL_RECURSION_CHILD", "emulated 4 KiB frames 7000 deep")
        .output()
        .expect("sh runs");
    let printed = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let got = outcomes(&printed);
    assert_eq!(got.len(), 2, "{printed}");
    assert!(got.iter().all(|o| o.starts_with("error invalid configuration: the stacks of the 256 emulated GPU threads of `frames_4k_deep`")), "{printed}");
}

/// Before: the child aborted with "thread '...' has overflowed its stack" at a million calls
/// (its thread's 64 MiB stack was fixed).
#[test]
fn a_million_calls_deep_run_on_the_cpu_backend() {
    let printed = in_a_child("cpu a million deep");
    let want = vec![format!("total {}", triangle(1_000_000)), format!("total {}", triangle(1_999_999)), format!("panic {}", too_deep("down", 0, 2_000_000))];
    assert_eq!(outcomes(&printed), want, "{printed}");
}

/// The CPU backend runs what the emulated GPU refuses (its stacks grow as deep as memory
/// allows), and agrees with it where both run.
#[test]
fn the_cpu_backend_gives_the_same_answers() {
    let rt = Runtime::new(Backend::Cpu).cpu_threads(2);
    let run4k = |n| outcome(rt.run::<frames_4k::Kernel>(frames_4k::Params { n }, [frames_4k::Go { seed: 5 }]), |o| o.counters.total.get());
    assert_eq!([run4k(50), run4k(255)], [format!("total {}", triangle(50)), format!("total {}", triangle(255))]);
    assert_eq!(run4k(256), format!("panic {}", too_deep("deep", 0, 256)));
    let unbounded = outcome(rt.run::<frames_4k_unbounded::Kernel>(frames_4k_unbounded::Params { n: 3000 }, [frames_4k_unbounded::Go { seed: 5 }]), |o| o.counters.total.get());
    assert_eq!(unbounded, format!("total {}", triangle(3000)));
}

/// On a GPU: small frames recurse to their limit (1,000 calls), one call deeper panics, and
/// helpers whose `limit` frames the GPU's per-thread stack cannot hold are refused before
/// the launch, naming the helper, the depth and the frame. Without a GPU it prints
/// `SKIPPED (no GPU)`.
#[test]
fn recursion_to_the_limit_and_refused_stacks_on_the_gpu() {
    let rt = Runtime::new(Backend::Gpu);
    if let Err(e) = rt.gpu() {
        println!("SKIPPED (no GPU): {e}");
        return;
    }
    let deep = |n| outcome(rt.run::<gpu_deep::Kernel>(gpu_deep::Params { n }, [gpu_deep::Go { unused: 0 }]), |o| o.counters.total.get());
    assert_eq!(deep(999), format!("total {}", triangle(999)));
    assert_eq!(deep(1000), format!("panic {}", too_deep("down", 1, 1000)));
    let kib = |n| outcome(rt.run::<gpu_frames_1k::Kernel>(gpu_frames_1k::Params { n }, [gpu_frames_1k::Go { seed: 5 }]), |o| o.counters.total.get());
    assert_eq!(kib(99), format!("total {}", triangle(99)));
    assert_eq!(kib(100), format!("panic {}", too_deep("deep", 4, 100)));
    // A recursive example, its stack sized the same way.
    let (queens, _) = wsdsl_examples::nqueens::cutoff::solve(&rt, 10, 2).expect("N-Queens with recursion runs");
    assert_eq!(queens, 724);
    // 256 frames of 4 KiB: a MiB a thread, past what a GPU gives a thread.
    let refused = outcome(rt.run::<frames_4k::Kernel>(frames_4k::Params { n: 10 }, [frames_4k::Go { seed: 5 }]), |o| o.counters.total.get());
    println!("{refused}");
    for part in ["error invalid configuration", "`deep`", "recursion_limit = 256", "bytes a call", "lower #[megakernel(recursion_limit = N)]"] {
        assert!(refused.contains(part), "{part:?} missing from: {refused}");
    }
    let refused = outcome(rt.run::<frames_128::Kernel>(frames_128::Params { n: 10 }, [frames_128::Go { seed: 5 }]), |o| o.counters.total.get());
    println!("{refused}");
    assert!(refused.contains("`deep`") && refused.contains("recursion_limit = 20000"), "{refused}");
    // The runtime still runs programs after a refusal.
    assert_eq!(deep(10), format!("total {}", triangle(10)));
    println!("GPU RECURSION LIMITS: PASS");
}

/// Without a GPU: ptxas describes the frame of each recursive helper, under its CUDA name,
/// which the GPU's per-thread stack is sized by (`wsdsl-runtime/src/gpu/device/stack.rs`):
/// 4 KiB and more for the helper holding a 4 KiB array (the CUBIN's `EIATTR_FRAME_SIZE` said
/// 528 bytes, the kernel's frame, for both helpers).
#[test]
fn ptxas_records_the_frames_of_the_recursive_helpers() {
    let cases = [
        ("gpu_deep", wsdsl::gpu::kernel_source::<gpu_deep::Kernel>(&KernelConfig::default()), "6f_downE", 0..1024),
        ("frames_4k", wsdsl::gpu::kernel_source::<frames_4k::Kernel>(&KernelConfig::default()), "6f_deepE", 4096..8192),
    ];
    for (name, source, helper, range) in cases {
        let cubin = wsdsl::gpu::compile::compile_uncached(name, &source, "sm_90").unwrap_or_else(|e| panic!("{e}"));
        let frames = wsdsl::gpu::elf::function_frames(&cubin).expect("frames in the CUBIN");
        println!("{name}: {frames:?}");
        let frame = frames.iter().find(|(symbol, _)| symbol.contains(helper)).map(|f| f.1);
        assert!(frame.is_some_and(|f| range.contains(&f)), "{name}: {frames:?}");
    }
}
