//! One GPU's share of a multi-GPU run: the deque megakernel built for several GPUs
//! (`features/pe.cuh`), its state, deques and slots in one allocation of NVSHMEM's symmetric heap,
//! the other GPUs' allocations reached through the peer mappings `nvshmem_ptr` gives, its
//! roots dealt to it, launched together with the other GPUs' kernels, and every GPU's result
//! merged (`process.rs` carries them).
//!
//! NVSHMEM's allocation, free and barrier are collective: a GPU that left between two of them
//! would leave the others waiting for good. So every failure that can be known before them is
//! voted on first (an all-gather through the processes' sockets, which notices a dead
//! process), and every GPU leaves together: the shape (step 1), this GPU's own memory and
//! inputs (step 2), the peer mappings (step 3). A launch that fails writes `stop` into every
//! other GPU's state, so their kernels end instead of waiting for this one.

use super::process::Job;
use super::record::{encode_result, Reader, Writer};
use super::{check_across_hosts, check_program, frames_per_gpu, merge_sent, prepare_share, share_record, HeapLayout, PeError, PeShare, STOP_OFFSET};
use crate::error::Error;
use crate::cache::stable_hash_bytes;
use crate::gpu::build::assemble::{pe_kernel_source, pe_kernel_source_across_hosts};
use crate::gpu::run::images::encode_tasks;
use crate::gpu::run::status::status_result;
use crate::gpu::run::join::PoolShape;
use crate::gpu::run::target::record_bytes;
use crate::gpu::schedulers::worker_stats::read_worker_stats;
use crate::gpu::device::target::OnGpu;
use crate::gpu::schedulers::deque::check_root_room;
use crate::gpu::run::spread::Roots;
use crate::gpu::run::steps::Steps;
use crate::gpu::run::target::Target;
use crate::gpu::{GpuDevice, GpuOptions, KernelConfig};
use crate::contract::{Program, RunResult};
use crate::stats::Phases;
use std::time::Instant;

/// Deque slots per worker unless the runtime says otherwise: the deques live in NVSHMEM's
/// symmetric heap, which is smaller than the GPU (`NVSHMEM_SYMMETRIC_SIZE`).
const DEFAULT_CAPACITY: u32 = 4096;

