//! N-Queens as a task tree: one task per partial board, one child per safe square in the
//! next row. Boards are bitmasks (columns and the two diagonal directions under attack).
//! `cutoff` is the same search with tasks only down to a cutoff row.

pub mod cutoff;

use wsdsl::prelude::*;

#[megakernel]
pub mod nqueens {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        /// Board size, 1..=20.
        pub n: u32,
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

    #[spawn]
    fn place(b: &Board, ctx: &mut Ctx) {
        let n = ctx.params.n;
        let all = ((1u64 << n) - 1) as u32;
        let mut free = !(b.cols | b.left | b.right) & all;
        if b.row + 1 == n {
            // Last row: every free square completes a solution; count instead of spawning.
            ctx.counters.solutions.add(free.count_ones() as u64);
            return;
        }
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            ctx.spawn(Board {
                row: b.row + 1,
                cols: b.cols | bit,
                left: ((b.left | bit) << 1) & all,
                right: (b.right | bit) >> 1,
            });
        }
    }
}

/// Solutions for n = 1..=20 (OEIS A000170).
pub const KNOWN: [u64; 20] = [
    1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2_680, 14_200, 73_712, 365_596, 2_279_184, 14_772_512,
    95_815_104, 666_090_624, 4_968_057_848, 39_029_188_884,
];

/// The known number of solutions, if `n` is in the table.
pub fn expected(n: u32) -> Option<u64> {
    KNOWN.get((n as usize).wrapping_sub(1)).copied()
}

/// Counts the solutions of the n-queens problem on `rt`.
pub fn solve(rt: &Runtime, n: u32) -> Result<(u64, Output<nqueens::Kernel>), wsdsl::Error> {
    if !(1..=20).contains(&n) {
        return Err(wsdsl::Error::InvalidConfig(format!("n must be between 1 and 20, not {n}")));
    }
    let root = nqueens::Board { row: 0, cols: 0, left: 0, right: 0 };
    let out = rt.run::<nqueens::Kernel>(nqueens::Params { n }, [root])?;
    Ok((out.counters.solutions.get(), out))
}
