//! Two-dimensional grids: the long-diameter, low-degree class (meshes, city blocks) where
//! an algorithm that needs a round per hop needs thousands of rounds.
//!
//! Vertex `r * columns + c` sits at row `r`, column `c` and is joined to its four neighbours
//! (fewer on the border) by undirected edges: both directions, the same weight. With
//! `delete` above 0 every undirected edge is dropped independently with that probability,
//! which leaves holes and detours and, at high rates, separate pieces. Whether an edge stays
//! and its weight (`1..=255` when `weighted`) come from a hash of the seed and the edge, so
//! any thread decides any edge, a seed gives the same graph on every run and thread count,
//! and the weighted and unweighted grids of a seed have the same edges. Every row lists its
//! neighbours in increasing order (up, left, right, down); there are no loops or duplicates.

use super::build::{self, Emit, Kind};
use super::error::GraphError;
use super::random::{hash, weight_1_to_255};
use super::Graph;

/// Rows of the grid per chunk of work.
const ROWS_PER_CHUNK: usize = 64;

/// A `rows` x `columns` grid with 4-neighbour undirected edges, each deleted with
/// probability `delete`, weights `1..=255` when `weighted`.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// Rows of vertices.
    pub rows: u32,
    /// Vertices per row.
    pub columns: u32,
    /// The probability that an edge is left out, in `[0, 1)`.
    pub delete: f64,
    /// The generator's seed: the same seed gives the same graph.
    pub seed: u64,
    /// Whether edges carry weights in `1..=255`.
    pub weighted: bool,
}

impl Grid {
    /// Generates the grid.
    pub fn generate(&self) -> Result<Graph, GraphError> {
        let Grid { rows, columns, delete, seed, weighted } = *self;
        let problem = |p: String| GraphError::named("grid", p);
        if rows == 0 || columns == 0 {
            return Err(problem(format!("a {rows} x {columns} grid has no vertices: both sides must be at least 1")));
        }
        if !(0.0..1.0).contains(&delete) {
            return Err(problem(format!("the deletion probability {delete} must be at least 0 and below 1")));
        }
        let vertices = u64::from(rows) * u64::from(columns);
        if vertices > u64::from(u32::MAX) {
            return Err(problem(format!(
                "{rows} x {columns} is {vertices} vertices, but at most {} fit (ids are 32-bit)",
                u32::MAX
            )));
        }
        let (rows, columns) = (rows as usize, columns as usize);
        let kept = |edge: u64| delete == 0.0 || unit(hash(seed, edge)) >= delete;
        let weight = |edge: u64| if weighted { weight_1_to_255(hash(seed, edge | WEIGHT_KEYS)) } else { 0 };
        let chunks = rows.div_ceil(ROWS_PER_CHUNK);
        let produce = |chunk: usize, emit: &mut Emit| {
            for r in chunk * ROWS_PER_CHUNK..rows.min((chunk + 1) * ROWS_PER_CHUNK) {
                for c in 0..columns {
                    let u = r * columns + c;
                    // Each undirected edge has one key, from the vertex above or left of it.
                    let mut join = |v: usize, edge: u64| {
                        if kept(edge) {
                            emit.push(u as u32, v as u32, weight(edge));
                        }
                    };
                    if r > 0 {
                        join(u - columns, down(u - columns));
                    }
                    if c > 0 {
                        join(u - 1, right(u - 1));
                    }
                    if c + 1 < columns {
                        join(u + 1, right(u));
                    }
                    if r + 1 < rows {
                        join(u + columns, down(u));
                    }
                }
            }
        };
        let kind = if weighted { Kind::Int } else { Kind::None };
        build::assemble(rows * columns, chunks, produce, kind, false).map_err(|e| problem(e.problem().to_string()))
    }
}

/// Weights are drawn from keys with the top bit set, so they are independent of the draws
/// that decide which edges stay.
const WEIGHT_KEYS: u64 = 1 << 63;

