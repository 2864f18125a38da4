//! Every example's megakernel, run on the CPU backend, against its known answer.
//! (The GPU runs of the same programs are in the gpu-check binary.)

use wsdsl_examples::branch_bound;
use wsdsl_examples::dlb_bench;
use wsdsl_examples::fib;
use wsdsl_examples::fifteen;
use wsdsl_examples::knapsack;
use wsdsl_examples::max_subarray;
use wsdsl_examples::mnk_game;
use wsdsl_examples::nqueens;
use wsdsl_examples::nqueens::cutoff as nqueens_cutoff;
use wsdsl_examples::sudoku;
use wsdsl_examples::uts;

use wsdsl::prelude::*;

fn cpu() -> Runtime {
    Runtime::new(Backend::Cpu)
}

#[test]
fn nqueens_matches_oeis_for_small_boards() {
    for n in 1..=10 {
        let (got, _) = nqueens::solve(&cpu(), n).unwrap();
        assert_eq!(Some(got), nqueens::expected(n), "n = {n}");
    }
}

#[test]
fn nqueens_12_is_14200() {
    let (got, out) = nqueens::solve(&cpu(), 12).unwrap();
    assert_eq!(got, 14_200);
    assert!(out.stats.tasks > 10_000, "the search tree was walked: {}", out.stats);
}

#[test]
fn nqueens_with_a_cutoff_and_recursion_matches_oeis() {
    // Cutoff 0: the root's thread searches everything by recursion; a cutoff past the last
    // row: one task per board, as the plain form.
    for n in 1..=10 {
        for cutoff in [0, 1, 3, 20] {
            let (got, out) = nqueens_cutoff::solve(&cpu(), n, cutoff).unwrap();
            assert_eq!(Some(got), nqueens::expected(n), "n = {n}, cutoff = {cutoff}");
            if cutoff == 0 {
                assert_eq!(out.stats.tasks, 1, "one task, the root");
            }
        }
    }
    let (got, out) = nqueens_cutoff::solve(&cpu(), 12, 4).unwrap();
    let (_, plain) = nqueens::solve(&cpu(), 12).unwrap();
    assert_eq!(got, 14_200);
    assert!(out.stats.tasks * 10 < plain.stats.tasks, "far fewer tasks: {} against {}", out.stats.tasks, plain.stats.tasks);
}

#[test]
fn nqueens_rejects_boards_without_a_known_answer() {
    let err = nqueens::solve(&cpu(), 21).unwrap_err();
    assert!(err.to_string().contains("between 1 and 20"), "{err}");
}

#[test]
fn sudoku_generated_puzzles_have_one_solution_the_sequential_solvers() {
    let set = sudoku::generate_set(12, 24, 7);
    let puzzles: Vec<sudoku::Grid> = set.iter().map(|(p, _)| *p).collect();
    let (solved, out) = sudoku::solve(&cpu(), &puzzles).unwrap();
    let references = sudoku::references(&puzzles);
    for (i, (clues, generated)) in set.iter().enumerate() {
        assert!(sudoku::clue_count(clues) < 40, "puzzle {i} kept too many clues");
        assert_eq!(references[i], (1, Some(*generated)), "puzzle {i}: unique, the generated grid");
        assert_eq!(solved.counts[i], 1, "puzzle {i}");
        assert_eq!(solved.grids[i], *generated, "puzzle {i}");
        assert!(generated.iter().zip(clues).all(|(&g, &c)| c == 0 || c == g), "puzzle {i} keeps its clues");
    }
    assert!(out.stats.tasks > puzzles.len() as u64, "some puzzles branched: {}", out.stats);
}

#[test]
fn sudoku_counts_every_solution_of_puzzles_with_several() {
    // A generated puzzle with clues taken out, in order, until it has several solutions; an
    // empty cell that no digit fits leaves none.
    let (mut open, _) = sudoku::generate_set(1, 26, 3)[0];
    let mut want = 1;
    for cell in 0..81 {
        if open[cell] != 0 && want == 1 {
            open[cell] = 0;
            want = sudoku::count_solutions(&mut open.clone(), 10_000, &mut None);
        }
    }
    assert!((2..10_000).contains(&want), "{want}");
    let mut stuck = [0u8; 81];
    stuck[..8].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
    stuck[9 + 8] = 9; // cell (0, 8) can only take 9, which its column already has
    let (solved, _) = sudoku::solve(&cpu(), &[open, stuck]).unwrap();
    assert_eq!(solved.counts, [want, 0]);
    assert!(sudoku::consistent(&solved.grids[0]) && solved.grids[0].iter().all(|&d| d != 0));
    assert!(solved.grids[0].iter().zip(&open).all(|(&g, &c)| c == 0 || c == g));
    // Two clues that clash are refused before the run.
    let mut clash = [0u8; 81];
    clash[0] = 5;
    clash[1] = 5;
    assert!(sudoku::solve(&cpu(), &[clash]).unwrap_err().to_string().contains("clash"));
}

