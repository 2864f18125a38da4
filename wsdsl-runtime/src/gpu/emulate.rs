//! Runs a program's kernel on the host, so the scheduler templates are exercised without a
//! GPU: the assembled source (templates + generated handlers) is compiled by the host C++
//! compiler with `cuda/host/` shims in place of the PTX atomics, and run with every emulated
//! GPU thread a fiber (see `cuda/host/emulation.h`). This is a test instrument — it checks
//! that every scheduler configuration computes exact answers — not a fast backend.
//!
//! Memory that is "device memory" on the GPU is host memory here, laid out exactly as the
//! GPU launch records describe it (`persistent.rs`, `static_run.rs`).

use super::assemble::{host_kernel_source, stable_hash, KernelConfig, Scheduler};
use super::broker_run::{name as broker_name, slots_define, slots_for, BrokerRecord, QUEUE_TAG, STAGING_PER_THREAD};
use super::inputs::{encode_tasks, status_result, STATUS_WORDS};
use super::join::{decode_root_values, root_value_bytes, JoinMemory, JoinRecord, PoolShape, JOIN_RECORD_BYTES};
use super::launch::{worker_stats, STATS_PER_WORKER};
use super::persistent::{LaunchRecord, DEQUE_BYTES, MAX_SM_IDS};
use super::static_run::StaticRecord;
use crate::buffer::BufferSet;
use crate::cache::{self, Checked};
use crate::error::{Error, RanOn};
use crate::program::{CounterSet, Program, RunResult};
use crate::value::TaskValue;
use crate::stats::{Phases, Stats};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The emulated grid.
#[derive(Debug, Clone, Copy)]
pub struct Emulation {
    /// Blocks (two share an emulated SM).
    pub grid: u32,
    /// Threads per block (replaces the configuration's block size).
    pub block_threads: u32,
    /// OS threads the blocks are dealt to.
    pub os_threads: u32,
    /// Slots per deque (static scheduler: per task array).
    pub capacity: u32,
    /// Slots per broker queue. A FIFO queue holds a whole breadth-first level of the task
    /// tree, not a depth-first frontier as a deque does, so it needs far more.
    pub queue_capacity: u32,
    /// Longest a run may take before it is stopped and reported.
    pub watchdog: Duration,
    /// Join frames in the pool (programs with complete handlers).
    pub frames: u32,
}

impl Default for Emulation {
    fn default() -> Self {
        Emulation {
            grid: 4,
            block_threads: 64,
            os_threads: 2,
            capacity: 8192,
            queue_capacity: 1 << 20,
            watchdog: Duration::from_secs(120),
            frames: 1 << 18,
        }
    }
}

/// Bytes of each emulated GPU thread's fiber stack (`cuda/host/emulation.h`).
const FIBER_STACK: usize = 256 * 1024;

/// The largest task the emulation runs: a fiber's stack holds several copies of the task it
/// runs (the one popped, the handler's, the children it spawns), and a task that does not
/// fit would overflow it and kill the process.
pub const MAX_TASK_BYTES: usize = FIBER_STACK / 16;

/// Refuses a program whose task record is larger than [`MAX_TASK_BYTES`].
pub(crate) fn check_task_size<P: Program>() -> Result<(), Error> {
    if P::TASK_BYTES > MAX_TASK_BYTES {
        return Err(Error::InvalidConfig(format!(
            "a task of `{}` takes {} bytes, but the host emulation runs tasks of at most {MAX_TASK_BYTES} bytes \
             (each emulated GPU thread runs on a fiber stack of {} KiB); keep large data in a #[buffers] array \
             and the index in the task",
            P::NAME,
            P::TASK_BYTES,
            FIBER_STACK >> 10
        )));
    }
    Ok(())
}

type Launch = unsafe extern "C" fn(*const u8, u32, u32, u32);
type StatusAddress = unsafe extern "C" fn() -> *mut u64;
type QueueBytes = unsafe extern "C" fn() -> u64;
type JoinAddress = unsafe extern "C" fn() -> *mut u8;

