//! Priority bands' part of a run (`order = priority`; `runner.rs` does the rest), over
//! `cuda/schedulers/bands.cuh`: a window of band queues and a far queue, all Broker Queues (BQ or BWD)
//! of one slot count baked into the kernel, one cooperative launch. The band statistics come
//! back in [`BandStats`].

use super::slots::{choose_slots, name, slots_define, DEFAULT_MAX_TOTAL_SLOTS, QUEUE_TAG, STAGING_PER_THREAD};
use crate::gpu::schedulers::worker_stats::{read_worker_stats, zeroed_worker_stats};
use super::{Run, Scheme};
use crate::gpu::run::target::{Sizes, Target};
use crate::error::Error;
use crate::contract::Program;
use crate::contract::schedule::KernelConfig;
use crate::stats::{BandStats, Phases, Stats};

/// Bands in the window (`WSDSL_BANDS` in `cuda/schedulers/bands.cuh`), for sizing the queues; a kernel
/// built with another count (`WSDSL_DEFINES=WSDSL_BANDS=N`) gets the memory it reports.
pub const DEFAULT_BANDS: u64 = 32;
/// Run-wide 32-bit words, then 64-bit totals (`WS_BANDS_WORDS`, `WS_BANDS_TOTALS`).
const WORDS: usize = 4;
const TOTALS: usize = 4;
/// Memory role of the band words and totals.
const BAND_WORDS: &str = "priority band words";

/// Host mirror of `struct ws_bands_launch` in `cuda/schedulers/bands.cuh` (same order).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct BandsRecord {
    pub queues: u64,
    pub staging: u64,
    pub staging_prio: u64,
    pub roots: u64,
    pub params: u64,
    pub buffers: u64,
    pub counter_slots: u64,
    pub stats: u64,
    pub pending: u64,
    pub words: u64,
    pub totals: u64,
    pub stop: u64,
    pub progress: u64,
    pub workers: u32,
    pub staging_cap: u32,
    pub root_count: u32,
    pub pad: u32,
}

/// The priority scheduler over BQ or BWD band queues; their slot count once chosen.
pub(crate) struct Bands {
    config: KernelConfig,
    slots: u64,
}

impl Bands {
    pub fn new(config: &KernelConfig) -> Self {
        Bands { config: *config, slots: 0 }
    }
}

impl Scheme for Bands {
    type Record = BandsRecord;
    const PERSISTENT: Option<&'static str> = Some("priority band megakernel");
    const LAUNCHING: &'static str = "launching the priority band megakernel";

    fn prelude<P: Program, T: Target>(&mut self, target: &T, config: &KernelConfig, sizes: &Sizes) -> Result<String, Error> {
        let most_blocks = target.max_blocks(config.block_threads) as u64;
        // A staged child: its task and its priority.
        let staging_bytes = most_blocks * config.block_threads as u64 * STAGING_PER_THREAD as u64 * (P::TASK_BYTES as u64 + 4);
        // Each slot holds a task and its priority: size them as a task 4 bytes longer.
        // Four times the broker's total: 4 M slots per band rather than 1 M (with 33 queues,
        // the broker's 2^26 leaves a band 1 M). Delta-stepping SSSP on R-MAT 22 needs 2.1 M
        // in one band on an H100, the bands kept in order: a band then holds a whole level of
        // the graph. A third of free memory still bounds it; a run clears only each queue's
        // words and tickets, 4 bytes a slot (`Target::zeroed_queues`).
        self.slots = choose_slots::<P>(target.free_memory()?, DEFAULT_BANDS + 1, 4 * DEFAULT_MAX_TOTAL_SLOTS, staging_bytes, sizes.broker_queue, 4)?;
        Ok(slots_define(self.slots))
    }

    fn prepare<P: Program, T: Target>(&mut self, target: &mut T, run: &Run, _sizes: &Sizes) -> Result<BandsRecord, Error> {
        let slots = self.slots;
        // Worker w enqueues roots [w*R/W, (w+1)*R/W), all into band 0.
        if run.root_count as u64 > slots {
            return Err(Error::QueueOverflow {
                queue: format!("priority band 0 of {slots} slots (holding the initial tasks; {} queues)", name(&run.config)),
                capacity: slots,
                needed: run.root_count as u64,
            });
        }
        let all_queues = target.broker_queue_bytes()?;
        let staging_cap = run.config.worker_threads() * STAGING_PER_THREAD;
        let children = run.workers as usize * staging_cap as usize;
        let queues = target.zeroed_queues("priority band queues", 1, all_queues)?;
        let staging = target.scratch("broker staging areas", children * P::TASK_BYTES)?;
        let staging_prio = target.scratch("staged children's priorities", children * 4)?;
        let stats = zeroed_worker_stats(target, run.workers)?;
        let pending = target.upload("broker pending tasks", &run.root_count.to_le_bytes())?;
        // low = 0, far_min = none yet, highest = 0; then the totals, zero.
        let mut words = vec![0u8; WORDS * 4 + TOTALS * 8];
        words[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        let words = target.upload(BAND_WORDS, &words)?;
        Ok(BandsRecord {
            queues,
            staging,
            staging_prio,
            roots: run.roots,
            params: run.inputs.params,
            buffers: run.inputs.buffers,
            counter_slots: run.inputs.counters,
            stats,
            pending,
            words,
            totals: words + (WORDS * 4) as u64,
            stop: run.stop,
            progress: run.progress,
            workers: run.workers,
            staging_cap,
            root_count: run.root_count,
            pad: 0,
        })
    }

    fn queue(&self, arg: u64, noun: &str, program: &str) -> String {
        let kind = name(&self.config);
        match arg.checked_sub(QUEUE_TAG) {
            Some(q) if q >= DEFAULT_BANDS => format!("the far queue of the priority bands ({kind}; program `{program}`)"),
            Some(q) => format!("the {kind} queue of priority band {q} mod {DEFAULT_BANDS} (program `{program}`)"),
            None => format!("the child staging area of {noun} {arg} ({STAGING_PER_THREAD} children per task of a batch; program `{program}`)"),
        }
    }

    fn stats<T: Target>(&self, target: &mut T, run: &Run, phases: Phases) -> Result<Stats, Error> {
        let mut stats = read_worker_stats(target, run.workers, self.slots, phases)?;
        let bytes = target.read(BAND_WORDS, WORDS * 4 + TOTALS * 8)?;
        let word = |i: usize| u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
        let total = |i: usize| u64::from_le_bytes(bytes[WORDS * 4 + i * 8..WORDS * 4 + i * 8 + 8].try_into().expect("8 bytes"));
        let lowest_moves = total(0);
        stats.bands = Some(BandStats {
            // The GPU counts where the window's low end stood, not every band that ran.
            visited: lowest_moves + (stats.tasks > 0) as u64,
            lowest_moves,
            out_of_order: total(1),
            rebanded: total(2),
            kept: total(3),
            histogram: Default::default(),
            highest: word(2),
            fullest: 0,
        });
        Ok(stats)
    }
}
