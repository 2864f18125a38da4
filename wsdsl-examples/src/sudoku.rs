//! Sudoku as a task tree: every task is a board that branches. Its handler first fills every
//! forced cell (a naked single: an empty cell with one candidate left), then picks the empty
//! cell with the fewest candidates and spawns one child per candidate digit. A board with no
//! empty cell left is a solution; one whose best cell has no candidate is a dead end.
//!
//! The kernel keeps a board as its digits plus the digits used in each row, column and box
//! (bitmasks). The host side — the puzzle generator and the sequential backtracking solver the
//! kernel is checked against — works on plain grids of digits and shares no code with it.

use wsdsl::prelude::*;


#[megakernel]
pub mod sudoku {
    use wsdsl::prelude::*;

    /// Every digit: bit `d - 1` stands for digit `d`.
    pub const ALL: u16 = 0x1FF;
    /// Cells of a board.
    pub const CELLS: usize = 81;

    /// Solutions found, per puzzle (one root task per puzzle, all in one run).
    #[buffers]
    pub struct Found {
        /// Solutions found of each puzzle.
        pub counts: Buffer<u32>,
        /// Set (from 0 to 1) by the task that found a puzzle's first solution.
        pub claimed: Buffer<u32>,
        /// The first solution found of each puzzle: 81 digits per puzzle.
        pub grids: Buffer<u32>,
    }

    #[counters]
    pub struct Counters {
        pub solutions: Sum<u64>,
        /// Boards left with an empty cell that no digit fits.
        pub dead_ends: Sum<u64>,
        /// Cells filled because they had a single candidate.
        pub forced: Sum<u64>,
    }

    /// A board: `cells` holds the digits (0 for an empty cell); `rows`, `cols` and `boxes`
    /// the digits already used in each row, column and 3x3 box.
    pub struct Board {
        pub cells: [u8; 81],
        pub rows: [u16; 9],
        pub cols: [u16; 9],
        pub boxes: [u16; 9],
    }

    impl Board {
        pub fn empty() -> Board {
            Board { cells: [0; 81], rows: [0; 9], cols: [0; 9], boxes: [0; 9] }
        }

        /// The bit of `digit` in the masks.
        pub fn bit(digit: u8) -> u16 {
            1 << (digit - 1)
        }

        /// The 3x3 box of `cell` (boxes numbered row by row).
        pub fn box_of(cell: usize) -> usize {
            cell / 27 * 3 + cell % 9 / 3
        }

        /// The digits that may still go into `cell`.
        pub fn candidates(&self, cell: usize) -> u16 {
            !(self.rows[cell / 9] | self.cols[cell % 9] | self.boxes[Board::box_of(cell)]) & ALL
        }

        pub fn is_empty(&self, cell: usize) -> bool {
            self.cells[cell] == 0
        }

        /// Writes `digit` into the empty `cell`, where it must be a candidate.
        pub fn place(&mut self, cell: usize, digit: u8) {
            assert!(digit >= 1 && digit <= 9, "{} is not a digit of the board", digit);
            assert!(self.is_empty(cell), "cell {} already holds {}", cell, self.cells[cell]);
            let bit = Board::bit(digit);
            assert!(self.candidates(cell) & bit != 0, "{} may not go into cell {}", digit, cell);
            self.cells[cell] = digit;
            self.rows[cell / 9] |= bit;
            self.cols[cell % 9] |= bit;
            self.boxes[Board::box_of(cell)] |= bit;
        }

        /// An empty cell with a single candidate, and that digit.
        pub fn forced(&self) -> Option<(usize, u8)> {
            (0..CELLS)
                .find(|&c| self.is_empty(c) && self.candidates(c).count_ones() == 1)
                .map(|c| (c, self.candidates(c).trailing_zeros() as u8 + 1))
        }

        /// Fills forced cells until none is left; how many it filled.
        pub fn fill_forced(&mut self) -> u32 {
            let mut filled = 0;
            while let Some((cell, digit)) = self.forced() {
                self.place(cell, digit);
                filled += 1;
            }
            filled
        }

        /// The empty cell with the fewest candidates (the first of them), or `None` when the
        /// board is full.
        pub fn best_cell(&self) -> Option<usize> {
            (0..CELLS).filter(|&c| self.is_empty(c)).min_by_key(|&c| self.candidates(c).count_ones())
        }
    }

    /// A board of puzzle `puzzle` whose forced cells are yet to be filled.
    #[task]
    pub struct Branch {
        pub puzzle: u32,
        pub board: Board,
    }