/// A compiled host kernel: its library stays loaded for the life of the process.
pub(crate) struct HostKernel {
    /// The program, as a watchdog error names it.
    program: &'static str,
    pub(crate) launch: Launch,
    pub(crate) status: StatusAddress,
    /// Bytes of one broker queue (broker schedulers only).
    queue_bytes: Option<QueueBytes>,
    /// The address of `wsdsl_join` (programs with joins only).
    join: Option<JoinAddress>,
}

impl HostKernel {
    /// Points the library's `wsdsl_join` at a pool; false if the program has no joins.
    pub(crate) fn write_join(&self, record: JoinRecord) -> bool {
        let Some(address) = self.join else { return false };
        // SAFETY: `wsdsl_join` is a record of this size in the loaded library; no kernel of
        // this library runs now (the caller's run owns it).
        unsafe { std::ptr::copy_nonoverlapping(record.to_bytes().as_ptr(), address(), JOIN_RECORD_BYTES) };
        true
    }

    /// The library's `wsdsl_join` after a run (programs with joins).
    pub(crate) fn read_join(&self) -> Option<JoinRecord> {
        let address = self.join?;
        // SAFETY: as above; the kernel has returned.
        Some(JoinRecord::from_bytes(unsafe { std::slice::from_raw_parts(address(), JOIN_RECORD_BYTES) }))
    }
}

/// Compiles (or finds in this process or the disk cache) the host build of `P` for `config`
/// (`prefix` goes first: the broker schedulers' queue size).
fn host_kernel<P: Program>(config: &KernelConfig, prefix: &str) -> Result<Arc<HostKernel>, Error> {
    host_kernel_copy::<P>(&format!("{prefix}{}", host_kernel_source::<P>(config)), 0)
}

/// The host build of `source`; `copy` > 0 loads a separate copy of the library, whose
/// statics (the status record, the emulated grid) are its own: one per emulated GPU of a
/// multi-GPU run, which run at the same time in this process.
pub(crate) fn host_kernel_copy<P: Program>(source: &str, copy: u32) -> Result<Arc<HostKernel>, Error> {
    static LOADED: OnceLock<Mutex<HashMap<(u64, u32), Arc<HostKernel>>>> = OnceLock::new();
    let key = stable_hash(&[source, "host-emulation"]);
    let mut loaded = LOADED.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = loaded.get(&(key, copy)) {
        return Ok(k.clone());
    }
    let (dir, kept) = emulation_dir()?;
    let mut lib = dir.join(format!("{}-{key:016x}-host.so", P::NAME));
    // Loaded only once its bytes are checked (`cache/`): a truncated library would kill the
    // process as it is mapped, a foreign one would run its initialisers here.
    let image = match cache::read_checked(&lib, source.as_bytes()) {
        Checked::Hit(image) => image,
        found => {
            if let Checked::Bad(why) = found {
                eprintln!("wsdsl: the cached host kernel {} is not used ({why}); compiling it again", lib.display());
            }
            let image = compile(source, &dir, P::NAME)?;
            cache::write_checked(&lib, source.as_bytes(), &image)
                .map_err(|e| Error::InvalidConfig(format!("cannot write the host kernel {}: {e}", lib.display())))?;
            image
        }
    };
    if copy > 0 {
        // The loader keeps one instance per path: a copy under another name is another
        // instance. Written from the checked bytes.
        let copied = dir.join(format!("{}-{key:016x}-host-{copy}-{}.so", P::NAME, std::process::id()));
        std::fs::write(&copied, &image).map_err(|e| Error::InvalidConfig(format!("cannot write {} for emulated GPU {copy}: {e}", copied.display())))?;
        lib = copied;
    }
    // SAFETY: the library is our own kernel build; its initialisers only set up statics.
    // RTLD_NOW: an unresolved symbol is a load error here, not a crash in the middle of a run.
    let library = unsafe { libloading::os::unix::Library::open(Some(&lib), libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL) }
        .map_err(|e| Error::InvalidConfig(format!("cannot load the host kernel {}: {e}", lib.display())))?;
    // SAFETY: both symbols are defined by `host_kernel_source` with these signatures.
    let kernel = unsafe {
        let launch = *library.get::<Launch>(b"ws_host_launch\0").map_err(|e| Error::InvalidConfig(e.to_string()))?;
        let status = *library.get::<StatusAddress>(b"ws_host_status\0").map_err(|e| Error::InvalidConfig(e.to_string()))?;
        let queue_bytes = library.get::<QueueBytes>(b"ws_host_broker_queue_bytes\0").ok().map(|f| *f);
        let join = library.get::<JoinAddress>(b"ws_host_join\0").ok().map(|f| *f);
        HostKernel { program: P::NAME, launch, status, queue_bytes, join }
    };
    std::mem::forget(library);
    if copy > 0 || !kept {
        // Loaded: the mapping outlives the file, which only this process used (or which a
        // directory of this process only holds).
        let _ = std::fs::remove_file(&lib);
    }
    if !kept {
        let _ = std::fs::remove_file(dir.join(format!("{}-{key:016x}-host.so.check", P::NAME)));
        let _ = std::fs::remove_dir(&dir);
    }
    let kernel = Arc::new(kernel);
    loaded.insert((key, copy), kernel.clone());
    Ok(kernel)
}

