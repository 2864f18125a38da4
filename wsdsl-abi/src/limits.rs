//! Bounds that both the macro (at the attribute) and the runtime (before a run) enforce.

/// How many calls of a cycle of recursive helpers may be active at once unless the program
/// says otherwise (`#[megakernel(recursion_limit = N)]`); one more panics, and the GPU's
/// per-thread stack is sized for it.
pub const DEFAULT_RECURSION_LIMIT: u32 = 256;

/// The bands GPU workers may take from above the lowest live one, unless a program or a
/// runtime says otherwise: a best-first search (A*, branch and bound) expands the fewest
/// nodes in strict order. Delta-stepping on long-diameter graphs wants more.
pub const DEFAULT_LOOKAHEAD: u32 = 1;

/// The largest lookahead: the bands' window (32 bands, `WSDSL_BANDS` in
/// `cuda/schedulers/bands.cuh`) less the lowest.
pub const MAX_LOOKAHEAD: u32 = 31;

/// Whether `n` threads can form a block of the megakernel: a multiple of 32 from 32 to 1024.
pub fn block_threads_valid(n: u32) -> bool {
    n % 32 == 0 && (32..=1024).contains(&n)
}

/// Blocks per SM a program may ask the compiler to fit (`min_blocks`).
pub const MIN_BLOCKS: std::ops::RangeInclusive<u32> = 1..=32;

#[cfg(test)]
mod tests {
    #[test]
    fn block_sizes_are_whole_warps_up_to_1024() {
        assert!(super::block_threads_valid(32) && super::block_threads_valid(1024) && super::block_threads_valid(256));
        assert!(!super::block_threads_valid(0) && !super::block_threads_valid(48) && !super::block_threads_valid(1056));
    }
}
