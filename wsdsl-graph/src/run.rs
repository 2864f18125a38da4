//! What every algorithm reports besides its answer.

use wsdsl::prelude::*;
use wsdsl::{BackendKind, Program};

/// What a run says besides its answer: its statistics (phases, tasks, steals, per worker),
/// the backend it ran on, and, when the automatic backend chose the CPU, why.
#[derive(Debug)]
pub struct Run {
    /// The scheduler's statistics (`Display` prints them as the examples do).
    pub stats: Stats,
    /// Where it ran.
    pub backend: BackendKind,
    /// Why the automatic backend did not use the GPU, when it did not.
    pub note: Option<String>,
}

impl<K: Program> From<Output<K>> for Run {
    fn from(out: Output<K>) -> Self {
        Run { stats: out.stats, backend: out.backend, note: out.note }
    }
}
