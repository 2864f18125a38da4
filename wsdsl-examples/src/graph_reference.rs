//! Plain sequential algorithms the graph examples are checked against, and the weights a
//! graph without any gets. Used by the `sssp` and `cc` examples, the tests, `bench` and
//! `gpu-check`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use wsdsl::graph::Graph;

/// The distance of a vertex with no path from the source.
pub const UNREACHED: u32 = u32::MAX;

/// Weights 1..=255 from a hash of each edge's ends: the same for the same graph, whatever
/// order its file lists the edges in.
pub fn hashed_weights(g: &Graph) -> Vec<u32> {
    let mut w = Vec::with_capacity(g.edges());
    for v in 0..g.vertices() as u32 {
        for &u in g.neighbours(v) {
            let mut x = (v as u64) << 32 | u as u64;
            x = (x ^ (x >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
            x = (x ^ (x >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
            w.push(1 + ((x ^ (x >> 33)) % 255) as u32);
        }
    }
    w
}

/// Distances by Dijkstra's algorithm with a binary heap: the independent reference.
pub fn dijkstra(g: &Graph, weights: &[u32], source: u32) -> Vec<u32> {
    let mut dist = vec![UNREACHED; g.vertices()];
    let mut heap = BinaryHeap::new();
    dist[source as usize] = 0;
    heap.push(Reverse((0u32, source)));
    while let Some(Reverse((d, v))) = heap.pop() {
        if d > dist[v as usize] {
            continue;
        }
        let start = g.offsets[v as usize] as usize;
        for (k, &u) in g.neighbours(v).iter().enumerate() {
            let nd = d + weights[start + k];
            if nd < dist[u as usize] {
                dist[u as usize] = nd;
                heap.push(Reverse((nd, u)));
            }
        }
    }
    dist
}

/// Components and the size of the largest, from labels.
pub fn component_summary(labels: &[u32]) -> (usize, usize) {
    let mut size = vec![0usize; labels.len()];
    for &l in labels {
        size[l as usize] += 1;
    }
    (size.iter().filter(|&&s| s > 0).count(), size.iter().copied().max().unwrap_or(0))
}

/// Each vertex labelled with the smallest vertex of its component: a BFS from every vertex
/// not yet labelled, in increasing order (so the first vertex of a component is its smallest).
pub fn components(g: &Graph) -> Vec<u32> {
    let mut label = vec![u32::MAX; g.vertices()];
    for s in 0..g.vertices() as u32 {
        if label[s as usize] != u32::MAX {
            continue;
        }
        label[s as usize] = s;
        let mut stack = vec![s];
        while let Some(v) = stack.pop() {
            for &u in g.neighbours(v) {
                if label[u as usize] == u32::MAX {
                    label[u as usize] = s;
                    stack.push(u);
                }
            }
        }
    }
    label
}
