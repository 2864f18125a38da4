//! Cooperative tasks: with `#[megakernel(worker = block, cooperative)]` every thread of a
//! block runs the same task, sees `ctx.thread()` / `ctx.threads()`, and waits at `ctx.sync()`.
//! The sum below is right only if the barrier holds: each thread leaves a partial sum in a
//! buffer, and after `ctx.sync()` thread 0 adds up all of them.

use wsdsl::gpu::compile_check_with;
use wsdsl::gpu::emulate::{run_emulated, Emulation};
use wsdsl::prelude::*;

#[megakernel(worker = block, cooperative)]
mod blocksum {
    use wsdsl::prelude::*;

    /// Elements a leaf task sums; larger ranges are split in two.
    const LEAF: u32 = 4096;
    /// Partial-sum slots per leaf: at least the threads of a block.
    const LANES: u32 = 1024;

    #[buffers]
    pub struct Buffers {
        pub data: Buffer<u64>,
        pub partial: Buffer<u64>,
    }

    #[counters]
    pub struct Counters {
        pub total: Sum<u64>,
        pub leaves: Sum<u64>,
    }

    #[task]
    pub struct Range {
        pub lo: u32,
        pub hi: u32,
    }

    #[spawn]
    fn sum(r: &Range, ctx: &mut Ctx) {
        let t = ctx.thread();
        let n = ctx.threads();
        if r.hi - r.lo > LEAF {
            if t == 0 {
                let mid = r.lo + (r.hi - r.lo) / 2;
                ctx.spawn(Range { lo: r.lo, hi: mid });
                ctx.spawn(Range { lo: mid, hi: r.hi });
            }
            return;
        }
        let mut mine = 0u64;
        let mut i = r.lo + t;
        while i < r.hi {
            mine = mine.wrapping_add(ctx.buffers.data.get(i as usize));
            i += n;
        }
        let base = (r.lo / LEAF * LANES) as usize;
        ctx.buffers.partial.set(base + t as usize, mine);
        ctx.sync();
        if t == 0 {
            let mut all = 0u64;
            for k in 0..n {
                all = all.wrapping_add(ctx.buffers.partial.get(base + k as usize));
            }
            ctx.counters.total.add(all);
            ctx.counters.leaves.add(1);
        }
    }
}

const N: u32 = 1 << 20;

fn inputs() -> (blocksum::Buffers, u64) {
    let data: Vec<u64> = (0..N as u64).map(|i| (i * 2654435761) % 1000).collect();
    let expected = data.iter().sum();
    let buffers = blocksum::Buffers {
        data: Buffer::from_vec(data),
        partial: Buffer::zeroed((N / 4096 * 1024) as usize),
    };
    (buffers, expected)
}

fn check(counters: &blocksum::Counters, expected: u64) {
    assert_eq!(counters.total.get(), expected);
    assert_eq!(counters.leaves.get(), (N / 4096) as u64);
}

#[test]
fn natively_a_task_has_one_thread() {
    let (buffers, expected) = inputs();
    let out = Runtime::new(Backend::Cpu).run_with::<blocksum::Kernel>((), &buffers, [blocksum::Range { lo: 0, hi: N }]).unwrap();
    check(&out.counters, expected);
}

#[test]
fn the_block_cooperates_on_the_host_compiled_templates() {
    let (buffers, expected) = inputs();
    let config = Runtime::new(Backend::Cpu).config_for::<blocksum::Kernel>();
    assert!(config.cooperative && config.worker == wsdsl::Worker::Block);
    let (counters, _, stats) =
        run_emulated::<blocksum::Kernel>(&(), &buffers, &[blocksum::Range { lo: 0, hi: N }.into()], &config, &Emulation::default())
            .unwrap_or_else(|e| panic!("{e}"));
    check(&counters, expected);
    assert!(stats.steals > 0, "the tree of ranges spreads by stealing: {stats}");
    // Each leaf's partial sums came from all 64 threads of an emulated block.
    let partial = buffers.partial.to_vec();
    assert!(partial[..1024].iter().take(64).all(|&p| p > 0) && partial[64..1024].iter().all(|&p| p == 0));
}

#[test]
fn the_static_scheduler_runs_cooperative_tasks_on_the_host_compiled_templates() {
    let (buffers, expected) = inputs();
    let config = Runtime::new(Backend::Cpu).scheduler(wsdsl::Scheduler::Static).config_for::<blocksum::Kernel>();
    config.validate().unwrap_or_else(|e| panic!("{e}"));
    let (counters, _, stats) =
        run_emulated::<blocksum::Kernel>(&(), &buffers, &[blocksum::Range { lo: 0, hi: N }.into()], &config, &Emulation::default())
            .unwrap_or_else(|e| panic!("{e}"));
    check(&counters, expected);
    // One generation per level of the tree of ranges: 2^20 / 4096 = 2^8 leaves, 9 levels.
    assert_eq!(stats.generations, 9, "{stats}");
    let partial = buffers.partial.to_vec();
    assert!(partial[..1024].iter().take(64).all(|&p| p > 0) && partial[64..1024].iter().all(|&p| p == 0));
}

#[test]
fn the_cooperative_kernel_compiles_and_runs_on_the_gpu_when_present() {
    let rt = Runtime::new(Backend::Gpu);
    let config = rt.config_for::<blocksum::Kernel>();
    compile_check_with::<blocksum::Kernel>("sm_90", &config).unwrap_or_else(|e| panic!("{e}"));
    if let Err(e) = rt.gpu() {
        eprintln!("SKIPPED the GPU run of the cooperative sum: {e}");
        return;
    }
    let (buffers, expected) = inputs();
    let out = rt.run_with::<blocksum::Kernel>((), &buffers, [blocksum::Range { lo: 0, hi: N }]).unwrap();
    check(&out.counters, expected);
    eprintln!("cooperative block sum on {}: exact\n{}", out.backend, out.stats);
}

#[test]
fn cooperative_needs_the_deque_or_the_static_scheduler() {
    let err = Runtime::new(Backend::Gpu).scheduler(wsdsl::Scheduler::Bq).config_for::<blocksum::Kernel>().validate().unwrap_err();
    assert!(err.contains("deque or the static scheduler"), "{err}");
    let config = Runtime::new(Backend::Gpu).scheduler(wsdsl::Scheduler::Static).config_for::<blocksum::Kernel>();
    compile_check_with::<blocksum::Kernel>("sm_90", &config).unwrap_or_else(|e| panic!("{e}"));
}