#[test]
fn knapsack_branch_and_bound_matches_dynamic_programming() {
    use knapsack::Correlation;
    let mut tasks = 0;
    for (n, correlation, seed) in [
        (1, Correlation::None, 1),
        (12, Correlation::None, 2),
        (30, Correlation::Weak, 3),
        (40, Correlation::Strong, 4),
        (50, Correlation::Strong, 1),
    ] {
        let items = knapsack::generate(n, 1000, correlation, seed);
        let total: u32 = items.iter().map(|&(w, _)| w).sum();
        for capacity in [0, total / 3, total / 2, total] {
            let (got, out) = knapsack::solve(&cpu(), &items, capacity).unwrap();
            assert_eq!(got, knapsack::reference(&items, capacity), "{n} items, {correlation:?}, seed {seed}, capacity {capacity}");
            tasks += out.stats.tasks;
        }
    }
    assert!(tasks > 10_000, "branch and bound had work: {tasks} tasks");
    let too_many = knapsack::generate(knapsack::knapsack::MAX_ITEMS + 1, 10, Correlation::None, 1);
    assert!(knapsack::solve(&cpu(), &too_many, 10).is_err());
}

#[test]
fn branch_and_bound_over_a_trait_matches_dynamic_programming() {
    let mut tasks = 0;
    for (items, cities, seed) in [(0, 1, 1), (1, 2, 2), (12, 5, 3), (24, 8, 4), (30, 10, 1), (40, 11, 5)] {
        let (knap, capacity) = branch_bound::knapsack_instance(items, seed);
        let dist = branch_bound::cities(cities, seed);
        let (got, out) = branch_bound::solve(&cpu(), &knap, capacity, &dist).unwrap();
        assert_eq!(got, branch_bound::reference(&knap, capacity, &dist), "{items} items, {cities} cities, seed {seed}");
        tasks += out.stats.tasks;
    }
    assert!(tasks > 10_000, "branch and bound had work: {tasks} tasks");
    // The two references agree with brute force on small instances.
    let (knap, capacity) = branch_bound::knapsack_instance(10, 7);
    let brute = (0..1u32 << 10)
        .filter_map(|set| {
            let picked = knap.iter().enumerate().filter(|(i, _)| set & (1 << i) != 0);
            let (w, v) = picked.fold((0, 0), |(w, v), (_, &(iw, iv))| (w + iw, v + iv as i64));
            (w <= capacity).then_some(v)
        })
        .max();
    assert_eq!(Some(branch_bound::knapsack_reference(&knap, capacity)), brute);
    let dist = branch_bound::cities(6, 7);
    let mut order = [1, 2, 3, 4, 5];
    let mut shortest = u32::MAX;
    permutations(&mut order, 0, &mut |p| {
        let legs = std::iter::once(0).chain(p.iter().copied()).zip(p.iter().copied().chain(std::iter::once(0)));
        shortest = shortest.min(legs.map(|(a, b)| dist[a][b]).sum());
    });
    assert_eq!(branch_bound::tour_reference(&dist), shortest);
    let too_many = branch_bound::cities(13, 1);
    assert!(branch_bound::solve(&cpu(), &knap, capacity, &too_many).is_err());
}

/// Calls `f` with every ordering of `a[k..]` (after `a[..k]`).
fn permutations(a: &mut [usize], k: usize, f: &mut impl FnMut(&[usize])) {
    if k == a.len() {
        return f(a);
    }
    for i in k..a.len() {
        a.swap(k, i);
        permutations(a, k + 1, f);
        a.swap(k, i);
    }
}

#[test]
fn fifteen_puzzle_solutions_match_the_sequential_search() {
    // Already solved: one solution of no moves; bounds below the optimum: none.
    let (found, shortest, _) = fifteen::solve(&cpu(), &fifteen::SOLVED, 0).unwrap();
    assert_eq!((found, shortest), (1, 0));
    for (scramble, seed, slack) in [(20, 1, 0), (60, 2, 2), (80, 1, 4), (100, 1, 0)] {
        let grid = fifteen::scramble(scramble, seed);
        let optimal = fifteen::optimal(&grid, scramble).unwrap();
        let want = fifteen::reference(&grid, optimal + slack);
        let (found, shortest, _) = fifteen::solve(&cpu(), &grid, optimal + slack).unwrap();
        assert_eq!((found, shortest), want, "scramble {scramble}, seed {seed}, slack {slack}");
        assert_eq!(shortest, optimal);
        if optimal >= 2 {
            let (none, never, _) = fifteen::solve(&cpu(), &grid, optimal - 2).unwrap();
            assert_eq!((none, never), (0, u32::MAX));
        }
    }
    let mut bad = fifteen::SOLVED;
    bad[0][0] = 2;
    assert!(fifteen::solve(&cpu(), &bad, 10).is_err());
}

