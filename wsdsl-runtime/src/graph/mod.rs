//! Graph input and output: read a graph file (SNAP edge list, Matrix Market, DIMACS shortest
//! path, gzipped or not) or generate one (R-MAT, a grid, a random geometric graph, a uniform
//! random graph), into compressed sparse rows; write one for other programs to read.
//!
//! ```no_run
//! use wsdsl_runtime::graph::{self, GraphOptions};
//! let g = graph::read("data/graphs/p2p-Gnutella31.txt.gz", &GraphOptions::default())?;
//! println!("{} vertices, {} edges, first row {:?}", g.vertices(), g.edges(), g.neighbours(0));
//! # Ok::<(), wsdsl_runtime::graph::GraphError>(())
//! ```
//!
//! Every reader collects `(source, target, weight)` triples and hands them to one CSR
//! builder ([`Graph::from_edges`]), so the options (symmetrize, drop self-loops, drop
//! duplicates) mean the same thing for every format. The builder is a counting sort, not a
//! sort of all pairs, and runs in parallel while keeping each row in input order, so its
//! result never depends on the number of threads (`build.rs` says how).
//!
//! A graph that is already compressed sparse rows comes in through [`Graph::from_csr`],
//! which validates the arrays ([`Graph::validate`]) and names the first problem. Reading a
//! large file a second time need not parse it again: [`read_cached`] and [`GraphCache`]
//! keep the parsed CSR in a binary form beside the kernel cache (`cached.rs` says how it is
//! keyed and checked).

mod build;
mod cached;
mod csr;
mod dimacs;
mod edges;
mod error;
mod geometric;
mod grid;
mod matrix_market;
mod random;
mod rmat;
mod snap;
mod source;
mod uniform;
mod weights;
mod write;

pub use cached::{read_cached, GraphCache, Loaded};
pub use dimacs::read_dimacs;
pub use error::GraphError;
pub use geometric::Geometric;
pub use grid::Grid;
pub use matrix_market::read_matrix_market;
pub use rmat::Rmat;
pub use snap::read_snap;
pub use uniform::Uniform;
pub use write::{write, Pairs};

use std::path::Path;

/// Compressed sparse rows: the out-neighbours of v are `targets[offsets[v]..offsets[v+1]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    /// `vertices() + 1` entries, non-decreasing, starting at 0 and ending at `edges()`.
    pub offsets: Vec<u32>,
    /// The target of every edge, row by row.
    pub targets: Vec<u32>,
    /// Edge weights, parallel to `targets` (or none).
    pub weights: Weights,
}

/// Edge weights, one per entry of [`Graph::targets`].
#[derive(Debug, Clone, PartialEq)]
pub enum Weights {
    /// An unweighted graph.
    None,
    /// Integer weights.
    Int(Vec<u32>),
    /// Real weights (a Matrix Market `real` file), each the 64-bit float nearest to the
    /// file's number, and whole exactly when that number is (see [`Graph::integer_weights`]).
    Real(Vec<f64>),
}

/// What to do to the edges while building the graph.
#[derive(Clone, Debug, Default)]
pub struct GraphOptions {
    /// Add the reverse `(v, u)` of every edge `(u, v)` with `u != v` (a self-loop is its own
    /// reverse, so it is not doubled), with the same weight: an undirected graph.
    pub symmetrize: bool,
    /// Drop edges `(v, v)`.
    pub remove_self_loops: bool,
    /// Keep one edge per `(u, v)` pair, the one with the smallest weight; rows come out
    /// sorted by target. Without it, each row keeps the order of the input. A reader drops
    /// duplicates as it goes, too, so that its memory follows the distinct edges rather
    /// than the lines of the file.
    pub remove_duplicates: bool,
    /// Never show a progress bar.
    pub quiet: bool,
}

impl Graph {
    /// The number of vertices.
    pub fn vertices(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// The number of (directed) edges.
    pub fn edges(&self) -> usize {
        self.targets.len()
    }

    /// The out-neighbours of `v`.
    pub fn neighbours(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    /// The out-degree of `v`.
    pub fn degree(&self, v: u32) -> u32 {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }

    /// The weights when they are integers.
    pub fn int_weights(&self) -> Option<&[u32]> {
        match &self.weights {
            Weights::Int(w) => Some(w),
            _ => None,
        }
    }

    /// The weights as the non-negative integers that exact path lengths add up: `None` for a
    /// graph without weights, integer weights as they are, real weights when every one is
    /// a whole number that fits in `u32` (`2.0` is 2, `4294967295.0` the largest). A negative
    /// or fractional real weight is an error naming the edge, never rounded or dropped;
    /// wholeness and range are the file's own, since the reader refuses a fraction whose
    /// nearest float is whole (`0.99999999999999999`) rather than read it as one.
    pub fn integer_weights(&self) -> Result<Option<Vec<u32>>, GraphError> {
        weights::integer_weights(self)
    }

    /// The first vertex with an out-edge, if any: where searches start by default.
    pub fn first_vertex_with_edges(&self) -> Option<u32> {
        (0..self.vertices() as u32).find(|&v| self.degree(v) > 0)
    }

    /// The largest out-degree (0 for a graph without vertices).
    pub fn max_degree(&self) -> u32 {
        self.offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0)
    }

    /// Builds CSR from `(source, target, weight)` triples over `vertices` vertices; the
    /// weight is ignored when `weighted` is false. Errors when an id is not below
    /// `vertices`, or there are more than `u32::MAX` edges (after symmetrizing).
    pub fn from_edges(
        vertices: usize,
        edges: Vec<(u32, u32, u32)>,
        weighted: bool,
        opts: &GraphOptions,
    ) -> Result<Graph, GraphError> {
        let kind = if weighted { build::Kind::Int } else { build::Kind::None };
        build::from_triples(vertices, edges, kind, opts.symmetrize, opts)
    }

    /// The transpose: every edge `(u, v)` becomes `(v, u)` with its weight, so the
    /// neighbours of `v` are its in-neighbours in `self` (what pull-style algorithms such
    /// as PageRank iterate over). Rows list their sources in increasing order.
    pub fn transpose(&self) -> Graph {
        build::transpose(self)
    }

    /// Whether every edge `(u, v)` has a reverse `(v, u)` with the same weight, as many
    /// times as it appears itself: an undirected graph, which a file can hold with each
    /// edge once (see [`write()`]).
    pub fn is_symmetric(&self) -> bool {
        build::is_symmetric(self)
    }
}

/// Reads a graph, picking the format by extension (after removing an optional `.gz`):
/// `.mtx` Matrix Market, `.gr` DIMACS shortest path, anything else (`.txt`, `.el`,
/// `.edges`, ...) a SNAP edge list. Gzip is detected by the magic bytes, not the name.
pub fn read(path: impl AsRef<Path>, opts: &GraphOptions) -> Result<Graph, GraphError> {
    let path = path.as_ref();
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    if name.ends_with(".mtx") {
        read_matrix_market(path, opts)
    } else if name.ends_with(".gr") {
        read_dimacs(path, opts)
    } else {
        read_snap(path, opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_edges_than_32_bit_offsets_hold_is_refused() {
        let e = build::check_edge_count(u64::from(u32::MAX) + 1).unwrap_err();
        assert!(e.to_string().contains("4294967296 edges"), "{e}");
        assert!(e.problem().contains("32-bit"), "{e}");
        assert!(build::check_edge_count(u64::from(u32::MAX)).is_ok());
    }
}