/// Where the host kernels are kept: `emulation/` in the private cache directory (`cache/`);
/// where there is none, a fresh private directory of this process, emptied as each kernel is
/// loaded (false).
fn emulation_dir() -> Result<(PathBuf, bool), Error> {
    if let Some(dir) = super::compile::kernel_dir().map(|root| cache::private_dir(&root.join("emulation"))) {
        match dir {
            Ok(dir) => return Ok((dir, true)),
            Err(why) => cache::warn_once(format!("host kernels are not cached: {why}")),
        }
    }
    cache::process_dir("emulation").map(|dir| (dir, false)).map_err(Error::InvalidConfig)
}

/// Compiles `source` with the host C++ compiler in `dir`; the shared library's bytes.
fn compile(source: &str, dir: &std::path::Path, program: &'static str) -> Result<Vec<u8>, Error> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!("{program}-{}-{n}.building.so", std::process::id()));
    let mut child = Command::new("c++")
        .args(["-std=c++17", "-O2", "-U_FORTIFY_SOURCE", "-fPIC", "-shared", "-pthread", "-w", "-x", "c++", "-", "-o"])
        .arg(&tmp)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::InvalidConfig(format!("the host emulation needs a C++ compiler (`c++`): {e}")))?;
    child.stdin.take().expect("piped").write_all(source.as_bytes()).map_err(|e| Error::InvalidConfig(e.to_string()))?;
    let output = child.wait_with_output().map_err(|e| Error::InvalidConfig(e.to_string()))?;
    if !output.status.success() {
        let _ = std::fs::remove_file(&tmp);
        let log = String::from_utf8_lossy(&output.stderr).lines().take(40).collect::<Vec<_>>().join("\n");
        return Err(Error::Compile { program, compiler: "the host C++ compiler", log, source: None, excerpt: String::new() });
    }
    let image = std::fs::read(&tmp).map_err(|e| Error::InvalidConfig(format!("cannot read the host kernel {}: {e}", tmp.display())));
    let _ = std::fs::remove_file(&tmp);
    image
}

/// Host memory standing in for a device allocation (8-byte aligned, zeroed).
pub(crate) struct HostBuf(pub(crate) Vec<u64>);

impl HostBuf {
    pub(crate) fn zeroed(bytes: usize) -> Self {
        HostBuf(vec![0; bytes.div_ceil(8).max(1)])
    }
    pub(crate) fn from_bytes(bytes: &[u8]) -> Self {
        let mut b = Self::zeroed(bytes.len());
        b.bytes_mut()[..bytes.len()].copy_from_slice(bytes);
        b
    }
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: a u64 buffer viewed as its bytes.
        unsafe { std::slice::from_raw_parts_mut(self.0.as_mut_ptr() as *mut u8, self.0.len() * 8) }
    }
    pub(crate) fn addr(&mut self) -> u64 {
        self.0.as_mut_ptr() as u64
    }
}

