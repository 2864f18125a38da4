//! `queue-bench`: the experiments of section 7 of "The Broker Queue" (Kerbl et al., ICS 2018)
//! on the queue templates of `wsdsl-runtime/cuda`: BQ, BWD and BSQ (`queues/broker_queue.cuh`), a
//! per-warp-aggregated BQ/BWD (one Count and one Head/Tail atomic per warp), and the
//! Cederman-Tsigas work-stealing deque (`queues/deque.cuh`) used by the megakernel.
//!
//!   7.1  alternating enqueue/dequeue pairs, thread counts up to full occupancy, per thread
//!        and per warp (one lane per warp uses the queue);
//!   7.2  imbalanced: 1-10 iterations per thread, enqueue with P(enq), dequeue with P(deq),
//!        128 FMAs after each successful dequeue, on an empty and a pre-filled queue;
//!   7.3  the variants at full occupancy across P(enq)/P(deq), with 0 and 320 FMAs.
//!
//! Every measurement checks itself: after the timed kernel a drain kernel empties the queues
//! and the elements in (pre-fill + successful enqueues) must equal the elements out (successful
//! dequeues + drained), in number and in the sum of their values; in 7.1 no dequeue may come
//! back empty. Any failure is printed as FAIL and makes the exit status 1.
//!
//! Needs only the CUDA driver and NVRTC beside it (found like the runtime finds them).

mod report;

use clap::Parser;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg};
use report::{Measurement, Report};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use wsdsl_runtime::gpu::build::assemble::{ATOMICS, BROKER_QUEUE as BROKER, DEQUE};
const KERNELS: &str = include_str!("kernels.cu");

const BLOCK: u32 = 256;
// Must match kernels.cu.
const BQ_N: usize = 1 << 22;
const BSQ_N: usize = 16384;
const DQ_CAP: usize = 4096;
const C_COUNT: usize = 8;
const C_ENQ: usize = 0;
const C_DEQ: usize = 1;
const C_SUM_ENQ: usize = 2;
const C_SUM_DEQ: usize = 3;
const C_FULL: usize = 4;
const C_EMPTY: usize = 5;
const C_STEALS: usize = 7;
const QUEUE_HEADER_BYTES: usize = 256;

#[derive(Parser)]
#[command(name = "queue-bench", about = "Broker Queue paper (ICS 2018) section 7 micro-benchmarks on the GPU")]
struct Args {
    /// Directory for the Markdown tables, the CSV and the SVG chart.
    #[arg(long, default_value = "queue-bench-out")]
    out: PathBuf,
    /// A short smoke run: fewer thread counts and ratios, 3 timed runs.
    #[arg(long)]
    quick: bool,
    /// GPU ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
    /// Only compile the kernels with NVRTC for this architecture (e.g. sm_90) and exit; needs no GPU.
    #[arg(long, value_name = "ARCH")]
    compile_only: Option<String>,
}

/// Mirror of `struct bench_params` in kernels.cu (64 bytes, no padding).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct BenchParams {
    queue: u64,
    dq_slots: u64,
    ctr: u64,
    nq: u32,
    mode: u32,
    per_warp: u32,
    pairs: u32,
    p_enq: u32,
    p_deq: u32,
    min_iter: u32,
    max_iter: u32,
    fma: u32,
    seed: u32,
}
// SAFETY: plain old data, laid out as the C struct it mirrors.
unsafe impl DeviceRepr for BenchParams {}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Variant {
    Bq,
    BqWarp,
    Bwd,
    BwdWarp,
    Bsq,
    Deque,
}

