//! The examples' rows: every example's workloads, each run on the GPU (and the CPU backend)
//! against its known answer.

use crate::report::Job;
use wsdsl::prelude::*;
use wsdsl_examples::mergesort::merge_path;
use wsdsl_examples::{
    bfs, branch_bound, cc, chain, connect4, dlb_bench, fib, fifteen, graph_reference, knapsack, max_subarray, mergesort, nqueens, octree, pagerank,
    parallel, quicksort, relax, subset, sudoku, uts,
};

pub fn jobs(quick: bool) -> Vec<(String, Job<'static>)> {
    let mut list: Vec<(String, Job<'static>)> = Vec::new();
    let queens: &[u32] = if quick { &[8, 12] } else { &[12, 14, 16] };
    for &n in queens {
        list.push((
            format!("nqueens {n}"),
            Box::new(move |rt: &Runtime| {
                let (got, out) = nqueens::solve(rt, n)?;
                Ok((got.to_string(), nqueens::expected(n).unwrap().to_string(), out.stats))
            }),
        ));
    }
    let fibs: &[u32] = if quick { &[20] } else { &[30, 35] };
    for &n in fibs {
        list.push((
            format!("fib {n}"),
            Box::new(move |rt: &Runtime| {
                let (leaves, value, out) = fib::solve(rt, n)?;
                Ok((format!("{value} / {leaves} leaves"), format!("{} / {} leaves", fib::reference(n), fib::reference(n + 1)), out.stats))
            }),
        ));
    }
    let lengths: &[usize] = if quick { &[100_000] } else { &[1 << 24, 1 << 28] };
    for &len in lengths {
        list.push((
            format!("max_subarray {len}"),
            Box::new(move |rt: &Runtime| {
                let values = max_subarray::input(len, 1)?;
                let (got, out) = max_subarray::solve(rt, &values, 4096)?;
                let want = max_subarray::reference(values.as_slice());
                let show = |b: &max_subarray::Best| format!("best {} / prefix {} / suffix {} / total {}", b.best, b.prefix, b.suffix, b.total);
                Ok((show(&got), show(&want), out.stats))
            }),
        ));
    }
    // Each data-parallel building block against plain Rust, at every length of the suite.
    for (kind, name) in parallel::KINDS.iter().enumerate() {
        list.push((
            format!("parallel {name}"),
            Box::new(move |rt: &Runtime| {
                let suite = parallel::Suite::new(7, &parallel::LENGTHS, &[kind as u32]);
                let buffers = suite.buffers();
                let out = rt.run_with::<parallel::blocks::Kernel>((), &buffers, suite.roots())?;
                let verdict = suite.check(&buffers).map_or_else(|e| e, |()| "as plain Rust".to_string());
                Ok((format!("{verdict}, {} cases", suite.case_count()), format!("as plain Rust, {} cases", suite.case_count()), out.stats))
            }),
        ));
    }
    let sorts: &[usize] = if quick { &[100_000] } else { &[1 << 20, 1 << 22] };
    for &n in sorts {
        list.push((
            format!("mergesort {n}"),
            Box::new(move |rt: &Runtime| {
                let input = mergesort::keys(n, 7, u32::MAX);
                let cutoff = mergesort::mergesort::LEAF as u32;
                let (sorted, out) = mergesort::sort(rt, &input, cutoff)?;
                let shape = mergesort::tree_shape(n as u32, cutoff);
                let verdict = mergesort::check(&input, &sorted.data).map_or_else(|e| e, |()| "sorted permutation".to_string());
                Ok((
                    format!("{verdict}, {} leaves / {} merges", sorted.leaves, sorted.merges),
                    format!("sorted permutation, {} leaves / {} merges", shape.0, shape.1),
                    out.stats,
                ))
            }),
        ));
        list.push((
            format!("mergesort --merge-path {n}"),
            Box::new(move |rt: &Runtime| {
                let input = mergesort::keys(n, 7, u32::MAX);
                let grain = merge_path::DEFAULT_GRAIN;
                let (sorted, out) = merge_path::sort(rt, &input, 32, grain)?;
                let shape = merge_path::tree_shape(n as u32, 32, grain);
                let verdict = mergesort::check(&input, &sorted.data).map_or_else(|e| e, |()| "sorted permutation".to_string());
                Ok((
                    format!("{verdict}, {} leaves / {} merges / {} pieces", sorted.leaves, sorted.merges, sorted.pieces),
                    format!("sorted permutation, {} leaves / {} merges / {} pieces", shape.0, shape.1, shape.2),
                    out.stats,
                ))
            }),
        ));
    }
    for &n in sorts {
        list.push((
            format!("quicksort {n}"),
            Box::new(move |rt: &Runtime| {
                let input = quicksort::keys(n, 7, if n % 2 == 0 { u32::MAX } else { 1000 });
                let (sorted, out) = quicksort::sort(rt, &input, quicksort::quicksort::LEAF as u32)?;
                let verdict = quicksort::check(&input, &sorted.data).map_or_else(|e| e, |()| "sorted permutation".to_string());
                Ok((verdict, "sorted permutation".to_string(), out.stats))
            }),
        ));
    }
    // Chains: the hand-off latency per level, and values carried back up by complete handlers.
    for (chains, length, joined) in [(1u32, 10_000u32, false), (1, 10_000, true), (2_600, 2_000, false)] {
        list.push((
            format!("chain {chains} x {length}{}", if joined { ", joined" } else { "" }),
            Box::new(move |rt: &Runtime| {
                let m = chain::run(rt, chains, length, joined)?;
                let verdict = m.check(chains, length, joined).map_or_else(|e| e, |()| "every link ran".to_string());
                Ok((verdict, "every link ran".to_string(), m.stats))
            }),
        ));
    }
    // DLB_Bench: the paper's placement (68% of the tasks on a tenth of the holders), every
    // task once, counters equal to the host's own computation.
    let dlb_tasks: u64 = if quick { 200_000 } else { 4_000_000 };
    list.push((
        format!("dlb_bench {dlb_tasks} tasks, paper imbalance"),
        Box::new(move |rt: &Runtime| {
            let params = dlb_bench::dlb::Params { cost: dlb_bench::dlb::Cost::Gaussian, mean: 1000, spread: 300, seed: 1 };
            let bench = dlb_bench::Bench { tasks: dlb_tasks, holders: 1024, imbalance: dlb_bench::Imbalance::Paper, params };
            let (got, out) = dlb_bench::run(rt, &bench)?;
            let want = dlb_bench::reference(&bench);
            let show = |t: dlb_bench::Totals| format!("{} tasks, {} units, checksum {:#x}", t.tasks, t.units, t.checksum);
            Ok((show(got), show(want), out.stats))
        }),
    ));
    // Four-in-a-row end-games with known exact scores: all 1000 in one launch.
    let limit = if quick { 100 } else { 1000 };
    list.push((
        format!("connect4 Test_L3_R1, {limit} roots"),
        Box::new(move |rt: &Runtime| {
            let cases = connect4::parse_test_set(include_str!("../../data/connect4/Test_L3_R1")).expect("the bundled test set parses");
            let cases = &cases[..limit.min(cases.len())];
            let positions: Vec<_> = cases.iter().map(|c| c.position.clone()).collect();
            let (scores, out) = connect4::solve_all(rt, &positions)?;
            let matching = scores.iter().zip(cases).filter(|(s, c)| **s == c.score).count();
            Ok((format!("{matching}/{} scores match", cases.len()), format!("{0}/{0} scores match", cases.len()), out.stats))
        }),
    ));
    // The chapter's look-ahead with its heuristic, against the sequential reference search.
    let plies = if quick { 5 } else { 8 };
    let start = connect4::Position::empty();
    let (want, _) = connect4::reference_lookahead(&start, plies).expect("a valid look-ahead");
    list.push((
        format!("connect4 look-ahead {plies}, empty board"),
        Box::new(move |rt: &Runtime| {
            let (got, out) = connect4::lookahead(rt, &start, plies)?;
            Ok((format!("{:?}, best {}", got.values, got.best_column), format!("{:?}, best {}", want.values, want.best_column), out.stats))
        }),
    ));
    // Sudoku: generated puzzles with unique solutions, one root task each, against the
    // grids the sequential solver proved unique when it generated them.
    let puzzles = if quick { 100 } else { 5000 };
    let set = sudoku::generate_set(puzzles, 24, 1);
    list.push((
        format!("sudoku {puzzles} puzzles"),
        Box::new(move |rt: &Runtime| {
            let clues: Vec<sudoku::Grid> = set.iter().map(|(p, _)| *p).collect();
            let (solved, out) = sudoku::solve(rt, &clues)?;
            let right = set.iter().enumerate().filter(|&(i, (_, s))| solved.counts[i] == 1 && solved.grids[i] == *s).count();
            Ok((format!("{right}/{} unique and right", set.len()), format!("{0}/{0} unique and right", set.len()), out.stats))
        }),
    ));
    // 0/1 knapsack by branch and bound (strongly correlated items), against dynamic programming.
    let n = if quick { 60 } else { 80 };
    let items = knapsack::generate(n, 1000, knapsack::Correlation::Strong, 1);
    let capacity = items.iter().map(|&(w, _)| w).sum::<u32>() / 2;
    let optimum = knapsack::reference(&items, capacity);
    list.push((
        format!("knapsack {n} items"),
        Box::new(move |rt: &Runtime| {
            let (best, out) = knapsack::solve(rt, &items, capacity)?;
            Ok((best.to_string(), optimum.to_string(), out.stats))
        }),
    ));
    // Helpers taking the context, traits, iterator adaptors and slice methods, against native Rust.
    list.push(("rust subset differential".to_string(), Box::new(subset::run)));
    // Branch and bound over a trait: a knapsack and a tour in one run, against dynamic programming.
    let (items, cities) = if quick { (30, 9) } else { (40, 12) };
    let (knap, capacity) = branch_bound::knapsack_instance(items, 1);
    let dist = branch_bound::cities(cities, 1);
    let want = branch_bound::reference(&knap, capacity, &dist);
    list.push((
        format!("branch_bound {items} items, {cities} cities"),
        Box::new(move |rt: &Runtime| {
            let (got, out) = branch_bound::solve(rt, &knap, capacity, &dist)?;
            let show = |s: branch_bound::Solution| format!("value {}, tour {}", s.knapsack, s.tour);
            Ok((show(got), show(want), out.stats))
        }),
    ));
    // The 15-puzzle: solutions within the optimal moves + 2, against a sequential search.
    let (scramble, seed) = if quick { (100, 1) } else { (120, 1) };
    let grid = fifteen::scramble(scramble, seed);
    let bound = fifteen::optimal(&grid, scramble).expect("a scramble is solved within its moves") + 2;
    let want = fifteen::reference(&grid, bound);
    list.push((
        format!("fifteen scramble {scramble}, within {bound} moves"),
        Box::new(move |rt: &Runtime| {
            let (found, shortest, out) = fifteen::solve(rt, &grid, bound)?;
            Ok((format!("{found} solutions, shortest {shortest}"), format!("{} solutions, shortest {}", want.0, want.1), out.stats))
        }),
    ));
    // A* on the 15-puzzle (band = moves + Manhattan distance), against sequential IDA*.
    let (scramble, seed) = if quick { (40, 1) } else { (40, 3) };
    let grid = fifteen::scramble(scramble, seed);
    let optimal = fifteen::optimal(&grid, scramble).expect("a scramble is solved within its moves");
    list.push((
        format!("fifteen A* scramble {scramble} seed {seed} (ordered)"),
        Box::new(move |rt: &Runtime| {
            let found = fifteen::shortest(rt, &grid, scramble, true)?;
            let show = |m: Option<u32>| m.map_or("none".to_string(), |m| format!("{m} moves"));
            Ok((show(found.moves), show(Some(optimal)), found.out.stats))
        }),
    ));
    // Best-first branch and bound (band by bound) on the knapsack above, against dynamic
    // programming. (Its own capacity and optimum: branch_bound's instance above has others.)
    let items = knapsack::generate(n, 1000, knapsack::Correlation::Strong, 1);
    let capacity = items.iter().map(|&(w, _)| w).sum::<u32>() / 2;
    let optimum = knapsack::reference(&items, capacity);
    list.push((
        format!("knapsack best-first {n} items (ordered)"),
        Box::new(move |rt: &Runtime| {
            let run = knapsack::solve_best_first(rt, &items, capacity, true)?;
            Ok((run.best.to_string(), optimum.to_string(), run.out.stats))
        }),
    ));
    // SSSP by delta-stepping on the priority scheduler (R-MAT, weights 1..255 hashed from the
    // ends), against Dijkstra.
    let scale = if quick { 14 } else { 18 };
    let sssp = ordered_sssp_case(scale);
    list.push((
        format!("sssp delta-stepping R-MAT {scale} (delta {})", sssp.delta),
        Box::new(move |rt: &Runtime| {
            let (found, stats) = sssp.run(rt)?;
            Ok((sssp.verdict(&found), sssp.expected(), stats))
        }),
    ));
    // Octrees of up to 15 million particles, each checked particle by particle.
    let clouds: &[(usize, octree::Distribution)] = if quick {
        &[(200_000, octree::Distribution::Uniform)]
    } else {
        &[(1_000_000, octree::Distribution::Uniform), (15_000_000, octree::Distribution::Uniform), (15_000_000, octree::Distribution::Plummer)]
    };
    for &(n, distribution) in clouds {
        let particles = std::sync::Arc::new(octree::Particles::generate(distribution, n, 1));
        list.push((
            format!("octree {n} {distribution:?}"),
            Box::new(move |rt: &Runtime| {
                let (tree, out) = octree::build(rt, &particles, 32)?;
                let verdict = octree::check(&particles, 32, &tree).map_or_else(|e| format!("FAILED: {e}"), |_| "checked".to_string());
                Ok((format!("{verdict}, {} leaves", tree.leaves.len()), format!("checked, {} leaves", tree.leaves.len()), out.stats))
            }),
        ));
    }
    // Graphs: direction-optimizing BFS (a step's last task starts the next level: counts,
    // fences and compare-and-swap across the whole GPU) and union-find connected components
    // (compare-and-swap hooking), on a long-diameter grid and a skewed R-MAT graph, against
    // sequential references.
    let (side, scale) = if quick { (128, 14) } else { (1024, 20) };
    let undirected = wsdsl::graph::GraphOptions { symmetrize: true, remove_self_loops: true, remove_duplicates: true, quiet: true };
    let graphs = [
        (format!("grid {side}x{side}"), wsdsl::graph::Grid { rows: side, columns: side, delete: 0.0, seed: 1, weighted: false }.generate()),
        (format!("R-MAT {scale}"), wsdsl::graph::Rmat { scale, edge_factor: 16, seed: 1, weighted: false }.generate(&undirected)),
    ];
    for (name, g) in graphs {
        let g = g.expect("the generator's parameters are valid");
        let source = g.first_vertex_with_edges().unwrap_or(0);
        let want = bfs::reference(&g, source);
        let (reached, deepest) = bfs::reach(&want);
        let dg = bfs::device_graph(&g);
        let expected = format!("{reached} reached, depth {deepest}");
        list.push((
            format!("bfs direction-optimizing {name}"),
            Box::new(move |rt: &Runtime| {
                let (found, out) = bfs::search_direction(rt, &dg, source, bfs::Direction::default())?;
                let got = bfs::check_against(&found.depth, &want).map_or_else(|e| e, |()| expected.clone());
                Ok((got, expected.clone(), out.stats))
            }),
        ));
        let labels = graph_reference::components(&g);
        let (count, _) = graph_reference::component_summary(&labels);
        let dg = cc::DeviceGraph::new(&g).expect("generated undirected");
        list.push((
            format!("cc union-find {name}"),
            Box::new(move |rt: &Runtime| {
                let (found, out) = cc::afforest(rt, &dg, cc::Afforest::default())?;
                let got = if found.labels == labels { format!("{count} components") } else { "labels differ from the sequential BFS's".to_string() };
                Ok((got, format!("{count} components"), out.stats))
            }),
        ));
        // The pulled PageRank: shares computed on the device, scratch buffers never uploaded
        // nor copied back.
        let pg = pagerank::PullGraph::new(&g);
        let ranks = pagerank::reference(&g, Some(8));
        list.push((
            format!("pagerank pulled {name}"),
            Box::new(move |rt: &Runtime| {
                let (rank, _, out) = pagerank::pull(rt, &pg, 8, pagerank::PULL_GRAIN)?;
                let (rel, _) = pagerank::error(&rank, &ranks);
                let expected = format!("every rank within {:.0e} of float64 power iteration (32-bit shares)", pagerank::pull_tolerance(8));
                let got = if rel <= pagerank::pull_tolerance(8) { expected.clone() } else { format!("a rank off by {rel:.1e} (relative)") };
                Ok((got, expected, out.stats))
            }),
        ));
    }
    let trees: &[&str] = if quick { &["T1"] } else { &["T1", "T2", "T3", "T4", "T5", "T1L", "T2L", "T3L"] };
    for &name in trees {
        list.push((
            format!("uts {name}"),
            Box::new(move |rt: &Runtime| {
                let tree = uts::preset(name).unwrap();
                let (got, out) = uts::solve(rt, &tree)?;
                let want = tree.known.unwrap();
                let show = |t: (u64, u64, u32)| format!("{} nodes, {} leaves, depth {}", t.0, t.1, t.2);
                Ok((show(got), show(want), out.stats))
            }),
        ));
    }
    list
}

/// A delta-stepping SSSP instance and its Dijkstra distances.
pub struct OrderedSssp {
    graph: relax::DeviceGraph,
    want: Vec<u32>,
    source: u32,
    delta: u32,
}

pub fn ordered_sssp_case(scale: u32) -> OrderedSssp {
    let opts = wsdsl::graph::GraphOptions { symmetrize: true, remove_self_loops: true, remove_duplicates: true, quiet: true };
    let g = wsdsl::graph::Rmat { scale, edge_factor: 16, seed: 1, weighted: false }.generate(&opts).expect("an R-MAT graph");
    let weights = graph_reference::hashed_weights(&g);
    let source = g.first_vertex_with_edges().unwrap_or(0);
    let want = graph_reference::dijkstra(&g, &weights, source);
    let delta = relax::default_delta(&g, &weights);
    OrderedSssp { graph: relax::DeviceGraph::new(&g, Some(weights)), want, source, delta }
}

impl OrderedSssp {
    pub fn run(&self, rt: &Runtime) -> Result<(Vec<u32>, wsdsl::Stats), wsdsl::Error> {
        let mut initial = vec![u32::MAX; self.want.len()];
        initial[self.source as usize] = 0;
        let how = relax::Relaxation { grain: relax::DEFAULT_GRAIN, step: 0 };
        let (found, out) = relax::run_ordered(rt, &self.graph, initial, &[self.source], how, self.delta)?;
        Ok((found.value, out.stats))
    }

    pub fn expected(&self) -> String {
        format!("{} reached, as Dijkstra", self.want.iter().filter(|&&d| d != u32::MAX).count())
    }

    pub fn verdict(&self, got: &[u32]) -> String {
        match relax::compare(got, &self.want, "distances") {
            Ok(()) => self.expected(),
            Err(e) => e,
        }
    }
}
