//! The 15-puzzle by depth-bounded search, as one iteration of IDA*: every task is a position
//! reached by `depth` moves, and spawns one child per move of the blank that stays on the
//! board and does not undo the move before it; a position whose moves so far plus its
//! Manhattan distance exceed the bound is cut off. Positions that are solved count one
//! solution each (the search does not go past them). With the bound at the optimal number of
//! moves this counts the optimal solutions; above it, every solution within the bound.
//!
//! The host side — scrambling, and the sequential recursive search the kernel is checked
//! against (which finds the optimal length by IDA* first) — keeps the puzzle as a 4x4 grid
//! and shares no code with the kernel.

use wsdsl::prelude::*;

use crate::rng::SplitMix64;

#[megakernel]
pub mod fifteen {
    use wsdsl::prelude::*;

    /// Where the blank moves.
    pub enum Move {
        Up,
        Down,
        Left,
        Right,
    }

    pub const MOVES: [Move; 4] = [Move::Up, Move::Down, Move::Left, Move::Right];

    impl Move {
        pub fn opposite(self) -> Move {
            match self {
                Move::Up => Move::Down,
                Move::Down => Move::Up,
                Move::Left => Move::Right,
                Move::Right => Move::Left,
            }
        }
    }

    /// Squares are numbered row by row from 0; tile `t` (1..=15) belongs on square `t - 1`
    /// and the blank (0) on square 15.
    pub struct Board {
        pub tiles: [u8; 16],
        pub blank: u8,
    }

    impl Board {
        /// The square the blank reaches by `m`, if it stays on the board.
        pub fn target(&self, m: Move) -> Option<usize> {
            let b = self.blank as usize;
            match m {
                Move::Up if b >= 4 => Some(b - 4),
                Move::Down if b < 12 => Some(b + 4),
                Move::Left if b % 4 > 0 => Some(b - 1),
                Move::Right if b % 4 < 3 => Some(b + 1),
                _ => None,
            }
        }

        /// The board after the blank moves by `m`, if it can.
        pub fn slide(&self, m: Move) -> Option<Board> {
            let to = self.target(m)?;
            let mut next = *self;
            next.tiles[self.blank as usize] = self.tiles[to];
            next.tiles[to] = 0;
            next.blank = to as u8;
            Some(next)
        }

        /// The sum of every tile's row and column distance to its square: no solution is shorter.
        pub fn distance(&self) -> u32 {
            self.tiles
                .iter()
                .enumerate()
                .filter(|&(_, &t)| t != 0)
                .map(|(square, &t)| {
                    let home = t as usize - 1;
                    ((square / 4).abs_diff(home / 4) + (square % 4).abs_diff(home % 4)) as u32
                })
                .sum()
        }
    }

    #[params]
    pub struct Params {
        /// The most moves a solution may take.
        pub bound: u32,
    }

    #[counters]
    pub struct Counters {
        pub solutions: Sum<u64>,
        /// The fewest moves of a solution found.
        pub shortest: Min<u32>,
        /// Positions cut off by the bound.
        pub cut: Sum<u64>,
    }

    /// A position after `depth` moves, the last of them `last` (none at the root).
    #[task]
    pub struct Node {
        pub board: Board,
        pub depth: u32,
        pub last: Option<Move>,
    }

    #[spawn]
    fn expand(n: &Node, ctx: &mut Ctx) {
        let distance = n.board.distance();
        if distance == 0 {
            ctx.counters.solutions.add(1);
            ctx.counters.shortest.min(n.depth);
            return;
        }
        if n.depth + distance > ctx.params.bound {
            ctx.counters.cut.add(1);
            return;
        }
        for m in MOVES {
            // Undoing the last move cannot lead anywhere new.
            if n.last.is_some_and(|last| last == m.opposite()) {
                continue;
            }
            if let Some(board) = n.board.slide(m) {
                ctx.spawn(Node { board, depth: n.depth + 1, last: Some(m) });
            }
        }
    }
}

/// A* on the priority scheduler: the fewest moves that solve a position. A task is a
/// position reached by `depth` moves; it runs in band `depth + distance` (f = g + h, with the
/// Manhattan distance h never overestimating), so positions are expanded roughly in order of
/// the shortest solution they could still lead to. A solved position lowers the incumbent (a
/// `#[buffers]` word, started just above a length the host knows to be reachable) with
/// `atomic_min`; a position whose f cannot beat the incumbent is cut off. In band order every
/// position of f below the optimum is expanded once per path to it and almost none above it;
/// with every task in band 0 (`ordered: false`) the same kernel runs in no particular order and
/// expands whatever the incumbent has not yet cut off.
///
/// The board code repeats the module above: a megakernel module's items are its own (the DSL
/// shares no items between modules yet).
#[megakernel(order = priority)]
pub mod astar {
    use wsdsl::prelude::*;

    pub enum Move {
        Up,
        Down,
        Left,
        Right,
    }

    pub const MOVES: [Move; 4] = [Move::Up, Move::Down, Move::Left, Move::Right];

