//! Connect Four (four-in-a-row) by minimax over a task tree, after Cederman & Tsigas (GPU
//! Computing Gems, ch. 35.4.1): every position is a task, its children are the positions after
//! each legal move, and a complete handler folds the children's values into the parent's.
//!
//! Two programs:
//! - [`exact`]: exhaustive negamax without pruning, scored like Pascal Pons' test sets, so that
//!   every end-game position of `data/connect4/Test_L3_R1` can be checked against its known score;
//! - [`heuristic`]: the chapter's look-ahead, a fixed number of plies deep, with leaves valued by
//!   counting open lines of two and three stones.
//!
//! The kernels keep positions as bitboards; the host side (parsing, and the plain recursive
//! references the kernels are checked against) uses a grid of cells, so the references share
//! no code with the kernels.

use std::fmt;
use wsdsl::prelude::*;

/// Columns of the board.
pub const WIDTH: usize = 7;
/// Rows of the board.
pub const HEIGHT: usize = 6;
/// Cells of the board: a game lasts at most this many moves.
pub const CELLS: u32 = (WIDTH * HEIGHT) as u32;

/// Exhaustive negamax: the exact game value of a position, scored like Pons' test sets. A
/// win is worth 22 minus the stones the winner has played when it wins (a quicker win is
/// worth more: winning on the next move with n stones on the board is worth (43 - n) / 2), a
/// loss the negative, a draw 0; values are for the side to move.
///
/// Bitboards: bit `7 * column + row` is the cell in `column` at `row` (row 0 at the bottom).
/// The seventh bit of each column is never set, so a line shifted past the top of one column
/// lands on an empty cell instead of the bottom of the next one.
#[megakernel]
pub mod exact {
    /// The bottom cell of every column.
    const BOTTOM_ROW: u64 = 1 | 1 << 7 | 1 << 14 | 1 << 21 | 1 << 28 | 1 << 35 | 1 << 42;
    /// Every cell of the board (six per column).
    const BOARD: u64 = BOTTOM_ROW * 0x3F;
    /// Cells of the board: the most moves a game can last.
    const CELLS: i32 = 42;

    /// A position: `mine` holds the stones of the side to move, `mask` every stone.
    #[task(value = i32)]
    pub struct Node {
        pub mine: u64,
        pub mask: u64,
    }

    /// Cells where a stone would complete four of `stones` along lines whose neighbouring
    /// cells are `shift` bits apart: cells with three stones before them, two before and one
    /// after, one before and two after, or three after.
    fn completing_along(stones: u64, shift: u32) -> u64 {
        let two_below = (stones << shift) & (stones << (2 * shift));
        let two_above = (stones >> shift) & (stones >> (2 * shift));
        (two_below & (stones << (3 * shift)))
            | (two_below & (stones >> shift))
            | (two_above & (stones << shift))
            | (two_above & (stones >> (3 * shift)))
    }

    /// Cells (occupied or not, reachable or not) that complete four of `stones` in a column,
    /// a row or either diagonal.
    fn completing_cells(stones: u64) -> u64 {
        completing_along(stones, 1) | completing_along(stones, 7) | completing_along(stones, 6) | completing_along(stones, 8)
    }

    #[spawn]
    fn expand(node: &Node, ctx: &mut Ctx) -> i32 {
        let stones = node.mask.count_ones() as i32;
        // The lowest empty cell of every column that is not full.
        let playable = (node.mask + BOTTOM_ROW) & BOARD;
        if completing_cells(node.mine) & playable != 0 {
            // Winning now, with stone number stones / 2 + 1 of ours, is the best there is.
            return (CELLS + 1 - stones) / 2;
        }
        if playable == 0 {
            return 0; // a full board without four in a row: a draw
        }
        // Lowest bit first: children in column order.
        let mut moves = playable;
        while moves != 0 {
            let cell = moves & moves.wrapping_neg();
            moves ^= cell;
            // The opponent moves next, and their stones are those that are not ours.
            ctx.spawn(Node { mine: node.mine ^ node.mask, mask: node.mask | cell });
        }
        0 // replaced by `best` once the children are done
    }

    /// Negamax: a child's value is for the opponent, so ours is the best of their negations.
    #[complete(max_children = 7)]
    fn best(_node: &Node, children: &[i32], _ctx: &mut Ctx) -> i32 {
        let mut best = -children[0];
        for i in 1..children.len() {
            best = best.max(-children[i]);
        }
        best
    }
}