/// Runs `roots` (those the host dealt, `gpu/run/spread.rs`) on every GPU of `job`, or on GPU 0
/// alone when every process judged the tree narrow (`alone.rs`); every process returns the
/// same merged result. `steps` (`WSDSL_TRACE_RUN=1`) says where the host's time
/// went.
pub(crate) fn run_gpus<P: Program>(
    dev: &GpuDevice,
    job: &Job,
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &Roots<'_, P>,
    opts: &GpuOptions,
    mut steps: Steps,
) -> Result<RunResult<P>, Error> {
    check_program::<P>(&opts.kernel, buffers, job.gpus)?;
    steps.name(format!("run of `{}` on GPU {} of {}", P::NAME, job.rank, job.gpus));
    let mut phases = Phases::default();
    // GPUs of other hosts cannot be mapped: the kernel reaches them by NVSHMEM's one-sided
    // calls (`cuda/features/pe.cuh`), built with NVSHMEM's device library.
    let hosts = job.hosts()?;
    let across_hosts = across_hosts_on_one(job.gpus)? || hosts.iter().any(|&h| h != hosts[0]);
    if across_hosts {
        check_across_hosts::<P>()?;
    }
    steps.mark("hosts");

    // 1. Each GPU compiles and proposes its shape; the run takes the smallest. The proposal
    //    names the run (program, kernel, parameters, roots, the tasks to spread), so processes
    //    that went apart are caught here rather than merged.
    let source = kernel_source::<P>(&opts.kernel, across_hosts);
    let run_id = {
        let mut param_bytes = vec![0u8; P::PARAMS_BYTES.max(1)];
        P::encode_params(params, &mut param_bytes);
        stable_hash_bytes(&[P::NAME.as_bytes(), source.as_bytes(), &param_bytes, &encode_tasks::<P>(roots.given()), &(roots.want() as u64).to_le_bytes()])
    };
    let mut target = OnGpu::new(dev, opts);
    let prepared = propose::<P>(&mut target, &source, opts, job.gpus, &mut phases)
        .and_then(|p| if across_hosts { job.pe().init_module(target.function()).map(|()| p) } else { Ok(p) });
    let mut w = Writer::default();
    match &prepared {
        Ok(p) => w.word(0).word(run_id).word(p.blocks as u64).word(p.capacity as u64).word(p.frames as u64),
        Err(e) => w.word(1).text(&e.to_string()),
    };
    steps.mark("compile, load, propose");
    let proposals = job.all_gather(w.finish())?;
    steps.mark("proposals gathered");
    let (mut grid, mut capacity, mut frames) = (u64::MAX, u64::MAX, u64::MAX);
    for (gpu, bytes) in proposals.iter().enumerate() {
        let mut r = Reader::new(bytes);
        let bad = |m: String| Error::OnGpu { gpu: gpu as u32, gpus: job.gpus, message: m };
        if r.word().map_err(bad)? == 1 {
            return Err(bad(r.text().map_err(bad)?));
        }
        let (id, g, c, f) = (r.word().map_err(bad)?, r.word().map_err(bad)?, r.word().map_err(bad)?, r.word().map_err(bad)?);
        if id != run_id {
            return Err(bad(format!(
                "its process makes another run than GPU 0's at this point (another program, kernel, parameters, roots or `WSDSL_SPREAD`): every process of a multi-GPU run must make the same runs in the same order (this one: `{}` with {} roots)",
                P::NAME,
                roots.given().len()
            )));
        }
        grid = grid.min(g);
        capacity = capacity.min(c);
        frames = frames.min(f);
    }
    prepared?;
    // The tasks to deal: the host's first levels, run meanwhile (`gpu/run/spread.rs`), and whether
    // the tree is narrow enough for GPU 0 alone (`alone.rs`), agreed by every process. A
    // handler looping on the host is this GPU's error, voted on with its inputs (step 2) so
    // that no GPU waits for it; until then the roots given size what is sized.
    let (dealt, alone) = agree_on_levels(job, roots, across_hosts)?;
    steps.mark("the host's first levels, agreed");
    if let (Ok(dealt), true) = (&dealt, alone) {
        // The multi-GPU kernel's target holds the device's workspace, which the one-GPU run
        // takes in turn.
        drop(target);
        let alone = super::alone::run_alone::<P>(dev, job, params, buffers, dealt, opts);
        steps.mark("GPU 0 alone");
        steps.report();
        return alone;
    }
    let roots = dealt.as_ref().map_or(roots.given(), |r| *r);
    let (grid, capacity) = (grid as u32, capacity as u32);
    let workers = grid * (opts.kernel.block_threads / opts.kernel.worker_threads());
    check_root_room(roots.len(), job.gpus, workers, capacity as u64)?;
    let shape = PoolShape::of(&opts.kernel, (grid * opts.kernel.block_threads) as usize);
    let layout = HeapLayout::of::<P>(workers, capacity, frames as u32, shape, roots.len(), job.gpus)?;

    // 2. This GPU's share, its result as bytes (errors included), and everyone's merged.
    let share = Share { grid, capacity, layout: &layout, hosts: &hosts };
    let result = run_share::<P>(&mut target, dev, job, &share, params, buffers, dealt, opts, phases, &mut steps)?.map_err(PeError::from);
    let results = job.all_gather(encode_result(&result))?;
    steps.mark("results gathered");
    let merged = merge_sent::<P>(&results, roots, || job.mark_broken());
    steps.mark("merge");
    steps.report();
    merged
}

/// The tasks every process deals, and whether every process judged the tree narrow, in one
/// all-gather. On one host every process ran the same levels. Across hosts each process's
/// levels come from its own host's maths library (UTS's `ln`, `sin`), which may round
/// differently on another machine, and processes that dealt different tasks would run some
/// twice and others never: the processes compare their levels' fingerprints, and deal the
/// roots as given unless all agree.
fn agree_on_levels<'r, P: Program>(job: &Job, roots: &'r Roots<'_, P>, across_hosts: bool) -> Result<(Result<&'r [P::Task], Error>, bool), Error> {
    let dealt = roots.dealt();
    let narrow = dealt.is_ok() && roots.narrow();
    let fingerprint = if across_hosts { roots.fingerprint() } else { 0 };
    let all = job.all_gather(Writer::default().word(narrow as u64).word(fingerprint).finish())?;
    let (mut all_narrow, mut same) = (true, true);
    for (gpu, bytes) in all.iter().enumerate() {
        let mut r = Reader::new(bytes);
        let bad = |m: String| Error::OnGpu { gpu: gpu as u32, gpus: job.gpus, message: m };
        all_narrow &= r.word().map_err(bad)? == 1;
        same &= r.word().map_err(bad)? == fingerprint;
    }
    // A process whose host is still running its levels at the watchdog limit keeps its error,
    // which the step-2 vote makes the run's, as on one host.
    let dealt = if same || dealt.is_err() { dealt } else { Ok(roots.forget_levels()) };
    Ok((dealt, all_narrow && job.gpus > 1))
}

