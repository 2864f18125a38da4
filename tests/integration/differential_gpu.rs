//! Device buffers end to end (the inputs as a `ReadOnly` array), the NVRTC stage pointing back at Rust lines, panics
//! coming back as the same error from every backend (more of them in `tests/integration/panics.rs`), and the
//! differential cases as a megakernel: each `Case` task computes every construct on its
//! inputs and stores the results in a buffer; the same functions run natively here and must
//! agree. CPU backend always; on a GPU (`WSDSL_BACKEND=gpu` or auto with a GPU) too, else the
//! GPU part prints `SKIPPED (no GPU)`.
//!
//! On the GPU machine: `target/release/deps/differential_gpu-* --nocapture` (built by
//! `cargo test --release --no-run`).

use wsdsl::gpu::emulate::{run_emulated, Emulation};
use wsdsl::prelude::*;
use wsdsl::KernelConfig;

#[megakernel]
pub mod diffk {
    use wsdsl::prelude::*;

    #[buffers]
    pub struct Bufs {
        pub inputs: ReadOnly<u64>,
        pub out: Buffer<u64>,
        pub hist: Buffer<u32>,
        pub fmin: Buffer<f64>,
        pub imax: Buffer<i64>,
    }

    #[task]
    pub struct Case {
        pub i: u32,
    }

    pub const OUTS: usize = 16;