    #[spawn]
    fn branch(t: &Branch, ctx: &mut Ctx) {
        let mut board = t.board;
        ctx.counters.forced.add(board.fill_forced() as u64);
        let p = t.puzzle as usize;
        match board.best_cell() {
            None => {
                ctx.counters.solutions.add(1);
                ctx.buffers.counts.atomic_add(p, 1);
                if ctx.buffers.claimed.atomic_cas(p, 0, 1) == 0 {
                    for (i, &digit) in board.cells.iter().enumerate() {
                        ctx.buffers.grids.set(p * CELLS + i, digit as u32);
                    }
                }
            }
            Some(cell) => {
                let candidates = board.candidates(cell);
                if candidates == 0 {
                    ctx.counters.dead_ends.add(1);
                }
                for digit in 1..=9u8 {
                    if candidates & Board::bit(digit) != 0 {
                        let mut child = board;
                        child.place(cell, digit);
                        ctx.spawn(Branch { puzzle: t.puzzle, board: child });
                    }
                }
            }
        }
    }
}

/// A grid of digits, row by row; 0 is an empty cell.
pub type Grid = [u8; 81];

/// What a run found for each puzzle.
#[derive(Debug)]
pub struct Solved {
    /// Solutions of each puzzle.
    pub counts: Vec<u32>,
    /// The first solution found of each puzzle (all zeros if none).
    pub grids: Vec<Grid>,
}

/// The kernel's board of `clues`, or `None` if two clues clash.
pub fn board(clues: &Grid) -> Option<sudoku::Board> {
    let mut b = sudoku::Board::empty();
    for (cell, &digit) in clues.iter().enumerate() {
        if digit != 0 {
            if !(1..=9).contains(&digit) || b.candidates(cell) & sudoku::Board::bit(digit) == 0 {
                return None;
            }
            b.place(cell, digit);
        }
    }
    Some(b)
}

/// Counts the solutions of every puzzle (and keeps the first found), one root task per puzzle.
pub fn solve(rt: &Runtime, puzzles: &[Grid]) -> Result<(Solved, Output<sudoku::Kernel>), wsdsl::Error> {
    let mut roots = Vec::with_capacity(puzzles.len());
    for (i, clues) in puzzles.iter().enumerate() {
        let board = board(clues).ok_or_else(|| wsdsl::Error::InvalidConfig(format!("puzzle {i}: two clues clash")))?;
        roots.push(sudoku::Branch { puzzle: i as u32, board });
    }
    let n = puzzles.len();
    let found = sudoku::Found {
        counts: Buffer::zeroed(n),
        claimed: Buffer::zeroed(n),
        grids: Buffer::zeroed(n * 81),
    };
    let out = rt.run_with::<sudoku::Kernel>((), &found, roots)?;
    let cells = found.grids.to_vec();
    let grids = cells.chunks(81).map(|g| std::array::from_fn(|i| g[i] as u8)).collect();
    Ok((Solved { counts: found.counts.to_vec(), grids }, out))
}

// ---- The host side: a sequential solver and a puzzle generator on plain grids. ----

/// Whether `digit` may go into the empty cell (`row`, `col`) of `grid`: it is in none of the
/// cell's row, column and box.
fn fits(grid: &Grid, row: usize, col: usize, digit: u8) -> bool {
    let (r0, c0) = (row / 3 * 3, col / 3 * 3);
    (0..9).all(|k| {
        grid[row * 9 + k] != digit
            && grid[k * 9 + col] != digit
            && grid[(r0 + k / 3) * 9 + c0 + k % 3] != digit
    })
}

/// Whether `grid` breaks no rule: no digit twice in a row, a column or a box.
pub fn consistent(grid: &Grid) -> bool {
    (0..81).all(|cell| {
        let digit = grid[cell];
        if digit == 0 {
            return true;
        }
        let mut g = *grid;
        g[cell] = 0;
        digit <= 9 && fits(&g, cell / 9, cell % 9, digit)
    })
}

/// Sequential backtracking: counts the solutions of `grid` up to `limit` (stops there), and
/// keeps the first one found in `first`. Recursive, on the host's stack; it branches on the
/// empty cell with the fewest fitting digits (found by scanning the grid at every node).
pub fn count_solutions(grid: &mut Grid, limit: u32, first: &mut Option<Grid>) -> u32 {
    // used[0][r], used[1][c], used[2][b]: the digits (as bits 1..=9) in each row, column, box.
    let mut used = [[0u16; 9]; 3];
    for (cell, &d) in grid.iter().enumerate() {
        let (r, c) = (cell / 9, cell % 9);
        for (k, line) in [r, c, r / 3 * 3 + c / 3].into_iter().enumerate() {
            used[k][line] |= 1 << d;
        }
    }
    let free = |cell: usize| {
        let (r, c) = (cell / 9, cell % 9);
        !(used[0][r] | used[1][c] | used[2][r / 3 * 3 + c / 3]) & 0x3FE
    };
    let Some(cell) = (0..81).filter(|&c| grid[c] == 0).min_by_key(|&c| free(c).count_ones()) else {
        if first.is_none() {
            *first = Some(*grid);
        }
        return 1;
    };
    let digits = free(cell);
    let mut found = 0;
    for d in (1..=9).filter(|&d| digits & (1 << d) != 0) {
        grid[cell] = d;
        found += count_solutions(grid, limit - found, first);
        if found >= limit {
            break;
        }
    }
    grid[cell] = 0;
    found
}

