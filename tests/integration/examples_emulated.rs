//! The sudoku, knapsack (depth-first and best-first), branch_bound, fifteen (counting and A*),
//! dlb_bench, max_subarray, m,n,k-game and UTS examples' kernels through the host-compiled
//! templates (`wsdsl::gpu::emulate`: the very CUDA source the GPU runs, compiled by the host
//! C++ compiler, no GPU needed), against the examples' sequential references and published
//! data. This checks the generated C of their handlers (methods, iterator chains, `Option`
//! results and fields, `while let`, enums, slices, buffer atomics) before a GPU ever runs it.

use wsdsl_examples::branch_bound;
use wsdsl_examples::dlb_bench;
use wsdsl_examples::fifteen;
use wsdsl_examples::knapsack;
use wsdsl_examples::max_subarray;
use wsdsl_examples::mnk_game;
use wsdsl_examples::sudoku;
use wsdsl_examples::uts;

use wsdsl::gpu::emulate::{run_emulated, Emulation};
use wsdsl::prelude::*;
use wsdsl::KernelConfig;

#[test]
fn sudoku_kernel_emulated_finds_the_unique_solutions() {
    let set = sudoku::generate_set(6, 24, 11);
    let roots: Vec<_> = set
        .iter()
        .enumerate()
        .map(|(i, (clues, _))| sudoku::sudoku::Branch { puzzle: i as u32, board: sudoku::board(clues).unwrap() }.into())
        .collect();
    let found = sudoku::sudoku::Found {
        counts: Buffer::zeroed(set.len()),
        claimed: Buffer::zeroed(set.len()),
        grids: Buffer::zeroed(81 * set.len()),
    };
    let (counters, _, stats) =
        run_emulated::<sudoku::sudoku::Kernel>(&(), &found, &roots, &KernelConfig::default(), &Emulation::default())
            .expect("host-compiled run");
    assert_eq!(found.counts.to_vec(), vec![1; set.len()]);
    assert_eq!(counters.solutions.get(), set.len() as u64);
    let grids = found.grids.to_vec();
    for (i, (_, solution)) in set.iter().enumerate() {
        let got: Vec<u8> = grids[81 * i..81 * (i + 1)].iter().map(|&d| d as u8).collect();
        assert_eq!(got, solution.to_vec(), "puzzle {i}");
    }
    assert!(stats.tasks > set.len() as u64);
}

#[test]
fn knapsack_kernel_emulated_matches_dynamic_programming() {
    for (n, seed) in [(30, 2), (50, 1)] {
        let items = knapsack::generate(n, 1000, knapsack::Correlation::Strong, seed);
        let capacity = items.iter().map(|&(w, _)| w).sum::<u32>() / 2;
        let best = knapsack::knapsack::Best { value: Buffer::zeroed(1) };
        let root = knapsack::knapsack::Packing { next: 0, weight: 0, value: 0 }.into();
        let inst = knapsack::instance(&items, capacity).unwrap();
        run_emulated::<knapsack::knapsack::Kernel>(&inst, &best, &[root], &KernelConfig::default(), &Emulation::default())
            .expect("host-compiled run");
        assert_eq!(best.value.get(0), knapsack::reference(&items, capacity), "{n} items, seed {seed}");
    }
}

#[test]
fn branch_bound_kernel_emulated_matches_dynamic_programming() {
    for (items, cities, seed) in [(20, 7, 2), (30, 9, 1)] {
        let (knap, capacity) = branch_bound::knapsack_instance(items, seed);
        let dist = branch_bound::cities(cities, seed);
        let inst = branch_bound::instances(&knap, capacity, &dist).unwrap();
        let best = branch_bound::bnb::Best { best: Buffer::from_vec(vec![0, i64::MIN]) };
        let roots = [branch_bound::bnb::Packing { next: 0, weight: 0, value: 0 }.into(), branch_bound::bnb::Tour { visited: 1, last: 0, count: 1, cost: 0 }.into()];
        run_emulated::<branch_bound::bnb::Kernel>(&inst, &best, &roots, &KernelConfig::default(), &Emulation::default())
            .expect("host-compiled run");
        let got = branch_bound::Solution { knapsack: best.best.get(0), tour: (-best.best.get(1)) as u32 };
        assert_eq!(got, branch_bound::reference(&knap, capacity, &dist), "{items} items, {cities} cities, seed {seed}");
    }
}

#[test]
fn fifteen_kernel_emulated_matches_the_sequential_search() {
    for (scramble, seed, slack) in [(60, 2, 2), (100, 1, 0)] {
        let grid = fifteen::scramble(scramble, seed);
        let bound = fifteen::optimal(&grid, scramble).unwrap() + slack;
        let root = fifteen::fifteen::Node { board: fifteen::board(&grid), depth: 0, last: None }.into();
        let (counters, _, _) = run_emulated::<fifteen::fifteen::Kernel>(
            &fifteen::fifteen::Params { bound },
            &(),
            &[root],
            &KernelConfig::default(),
            &Emulation::default(),
        )
        .expect("host-compiled run");
        assert_eq!((counters.solutions.get(), counters.shortest.get()), fifteen::reference(&grid, bound), "scramble {scramble}");
    }
}