/// Parameters, buffers and counters in host memory, as `inputs.rs` lays them out on the GPU.
pub(crate) struct HostInputs {
    pub(crate) params: HostBuf,
    buffers: Vec<HostBuf>,
    pub(crate) table: HostBuf,
    pub(crate) counters: HostBuf,
    counter_count: usize,
}

impl HostInputs {
    pub(crate) fn new<P: Program>(params: &P::Params, buffers: &P::Buffers) -> Self {
        let mut param_bytes = vec![0u8; P::PARAMS_BYTES.max(1)];
        P::encode_params(params, &mut param_bytes);
        let mut copies: Vec<HostBuf> = buffers.buffers().iter().map(|b| HostBuf::from_bytes(&b.to_bytes())).collect();
        let mut table = Vec::new();
        for (copy, b) in copies.iter_mut().zip(buffers.buffers()) {
            table.push(copy.addr());
            table.push(b.len() as u64);
        }
        table.push(0);
        let init: Vec<u64> = <P::Counters as CounterSet>::SLOTS.iter().map(|s| s.initial_bits()).collect();
        HostInputs {
            params: HostBuf::from_bytes(&param_bytes),
            buffers: copies,
            table: HostBuf(table),
            counter_count: init.len(),
            counters: HostBuf(if init.is_empty() { vec![0] } else { init }),
        }
    }

    /// The counters' raw slots, as a GPU of a multi-GPU run sends them (`gpu/multi/record.rs`).
    pub(crate) fn counter_slots(&self) -> Vec<u64> {
        self.counters.0[..self.counter_count].to_vec()
    }

    pub(crate) fn read_back<P: Program>(mut self, buffers: &P::Buffers) -> P::Counters {
        for (copy, b) in self.buffers.iter_mut().zip(buffers.buffers()) {
            if b.residency().is_none() {
                b.load_bytes(copy.bytes_mut());
            }
        }
        <P::Counters as CounterSet>::from_slots(&self.counters.0[..self.counter_count])
    }
}

/// Runs `roots` on the host build of `P`'s kernel for `config`.
pub fn run_emulated<P: Program>(
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    config: &KernelConfig,
    emu: &Emulation,
) -> Result<RunResult<P>, Error> {
    let config = KernelConfig { block_threads: emu.block_threads, ..*config };
    config.validate_for::<P>().map_err(Error::InvalidConfig)?;
    check_task_size::<P>()?;
    let started = Instant::now();
    let broker_slots = slots_for(emu.queue_capacity);
    let prefix = match config.scheduler {
        Scheduler::Bq | Scheduler::Bwd | Scheduler::Bsq => slots_define(broker_slots),
        _ => String::new(),
    };
    let kernel = host_kernel::<P>(&config, &prefix)?;
    let phases = Phases { compile: started.elapsed(), ..Phases::default() };
    let root_bytes = encode_tasks::<P>(roots);
    let mut inputs = HostInputs::new::<P>(params, buffers);
    let shape = PoolShape::of(&config, (emu.grid * emu.block_threads) as usize);
    let mut join = HostJoin::prepare::<P>(&kernel, roots.len(), shape, emu.frames);
    let ran = (|| match config.scheduler {
        Scheduler::Static => run_static::<P>(&kernel, &config, emu, roots.len(), &root_bytes, inputs, phases),
        Scheduler::Deque => {
            let stats = run_persistent::<P>(&kernel, &config, emu, roots.len(), &root_bytes, &mut inputs, phases)?;
            Ok((stats, inputs))
        }
        Scheduler::Bq | Scheduler::Bwd | Scheduler::Bsq => {
            let stats = run_broker::<P>(&kernel, &config, emu, broker_slots, roots.len(), &root_bytes, &mut inputs, phases)?;
            Ok((stats, inputs))
        }
    })();
    let (mut stats, inputs) = match ran {
        Ok(r) => r,
        Err(e) => {
            if matches!(e, Error::Watchdog { stopped: false, .. }) {
                // The kernel thread still runs and may touch the frames.
                std::mem::forget(join);
            }
            return Err(e);
        }
    };
    let values = match &mut join {
        Some(j) => j.results::<P>(&kernel, roots, &mut stats),
        None => vec![P::Value::placeholder(); roots.len()],
    };
    Ok((inputs.read_back::<P>(buffers), values, stats))
}