/// The number of solutions of `clues` (0, 1 or 2 for "more than one") and the first found.
pub fn reference(clues: &Grid) -> (u32, Option<Grid>) {
    if !consistent(clues) {
        return (0, None);
    }
    let mut first = None;
    let count = count_solutions(&mut clues.clone(), 2, &mut first);
    (count, first)
}

/// The host side's generator (`crate::rng`).
pub use crate::rng::SplitMix64 as Rng;

/// A random complete grid: the pattern grid `(3 * (r % 3) + r / 3 + c) % 9 + 1` with its
/// digits relabelled, rows shuffled within bands, bands shuffled, columns within stacks,
/// stacks, and transposed half of the time. All of these keep a grid valid.
pub fn random_grid(rng: &mut Rng) -> Grid {
    let mut digits: Vec<u8> = (1..=9).collect();
    rng.shuffle(&mut digits);
    let mut order = || {
        let mut bands = [0, 1, 2];
        rng.shuffle(&mut bands);
        let mut lines = Vec::with_capacity(9);
        for band in bands {
            let mut within = [0, 1, 2];
            rng.shuffle(&mut within);
            lines.extend(within.iter().map(|w| band * 3 + w));
        }
        lines
    };
    let (rows, cols) = (order(), order());
    let transpose = rng.next_u64() % 2 == 1;
    std::array::from_fn(|cell| {
        let (r, c) = (rows[cell / 9], cols[cell % 9]);
        let (r, c) = if transpose { (c, r) } else { (r, c) };
        digits[(3 * (r % 3) + r / 3 + c) % 9]
    })
}

/// A puzzle with a unique solution and (at least) `clues` clues, and its solution: clues are
/// taken out of a random grid in a random order, each kept out only while the sequential
/// solver still finds exactly one solution. Stops at `clues`, or when no clue can go.
pub fn generate(rng: &mut Rng, clues: usize) -> (Grid, Grid) {
    let solution = random_grid(rng);
    let mut puzzle = solution;
    let mut cells: Vec<usize> = (0..81).collect();
    rng.shuffle(&mut cells);
    let mut left = 81;
    for cell in cells {
        if left <= clues {
            break;
        }
        let digit = puzzle[cell];
        puzzle[cell] = 0;
        if count_solutions(&mut puzzle.clone(), 2, &mut None) == 1 {
            left -= 1;
        } else {
            puzzle[cell] = digit;
        }
    }
    (puzzle, solution)
}

/// `f(0..n)` computed on every core (in chunks, one thread each), in order.
fn par_map<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).clamp(1, n.max(1));
    let per = n.div_ceil(threads).max(1);
    let mut out: Vec<Option<T>> = (0..n).map(|_| None).collect();
    std::thread::scope(|s| {
        for (k, chunk) in out.chunks_mut(per).enumerate() {
            let f = &f;
            s.spawn(move || chunk.iter_mut().enumerate().for_each(|(j, slot)| *slot = Some(f(k * per + j))));
        }
    });
    out.into_iter().map(|x| x.expect("every slot is filled")).collect()
}

/// Most puzzles one run generates and solves (each is generated and checked on the host
/// first, which takes far longer than the GPU's solving).
pub const MAX_PUZZLES: usize = 1_000_000;

/// Whether `puzzles` puzzles of `clues` clues can be generated, before anything is.
pub fn check_request(puzzles: usize, clues: usize) -> Result<(), wsdsl::Error> {
    if !(17..=81).contains(&clues) || !(1..=MAX_PUZZLES).contains(&puzzles) {
        return Err(wsdsl::Error::InvalidConfig(format!("--clues must be 17..=81 and --puzzles 1..={MAX_PUZZLES}")));
    }
    Ok(())
}

/// `n` puzzles (and their solutions) from `seed`: puzzle `i` comes from its own generator
/// seeded by `seed` and `i`, so the set does not depend on how many threads make it.
pub fn generate_set(n: usize, clues: usize, seed: u64) -> Vec<(Grid, Grid)> {
    par_map(n, |i| generate(&mut Rng::new(seed ^ (i as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93)), clues))
}

/// [`reference`] of every puzzle, on every core.
pub fn references(puzzles: &[Grid]) -> Vec<(u32, Option<Grid>)> {
    par_map(puzzles.len(), |i| reference(&puzzles[i]))
}

/// Clues of a puzzle.
pub fn clue_count(grid: &Grid) -> usize {
    grid.iter().filter(|&&d| d != 0).count()
}