/// The examples' ordered kernels run on the band queues of the host-compiled templates.
#[test]
fn astar_and_best_first_knapsack_emulated_are_exact() {
    let rt = Runtime::new(Backend::Emulate);
    let grid = fifteen::scramble(40, 3);
    let optimal = fifteen::optimal(&grid, 40).unwrap();
    let astar = fifteen::shortest(&rt, &grid, 40, true).unwrap();
    assert_eq!(astar.moves, Some(optimal));
    assert!(matches!(astar.out.backend, wsdsl::BackendKind::Emulated { .. }), "{}", astar.out.backend);
    assert!(astar.out.stats.bands.is_some_and(|b| b.highest >= optimal));
    // The bands keep A*'s order: about the positions the CPU backend's strict band-by-band
    // run expands (930 thousand). When workers could take from any band of the window while
    // the lowest one still ran, the window raced ahead and A* expanded 4.0 million, as many
    // as an unordered run.
    let strict = fifteen::shortest(&Runtime::new(Backend::Cpu).cpu_threads(2), &grid, 40, true).unwrap();
    assert!(astar.expanded < strict.expanded * 3 / 2, "emulated A* expanded {}, the CPU backend's bands {}", astar.expanded, strict.expanded);
    let items = knapsack::generate(60, 1000, knapsack::Correlation::Strong, 2);
    let capacity = items.iter().map(|&(w, _)| w).sum::<u32>() / 2;
    let best = knapsack::solve_best_first(&rt, &items, capacity, true).unwrap();
    assert_eq!(best.best, knapsack::reference(&items, capacity));
}

#[test]
fn dlb_bench_kernel_emulated_matches_the_host() {
    use dlb_bench::dlb::{Cost, Params};
    use dlb_bench::{Bench, Imbalance};
    for (imbalance, cost) in [(Imbalance::Paper, Cost::Gaussian), (Imbalance::None, Cost::Uniform)] {
        let bench = Bench { tasks: 3000, holders: 64, imbalance, params: Params { cost, mean: 40, spread: 15, seed: 5 } };
        let roots: Vec<_> = bench.roots().into_iter().map(Into::into).collect();
        let (counters, _, stats) = run_emulated::<dlb_bench::dlb::Kernel>(
            &bench.params,
            &(),
            &roots,
            &KernelConfig::default(),
            &Emulation::default(),
        )
        .expect("host-compiled run");
        let want = dlb_bench::reference(&bench);
        let got = (counters.tasks.get(), counters.units.get(), counters.checksum.get());
        assert_eq!(got, (want.tasks, want.units, want.checksum), "{imbalance:?}, {cost:?}");
        assert_eq!(stats.tasks, bench.spawned(), "{imbalance:?}, {cost:?}");
    }
}

/// The five small published trees (about 4 * 10^6 nodes each) through the host-compiled
/// templates: every tree type and shape of the DSL rule, as the GPU runs it (SHA-1 included),
/// against published data. The CPU backend's handlers are the same rule, checked against the
/// independent host walk tree by tree and rule by rule (`examples_cpu.rs`); walking these trees
/// there, in the test binary's unoptimised build, took a minute of CI. The large trees:
/// `cargo run --release --example uts -- T2L`.
#[test]
fn uts_small_published_trees_have_their_published_sizes() {
    let rt = Runtime::new(Backend::Emulate);
    for name in ["T1", "T2", "T3", "T4", "T5"] {
        let tree = uts::preset(name).unwrap();
        let (got, out) = uts::solve(&rt, &tree).unwrap();
        assert_eq!(got, tree.known.unwrap(), "{name}");
        assert_eq!(out.stats.tasks, got.0, "{name}");
    }
}

#[test]
fn max_subarray_kernel_emulated_matches_the_sequential_pass() {
    let rt = Runtime::new(Backend::Emulate);
    for (len, seed, leaf) in [(1, 1, 1), (5, 2, 1), (3 * 4096 + 5, 3, 64), (100_000, 4, 4096)] {
        let values = max_subarray::input(len, seed).unwrap();
        let (got, out) = max_subarray::solve(&rt, &values, leaf).unwrap();
        let want = max_subarray::reference(values.as_slice());
        assert_eq!(max_subarray::four(&got), max_subarray::four(&want), "{len} elements, seed {seed}, leaf {leaf} on {}", out.backend);
        assert_eq!(out.counters.leaves.get(), max_subarray::leaves(len as u64, leaf as u64));
    }
    let (got, _) = max_subarray::solve(&rt, &ReadOnly::from_vec(vec![-5, -2, -9, -3]), 1).unwrap();
    assert_eq!(max_subarray::four(&got), [-2, -5, -3, -19], "every element negative");
}

#[test]
fn mnk_game_kernels_emulated_solve_tic_tac_toe() {
    let board = mnk_game::Board::TIC_TAC_TOE;
    let want = board.known().unwrap();
    let root = mnk_game::mnk::Position { moved: 0, to_move: 0 }.into();
    let (counters, values, _) =
        run_emulated::<mnk_game::mnk::Kernel>(&board.params(), &(), &[root], &KernelConfig::default(), &Emulation::default())
            .expect("host-compiled run");
    assert_eq!((values[0], counters.positions.get()), want, "a task per position");
    let mnk = board.params();
    let params = mnk_game::cutoff::mnk_cutoff::Params { columns: mnk.columns, k: mnk.k, cells: mnk.cells, cutoff: 3 };
    let root = mnk_game::cutoff::mnk_cutoff::Position { moved: 0, to_move: 0 }.into();
    let (counters, values, stats) =
        run_emulated::<mnk_game::cutoff::mnk_cutoff::Kernel>(&params, &(), &[root], &KernelConfig::default(), &Emulation::default())
            .expect("host-compiled run");
    assert_eq!((values[0], counters.positions.get()), want, "tasks for 3 moves");
    assert_eq!(stats.tasks, 1 + 9 + 9 * 8 + 9 * 8 * 7, "tasks for the positions of up to 3 stones");
}
