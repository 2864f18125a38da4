//! Uniform random graphs (Erdős–Rényi, `G(n, m)`): every vertex pair equally likely, so
//! degrees are nearly equal (Poisson) and the diameter is short, the opposite of R-MAT's
//! hubs. `vertices * degree / 2` pairs are drawn, each an undirected edge (both directions,
//! the same weight, `1..=255` when `weighted`); loops and repeated pairs are dropped, which
//! at any useful size removes a vanishing fraction, so the average degree is `degree`.
//! (GAPBS's `-u` graphs draw `vertices * k` pairs: its `-k 8` is this generator's degree 16.)
//!
//! Determinism: the pairs are drawn in blocks of [`BLOCK`], block `k` from its own stream
//! of `(seed, k)`, whichever thread draws it, and the rows come out sorted, so a seed gives
//! the same graph on every run and thread count; the weighted and unweighted graphs of a
//! seed have the same edges.

use super::build::{self, Emit, Kind};
use super::error::GraphError;
use super::random::{weight_1_to_255, Xoshiro256};
use super::Graph;

/// Pairs per random stream.
const BLOCK: u64 = 1 << 16;

/// A uniform random undirected graph of `vertices` vertices and average degree `degree`,
/// weights `1..=255` when `weighted`.
#[derive(Clone, Debug, PartialEq)]
pub struct Uniform {
    /// The number of vertices.
    pub vertices: u32,
    /// The average degree.
    pub degree: u32,
    /// The generator's seed: the same seed gives the same graph.
    pub seed: u64,
    /// Whether edges carry weights in `1..=255`.
    pub weighted: bool,
}

impl Uniform {
    /// Generates the graph.
    pub fn generate(&self) -> Result<Graph, GraphError> {
        let Uniform { vertices, degree, seed, weighted } = *self;
        let problem = |p: String| GraphError::named("uniform", p);
        if vertices == 0 {
            return Err(problem("the graph needs at least 1 vertex".into()));
        }
        let pairs = u64::from(vertices) * u64::from(degree) / 2;
        build::check_edge_count(2 * pairs)
            .map_err(|e| problem(format!("{vertices} vertices of degree {degree}: {}", e.problem())))?;
        let blocks = pairs.div_ceil(BLOCK) as usize;
        let chunks = blocks.clamp(1, rayon::current_num_threads() * 2);
        let produce = |chunk: usize, emit: &mut Emit| {
            for block in blocks * chunk / chunks..blocks * (chunk + 1) / chunks {
                let first = block as u64 * BLOCK;
                let mut ends = Xoshiro256::new(seed, 2 * block as u64);
                let mut weights = Xoshiro256::new(seed, 2 * block as u64 + 1);
                for _ in first..pairs.min(first + BLOCK) {
                    let (u, v) = (ends.below(vertices), ends.below(vertices));
                    let w = if weighted { weight_1_to_255(weights.next()) } else { 0 };
                    if u != v {
                        emit.push(u, v, w);
                        emit.push(v, u, w);
                    }
                }
            }
        };
        let kind = if weighted { Kind::Int } else { Kind::None };
        // Deduplicated: a pair drawn twice keeps its smaller weight in both directions.
        build::assemble(vertices as usize, chunks, produce, kind, true).map_err(|e| problem(e.problem().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degrees_are_near_the_average_and_there_are_no_hubs() {
        let g = Uniform { vertices: 1 << 16, degree: 16, seed: 1, weighted: false }.generate().unwrap();
        let average = g.edges() as f64 / g.vertices() as f64;
        assert!((15.9..=16.0).contains(&average), "average degree {average}");
        // Poisson(16): a degree of 45 has probability about 1e-9.
        assert!(g.max_degree() < 45, "largest degree {}", g.max_degree());
        assert!(g.is_symmetric());
        for v in 0..g.vertices() as u32 {
            let row = g.neighbours(v);
            assert!(row.windows(2).all(|w| w[0] < w[1]) && !row.contains(&v), "row {v}: sorted, no loop, no repeat");
        }
    }

    #[test]
    fn a_seed_gives_one_graph_and_weights_do_not_change_it() {
        let spec = Uniform { vertices: 5_000, degree: 6, seed: 7, weighted: true };
        let g = spec.generate().unwrap();
        assert_eq!(g, spec.generate().unwrap());
        assert!(g.is_symmetric(), "a repeated pair keeps one weight both ways");
        assert!(g.int_weights().unwrap().iter().all(|&w| (1..=255).contains(&w)));
        let plain = Uniform { weighted: false, ..spec.clone() }.generate().unwrap();
        assert_eq!(plain.targets, g.targets);
        assert_ne!(Uniform { seed: 8, ..spec }.generate().unwrap().targets, g.targets);
    }

    #[test]
    fn impossible_graphs_are_refused_with_the_reason() {
        let e = Uniform { vertices: 0, degree: 4, seed: 1, weighted: false }.generate().unwrap_err();
        assert_eq!(e.to_string(), "uniform: the graph needs at least 1 vertex");
        let e = Uniform { vertices: 1 << 30, degree: 16, seed: 1, weighted: false }.generate().unwrap_err();
        assert!(e.problem().contains("CSR offsets are 32-bit"), "{e}");
        let g = Uniform { vertices: 10, degree: 0, seed: 1, weighted: false }.generate().unwrap();
        assert_eq!((g.vertices(), g.edges()), (10, 0));
    }
}
