//! Runs a program's kernel on the host, so the scheduler templates are exercised without a
//! GPU: the assembled source (templates + generated handlers) is compiled by the host C++
//! compiler with `cuda/host/` shims in place of the PTX atomics, and run with every emulated
//! GPU thread a fiber (see `cuda/host/emulation.h`). This is a test instrument — it checks
//! that every scheduler configuration computes exact answers — not a fast backend.
//!
//! The host is a run's target ([`OnHost`]) as a GPU is: the same set-up path (`runner.rs`)
//! and the same scheduler code lay out "device memory" in host memory exactly as the launch
//! records describe it, and only loading, memory and launching are the host's own.

use super::assemble::{host_kernel_source, host_steal_policy, stable_hash};
use super::inputs::STATUS_WORDS;
use super::join::{JoinRecord, JOIN_RECORD_BYTES};
use super::runner::run_scheduled;
use super::spread::Roots;
use super::staging::{item_pieces, PIECE};
use super::target::{InputAddresses, Published, Sizes, Target};
use crate::buffer::BufferSet;
use crate::cache::{self, Checked};
use crate::error::{Error, RanOn};
use crate::program::{CounterSet, Program, RunResult};
use crate::schedule::KernelConfig;
use crate::stats::{Phases, Transfers};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Barrier, Mutex, OnceLock};
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
    /// How long a run the watchdog asked to stop has to stop before it is reported as one
    /// that does not (`Error::Watchdog` with `stopped: false`); its threads then spin on until
    /// the process ends.
    pub stop_wait: Duration,
    /// Join frames in the pool (programs with complete handlers).
    pub frames: u32,
    /// Across emulated GPUs: the offer at which another GPU's thief asks to share a deque
    /// (`WS_REMOTE_ASK`, `cuda/deque.cuh`; 128 on GPUs). An emulated GPU has a few workers,
    /// whose deques rarely hold 128 tasks: a quarter by default.
    pub remote_ask: u32,
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
            stop_wait: Duration::from_secs(10),
            frames: 1 << 18,
            remote_ask: 32,
        }
    }
}

/// Bytes of each emulated GPU thread's fiber stack (`WS_EMU_STACK_BYTES` in
/// `cuda/host/emulation.h`, defined from this by `assemble.rs`).
pub(crate) const FIBER_STACK: usize = 256 * 1024;

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

type Gate = unsafe extern "C" fn(*mut std::ffi::c_void);
type Launch = unsafe extern "C" fn(*const u8, u32, u32, u32, u32, u32, Option<Gate>, *mut std::ffi::c_void);
type StatusAddress = unsafe extern "C" fn() -> *mut u64;
type QueueBytes = unsafe extern "C" fn() -> u64;
type JoinAddress = unsafe extern "C" fn() -> *mut u8;
type SetHeaps = unsafe extern "C" fn(*const u64, u32, u32);

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
    /// Names every emulated GPU's heap for the one-sided calls (libraries built to reach
    /// other emulated hosts only: `host_pe_kernel_source`).
    set_heaps: Option<SetHeaps>,
    /// Whether a run holds the library ([`Turn`]).
    busy: std::sync::atomic::AtomicBool,
}

/// A run's hold on a host kernel: its statics (the status record, the join record, the
/// emulated grid, the victim policy of the launch) are one run's at a time, so runs of the
/// same library from several threads of a process take turns.
pub(crate) struct Turn(Arc<HostKernel>);