#[test]
fn astar_finds_the_fewest_moves_and_expands_fewer_positions_than_unordered() {
    for (scramble, seed) in [(30, 1), (50, 1), (40, 3)] {
        let grid = fifteen::scramble(scramble, seed);
        let optimal = fifteen::optimal(&grid, scramble).unwrap();
        let astar = fifteen::shortest(&cpu(), &grid, scramble, true).unwrap();
        let unordered = fifteen::shortest(&cpu(), &grid, scramble, false).unwrap();
        assert_eq!((astar.moves, unordered.moves), (Some(optimal), Some(optimal)), "scramble {scramble}, seed {seed}");
        // A* expands every position of f below the optimum and next to none above it.
        assert!(
            astar.expanded * 2 < unordered.expanded,
            "scramble {scramble}, seed {seed}: A* expanded {}, unordered {}",
            astar.expanded,
            unordered.expanded
        );
        let bands = astar.out.stats.bands.clone().expect("an ordered run counts its bands");
        assert!(bands.highest >= optimal, "{bands}");
        // Started below the optimum, nothing is found.
        let none = fifteen::shortest(&cpu(), &grid, optimal - 1, true).unwrap();
        assert_eq!(none.moves, None);
    }
    let solved = fifteen::shortest(&cpu(), &fifteen::SOLVED, 10, true).unwrap();
    assert_eq!((solved.moves, solved.expanded), (Some(0), 0));
    let mut bad = fifteen::SOLVED;
    bad[3][3] = 1;
    assert!(fifteen::shortest(&cpu(), &bad, 10, true).is_err());
}

#[test]
fn best_first_knapsack_matches_dynamic_programming() {
    use knapsack::Correlation;
    for (n, correlation, seed) in [(40, Correlation::Strong, 1), (60, Correlation::Strong, 2), (80, Correlation::Weak, 3), (100, Correlation::None, 3)] {
        let items = knapsack::generate(n, 1000, correlation, seed);
        let capacity = items.iter().map(|&(w, _)| w).sum::<u32>() / 2;
        let want = knapsack::reference(&items, capacity);
        let ordered = knapsack::solve_best_first(&cpu(), &items, capacity, true).unwrap();
        let unordered = knapsack::solve_best_first(&cpu(), &items, capacity, false).unwrap();
        assert_eq!((ordered.best, unordered.best), (want, want), "{n} items, {correlation:?}, seed {seed}");
        if (n, seed) == (60, 2) {
            // An instance whose first incumbents are poor: best-first finds the good ones first.
            assert!(ordered.out.stats.tasks * 2 < unordered.out.stats.tasks, "{} vs {}", ordered.out.stats.tasks, unordered.out.stats.tasks);
        }
    }
}

#[test]
fn fib_call_tree_has_fib_n_plus_1_leaves() {
    for n in [0, 1, 2, 10, 25] {
        let (leaves, value, out) = fib::solve(&cpu(), n).unwrap();
        assert_eq!(value, fib::reference(n), "fib({n})");
        assert_eq!(leaves, fib::reference(n + 1), "leaves of fib({n})");
        assert_eq!(out.stats.tasks, 2 * leaves - 1, "a binary tree with {leaves} leaves");
    }
}

