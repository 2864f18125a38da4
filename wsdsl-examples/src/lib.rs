//! The example programs' megakernels, each with its host side (inputs, the launch, the
//! sequential reference it is checked against), the pieces the examples share, and the
//! kernels the tests and gpu-check run. Compiled once, here, for every program that runs
//! them: the examples of the `wsdsl` crate (`examples/<name>.rs`, which add the command
//! line), its integration tests, gpu-check and the benches. The graph kernels are the
//! `wsdsl-graph` library's, re-exported under the names the programs have always used.

/// Breadth-first search: direction-optimizing (`direction`), level-synchronous and data-driven
/// (the library's kernels: `wsdsl_graph::kernels::bfs`).
pub use wsdsl_graph::kernels::bfs;
/// Branch and bound written once over a trait: a 0/1 knapsack and a travelling salesman tour.
pub mod branch_bound;
/// Connected components by union-find with sampling, Afforest (`wsdsl_graph::kernels::cc`).
pub use wsdsl_graph::kernels::cc;
/// The chain micro-benchmark: the hand-off latency of one task spawning one child.
pub mod chain;
/// Connect Four by minimax over a task tree: exact scores and the heuristic look-ahead.
pub mod connect4;
/// DLB_Bench: independent synthetic tasks placed unevenly, spread by load balancing.
pub mod dlb_bench;
/// Fork-join Fibonacci: complete handlers add their children's values.
pub mod fib;
/// The 15-puzzle: one IDA* iteration as a task tree, and A* on the priority scheduler.
pub mod fifteen;
/// 0/1 knapsack by branch and bound, depth first or best first.
pub mod knapsack;
/// The maximum subarray sum by divide and conquer, each task handing up four numbers.
pub mod max_subarray;
/// Merge sort with `ctx.merge` (`merge_path`: the merge written by hand as tasks).
pub mod mergesort;
/// The m,n,k-game (tic-tac-toe and its kin) by negamax over a task per position (`cutoff`:
/// tasks for the first moves, then recursion).
pub mod mnk_game;
/// N-Queens, one task per board (`cutoff`: tasks down to a row, then recursion).
pub mod nqueens;
/// Octree partitioning of particles by cooperative (block-wide) tasks.
pub mod octree;
/// PageRank: data-driven, pulled over in-edges, or by residual push to a tolerance
/// (`wsdsl_graph::kernels::pagerank`).
pub use wsdsl_graph::kernels::pagerank;
/// Every data-parallel building block (`ctx.copy`, `merge`, `sort`, ...) against plain Rust.
pub mod parallel;
/// Quicksort: a three-way `ctx.partition`, then the outer parts sorted by new tasks.
pub mod quicksort;
/// Sudoku as a task tree of branching boards, with the puzzle generator and a solver.
pub mod sudoku;
/// The Unbalanced Tree Search benchmark: a tree defined by SHA-1.
pub mod uts;

/// Frontier relaxation: SSSP, and the `bfs` and `cc` examples' relaxation variants
/// (`wsdsl_graph::kernels::relax`).
pub use wsdsl_graph::kernels::relax;
/// Sequential graph algorithms the graph examples are checked against, and hashed weights
/// (`wsdsl_graph::reference`).
pub use wsdsl_graph::reference as graph_reference;
/// Keys to sort and the check of a sort, shared by the sorting examples.
pub mod keys;
/// SplitMix64: the seeded generator of the examples' host-side inputs.
pub mod rng;

/// The command line the examples share (backend, chart, verdict), graph and key options.
pub mod cli;

/// A test kernel of the Rust subset whose every output native Rust recomputes (tests, gpu-check).
pub mod subset;
/// A test kernel whose helper loops for ever (the watchdog's tests, gpu-check's chaos rows).
pub mod endless_loop;