/// The frame pool and the roots' values in host memory, and the kernel's `wsdsl_join`
/// pointing at them (`gpu/join.rs` on the GPU).
struct HostJoin {
    _frames: HostBuf,
    _parked: HostBuf,
    _stacks: HostBuf,
    root_values: HostBuf,
}

impl HostJoin {
    fn prepare<P: Program>(kernel: &HostKernel, roots: usize, shape: PoolShape, frames: u32) -> Option<HostJoin> {
        let layout = P::JOIN?;
        kernel.join?;
        let mut pool = HostBuf::zeroed(frames as usize * layout.frame_bytes);
        let memory = JoinMemory::new(layout.frame_bytes, shape);
        let parked_bytes: Vec<u8> = memory.parked.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut parked = HostBuf::from_bytes(&parked_bytes);
        let mut stacks = HostBuf(memory.stacks);
        let mut root_values = HostBuf::zeroed(roots.max(1) * root_value_bytes::<P>());
        kernel.write_join(JoinRecord::new(pool.addr(), root_values.addr(), frames, parked.addr(), shape, stacks.addr()));
        Some(HostJoin { _frames: pool, _parked: parked, _stacks: stacks, root_values })
    }

    fn results<P: Program>(&mut self, kernel: &HostKernel, roots: &[P::Task], stats: &mut Stats) -> Vec<P::Value> {
        kernel.read_join().expect("prepared with the join record").apply_to(stats);
        decode_root_values::<P>(self.root_values.bytes_mut(), roots)
    }
}

fn run_persistent<P: Program>(
    kernel: &HostKernel,
    config: &KernelConfig,
    emu: &Emulation,
    root_count: usize,
    root_bytes: &[u8],
    inputs: &mut HostInputs,
    mut phases: Phases,
) -> Result<Stats, Error> {
    let workers = emu.grid * (emu.block_threads / config.worker_threads());
    let capacity = emu.capacity;
    if (root_count as u64).div_ceil(workers as u64) > capacity as u64 {
        return Err(Error::QueueOverflow { queue: "a worker deque (holding the initial tasks)".into(), capacity: capacity as u64, needed: (root_count as u64).div_ceil(workers as u64) });
    }
    let mut slots = HostBuf::zeroed(workers as usize * capacity as usize * P::TASK_BYTES);
    let mut deques = HostBuf::zeroed(workers as usize * DEQUE_BYTES);
    let mut roots = HostBuf::from_bytes(root_bytes);
    let mut stats = HostBuf::zeroed(workers as usize * STATS_PER_WORKER * 8);
    let mut idle = HostBuf::zeroed(128);
    let mut stop = HostBuf::zeroed(8);
    // The workers' progress words are written here too, so the host build exercises them.
    let mut progress = HostBuf::zeroed(workers as usize * 8);
    let mut sm_of = HostBuf(vec![u64::MAX; (workers as usize).div_ceil(2)]);
    let mut sm_leader = HostBuf(vec![u64::MAX; MAX_SM_IDS / 2]);
    let record = LaunchRecord {
        slots: slots.addr(),
        deques: deques.addr(),
        roots: roots.addr(),
        params: inputs.params.addr(),
        buffers: inputs.table.addr(),
        counter_slots: inputs.counters.addr(),
        stats: stats.addr(),
        state: idle.addr(),
        stop: stop.addr(),
        progress: progress.addr(),
        sm_of: sm_of.addr(),
        sm_leader: sm_leader.addr(),
        workers,
        capacity,
        root_count: root_count as u32,
        seed: 0x5EED_1234,
        pe_heaps: 0,
        pe: 0,
        n_pes: 1,
    };
    let ran = Instant::now();
    if let Err(e) = launch(kernel, &record as *const LaunchRecord as *const u8, record.stop, emu) {
        if matches!(e, Error::Watchdog { stopped: false, .. }) {
            // The kernel thread still runs: its memory must stay valid.
            std::mem::forget((slots, deques, roots, stats, idle, stop, progress, sm_of, sm_leader));
        }
        return Err(e);
    }
    phases.run = ran.elapsed();
    status_result::<P>(&status(kernel), |w| format!("the deque of emulated worker {w} (program `{}`)", P::NAME))?;
    Ok(worker_stats(&stats.0, capacity as u64, phases))
}