    impl Move {
        pub fn opposite(self) -> Move {
            match self {
                Move::Up => Move::Down,
                Move::Down => Move::Up,
                Move::Left => Move::Right,
                Move::Right => Move::Left,
            }
        }
    }

    /// Squares row by row from 0; tile `t` belongs on square `t - 1`, the blank (0) on 15.
    pub struct Board {
        pub tiles: [u8; 16],
        pub blank: u8,
    }

    impl Board {
        /// The board after the blank moves by `m`, if it stays on the board.
        pub fn slide(&self, m: Move) -> Option<Board> {
            let b = self.blank as usize;
            let to = match m {
                Move::Up if b >= 4 => b - 4,
                Move::Down if b < 12 => b + 4,
                Move::Left if b % 4 > 0 => b - 1,
                Move::Right if b % 4 < 3 => b + 1,
                _ => return None,
            };
            let mut next = *self;
            next.tiles[b] = self.tiles[to];
            next.tiles[to] = 0;
            next.blank = to as u8;
            Some(next)
        }

        /// Manhattan distance to the solved position: no solution is shorter.
        pub fn distance(&self) -> u32 {
            let mut sum = 0u32;
            for (square, &t) in self.tiles.iter().enumerate() {
                if t != 0 {
                    let home = t as usize - 1;
                    sum += ((square / 4).abs_diff(home / 4) + (square % 4).abs_diff(home % 4)) as u32;
                }
            }
            sum
        }
    }

    #[params]
    pub struct Params {
        /// Whether children wait in band f = moves + distance (A*), or all run in band 0.
        pub ordered: bool,
    }

    /// The fewest moves of a solution found so far (one word).
    #[buffers]
    pub struct Incumbent {
        pub moves: Buffer<u32>,
    }

    #[counters]
    pub struct Counters {
        /// Positions whose children were generated.
        pub expanded: Sum<u64>,
        /// Positions cut off because they could not beat the incumbent when they ran.
        pub cut: Sum<u64>,
        /// Solved positions that lowered the incumbent.
        pub improved: Sum<u64>,
    }

    /// A position after `depth` moves, the last of them `last` (none at the root), and its
    /// Manhattan `distance` (its parent computed it for the band).
    #[task]
    pub struct Node {
        pub board: Board,
        pub depth: u32,
        pub last: Option<Move>,
        pub distance: u32,
    }

    #[spawn]
    fn expand(n: &Node, ctx: &mut Ctx) {
        let distance = n.distance;
        let incumbent = ctx.buffers.moves.get(0);
        if n.depth + distance >= incumbent {
            ctx.counters.cut.add(1);
            return;
        }
        if distance == 0 {
            if ctx.buffers.moves.atomic_min(0, n.depth) > n.depth {
                ctx.counters.improved.add(1);
            }
            return;
        }
        ctx.counters.expanded.add(1);
        for m in MOVES {
            // Undoing the last move cannot lead anywhere new.
            if n.last.is_some_and(|last| last == m.opposite()) {
                continue;
            }
            if let Some(board) = n.board.slide(m) {
                let to_go = board.distance();
                let f = n.depth + 1 + to_go;
                if f >= incumbent {
                    // Cut before it is spawned (it is checked again when it runs, against
                    // the incumbent then).
                    ctx.counters.cut.add(1);
                    continue;
                }
                let band = if ctx.params.ordered { f } else { 0 };
                ctx.spawn_with_priority(band, Node { board, depth: n.depth + 1, last: Some(m), distance: to_go });
            }
        }
    }
}

/// A position on the host: `grid[row][column]`, 0 for the blank.
pub type Grid = [[u8; 4]; 4];

/// The solved position.
pub const SOLVED: Grid = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 0]];

