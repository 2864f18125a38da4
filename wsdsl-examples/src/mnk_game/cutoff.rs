//! The m,n,k-game search with tasks only for the first `cutoff` moves: a task whose position
//! has `cutoff` stones searches its whole subtree with a plain recursive helper. The program
//! chooses where tasks end, which the CPU backend's lazy task creation does by itself as the
//! run goes (`mod.rs` is the task-per-position form this is measured against); the choice
//! pays where the runtime cannot make it, on the GPU, whose tasks always go through a queue,
//! and for the last few percent on the CPU (`docs/guide/3-values-and-complete-handlers.md`).

use super::Board;
use wsdsl::prelude::*;

// A search goes at most `MOST_CELLS` + 1 calls deep.
#[megakernel(recursion_limit = 20)]
pub mod mnk_cutoff {
    use wsdsl::prelude::*;

    /// The board, as `mnk::Params`, and where tasks end.
    #[params]
    pub struct Params {
        pub columns: u32,
        pub k: u32,
        pub cells: u32,
        /// Positions with this many stones are searched by recursion (0: the root's).
        pub cutoff: u32,
    }

    #[counters]
    pub struct Counters {
        pub positions: Sum<u64>,
    }

    /// A position, as `mnk::Position`.
    #[task(value = i32)]
    pub struct Position {
        pub moved: u32,
        pub to_move: u32,
    }

    fn has_line(stones: u32, shift: u32, k: u32) -> bool {
        let mut run = stones;
        for _stone in 1..k {
            run &= run >> shift;
        }
        run != 0
    }

    fn wins(stones: u32, columns: u32, k: u32) -> bool {
        let stride = columns + 1;
        has_line(stones, 1, k) || has_line(stones, stride, k) || has_line(stones, stride - 1, k) || has_line(stones, stride + 1, k)
    }

    /// The value of a position for the player to move, searched by recursion; counts the
    /// positions into `positions`.
    fn search(moved: u32, to_move: u32, p: &Params, positions: &mut u64) -> i32 {
        *positions += 1;
        if wins(moved, p.columns, p.k) {
            return -1;
        }
        let mut empty = p.cells & !(moved | to_move);
        if empty == 0 {
            return 0;
        }
        let mut best = -1i32;
        while empty != 0 {
            let cell = empty & empty.wrapping_neg();
            empty ^= cell;
            best = best.max(-search(to_move | cell, moved, p, positions));
        }
        best
    }

    #[spawn]
    fn expand(p: &Position, ctx: &mut Ctx) -> i32 {
        if (p.moved | p.to_move).count_ones() >= ctx.params.cutoff {
            let mut positions = 0u64;
            let value = search(p.moved, p.to_move, ctx.params, &mut positions);
            ctx.counters.positions.add(positions);
            return value;
        }
        ctx.counters.positions.add(1);
        if wins(p.moved, ctx.params.columns, ctx.params.k) {
            return -1;
        }
        let mut empty = ctx.params.cells & !(p.moved | p.to_move);
        if empty == 0 {
            return 0;
        }
        while empty != 0 {
            let cell = empty & empty.wrapping_neg();
            empty ^= cell;
            ctx.spawn(Position { moved: p.to_move | cell, to_move: p.moved });
        }
        0
    }

    #[complete(max_children = 16)]
    fn best(_p: &Position, children: &[i32], _ctx: &mut Ctx) -> i32 {
        let mut best = -children[0];
        for i in 1..children.len() {
            best = best.max(-children[i]);
        }
        best
    }
}

/// The empty board's value and the positions searched, with tasks for the first `cutoff`
/// moves.
pub fn solve(rt: &Runtime, board: Board, cutoff: u32) -> Result<(i32, u64, Output<mnk_cutoff::Kernel>), wsdsl::Error> {
    let mnk = board.params();
    let params = mnk_cutoff::Params { columns: mnk.columns, k: mnk.k, cells: mnk.cells, cutoff };
    let out = rt.run::<mnk_cutoff::Kernel>(params, [mnk_cutoff::Position { moved: 0, to_move: 0 }])?;
    Ok((out.values[0], out.counters.positions.get(), out))
}
