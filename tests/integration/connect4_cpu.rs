//! The connect4 example on the CPU backend: the test-set parser, exact minimax against the
//! known scores and the plain recursive reference, the heuristic look-ahead against its
//! reference, the kernels' generated C on the host build of the scheduler, and NVRTC
//! compilation of both kernels.

use wsdsl_examples::connect4;

use connect4::{LineProblem, MoveError, ParseError, Position, WIDTH, WIN};
use wsdsl::gpu::emulate::{run_emulated, Emulation};
use wsdsl::prelude::*;
use wsdsl::{KernelConfig, Program};

const END_GAMES: &str = include_str!("../../data/connect4/Test_L3_R1");
const MIDDLE_GAMES: &str = include_str!("../../data/connect4/Test_L2_R1");

fn cpu() -> Runtime {
    Runtime::new(Backend::Cpu)
}

fn position(moves: &str) -> Position {
    Position::from_moves(moves).unwrap()
}

#[test]
fn the_test_sets_parse() {
    let end_games = connect4::parse_test_set(END_GAMES).unwrap();
    assert_eq!(end_games.len(), 1000);
    assert!(end_games.iter().all(|c| (29..=41).contains(&c.position.moves())), "L3 holds end-games");
    let first = &end_games[0];
    assert_eq!((first.line, first.moves.as_str(), first.score), (1, "2252576253462244111563365343671351441", -1));
    assert_eq!(first.position, position(&first.moves));
    assert_eq!(end_games[999].line, 1000);
    let middle_games = connect4::parse_test_set(MIDDLE_GAMES).unwrap();
    assert!(middle_games.iter().all(|c| (15..=28).contains(&c.position.moves())), "L2 holds middle-games");
}

#[test]
fn the_parser_accepts_a_trailing_newline_and_extra_spaces() {
    let cases = connect4::parse_test_set("44  3\n\t1 -2 \n").unwrap();
    let got: Vec<(usize, &str, i32, u32)> =
        cases.iter().map(|c| (c.line, c.moves.as_str(), c.score, c.position.moves())).collect();
    assert_eq!(got, [(1, "44", 3, 2), (2, "1", -2, 1)]);
}

#[test]
fn malformed_lines_are_reported_with_their_number() {
    let line_3 = |bad: &str| connect4::parse_test_set(&format!("4 1\n44 0\n{bad}\n5 2")).unwrap_err();
    let moves_error = |e| ParseError { line: 3, problem: LineProblem::Moves(e) };
    let cases = [
        ("4480 1", moves_error(MoveError::NotAColumn { move_number: 3, found: '8' }), "line 3: move 3: `8` is not a column (1 to 7)"),
        ("40 1", moves_error(MoveError::NotAColumn { move_number: 2, found: '0' }), "`0` is not a column"),
        ("4x 1", moves_error(MoveError::NotAColumn { move_number: 2, found: 'x' }), "`x` is not a column"),
        ("2222222 0", moves_error(MoveError::ColumnFull { move_number: 7, column: 2 }), "line 3: move 7: column 2 is already full"),
        // X completes a column of four with move 7.
        ("1212121 0", moves_error(MoveError::GameOver { move_number: 7, column: 1 }), "line 3: move 7 (column 1) completes four in a row"),
        // ... and moves after the win are no better.
        ("12121213 0", moves_error(MoveError::GameOver { move_number: 7, column: 1 }), "already won"),
        ("4455", ParseError { line: 3, problem: LineProblem::FieldCount(1) }, "line 3: expected two fields, `<moves> <score>`, found 1"),
        ("44 5 6", ParseError { line: 3, problem: LineProblem::FieldCount(3) }, "found 3"),
        ("", ParseError { line: 3, problem: LineProblem::FieldCount(0) }, "found 0"),
        ("44 five", ParseError { line: 3, problem: LineProblem::Score("five".into()) }, "line 3: the score `five` is not an integer"),
        ("44 99999999999", ParseError { line: 3, problem: LineProblem::Score("99999999999".into()) }, "not an integer"),
    ];
    for (bad, expected, message) in cases {
        let err = line_3(bad);
        assert_eq!(err, expected, "`{bad}`");
        assert!(err.to_string().contains(message), "`{bad}`: {err}");
    }
}

