//! Where a run's kernel runs: a GPU (`gpu/device/target.rs`) or the host build of the same templates
//! (`gpu/emulate/`). The runner (`runner.rs`) and every scheduler's part of a run go through
//! this trait only, so a scheduler's memory, launch record and statistics are written once
//! for both.
//!
//! A target holds every piece of memory a run takes from it until the run is over, so a
//! launch record may point anywhere in it. Memory is taken by role (`"deque slots"`, ...):
//! on the GPU the roles are the device's workspace, kept between runs (`workspace.rs`).

use crate::gpu::run::join::JoinRecord;
use crate::error::Error;
use crate::contract::Program;
use crate::contract::schedule::KernelConfig;
use crate::stats::{Phases, Transfers};
use std::time::{Duration, Instant};

/// The device addresses of the program's inputs (`inputs.rs`): what every launch record
/// carries besides the scheduler's own memory.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InputAddresses {
    pub params: u64,
    pub buffers: u64,
    pub counters: u64,
}

/// How big a run's queues and frame pool are when the run asks for a size (a runtime setting,
/// the emulation's fixed sizes); `None`: the scheduler sizes them from free memory.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Sizes {
    /// Slots per worker deque.
    pub deque: Option<u32>,
    /// Slots per task array of the static scheduler.
    pub task_array: Option<u32>,
    /// Slots per broker queue (rounded up to a power of two).
    pub broker_queue: Option<u32>,
    /// Join frames.
    pub frames: Option<u32>,
}

/// Where the tasks a run has done so far are read from while its kernel runs.
#[derive(Clone, Copy)]
pub(crate) enum Published<'f> {
    /// The progress words of the first this many workers (persistent kernels).
    Workers(usize),
    /// A count the host keeps (the static scheduler's generations).
    Counted(&'f (dyn Fn() -> u64 + Sync)),
}

pub(crate) trait Target {
    /// How messages name one of its workers: `"GPU worker"`, `"emulated worker"`.
    const WORKER: &'static str;

    /// Compiles (or finds) and loads `P`'s kernel for `config`, with `prelude` before the
    /// assembled source; the compile phase goes into `phases`.
    fn load<P: Program>(&mut self, prelude: &str, config: &KernelConfig, phases: &mut Phases) -> Result<(), Error>;

    /// The most blocks of `block_threads` a launch may have, known before the kernel is
    /// (memory sized per block is sized for this many).
    fn max_blocks(&self, block_threads: u32) -> u32;

    /// Blocks of a launch of the loaded kernel: as many as are resident at once (at most
    /// [`Target::max_blocks`]). `persistent`: its blocks wait for each other, so one that
    /// cannot be resident is an error naming the kernel; otherwise at least one block.
    fn blocks<P: Program>(&self, block_threads: u32, persistent: Option<&str>) -> Result<u32, Error>;

    /// Memory free for a run now.
    fn free_memory(&self) -> Result<usize, Error>;
    /// Memory a run may size `roles` by: what is free plus what the target keeps for those
    /// roles already (a warm run sizes them as a cold one did).
    fn free_for(&mut self, roles: &[&str]) -> Result<usize, Error>;