/// Whether the settings say, before the job has started, that the run's kernel is the
/// across-hosts one: a job split into groups of "hosts" (`WSDSL_HOST_GROUPS` above 1, which
/// `Job::hosts` applies once the job has started), or the measurement below. Otherwise the
/// hosts' names decide.
fn across_hosts_by_setting(gpus: u32) -> bool {
    let groups = std::env::var(super::process::HOST_GROUPS_VAR).ok().and_then(|g| g.trim().parse::<u32>().ok());
    // A guess: a setting the run refuses (and reports) counts as no here.
    groups.is_some_and(|g| g > 1) || across_hosts_on_one(gpus).unwrap_or(false)
}

/// `WSDSL_MULTI_ON_ONE=3`, a measurement (`lab` builds): the across-hosts kernel on one GPU, which then never
/// calls NVSHMEM, beside the one-host kernels (what its code costs by itself).
fn across_hosts_on_one(gpus: u32) -> Result<bool, Error> {
    Ok(gpus == 1 && crate::settings::MULTI_ON_ONE.lab_from_env()? == Some(3))
}

/// The first run's kernel, compiled into the disk cache on another thread while this process
/// joins the job: NVSHMEM's initialisation takes 0.6-0.8 s on an H200 and compiling a kernel
/// 0.1-5 s; side by side, a first `nqueens 12` takes 835 ms where one after the other takes
/// 1,801 ms (BENCHMARKS.md, "Start-up and compile").
/// The run then loads the kernel from the cache. It is the kernel for GPUs of one host unless
/// the settings say the job spans hosts (whether machines of other names take part is known
/// only once it has started); a compile that fails fails again in the run, which reports it.
pub(crate) struct CompileAhead(Option<std::thread::JoinHandle<()>>);

impl CompileAhead {
    /// Waits until the kernel is in the cache (or its compile has failed).
    pub fn wait(self) {
        if let Some(thread) = self.0 {
            let _ = thread.join();
        }
    }
}

pub(crate) fn compile_ahead<P: Program>(dev: &GpuDevice, kernel: &KernelConfig, gpus: u32) -> CompileAhead {
    let (source, arch) = (kernel_source::<P>(kernel, across_hosts_by_setting(gpus)), dev.arch.clone());
    let compile = move || drop(crate::gpu::build::module::compile_any(P::NAME, &source, &arch));
    CompileAhead(std::thread::Builder::new().name("wsdsl-compile-ahead".into()).spawn(compile).ok())
}

/// The CUDA source of `P`'s kernel for one GPU of a multi-GPU job, for a job within one host
/// or across hosts.
fn kernel_source<P: Program>(kernel: &KernelConfig, across_hosts: bool) -> String {
    if across_hosts {
        pe_kernel_source_across_hosts::<P>(kernel)
    } else {
        pe_kernel_source::<P>(kernel)
    }
}

/// What this GPU proposes for the run's shape.
struct Proposal {
    blocks: u32,
    capacity: u32,
    frames: u32,
}

/// Compiles and loads `P`'s multi-GPU kernel (NVRTC and the kernel cache, as every kernel)
/// and proposes blocks, deque capacity and (programs with joins) frames per GPU.
fn propose<P: Program>(target: &mut OnGpu<'_>, source: &str, opts: &GpuOptions, gpus: u32, phases: &mut Phases) -> Result<Proposal, Error> {
    target.load_source::<P>(source, opts.kernel.entry_point(), phases)?;
    let blocks = target.blocks::<P>(opts.kernel.block_threads, Some("multi-GPU megakernel"))?;
    let shape = PoolShape::of(&opts.kernel, (blocks * opts.kernel.block_threads) as usize);
    let frames = frames_per_gpu::<P>(opts.frames, target.free_memory()?, shape, gpus)?;
    Ok(Proposal { blocks, capacity: opts.capacity.unwrap_or(DEFAULT_CAPACITY), frames })
}

/// The agreed shape of the run.
struct Share<'a> {
    grid: u32,
    capacity: u32,
    layout: &'a HeapLayout,
    /// The host of every GPU (`Job::hosts`).
    hosts: &'a [u32],
}