#[test]
fn exact_scores_of_the_first_30_end_games_match_the_file_and_the_reference() {
    let cases = &connect4::parse_test_set(END_GAMES).unwrap()[..30];
    let positions: Vec<Position> = cases.iter().map(|c| c.position).collect();
    let (values, out) = connect4::solve_all(&cpu(), &positions).unwrap();
    let expected: Vec<i32> = cases.iter().map(|c| c.score).collect();
    assert_eq!(values, expected);
    let reference: Vec<(i32, u64)> = positions.iter().map(connect4::reference_score).collect();
    assert_eq!(reference.iter().map(|r| r.0).collect::<Vec<_>>(), expected, "the reference agrees with the file");
    assert_eq!(out.stats.tasks, reference.iter().map(|r| r.1).sum::<u64>(), "one task per node of the reference");
}

#[test]
fn exact_scores_of_hand_made_positions() {
    // X to move with three stacked in column 1 wins at once, with its fourth stone: 22 - 4.
    let (values, out) = connect4::solve_all(&cpu(), &[position("121212")]).unwrap();
    assert_eq!((values[0], out.stats.tasks), (18, 1));
    assert_eq!(connect4::reference_score(&position("121212")), (18, 1));
    // O to move cannot block both ends of X's three on the bottom row (columns 2-4) and
    // cannot win at once: whatever O plays, X wins with its fourth stone. One node per O move.
    let open_three = position("27374");
    assert_eq!(connect4::reference_score(&open_three), (-18, 8));
    let (values, out) = connect4::solve_all(&cpu(), &[open_three]).unwrap();
    assert_eq!((values[0], out.stats.tasks), (-18, 8));
}

#[test]
fn the_heuristic_counts_open_lines_of_two_and_three() {
    assert_eq!(connect4::reference_heuristic(&Position::empty(), connect4::Player::First), 0);
    // X: 1, 1, 1 up column 1; O: 2, 2 up column 2. X's lines: rows 1-4 and 2-5 of column 1
    // (three and two stones); the bottom-row and diagonal windows through X's stones meet O.
    // O's: rows 1-4 of column 2.
    let p = position("12121");
    assert_eq!(connect4::reference_heuristic(&p, connect4::Player::First), 2 - 1);
    assert_eq!(connect4::reference_heuristic(&p, connect4::Player::Second), 1 - 2);
    // The kernel's value of X's move into column 1 from "1212" is that leaf's heuristic.
    let (result, _) = connect4::lookahead(&cpu(), &position("1212"), 1).unwrap();
    assert_eq!(result.values[0], Some(1));
}

#[test]
fn wins_are_worth_plus_or_minus_win_however_deep() {
    // X (to move) has three up column 1 and O three up column 2: X wins at once in column 1,
    // and any move but those two lets O win in column 2.
    let start = position("121212");
    for plies in [1, 2, 4] {
        let (result, _) = connect4::lookahead(&cpu(), &start, plies).unwrap();
        assert_eq!((result.values[0], result.best_column), (Some(WIN), 0), "{plies} plies");
        if plies > 1 {
            assert_eq!(result.values[2..], [Some(-WIN); WIDTH - 2], "{plies} plies");
        }
        assert_eq!(result, connect4::reference_lookahead(&start, plies).unwrap().0, "{plies} plies");
    }
}

#[test]
fn lookahead_matches_the_reference_at_several_depths() {
    let cases = connect4::parse_test_set(MIDDLE_GAMES).unwrap();
    let mut starts: Vec<Position> = cases.iter().take(12).map(|c| c.position).collect();
    starts.push(position(connect4::DEFAULT_LOOKAHEAD_MOVES));
    starts.push(Position::empty());
    for (i, start) in starts.iter().enumerate() {
        for plies in 1..=5 {
            let (got, out) = connect4::lookahead(&cpu(), start, plies).unwrap();
            let (expected, nodes) = connect4::reference_lookahead(start, plies).unwrap();
            assert_eq!(got, expected, "position {i}, {plies} plies");
            assert_eq!(out.stats.tasks, nodes, "position {i}, {plies} plies: one task per position searched");
        }
    }
}