/// The blank's moves as (row, column) steps: up, down, left, right.
const STEPS: [(i32, i32); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

fn blank_of(grid: &Grid) -> (i32, i32) {
    (0..16).map(|s| (s / 4, s % 4)).find(|&(r, c)| grid[r as usize][c as usize] == 0).expect("a blank")
}

/// `grid` after the blank moves by `step` from `blank`, if it stays on the board.
fn moved(grid: &Grid, blank: (i32, i32), step: (i32, i32)) -> Option<(Grid, (i32, i32))> {
    let (r, c) = (blank.0 + step.0, blank.1 + step.1);
    if !(0..4).contains(&r) || !(0..4).contains(&c) {
        return None;
    }
    let mut next = *grid;
    next[blank.0 as usize][blank.1 as usize] = grid[r as usize][c as usize];
    next[r as usize][c as usize] = 0;
    Some((next, (r, c)))
}

/// Manhattan distance of `grid` to the solved position.
pub fn manhattan(grid: &Grid) -> u32 {
    let mut sum = 0;
    for (r, row) in grid.iter().enumerate() {
        for (c, &t) in row.iter().enumerate() {
            if t != 0 {
                let home = t as usize - 1;
                sum += (r.abs_diff(home / 4) + c.abs_diff(home % 4)) as u32;
            }
        }
    }
    sum
}

/// Whether `grid` holds each of 0..=15 once.
pub fn is_permutation(grid: &Grid) -> bool {
    let mut seen = [false; 16];
    grid.iter().flatten().all(|&t| t < 16 && !std::mem::replace(&mut seen[t as usize], true))
}

/// A position `moves` random moves from the solved one (never undoing the move before).
pub fn scramble(moves: u32, seed: u64) -> Grid {
    let mut rng = SplitMix64::new(seed);
    let (mut grid, mut blank, mut last) = (SOLVED, (3, 3), None::<usize>);
    let mut done = 0;
    while done < moves {
        let k = rng.below(4) as usize;
        if last == Some(k ^ 1) {
            continue; // up/down and left/right are 0/1 and 2/3
        }
        if let Some((g, b)) = moved(&grid, blank, STEPS[k]) {
            (grid, blank, last) = (g, b, Some(k));
            done += 1;
        }
    }
    grid
}

/// Sequential recursive search: the solutions of at most `bound` moves from `grid` (`depth`
/// moves made, the last one `last`), stopping at the solved position, never undoing a move.
/// Adds them to `found` and the shortest to `shortest`.
fn count(grid: &Grid, blank: (i32, i32), depth: u32, last: Option<usize>, bound: u32, found: &mut u64, shortest: &mut u32) {
    let h = manhattan(grid);
    if h == 0 {
        *found += 1;
        *shortest = (*shortest).min(depth);
        return;
    }
    if depth + h > bound {
        return;
    }
    for (k, &step) in STEPS.iter().enumerate() {
        if last == Some(k ^ 1) {
            continue;
        }
        if let Some((g, b)) = moved(grid, blank, step) {
            count(&g, b, depth + 1, Some(k), bound, found, shortest);
        }
    }
}

/// The solutions of `grid` of at most `bound` moves, and the fewest moves of any of them.
pub fn reference(grid: &Grid, bound: u32) -> (u64, u32) {
    let (mut found, mut shortest) = (0, u32::MAX);
    count(grid, blank_of(grid), 0, None, bound, &mut found, &mut shortest);
    (found, shortest)
}

/// The fewest moves that solve `grid` (IDA*: bounds from its Manhattan distance up, by two),
/// or `None` if no bound up to `limit` finds one.
pub fn optimal(grid: &Grid, limit: u32) -> Option<u32> {
    (manhattan(grid)..=limit).step_by(2).find(|&bound| reference(grid, bound).0 > 0)
}

/// The kernel's board of `grid`.
pub fn board(grid: &Grid) -> fifteen::Board {
    let tiles: [u8; 16] = std::array::from_fn(|s| grid[s / 4][s % 4]);
    let blank = tiles.iter().position(|&t| t == 0).expect("a blank") as u8;
    fifteen::Board { tiles, blank }
}

/// Counts the solutions of `grid` of at most `bound` moves on `rt`; also the fewest moves of
/// one (`u32::MAX` if none).
pub fn solve(rt: &Runtime, grid: &Grid, bound: u32) -> Result<(u64, u32, Output<fifteen::Kernel>), wsdsl::Error> {
    if !is_permutation(grid) {
        return Err(wsdsl::Error::InvalidConfig("a position holds each of 0..=15 once".into()));
    }
    let root = fifteen::Node { board: board(grid), depth: 0, last: None };
    let out = rt.run::<fifteen::Kernel>(fifteen::Params { bound }, [root])?;
    Ok((out.counters.solutions.get(), out.counters.shortest.get(), out))
}

/// What an A* run found: the fewest moves (`None` if no solution is shorter than the `above`
/// it started from) and the positions it expanded.
pub struct Shortest {
    pub moves: Option<u32>,
    pub expanded: u64,
    pub out: Output<astar::Kernel>,
}

/// The fewest moves that solve `grid`, by A* on `rt` (`ordered`: in band order; otherwise
/// every position in band 0). `above` is a number of moves known to be enough (a scramble's
/// length): the search looks for solutions shorter than `above + 1`.
pub fn shortest(rt: &Runtime, grid: &Grid, above: u32, ordered: bool) -> Result<Shortest, wsdsl::Error> {
    if !is_permutation(grid) {
        return Err(wsdsl::Error::InvalidConfig("a position holds each of 0..=15 once".into()));
    }
    let tiles: [u8; 16] = std::array::from_fn(|s| grid[s / 4][s % 4]);
    let blank = tiles.iter().position(|&t| t == 0).expect("a blank") as u8;
    let board = astar::Board { tiles, blank };
    let root = astar::Node { board, depth: 0, last: None, distance: board.distance() };
    let incumbent = astar::Incumbent { moves: Buffer::from_vec(vec![above.saturating_add(1)]) };
    let out = rt.run_with::<astar::Kernel>(astar::Params { ordered }, &incumbent, [root])?;
    let found = incumbent.moves.get(0);
    Ok(Shortest { moves: (found <= above).then_some(found), expanded: out.counters.expanded.get(), out })
}