/// The chapter's look-ahead: from a position, the side to move (the computer) looks `plies`
/// moves ahead, taking its best move at its turns and assuming the opponent's best (the
/// computer's worst) at the opponent's. Values are for the computer:
/// - a position where the computer has four in a row is worth [`WIN`], one where the opponent
///   has, `-WIN` (however deep the win: quicker wins are not preferred);
/// - a position at the end of the look-ahead, or a full board, is worth the heuristic:
///   (the computer's lines of two + its lines of three) - (the same for the opponent), where a
///   player's line of k is one of the 69 windows of four consecutive cells (24 horizontal, 21
///   vertical, 12 on each diagonal) that holds exactly k of that player's stones and none of
///   the other player's.
///
/// Bitboards as in [`exact`], with the computer's stones in `computer`.
#[megakernel]
pub mod heuristic {
    const BOTTOM_ROW: u64 = 1 | 1 << 7 | 1 << 14 | 1 << 21 | 1 << 28 | 1 << 35 | 1 << 42;
    const BOARD: u64 = BOTTOM_ROW * 0x3F;
    /// Bit distance between neighbouring cells of a line: up a column, along a row, and the
    /// two diagonals (down-right and up-right).
    const DIRECTIONS: [u32; 4] = [1, 7, 6, 8];
    /// The value of a position where the computer has four in a row (the opponent: `-WIN`).
    pub const WIN: i32 = 1_000_000;

    #[params]
    pub struct Params {
        /// How many moves ahead the computer looks; its own first move is ply 1.
        pub plies: u32,
    }

    /// A position `ply` moves after the one the computer looks ahead from: the computer moves
    /// at even plies, the opponent at odd ones.
    #[task(value = i32)]
    pub struct Node {
        pub computer: u64,
        pub mask: u64,
        pub ply: u32,
    }

    fn has_four(stones: u64) -> bool {
        let mut found = false;
        for d in 0..DIRECTIONS.len() {
            let shift = DIRECTIONS[d];
            let pairs = stones & (stones >> shift);
            if pairs & (pairs >> (2 * shift)) != 0 {
                found = true;
            }
        }
        found
    }

    /// Windows of four cells holding two or three of `own` and none of `other`. All windows
    /// of one direction are counted at once: bit b of `own >> (i * shift)` says whether the
    /// i-th cell of the window that starts at cell b holds one of `own`.
    fn lines_of_two_or_three(own: u64, other: u64) -> i32 {
        let mut lines = 0;
        for d in 0..DIRECTIONS.len() {
            let shift = DIRECTIONS[d];
            // Windows whose four cells are all on the board (69 over the four directions).
            let starts = BOARD & (BOARD >> shift) & (BOARD >> (2 * shift)) & (BOARD >> (3 * shift));
            let (c0, c1, c2, c3) = (own, own >> shift, own >> (2 * shift), own >> (3 * shift));
            let blocked = other | (other >> shift) | (other >> (2 * shift)) | (other >> (3 * shift));
            let at_least_two = (c0 & (c1 | c2 | c3)) | (c1 & (c2 | c3)) | (c2 & c3);
            let all_four = c0 & c1 & c2 & c3;
            lines += (starts & at_least_two & !all_four & !blocked).count_ones() as i32;
        }
        lines
    }

    #[spawn]
    fn expand(node: &Node, ctx: &mut Ctx) -> i32 {
        let opponent = node.mask ^ node.computer;
        // Only the player who just moved can have four: any earlier four ended the search.
        let computer_moved_last = node.ply % 2 == 1;
        if computer_moved_last && has_four(node.computer) {
            return WIN;
        }
        if !computer_moved_last && has_four(opponent) {
            return -WIN;
        }
        let playable = (node.mask + BOTTOM_ROW) & BOARD;
        if node.ply == ctx.params.plies || playable == 0 {
            return lines_of_two_or_three(node.computer, opponent) - lines_of_two_or_three(opponent, node.computer);
        }
        let mut moves = playable;
        while moves != 0 {
            let cell = moves & moves.wrapping_neg();
            moves ^= cell;
            let computer = if computer_moved_last { node.computer } else { node.computer | cell };
            ctx.spawn(Node { computer, mask: node.mask | cell, ply: node.ply + 1 });
        }
        0 // replaced by `choose` once the children are done
    }

    /// The computer takes the child best for it; the opponent the one worst for the computer.
    #[complete(max_children = 7)]
    fn choose(node: &Node, children: &[i32], _ctx: &mut Ctx) -> i32 {
        let computer_to_move = node.ply % 2 == 0;
        let mut value = children[0];
        for i in 1..children.len() {
            value = if computer_to_move { value.max(children[i]) } else { value.min(children[i]) };
        }
        value
    }
}