/// DLB_Bench with both placements and every cost distribution: every task runs once (the
/// count, and the task tree's size), and the counters equal the host's own computation.
#[test]
fn dlb_bench_runs_every_task_once_and_matches_the_host() {
    use dlb_bench::dlb::{Cost, Params};
    use dlb_bench::{Bench, Imbalance};
    let rt = cpu();
    for imbalance in [Imbalance::Paper, Imbalance::None] {
        for (cost, spread) in [(Cost::Constant, 0), (Cost::Uniform, 60), (Cost::Gaussian, 40)] {
            let params = Params { cost, mean: 100, spread, seed: 7 };
            // A prime count: the host's blocks and groups of lanes end part-full.
            let bench = Bench { tasks: 20_011, holders: 256, imbalance, params };
            let (got, out) = dlb_bench::run(&rt, &bench).unwrap();
            let want = dlb_bench::reference(&bench);
            assert_eq!(got, want, "{imbalance:?}, {cost:?}");
            assert_eq!(got.tasks, 20_011, "{imbalance:?}, {cost:?}");
            assert_eq!(out.stats.tasks, bench.spawned(), "{imbalance:?}, {cost:?}: splitting tasks and empty holders");
            if cost == Cost::Constant {
                assert_eq!(got.units, 20_011 * 100);
            }
        }
    }
    // Another seed gives other results.
    let bench = |seed| Bench {
        tasks: 1000,
        holders: 16,
        imbalance: Imbalance::None,
        params: Params { cost: Cost::Constant, mean: 10, spread: 0, seed },
    };
    assert_ne!(dlb_bench::run(&rt, &bench(1)).unwrap().0.checksum, dlb_bench::run(&rt, &bench(2)).unwrap().0.checksum);
}

/// The paper's placement: a gaussian over the holders whose middle tenth holds 68.3% of the
/// tasks, the tails none; the even one differs by at most a task between holders.
#[test]
fn dlb_bench_places_the_tasks_as_the_paper_does() {
    use dlb_bench::dlb::{Cost, Params};
    use dlb_bench::{Bench, Imbalance};
    let params = Params { cost: Cost::Constant, mean: 1, spread: 0, seed: 1 };
    for (tasks, holders) in [(1_000_000, 1024), (20_000, 256), (5, 1024), (7, 1)] {
        let paper = Bench { tasks, holders, imbalance: Imbalance::Paper, params };
        let shares = paper.shares();
        assert_eq!(shares.len(), holders as usize);
        assert_eq!(shares.iter().sum::<u64>(), tasks, "{tasks} tasks on {holders} holders");
        let roots = paper.roots();
        assert!(roots.windows(2).all(|w| w[0].hi == w[1].lo) && roots[0].lo == 0 && roots.last().unwrap().hi == tasks);
        let even = Bench { imbalance: Imbalance::None, ..paper }.shares();
        assert_eq!(even.iter().sum::<u64>(), tasks);
        assert!(even.iter().max().unwrap() - even.iter().min().unwrap() <= 1);
    }
    let paper = Bench { tasks: 1_000_000, holders: 1024, imbalance: Imbalance::Paper, params };
    let shares = paper.shares();
    let tenth = dlb_bench::busiest_tenth(&shares);
    assert!((0.675..0.695).contains(&tenth), "the busiest 10% hold {tenth}");
    // The busiest are the middle ones; the first and last fifth of the holders hold nothing.
    let middle: u64 = shares[461..563].iter().sum();
    assert!(middle as f64 > 0.67 * 1e6, "{middle}");
    assert!(shares[..205].iter().chain(&shares[820..]).all(|&n| n == 0));
}

/// The cost distributions have the mean and spread they claim (from the kernel's own
/// `cost_of`, run natively), and bad parameters are refused.
#[test]
fn dlb_bench_costs_follow_their_distributions() {
    use dlb_bench::dlb::{task_key, Cost, Params};
    use dlb_bench::{Bench, Imbalance};
    let n = 200_000;
    let moments = |p: Params| {
        let costs: Vec<f64> = (0..n).map(|id| f64::from(p.cost_of(task_key(p.seed, id)))).collect();
        let mean = costs.iter().sum::<f64>() / n as f64;
        let sd = (costs.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        let (lo, hi) = costs.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &c| (lo.min(c), hi.max(c)));
        (mean, sd, lo, hi)
    };
    let (mean, sd, lo, hi) = moments(Params { cost: Cost::Constant, mean: 1000, spread: 300, seed: 3 });
    assert_eq!((mean, sd, lo, hi), (1000.0, 0.0, 1000.0, 1000.0));
    // Uniform on 700..=1300: standard deviation 600 / sqrt(12).
    let (mean, sd, lo, hi) = moments(Params { cost: Cost::Uniform, mean: 1000, spread: 300, seed: 3 });
    assert!((mean - 1000.0).abs() < 2.0 && (sd - 173.5).abs() < 2.0, "{mean} {sd}");
    assert_eq!((lo, hi), (700.0, 1300.0));
    let gaussian = Params { cost: Cost::Gaussian, mean: 1000, spread: 100, seed: 3 };
    let (mean, sd, lo, hi) = moments(gaussian);
    assert!((mean - 1000.0).abs() < 1.0 && (sd - 100.0).abs() < 1.5, "{mean} {sd}");
    assert!(lo >= 400.0 && hi <= 1600.0, "Irwin-Hall is bounded by ±6 sd: {lo} {hi}");
    // A normal's share within one and two standard deviations: 68.3% and 95.4%.
    let within = |k: f64| {
        let inside = (0..n).filter(|&id| (f64::from(gaussian.cost_of(task_key(3, id))) - 1000.0).abs() <= k * 100.0).count();
        inside as f64 / n as f64
    };
    assert!((within(1.0) - 0.683).abs() < 0.01 && (within(2.0) - 0.954).abs() < 0.005, "{} {}", within(1.0), within(2.0));
    // A wide gaussian is clipped to 0..=2 * mean on both sides, keeping the mean.
    let (mean, _, lo, hi) = moments(Params { cost: Cost::Gaussian, mean: 100, spread: 100, seed: 3 });
    assert!((mean - 100.0).abs() < 1.0 && lo == 0.0 && hi == 200.0, "{mean} {lo} {hi}");

    let refused =
        |params: Params| Bench { tasks: 10, holders: 2, imbalance: Imbalance::Paper, params }.validate().unwrap_err().to_string();
    assert!(refused(Params { cost: Cost::Uniform, mean: 10, spread: 11, seed: 0 }).contains("--spread"));
    assert!(refused(Params { cost: Cost::Constant, mean: u32::MAX, spread: 0, seed: 0 }).contains("--mean-cost"));
    let ok = Params { cost: Cost::Constant, mean: 1, spread: 0, seed: 0 };
    assert!(Bench { tasks: 0, holders: 2, imbalance: Imbalance::None, params: ok }.validate().is_err());
    assert!(Bench { tasks: 1, holders: 0, imbalance: Imbalance::None, params: ok }.validate().is_err());
}

