//! The NVSHMEM smoke check (`gpu-check nvshmem-smoke`): unique-id initialisation, compile +
//! link + load, `nvshmemx_cumodule_init`, symmetric memory, then kernels doing
//! `nvshmem_int_p` to the next PE (itself with one PE), `nvshmem_quiet`,
//! `nvshmem_int_atomic_fetch_add` from every thread, a device `nvshmem_barrier_all` and gets,
//! each result checked. With several PEs (one process each) the unique id travels through a
//! file: PE 0 writes it, the others wait for it.

use super::compile::compile_linked;
use super::host::{Pe, UniqueId};
use crate::error::Error;
use crate::gpu::device::GpuDevice;
use crate::gpu::build::elf::function_symbols;
use cudarc::driver::{LaunchConfig, PushKernelArg};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The kernels' source (compiled by NVRTC, linked with NVSHMEM's device library).
pub const SOURCE: &str = include_str!("../../../cuda/nvshmem/smoke.cu");
/// The program name (cache entries, messages).
pub const PROGRAM: &str = "nvshmem_smoke";
/// The entry point of its first kernel: every thread puts a value to the next PE and adds to
/// its counter there (`nvshmem_int_atomic_fetch_add`), then waits for both (`nvshmem_quiet`).
pub const PUT_ADD: &str = "wsdsl_nvshmem_put_add";
/// The entry point of its second kernel: a barrier across PEs, then what the first one wrote
/// read back with gets.
pub const BARRIER_GET: &str = "wsdsl_nvshmem_barrier_get";

/// One checked property.
#[derive(Debug)]
pub struct Check {
    /// What was checked.
    pub name: &'static str,
    /// Whether it held.
    pub pass: bool,
    /// What was seen (and, on a failure, what was expected).
    pub detail: String,
}

fn check(name: &'static str, pass: bool, detail: String) -> Check {
    Check { name, pass, detail }
}

/// Which PE this process is.
#[derive(Clone, Debug)]
pub struct Job {
    /// This PE's number, `0..nranks`.
    pub rank: u32,
    /// The number of PEs (one process each).
    pub nranks: u32,
    /// Where PE 0 writes the unique id for the others (needed with more than one PE; use a
    /// new path for every run, so no PE reads a stale id).
    pub uid_file: Option<PathBuf>,
}

impl Job {
    /// One PE: the unique id stays in this process.
    pub fn single() -> Job {
        Job { rank: 0, nranks: 1, uid_file: None }
    }

