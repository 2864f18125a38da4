//! The command-line options the sorting examples share: which keys to sort, and the size of
//! range a single task sorts. Used by `examples/mergesort.rs` and
//! `examples/quicksort.rs`.

use clap::Args;

#[derive(Args)]
pub struct KeyArgs {
    /// Number of keys.
    #[arg(long, default_value_t = 1 << 20)]
    pub keys: usize,
    /// Ranges of at most this many keys are sorted as a leaf (by default the most the sort's
    /// leaves take: 256 keys with `ctx.sort`, 32 in a hand-written leaf's local array).
    #[arg(long)]
    pub cutoff: Option<u32>,
    /// Keys are drawn from 0..distinct (small values give many repeats).
    #[arg(long, default_value_t = u32::MAX)]
    pub distinct: u32,
    /// Seed of the pseudo-random keys.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}