#[test]
fn uts_dsl_sha1_agrees_with_the_host_sha1() {
    // FIPS 180 test vector, through the host implementation the root state uses.
    let abc = uts::host_sha1(b"abc");
    let hex: String = abc.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
    // A small custom tree: the DSL walk (DSL SHA-1) equals the sequential host walk.
    let params = uts::uts::Params { tree_type: uts::uts::TreeType::Binomial, b0: 50.0, q: 0.2, m: 4, ..uts::DEFAULTS };
    let tree = uts::custom(params, 7).unwrap();
    let (got, _) = uts::solve(&cpu(), &tree).unwrap();
    assert_eq!(got, uts::reference(&tree));
    assert!(got.0 > 50, "non-trivial tree: {got:?}");
}

#[test]
fn uts_latency_probe_is_a_chain_of_the_requested_width() {
    // T3's probe: 1 573 levels; each node on the chain has `chain_width` children, of which
    // child 0 goes on. Parents that hash their children make a bare chain whatever the width.
    let mut tree = uts::preset("T3").unwrap();
    tree.params.chain_depth = 40;
    for (width, hash_in_child, want) in [(1, 1, (40, 1, 39)), (8, 1, (1 + 39 * 8, 39 * 7 + 1, 39)), (8, 0, (40, 1, 39))] {
        tree.params.chain_width = width;
        tree.params.hash_in_child = hash_in_child;
        let (got, _) = uts::solve(&cpu(), &tree).unwrap();
        assert_eq!(got, want, "width {width}, hash_in_child {hash_in_child}");
    }
}

/// Every tree type and shape, with parameters that give about 10^2 to 10^4 nodes a seed.
fn uts_small_trees() -> Vec<uts::uts::Params> {
    use uts::uts::{Params, Shape, TreeType};
    let mut trees = vec![Params { tree_type: TreeType::Binomial, b0: 200.0, q: 0.22, m: 4, ..uts::DEFAULTS }];
    for shape in [Shape::Linear, Shape::ExpDec, Shape::Cyclic, Shape::Fixed] {
        trees.push(Params { tree_type: TreeType::Geometric, shape, b0: 3.0, gen_mx: 8, ..uts::DEFAULTS });
        trees.push(Params { tree_type: TreeType::Hybrid, shape, b0: 4.0, gen_mx: 8, q: 0.2, m: 4, ..uts::DEFAULTS });
    }
    trees
}

#[test]
fn uts_small_trees_of_every_type_and_shape_match_the_reference() {
    let rt = cpu();
    for params in uts_small_trees() {
        let mut nodes = 0;
        for seed in 0..4 {
            let want = uts::reference(&uts::custom(params, seed).unwrap());
            nodes += want.0;
            for hash_in_child in [0, 1] {
                let tree = uts::custom(uts::uts::Params { hash_in_child, ..params }, seed).unwrap();
                let (got, out) = uts::solve(&rt, &tree).unwrap();
                assert_eq!(got, want, "{params:?}, seed {seed}, hash_in_child {hash_in_child}");
                assert_eq!(out.stats.tasks, want.0);
            }
        }
        assert!(nodes > 1000, "{params:?}: the seeds gave only {nodes} nodes in all");
    }
}

