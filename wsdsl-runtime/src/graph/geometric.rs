//! Random geometric graphs: a road-like class. Points are scattered uniformly over the unit
//! square and every pair closer than a radius is joined, so edges are short, the graph is
//! nearly planar, and a path across it takes about `1 / radius` hops (1,800 at 4 M vertices
//! and average degree 8): the long diameter of a road network, without a file.
//!
//! The radius is chosen for the asked average degree: a point has on average
//! `vertices * pi * radius^2` others within it (a little fewer near the border). Finding the
//! pairs takes O(n): the square is cut into cells at least a radius wide, the points are
//! sorted into cells (a counting sort), and each point looks only at its own and the eight
//! surrounding cells. Vertices are numbered in cell order (cells row by row), so vertices
//! near each other in the square have nearby ids, as in a road network's file. Edges are
//! undirected (both directions, the same weight); with `weighted`, a weight proportional to
//! the edge's length, `round(255 * length / radius)` but at least 1, so `1..=255`.
//!
//! Determinism: points are drawn in blocks of [`BLOCK`], block `k` from its own stream of
//! `(seed, k)`, whichever thread draws it; the sort is stable; so a seed gives the same graph
//! on every run and thread count. Every row lists its neighbours in increasing order.

use super::build::{self, Emit, Kind};
use super::error::GraphError;
use super::random::Xoshiro256;
use super::Graph;
use rayon::prelude::*;

/// Points per random stream.
const BLOCK: usize = 1 << 16;
/// Vertices per chunk while the edges are found.
const CHUNK: usize = 1 << 15;

/// A random geometric graph of `vertices` points in the unit square, joined within the
/// radius that gives an average degree of about `degree`, with length weights when `weighted`.
#[derive(Clone, Debug, PartialEq)]
pub struct Geometric {
    /// The number of points (vertices).
    pub vertices: u32,
    /// The average degree the radius is chosen for.
    pub degree: f64,
    /// The generator's seed: the same seed gives the same graph.
    pub seed: u64,
    /// Whether edges carry weights in `1..=255`, proportional to their length.
    pub weighted: bool,
}

impl Geometric {
    /// The radius within which points are joined.
    pub fn radius(&self) -> f64 {
        (self.degree / (std::f64::consts::PI * f64::from(self.vertices))).sqrt()
    }

    /// Generates the graph.
    pub fn generate(&self) -> Result<Graph, GraphError> {
        let Geometric { vertices, degree, seed, weighted } = *self;
        let problem = |p: String| GraphError::named("geometric", p);
        if vertices == 0 {
            return Err(problem("the graph needs at least 1 vertex".into()));
        }
        if !(degree > 0.0 && degree <= f64::from(vertices - 1).max(1.0)) {
            return Err(problem(format!(
                "the average degree {degree} must be above 0 and at most {} (the other vertices)",
                vertices.saturating_sub(1).max(1)
            )));
        }
        let n = vertices as usize;
        let radius = self.radius();
        // Cells at least a radius wide: a point's neighbours are all in the 3 x 3 cells around it.
        let side = ((1.0 / radius).floor() as usize).clamp(1, 1 << 15);
        let points = scatter(n, seed);
        let cell_of = |(x, y): (f64, f64)| {
            let at = |t: f64| ((t * side as f64) as usize).min(side - 1);
            at(y) * side + at(x)
        };

        // Counting sort into cells: `first[c]..first[c + 1]` are the new ids of cell c.
        let mut first = vec![0u32; side * side + 1];
        for &p in &points {
            first[cell_of(p) + 1] += 1;
        }
        for c in 0..side * side {
            first[c + 1] += first[c];
        }
        let mut placed = vec![(0.0, 0.0); n];
        let mut next = first.clone();
        for &p in &points {
            let slot = &mut next[cell_of(p)];
            placed[*slot as usize] = p;
            *slot += 1;
        }
        drop(points);

        let r2 = radius * radius;
        let chunks = n.div_ceil(CHUNK);
        let produce = |chunk: usize, emit: &mut Emit| {
            for i in chunk * CHUNK..n.min((chunk + 1) * CHUNK) {
                let (x, y) = placed[i];
                let cell = cell_of((x, y));
                let (cy, cx) = (cell / side, cell % side);
                // Row-major over the 3 x 3 cells: ids come out in increasing order.
                for ny in cy.saturating_sub(1)..(cy + 2).min(side) {
                    for nx in cx.saturating_sub(1)..(cx + 2).min(side) {
                        let c = ny * side + nx;
                        for j in first[c] as usize..first[c + 1] as usize {
                            let (dx, dy) = (placed[j].0 - x, placed[j].1 - y);
                            let d2 = dx * dx + dy * dy;
                            if j != i && d2 <= r2 {
                                let w = if weighted { ((255.0 * d2.sqrt() / radius).round() as u32).clamp(1, 255) } else { 0 };
                                emit.push(i as u32, j as u32, w);
                            }
                        }
                    }
                }
            }
        };
        let kind = if weighted { Kind::Int } else { Kind::None };
        build::assemble(n, chunks, produce, kind, false).map_err(|e| problem(e.problem().to_string()))
    }
}