impl Variant {
    pub const ALL: [Variant; 6] = [Variant::Bq, Variant::BqWarp, Variant::Bwd, Variant::BwdWarp, Variant::Bsq, Variant::Deque];
    fn code(self) -> u32 {
        self as u32
    }
    fn kernel(self) -> &'static str {
        match self {
            Variant::Bq => "bench_bq",
            Variant::BqWarp => "bench_bq_warp",
            Variant::Bwd => "bench_bwd",
            Variant::BwdWarp => "bench_bwd_warp",
            Variant::Bsq => "bench_bsq",
            Variant::Deque => "bench_deque",
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Variant::Bq => "BQ",
            Variant::BqWarp => "BQ warp-agg",
            Variant::Bwd => "BWD",
            Variant::BwdWarp => "BWD warp-agg",
            Variant::Bsq => "BSQ",
            Variant::Deque => "deque (warp batch + steal)",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct RunCfg {
    pub threads: u32,
    pub mode: u32,
    pub per_warp: bool,
    pub pairs: u32,
    pub p_enq: f64,
    pub p_deq: f64,
    pub fma: u32,
    pub prefill: u32,
}

/// Launches kernel `$name` of `$bench` on `$blocks` blocks of BLOCK threads with the given arguments.
// SAFETY (at every use): each kernel takes exactly the arguments pushed, all pointing into
// buffers that live as long as the Bench; grids never exceed the occupancy limit measured at
// start-up.
macro_rules! launch {
    ($bench:expr, $name:expr, $blocks:expr, $($arg:expr),+) => {{
        let func = &$bench.funcs[$name];
        let mut b = $bench.stream.launch_builder(func);
        $( b.arg($arg); )+
        let cfg = LaunchConfig { grid_dim: ($blocks, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        unsafe { b.launch(cfg) }.map(|_| ()).map_err(|e| format!("launching {}: {e}", $name))
    }};
}

struct Bench {
    stream: Arc<CudaStream>,
    ctx: Arc<CudaContext>,
    funcs: std::collections::HashMap<&'static str, CudaFunction>,
    bq: CudaSlice<u8>,
    bsq: CudaSlice<u8>,
    deques: CudaSlice<u8>,
    dq_slots: CudaSlice<u32>,
    ctr: CudaSlice<u64>,
    max_blocks: u32,
    reps: usize,
}

fn fixed24(p: f64) -> u32 {
    ((p.clamp(0.0, 1.0) * (1u32 << 24) as f64).round() as u32).min(1 << 24)
}

impl Bench {
    fn dptr<T>(&self, s: &CudaSlice<T>) -> u64 {
        use cudarc::driver::DevicePtr;
        let (p, _sync) = s.device_ptr(&self.stream);
        p
    }

    /// Waits for the stream, giving up (and exiting) after `limit`: a hung queue kernel must
    /// not freeze the machine's only session.
    fn wait(&self, what: &str, limit: Duration) -> Result<(), String> {
        let ev = self.ctx.new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING)).map_err(|e| e.to_string())?;
        ev.record(&self.stream).map_err(|e| e.to_string())?;
        let t = Instant::now();
        while !ev.try_is_complete().map_err(|e| format!("{what}: {e}"))? {
            if t.elapsed() > limit {
                eprintln!("FAIL: {what} did not finish within {limit:?} (a queue kernel hangs); exiting");
                std::process::exit(3);
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        Ok(())
    }

    fn one_run(&mut self, v: Variant, c: &RunCfg, seed: u32) -> Result<(f64, [u64; 3 * C_COUNT]), String> {
        let blocks = c.threads / BLOCK;
        let e = |e: cudarc::driver::DriverError| e.to_string();
        match v {
            Variant::Bsq => {
                let mut view = self.bsq.slice_mut(..blocks as usize * bsq_bytes());
                self.stream.memset_zeros(&mut view).map_err(e)?
            }
            Variant::Deque => {
                let mut view = self.deques.slice_mut(..(c.threads / 32) as usize * 128);
                self.stream.memset_zeros(&mut view).map_err(e)?
            }
            _ => self.stream.memset_zeros(&mut self.bq).map_err(e)?,
        }
        self.stream.memset_zeros(&mut self.ctr).map_err(e)?;
        let queue = match v {
            Variant::Bsq => self.dptr(&self.bsq),
            Variant::Deque => self.dptr(&self.deques),
            _ => self.dptr(&self.bq),
        };
        let ctr0 = self.dptr(&self.ctr);
        let mut p = BenchParams {
            queue,
            dq_slots: self.dptr(&self.dq_slots),
            ctr: ctr0,
            nq: match v {
                Variant::Bsq => blocks,
                Variant::Deque => c.threads / 32,
                _ => 1,
            },
            mode: c.mode,
            per_warp: c.per_warp as u32,
            pairs: c.pairs,
            p_enq: fixed24(c.p_enq),
            p_deq: fixed24(c.p_deq),
            min_iter: 1,
            max_iter: 10,
            fma: c.fma,
            seed,
        };
        if c.prefill > 0 {
            let (code, count) = (v.code(), c.prefill);
            launch!(self, "prefill", blocks, &p, &code, &count)?;
        }
        p.ctr = ctr0 + (C_COUNT * 8) as u64;
        let start = self.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(e)?;
        let end = self.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(e)?;
        start.record(&self.stream).map_err(e)?;
        launch!(self, v.kernel(), blocks, &p)?;
        end.record(&self.stream).map_err(e)?;
        self.wait(v.kernel(), Duration::from_secs(20))?;
        let ms = start.elapsed_ms(&end).map_err(e)? as f64;
        p.ctr = ctr0 + (2 * C_COUNT * 8) as u64;
        let code = v.code();
        let drain_blocks = match v {
            Variant::Bsq | Variant::Deque => blocks.max(1),
            _ => 1,
        };
        launch!(self, "drain", drain_blocks, &p, &code)?;
        self.wait("drain", Duration::from_secs(20))?;
        let words = self.stream.clone_dtoh(&self.ctr).map_err(e)?;
        let mut out = [0u64; 3 * C_COUNT];
        out.copy_from_slice(&words[..3 * C_COUNT]);
        Ok((ms, out))
    }

    /// Warm-up, then the median of `reps` timed runs; every run verified.
    fn measure(&mut self, v: Variant, c: RunCfg) -> Result<Measurement, String> {
        let mut times = Vec::new();
        let mut problems = Vec::new();
        let mut last = [0u64; 3 * C_COUNT];
        for rep in 0..=self.reps {
            let (ms, w) = self.one_run(v, &c, 0x1234_5678 ^ (rep as u32).wrapping_mul(0x9E37_79B9))?;
            let (pre, run, drain) = (&w[..C_COUNT], &w[C_COUNT..2 * C_COUNT], &w[2 * C_COUNT..]);
            let n_in = pre[C_ENQ] + run[C_ENQ];
            let n_out = run[C_DEQ] + drain[C_DEQ];
            let s_in = pre[C_SUM_ENQ].wrapping_add(run[C_SUM_ENQ]);
            let s_out = run[C_SUM_DEQ].wrapping_add(drain[C_SUM_DEQ]);
            if n_in != n_out || s_in != s_out {
                problems.push(format!("run {rep}: {n_in} elements in, {n_out} out (sums {s_in:#x} vs {s_out:#x})"));
            }
            if c.prefill > 0 && pre[C_ENQ] != c.prefill as u64 {
                problems.push(format!("run {rep}: pre-fill placed {} of {}", pre[C_ENQ], c.prefill));
            }
            if c.mode == 0 && (run[C_EMPTY] != 0 || run[C_FULL] != 0) {
                problems.push(format!("run {rep}: {} dequeues came back empty / {} enqueues full in a balanced run", run[C_EMPTY], run[C_FULL]));
            }
            if rep > 0 {
                times.push(ms);
            }
            last = w;
        }
        times.sort_by(|a, b| a.partial_cmp(b).expect("times are finite"));
        let run = &last[C_COUNT..2 * C_COUNT];
        let ops = run[C_ENQ] + run[C_DEQ] + run[C_FULL] + run[C_EMPTY];
        let m = Measurement {
            variant: v,
            cfg: c,
            median_ms: times[times.len() / 2],
            min_ms: times[0],
            max_ms: times[times.len() - 1],
            ops,
            enq_ok: run[C_ENQ],
            deq_ok: run[C_DEQ],
            full: run[C_FULL],
            empty: run[C_EMPTY],
            steals: run[C_STEALS],
            problems,
        };
        if !m.problems.is_empty() {
            eprintln!("FAIL {} {:?}: {}", v.label(), c, m.problems.join("; "));
        }
        Ok(m)
    }

    /// Same-address atomic throughput: the ceiling of any queue whose every operation does
    /// one (G atomics/s), per thread and aggregated per warp (G lane-increments/s).
    fn atomic_probe(&mut self, threads: u32) -> Result<(f64, f64), String> {
        let reps: u32 = 64;
        let mut res = [0.0; 2];
        for (i, per_warp) in [0u32, 1].into_iter().enumerate() {
            let mut best = f64::MAX;
            for _ in 0..4 {
                let ctr = self.dptr(&self.ctr);
                let start = self.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(|e| e.to_string())?;
                let end = self.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(|e| e.to_string())?;
                start.record(&self.stream).map_err(|e| e.to_string())?;
                launch!(self, "atomic_probe", threads / BLOCK, &ctr, &reps, &per_warp)?;
                end.record(&self.stream).map_err(|e| e.to_string())?;
                self.wait("atomic_probe", Duration::from_secs(20))?;
                best = best.min(start.elapsed_ms(&end).map_err(|e| e.to_string())? as f64);
            }
            res[i] = threads as f64 * reps as f64 / (best * 1e-3) / 1e9;
        }
        Ok((res[0], res[1]))
    }
}

fn bsq_bytes() -> usize {
    QUEUE_HEADER_BYTES + 8 * BSQ_N
}

pub fn source() -> String {
    format!(
        "// queue-bench: core/atomics.cuh + queues/deque.cuh + queues/broker_queue.cuh + kernels.cu\n{ATOMICS}\nstruct wsdsl_task {{ unsigned v; }};\n{DEQUE}\n{BROKER}\n{KERNELS}"
    )
}

fn main() {
    let args = Args::parse();
    if let Err(e) = real_main(args) {
        eprintln!("queue-bench: {e}");
        std::process::exit(2);
    }
}

fn real_main(args: Args) -> Result<(), String> {
    if let Some(arch) = &args.compile_only {
        wsdsl_runtime::gpu::libs::ensure_nvrtc().map_err(|e| e.to_string())?;
        let cubin = wsdsl_runtime::gpu::compile::compile_uncached("queue_bench", &source(), arch).map_err(|e| e.to_string())?;
        println!("queue-bench kernels compile for {arch}: {} bytes of CUBIN", cubin.len());
        return Ok(());
    }
    wsdsl_runtime::gpu::libs::ensure_driver().map_err(|e| e.to_string())?;
    wsdsl_runtime::gpu::libs::ensure_nvrtc().map_err(|e| e.to_string())?;
    let ctx = CudaContext::new(args.device).map_err(|e| format!("opening GPU {}: {e}", args.device))?;
    let name = ctx.name().map_err(|e| e.to_string())?;
    let (major, minor) = ctx.compute_capability().map_err(|e| e.to_string())?;
    let arch = format!("sm_{major}{minor}");
    let sms = ctx
        .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .map_err(|e| e.to_string())? as u32;
    let t0 = Instant::now();
    let cubin = wsdsl_runtime::gpu::compile::compile_uncached("queue_bench", &source(), &arch).map_err(|e| e.to_string())?;
    let compile_s = t0.elapsed().as_secs_f64();
    let module = ctx.load_module(cudarc::nvrtc::Ptx::from_binary(cubin)).map_err(|e| format!("loading the kernels: {e}"))?;
    let mut funcs = std::collections::HashMap::new();
    let mut fit = u32::MAX;
    for k in Variant::ALL.iter().map(|v| v.kernel()).chain(["prefill", "drain", "atomic_probe"]) {
        let f = module.load_function(k).map_err(|e| format!("kernel {k}: {e}"))?;
        if k.starts_with("bench_") {
            let b = f.occupancy_max_active_blocks_per_multiprocessor(BLOCK, 0, None).map_err(|e| e.to_string())?;
            fit = fit.min(b);
        }
        funcs.insert(k, f);
    }
    if fit == 0 {
        return Err("a benchmark kernel does not fit one block of 256 threads per SM".into());
    }
    let max_blocks = fit * sms;
    let full = max_blocks * BLOCK;
    let stream = ctx.default_stream();
    let e = |e: cudarc::driver::DriverError| e.to_string();
    let mut bench = Bench {
        bq: stream.alloc_zeros::<u8>(QUEUE_HEADER_BYTES + 8 * BQ_N).map_err(e)?,
        bsq: stream.alloc_zeros::<u8>(max_blocks as usize * bsq_bytes()).map_err(e)?,
        deques: stream.alloc_zeros::<u8>((full / 32) as usize * 128).map_err(e)?,
        dq_slots: stream.alloc_zeros::<u32>((full / 32) as usize * DQ_CAP).map_err(e)?,
        ctr: stream.alloc_zeros::<u64>(4 * C_COUNT).map_err(e)?,
        stream,
        ctx: ctx.clone(),
        funcs,
        max_blocks,
        reps: if args.quick { 3 } else { 5 },
    };
    let _ = bench.max_blocks;

    let mut report = Report::new(&name, &arch, sms, fit, BLOCK, bench.reps, compile_s, args.quick);
    println!("{}", report.header());

    let mut threads: Vec<u32> = if args.quick { vec![4096, 65536] } else { vec![1024, 4096, 16384, 65536, 131072] };
    threads.retain(|&t| t < full);
    threads.push(full);
    let t_run = Instant::now();

    // Atomic ceiling.
    let (atom_thread, atom_warp) = bench.atomic_probe(full)?;
    report.atomics = Some((atom_thread, atom_warp));

    // 7.1
    for per_warp in [false, true] {
        for &t in &threads {
            for v in Variant::ALL {
                if per_warp && matches!(v, Variant::BqWarp | Variant::BwdWarp) {
                    continue; // one lane per warp: nothing to aggregate
                }
                let c = RunCfg { threads: t, mode: 0, per_warp, pairs: 10, p_enq: 1.0, p_deq: 1.0, fma: 0, prefill: 0 };
                report.add("7.1", bench.measure(v, c)?);
            }
        }
    }
    report.print_section("7.1");
    // 7.2
    let scen: [(f64, f64, u32); 3] = [(0.8, 0.4, 0), (0.4, 0.8, 0), (0.4, 0.8, 65536)];
    for (pe, pd, pre) in scen {
        for &t in &threads {
            for v in Variant::ALL {
                let c = RunCfg { threads: t, mode: 1, per_warp: false, pairs: 0, p_enq: pe, p_deq: pd, fma: 128, prefill: pre };
                report.add("7.2", bench.measure(v, c)?);
            }
        }
    }
    report.print_section("7.2");
    // 7.3
    let ratios: Vec<f64> = if args.quick { vec![0.25, 0.5, 1.0] } else { vec![0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 1.0] };
    for fma in [0u32, 320] {
        for &pe in &ratios {
            for v in Variant::ALL {
                let c = RunCfg { threads: full, mode: 1, per_warp: false, pairs: 0, p_enq: pe, p_deq: 0.5, fma, prefill: 0 };
                report.add("7.3", bench.measure(v, c)?);
            }
        }
    }
    report.print_section("7.3");
    report.run_s = t_run.elapsed().as_secs_f64();
    println!("{}", report.summary());
    report.write(&args.out).map_err(|e| format!("writing {}: {e}", args.out.display()))?;
    println!("wrote {}", args.out.display());
    if report.failures() > 0 {
        eprintln!("FAIL: {} measurement(s) failed their self-check (see FAIL lines above)", report.failures());
        std::process::exit(1);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The benchmark kernels compile with NVRTC for the H100 (skipped, visibly, without NVRTC).
    #[test]
    fn kernels_compile_for_sm_90() {
        if let Err(e) = wsdsl_runtime::gpu::libs::ensure_nvrtc() {
            println!("SKIPPED: no NVRTC: {e}");
            return;
        }
        let cubin = wsdsl_runtime::gpu::compile::compile_uncached("queue_bench", &super::source(), "sm_90")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!cubin.is_empty());
    }
}
