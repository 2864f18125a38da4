//! Breadth-first search, three ways.
//!
//! Direction-optimizing (`search_direction`, the default; `direction.rs`): Beamer's top-down
//! and bottom-up steps, a level's work proportional to its frontier (or, bottom-up, to the
//! vertices), no continuation per level.
//!
//! The other two are the relaxation engine of [`relax`](crate::kernels::relax) with unit steps (a
//! vertex's value is its hop count; an edge adds 1), through `search`.
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

pub use super::relax;

pub mod direction;

pub use crate::run::Run;
pub use relax::{traversed_edges, DeviceGraph, Relaxation, Relaxed};
use wsdsl::graph::Graph;
use wsdsl::prelude::*;

/// The depth of a vertex not reached.
pub const UNREACHED: u32 = u32::MAX;

/// Edges per task by default: long enough to amortise a task, short enough that a hub's
/// edge list spreads over many workers.
pub const DEFAULT_GRAIN: u32 = 64;

/// What a search found.
pub struct Searched {
    /// The hop distance of every vertex from the source ([`UNREACHED`] where there is no path).
    pub depth: Vec<u32>,
    /// Edges looked at, rescans included.
    pub edges_scanned: u64,
    /// Tasks that found their vertex lowered since they were made, and stopped (data-driven
    /// and banded searches).
    pub stale: u64,
    /// Levels expanded (the level-synchronous and direction-optimizing searches), else 0.
    pub levels: u32,
    /// Bottom-up steps among them (direction-optimizing).
    pub bottom_up: u32,
}

impl From<Relaxed> for Searched {
    fn from(r: Relaxed) -> Self {
        Searched { depth: r.value, edges_scanned: r.edges, stale: r.stale, levels: r.rounds, bottom_up: 0 }
    }
}

/// A graph's out-edges and in-edges as read-only device arrays (uploaded once, reused by
/// every search). An undirected graph's in-edges are its out-edges: the arrays are shared.
pub struct BfsGraph {
    /// The out-edges.
    pub out: DeviceGraph,
    /// Row offsets of the in-edges (the transpose).
    pub in_offsets: ReadOnly<u32>,
    /// The source of every in-edge, row by row.
    pub in_sources: ReadOnly<u32>,
}

/// The arrays every search of `g` reads.
pub fn device_graph(g: &Graph) -> BfsGraph {
    let out = DeviceGraph::new(g, None);
    let reversed = g.transpose();
    let (in_offsets, in_sources) = if reversed.offsets == g.offsets && reversed.targets == g.targets {
        (out.offsets.clone(), out.targets.clone())
    } else {
        (ReadOnly::from_vec(reversed.offsets), ReadOnly::from_vec(reversed.targets))
    };
    BfsGraph { out, in_offsets, in_sources }
}

/// Hop distances from `source` (`UNREACHED` where there is no path): data-driven, or level
/// by level.
pub fn search(rt: &Runtime, g: &BfsGraph, source: u32, grain: u32, data_driven: bool) -> Result<(Searched, Run), wsdsl::Error> {
    let initial = start(&g.out, source)?;
    let (found, ran) = relax::solve(rt, &g.out, initial, &[source], Relaxation { grain, step: 1 }, relax::Method::driven_or_rounds(data_driven))?;
    Ok((found.into(), ran))
}

/// Hop distances from `source` on the priority scheduler: a vertex first reached at depth d
/// is expanded in band d / `delta`, so the search runs level by level (a band of `delta`
/// levels at a time) without a kernel or a barrier per level, as delta-stepping SSSP with unit
/// weights. Depths within a band may be lowered again, each a stale scan.
pub fn search_ordered(rt: &Runtime, g: &BfsGraph, source: u32, grain: u32, delta: u32) -> Result<(Searched, Run), wsdsl::Error> {
    let initial = start(&g.out, source)?;
    let (found, ran) = relax::solve(rt, &g.out, initial, &[source], Relaxation { grain, step: 1 }, relax::Method::Ordered { delta })?;
    Ok((found.into(), ran))
}

/// The grains and thresholds of a direction-optimizing search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Direction {
    /// Frontier vertices per top-down task: 1 keeps a long-diameter graph's small levels
    /// spread over many threads (a level's latency is one vertex's, not a grain's).
    pub frontier_grain: u32,
    /// Vertices per bottom-up task (most are visited already and cost one read).
    pub vertex_grain: u32,
    /// Edges per task: a longer edge list (a hub's) is split across tasks.
    pub edge_grain: u32,
    /// Bottom-up when the frontier's edges exceed the unexplored edges / `alpha`; 0: never.
    pub alpha: u32,
    /// Top-down again once the frontier shrinks below vertices / `beta`.
    pub beta: u32,
}

impl Default for Direction {
    /// GAPBS's alpha (15), and a beta twice GAPBS's (36, not 18): a bottom-up step costs a
    /// GPU less than a CPU, so it pays to stay bottom-up one level longer. On R-MAT 22 (H200,
    /// three runs each) that is one more bottom-up level of eight, 4% fewer edges
    /// scanned and a 2.93-ms kernel against 3.07-3.10 with beta 18; beta 9 ran 3.07-3.10.
    fn default() -> Self {
        Direction { frontier_grain: 1, vertex_grain: 64, edge_grain: DEFAULT_GRAIN, alpha: 15, beta: 36 }
    }
}