    /// A value type as a Rust programmer writes one: the derive names traits the macro
    /// derives anyway, so it is dropped.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Span2 {
        pub lo: u64,
        pub hi: u64,
    }

    pub enum Kind {
        Small,
        Big = 7,
        Huge,
    }

    pub fn kind(x: u64) -> Kind {
        match x {
            0..=255 => Kind::Small,
            256..=0xffff_ffff => Kind::Big,
            _ => Kind::Huge,
        }
    }

    /// SplitMix64: the next state and its mixed output.
    pub fn splitmix64(state: u64) -> (u64, u64) {
        let s = state.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        (s, z ^ (z >> 31))
    }

    /// xxHash64-style avalanche of a word folded with a seed, with 32-bit lanes.
    pub fn xxmix(x: u64, seed: u64) -> u64 {
        let mut h = seed.wrapping_add(0x27D4EB2F165667C5).wrapping_add(8);
        let k = x.wrapping_mul(0xC2B2AE3D27D4EB4F).rotate_left(31).wrapping_mul(0x9E3779B185EBCA87);
        h ^= k;
        h = h.rotate_left(27).wrapping_mul(0x9E3779B185EBCA87).wrapping_add(0x85EBCA77C2B2AE63);
        h ^= h >> 33;
        h = h.wrapping_mul(0xC2B2AE3D27D4EB4F);
        h ^= h >> 29;
        h = h.wrapping_mul(0x165667B19E3779F9);
        h ^ (h >> 32)
    }

    /// The larger of two numbers of any type: one C function per type used (`larger__u64`, ...).
    pub fn larger<T: Copy + PartialOrd>(a: T, b: T) -> T {
        if a > b { a } else { b }
    }

    /// `f` applied to each byte of `x`, folded: inlined at each call with its closure.
    pub fn lanes<F: Fn(u64) -> u64>(x: u64, f: F) -> u64 {
        let mut h = 0u64;
        for i in 0..8u32 {
            h = h.rotate_left(8) ^ f((x >> (8 * i)) & 0xff);
        }
        h
    }

    pub fn compute(x: u64, y: u64) -> [u64; OUTS] {
        let a = x as i32;
        let b = y as i32;
        let f = (x as i64) as f64 / 1024.0;
        let g = (y as u16) as f32 - 300.5;
        let mut r = [0u64; OUTS];
        r[0] = a.wrapping_mul(b) as u64 ^ ((a >> (y as u32)) as u64) ^ ((x as u8) << (y as u32 & 15)) as u64;
        r[1] = match a.checked_div(b) { Some(q) => q as u64, None => 77 } ^ (a.checked_rem(b).unwrap_or(5) as u64) << 32;
        r[2] = a.saturating_mul(b) as u64 ^ (x as u16).saturating_add(y as u16) as u64 ^ (a.pow(y as u32 & 7) as u64) << 1;
        r[3] = f as u8 as u64 | (f as i64 as u64) << 8 ^ (g as u32 as u64) << 20 ^ (f64::NAN as u16 as u64);
        r[4] = (f.floor() * 3.0 + f.abs().sqrt() - f.ceil()).to_bits() ^ (g.trunc().max(g * 2.0)).to_bits() as u64;
        r[5] = kind(x) as u64 + (kind(y) as u64) * 100;
        let (s, z) = splitmix64(x ^ y);
        r[6] = s ^ z;
        r[7] = xxmix(x, y);
        let mut acc = 0u64;
        'o: for i in (0..(x % 17) as u32).rev().step_by(((y % 3) + 1) as usize) {
            let mut j = 0u32;
            let v = loop {
                j += 1;
                if j > i { continue 'o; }
                if (i + j) % 5 == 4 { break j * 3; }
            };
            acc = acc.wrapping_mul(31).wrapping_add(v as u64);
            if acc > 1_000_000_000 { break 'o; }
        }
        r[8] = acc;
        r[9] = (x as u32).swap_bytes() as u64 ^ (y as u32).leading_zeros() as u64 ^ (x.trailing_zeros() as u64) << 8 ^ (x.count_ones() as u64) << 16;
        r[10] = (x as i8).wrapping_neg() as u64 ^ (x as i16 as i64).abs() as u64 ^ (-(y as i64) % 7) as u64;
        r[11] = (x as f32).mul_add(1.5, -(y as f32)).to_bits() as u64;
        // Iterator chains, closures and generic helpers.
        let bytes = [x as u8, (x >> 8) as u8, (x >> 16) as u8, (x >> 24) as u8, y as u8, (y >> 8) as u8];
        let k = (y % 5) as usize;
        let mix = |v: u64| v.wrapping_mul(0x9E3779B97F4A7C15) ^ y;
        r[12] = bytes.iter().map(|&b| b as u64).filter(|b| b % 3 != 0).take(k + 2).sum::<u64>()
            ^ (bytes.iter().enumerate().max_by_key(|&(_, b)| *b).unwrap().0 as u64) << 32
            ^ (1..(x % 40) as u32 + 1).step_by(k + 1).map(|i| i as u64).product::<u64>() << 40;
        r[13] = match bytes.iter().position(|&b| b == 0) { Some(p) => p as u64, None => 99 }
            | bytes.iter().rev().zip(0..4u64).fold(0u64, |a, (&b, i)| a * 31 + b as u64 * i) << 8
            | (bytes.iter().any(|b| *b > 200) as u64) << 60
            | (bytes.iter().all(|b| *b != 7) as u64) << 61;
        r[14] = lanes(x, mix) ^ larger(x, y) ^ (larger(a, b) as u64) << 1 ^ larger(f, -f).to_bits() ^ larger::<u8>(x as u8, y as u8) as u64;
        let mut shifted = bytes;
        for (i, v) in shifted.iter_mut().enumerate() {
            *v = v.wrapping_add(i as u8);
        }
        r[15] = shifted.iter().zip(&bytes).filter(|(p, q)| p > q).count() as u64
            ^ (shifted.iter().min().copied().unwrap_or(0) as u64) << 8
            ^ (*shifted.iter().max().unwrap() as u64) << 16
            ^ (0..=(y % 9)).rev().map(|v| mix(v)).min().unwrap_or(0) << 24;
        // Destructuring assignment, `T::from` and an iterator through a reference.
        let (mut p, mut q) = (x as u32, y as u32);
        (p, q) = (q, p.wrapping_add(u32::from(x as u8)));
        let view = &bytes;
        r[15] ^= view.iter().map(|&b| u64::from(b)).sum::<u64>() << 32 ^ u64::from(p) ^ u64::from(q) << 1 ^ f64::from(x as u16).to_bits();
        // The standard library's helpers a newcomer reaches for.
        let mut span = Span2 { lo: std::cmp::min(x, y), hi: core::cmp::max(x, y) };
        std::mem::swap(&mut span.lo, &mut span.hi);
        let old = std::mem::replace(&mut span.lo, x ^ y);
        r[14] ^= span.lo.rotate_left(3) ^ span.hi.rotate_left(7) ^ old.rotate_left(11) ^ (span == Span2 { lo: x ^ y, hi: x.min(y) }) as u64;
        // Float methods that are exact on every backend, Rust's constants, integer sign and clamp.
        let exact = f.signum() + f.to_radians() * 3.0 + f.to_degrees() + (f + 0.5).recip() + f.fract() + f.copysign(-g as f64)
            + std::f64::consts::PI * (f.is_finite() as u8 as f64) + (g.to_radians() + g.to_degrees() + g.signum() + std::f32::consts::E) as f64;
        r[11] ^= exact.to_bits() ^ (a.clamp(-5000, 5000) as u64) << 40 ^ (a.signum() as u64) << 3;
        // Euclidean division, float clamp and the integer logarithm (divisors neither 0 nor -1).
        let d = ((b % 1000) | 1) * 3;
        r[10] ^= (a.rem_euclid(d) as u64) << 7 ^ (a.div_euclid(d) as u64).rotate_left(21) ^ (x | 1).ilog2() as u64 ^ ((y as u32) % 1000 + 1).div_euclid(7) as u64;
        r[10] ^= (x as u32).leading_ones() as u64 ^ (y as u16).trailing_ones() as u64 * 3 ^ ((x as u32) % 100000).div_ceil((y as u32) % 97 + 1) as u64 * 5 ^ (y >> 40).next_power_of_two() << 7;
        r[12] ^= u64::max(x, y) ^ f64::sqrt(f.abs()).to_bits().rotate_left(9) ^ u32::pow(a as u32 % 10, 3) as u64;
        r[13] ^= (f.rem_euclid(g as f64 + 0.25).to_bits() ^ f.div_euclid(-3.5).to_bits() ^ f.clamp(-2.0, 1e6).to_bits() ^ g.clamp(-1.0, 1.0).to_bits() as u64).rotate_left(5);
        r
    }

    #[spawn]
    fn case(c: &Case, ctx: &mut Ctx) {
        let i = c.i as usize;
        let x = ctx.buffers.inputs.get(2 * i);
        let y = ctx.buffers.inputs.get(2 * i + 1);
        let r = compute(x, y);
        for k in 0..OUTS {
            ctx.buffers.out.set(i * OUTS + k, r[k]);
        }
        let n = ctx.buffers.hist.len();
        let _ = ctx.buffers.hist.atomic_add((x % n as u64) as usize, 1);
        let _ = ctx.buffers.fmin.atomic_min(0, (x % 1000) as f64 - 0.5);
        let _ = ctx.buffers.imax.atomic_max(0, y as i64);
        let mut old = ctx.buffers.hist.get(0);
        loop {
            let seen = ctx.buffers.hist.atomic_cas(1, old, old);
            if seen == old { break; }
            old = seen;
        }
    }
}