#[allow(clippy::too_many_arguments)]
fn run_broker<P: Program>(
    kernel: &HostKernel,
    config: &KernelConfig,
    emu: &Emulation,
    slots: u64,
    root_count: usize,
    root_bytes: &[u8],
    inputs: &mut HostInputs,
    mut phases: Phases,
) -> Result<Stats, Error> {
    let per_queue = config.scheduler == Scheduler::Bsq;
    let group = config.worker_threads();
    let workers = emu.grid * (emu.block_threads / group);
    let queue_count = if per_queue { emu.grid } else { 1 };
    let staging_cap = group * STAGING_PER_THREAD;
    if root_count as u64 > slots * queue_count as u64 {
        return Err(Error::QueueOverflow { queue: format!("the {} queues (holding the initial tasks)", broker_name(config)), capacity: slots, needed: root_count as u64 });
    }
    // SAFETY: a function defined by the host build of every broker scheduler.
    let queue_bytes = unsafe { (kernel.queue_bytes.expect("broker host kernels export their queue size"))() };
    let mut queues = HostBuf::zeroed((queue_count as u64 * queue_bytes) as usize);
    let mut staging = HostBuf::zeroed(workers as usize * staging_cap as usize * P::TASK_BYTES);
    let mut roots = HostBuf::from_bytes(root_bytes);
    let mut stats = HostBuf::zeroed(workers as usize * STATS_PER_WORKER * 8);
    let mut pending = HostBuf(vec![root_count as u64]); // the u32 count, little-endian
    let mut stop = HostBuf::zeroed(8);
    let mut progress = HostBuf::zeroed(workers as usize * 8);
    let record = BrokerRecord {
        queues: queues.addr(),
        staging: staging.addr(),
        roots: roots.addr(),
        params: inputs.params.addr(),
        buffers: inputs.table.addr(),
        counter_slots: inputs.counters.addr(),
        stats: stats.addr(),
        pending: pending.addr(),
        stop: stop.addr(),
        progress: progress.addr(),
        workers,
        queue_count,
        staging_cap,
        root_count: root_count as u32,
    };
    let ran = Instant::now();
    if let Err(e) = launch(kernel, &record as *const BrokerRecord as *const u8, record.stop, emu) {
        if matches!(e, Error::Watchdog { stopped: false, .. }) {
            std::mem::forget((queues, staging, roots, stats, pending, stop, progress));
        }
        return Err(e);
    }
    phases.run = ran.elapsed();
    status_result::<P>(&status(kernel), |arg| {
        if arg >= QUEUE_TAG {
            format!("the emulated {} queue {} (program `{}`)", broker_name(config), arg - QUEUE_TAG, P::NAME)
        } else {
            format!("the child staging area of emulated worker {arg} (program `{}`)", P::NAME)
        }
    })?;
    Ok(worker_stats(&stats.0, slots, phases))
}