/// Every GPU's verdict on a step: `Ok` when all succeeded, else the first failure, named.
fn vote(job: &Job, mine: &Result<(), Error>) -> Result<Result<(), Error>, Error> {
    let mut w = Writer::default();
    match mine {
        Ok(()) => w.word(0),
        Err(e) => w.word(1).text(&e.to_string()),
    };
    let all = job.all_gather(w.finish())?;
    for (gpu, bytes) in all.iter().enumerate() {
        let mut r = Reader::new(bytes);
        let failed = r.word().map_err(Error::InvalidConfig)? == 1;
        if failed {
            let message = r.text().map_err(Error::InvalidConfig)?;
            return Ok(Err(Error::OnGpu { gpu: gpu as u32, gpus: job.gpus, message }));
        }
    }
    Ok(Ok(()))
}

/// This GPU's share of `roots` (`roots_of`): the tasks the host dealt, or why it could not
/// (a handler looping on the host), voted on with this GPU's inputs. The outer error means the
/// job itself broke (a process stopped answering); the inner result is this GPU's run, which
/// every GPU then learns.
#[allow(clippy::too_many_arguments)]
fn run_share<P: Program>(
    target: &mut OnGpu<'_>,
    dev: &GpuDevice,
    job: &Job,
    share: &Share<'_>,
    params: &P::Params,
    buffers: &P::Buffers,
    roots: Result<&[P::Task], Error>,
    opts: &GpuOptions,
    mut phases: Phases,
    steps: &mut Steps,
) -> Result<Result<PeShare, Error>, Error> {
    let t1 = Instant::now();
    let capacity = share.capacity;

    // 2. This GPU's own memory and inputs, as a one-GPU run's (no progress words: nobody
    //    watches a multi-GPU run); every GPU learns whether all of them have theirs.
    let local = roots.and_then(|roots| prepare_share::<P, _>(target, &opts.kernel, share.grid, params, buffers, roots, (job.rank, job.gpus), false));
    let ready = local.as_ref().map(|_| ()).map_err(Error::copied);
    if let Err(e) = vote(job, &ready)? {
        return Ok(Err(local.err().unwrap_or(e)));
    }
    steps.mark("inputs, voted");
    let (run, tables) = local.expect("voted ready");

    // 3. The symmetric heap (collective: the same size on every GPU), then the peer mappings,
    //    voted on before anything waits on them.
    let layout = share.layout;
    let pe = job.pe();
    // (WSDSL_MULTI_ON_ONE=2, a measurement of `lab` builds: a one-GPU job's heap in ordinary
    // device memory.)
    let outside_heap = job.gpus == 1 && crate::settings::MULTI_ON_ONE.lab_from_env().ok().flatten() == Some(2);
    let heap = if outside_heap { pe.alloc_zeros_outside_heap::<u8>(layout.bytes) } else { pe.alloc_zeros::<u8>(layout.bytes) };
    let heap_at = heap.as_ref().map(|h| h.device_ptr()).map_err(Error::copied);
    let unreachable = |other: u32| {
        Error::InvalidConfig(format!(
            "GPU {} cannot reach GPU {other}'s memory directly, though both are on one host (no NVLink or PCIe peer access between them): the multi-GPU scheduler steals through peer mappings on one host; if they are in fact on different hosts of the same name, set {}=<number of hosts> (docs/multi-gpu.md)",
            job.rank,
            super::process::HOST_GROUPS_VAR
        ))
    };
    // Another host's GPU has no mapping here (0 in the table): the kernel reaches it by
    // one-sided calls. A GPU of this host must be mapped.
    let hosts = share.hosts;
    let peers: Result<Vec<u64>, Error> = heap_at.and_then(|at| {
        (0..job.gpus)
            .map(|other| match hosts[other as usize] == hosts[job.rank as usize] {
                true if outside_heap => Ok(at),
                true => pe.peer_address(at, other).ok_or_else(|| unreachable(other)),
                false => Ok(0),
            })
            .collect()
    });
    let table = peers.and_then(|p| {
        let at = target.upload("every GPU's heap, as mapped here", &p.iter().flat_map(|a| a.to_le_bytes()).collect::<Vec<u8>>())?;
        if let Some(join) = &layout.join {
            // The pool's empty stacks (the rest of it starts zeroed), and the kernel's record.
            let heap = p[job.rank as usize];
            target.ready()?;
            // SAFETY: the stacks lie inside this GPU's heap (the layout sized it).
            unsafe { cudarc::driver::result::memcpy_htod_sync(heap + join.stacks_at, &join.stacks_image()) }
                .map_err(Error::driver("preparing the join pool"))?;
            target.write_join(join.record(heap, at, job.rank, job.gpus))?;
        }
        target.ready()?;
        Ok((p, at))
    });
    let mapped = table.as_ref().map(|_| ()).map_err(Error::copied);
    let verdict = vote(job, &mapped);
    let (heap, peers, pe_heaps) = match (verdict, table, heap) {
        (Ok(Ok(())), Ok((p, at)), Ok(h)) => (h, p, at),
        // Everyone leaves here, freeing the heap together (the drop is collective).
        (Ok(Err(e)), t, _) => return Ok(Err(t.err().unwrap_or(e))),
        (Ok(Ok(())), Err(e), _) | (Ok(Ok(())), _, Err(e)) => return Ok(Err(e)),
        (Err(broken), _, heap) => {
            // A process stopped answering: no collective free either.
            std::mem::forget(heap);
            return Err(broken);
        }
    };

    steps.mark("heap, mappings, voted");
    let base = heap.device_ptr();
    let record = share_record(&run, &tables, layout, capacity, base, pe_heaps, (job.rank, job.gpus));
    // No GPU may start stealing before every GPU's heap is cleared.
    pe.barrier_all();
    steps.mark("barrier");
    phases.launch = t1.elapsed();
    // SAFETY: the record points to this run's memory on `target` and to symmetric memory that
    // outlive the kernel (a kernel that ignores a stop request leaks both, below), and the grid
    // is within the occupancy limit every GPU proposed.
    let ran = unsafe {
        target.launch(record_bytes(&record), share.grid, opts.kernel.block_threads, true, Instant::now(), "launching the multi-GPU megakernel")
    };
    if ran.is_err() {
        // This GPU's kernel never ran, stopped early or will not stop: the others must not
        // wait for it.
        let _ = dev.ctx.bind_to_thread();
        // (Another host's GPU has no mapping, 0 in the table: it is not told, and ends by its
        // watchdog or its detector's `stop` from a GPU that did run.)
        for &peer in peers.iter().filter(|&&p| p != base && p != 0) {
            // SAFETY: `peer` is another GPU's heap as mapped for this GPU; its `stop` word is
            // a u32 at STOP_OFFSET, which that GPU's kernel polls.
            let _ = unsafe { cudarc::driver::result::memcpy_htod_sync(peer + STOP_OFFSET, &[1u32][..]) };
        }
    }
    // Every GPU's kernel has ended (or its GPU says that it will not) before any frees the
    // heap (a thief elsewhere may read it until its own kernel sees the end). Through the
    // sockets, not NVSHMEM's barrier: a process that died is noticed instead of waited for.
    steps.mark("kernel");
    let stuck_here = matches!(&ran, Err(Error::Watchdog { stopped: false, .. }));
    let ended = match job.all_gather(vec![stuck_here as u8]) {
        Ok(ended) => ended,
        Err(broken) => {
            std::mem::forget(heap);
            return Err(broken);
        }
    };
    if ended.iter().any(|said| said.first() == Some(&1)) {
        // A kernel still runs somewhere: its memory (and every heap, which it may reach) must
        // stay valid, and the collective free would wait for it for good. Every GPU still
        // sends its result, so that each process names the GPU that hung; the job breaks
        // after that (`run_gpus`).
        if stuck_here {
            target.abandon();
        }
        std::mem::forget(heap);
        return Ok(Err(ran.err().unwrap_or(Error::StoppedByPeer)));
    }
    steps.mark("every kernel ended");
    phases.run = match ran {
        Ok(run) => run,
        Err(e) => return Ok(Err(e)),
    };
    let t2 = Instant::now();
    let read = (|| {
        status_result::<P>(&target.status()?, |w| format!("the deque of worker {w} on GPU {} (program `{}`)", job.rank, P::NAME))?;
        // No writable buffers on several GPUs (`check_program`): only the counters come back.
        let counter_slots = target.read_back::<P>(buffers)?;
        let mut stats = read_worker_stats(target, run.workers, capacity as u64, phases)?;
        let mut root_values = Vec::new();
        if let Some(join) = &layout.join {
            root_values = vec![0u8; join.root_values_bytes];
            let mut sent = [0u64];
            // SAFETY: the values and the inbox's count lie inside this GPU's heap; every
            // kernel has ended.
            unsafe {
                cudarc::driver::result::memcpy_dtoh_sync(&mut root_values, base + join.root_values_at)
                    .and_then(|()| cudarc::driver::result::memcpy_dtoh_sync(&mut sent, base + join.inbox_at))
            }
            .map_err(Error::driver("reading the roots' values"))?;
            target.read_join()?.apply_to(&mut stats);
            stats.sent_home = sent[0];
        }
        stats.phases.copy_back = t2.elapsed();
        stats.phases.transfers = target.transfers();
        Ok(PeShare { counter_slots, root_values, stats })
    })();
    steps.mark("read back");
    Ok(read)
}
