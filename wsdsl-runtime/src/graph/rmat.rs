//! Graph500-style R-MAT graphs: skewed, small-world graphs of any size, without a file.
//!
//! Each edge picks its source and target one bit at a time, from the most significant:
//! at every level the adjacency matrix is split into quadrants and one is chosen with
//! probabilities a = 0.57 (top left), b = 0.19, c = 0.19, d = 0.05, the Graph500
//! parameters. The result has a few huge-degree vertices and many small ones. Like
//! Graph500, vertex ids are then scrambled by a seeded permutation, so that high degree
//! does not correlate with small ids (which would flatter schedulers that split id ranges).
//! Self-loops and repeated edges are kept, as Graph500 keeps them; the options remove them.
//!
//! Determinism: the edges are cut into blocks of [`BLOCK`] edges, and block `k` draws
//! from its own random stream seeded by `(seed, k)`, whichever thread generates it; the CSR
//! builder keeps that order. So a seed gives the same graph on every run and every thread
//! count. Weights come from separate streams, so the weighted and unweighted graphs of a
//! seed have the same edges.

use super::build::{self, Emit, Kind};
use super::error::GraphError;
use super::random::{weight_1_to_255, SplitMix64, Xoshiro256};
use super::{Graph, GraphOptions};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Edges per random stream.
const BLOCK: u64 = 1 << 16;
/// Quadrant probabilities as thresholds on a 32-bit random number: below `A` the top-left
/// quadrant, below `AB` top-right, below `ABC` bottom-left, else bottom-right.
const A: u64 = (0.57 * 4294967296.0) as u64;
const AB: u64 = ((0.57 + 0.19) * 4294967296.0) as u64;
const ABC: u64 = ((0.57 + 0.19 + 0.19) * 4294967296.0) as u64;
/// Generations this large show a progress bar (when standard error is a terminal).
const BAR_FROM_SCALE: u32 = 22;

/// A Graph500-style R-MAT graph: `2^scale` vertices and `edge_factor * 2^scale` directed
/// edges, the same for a seed on every run and thread count, with integer weights in
/// `1..=255` when `weighted`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rmat {
    /// The graph has `2^scale` vertices.
    pub scale: u32,
    /// Directed edges per vertex: `edge_factor * 2^scale` edges in all, before the options.
    pub edge_factor: u32,
    /// The generator's seed: the same seed gives the same graph.
    pub seed: u64,
    /// Whether edges carry weights in `1..=255`.
    pub weighted: bool,
}

impl Rmat {
    /// Generates the graph, applying `opts` (symmetrize, self-loop and duplicate removal).
    pub fn generate(&self, opts: &GraphOptions) -> Result<Graph, GraphError> {
        let Rmat { scale, edge_factor, seed, weighted } = *self;
        if scale > 31 {
            return Err(GraphError::rmat(format!(
                "scale {scale} is too large: at most 31 (2^31 vertices; ids are 32-bit)"
            )));
        }
        if edge_factor == 0 {
            return Err(GraphError::rmat("the edge factor must be at least 1"));
        }
        let edges = u64::from(edge_factor) << scale;
        if edges > u64::from(u32::MAX) {
            return Err(GraphError::rmat(format!(
                "scale {scale} with edge factor {edge_factor} makes {edges} edges, but at most {} fit: CSR offsets are 32-bit",
                u32::MAX
            )));
        }
        if opts.symmetrize {
            build::check_edge_count(2 * edges)
                .map_err(|e| GraphError::rmat(format!("symmetrized, {}", e.problem())))?;
        }
        let bar = (scale >= BAR_FROM_SCALE && !opts.quiet && std::io::stderr().is_terminal())
            .then(|| edges_bar(scale, edges));

        let blocks = edges.div_ceil(BLOCK) as usize;
        let chunks = blocks.clamp(1, rayon::current_num_threads() * 2);
        let scramble = Scramble::new(seed, scale);
        let (drop_loops, symmetrize) = (opts.remove_self_loops, opts.symmetrize);
        let produce = |chunk: usize, emit: &mut Emit| {
            for block in blocks * chunk / chunks..blocks * (chunk + 1) / chunks {
                let first = block as u64 * BLOCK;
                let count = BLOCK.min(edges - first);
                let mut ends = Xoshiro256::new(seed, 2 * block as u64);
                let mut weights = Xoshiro256::new(seed, 2 * block as u64 + 1);
                for _ in 0..count {
                    let (u, v) = edge(&mut ends, scale);
                    let (u, v) = (scramble.apply(u), scramble.apply(v));
                    let w = if weighted { weight_1_to_255(weights.next()) } else { 0 };
                    if u != v || !drop_loops {
                        emit.push(u, v, w);
                    }
                    if symmetrize && u != v {
                        emit.push(v, u, w);
                    }
                }
                if let Some(bar) = &bar {
                    bar.inc(count);
                }
            }
        };
        let kind = if weighted { Kind::Int } else { Kind::None };
        let sorting = || {
            if let Some(bar) = &bar {
                bar.set_message("building the CSR");
                // Nothing increments the bar from here on: redraw on a timer, or the
                // message would only show once the next frame is due.
                bar.enable_steady_tick(std::time::Duration::from_millis(200));
            }
        };
        let graph = build::assemble_then(1usize << scale, chunks, produce, kind, opts.remove_duplicates, sorting)
            .map_err(|e| GraphError::rmat(e.problem().to_string()));
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        graph
    }
}