impl Turn {
    fn take(kernel: Arc<HostKernel>) -> Turn {
        use std::sync::atomic::Ordering;
        while kernel.busy.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
            std::thread::sleep(Duration::from_millis(1));
        }
        Turn(kernel)
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        self.0.busy.store(false, std::sync::atomic::Ordering::Release);
    }
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

    /// Tells the library, emulated GPU `pe`, where every emulated GPU's heap is (before a
    /// launch across emulated hosts).
    pub(crate) fn set_heaps(&self, heaps: &[u64], pe: u32) -> Result<(), Error> {
        let set = self.set_heaps.ok_or_else(|| Error::InvalidConfig(format!("the host build of `{}` does not reach other hosts", self.program)))?;
        // SAFETY: `ws_host_set_heaps` copies `heaps.len()` words; no kernel of this library runs.
        unsafe { set(heaps.as_ptr(), heaps.len() as u32, pe) };
        Ok(())
    }

    /// The library's `wsdsl_join` after a run (programs with joins).
    pub(crate) fn read_join(&self) -> Option<JoinRecord> {
        let address = self.join?;
        // SAFETY: as above; the kernel has returned.
        Some(JoinRecord::from_bytes(unsafe { std::slice::from_raw_parts(address(), JOIN_RECORD_BYTES) }))
    }
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
            let image = compile(source, &dir, kept, P::NAME)?;
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
        let set_heaps = library.get::<SetHeaps>(b"ws_host_set_heaps\0").ok().map(|f| *f);
        HostKernel { program: P::NAME, launch, status, queue_bytes, join, set_heaps, busy: false.into() }
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

/// The host compiler's options for a kernel library. -O1: the kernels are a test instrument
/// run on small inputs, and -O1 compiles a third faster than -O2 (most tests spend more time
/// compiling their kernels than running them).
const HOST_FLAGS: [&str; 5] = ["-std=c++17", "-O1", "-U_FORTIFY_SOURCE", "-fPIC", "-pthread"];

/// `cuda/host/std_headers.h`: the system headers of the host shims, precompiled.
const STD_HEADERS: &str = include_str!("../../cuda/host/std_headers.h");

/// Compiles `source` with the host C++ compiler in `dir`; the shared library's bytes. With a
/// cache directory the shims' system headers come precompiled ([`precompiled_headers`]),
/// which halves the build; should that build fail, it is tried once more without them.
fn compile(source: &str, dir: &std::path::Path, kept: bool, program: &'static str) -> Result<Vec<u8>, Error> {
    let pch = if kept { precompiled_headers(dir) } else { None };
    match (compile_with(source, dir, pch.as_deref(), program), &pch) {
        (Err(e), Some(header)) => {
            let plain = compile_with(source, dir, None, program).map_err(|_| e)?;
            // The source was sound, so the precompiled file was not: the next process builds
            // it again.
            let _ = std::fs::remove_file(gch_path(header));
            Ok(plain)
        }
        (result, _) => result,
    }
}

