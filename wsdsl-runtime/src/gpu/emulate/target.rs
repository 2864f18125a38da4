//! The host as a run's target: "device memory" in host memory, laid out exactly as the
//! launch records describe it, the program's inputs copied in and out, and launches on the
//! fibers of `fibers.rs`.

use super::fibers::{launch, status, Grid, Watchdog};
use super::library::{host_kernel_copy, HostKernel, Turn};
use super::source::{host_kernel_source, host_steal_policy};
use super::Emulation;
use crate::contract::buffer::BufferSet;
use crate::contract::schedule::KernelConfig;
use crate::contract::{CounterSet, Program};
use crate::error::Error;
use crate::gpu::device::staging::{item_pieces, PIECE};
use crate::gpu::run::join::JoinRecord;
use crate::gpu::run::status::STATUS_WORDS;
use crate::gpu::run::target::{InputAddresses, Published, Target};
use crate::stats::{Phases, Transfers};
use std::collections::HashMap;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

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
        let image = |b: &&dyn crate::contract::buffer::DeviceBuffer| if b.scratch() { HostBuf::zeroed(b.len() * b.elem_bytes()) } else { HostBuf::from_bytes(&b.to_bytes()) };
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
