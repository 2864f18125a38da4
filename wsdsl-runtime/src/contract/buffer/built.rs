//! How long a buffer's constructor took, for the statistics of the first run handed it
//! (`Phases::inputs_built`): a run call cannot see what happened before it, so the
//! constructors measure themselves.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// A constructor's time, and whether a run's statistics counted it yet.
#[derive(Debug)]
pub(super) struct BuildTime {
    took: Duration,
    counted: AtomicBool,
}

impl BuildTime {
    /// The time since `started`, when the constructor began.
    pub(super) fn since(started: Instant) -> Self {
        BuildTime { took: started.elapsed(), counted: AtomicBool::new(false) }
    }

    /// The constructor's time the first time this is asked, zero after: each buffer (its
    /// clones sharing one record) is counted by one run.
    pub(super) fn count(&self) -> Duration {
        if self.counted.swap(true, Relaxed) {
            Duration::ZERO
        } else {
            self.took
        }
    }
}
