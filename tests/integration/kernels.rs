//! The examples' megakernels, compiled once for every test module that runs them.
#![allow(dead_code)]

#[path = "../../examples/bfs/kernel.rs"]
pub mod bfs;
#[path = "../../examples/chain/kernel.rs"]
pub mod chain;
#[path = "../../examples/connect4/kernel.rs"]
pub mod connect4;
#[path = "../../examples/dlb_bench/kernel.rs"]
pub mod dlb_bench;
#[path = "../../examples/fib/kernel.rs"]
pub mod fib;
#[path = "../../examples/fifteen/kernel.rs"]
pub mod fifteen;
#[path = "../../examples/common/graph_reference.rs"]
pub mod graph_reference;
#[path = "../../examples/knapsack/kernel.rs"]
pub mod knapsack;
#[path = "../../examples/mergesort/kernel.rs"]
pub mod mergesort;
#[path = "../../examples/nqueens/kernel.rs"]
pub mod nqueens;
#[path = "../../examples/nqueens/cutoff.rs"]
pub mod nqueens_cutoff;
#[path = "../../examples/octree/kernel.rs"]
pub mod octree;
#[path = "../../examples/pagerank/kernel.rs"]
pub mod pagerank;
#[path = "../../examples/quicksort/kernel.rs"]
pub mod quicksort;
#[path = "../../examples/common/relax.rs"]
pub mod relax;
#[path = "../../examples/sudoku/kernel.rs"]
pub mod sudoku;
#[path = "../../examples/uts/kernel.rs"]
pub mod uts;
