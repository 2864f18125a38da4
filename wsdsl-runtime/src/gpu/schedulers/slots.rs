//! How the broker queues are sized, for the Broker Queue family (`broker.rs`) and the priority
//! bands built on its queues (`bands.rs`): the slot count baked into the kernel (the queue's
//! N is a template constant), the staging area per worker, and the queues' names in messages.

use crate::contract::schedule::{KernelConfig, Scheduler};
use crate::contract::Program;
use crate::error::Error;

/// Children one thread's task may spawn in one batch (staging area per worker: this many per
/// thread of the worker).
pub const STAGING_PER_THREAD: u32 = 64;
/// Most slots of all queues together, by default (the memory budget may lower it).
pub(crate) const DEFAULT_MAX_TOTAL_SLOTS: u64 = 1 << 26;
/// Most slots of one queue (ticket rounds stay plentiful: 2^32 / N; queues/broker_queue.cuh).
pub const MAX_SLOTS: u64 = 1 << 28;
/// Fewest slots of one queue, by default.
const DEFAULT_MIN_SLOTS: u64 = 1 << 10;
/// Overflow `arg0` tag of a queue (else it is the worker whose staging area overflowed).
pub(crate) const QUEUE_TAG: u64 = 1 << 32;

/// The line that fixes the queues' slot count (a template constant of the queue).
pub(crate) fn slots_define(slots: u64) -> String {
    format!("#define WSDSL_BROKER_SLOTS {slots}u\n")
}

/// Slots per queue for a requested capacity: the next power of two (at least 2).
pub fn slots_for(requested: u32) -> u64 {
    (requested as u64).next_power_of_two().max(2)
}

pub(crate) fn name(config: &KernelConfig) -> &'static str {
    match config.scheduler {
        Scheduler::Bq => "BQ",
        Scheduler::Bwd => "BWD",
        _ => "BSQ",
    }
}

/// Slots per queue: the requested capacity rounded up to a power of two, or the largest power
/// of two with all queues together within `most_total` slots and a third of free device
/// memory (less the staging areas). An element is a task and `extra` bytes (a priority
/// band's: 4).
pub(crate) fn choose_slots<P: Program>(free: usize, queues: u64, most_total: u64, staging_bytes: u64, requested: Option<u32>, extra: u64) -> Result<u64, Error> {
    let free = free as u64;
    // A slot holds a task padded to 32-bit words plus its ticket.
    let per_slot = queues * (P::TASK_BYTES as u64 + extra).div_ceil(4) * 4 + queues * 4;
    let slots = match requested {
        Some(c) => slots_for(c),
        None => {
            let budget = (free / 3).saturating_sub(staging_bytes);
            let mut s = (most_total / queues.max(1)).next_power_of_two();
            if s * queues > most_total {
                s /= 2;
            }
            while s > DEFAULT_MIN_SLOTS && s * per_slot > budget {
                s /= 2;
            }
            s.max(2)
        }
    };
    if slots > MAX_SLOTS {
        return Err(Error::InvalidConfig(format!("a broker queue holds at most {MAX_SLOTS} slots, not {slots}")));
    }
    if slots * per_slot + staging_bytes > free {
        return Err(Error::InvalidConfig(format!(
            "{queues} broker queue(s) of {slots} slots of {} bytes and the staging areas ({} MiB) do not fit in {} MiB of free device memory",
            P::TASK_BYTES,
            staging_bytes >> 20,
            free >> 20
        )));
    }
    Ok(slots)
}