fn compile_with(source: &str, dir: &std::path::Path, pch: Option<&std::path::Path>, program: &'static str) -> Result<Vec<u8>, Error> {
    let tmp = dir.join(format!("{program}-{}-{}.building.so", std::process::id(), next_build()));
    let mut command = Command::new("c++");
    command.args(HOST_FLAGS);
    if let Some(header) = pch {
        command.arg("-include").arg(header);
    }
    let mut child = command
        .args(["-shared", "-w", "-x", "c++", "-", "-o"])
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

/// A number for a temporary file name, unique in this process.
fn next_build() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// `std-<key>.h` in `dir` with its precompiled `.gch` beside it, built on first use; the key
/// covers the headers, the options and the compiler, since GCC takes a `.gch` only from the
/// same compiler with the same options (and otherwise reads the header itself: slower, never
/// wrong). None where it cannot be built: every build then parses the headers.
fn precompiled_headers(dir: &std::path::Path) -> Option<PathBuf> {
    static BUILT: OnceLock<Mutex<HashMap<PathBuf, Option<PathBuf>>>> = OnceLock::new();
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    built.entry(dir.to_path_buf()).or_insert_with(|| build_precompiled_headers(dir)).clone()
}

fn build_precompiled_headers(dir: &std::path::Path) -> Option<PathBuf> {
    let version = Command::new("c++").arg("--version").output().ok()?;
    let key = stable_hash(&[STD_HEADERS, &HOST_FLAGS.join(" "), &String::from_utf8_lossy(&version.stdout)]);
    let header = dir.join(format!("std-{key:016x}.h"));
    let gch = gch_path(&header);
    if header.is_file() && gch.is_file() {
        return Some(header);
    }
    // Both written under temporary names and renamed into place: processes building the
    // same file at once each see a whole one.
    let n = next_build();
    let tmp_header = dir.join(format!("std-{key:016x}-{}-{n}.h", std::process::id()));
    std::fs::write(&tmp_header, STD_HEADERS).ok()?;
    let tmp_gch = gch_path(&tmp_header);
    let ok = Command::new("c++")
        .args(HOST_FLAGS)
        .args(["-x", "c++-header"])
        .arg(&tmp_header)
        .arg("-o")
        .arg(&tmp_gch)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let placed = ok && std::fs::rename(&tmp_gch, &gch).is_ok() && std::fs::rename(&tmp_header, &header).is_ok();
    let _ = std::fs::remove_file(&tmp_header);
    let _ = std::fs::remove_file(&tmp_gch);
    placed.then_some(header)
}

fn gch_path(header: &std::path::Path) -> PathBuf {
    let mut name = header.as_os_str().to_owned();
    name.push(".gch");
    PathBuf::from(name)
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
    params: HostBuf,
    buffers: Vec<HostBuf>,
    table: HostBuf,
    counters: HostBuf,
    counter_count: usize,
}

impl HostInputs {
    fn new<P: Program>(params: &P::Params, buffers: &P::Buffers) -> Self {
        let mut param_bytes = vec![0u8; P::PARAMS_BYTES.max(1)];
        P::encode_params(params, &mut param_bytes);
        // A scratch buffer starts cleared, as on the GPU, whatever the host wrote into it.
        let image = |b: &&dyn crate::buffer::DeviceBuffer| if b.scratch() { HostBuf::zeroed(b.len() * b.elem_bytes()) } else { HostBuf::from_bytes(&b.to_bytes()) };
        let mut copies: Vec<HostBuf> = buffers.buffers().iter().map(image).collect();
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

    fn addresses(&mut self) -> InputAddresses {
        InputAddresses { params: self.params.addr(), buffers: self.table.addr(), counters: self.counters.addr() }
    }

    /// The counters' raw slots, with the host's writable buffers refreshed from their copies.
    fn read_back<P: Program>(&mut self, buffers: &P::Buffers) -> Vec<u64> {
        for (copy, b) in self.buffers.iter_mut().zip(buffers.buffers()) {
            if b.residency().is_none() && !b.scratch() {
                b.load_bytes(copy.bytes_mut());
            }
        }
        self.counters.0[..self.counter_count].to_vec()
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
    run_emulated_raw::<P>(params, buffers, roots, config, emu).map(super::runner::decoded::<P>)
}

/// `run_emulated`, the counters left as slots.
pub(crate) fn run_emulated_raw<P: Program>(
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    config: &KernelConfig,
    emu: &Emulation,
) -> Result<super::runner::RawResult<P>, Error> {
    let config = KernelConfig { block_threads: emu.block_threads, ..*config };
    config.validate_for::<P>().map_err(Error::InvalidConfig)?;
    check_task_size::<P>()?;
    let sizes = Sizes {
        deque: Some(emu.capacity),
        // The static scheduler's arrays hold a whole generation: room for them all.
        task_array: Some((emu.capacity as usize * 64).max(roots.len()).min(u32::MAX as usize) as u32),
        broker_queue: Some(emu.queue_capacity),
        frames: Some(emu.frames),
    };
    run_scheduled::<P, _>(&mut OnHost::new(emu), &config, &sizes, params, buffers, &Roots::as_given(roots))
}

/// The host as a run's target: host memory by role standing in for device memory, the host
/// build of the kernel, and a launch on host threads under the watchdog.
pub(crate) struct OnHost<'a> {
    emu: &'a Emulation,
    kernel: Option<Arc<HostKernel>>,
    memory: HashMap<&'static str, HostBuf>,
    inputs: Option<HostInputs>,
    /// The address of the stop flag the watchdog raises.
    stop: u64,
    /// The victim policy and steal amount the kernel is launched with (`host_steal_policy`).
    policy: (u32, u32),
    /// Where the launch's OS threads wait for the other emulated GPUs' (multi-GPU runs).
    gate: Option<Arc<Barrier>>,
    /// This run's hold on the kernel's library, from loading it to the end of the run.
    turn: Option<Turn>,
}

impl<'a> OnHost<'a> {
    pub fn new(emu: &'a Emulation) -> Self {
        OnHost { emu, kernel: None, memory: HashMap::new(), inputs: None, stop: 0, policy: (0, 0), gate: None, turn: None }
    }

    /// A target whose kernel is `kernel`, built for `config` (each emulated GPU of a
    /// multi-GPU run loads its own copy of the library).
    pub fn with_kernel(emu: &'a Emulation, kernel: Arc<HostKernel>, config: &KernelConfig) -> Self {
        OnHost { turn: Some(Turn::take(kernel.clone())), kernel: Some(kernel), policy: host_steal_policy(config), ..OnHost::new(emu) }
    }

    /// Makes this target's launch wait at `gate` with the other emulated GPUs' launches: its
    /// OS threads start running blocks when every GPU's threads are ready.
    pub fn start_together(&mut self, gate: Arc<Barrier>) {
        self.gate = Some(gate);
    }

    fn kernel(&self) -> &HostKernel {
        self.kernel.as_ref().expect("the kernel is loaded first")
    }

    /// Keeps `buf` as the memory for `role` for the rest of the run; its address.
    fn take(&mut self, role: &'static str, mut buf: HostBuf) -> u64 {
        let address = buf.addr();
        // The vector's heap block does not move with it.
        self.memory.insert(role, buf);
        address
    }
}

impl Target for OnHost<'_> {
    const WORKER: &'static str = "emulated worker";

    fn load<P: Program>(&mut self, prelude: &str, config: &KernelConfig, phases: &mut Phases) -> Result<(), Error> {
        let started = Instant::now();
        let kernel = host_kernel_copy::<P>(&format!("{prelude}{}", host_kernel_source::<P>(config)), 0)?;
        self.turn = None;   // (a target loads once per run; never wait for its own turn)
        self.turn = Some(Turn::take(kernel.clone()));
        self.kernel = Some(kernel);
        self.policy = host_steal_policy(config);
        phases.compile = started.elapsed();
        Ok(())
    }

    fn max_blocks(&self, _: u32) -> u32 {
        self.emu.grid
    }

    fn blocks<P: Program>(&self, _: u32, _: Option<&str>) -> Result<u32, Error> {
        Ok(self.emu.grid)
    }

    fn free_memory(&self) -> Result<usize, Error> {
        // The emulation's sizes are fixed (`Emulation`), never chosen from free memory.
        Ok(usize::MAX >> 2)
    }

    fn free_for(&mut self, _: &[&str]) -> Result<usize, Error> {
        self.free_memory()
    }

    fn scratch(&mut self, role: &'static str, bytes: usize) -> Result<u64, Error> {
        self.zeroed(role, bytes)
    }

    fn zeroed(&mut self, role: &'static str, bytes: usize) -> Result<u64, Error> {
        Ok(self.take(role, HostBuf::zeroed(bytes)))
    }

    fn upload(&mut self, role: &'static str, data: &[u8]) -> Result<u64, Error> {
        Ok(self.take(role, HostBuf::from_bytes(data)))
    }

    fn upload_encoded(&mut self, role: &'static str, items: usize, width: usize, encode: &(dyn Fn(usize, &mut [u8]) + Sync)) -> Result<u64, Error> {
        let mut buf = HostBuf::zeroed(items * width);
        // Piece by piece, as the GPU's staging copies encode them.
        for bytes in item_pieces(items, width, PIECE)? {
            encode(bytes.start / width, &mut buf.bytes_mut()[bytes]);
        }
        Ok(self.take(role, buf))
    }

    fn read_with<R>(&mut self, role: &'static str, bytes: usize, look: impl FnOnce(&[u8]) -> R) -> Result<R, Error> {
        let buf = self.memory.get_mut(role).expect("memory the run took");
        Ok(look(&buf.bytes_mut()[..bytes]))
    }

    fn clear(&self, address: u64, bytes: usize) -> Result<(), Error> {
        // SAFETY: the caller names host memory this target holds; no kernel runs now.
        unsafe { std::ptr::write_bytes(address as *mut u8, 0, bytes) };
        Ok(())
    }

    fn read_at(&self, address: u64, bytes: usize) -> Result<Vec<u8>, Error> {
        // SAFETY: as in `clear`; the kernel has returned.
        Ok(unsafe { std::slice::from_raw_parts(address as *const u8, bytes) }.to_vec())
    }

    fn inputs<P: Program>(&mut self, params: &P::Params, buffers: &P::Buffers) -> Result<InputAddresses, Error> {
        let inputs = self.inputs.insert(HostInputs::new::<P>(params, buffers));
        Ok(inputs.addresses())
    }

    fn read_back<P: Program>(&mut self, buffers: &P::Buffers) -> Result<Vec<u64>, Error> {
        Ok(self.inputs.as_mut().expect("inputs are put in place before the launch").read_back::<P>(buffers))
    }

    fn transfers(&self) -> Transfers {
        // Host memory stands in for the device's: nothing crosses a bus.
        Transfers::default()
    }

    fn stop_flag(&mut self) -> Result<u64, Error> {
        self.stop = self.zeroed("stop flag", 8)?;
        Ok(self.stop)
    }

    fn progress_words(&mut self, workers: usize) -> Result<u64, Error> {
        // Written whether watched or not, so the host build exercises them.
        self.zeroed("progress words", workers * 8)
    }

    fn report_while<R>(&self, _: &str, _: Published<'_>, run: impl FnOnce() -> R) -> R {
        // Nobody watches an emulated run.
        run()
    }

    fn clear_status(&mut self) -> Result<(), Error> {
        // SAFETY: the status record is STATUS_WORDS u64 in the loaded library; no kernel runs.
        unsafe { std::ptr::write_bytes((self.kernel().status)(), 0, STATUS_WORDS) };
        Ok(())
    }

    fn status(&self) -> Result<Vec<u64>, Error> {
        Ok(status(self.kernel()))
    }

    fn write_join(&mut self, record: JoinRecord) -> Result<(), Error> {
        if self.kernel().write_join(record) {
            Ok(())
        } else {
            Err(Error::InvalidConfig("the host build of a program with joins has no join state".into()))
        }
    }

    fn read_join(&self) -> Result<JoinRecord, Error> {
        self.kernel().read_join().ok_or_else(|| Error::InvalidConfig("the host build of a program with joins has no join state".into()))
    }

    fn broker_queue_bytes(&self) -> Result<u64, Error> {
        let bytes = self.kernel().queue_bytes.ok_or_else(|| Error::InvalidConfig("the host build of a broker scheduler exports no queue size".into()))?;
        // SAFETY: a function defined by the host build of every broker scheduler.
        Ok(unsafe { bytes() })
    }

    fn ready(&mut self) -> Result<(), Error> {
        Ok(())
    }

    unsafe fn launch(&self, record: &[u8], blocks: u32, block_threads: u32, _: bool, since: Instant, _: &'static str) -> Result<Duration, Error> {
        // The kernel reads the record while it runs: an aligned copy that outlives it.
        let copy = HostBuf::from_bytes(record);
        let grid = Grid { blocks, block_threads, os_threads: self.emu.os_threads };
        let ran = Instant::now();
        let watchdog = Watchdog { limit: self.emu.watchdog, left: self.emu.watchdog.saturating_sub(since.elapsed()), stop_wait: self.emu.stop_wait };
        let result = launch(self.kernel(), copy.0.as_ptr() as *const u8, self.stop, grid, self.policy, self.gate.clone(), watchdog);
        if let Err(Error::Watchdog { stopped: false, .. }) = result {
            std::mem::forget(copy);
        }
        result.map(|()| ran.elapsed())
    }

    fn abandon(&mut self) {
        std::mem::forget(std::mem::take(&mut self.memory));
        std::mem::forget(self.inputs.take());
    }
}

/// The shape of an emulated launch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Grid {
    pub blocks: u32,
    pub block_threads: u32,
    /// OS threads the blocks are dealt to.
    pub os_threads: u32,
}