    /// PE 0 makes the id (and writes it, atomically, if there are others); the others read it.
    fn unique_id(&self) -> Result<UniqueId, Error> {
        let file = match (&self.uid_file, self.nranks) {
            (_, 1) => return UniqueId::new(),
            (Some(f), _) => f,
            (None, n) => return Err(Error::InvalidConfig(format!("{n} PEs need a file to pass the unique id through"))),
        };
        let io = |what: &str, e: std::io::Error| Error::InvalidConfig(format!("{what} {}: {e}", file.display()));
        if self.rank == 0 {
            let uid = UniqueId::new()?;
            let partial = file.with_extension("partial");
            std::fs::write(&partial, uid.to_bytes()).map_err(|e| io("writing the unique id to", e))?;
            std::fs::rename(&partial, file).map_err(|e| io("writing the unique id to", e))?;
            return Ok(uid);
        }
        let started = Instant::now();
        loop {
            if let Ok(bytes) = std::fs::read(file) {
                if let Ok(bytes) = <[u8; 128]>::try_from(bytes.as_slice()) {
                    return Ok(UniqueId::from_bytes(&bytes));
                }
            }
            if started.elapsed() > Duration::from_secs(120) {
                return Err(io("no unique id from PE 0 after 120 s in", std::io::Error::from(std::io::ErrorKind::TimedOut)));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Runs the smoke check as `job`'s PE on GPU `ordinal` with `threads` threads putting and
/// adding. An error is a step that could not run at all; wrong values are failed checks.
pub fn run(ordinal: usize, threads: u32, job: &Job) -> Result<Vec<Check>, Error> {
    let dev = GpuDevice::open(ordinal)?;
    let n = threads.max(1) as usize;
    let mut checks = Vec::new();

    let uid = job.unique_id()?;
    // Declared before everything that uses NVSHMEM, so it is dropped (finalised) last.
    let pe = Pe::init(&dev.ctx, job.rank, job.nranks, &uid)?;
    if job.rank == 0 {
        if let Some(f) = &job.uid_file {
            let _ = std::fs::remove_file(f); // every PE has joined: nobody reads it again
        }
    }
    let (me, npes) = (pe.my_pe(), pe.n_pes());
    checks.push(check(
        "init by unique id",
        me == job.rank && npes == job.nranks,
        format!("nvshmem_my_pe {me} nvshmem_n_pes {npes} (expected {} and {})", job.rank, job.nranks),
    ));

    let cubin = compile_linked(PROGRAM, SOURCE, &dev.arch)?;
    let symbols = function_symbols(&cubin.image).unwrap_or_default();
    let both = symbols.iter().any(|s| s == PUT_ADD) && symbols.iter().any(|s| s == BARRIER_GET);
    checks.push(check(
        "compile + link",
        both,
        format!(
            "{} bytes for {}{}; {}",
            cubin.image.len(),
            dev.arch,
            if cubin.from_cache { " (from the cache)" } else { "" },
            if both { format!("{PUT_ADD} and {BARRIER_GET} among its functions") } else { format!("functions {symbols:?}") }
        ),
    ));
    let module = dev.ctx.load_module(cudarc::nvrtc::Ptx::from_binary(cubin.image)).map_err(Error::driver("loading the NVSHMEM kernels"))?;
    let put_add = module.load_function(PUT_ADD).map_err(Error::driver("finding the put/add kernel"))?;
    let barrier_get = module.load_function(BARRIER_GET).map_err(Error::driver("finding the barrier/get kernel"))?;
    pe.init_module(&put_add)?;

    let sym = pe.alloc_zeros::<i32>(n)?;
    let counter = pe.alloc_zeros::<i32>(1)?;
    let stream = &dev.stream;
    let mut old = stream.alloc_zeros::<i32>(n).map_err(Error::driver("allocating"))?;
    let mut out = stream.alloc_zeros::<i64>(4).map_err(Error::driver("allocating"))?;
    let (sym_ptr, counter_ptr, n_arg) = (sym.device_ptr(), counter.device_ptr(), n as i32);
    let block = 256u32;
    let grid = (n as u32).div_ceil(block);
    // SAFETY: the arguments match the kernels' signatures; every buffer outlives the
    // synchronisation below.
    unsafe {
        let mut b = stream.launch_builder(&put_add);
        b.arg(&sym_ptr).arg(&counter_ptr).arg(&mut old).arg(&n_arg);
        b.launch(LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 })
            .map_err(Error::driver("launching the put/add kernel"))?;
        pe.barrier_all_on_stream(stream);
        let mut b = stream.launch_builder(&barrier_get);
        b.arg(&sym_ptr).arg(&counter_ptr).arg(&mut out).arg(&n_arg);
        b.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 })
            .map_err(Error::driver("launching the barrier/get kernel"))?;
    }
    stream.synchronize().map_err(Error::driver("running the NVSHMEM kernels"))?;
    pe.barrier_all();

    let puts = sym.read()?;
    let wrong = puts.iter().enumerate().find(|&(i, &v)| v != 3 * i as i32 + 1);
    checks.push(check(
        "nvshmem_int_p + nvshmem_quiet",
        wrong.is_none(),
        match wrong {
            None => format!("{n} puts from PE {}, each sym[i] = 3i+1", (me + npes - 1) % npes),
            Some((i, v)) => format!("sym[{i}] = {v}, expected {}", 3 * i + 1),
        },
    ));
    let total = counter.read()?[0];
    let mut olds = stream.clone_dtoh(&old).map_err(Error::driver("reading the old values"))?;
    olds.sort_unstable();
    let permutation = olds.iter().enumerate().all(|(i, &v)| v == i as i32);
    checks.push(check(
        "nvshmem_int_atomic_fetch_add",
        total == n as i32 && permutation,
        format!("counter {total} (expected {n}); old values {}", if permutation { "a permutation of 0..n" } else { "NOT a permutation of 0..n" }),
    ));
    let got = stream.clone_dtoh(&out).map_err(Error::driver("reading the gets"))?;
    let sum = (0..n as i64).map(|i| 3 * i + 1).sum::<i64>();
    checks.push(check(
        "nvshmem_barrier_all + nvshmem_int_g (device)",
        got == [sum, n as i64, me as i64, npes as i64],
        format!("sum {} counter {} my_pe {} n_pes {} (expected {sum}, {n}, {me}, {npes})", got[0], got[1], got[2], got[3]),
    ));
    drop((sym, counter, module));
    Ok(checks)
}