/// The DSL rule (`uts::num_children`) against the host's (`host_num_children`), node by node,
/// where the walks above cannot reach: negative and NaN means, the cap of 100, the cyclic
/// shape's cut-off at 5 * gen_mx, b0 <= 1, hybrid roots under the binomial rule.
#[test]
fn uts_dsl_and_host_child_counts_agree_on_every_rule() {
    use uts::uts::{Params, Shape, TreeType};
    let states: Vec<[u8; 20]> = (0..16u32).map(|k| uts::host_sha1(&k.to_be_bytes())).collect();
    let mut capped = 0;
    for tree_type in [TreeType::Binomial, TreeType::Geometric, TreeType::Hybrid] {
        for shape in [Shape::Linear, Shape::ExpDec, Shape::Cyclic, Shape::Fixed] {
            for b0 in [0.0, 0.5, 1.0, 4.0, 150.0, 2000.5] {
                for gen_mx in [1, 6, 16] {
                    for (q, m, shift_depth) in [(0.2, 4, 0.5), (0.9, 150, 0.0), (0.5, 2, 3.0)] {
                        let p = Params { tree_type, shape, b0, gen_mx, q, m, shift_depth, ..uts::DEFAULTS };
                        for depth in 0..100 {
                            for &state in &states {
                                let dsl =
                                    uts::uts::num_children(state, depth, tree_type, shape, b0, gen_mx, q, m, shift_depth);
                                assert_eq!(dsl, uts::host_num_children(&p, &state, depth), "{p:?} at depth {depth}");
                                capped += (dsl == uts::uts::MAX_CHILDREN) as u32;
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(capped > 0, "some nodes hit the cap of 100 children");
}

#[test]
fn uts_presets_are_the_nine_published_trees_in_any_case() {
    let names: Vec<&str> = uts::PRESETS.iter().map(|&(name, _)| name).collect();
    assert_eq!(names, ["T1", "T2", "T3", "T4", "T5", "T1L", "T2L", "T3L", "T1XL"]);
    for name in names {
        let tree = uts::preset(&name.to_ascii_lowercase()).unwrap();
        assert!(tree.known.is_some(), "{name}");
        assert_eq!(tree.params.hash_in_child, 1, "{name}");
    }
    assert!(uts::preset("T6").is_none());
    // T3L's q * m is above 1: judged by its published size, never refused.
    let t3l = uts::preset("t3l").unwrap().params;
    assert!(t3l.q * t3l.m as f64 > 1.0);
}

#[test]
fn uts_refuses_custom_trees_that_grow_without_bound_or_make_no_sense() {
    use uts::uts::{Params, Shape, TreeType};
    let refusal = |params: Params| uts::custom(params, 0).unwrap_err().to_string();
    for tree_type in [TreeType::Binomial, TreeType::Hybrid] {
        let bounded = Params { tree_type, q: 0.24, m: 4, ..uts::DEFAULTS };
        assert!(uts::custom(bounded, 0).is_ok(), "{tree_type:?} with q * m = 0.96");
        for q in [0.25, 0.3] {
            let why = refusal(Params { q, ..bounded });
            assert!(why.contains("q * m") && why.contains("without bound") && why.contains("T3L"), "{why}");
        }
        assert!(refusal(Params { q: 1.5, ..bounded }).contains("must lie in [0, 1]"));
        assert!(refusal(Params { q: f64::NAN, ..bounded }).contains("must lie in [0, 1]"));
    }
    let geometric = Params { tree_type: TreeType::Geometric, ..uts::DEFAULTS };
    // q and m are not used by geometric trees.
    assert!(uts::custom(Params { q: 0.9, m: 8, ..geometric }, 0).is_ok());
    assert!(refusal(Params { b0: -1.0, ..geometric }).contains("b0"));
    assert!(refusal(Params { b0: f64::INFINITY, ..geometric }).contains("b0"));
    assert!(refusal(Params { gen_mx: 0, ..geometric }).contains("gen_mx"));
    assert!(refusal(Params { tree_type: TreeType::Hybrid, shift_depth: -1.0, ..geometric }).contains("shift_depth"));
    let why = refusal(Params { shape: Shape::ExpDec, b0: 0.5, ..geometric });
    assert!(why.contains("expdec") && why.contains("without bound"), "{why}");
    assert!(uts::custom(Params { shape: Shape::ExpDec, b0: 1.5, ..geometric }, 0).is_ok());
}

#[test]
fn the_cpu_backend_steals_and_balances() {
    let rt = cpu().cpu_threads(4);
    // Large enough (4.7 M tasks) that sleeping pool threads wake while work is left to take,
    // even on a busy machine with fewer cores than threads (11 queens, 2.5 ms, sometimes ran
    // entirely on one thread there).
    let (got, out) = nqueens::solve(&rt, 13).unwrap();
    assert_eq!(got, 73_712);
    assert_eq!(out.stats.workers(), 4);
    assert!(out.stats.steals > 0, "one root task must be stolen to reach the other threads: {}", out.stats);
    assert_eq!(out.stats.per_worker_tasks.iter().sum::<u64>(), out.stats.tasks);
}

#[test]
fn a_progress_callback_sees_the_cpu_backend_work() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = seen.clone();
    let rt = cpu().on_progress(std::time::Duration::from_millis(2), move |p| sink.lock().unwrap().push((p.tasks, p.elapsed)));
    // Long enough for several reports even in a release build on a fast machine.
    let (count, out) = nqueens::solve(&rt, 13).unwrap();
    assert_eq!(count, 73_712);
    let seen = seen.lock().unwrap();
    assert!(seen.len() >= 3, "only {} reports in {:?}", seen.len(), out.stats.phases.run);
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1), "counts and times never go back: {seen:?}");
    let last = seen.last().unwrap().0;
    assert!(last > 0 && last <= out.stats.tasks, "last report {last} of {} tasks", out.stats.tasks);
}

#[test]
fn a_cpu_run_draws_its_load_balance_chart() {
    let (_, out) = nqueens::solve(&cpu(), 10).unwrap();
    let path = std::env::temp_dir().join(format!("wsdsl-nqueens-chart-{}.svg", std::process::id()));
    match out.stats.write_chart(&path, "N-Queens 10") {
        Err(wsdsl::Error::Chart { reason, .. }) if reason.contains("TrueType") => {
            eprintln!("SKIPPED the chart: {reason}");
        }
        Err(e) => panic!("{e}"),
        Ok(()) => {
            let svg = std::fs::read_to_string(&path).unwrap();
            std::fs::remove_file(&path).ok();
            let workers = out.stats.per_worker_tasks.len();
            assert!(svg.contains("N-Queens 10"));
            assert!(svg.contains(&format!("of {workers} busy")), "the caption counts the run's workers");
        }
    }
}

/// Every non-empty subarray, prefix and suffix of `v` summed on its own: best, prefix,
/// suffix, total.
fn max_subarray_by_brute_force(v: &[i32]) -> [i64; 4] {
    let sum = |r: std::ops::Range<usize>| v[r].iter().map(|&x| x as i64).sum::<i64>();
    let n = v.len();
    let best = (0..n).flat_map(|i| (i + 1..=n).map(move |j| (i, j))).map(|(i, j)| sum(i..j)).max().unwrap();
    let prefix = (1..=n).map(|j| sum(0..j)).max().unwrap();
    let suffix = (0..n).map(|i| sum(i..n)).max().unwrap();
    [best, prefix, suffix, sum(0..n)]
}

#[test]
fn max_subarray_matches_brute_force_and_the_sequential_pass() {
    for (len, seed, leaf) in [(1, 1, 1), (2, 2, 1), (7, 3, 1), (100, 4, 3), (257, 5, 16), (1000, 6, 64), (1000, 7, 5000)] {
        let values = max_subarray::input(len, seed).unwrap();
        let want = max_subarray_by_brute_force(values.as_slice());
        assert_eq!(max_subarray::four(&max_subarray::reference(values.as_slice())), want, "the reference, {len} elements, seed {seed}");
        let (got, out) = max_subarray::solve(&cpu(), &values, leaf).unwrap();
        assert_eq!(max_subarray::four(&got), want, "{len} elements, seed {seed}, leaf {leaf}");
        assert_eq!(out.counters.leaves.get(), max_subarray::leaves(len as u64, leaf as u64), "{len} elements, leaf {leaf}");
    }
    // Every element negative: the best is the largest one alone; every element positive: the
    // whole array. Neither is the answer an empty subarray (zero) would give.
    for (v, want) in [(vec![-5, -2, -9, -3], [-2, -5, -3, -19]), (vec![4, 1, 7], [12, 12, 12, 12]), (vec![-1000; 9], [-1000, -1000, -1000, -9000])] {
        let (got, _) = max_subarray::solve(&cpu(), &ReadOnly::from_vec(v.clone()), 2).unwrap();
        assert_eq!(max_subarray::four(&got), want, "{v:?}");
        assert_eq!(max_subarray_by_brute_force(&v), want, "{v:?}");
    }
    // Longer arrays, against the sequential pass, across leaf sizes.
    let values = max_subarray::input(3 * (1 << 16) + 5, 9).unwrap();
    let want = max_subarray::four(&max_subarray::reference(values.as_slice()));
    for leaf in [1, 37, 4096, u32::MAX] {
        let (got, out) = max_subarray::solve(&cpu(), &values, leaf).unwrap();
        assert_eq!(max_subarray::four(&got), want, "leaf {leaf}");
        if leaf == 37 {
            assert!(out.stats.completions > 5000, "halved down to the leaves: {}", out.stats);
        }
    }
}

#[test]
fn max_subarray_refuses_an_empty_array_and_empty_leaves() {
    let Err(err) = max_subarray::solve(&cpu(), &ReadOnly::from_vec(Vec::new()), 8) else { panic!("an empty array has no subarray") };
    assert!(err.to_string().contains("0 elements"), "{err}");
    let Err(err) = max_subarray::solve(&cpu(), &ReadOnly::from_vec(vec![1, 2]), 0) else { panic!("a leaf of no elements") };
    assert!(err.to_string().contains("leaf size"), "{err}");
}

#[test]
fn the_mnk_game_of_tic_tac_toe_is_a_draw_however_many_threads_run_it() {
    let board = mnk_game::Board::TIC_TAC_TOE;
    let want = board.known().unwrap();
    assert_eq!(mnk_game::sequential(board), want, "the plain recursion");
    // 255,168 games: the leaves; every other position waits for its children.
    let inner = want.1 - 255_168;
    for threads in [1, 2, 4] {
        let (value, positions, out) = mnk_game::solve(&cpu().cpu_threads(threads), board).unwrap();
        assert_eq!((value, positions), want, "{threads} threads");
        // A task per position, and a complete handler per inner one, counted once each
        // whether it ran as a nested call or was forked.
        assert_eq!(out.stats.tasks, positions, "{threads} threads: {}", out.stats);
        assert_eq!(out.stats.completions, inner, "{threads} threads: {}", out.stats);
        assert_eq!(out.stats.per_worker_tasks.iter().sum::<u64>(), out.stats.tasks);
        if threads == 1 {
            // Nothing forked: the longest game's nine positions before its last move wait
            // on the one thread's stack at once.
            assert_eq!(out.stats.peak_frames, 9, "{}", out.stats);
            assert_eq!(out.stats.steals, 0, "{}", out.stats);
        }
    }
}

#[test]
fn a_tree_of_values_spreads_to_idle_threads() {
    // 6.5 M tasks: long enough that sleeping pool threads wake while work is left.
    let (value, positions, out) = mnk_game::solve(&cpu().cpu_threads(4), mnk_game::Board { columns: 2, rows: 5, k: 3 }).unwrap();
    assert_eq!((value, positions), mnk_game::sequential(mnk_game::Board { columns: 2, rows: 5, k: 3 }));
    assert!(out.stats.steals > 0, "forked children must be stolen to reach the other threads: {}", out.stats);
    assert!(out.stats.per_worker_tasks.iter().filter(|&&t| t > 0).count() > 1, "{}", out.stats);
}

#[test]
fn the_mnk_game_with_a_cutoff_and_recursion_searches_the_same_tree() {
    let board = mnk_game::Board::TIC_TAC_TOE;
    let want = board.known().unwrap();
    // Cutoff 0: the root's task searches everything by recursion; one past the last move:
    // a task per position.
    for cutoff in [0, 2, 5, 8, 10] {
        let (value, positions, out) = mnk_game::cutoff::solve(&cpu(), board, cutoff).unwrap();
        assert_eq!((value, positions), want, "cutoff {cutoff}");
        assert_eq!(out.stats.tasks < positions, cutoff < 9, "cutoff {cutoff}: {}", out.stats);
        if cutoff == 0 {
            assert_eq!(out.stats.tasks, 1, "{}", out.stats);
        }
    }
}

#[test]
fn mnk_boards_the_kernel_cannot_take_are_refused() {
    assert!(mnk_game::Board::checked(4, 5, 3).unwrap_err().contains("1 to 16 cells"));
    assert!(mnk_game::Board::checked(3, 3, 4).unwrap_err().contains("k must be 1 to 3"));
    assert!(mnk_game::Board::checked(3, 3, 0).is_err());
    assert_eq!(mnk_game::Board::checked(3, 3, 3), Ok(mnk_game::Board::TIC_TAC_TOE));
}
