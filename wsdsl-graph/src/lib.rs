//! Graph algorithms on wsdsl: breadth-first search, single-source shortest paths, connected
//! components and PageRank, each one call that takes a [`Runtime`](wsdsl::Runtime) and a
//! [`Graph`] and returns plain vectors with the run's statistics. The variant that runs is
//! chosen for the graph, as the benchmarks found best; an options struct overrides it.
//!
//! ```
//! use wsdsl::graph::{Rmat, GraphOptions};
//! use wsdsl::prelude::*;
//!
//! let opts = GraphOptions { symmetrize: true, remove_self_loops: true, remove_duplicates: true, quiet: true };
//! let g = Rmat { scale: 10, edge_factor: 16, seed: 1, weighted: true }.generate(&opts)?;
//! let rt = Runtime::new(Backend::Cpu); // Runtime::from_env()?: the GPU where there is one
//!
//! let bfs = wsdsl_graph::bfs(&rt, &g, 0)?;
//! assert_eq!(bfs.depth, wsdsl_graph::kernels::bfs::reference(&g, 0));
//! let sssp = wsdsl_graph::sssp(&rt, &g, 0)?;
//! assert_eq!(sssp.distance, wsdsl_graph::reference::dijkstra(&g, g.int_weights().unwrap(), 0));
//! let cc = wsdsl_graph::connected_components(&rt, &g)?;
//! assert_eq!(cc.label, wsdsl_graph::reference::components(&g));
//! let pr = wsdsl_graph::pagerank(&rt, &g, &Default::default())?;
//! println!("{:?} BFS on {}, {} components; the highest rank {:.2e}\n{}", bfs.method, bfs.run.backend, cc.count(),
//!          pr.rank.iter().copied().fold(0.0, f64::max), bfs.run.stats);
//! # Ok::<(), wsdsl::Error>(())
//! ```
//!
//! # What runs
//!
//! | call | by default | why | other variants |
//! | --- | --- | --- | --- |
//! | [`bfs`] | direction-optimizing from an average degree of 12, the priority bands below | dense graphs have short diameters, where bottom-up steps skip most edges; sparse ones have thousands of levels, which the bands run without a round each | [`BfsMethod`] |
//! | [`sssp`] | delta-stepping, delta from the mean weight and degree | | [`SsspMethod`]: frontier rounds, data-driven |
//! | [`connected_components`] | union-find with sampling (Afforest) | the fastest on every class | [`CcMethod`]: label propagation |
//! | [`pagerank`] | 8 pulled iterations | the fastest, memory per vertex | [`PageRankMethod`]: the paper's push, to a tolerance |
//!
//! The figures behind these choices are in the workspace's `BENCHMARKS.md` (each variant
//! against GAPBS on R-MAT, a grid and a road-like graph), and each method's documentation
//! quotes them. Each answer is exact whichever variant runs (PageRank's to the precision
//! its method documents), and [`reference`](mod@reference) holds the sequential algorithms the tests check
//! them against.
//!
//! # Graphs
//!
//! Every call takes [`wsdsl::graph::Graph`], compressed sparse rows: read from a SNAP edge
//! list, a Matrix Market or a DIMACS file ([`wsdsl::graph::read`], or [`read_cached`],
//! which keeps the parsed graph in a binary form so that the next read of the same file
//! is a copy from disk rather than a parse); generated ([`wsdsl::graph::Rmat`],
//! [`wsdsl::graph::Grid`], [`wsdsl::graph::Geometric`], [`wsdsl::graph::Uniform`]); or
//! built from arrays you have ([`Graph::from_csr`], which names the first thing wrong
//! with them). With the `petgraph` feature, [`FromPetgraph`] converts petgraph's `Graph`
//! and `Csr`. Every call validates the graph first ([`Graph::validate`]): its fields are
//! public, and an offset or a target out of place is an error naming it, never a panic.
//!
//! A call copies the graph's arrays to the device (the GPU's memory, or the CPU backend's
//! buffers) each time. To run many searches on one graph, upload it once through the
//! kernels' own host sides in [`kernels`] (their device graphs are kept on the GPU between
//! runs).

#![warn(missing_docs)]

mod bfs;
mod components;
pub mod kernels;
mod rank;
pub mod reference;
mod run;
mod sssp;

#[cfg(feature = "petgraph")]
mod from_petgraph;

pub use bfs::{bfs, bfs_with, Bfs, BfsMethod, BfsOptions, DENSE_DEGREE, UNREACHED};
pub use components::{connected_components, connected_components_with, CcMethod, CcOptions, Components};
#[cfg(feature = "petgraph")]
pub use from_petgraph::{FromPetgraph, PetgraphEdges};
pub use kernels::bfs::Direction;
pub use kernels::cc::Afforest;
pub use rank::{pagerank, PageRank, PageRankMethod, PageRankOptions, DAMPING};
pub use run::Run;
pub use sssp::{sssp, sssp_with, Sssp, SsspMethod, SsspOptions};
pub use wsdsl::graph::{read_cached, Graph, GraphCache, GraphOptions, Loaded, Weights};
