//! The host baselines: idiomatic rayon programs for the same algorithms, run on all the
//! machine's cores in the same process as the GPU rows. Each returns the same answer the
//! GPU program must give, so the bench checks one against the other.

use rayon::prelude::*;

/// fib(n) with a `rayon::join` at every call (no sequential cutoff), like the GPU program's
/// join at every call. Returns (fib(n), leaves).
pub fn fib(n: u32) -> (u64, u64) {
    if n < 2 {
        return (n as u64, 1);
    }
    let ((a, la), (b, lb)) = rayon::join(|| fib(n - 1), || fib(n - 2));
    (a + b, la + lb)
}

/// N-Queens solutions: parallel over the placements of the first rows (down to row
/// `PARALLEL_ROWS`), a sequential bit-board search below, the way one writes it with rayon.
pub fn nqueens(n: u32) -> u64 {
    const PARALLEL_ROWS: u32 = 4;
    fn place(n: u32, row: u32, cols: u32, left: u32, right: u32) -> u64 {
        let all = ((1u64 << n) - 1) as u32;
        let mut free = !(cols | left | right) & all;
        if row + 1 == n {
            return free.count_ones() as u64;
        }
        let child = move |bit: u32| place(n, row + 1, cols | bit, ((left | bit) << 1) & all, (right | bit) >> 1);
        if row < PARALLEL_ROWS {
            let mut bits = Vec::new();
            while free != 0 {
                let bit = free & free.wrapping_neg();
                free ^= bit;
                bits.push(bit);
            }
            bits.into_par_iter().map(child).sum()
        } else {
            let mut count = 0;
            while free != 0 {
                let bit = free & free.wrapping_neg();
                free ^= bit;
                count += child(bit);
            }
            count
        }
    }
    if n == 0 {
        return 1;
    }
    place(n, 0, 0, 0, 0)
}

/// Sorts `keys` with rayon's parallel unstable sort.
pub fn sort(keys: &mut [u32]) {
    keys.par_sort_unstable();
}

/// UTS with rayon: every node visits its children with a parallel iterator, hashing with the
/// `sha1` crate (the example's `host_sha1`). Returns (nodes, leaves, depth), like the GPU
/// program's counters.
pub fn uts(tree: &crate::uts::Tree) -> (u64, u64, u32) {
    use crate::uts::{host_child_state, host_num_children, root};
    fn visit(p: &crate::uts::uts::Params, state: [u8; 20], depth: u32) -> (u64, u64, u32) {
        let n = host_num_children(p, &state, depth);
        if n == 0 {
            return (1, 1, depth);
        }
        let (nodes, leaves, deepest) = (0..n)
            .into_par_iter()
            .map(|i| visit(p, host_child_state(&state, i), depth + 1))
            .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2.max(b.2)));
        (nodes + 1, leaves, deepest)
    }
    let r = root(tree.seed);
    visit(&tree.params, r.state, r.depth)
}
