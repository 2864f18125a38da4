//! rayon baselines of the graph rows, written the way a Rust programmer would on 16 cores:
//! level-synchronous BFS, frontier Bellman-Ford with atomic minima, and pull-style power
//! iteration over the transposed graph.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use wsdsl::graph::Graph;

/// Level-synchronous BFS with rayon: each level's frontier is a `Vec`, expanded with a
/// parallel iterator; a vertex is claimed for the next level by a compare-and-swap on its
/// depth (so it joins the next frontier once), and rayon gathers each thread's claims into
/// the next frontier. Returns the hop distance of every vertex from `source` (`u32::MAX`
/// where there is no path), as the GPU programs' depth arrays hold.
pub fn bfs(g: &Graph, source: u32) -> Vec<u32> {
    const UNREACHED: u32 = u32::MAX;
    let depth: Vec<AtomicU32> = (0..g.vertices()).into_par_iter().map(|_| AtomicU32::new(UNREACHED)).collect();
    depth[source as usize].store(0, Relaxed);
    let mut frontier = vec![source];
    let mut d = 0;
    while !frontier.is_empty() {
        d += 1;
        frontier = frontier
            .par_iter()
            .flat_map_iter(|&v| {
                g.neighbours(v).iter().copied().filter(|&u| {
                    let slot = &depth[u as usize];
                    slot.load(Relaxed) == UNREACHED && slot.compare_exchange(UNREACHED, d, Relaxed, Relaxed).is_ok()
                })
            })
            .collect();
    }
    depth.into_iter().map(AtomicU32::into_inner).collect()
}

/// Distances from `source` (u32::MAX where unreachable): rounds over the vertices whose
/// distance dropped, each relaxing its out-edges with `fetch_min`.
pub fn sssp(g: &Graph, weights: &[u32], source: u32) -> Vec<u32> {
    let n = g.vertices();
    let dist: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(u32::MAX)).collect();
    let queued: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
    dist[source as usize].store(0, Relaxed);
    let mut frontier = vec![source];
    let mut round = 0u32;
    while !frontier.is_empty() {
        round += 1;
        frontier = frontier
            .par_iter()
            .fold(Vec::new, |mut next, &v| {
                let base = dist[v as usize].load(Relaxed);
                let start = g.offsets[v as usize] as usize;
                for (k, &u) in g.neighbours(v).iter().enumerate() {
                    let offer = base + weights[start + k];
                    if dist[u as usize].fetch_min(offer, Relaxed) > offer && queued[u as usize].fetch_max(round, Relaxed) < round {
                        next.push(u);
                    }
                }
                next
            })
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            });
    }
    dist.into_iter().map(AtomicU32::into_inner).collect()
}

/// `iterations` steps of r(u) = (1 - d)/n + d * sum over w -> u of r(w)/outdegree(w) from
/// 1/n, each vertex pulling from its in-neighbours (`transposed` is the graph reversed).
pub fn pagerank(g: &Graph, transposed: &Graph, iterations: u32, damping: f64) -> Vec<f64> {
    let n = g.vertices();
    let teleport = (1.0 - damping) / n as f64;
    let mut rank = vec![1.0 / n as f64; n];
    for _ in 0..iterations {
        let share: Vec<f64> = rank
            .par_iter()
            .enumerate()
            .map(|(v, r)| {
                let d = g.degree(v as u32);
                if d > 0 {
                    damping * r / d as f64
                } else {
                    0.0
                }
            })
            .collect();
        rank = (0..n as u32)
            .into_par_iter()
            .map(|u| teleport + transposed.neighbours(u).iter().map(|&w| share[w as usize]).sum::<f64>())
            .collect();
    }
    rank
}
