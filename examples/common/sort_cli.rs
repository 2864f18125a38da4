//! The command-line options the sorting examples share: which keys to sort, and the size of
//! range a single task sorts. Included by `examples/mergesort/main.rs` and
//! `examples/quicksort/main.rs`.

use clap::Args;

#[derive(Args)]
pub struct KeyArgs {
    /// Number of keys.
    #[arg(long, default_value_t = 1 << 20)]
    pub keys: usize,
    /// Ranges of at most this many keys (up to 32) are sorted by one task, in registers.
    #[arg(long, default_value_t = 32)]
    pub cutoff: u32,
    /// Keys are drawn from 0..distinct (small values give many repeats).
    #[arg(long, default_value_t = u32::MAX)]
    pub distinct: u32,
    /// Seed of the pseudo-random keys.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}
