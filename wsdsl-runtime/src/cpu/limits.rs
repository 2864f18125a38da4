//! The CPU backend's bounds: how long a run may take (the watchdog, `watchdog.rs`) and how
//! many tasks it may hold at once, so that an endless task tree, or a handler spawning in a
//! loop that never ends, comes back as an error, as on the GPU, instead of taking every byte
//! of memory until the process aborts.
//!
//! A task is *held* from its spawn until its spawn handler starts, and again while it waits
//! for its children (its call on a thread's stack). A run holds its roots, plus what every
//! thread's handlers spawned, minus the tasks started, plus the tasks waiting: each thread
//! keeps its own share of that sum and adds it to the run's total every `flush_every` tasks,
//! so the count costs an addition per task and an atomic now and then. The total may run
//! ahead of the truth by a flush per thread, which is why the bound is checked against the
//! total and the default bound is generous: 16 M tasks, the GPU frame pool's largest default.
//! One handler's own list of spawned tasks is bounded as it grows (`Spawned::push`), since a
//! handler that spawns in an endless loop never returns to be counted. The tasks a thread
//! runs as nested calls from its own list (`tree.rs`, `Run::task`) are counted by that list
//! instead of one by one: it holds each of them that waits or is still to run, and it is
//! bounded by the same number.

use crate::error::Error;
use std::sync::atomic::{AtomicI64, Ordering};

/// Tasks a run may hold at once unless `Runtime::cpu_task_limit` says otherwise.
pub const DEFAULT_TASK_LIMIT: u64 = 1 << 24;

/// A run's bounds.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longest the run may take (`Runtime::watchdog`).
    pub watchdog: std::time::Duration,
    /// Most tasks held at once (`Runtime::cpu_task_limit`).
    pub tasks: u64,
}

/// The run's total of tasks held, as the threads have added their shares.
pub(crate) struct Held {
    total: AtomicI64,
    limit: u64,
    flush_every: i64,
}

impl Held {
    /// A run of `roots` roots on `threads` threads, bounded by `limit`.
    pub fn new(roots: usize, threads: usize, limit: u64) -> Held {
        // Flushes small enough that the threads' unflushed shares stay well below the bound.
        let flush_every = (limit / (4 * threads.max(1) as u64)).clamp(1, 4096) as i64;
        Held { total: AtomicI64::new(roots as i64), limit, flush_every }
    }

    /// Adds `share` (a thread's unflushed part) when it has grown past a flush, and zeroes
    /// it; the error when the total then passes the bound.
    #[inline]
    pub fn add(&self, share: &mut i64) -> Result<(), Error> {
        if share.abs() < self.flush_every {
            return Ok(());
        }
        let now = self.total.fetch_add(*share, Ordering::Relaxed) + *share;
        *share = 0;
        if now > self.limit as i64 {
            return Err(Error::too_many_held(self.limit, now as u64));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_passes_the_bound_only_when_the_shares_do() {
        let held = Held::new(1, 2, 100);
        let (mut a, mut b) = (0i64, 0i64);
        for _ in 0..60 {
            a += 1;
            held.add(&mut a).unwrap();
        }
        for _ in 0..30 {
            b += 1;
            held.add(&mut b).unwrap();
        }
        a -= 50; // tasks started
        held.add(&mut a).unwrap();
        let mut failed = None;
        for _ in 0..200 {
            b += 1;
            if let Err(e) = held.add(&mut b) {
                failed = Some(e);
                break;
            }
        }
        let message = failed.expect("the bound is passed").to_string();
        assert!(message.contains("bound of 100") && message.contains("WSDSL_CPU_TASK_LIMIT"), "{message}");
    }
}