/// The average degree from which [`prefers_direction`] picks the direction-optimizing search.
pub const DENSE_DEGREE: f64 = 12.0;

/// Edges per vertex.
pub fn average_degree(g: &Graph) -> f64 {
    g.edges() as f64 / g.vertices().max(1) as f64
}

/// Whether the direction-optimizing search is the better default for `g`, guessed from its
/// density: a graph of average degree [`DENSE_DEGREE`] or more (R-MAT and uniform random
/// graphs at edge factor 16: degrees 16-32) has a short diameter, so a round per level is
/// cheap and bottom-up steps skip most edges; a sparser one (grids: 4, road networks: 2-3,
/// the road-like geometric graphs: 8) may have thousands of levels, where the bands, with
/// no round per level, win (H100: R-MAT 22 3.2 ms against 5.2 on the bands; BENCHMARKS.md
/// has both on every class). A dense graph of long diameter (a fine 3-D mesh) guesses wrong:
/// `--ordered` overrides.
pub fn prefers_direction(g: &Graph) -> bool {
    average_degree(g) >= DENSE_DEGREE
}

/// Hop distances from `source` by the direction-optimizing search (`direction.rs`).
pub fn search_direction(rt: &Runtime, g: &BfsGraph, source: u32, how: Direction) -> Result<(Searched, Output<direction::direction::Kernel>), wsdsl::Error> {
    let (params, buffers, root) = direction_inputs(g, source, how)?;
    let out = rt.run_with::<direction::direction::Kernel>(params, &buffers, [root])?;
    let c = &out.counters;
    let found = Searched { depth: buffers.depth.into_vec(), edges_scanned: c.edges.get(), stale: 0, levels: c.levels.get(), bottom_up: c.bottom_up.get() };
    Ok((found, out))
}

/// What [`search_direction`] hands the runtime: the parameters (the source among them: level
/// 0's task queues it), the buffers and the root task.
pub fn direction_inputs(g: &BfsGraph, source: u32, how: Direction) -> Result<(direction::direction::Params, direction::direction::Graph, direction::direction::Level), wsdsl::Error> {
    use direction::direction as k;
    // Every depth unreached: the first level's task sets the source's (`direction.rs`).
    let depth = Buffer::filled(vertices_with(&g.out, source)?, UNREACHED);
    if how.frontier_grain == 0 || how.vertex_grain == 0 || how.edge_grain == 0 {
        return Err(wsdsl::Error::InvalidConfig("every grain (frontier vertices, vertices, edges per task) must be at least 1".into()));
    }
    if how.beta == 0 {
        return Err(wsdsl::Error::InvalidConfig("beta must be at least 1 (top-down again below vertices / beta)".into()));
    }
    let offsets = g.out.offsets.as_slice();
    let mut tally = vec![0u32; 6];
    tally[k::SIZE] = 1;
    tally[k::TAIL] = 1;
    let mut edge_tally = vec![0u64; 3];
    edge_tally[k::SCOUT] = (offsets[source as usize + 1] - offsets[source as usize]) as u64;
    edge_tally[k::UNEXPLORED] = *offsets.last().unwrap_or(&0) as u64;
    // Working memory only: the host never reads it, so it is neither uploaded nor copied back.
    let queue = Buffer::scratch(depth.len());
    let buffers = k::Graph {
        offsets: g.out.offsets.clone(),
        targets: g.out.targets.clone(),
        in_offsets: g.in_offsets.clone(),
        in_sources: g.in_sources.clone(),
        depth,
        queue,
        tally: Buffer::from_vec(tally),
        edge_tally: Buffer::from_vec(edge_tally),
    };
    let params = k::Params { frontier_grain: how.frontier_grain, vertex_grain: how.vertex_grain, edge_grain: how.edge_grain, alpha: how.alpha, beta: how.beta, source };
    Ok((params, buffers, k::Level { r: 0, last: k::TOP_DOWN, awake: 0 }))
}

/// Every depth unreached but the source's.
fn start(g: &DeviceGraph, source: u32) -> Result<Buffer<u32>, wsdsl::Error> {
    Ok(relax::from_source(vertices_with(g, source)?, source))
}

/// The vertices of `g`, if `source` is one of them.
fn vertices_with(g: &DeviceGraph, source: u32) -> Result<usize, wsdsl::Error> {
    let vertices = g.offsets.len() - 1;
    if source as usize >= vertices {
        return Err(wsdsl::Error::InvalidConfig(format!("the source vertex {source} is not in the graph (vertices 0..{vertices})")));
    }
    Ok(vertices)
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
    check_against(depth, &reference(g, source))
}

/// Compares with depths computed before (`reference`): `Err` names the first that differ.
pub fn check_against(depth: &[u32], want: &[u32]) -> Result<(), String> {
    relax::compare(depth, want, "depths")
}
