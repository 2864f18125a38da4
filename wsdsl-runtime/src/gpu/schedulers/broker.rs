//! The Broker Queue family's part of a run (`runner.rs` does the rest), over
//! `cuda/schedulers/broker.cuh`: BQ and BWD (one queue for the grid) and BSQ (one queue per
//! block). The queues' slot count is baked into the kernel (the queue's N is a template
//! constant); one cooperative launch.

use super::slots::{choose_slots, name, slots_define, DEFAULT_MAX_TOTAL_SLOTS, QUEUE_TAG, STAGING_PER_THREAD};
use crate::gpu::build::assemble::kernel_source;
use crate::gpu::schedulers::worker_stats::{read_worker_stats, zeroed_worker_stats};
use super::{Run, Scheme};
use crate::gpu::run::target::{Sizes, Target};
use crate::error::Error;
use crate::contract::Program;
use crate::contract::schedule::{KernelConfig, Scheduler};
use crate::stats::{Phases, Stats};

/// Host mirror of `struct ws_broker_launch` in `cuda/schedulers/broker.cuh` (same order).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct BrokerRecord {
    pub queues: u64,
    pub staging: u64,
    pub roots: u64,
    pub params: u64,
    pub buffers: u64,
    pub counter_slots: u64,
    pub stats: u64,
    pub pending: u64,
    pub stop: u64,
    pub progress: u64,
    pub workers: u32,
    pub queue_count: u32,
    pub staging_cap: u32,
    pub root_count: u32,
}

/// The kernel source of a broker scheduler with queues of `slots` slots (a power of two).
pub fn broker_kernel_source<P: Program>(config: &KernelConfig, slots: u64) -> String {
    format!("{}{}", slots_define(slots), kernel_source::<P>(config))
}

/// A broker scheduler: BQ and BWD (one queue for the grid) or BSQ (a queue per block); its
/// queues' slot count once chosen (before the kernel is compiled: it is a template constant).
pub(crate) struct Broker {
    config: KernelConfig,
    slots: u64,
}

impl Broker {
    pub fn new(config: &KernelConfig) -> Self {
        Broker { config: *config, slots: 0 }
    }
}

impl Scheme for Broker {
    type Record = BrokerRecord;
    const PERSISTENT: Option<&'static str> = Some("broker megakernel");
    const LAUNCHING: &'static str = "launching the broker megakernel";

    fn prelude<P: Program, T: Target>(&mut self, target: &T, config: &KernelConfig, sizes: &Sizes) -> Result<String, Error> {
        // The BSQ has a queue per block, and the grid is known only once the kernel is
        // compiled: size the queues for the most blocks a launch may have.
        let most_blocks = target.max_blocks(config.block_threads) as u64;
        let queues = if config.scheduler == Scheduler::Bsq { most_blocks } else { 1 };
        let staging_bytes = most_blocks * config.block_threads as u64 * STAGING_PER_THREAD as u64 * P::TASK_BYTES as u64;
        self.slots = choose_slots::<P>(target.free_memory()?, queues, DEFAULT_MAX_TOTAL_SLOTS, staging_bytes, sizes.broker_queue, 0)?;
        Ok(slots_define(self.slots))
    }

    fn prepare<P: Program, T: Target>(&mut self, target: &mut T, run: &Run, _sizes: &Sizes) -> Result<BrokerRecord, Error> {
        let (slots, workers) = (self.slots, run.workers);
        let queue_count = if run.config.scheduler == Scheduler::Bsq { run.blocks } else { 1 };
        // Roots: worker w enqueues [w*R/W, (w+1)*R/W) into its queue; a queue receives those
        // of the workers it serves.
        let (r, w) = (run.root_count as u64, workers as u64);
        let served = w / queue_count as u64;
        let needed_for_roots = (0..queue_count as u64).map(|q| ((q + 1) * served * r / w) - (q * served * r / w)).max().unwrap_or(0);
        if needed_for_roots > slots {
            return Err(Error::QueueOverflow {
                queue: format!("the {} queue of {slots} slots (holding the initial tasks)", name(&run.config)),
                capacity: slots,
                needed: needed_for_roots,
            });
        }
        let queue_bytes = target.broker_queue_bytes()?;
        let staging_cap = run.config.worker_threads() * STAGING_PER_THREAD;
        let queues = target.zeroed_queues("broker queues", queue_count as u64, queue_bytes)?;
        // A worker reads only the staging entries its own batch wrote.
        let staging = target.scratch("broker staging areas", workers as usize * staging_cap as usize * P::TASK_BYTES)?;
        let stats = zeroed_worker_stats(target, workers)?;
        let pending = target.upload("broker pending tasks", &run.root_count.to_le_bytes())?;
        Ok(BrokerRecord {
            queues,
            staging,
            roots: run.roots,
            params: run.inputs.params,
            buffers: run.inputs.buffers,
            counter_slots: run.inputs.counters,
            stats,
            pending,
            stop: run.stop,
            progress: run.progress,
            workers,
            queue_count,
            staging_cap,
            root_count: run.root_count,
        })
    }

    fn queue(&self, arg: u64, noun: &str, program: &str) -> String {
        // `arg`: a queue (tagged) or the worker whose staging area overflowed.
        match arg.checked_sub(QUEUE_TAG) {
            Some(q) if self.config.scheduler == Scheduler::Bsq => format!("the BSQ queue of block {q} (program `{program}`)"),
            Some(_) => format!("the {} queue (program `{program}`)", name(&self.config)),
            None => format!("the child staging area of {noun} {arg} ({STAGING_PER_THREAD} children per task of a batch; program `{program}`)"),
        }
    }

    fn stats<T: Target>(&self, target: &mut T, run: &Run, phases: Phases) -> Result<Stats, Error> {
        read_worker_stats(target, run.workers, self.slots, phases)
    }
}