    /// The memory for `role`, at least `bytes` long, its contents undefined (the kernel
    /// writes before it reads); its address.
    fn scratch(&mut self, role: &'static str, bytes: usize) -> Result<u64, Error>;
    /// The memory for `role`, its first `bytes` zeroed before the launch.
    fn zeroed(&mut self, role: &'static str, bytes: usize) -> Result<u64, Error>;
    /// The memory for `role`: `areas` areas of `area_bytes` (the kernel's
    /// [`Target::broker_queue_bytes`]), each broker queues (`queues/broker_queue.cuh`) laid end to
    /// end and then words that start at zero, made empty before the launch: a target may leave
    /// each queue's ring of elements as it was (the GPU clears the words and tickets only).
    fn zeroed_queues(&mut self, role: &'static str, areas: u64, area_bytes: u64) -> Result<u64, Error> {
        self.zeroed(role, (areas * area_bytes) as usize)
    }
    /// The memory for `role`, holding `data` before the launch.
    fn upload(&mut self, role: &'static str, data: &[u8]) -> Result<u64, Error>;
    /// The memory for `role`, holding the images of `items` (each `width` bytes, written by
    /// `encode` into a zeroed piece: `encode(first, piece)` with `first` the index of the
    /// piece's first item), before the launch. Large uploads travel in pieces, encoded by
    /// all cores while the previous piece is copied.
    fn upload_encoded(
        &mut self,
        role: &'static str,
        items: usize,
        width: usize,
        encode: &(dyn Fn(usize, &mut [u8]) + Sync),
    ) -> Result<u64, Error>;
    /// `look` at the first `bytes` of the memory for `role` (after the run), in place where
    /// the target can: on the GPU, in the pinned memory they came back through (a persistent
    /// kernel's worker statistics are half a megabyte and more, whose copy into fresh pages cost
    /// a graph kernel's call 0.1-0.2 ms).
    fn read_with<R>(&mut self, role: &'static str, bytes: usize, look: impl FnOnce(&[u8]) -> R) -> Result<R, Error>;
    /// The first `bytes` of the memory for `role` (after the run).
    fn read(&mut self, role: &'static str, bytes: usize) -> Result<Vec<u8>, Error> {
        self.read_with(role, bytes, <[u8]>::to_vec)
    }

    /// Zeroes `bytes` at `address` (memory of this run) before what is launched next.
    fn clear(&self, address: u64, bytes: usize) -> Result<(), Error>;
    /// The `bytes` at `address` (memory of this run), once everything launched has ended.
    fn read_at(&self, address: u64, bytes: usize) -> Result<Vec<u8>, Error>;

    /// Puts the parameters, the program's buffers and the counter slots in place.
    fn inputs<P: Program>(&mut self, params: &P::Params, buffers: &P::Buffers) -> Result<InputAddresses, Error>;
    /// After the run: the counters' raw slots, with the program's writable buffers refreshed
    /// from their device copies.
    fn read_back<P: Program>(&mut self, buffers: &P::Buffers) -> Result<Vec<u64>, Error>;
    /// What the run moved between host and target so far.
    fn transfers(&self) -> Transfers;

    /// The watchdog's stop flag, lowered; its address.
    fn stop_flag(&mut self) -> Result<u64, Error>;
    /// One progress word per worker, zeroed, when someone watches the run (0 otherwise: the
    /// kernel then writes none); its address.
    fn progress_words(&mut self, workers: usize) -> Result<u64, Error>;
    /// Runs `run` while whoever watches the run samples the tasks done so far from
    /// `published`; `what` names the run.
    fn report_while<R>(&self, what: &str, published: Published<'_>, run: impl FnOnce() -> R) -> R;

    /// Clears the kernel's status record (`cuda/core/status.cuh`).
    fn clear_status(&mut self) -> Result<(), Error>;
    /// The kernel's status record after a launch: `[code, arg0, .., arg4]`.
    fn status(&self) -> Result<Vec<u64>, Error>;
    /// Points the kernel's `wsdsl_join` at a frame pool (programs with joins).
    fn write_join(&mut self, record: JoinRecord) -> Result<(), Error>;
    /// The kernel's `wsdsl_join` after a run.
    fn read_join(&self) -> Result<JoinRecord, Error>;
    /// Bytes of one broker queue of the loaded kernel (broker schedulers).
    fn broker_queue_bytes(&self) -> Result<u64, Error>;

    /// Waits until everything put in place for the launch has arrived.
    fn ready(&mut self) -> Result<(), Error>;
    /// Launches the loaded kernel on `blocks` blocks with a copy of `record` and waits under
    /// the watchdog (its limit counted from `since`); the kernel time.
    ///
    /// # Safety
    /// `record` must be the kernel's launch record and point only into memory this target
    /// holds for the run.
    unsafe fn launch(&self, record: &[u8], blocks: u32, block_threads: u32, cooperative: bool, since: Instant, what: &'static str) -> Result<Duration, Error>;
    /// The kernel ignored a stop request and may still touch every piece of the run's
    /// memory: none of it may ever be freed or reused.
    fn abandon(&mut self);
}

/// The bytes of a plain-old-data launch record (`#[repr(C)]`, no padding).
pub(crate) fn record_bytes<R: Copy>(record: &R) -> &[u8] {
    // SAFETY: callers pass `#[repr(C)]` records of u64 and u32 fields without padding, so
    // every byte is initialised.
    unsafe { std::slice::from_raw_parts(record as *const R as *const u8, std::mem::size_of::<R>()) }
}
