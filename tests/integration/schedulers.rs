//! The scheduler configurations that the join tests run on the host build of the templates.

use wsdsl::gpu::{all_kernel_configs, broker_kernel_configs};
use wsdsl::{KernelConfig, Steal, Victim};

/// A configuration's name in test output.
pub fn label(c: &KernelConfig) -> String {
    format!("{:?}/{:?}/{:?}/{:?}", c.scheduler, c.worker, c.victim, c.steal)
}

/// One deque configuration per worker granularity and victim family, plus the static and
/// broker schedulers: every path by which a child can reach another worker.
pub fn join_configs() -> Vec<KernelConfig> {
    all_kernel_configs(256)
        .into_iter()
        .filter(|c| c.steal == Steal::One || c.victim == Victim::Hws)
        .filter(|c| c.victim != Victim::RoundRobin)
        .chain(broker_kernel_configs(256))
        .collect()
}