pub use heuristic::WIN;
/// The deepest look-ahead [`lookahead`] accepts: the tree grows up to sevenfold per ply.
pub const MAX_PLIES: u32 = 12;
/// A middle-game position to look ahead from: the first of `data/connect4/Test_L2_R1`.
pub const DEFAULT_LOOKAHEAD_MOVES: &str = "5554224333234511764415115";

/// The two players; `First` made the first move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
    First,
    Second,
}

/// What is wrong with a move string; moves are numbered from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    NotAColumn { move_number: usize, found: char },
    ColumnFull { move_number: usize, column: usize },
    GameOver { move_number: usize, column: usize },
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::NotAColumn { move_number, found } => {
                write!(f, "move {move_number}: `{found}` is not a column (1 to {WIDTH})")
            }
            MoveError::ColumnFull { move_number, column } => {
                write!(f, "move {move_number}: column {column} is already full")
            }
            MoveError::GameOver { move_number, column } => write!(
                f,
                "move {move_number} (column {column}) completes four in a row: the position is already won"
            ),
        }
    }
}

impl std::error::Error for MoveError {}

/// A position reached by legal moves. [`Position::from_moves`] refuses to play on once a
/// move completes four in a row; [`Position::played`] does not check (ask
/// [`Position::completes_four`] first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// `cells[column][row]`, row 0 at the bottom.
    cells: [[Option<Player>; HEIGHT]; WIDTH],
    /// Stones in each column.
    heights: [usize; WIDTH],
    moves: u32,
}

impl Position {
    pub fn empty() -> Position {
        Position { cells: [[None; HEIGHT]; WIDTH], heights: [0; WIDTH], moves: 0 }
    }

    /// Plays `moves`, a string of 1-based columns, from the empty board; every move must go
    /// into a column with room, and none may complete four in a row.
    pub fn from_moves(moves: &str) -> Result<Position, MoveError> {
        let mut position = Position::empty();
        for (i, found) in moves.chars().enumerate() {
            let move_number = i + 1;
            let column = match found.to_digit(10) {
                Some(c) if (1..=WIDTH as u32).contains(&c) => c as usize - 1,
                _ => return Err(MoveError::NotAColumn { move_number, found }),
            };
            if !position.can_play(column) {
                return Err(MoveError::ColumnFull { move_number, column: column + 1 });
            }
            if position.completes_four(column) {
                return Err(MoveError::GameOver { move_number, column: column + 1 });
            }
            position = position.played(column);
        }
        Ok(position)
    }

    /// Moves played so far.
    pub fn moves(&self) -> u32 {
        self.moves
    }

    pub fn side_to_move(&self) -> Player {
        if self.moves.is_multiple_of(2) { Player::First } else { Player::Second }
    }

    pub fn can_play(&self, column: usize) -> bool {
        self.heights[column] < HEIGHT
    }

    pub fn is_full(&self) -> bool {
        self.moves == CELLS
    }

    /// The position after the side to move drops a stone into `column` (which has room).
    pub fn played(&self, column: usize) -> Position {
        let mut next = *self;
        next.cells[column][self.heights[column]] = Some(self.side_to_move());
        next.heights[column] += 1;
        next.moves += 1;
        next
    }

    /// Whether a stone of the side to move in `column` (which has room) makes four in a row:
    /// counts its stones on both sides of the new cell along each of the four lines.
    pub fn completes_four(&self, column: usize) -> bool {
        let player = Some(self.side_to_move());
        let (col, row) = (column as i32, self.heights[column] as i32);
        [(0, 1), (1, 0), (1, 1), (1, -1)].iter().any(|&(dc, dr)| {
            let run = |sign: i32| {
                (1..4)
                    .take_while(|&k| self.cell(col + sign * k * dc, row + sign * k * dr) == Some(player))
                    .count()
            };
            1 + run(1) + run(-1) >= 4
        })
    }

    /// The cell at (`column`, `row`), or `None` off the board.
    fn cell(&self, column: i32, row: i32) -> Option<Option<Player>> {
        let on_board = (0..WIDTH as i32).contains(&column) && (0..HEIGHT as i32).contains(&row);
        on_board.then(|| self.cells[column as usize][row as usize])
    }

    /// `player`'s stones as a kernel bitboard (bit `7 * column + row`).
    pub fn bitboard(&self, player: Player) -> u64 {
        self.bits(|cell| cell == Some(player))
    }

    /// Every stone as a kernel bitboard.
    pub fn occupied(&self) -> u64 {
        self.bits(|cell| cell.is_some())
    }