fn run_static<P: Program>(
    kernel: &HostKernel,
    _config: &KernelConfig,
    emu: &Emulation,
    root_count: usize,
    root_bytes: &[u8],
    mut inputs: HostInputs,
    mut phases: Phases,
) -> Result<(Stats, HostInputs), Error> {
    let capacity = (emu.capacity as usize * 64).max(root_count);
    let mut current = HostBuf::zeroed(capacity * P::TASK_BYTES);
    current.bytes_mut()[..root_bytes.len().min(root_count * P::TASK_BYTES)].copy_from_slice(&root_bytes[..root_count * P::TASK_BYTES]);
    let mut next = HostBuf::zeroed(capacity * P::TASK_BYTES);
    let mut count = HostBuf::zeroed(8);
    let mut stop = HostBuf::zeroed(8);
    let ran = Instant::now();
    let (mut n, mut tasks, mut widest, mut generations) = (root_count as u64, 0u64, root_count as u64, 0u64);
    while n > 0 {
        count.0[0] = 0;
        let record = StaticRecord {
            input: current.addr(),
            output: next.addr(),
            out_count: count.addr(),
            params: inputs.params.addr(),
            buffers: inputs.table.addr(),
            counter_slots: inputs.counters.addr(),
            stop: stop.addr(),
            n_in: n as u32,
            capacity: capacity as u32,
        };
        if let Err(e) = launch(kernel, &record as *const StaticRecord as *const u8, record.stop, emu) {
            if matches!(e, Error::Watchdog { stopped: false, .. }) {
                std::mem::forget((current, next, count, stop, inputs));
            }
            return Err(e);
        }
        status_result::<P>(&status(kernel), |_| "the static scheduler's task array".into())?;
        let created = count.0[0] & 0xffff_ffff;
        if created > capacity as u64 {
            return Err(Error::QueueOverflow { queue: "the static scheduler's task array".into(), capacity: capacity as u64, needed: created });
        }
        tasks += n;
        generations += 1;
        widest = widest.max(created);
        std::mem::swap(&mut current, &mut next);
        n = created;
    }
    phases.run = ran.elapsed();
    let stats = Stats { tasks, generations, peak_queue: widest, queue_capacity: capacity as u64, phases, ..Stats::default() };
    Ok((stats, inputs))
}

/// Clears the status record, runs the kernel on its own thread, and applies the watchdog.
/// `stop_flag` is the address of the record's stop flag, which the watchdog raises.
pub(crate) fn launch(kernel: &HostKernel, record: *const u8, stop_flag: u64, emu: &Emulation) -> Result<(), Error> {
    // SAFETY: the status record is STATUS_WORDS u64 in the loaded library; no kernel is running.
    unsafe { std::ptr::write_bytes((kernel.status)(), 0, STATUS_WORDS) };
    let (done_tx, done_rx) = mpsc::channel();
    let (launch_fn, record_addr, grid, block, os) = (kernel.launch, record as usize, emu.grid, emu.block_threads, emu.os_threads);
    let handle = std::thread::spawn(move || {
        // SAFETY: the record and everything it points to outlive this call: the caller waits
        // for the thread below (or leaks the memory if the kernel never returns).
        unsafe { launch_fn(record_addr as *const u8, grid, block, os) };
        let _ = done_tx.send(());
    });
    if done_rx.recv_timeout(emu.watchdog).is_ok() {
        let _ = handle.join();
        return Ok(());
    }
    // SAFETY: the flag is a live, 8-byte aligned u32 that the kernel reads atomically.
    unsafe { (*(stop_flag as *const std::sync::atomic::AtomicU32)).store(1, std::sync::atomic::Ordering::SeqCst) };
    if done_rx.recv_timeout(Duration::from_secs(10)).is_ok() {
        let _ = handle.join();
        return Err(Error::Watchdog { program: kernel.program, on: RanOn::EmulatedGpu, limit: emu.watchdog, stopped: true });
    }
    // The emulated kernel ignores the stop request; the caller leaks its memory.
    std::mem::forget(handle);
    Err(Error::Watchdog { program: kernel.program, on: RanOn::EmulatedGpu, limit: emu.watchdog, stopped: false })
}


pub(crate) fn status(kernel: &HostKernel) -> Vec<u64> {
    // SAFETY: STATUS_WORDS u64 in the loaded library, written by the kernel that has returned.
    unsafe { std::slice::from_raw_parts((kernel.status)(), STATUS_WORDS).to_vec() }
}
