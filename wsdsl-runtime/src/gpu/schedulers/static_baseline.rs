//! The static baseline's part of a run (`runner.rs` does the rest): two task arrays, one
//! kernel launch per generation, until a generation spawns nothing (Cederman & Tsigas,
//! section 35.3.1; `cuda/schedulers/static_baseline.cuh`).

use crate::gpu::run::status::status_result;
use crate::gpu::run::target::record_bytes;
use super::{Run, Scheme};
use crate::gpu::run::target::{Published, Sizes, Target};
use crate::error::Error;
use crate::contract::Program;
use crate::stats::{Phases, Stats};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Memory roles: the two task arrays (a generation reads one, writes the other; the first
/// reads the roots) and the count of tasks a generation wrote.
const ARRAY_A: &str = "static task array A";
const ARRAY_B: &str = "static task array B";
const TASK_COUNT: &str = "static task count";

/// Largest default array capacity (tasks); the memory budget may lower it.
const DEFAULT_MAX_CAPACITY: u64 = 1 << 26;

/// Host mirror of `struct ws_static_launch` in `cuda/schedulers/static_baseline.cuh`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct StaticRecord {
    pub input: u64,
    pub output: u64,
    pub out_count: u64,
    pub params: u64,
    pub buffers: u64,
    pub counter_slots: u64,
    pub stop: u64,
    pub n_in: u32,
    pub capacity: u32,
}

/// The static scheduler; what it chose and what its generations did.
#[derive(Default)]
pub(crate) struct Static {
    capacity: u64,
    /// The arrays a generation alternates between.
    arrays: [u64; 2],
    tasks: u64,
    widest: u64,
    generations: u64,
}

impl Scheme for Static {
    /// The first generation's record; the others differ in arrays and counts.
    type Record = StaticRecord;
    const PERSISTENT: Option<&'static str> = None;
    const LAUNCHING: &'static str = "launching a generation";

    fn prepare<P: Program, T: Target>(&mut self, target: &mut T, run: &Run, sizes: &Sizes) -> Result<StaticRecord, Error> {
        let free = target.free_for(&[ARRAY_A, ARRAY_B])?;
        self.capacity = choose_capacity::<P>(free, sizes.task_array, run.root_count as u64)?;
        // A generation reads only the slots the previous one wrote (below its count).
        let bytes = self.capacity as usize * P::TASK_BYTES;
        self.arrays = [target.scratch(ARRAY_A, bytes)?, target.scratch(ARRAY_B, bytes)?];
        Ok(StaticRecord {
            input: run.roots,
            output: self.arrays[0],
            out_count: target.scratch(TASK_COUNT, 4)?,
            params: run.inputs.params,
            buffers: run.inputs.buffers,
            counter_slots: run.inputs.counters,
            stop: run.stop,
            n_in: run.root_count,
            capacity: self.capacity as u32,
        })
    }

    fn execute<P: Program, T: Target>(&mut self, target: &T, run: &Run, first: &StaticRecord) -> Result<Duration, Error> {
        // A thread takes a task at a time, or a whole worker in a cooperative schedule.
        let tasks_per_block = (if run.config.cooperative { run.block_threads / run.config.worker_threads() } else { run.block_threads }) as u64;
        let launched = Instant::now();
        // Progress is the host's own count of the generations' tasks.
        let done = AtomicU64::new(0);
        let count = || done.load(Ordering::Relaxed);
        target.report_while(P::NAME, Published::Counted(&count), || -> Result<(), Error> {
            let mut record = *first;
            self.widest = record.n_in as u64;
            while record.n_in > 0 {
                target.clear(record.out_count, 4)?;
                let blocks = (record.n_in as u64).div_ceil(tasks_per_block).clamp(1, run.blocks as u64) as u32;
                // SAFETY: the record points only into memory `target` holds for the run.
                unsafe { target.launch(record_bytes(&record), blocks, run.block_threads, false, launched, Self::LAUNCHING) }?;
                status_result::<P>(&target.status()?, |_| "the static scheduler's task array".into())?;
                let count = target.read_at(record.out_count, 4)?;
                let created = u32::from_le_bytes(count[..4].try_into().expect("4 bytes")) as u64;
                if created > self.capacity {
                    return Err(Error::QueueOverflow {
                        queue: format!("the static scheduler's task array (generation {})", self.generations + 1),
                        capacity: self.capacity,
                        needed: created,
                    });
                }
                self.tasks += record.n_in as u64;
                done.store(self.tasks, Ordering::Relaxed);
                self.generations += 1;
                self.widest = self.widest.max(created);
                // The next generation reads what this one wrote, into the other array.
                let next = self.arrays[self.generations as usize % 2];
                record = StaticRecord { input: record.output, output: next, n_in: created as u32, ..record };
            }
            Ok(())
        })?;
        Ok(launched.elapsed())
    }

    fn queue(&self, _: u64, _: &str, _: &str) -> String {
        "the static scheduler's task array".into()
    }

    fn stats<T: Target>(&self, _: &mut T, _: &Run, phases: Phases) -> Result<Stats, Error> {
        Ok(Stats {
            tasks: self.tasks,
            generations: self.generations,
            peak_queue: self.widest,
            queue_capacity: self.capacity,
            phases,
            ..Stats::default()
        })
    }
}

/// Slots per task array: the requested number, or the largest power of two up to 2^26 with
/// both arrays within a third of `free` device memory (and at least the roots).
fn choose_capacity<P: Program>(free: usize, requested: Option<u32>, roots: u64) -> Result<u64, Error> {
    let per_slot = 2 * P::TASK_BYTES as u64;
    let capacity = match requested {
        Some(c) => c as u64,
        None => {
            let fit = (free as u64 / 3) / per_slot;
            let mut c = DEFAULT_MAX_CAPACITY;
            while c > 1024 && c > fit {
                c /= 2;
            }
            c.max(roots)
        }
    };
    if roots > capacity {
        return Err(Error::QueueOverflow { queue: "the static scheduler's task array (initial tasks)".into(), capacity, needed: roots });
    }
    if capacity * per_slot > free as u64 || capacity > u32::MAX as u64 {
        return Err(Error::InvalidConfig(format!(
            "two task arrays of {capacity} slots of {} bytes do not fit in {} MiB of free device memory",
            P::TASK_BYTES,
            free >> 20
        )));
    }
    Ok(capacity)
}