    fn bits(&self, wanted: impl Fn(Option<Player>) -> bool) -> u64 {
        let mut bits = 0;
        for column in 0..WIDTH {
            for row in 0..HEIGHT {
                if wanted(self.cells[column][row]) {
                    bits |= 1u64 << (7 * column + row);
                }
            }
        }
        bits
    }
}

/// The board as text, top row first: `X` for the first player, `O` for the second.
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..HEIGHT).rev() {
            let line: Vec<&str> = (0..WIDTH)
                .map(|column| match self.cells[column][row] {
                    Some(Player::First) => "X",
                    Some(Player::Second) => "O",
                    None => ".",
                })
                .collect();
            writeln!(f, "{}", line.join(" "))?;
        }
        let numbers: Vec<String> = (1..=WIDTH).map(|c| c.to_string()).collect();
        write!(f, "{}", numbers.join(" "))
    }
}

/// One line of a test set: a position and its known score for the side to move.
#[derive(Clone, Debug)]
pub struct TestCase {
    /// 1-based line number in the file.
    pub line: usize,
    pub moves: String,
    pub position: Position,
    pub score: i32,
}

/// What is wrong with one line of a test set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineProblem {
    FieldCount(usize),
    Moves(MoveError),
    Score(String),
}

/// A malformed line of a test set, by its 1-based number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub problem: LineProblem,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: ", self.line)?;
        match &self.problem {
            LineProblem::FieldCount(n) => write!(f, "expected two fields, `<moves> <score>`, found {n}"),
            LineProblem::Moves(e) => write!(f, "{e}"),
            LineProblem::Score(s) => write!(f, "the score `{s}` is not an integer"),
        }
    }
}

impl std::error::Error for ParseError {}

/// Parses a test set: one `<moves> <score>` per line (see `data/connect4/README.md`).
pub fn parse_test_set(text: &str) -> Result<Vec<TestCase>, ParseError> {
    text.lines()
        .enumerate()
        .map(|(i, text)| {
            let line = i + 1;
            let fail = |problem| ParseError { line, problem };
            let fields: Vec<&str> = text.split_whitespace().collect();
            let [moves, score] = fields[..] else {
                return Err(fail(LineProblem::FieldCount(fields.len())));
            };
            let position = Position::from_moves(moves).map_err(|e| fail(LineProblem::Moves(e)))?;
            let score = score.parse().map_err(|_| fail(LineProblem::Score(score.to_string())))?;
            Ok(TestCase { line, moves: moves.to_string(), position, score })
        })
        .collect()
}

/// The task that computes the exact value of `position`.
pub fn exact_root(position: &Position) -> exact::Node {
    exact::Node { mine: position.bitboard(position.side_to_move()), mask: position.occupied() }
}

/// The exact value of every position in one run, one root task each. Returns the values in
/// the order of `positions`; the output's `stats.tasks` is the number of nodes evaluated.
pub fn solve_all(rt: &Runtime, positions: &[Position]) -> Result<(Vec<i32>, Output<exact::Kernel>), wsdsl::Error> {
    let out = rt.run::<exact::Kernel>((), positions.iter().map(exact_root))?;
    Ok((out.values.clone(), out))
}

/// The independent reference for [`solve_all`]: the same exhaustive negamax, recursive, on
/// the grid. Returns the score and the number of nodes evaluated (the kernel's task count).
pub fn reference_score(position: &Position) -> (i32, u64) {
    fn negamax(p: &Position, nodes: &mut u64) -> i32 {
        *nodes += 1;
        if (0..WIDTH).any(|c| p.can_play(c) && p.completes_four(c)) {
            return (CELLS as i32 + 1 - p.moves() as i32) / 2;
        }
        let children = (0..WIDTH).filter(|&c| p.can_play(c));
        children.map(|c| -negamax(&p.played(c), nodes)).max().unwrap_or(0) // a full board is a draw
    }
    let mut nodes = 0;
    let score = negamax(position, &mut nodes);
    (score, nodes)
}

/// The result of a look-ahead: the computer's value of each first move (`None` for a full
/// column) and the move it picks, the best value's column (0-based; the lowest on ties).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lookahead {
    pub values: [Option<i32>; WIDTH],
    pub best_column: usize,
}

impl Lookahead {
    fn from_values(values: [Option<i32>; WIDTH]) -> Lookahead {
        // `max_by_key` keeps the last of equal maxima; scanning right to left makes it the lowest column.
        let best_column = (0..WIDTH)
            .rev()
            .filter(|&c| values[c].is_some())
            .max_by_key(|&c| values[c])
            .expect("a position that is not full has a legal move");
        Lookahead { values, best_column }
    }
}

