//! The megakernels behind the algorithms, each with its host side: the inputs it takes, the
//! launch, and what it found. The functions of the crate's root pick one of these and run
//! it; a caller who wants a variant's every knob, its inputs without the run (to launch them
//! another way: the emulation's tests, gpu-check, the benchmarks), or a graph uploaded once
//! for many runs, uses them directly.

/// Breadth-first search: direction-optimizing (`direction`), level-synchronous and data-driven.
pub mod bfs;
/// Connected components by union-find with sampling (Afforest).
pub mod cc;
/// PageRank: data-driven, pulled over in-edges, or by residual push to a tolerance.
pub mod pagerank;
/// Frontier relaxation: shortest paths, and the BFS and components variants built on it.
pub mod relax;
