//! The m,n,k-game (tic-tac-toe on a board of `columns` x `rows` cells, `k` in a row wins) by
//! negamax over a task tree: a task per position, a child per empty cell, and a complete
//! handler that folds the children's values into the parent's. Every position is searched,
//! without pruning and without a table of positions seen, so the count of positions is the
//! size of the game tree: 549,946 for 3 x 3 (tic-tac-toe), 276,911,233 for 3 x 4.
//!
//! A tree of many tiny tasks, each a few dozen instructions: on the CPU backend the
//! subtrees no other thread asks for run as plain nested calls (lazy task creation,
//! `docs/guide/3-values-and-complete-handlers.md`). [`sequential`] is the plain recursion the
//! kernel is checked and measured against. `cutoff` is the same search with tasks only for
//! the first moves, then that recursion inside each task.

pub mod cutoff;

use wsdsl::prelude::*;

#[megakernel]
pub mod mnk {
    use wsdsl::prelude::*;

    /// The board, as [`super::Board::params`] gives it.
    #[params]
    pub struct Params {
        /// Cells a row, `m`.
        pub columns: u32,
        /// Stones in a row that win, `k`.
        pub k: u32,
        /// Every cell of the board (see `Position`).
        pub cells: u32,
    }

    #[counters]
    pub struct Counters {
        /// Positions searched, the root's included.
        pub positions: Sum<u64>,
    }

    /// A position, the stones of each player as bits: bit `row * (columns + 1) + column`
    /// is a cell, and the bit after each row's last cell is never set, so that a line
    /// shifted past the end of a row meets an empty cell instead of the next row's first.
    #[task(value = i32)]
    pub struct Position {
        /// The stones of the player who just moved (none at the start).
        pub moved: u32,
        /// The stones of the player to move.
        pub to_move: u32,
    }

    /// Whether `stones` hold `k` in a line whose neighbouring cells are `shift` bits apart.
    fn has_line(stones: u32, shift: u32, k: u32) -> bool {
        let mut run = stones;
        for _stone in 1..k {
            run &= run >> shift;
        }
        run != 0
    }

    /// Whether `stones` hold `k` in a row, a column or either diagonal.
    fn wins(stones: u32, columns: u32, k: u32) -> bool {
        let stride = columns + 1;
        has_line(stones, 1, k) || has_line(stones, stride, k) || has_line(stones, stride - 1, k) || has_line(stones, stride + 1, k)
    }

    /// The value of a position for the player to move: -1 lost, 0 drawn, 1 won.
    #[spawn]
    fn expand(p: &Position, ctx: &mut Ctx) -> i32 {
        ctx.counters.positions.add(1);
        // Only the player who just moved can have completed a line: an earlier one ended
        // the game.
        if wins(p.moved, ctx.params.columns, ctx.params.k) {
            return -1;
        }
        let mut empty = ctx.params.cells & !(p.moved | p.to_move);
        if empty == 0 {
            return 0; // a full board without a line: drawn
        }
        while empty != 0 {
            let cell = empty & empty.wrapping_neg();
            empty ^= cell;
            ctx.spawn(Position { moved: p.to_move | cell, to_move: p.moved });
        }
        0 // replaced by `best` once the children are done
    }

    /// Negamax: a child's value is the opponent's, so ours is the best of their negations.
    #[complete(max_children = 16)]
    fn best(_p: &Position, children: &[i32], _ctx: &mut Ctx) -> i32 {
        let mut best = -children[0];
        for i in 1..children.len() {
            best = best.max(-children[i]);
        }
        best
    }
}

/// A board of `columns` x `rows` cells on which `k` stones in a row win.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Board {
    pub columns: u32,
    pub rows: u32,
    pub k: u32,
}

/// Most cells of a board: a position's children, one per empty cell, must fit the complete
/// handler's `max_children`.
pub const MOST_CELLS: u32 = 16;

impl Board {
    /// Tic-tac-toe.
    pub const TIC_TAC_TOE: Board = Board { columns: 3, rows: 3, k: 3 };

    /// The board if it is one the kernel can search: at least one cell, at most
    /// `MOST_CELLS`, and `k` from 1 to the longer side.
    pub fn checked(columns: u32, rows: u32, k: u32) -> Result<Board, String> {
        let cells = columns.checked_mul(rows).filter(|&c| (1..=MOST_CELLS).contains(&c));
        if cells.is_none() {
            return Err(format!("a {columns} x {rows} board: the kernel takes 1 to {MOST_CELLS} cells"));
        }
        if k == 0 || k > columns.max(rows) {
            return Err(format!("k = {k} on a {columns} x {rows} board: k must be 1 to {}", columns.max(rows)));
        }
        Ok(Board { columns, rows, k })
    }

    /// Every cell, in the kernel's bits (`mnk::Position`).
    pub fn cells(&self) -> u32 {
        let mut cells = 0;
        for row in 0..self.rows {
            for column in 0..self.columns {
                cells |= 1 << (row * (self.columns + 1) + column);
            }
        }
        cells
    }

    pub fn params(&self) -> mnk::Params {
        mnk::Params { columns: self.columns, k: self.k, cells: self.cells() }
    }

    /// The known value of the empty board and the size of its game tree, for the boards
    /// whose search is short enough to be checked often.
    pub fn known(&self) -> Option<(i32, u64)> {
        match (self.columns, self.rows, self.k) {
            (3, 3, 3) => Some((0, 549_946)),
            (3, 4, 3) | (4, 3, 3) => Some((1, 276_911_233)),
            _ => None,
        }
    }
}

impl std::fmt::Display for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} x {}, {} in a row", self.columns, self.rows, self.k)
    }
}

/// The empty board's value for the first player and the positions searched, with a task per
/// position.
pub fn solve(rt: &Runtime, board: Board) -> Result<(i32, u64, Output<mnk::Kernel>), wsdsl::Error> {
    let out = rt.run::<mnk::Kernel>(board.params(), [mnk::Position { moved: 0, to_move: 0 }])?;
    Ok((out.values[0], out.counters.positions.get(), out))
}

/// The same search as the kernel's, as a plain recursion on one thread: the empty board's
/// value for the first player and the positions searched.
pub fn sequential(board: Board) -> (i32, u64) {
    /// `k` of `stones` along lines whose neighbouring cells are `shift` bits apart.
    fn line(stones: u32, shift: u32, k: u32) -> bool {
        (1..k).fold(stones, |run, _| run & (run >> shift)) != 0
    }
    fn negamax(moved: u32, to_move: u32, board: &Board, cells: u32, positions: &mut u64) -> i32 {
        *positions += 1;
        let stride = board.columns + 1;
        if [1, stride, stride - 1, stride + 1].into_iter().any(|shift| line(moved, shift, board.k)) {
            return -1;
        }
        let mut empty = cells & !(moved | to_move);
        if empty == 0 {
            return 0;
        }
        let mut best = -1;
        while empty != 0 {
            let cell = empty & empty.wrapping_neg();
            empty ^= cell;
            best = best.max(-negamax(to_move | cell, moved, board, cells, positions));
        }
        best
    }
    let mut positions = 0;
    let value = negamax(0, 0, &board, board.cells(), &mut positions);
    (value, positions)
}