fn inputs() -> Vec<u64> {
    let edge = [0u64, 1, 2, 7, 31, 32, 33, 63, 64, 255, 256, u32::MAX as u64, i32::MAX as u64, i32::MIN as i64 as u64, u64::MAX, i64::MIN as u64, i64::MAX as u64, (-1i64) as u64, 0x8000, 1 << 40];
    let mut v = Vec::new();
    for &a in &edge {
        for &b in &edge {
            v.push(a);
            v.push(b);
        }
    }
    let mut s = 12345u64;
    for _ in 0..200 {
        let (n, z) = diffk::splitmix64(s);
        s = n;
        v.push(z);
        v.push(z.rotate_left(17) >> (z % 64));
    }
    v
}

const HIST: usize = 13;

fn run(rt: &Runtime, input: &ReadOnly<u64>) -> Result<(diffk::Bufs, usize, String), wsdsl::Error> {
    let cases = input.len() / 2;
    let bufs = diffk::Bufs {
        inputs: input.clone(),
        out: Buffer::zeroed(cases * diffk::OUTS),
        hist: Buffer::zeroed(HIST),
        fmin: Buffer::filled(1, f64::INFINITY),
        imax: Buffer::filled(1, i64::MIN),
    };
    let roots: Vec<diffk::Case> = (0..cases as u32).map(|i| diffk::Case { i }).collect();
    let out = rt.run_with::<diffk::Kernel>((), &bufs, roots)?;
    Ok((bufs, cases, out.backend.to_string()))
}