#[test]
fn lookahead_breaks_ties_on_the_lowest_column_and_skips_full_columns() {
    // One stone makes no line of two: every first move from the empty board is worth 0.
    let (result, _) = connect4::lookahead(&cpu(), &Position::empty(), 1).unwrap();
    assert_eq!(result.values, [Some(0); WIDTH]);
    assert_eq!(result.best_column, 0);
    let column_2_full = position("222222");
    let (result, _) = connect4::lookahead(&cpu(), &column_2_full, 3).unwrap();
    assert_eq!(result.values[1], None);
    assert_eq!(result, connect4::reference_lookahead(&column_2_full, 3).unwrap().0);
}

#[test]
fn lookahead_rejects_bad_depths() {
    let start = position(connect4::DEFAULT_LOOKAHEAD_MOVES);
    for plies in [0, connect4::MAX_PLIES + 1] {
        let err = connect4::lookahead(&cpu(), &start, plies).unwrap_err();
        assert!(err.to_string().contains("use 1 to 12"), "{err}");
    }
}

/// The generated C of both kernels, compiled for the host and run under the default GPU
/// scheduler (`wsdsl::gpu::emulate`), agrees with the references.
#[test]
fn both_kernels_agree_with_the_references_on_the_host_build_of_the_scheduler() {
    let emulation = Emulation::default();
    let config = KernelConfig::default();
    let cases = connect4::parse_test_set(END_GAMES).unwrap();
    // The smallest trees keep the emulation quick.
    let mut small: Vec<(Position, i32, u64)> = cases
        .iter()
        .map(|c| {
            let (score, nodes) = connect4::reference_score(&c.position);
            assert_eq!(score, c.score, "line {}", c.line);
            (c.position, score, nodes)
        })
        .filter(|&(_, _, nodes)| nodes < 2_000)
        .collect();
    small.truncate(40);
    assert_eq!(small.len(), 40);
    let roots: Vec<_> = small.iter().map(|(p, _, _)| connect4::exact_root(p).into()).collect();
    let (_, values, stats) = run_emulated::<connect4::exact::Kernel>(&(), &(), &roots, &config, &emulation).unwrap();
    assert_eq!(values, small.iter().map(|s| s.1).collect::<Vec<_>>());
    assert_eq!(stats.tasks, small.iter().map(|s| s.2).sum::<u64>());

    let start = position(connect4::DEFAULT_LOOKAHEAD_MOVES);
    let plies = 4;
    let (first_moves, roots): (Vec<usize>, Vec<_>) =
        connect4::lookahead_roots(&start).into_iter().map(|(c, root)| (c, connect4::heuristic::Task::from(root))).unzip();
    let params = connect4::heuristic::Params { plies };
    let (_, values, stats) = run_emulated::<connect4::heuristic::Kernel>(&params, &(), &roots, &config, &emulation).unwrap();
    let (expected, nodes) = connect4::reference_lookahead(&start, plies).unwrap();
    let expected: Vec<i32> = first_moves.iter().map(|&c| expected.values[c].unwrap()).collect();
    assert_eq!((values, stats.tasks), (expected, nodes));
}

fn compiles<P: Program>() {
    match wsdsl::gpu::compile_check::<P>("sm_90") {
        Ok(bytes) => assert!(bytes > 1000, "{}: a CUBIN of {bytes} bytes is too small to hold the kernel", P::NAME),
        Err(e) => panic!("{}: {e}", P::NAME),
    }
}

#[test]
fn exact_kernel_compiles_with_nvrtc() {
    compiles::<connect4::exact::Kernel>();
}

#[test]
fn heuristic_kernel_compiles_with_nvrtc() {
    compiles::<connect4::heuristic::Kernel>();
}