/// `n` points uniform in the unit square, in blocks of [`BLOCK`] with a stream each.
fn scatter(n: usize, seed: u64) -> Vec<(f64, f64)> {
    let mut points = vec![(0.0, 0.0); n];
    points.par_chunks_mut(BLOCK).enumerate().for_each(|(block, out)| {
        let mut rng = Xoshiro256::new(seed, block as u64);
        for p in out {
            *p = (rng.unit(), rng.unit());
        }
    });
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometric(vertices: u32, degree: f64, weighted: bool) -> Graph {
        Geometric { vertices, degree, seed: 9, weighted }.generate().unwrap()
    }

    /// Every pair within the radius, by looking at all pairs: what the cells must find.
    fn all_pairs(g: &Geometric) -> usize {
        let points = scatter(g.vertices as usize, g.seed);
        let r2 = g.radius() * g.radius();
        let mut pairs = 0;
        for (i, a) in points.iter().enumerate() {
            for b in &points[i + 1..] {
                if (a.0 - b.0).powi(2) + (a.1 - b.1).powi(2) <= r2 {
                    pairs += 1;
                }
            }
        }
        pairs
    }

    #[test]
    fn the_cells_find_exactly_the_pairs_within_the_radius() {
        for (vertices, degree) in [(2_000, 6.0), (500, 30.0), (50, 49.0), (1, 1.0)] {
            let spec = Geometric { vertices, degree, seed: 3, weighted: false };
            let g = spec.generate().unwrap();
            assert_eq!(g.edges(), 2 * all_pairs(&spec), "{vertices} vertices, degree {degree}");
            assert!(g.is_symmetric());
        }
    }

    #[test]
    fn the_average_degree_is_near_the_asked_one_and_rows_are_sorted() {
        let g = geometric(100_000, 8.0, false);
        let average = g.edges() as f64 / g.vertices() as f64;
        // A little below 8: points near the border have part of their disc outside.
        assert!((7.5..8.1).contains(&average), "average degree {average}");
        assert!((0..g.vertices() as u32).all(|v| g.neighbours(v).windows(2).all(|w| w[0] < w[1])));
        assert!((0..g.vertices() as u32).all(|v| !g.neighbours(v).contains(&v)), "no loops");
    }

    #[test]
    fn weights_follow_the_length_and_are_symmetric() {
        let spec = Geometric { vertices: 5_000, degree: 10.0, seed: 4, weighted: true };
        let g = spec.generate().unwrap();
        let w = g.int_weights().unwrap();
        assert!(w.iter().all(|&w| (1..=255).contains(&w)));
        // Lengths are spread over the disc: about a quarter of the pairs are within half the radius.
        let short = w.iter().filter(|&&w| w <= 128).count() as f64 / w.len() as f64;
        assert!((0.2..0.3).contains(&short), "{short}");
        assert!(g.is_symmetric());
        let plain = Geometric { weighted: false, ..spec }.generate().unwrap();
        assert_eq!(plain.targets, g.targets, "weights do not change the edges");
    }

    #[test]
    fn nearby_ids_are_nearby_points() {
        // Numbered in cell order: most edges join ids much closer than a random pair's.
        let g = geometric(100_000, 8.0, false);
        let mut gaps: Vec<u32> = (0..g.vertices() as u32).flat_map(|v| g.neighbours(v).iter().map(move |&u| u.abs_diff(v))).collect();
        gaps.sort_unstable();
        assert!(gaps[gaps.len() / 2] < 2_000, "median id gap {}", gaps[gaps.len() / 2]);
    }

    #[test]
    fn a_seed_gives_one_graph() {
        let spec = Geometric { vertices: 3_000, degree: 5.0, seed: 1, weighted: true };
        assert_eq!(spec.generate().unwrap(), spec.generate().unwrap());
        assert_ne!(spec.generate().unwrap().targets, Geometric { seed: 2, ..spec }.generate().unwrap().targets);
    }

    #[test]
    fn impossible_graphs_are_refused_with_the_reason() {
        let e = Geometric { vertices: 0, degree: 4.0, seed: 1, weighted: false }.generate().unwrap_err();
        assert_eq!(e.to_string(), "geometric: the graph needs at least 1 vertex");
        for degree in [0.0, -1.0, f64::NAN, 100.0] {
            let e = Geometric { vertices: 10, degree, seed: 1, weighted: false }.generate().unwrap_err();
            assert!(e.problem().contains("average degree"), "{e}");
        }
    }
}