fn check(bufs: &diffk::Bufs, cases: usize, backend: &str) {
    let input = bufs.inputs.as_slice();
    let out = bufs.out.to_vec();
    let mut bad = Vec::new();
    for i in 0..cases {
        let want = diffk::compute(input[2 * i], input[2 * i + 1]);
        for k in 0..diffk::OUTS {
            if out[i * diffk::OUTS + k] != want[k] {
                bad.push(format!("case {i} ({:#x}, {:#x}) output {k}: native {:#x}, {backend} {:#x}", input[2 * i], input[2 * i + 1], want[k], out[i * diffk::OUTS + k]));
            }
        }
    }
    let mut hist = vec![0u32; HIST];
    for i in 0..cases {
        hist[(input[2 * i] % HIST as u64) as usize] += 1;
    }
    assert_eq!(bufs.hist.to_vec(), hist, "{backend}: atomic_add histogram");
    let fmin = (0..cases).map(|i| (input[2 * i] % 1000) as f64 - 0.5).fold(f64::INFINITY, f64::min);
    assert_eq!(bufs.fmin.get(0), fmin, "{backend}: float atomic_min");
    let imax = (0..cases).map(|i| input[2 * i + 1] as i64).max().unwrap();
    assert_eq!(bufs.imax.get(0), imax, "{backend}: signed atomic_max");
    assert!(bad.is_empty(), "{} mismatches:\n{}", bad.len(), bad.join("\n"));
    println!("{backend}: {cases} cases x {} outputs agree with native Rust; buffers histogram/min/max agree", diffk::OUTS);
}

#[test]
fn buffers_and_differential_cases_on_the_cpu_backend() {
    let rt = Runtime::new(Backend::Cpu).cpu_threads(2);
    let (bufs, cases, backend) = run(&rt, &ReadOnly::from_vec(inputs())).expect("cpu run");
    check(&bufs, cases, &backend);
}

/// The generated C itself, compiled for the host with the device templates (the CPU
/// backend above runs the handlers natively).
#[test]
fn differential_cases_on_the_host_compiled_templates() {
    use wsdsl::gpu::emulate::{run_emulated, Emulation};
    let input = ReadOnly::from_vec(inputs());
    let cases = input.len() / 2;
    let bufs = diffk::Bufs {
        inputs: input,
        out: Buffer::zeroed(cases * diffk::OUTS),
        hist: Buffer::zeroed(HIST),
        fmin: Buffer::filled(1, f64::INFINITY),
        imax: Buffer::filled(1, i64::MIN),
    };
    let roots: Vec<diffk::Task> = (0..cases as u32).map(|i| diffk::Case { i }.into()).collect();
    let config = Runtime::new(Backend::Cpu).config_for::<diffk::Kernel>();
    run_emulated::<diffk::Kernel>(&(), &bufs, &roots, &config, &Emulation::default()).unwrap_or_else(|e| panic!("{e}"));
    check(&bufs, cases, "host-compiled templates");
}

#[test]
fn differential_cases_on_the_gpu() {
    let rt = Runtime::new(Backend::Gpu);
    if let Err(e) = rt.gpu() {
        println!("SKIPPED (no GPU): {e}");
        return;
    }
    let input = ReadOnly::from_vec(inputs());
    let (bufs, cases, backend) = run(&rt, &input).expect("gpu run");
    check(&bufs, cases, &backend);
    // The second run finds the inputs already on the device and must read the same values.
    let (bufs, cases, backend) = run(&rt, &input).expect("second gpu run");
    check(&bufs, cases, &backend);
    println!("GPU DIFFERENTIAL: PASS ({cases} cases, twice with the inputs kept on the device)");
}

#[test]
fn buffer_program_compiles_with_nvrtc() {
    match wsdsl::gpu::compile_check::<diffk::Kernel>("sm_90") {
        Ok(bytes) => assert!(bytes > 1000),
        Err(e) => panic!("{e}"),
    }
}

/// A handler the macro accepts whose C NVRTC then rejects: the macro's output plus one
/// statement that does not compile, placed under the `#line` of the handler's first Rust
/// statement (as if the lowering had produced it). The error must name the Rust line.
#[test]
fn an_nvrtc_error_points_at_the_rust_line() {
    use wsdsl::Program as _;
    let src = wsdsl::gpu::kernel_source::<diffk::Kernel>(&wsdsl::gpu::KernelConfig::default());
    let at = src.find("__device__ static void h_case(").expect("handler emitted");
    let line_at = at + src[at..].find("#line ").expect("handler has #line");
    let end = line_at + src[line_at..].find('\n').unwrap();
    let directive = &src[line_at..end];
    let broken = format!("{}\n    wsdsl_no_such_function(1);{}", &src[..end], &src[end..]);
    let err = wsdsl::gpu::compile::compile_uncached(diffk::Kernel::NAME, &broken, "sm_90").expect_err("must not compile");
    let msg = err.to_string();
    let line: u32 = directive.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(directive.contains("differential_gpu.rs"), "{directive}");
    assert!(msg.contains(&format!("differential_gpu.rs({line})")), "the NVRTC error names the Rust line {line}:\n{msg}");
    assert!(msg.contains("wsdsl_no_such_function"), "{msg}");
}

