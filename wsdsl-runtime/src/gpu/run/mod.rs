//! One run of a program, whatever the scheduler and wherever its kernel runs: the set-up path
//! (`runner.rs`) over either target (`target.rs`: a GPU, `gpu/device/`, or the host-compiled
//! templates, `gpu/emulate/`), with what every run carries: the roots' device images
//! (`images.rs`), the host's first levels dealt before the launch (`spread.rs`), the join pool
//! of programs with complete handlers (`join.rs`), the status record that says how a run
//! failed (`status.rs`), the host memory readied for the copy back while the kernel runs
//! (`ready.rs`) and where the host's time went (`steps.rs`).

#[cfg(test)]
mod image_timing;
pub(crate) mod call;
pub(crate) mod images;
pub(crate) mod join;
pub(crate) mod ready;
pub(crate) mod runner;
pub(crate) mod spread;
pub(crate) mod status;
pub(crate) mod steps;
pub(crate) mod target;