/// The key of the edge from vertex `u` to its right neighbour.
fn right(u: usize) -> u64 {
    2 * u as u64
}

/// The key of the edge from vertex `u` to the vertex below it.
fn down(u: usize) -> u64 {
    2 * u as u64 + 1
}

/// A number in `[0, 1)` from the top 53 bits.
fn unit(x: u64) -> f64 {
    (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(rows: u32, columns: u32, delete: f64, weighted: bool) -> Graph {
        Grid { rows, columns, delete, seed: 5, weighted }.generate().unwrap()
    }

    #[test]
    fn a_full_grid_has_four_neighbours_inside_and_fewer_on_the_border() {
        let g = grid(3, 4, 0.0, false);
        assert_eq!(g.vertices(), 12);
        // 3 rows of 3 horizontal edges, 2 x 4 vertical ones, each both ways.
        assert_eq!(g.edges(), 2 * (3 * 3 + 2 * 4));
        assert_eq!(g.neighbours(0), &[1, 4]);
        assert_eq!(g.neighbours(5), &[1, 4, 6, 9], "up, left, right, down");
        assert_eq!(g.neighbours(11), &[7, 10]);
        assert!(g.is_symmetric());
    }

    #[test]
    fn a_single_row_or_column_is_a_path() {
        for (rows, columns) in [(1, 6), (6, 1)] {
            let g = grid(rows, columns, 0.0, false);
            assert_eq!(g.edges(), 10);
            assert_eq!(g.max_degree(), 2);
            assert_eq!(g.neighbours(0), &[1]);
        }
        assert_eq!(grid(1, 1, 0.0, false).edges(), 0);
    }

    #[test]
    fn deletions_drop_undirected_edges_at_the_asked_rate() {
        let full = grid(200, 200, 0.0, false);
        let holey = grid(200, 200, 0.25, false);
        assert!(holey.is_symmetric(), "an edge goes in both directions or in neither");
        let kept = holey.edges() as f64 / full.edges() as f64;
        assert!((0.73..0.77).contains(&kept), "kept {kept}");
        for v in 0..holey.vertices() as u32 {
            assert!(holey.neighbours(v).iter().all(|u| full.neighbours(v).contains(u)));
        }
    }

    #[test]
    fn weights_are_symmetric_in_range_and_do_not_change_the_edges() {
        let plain = grid(50, 70, 0.1, false);
        let weighted = grid(50, 70, 0.1, true);
        assert_eq!((&plain.offsets, &plain.targets), (&weighted.offsets, &weighted.targets));
        let w = weighted.int_weights().unwrap();
        assert!(w.iter().all(|&w| (1..=255).contains(&w)));
        assert!(w.iter().min() < Some(&20) && w.iter().max() > Some(&235), "spread over the range");
        assert!(weighted.is_symmetric());
    }

    #[test]
    fn a_seed_gives_one_grid_and_another_seed_another() {
        let a = Grid { rows: 40, columns: 40, delete: 0.3, seed: 1, weighted: true };
        assert_eq!(a.generate().unwrap(), a.generate().unwrap());
        let b = Grid { seed: 2, ..a.clone() };
        assert_ne!(a.generate().unwrap().targets, b.generate().unwrap().targets);
    }

    #[test]
    fn impossible_grids_are_refused_with_the_reason() {
        let e = Grid { rows: 0, columns: 5, delete: 0.0, seed: 1, weighted: false }.generate().unwrap_err();
        assert_eq!(e.to_string(), "grid: a 0 x 5 grid has no vertices: both sides must be at least 1");
        let e = Grid { rows: 5, columns: 5, delete: 1.0, seed: 1, weighted: false }.generate().unwrap_err();
        assert!(e.problem().contains("deletion probability 1"), "{e}");
        let e = Grid { rows: 1 << 16, columns: 1 << 16, delete: 0.0, seed: 1, weighted: false }.generate().unwrap_err();
        assert!(e.problem().contains("4294967296 vertices"), "{e}");
    }
}