/// Reading a `ReadOnly` array past its end stops the run with an error naming the Rust line,
/// on the CPU backend (a panic caught as an error) and on the GPU (a device fault).
#[megakernel]
pub mod past_the_end {
    use wsdsl::prelude::*;

    #[buffers]
    pub struct Bufs {
        pub table: ReadOnly<u32>,
        pub out: Buffer<u32>,
    }

    #[task]
    pub struct Read {
        pub i: u32,
    }

    #[spawn]
    fn read(r: &Read, ctx: &mut Ctx) {
        let v = ctx.buffers.table.get(r.i as usize);
        ctx.buffers.out.set(0, v);
    }
}

fn read_past_the_end(rt: &Runtime) -> Result<(), wsdsl::Error> {
    let bufs = past_the_end::Bufs { table: ReadOnly::from_vec(vec![1, 2, 3]), out: Buffer::zeroed(1) };
    rt.run_with::<past_the_end::Kernel>((), &bufs, [past_the_end::Read { i: 3 }]).map(|_| ())
}

#[test]
fn reading_a_read_only_array_past_its_end_is_an_error() {
    let e = read_past_the_end(&Runtime::new(Backend::Cpu).cpu_threads(2)).expect_err("index 3 of 3 elements");
    assert!(e.to_string().contains("index out of bounds"), "{e}");
    let rt = Runtime::new(Backend::Gpu);
    if let Err(e) = rt.gpu() {
        println!("SKIPPED (no GPU): {e}");
        return;
    }
    let e = read_past_the_end(&rt).expect_err("index 3 of 3 elements on the GPU");
    assert!(e.to_string().contains("differential_gpu.rs") && e.to_string().contains("index out of bounds"), "{e}");
    println!("GPU READ-ONLY FAULT: PASS ({e})");
}

/// A failed `assert_eq!` in a helper stops the run with one error that names the Rust line
/// and shows both values, word for word the same on the CPU backend and on the GPU.
#[megakernel]
pub mod asserting {
    use wsdsl::prelude::*;

    #[buffers]
    pub struct Bufs {
        pub out: Buffer<u64>,
    }

    #[task]
    pub struct Sum {
        pub n: u64,
    }

    pub fn triangle(n: u64) -> u64 {
        let mut s = 0u64;
        for i in 0..=n {
            s += i;
        }
        assert_eq!(s, n * (n + 1) / 2 + (n / 1000), "triangle({})", n);
        s
    }

    #[spawn]
    fn sum(t: &Sum, ctx: &mut Ctx) {
        let _ = ctx.buffers.out.atomic_add(0, triangle(t.n));
    }
}

fn assert_in_a_helper(rt: &Runtime) -> Result<u64, wsdsl::Error> {
    let bufs = asserting::Bufs { out: Buffer::zeroed(1) };
    // Triangle numbers up to 999 pass; 1000 fails (the expected value is off by one there).
    let roots: Vec<asserting::Sum> = (0..=1000).map(|n| asserting::Sum { n }).collect();
    rt.run_with::<asserting::Kernel>((), &bufs, roots).map(|_| bufs.out.get(0))
}

#[test]
fn a_failed_assertion_reads_the_same_on_every_backend() {
    let source = include_str!("differential_gpu.rs");
    let line = source.lines().position(|l| l.contains("assert_eq!(s, n * (n + 1)")).unwrap() + 1;
    let want = format!("tests/integration/differential_gpu.rs:{line}: assertion `left == right` failed: triangle(1000)\n  left: 500500\n right: 500501");
    match assert_in_a_helper(&Runtime::new(Backend::Cpu).cpu_threads(2)) {
        Err(wsdsl::Error::TaskPanicked { message }) => assert_eq!(message, want),
        other => panic!("expected the assertion to fail on the CPU backend, got {other:?}"),
    }
    let rt = Runtime::new(Backend::Gpu);
    if let Err(e) = rt.gpu() {
        println!("SKIPPED (no GPU): {e}");
        return;
    }
    match assert_in_a_helper(&rt) {
        Err(wsdsl::Error::DeviceFault { site }) => assert_eq!(site, want),
        other => panic!("expected the assertion to fail on the GPU, got {other:?}"),
    }
    println!("GPU ASSERT: PASS ({want:?})");
}