/// One R-MAT edge before scrambling: a quadrant per level, two levels per 64-bit draw.
#[inline]
fn edge(rng: &mut Xoshiro256, scale: u32) -> (u32, u32) {
    let (mut u, mut v) = (0u32, 0u32);
    let mut bits = 0u64;
    for level in 0..scale {
        if level % 2 == 0 {
            bits = rng.next();
        }
        let r = if level % 2 == 0 { bits & 0xffff_ffff } else { bits >> 32 };
        // Branch-free (the quadrant is random, so branches would mispredict half the
        // time): the source bit is set in the bottom half (r >= AB), the target bit in the
        // right half, [A, AB) and [ABC, 1).
        let (ge_a, ge_ab, ge_abc) = (u32::from(r >= A), u32::from(r >= AB), u32::from(r >= ABC));
        u = (u << 1) | ge_ab;
        v = (v << 1) | (ge_a ^ ge_ab ^ ge_abc);
    }
    (u, v)
}

/// A seeded permutation of `0..2^scale`, built from steps that are each a bijection on
/// `scale`-bit numbers: multiplying by an odd number modulo `2^scale` (mixes low bits into
/// high ones), reversing the bits (high into low), adding a constant. Graph500's scramble
/// is built the same way. Needs no table, so every thread applies it independently.
struct Scramble {
    scale: u32,
    mul: [u64; 2],
    add: u64,
}

impl Scramble {
    fn new(seed: u64, scale: u32) -> Scramble {
        let mut sm = SplitMix64(seed ^ 0x5CA3_B1E5_0000_0000);
        Scramble { scale, mul: [sm.next() | 1, sm.next() | 1], add: sm.next() }
    }

    #[inline]
    fn apply(&self, x: u32) -> u32 {
        if self.scale == 0 {
            return 0;
        }
        let mask = u64::MAX >> (64 - self.scale);
        let reverse = |x: u64| x.reverse_bits() >> (64 - self.scale);
        let mut x = u64::from(x);
        x = x.wrapping_mul(self.mul[0]) & mask;
        x = reverse(x);
        x = x.wrapping_mul(self.mul[1]) & mask;
        x = reverse(x);
        x = x.wrapping_add(self.add) & mask;
        x as u32
    }
}

/// Edges generated out of `edges`, then a note while the CSR is built.
fn edges_bar(scale: u32, edges: u64) -> ProgressBar {
    // Hidden until styled, so the first frame drawn is complete.
    let bar = ProgressBar::hidden();
    bar.set_length(edges);
    let style = ProgressStyle::with_template("{prefix} [{bar:30}] {human_pos}/{human_len} edges {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    bar.set_style(style);
    bar.set_prefix(format!("R-MAT scale {scale}"));
    bar.set_draw_target(ProgressDrawTarget::stderr());
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scramble_is_a_permutation() {
        for scale in [0, 1, 2, 5, 12] {
            let s = Scramble::new(7, scale);
            let mut seen = vec![false; 1 << scale];
            for x in 0..1u32 << scale {
                let y = s.apply(x) as usize;
                assert!(!seen[y], "scale {scale}: {x} maps to {y} twice");
                seen[y] = true;
            }
        }
        let s = Scramble::new(7, 12);
        assert!((0..16).filter(|&x| s.apply(x) == x).count() < 4, "the scramble moves ids");
    }
}