fn check_lookahead(position: &Position, plies: u32) -> Result<(), wsdsl::Error> {
    if !(1..=MAX_PLIES).contains(&plies) {
        return Err(wsdsl::Error::InvalidConfig(format!("look-ahead of {plies} plies: use 1 to {MAX_PLIES}")));
    }
    if position.is_full() {
        return Err(wsdsl::Error::InvalidConfig("the board is full: there is no move to look ahead from".into()));
    }
    Ok(())
}

/// The look-ahead's root tasks: each legal first move of the side to move in `position` (the
/// computer), in column order, with the task that values the position after it.
pub fn lookahead_roots(position: &Position) -> Vec<(usize, heuristic::Node)> {
    let computer = position.side_to_move();
    (0..WIDTH)
        .filter(|&c| position.can_play(c))
        .map(|c| {
            let after = position.played(c);
            (c, heuristic::Node { computer: after.bitboard(computer), mask: after.occupied(), ply: 1 })
        })
        .collect()
}

/// The computer (the side to move in `position`, where nobody has four in a row) looks
/// `plies` moves ahead, one root task per legal first move. The output's `stats.tasks` is the number of positions searched.
pub fn lookahead(
    rt: &Runtime,
    position: &Position,
    plies: u32,
) -> Result<(Lookahead, Output<heuristic::Kernel>), wsdsl::Error> {
    check_lookahead(position, plies)?;
    let (first_moves, roots): (Vec<usize>, Vec<heuristic::Node>) = lookahead_roots(position).into_iter().unzip();
    let out = rt.run::<heuristic::Kernel>(heuristic::Params { plies }, roots)?;
    let mut values = [None; WIDTH];
    for (&column, &value) in first_moves.iter().zip(&out.values) {
        values[column] = Some(value);
    }
    Ok((Lookahead::from_values(values), out))
}

/// The chapter's heuristic for `computer` (see [`heuristic`]), window by window on the grid.
pub fn reference_heuristic(position: &Position, computer: Player) -> i32 {
    let mut value = 0;
    for (dc, dr) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
        for column in 0..WIDTH as i32 {
            for row in 0..HEIGHT as i32 {
                let (mut mine, mut theirs, mut on_board) = (0, 0, true);
                for k in 0..4 {
                    match position.cell(column + k * dc, row + k * dr) {
                        None => on_board = false,
                        Some(Some(player)) if player == computer => mine += 1,
                        Some(Some(_)) => theirs += 1,
                        Some(None) => {}
                    }
                }
                if !on_board {
                    continue;
                }
                if theirs == 0 && (2..=3).contains(&mine) {
                    value += 1;
                }
                if mine == 0 && (2..=3).contains(&theirs) {
                    value -= 1;
                }
            }
        }
    }
    value
}

/// The independent reference for [`lookahead`]: the same minimax, recursive, on the grid.
/// Returns the result and the number of positions searched (the kernel's task count).
pub fn reference_lookahead(position: &Position, plies: u32) -> Result<(Lookahead, u64), wsdsl::Error> {
    check_lookahead(position, plies)?;
    let search = Search { computer: position.side_to_move(), plies };
    let mut nodes = 0;
    let mut values = [None; WIDTH];
    for column in (0..WIDTH).filter(|&c| position.can_play(c)) {
        values[column] = Some(search.value(&position.played(column), 1, position.completes_four(column), &mut nodes));
    }
    Ok((Lookahead::from_values(values), nodes))
}

/// What stays fixed during one reference look-ahead.
struct Search {
    computer: Player,
    plies: u32,
}

impl Search {
    /// The computer's value of `p`, `ply` moves past the start; `won` says whether the move
    /// that led to `p` made four in a row.
    fn value(&self, p: &Position, ply: u32, won: bool, nodes: &mut u64) -> i32 {
        *nodes += 1;
        if won {
            // The winner is the one who just moved, not the side to move now.
            return if p.side_to_move() == self.computer { -WIN } else { WIN };
        }
        if ply == self.plies || p.is_full() {
            return reference_heuristic(p, self.computer);
        }
        let children = (0..WIDTH)
            .filter(|&c| p.can_play(c))
            .map(|c| self.value(&p.played(c), ply + 1, p.completes_four(c), nodes));
        let value = if p.side_to_move() == self.computer { children.max() } else { children.min() };
        value.expect("a position that is not full has a legal move")
    }
}