/// Methods and references in a real megakernel: a method-bearing params struct (called
/// through `ctx.params`), task struct and helper struct (`self`, `&self`, `&mut self`, an
/// associated function and consts), helpers taking `&mut` locals, fields and array
/// elements, and slices of an array. Each task stores its result; native Rust computes the same from the same
/// functions. CPU backend, the host-compiled templates, and the GPU when there is one.
#[megakernel]
pub mod methodk {
    use wsdsl::prelude::*;

    #[params]
    pub struct Limits {
        pub cap: u64,
        pub rounds: u32,
    }

    impl Limits {
        pub fn clamp(&self, v: u64) -> u64 {
            if v > self.cap { v % (self.cap + 1) } else { v }
        }
    }

    #[buffers]
    pub struct Bufs {
        pub out: Buffer<u64>,
    }

    #[task]
    pub struct Walk {
        pub i: u32,
        pub seed: u64,
    }

    impl Walk {
        fn start(&self) -> u64 {
            self.seed ^ (self.i as u64).rotate_left(32)
        }
    }

    pub struct Acc {
        pub sum: u64,
        pub bins: [u32; 4],
        pub steps: u32,
    }

    impl Acc {
        pub const BINS: usize = 4;

        pub fn new() -> Self {
            Self { sum: 0, bins: [0; Self::BINS], steps: 0 }
        }

        /// Adds a value: its bin through a `&mut` element, the sum through a `&mut` field.
        pub fn add(&mut self, v: u64) {
            bump(&mut self.bins[(v % Acc::BINS as u64) as usize]);
            mix(&mut self.sum, v);
            self.steps += 1;
        }

        pub fn fold(self) -> u64 {
            let mut h = self.sum;
            for b in 0..Self::BINS {
                h = h.rotate_left(7) ^ self.bins[b] as u64;
            }
            h ^ self.steps as u64 ^ spread(&self.bins[1..]) ^ spread(&self.bins) << 32
        }
    }

    /// A slice's weighted sum (the bins but the first, or all of them).
    fn spread(s: &[u32]) -> u64 {
        let mut t = 0u64;
        for i in 0..s.len() {
            t = t.wrapping_mul(31).wrapping_add(s[i] as u64);
        }
        t
    }

    fn bump(c: &mut u32) {
        *c += 1;
    }

    pub fn mix(x: &mut u64, k: u64) {
        *x = (*x ^ k).wrapping_mul(0x9E3779B97F4A7C15).rotate_left(29);
    }

    /// Two `&mut` locals of the caller, swapped and mixed.
    pub fn step(a: &mut u64, b: &mut u64) {
        let t = *a;
        *a = *b;
        *b = t;
        mix(a, *b);
    }

    pub fn walk(start: u64, lim: &Limits) -> u64 {
        let mut acc = Acc::new();
        let mut a = start;
        let mut b = !start;
        for _ in 0..lim.rounds {
            step(&mut a, &mut b);
            acc.add(lim.clamp(a));
        }
        acc.fold() ^ b
    }

    /// Takes the handler's task parameter as the `&Walk` it is in Rust.
    fn origin(t: &Walk) -> u64 {
        t.start()
    }

    #[spawn]
    fn go(t: &Walk, ctx: &mut Ctx) {
        let r = walk(origin(t), ctx.params);
        ctx.buffers.out.set(t.i as usize, ctx.params.clamp(r));
    }
}

const WALKS: u32 = 300;

fn walks() -> (methodk::Limits, Vec<methodk::Walk>) {
    let roots = (0..WALKS).map(|i| methodk::Walk { i, seed: diffk::splitmix64(i as u64).1 }).collect();
    (methodk::Limits { cap: 1 << 40, rounds: 37 }, roots)
}

fn check_walks(out: &Buffer<u64>, backend: &str) {
    let (lim, roots) = walks();
    let want: Vec<u64> = roots.iter().map(|t| lim.clamp(methodk::walk(t.seed ^ (t.i as u64).rotate_left(32), &lim))).collect();
    assert_eq!(out.to_vec(), want, "{backend}: methods and references differ from native Rust");
    println!("{backend}: {WALKS} walks with methods and `&mut` helpers agree with native Rust");
}

