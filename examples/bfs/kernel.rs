//! Breadth-first search: the relaxation engine of `examples/common/relax.rs` with unit steps
//! (a vertex's value is its hop count; an edge adds 1), two ways.
//!
//! Data-driven (`search(.., true)`): a task offers its vertex's depth + 1 along part of the vertex's
//! edge list; a neighbour whose depth that lowers (`atomic_min`) gets a task at once, and a
//! task whose vertex was meanwhile reached by a shorter path stops. Whatever order the
//! scheduler runs tasks in, each vertex ends at its hop distance; but a depth-first order
//! reaches vertices by long paths first and scans them again when a shorter one turns up,
//! so it runs on the Broker Queue, whose FIFO order stays close to breadth-first (on the
//! H100 it rescans 1% of the edges where the deques rescan 50%: `BENCHMARKS.md`).
//!
//! Level-synchronous (`search(.., false)`): the engine's rounds, one per depth, a continuation
//! expanding each frontier; every edge of a reached vertex is scanned exactly once.
//!
//! In both, an edge list longer than `grain` is split into up to 16 tasks at a time, so a hub
//! never serialises one thread.

#[allow(dead_code)]
#[path = "../common/relax.rs"]
pub mod relax;

pub use relax::{traversed_edges, DeviceGraph, Ran, Relaxation, Relaxed};
use wsdsl::graph::Graph;
use wsdsl::prelude::*;

/// The depth of a vertex not reached.
pub const UNREACHED: u32 = u32::MAX;

/// Edges per task by default: long enough to amortise a task, short enough that a hub's
/// edge list spreads over many workers.
pub const DEFAULT_GRAIN: u32 = 64;

/// What a search found.
pub struct Searched {
    pub depth: Vec<u32>,
    pub edges_scanned: u64,
    pub stale: u64,
}

impl From<Relaxed> for Searched {
    fn from(r: Relaxed) -> Self {
        Searched { depth: r.value, edges_scanned: r.edges, stale: r.stale }
    }
}

/// The graph's CSR arrays as read-only device arrays (uploaded once, reused by every search).
pub fn device_graph(g: &Graph) -> DeviceGraph {
    DeviceGraph::new(g, None)
}

/// Hop distances from `source` (`UNREACHED` where there is no path): data-driven, or level
/// by level.
pub fn search(rt: &Runtime, g: &DeviceGraph, source: u32, grain: u32, data_driven: bool) -> Result<(Searched, Ran), wsdsl::Error> {
    let initial = start(g, source)?;
    let (found, ran) = relax::solve(rt, g, initial, &[source], Relaxation { grain, step: 1 }, relax::Method::driven_or_rounds(data_driven))?;
    Ok((found.into(), ran))
}

/// Every depth unreached but the source's.
fn start(g: &DeviceGraph, source: u32) -> Result<Vec<u32>, wsdsl::Error> {
    let vertices = g.offsets.len() - 1;
    if source as usize >= vertices {
        return Err(wsdsl::Error::InvalidConfig(format!("the source vertex {source} is not in the graph (vertices 0..{vertices})")));
    }
    let mut depth = vec![UNREACHED; vertices];
    depth[source as usize] = 0;
    Ok(depth)
}

/// Hop distances by a plain sequential BFS: the independent reference.
pub fn reference(g: &Graph, source: u32) -> Vec<u32> {
    let mut depth = vec![UNREACHED; g.vertices()];
    let mut frontier = vec![source];
    depth[source as usize] = 0;
    let mut d = 0;
    while !frontier.is_empty() {
        d += 1;
        let mut next = Vec::new();
        for &v in &frontier {
            for &u in g.neighbours(v) {
                if depth[u as usize] == UNREACHED {
                    depth[u as usize] = d;
                    next.push(u);
                }
            }
        }
        frontier = next;
    }
    depth
}

/// Vertices reached and the largest depth.
pub fn reach(depth: &[u32]) -> (usize, u32) {
    let reached: Vec<u32> = depth.iter().copied().filter(|&d| d != UNREACHED).collect();
    (reached.len(), reached.iter().copied().max().unwrap_or(0))
}

/// Compares with a sequential BFS: `Err` names the first vertices that differ.
pub fn check(g: &Graph, source: u32, depth: &[u32]) -> Result<(), String> {
    relax::compare(depth, &reference(g, source), "depths")
}
