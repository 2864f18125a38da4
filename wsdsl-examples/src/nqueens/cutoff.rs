//! N-Queens as a task tree down to a cutoff row, then a recursive search on one thread: the
//! tasks near the root spread the work over the GPU, and each task at the cutoff counts its
//! whole subtree with a plain recursive helper, without a task (and its queue traffic) per
//! board. `mod.rs` is the one-task-per-board form this is measured against
//! (`wsdsl-bench --rows nqueens-cutoff`).

use wsdsl::prelude::*;

// A search goes at most 20 rows deep (n <= 20): a small limit keeps the GPU's stack small.
#[megakernel(recursion_limit = 24)]
pub mod nqueens_cutoff {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        /// Board size, 1..=20.
        pub n: u32,
        /// Boards with this many rows placed are searched on one thread (0: the root's).
        pub cutoff: u32,
    }

    #[counters]
    pub struct Counters {
        pub solutions: Sum<u64>,
    }

    /// Queens placed in rows `0..row`; the masks mark attacked squares of row `row`.
    #[task]
    pub struct Board {
        pub row: u32,
        pub cols: u32,
        pub left: u32,
        pub right: u32,
    }

    /// The solutions below a board of `row` rows (masks as in `Board`), searched depth-first
    /// by recursion: one call per row still to fill.
    fn solve(n: u32, all: u32, row: u32, cols: u32, left: u32, right: u32) -> u64 {
        let mut free = !(cols | left | right) & all;
        if row + 1 == n {
            return free.count_ones() as u64;
        }
        let mut total = 0u64;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            total += solve(n, all, row + 1, cols | bit, ((left | bit) << 1) & all, (right | bit) >> 1);
        }
        total
    }

    #[spawn]
    fn place(b: &Board, ctx: &mut Ctx) {
        let n = ctx.params.n;
        let all = ((1u64 << n) - 1) as u32;
        if b.row >= ctx.params.cutoff || b.row + 1 == n {
            ctx.counters.solutions.add(solve(n, all, b.row, b.cols, b.left, b.right));
            return;
        }
        let mut free = !(b.cols | b.left | b.right) & all;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            ctx.spawn(Board { row: b.row + 1, cols: b.cols | bit, left: ((b.left | bit) << 1) & all, right: (b.right | bit) >> 1 });
        }
    }
}

/// Counts the solutions of the n-queens problem on `rt`, with tasks down to row `cutoff`.
pub fn solve(rt: &Runtime, n: u32, cutoff: u32) -> Result<(u64, Output<nqueens_cutoff::Kernel>), wsdsl::Error> {
    if !(1..=20).contains(&n) {
        return Err(wsdsl::Error::InvalidConfig(format!("n must be between 1 and 20, not {n}")));
    }
    let root = nqueens_cutoff::Board { row: 0, cols: 0, left: 0, right: 0 };
    let out = rt.run::<nqueens_cutoff::Kernel>(nqueens_cutoff::Params { n, cutoff }, [root])?;
    Ok((out.counters.solutions.get(), out))
}