#[test]
fn methods_and_references_on_the_cpu_backend_and_the_host_compiled_kernel() {
    let (lim, roots) = walks();
    let bufs = methodk::Bufs { out: Buffer::zeroed(WALKS as usize) };
    Runtime::new(Backend::Cpu).cpu_threads(2).run_with::<methodk::Kernel>(lim, &bufs, roots.clone()).expect("cpu run");
    check_walks(&bufs.out, "cpu");
    let bufs = methodk::Bufs { out: Buffer::zeroed(WALKS as usize) };
    let tasks: Vec<_> = roots.into_iter().map(Into::into).collect();
    run_emulated::<methodk::Kernel>(&lim, &bufs, &tasks, &KernelConfig::default(), &Emulation::default()).expect("host-compiled run");
    check_walks(&bufs.out, "host-compiled templates");
}

#[test]
fn methods_and_references_on_the_gpu() {
    let rt = Runtime::new(Backend::Gpu);
    if let Err(e) = rt.gpu() {
        println!("SKIPPED (no GPU): {e}");
        return;
    }
    let (lim, roots) = walks();
    let bufs = methodk::Bufs { out: Buffer::zeroed(WALKS as usize) };
    rt.run_with::<methodk::Kernel>(lim, &bufs, roots).expect("gpu run");
    check_walks(&bufs.out, "gpu");
    println!("GPU METHODS: PASS");
}

#[test]
fn methods_program_compiles_with_nvrtc() {
    match wsdsl::gpu::compile_check::<methodk::Kernel>("sm_90") {
        Ok(bytes) => assert!(bytes > 1000),
        Err(e) => panic!("{e}"),
    }
}

/// Options, tuples and enums with data in a real megakernel: in the params, in task fields
/// (uploaded as roots, built on the device for children), returned by methods and helpers,
/// taken apart by `match`, `if let`, `while let` and `?`. Native Rust computes the same.
#[megakernel]
pub mod shapesk {
    use wsdsl::prelude::*;

    #[params]
    pub struct Cfg {
        pub bonus: Option<u64>,
        pub range: (u32, u64),
    }

    #[buffers]
    pub struct Bufs {
        pub out: Buffer<u64>,
    }

    pub enum Shape {
        Circle(u32),
        Rect { w: u32, h: u32 },
        Dot,
        Pair(u8, Option<u16>),
    }

    impl Shape {
        pub fn weight(&self) -> u64 {
            match *self {
                Shape::Circle(r) => r as u64 * 3,
                Shape::Rect { w, h } => (w as u64) << 20 | h as u64,
                Shape::Dot => 1,
                Shape::Pair(a, Some(b)) if b > 100 => a as u64 * 1000 + b as u64,
                Shape::Pair(a, _) => a as u64,
            }
        }

        pub fn grow(self, k: u32) -> Option<Shape> {
            match self {
                Shape::Dot => None,
                Shape::Circle(r) => Some(Shape::Rect { w: r, h: k }),
                Shape::Rect { w, h } => Some(Shape::Pair((w ^ h) as u8, if k % 2 == 0 { Some(k as u16) } else { None })),
                Shape::Pair(a, b) => b.map(|v| Shape::Circle(v as u32 + a as u32)),
            }
        }
    }

    pub fn make(i: u32) -> Shape {
        match i % 5 {
            0 => Shape::Circle(i),
            1 => Shape::Rect { w: i, h: i / 3 },
            2 => Shape::Dot,
            3 => Shape::Pair(i as u8, Some((i * 7) as u16)),
            _ => Shape::Pair(i as u8, None),
        }
    }

    /// Halves while even: `?` leaves at the first odd value.
    fn halve_twice(x: u64) -> Option<u64> {
        let a = if x % 2 == 0 { Some(x / 2) } else { None }?;
        let b = if a % 2 == 0 { Some(a / 2) } else { None }?;
        Some(b)
    }

    pub fn score(s: Shape, depth: u32, cfg: &Cfg) -> u64 {
        let mut t = s.weight().wrapping_mul(depth as u64 + 1);
        let mut steps = 0u32;
        let mut cur = Some(s);
        while let Some(c) = cur {
            steps += 1;
            cur = if steps < cfg.range.0 { c.grow(steps) } else { None };
        }
        if let Some(q) = halve_twice(t) {
            t ^= q;
        }
        t.wrapping_add(cfg.bonus.unwrap_or(0)).wrapping_add(cfg.range.1 * steps as u64)
    }