/// How long a launch may take: `left` of the run's `limit` (a run of generations shares one).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Watchdog {
    pub limit: Duration,
    pub left: Duration,
    pub stop_wait: Duration,
}

/// The kernel's OS threads wait here (`ws_emu_gate`) until every thread of the gate's
/// launches is ready.
unsafe extern "C" fn wait_at_gate(gate: *mut std::ffi::c_void) {
    // SAFETY: `launch` passes a live `Barrier` that its thread keeps until the kernel returns.
    unsafe { (*(gate as *const Barrier)).wait() };
}

/// Clears the status record, runs the kernel on `grid` with the victim policy and steal
/// amount `policy` on its own thread, its OS threads waiting at `gate` first if given, and
/// applies the watchdog. `stop_flag` is the address of the record's stop flag, which the
/// watchdog raises.
pub(crate) fn launch(
    kernel: &HostKernel,
    record: *const u8,
    stop_flag: u64,
    grid: Grid,
    policy: (u32, u32),
    gate: Option<Arc<Barrier>>,
    watchdog: Watchdog,
) -> Result<(), Error> {
    let limit = watchdog.limit;
    // SAFETY: the status record is STATUS_WORDS u64 in the loaded library; no kernel is running.
    unsafe { std::ptr::write_bytes((kernel.status)(), 0, STATUS_WORDS) };
    let (done_tx, done_rx) = mpsc::channel();
    let (launch_fn, record_addr) = (kernel.launch, record as usize);
    let handle = std::thread::spawn(move || {
        // SAFETY: the record and everything it points to outlive this call: the caller waits
        // for the thread below (or leaks the memory if the kernel never returns).
        let (wait, gate_arg) = match &gate {
            Some(g) => (Some(wait_at_gate as Gate), Arc::as_ptr(g) as *mut std::ffi::c_void),
            None => (None, std::ptr::null_mut()),
        };
        unsafe { launch_fn(record_addr as *const u8, grid.blocks, grid.block_threads, grid.os_threads, policy.0, policy.1, wait, gate_arg) };
        let _ = done_tx.send(());
    });
    if done_rx.recv_timeout(watchdog.left).is_ok() {
        let _ = handle.join();
        return Ok(());
    }
    // SAFETY: the flag is a live, 8-byte aligned u32 that the kernel reads atomically.
    unsafe { (*(stop_flag as *const std::sync::atomic::AtomicU32)).store(1, std::sync::atomic::Ordering::SeqCst) };
    if done_rx.recv_timeout(watchdog.stop_wait).is_ok() {
        let _ = handle.join();
        return Err(Error::Watchdog { program: kernel.program, on: RanOn::EmulatedGpu, limit, stopped: true });
    }
    // The emulated kernel ignores the stop request; the caller leaks its memory.
    std::mem::forget(handle);
    Err(Error::Watchdog { program: kernel.program, on: RanOn::EmulatedGpu, limit, stopped: false })
}

pub(crate) fn status(kernel: &HostKernel) -> Vec<u64> {
    // SAFETY: STATUS_WORDS u64 in the loaded library, written by the kernel that has returned.
    unsafe { std::slice::from_raw_parts((kernel.status)(), STATUS_WORDS).to_vec() }
}