    #[task]
    pub struct Item {
        pub i: u32,
        pub shape: Shape,
        pub hint: Option<u32>,
        pub at: (u32, u8),
    }

    pub const ROOTS: u32 = 200;

    #[spawn]
    fn visit(t: &Item, ctx: &mut Ctx) {
        let s = score(t.shape, t.at.1 as u32, ctx.params);
        ctx.buffers.out.set(t.at.0 as usize, s ^ t.hint.map_or(7, |h| h as u64));
        if t.at.1 < 2 {
            if let Some(next) = t.shape.grow(t.i) {
                let hint = t.hint.and_then(|h| h.checked_sub(1));
                ctx.spawn(Item { i: t.i, shape: next, hint, at: (t.i + ROOTS * (t.at.1 as u32 + 1), t.at.1 + 1) });
            }
        }
    }
}

fn shape_roots() -> (shapesk::Cfg, Vec<shapesk::Item>) {
    let cfg = shapesk::Cfg { bonus: Some(12345), range: (4, 1 << 33) };
    let roots = (0..shapesk::ROOTS)
        .map(|i| shapesk::Item { i, shape: shapesk::make(i), hint: if i % 3 == 0 { None } else { Some(i % 4) }, at: (i, 0) })
        .collect();
    (cfg, roots)
}

fn check_shapes(out: &Buffer<u64>, backend: &str) {
    let (cfg, roots) = shape_roots();
    let mut want = vec![0u64; 3 * shapesk::ROOTS as usize];
    for r in roots {
        let mut node = Some(r);
        while let Some(t) = node {
            let s = shapesk::score(t.shape, t.at.1 as u32, &cfg);
            want[t.at.0 as usize] = s ^ t.hint.map_or(7, |h| h as u64);
            node = match t.shape.grow(t.i) {
                Some(next) if t.at.1 < 2 => Some(shapesk::Item {
                    i: t.i,
                    shape: next,
                    hint: t.hint.and_then(|h| h.checked_sub(1)),
                    at: (t.i + shapesk::ROOTS * (t.at.1 as u32 + 1), t.at.1 + 1),
                }),
                _ => None,
            };
        }
    }
    assert_eq!(out.to_vec(), want, "{backend}: options, tuples and enums with data differ from native Rust");
    println!("{backend}: {} results with options, tuples and enums with data agree with native Rust", want.len());
}

#[test]
fn options_tuples_and_enums_on_the_cpu_backend_and_the_host_compiled_kernel() {
    let (cfg, roots) = shape_roots();
    let n = 3 * shapesk::ROOTS as usize;
    let bufs = shapesk::Bufs { out: Buffer::zeroed(n) };
    Runtime::new(Backend::Cpu).cpu_threads(2).run_with::<shapesk::Kernel>(cfg, &bufs, roots.clone()).expect("cpu run");
    check_shapes(&bufs.out, "cpu");
    let bufs = shapesk::Bufs { out: Buffer::zeroed(n) };
    let tasks: Vec<_> = roots.into_iter().map(Into::into).collect();
    run_emulated::<shapesk::Kernel>(&cfg, &bufs, &tasks, &KernelConfig::default(), &Emulation::default()).expect("host-compiled run");
    check_shapes(&bufs.out, "host-compiled templates");
}

#[test]
fn options_tuples_and_enums_on_the_gpu() {
    let rt = Runtime::new(Backend::Gpu);
    if let Err(e) = rt.gpu() {
        println!("SKIPPED (no GPU): {e}");
        return;
    }
    let (cfg, roots) = shape_roots();
    let bufs = shapesk::Bufs { out: Buffer::zeroed(3 * shapesk::ROOTS as usize) };
    rt.run_with::<shapesk::Kernel>(cfg, &bufs, roots).expect("gpu run");
    check_shapes(&bufs.out, "gpu");
    println!("GPU OPTIONS AND ENUMS: PASS");
}

#[test]
fn options_program_compiles_with_nvrtc() {
    match wsdsl::gpu::compile_check::<shapesk::Kernel>("sm_90") {
        Ok(bytes) => assert!(bytes > 1000),
        Err(e) => panic!("{e}"),
    }
}
