//! Breadth-first search as a library call: the variant chosen for the graph, the depths, a
//! parent per vertex, the statistics.

use crate::kernels::bfs::{self as kernel, Direction};
use crate::kernels::relax::{self, DeviceGraph, Method, Relaxation};
use crate::Run;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};
use wsdsl::graph::Graph;
use wsdsl::prelude::*;

/// The depth (and parent) of a vertex that no path from the source reaches.
pub const UNREACHED: u32 = u32::MAX;

/// Which breadth-first search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BfsMethod {
    /// Chosen from the graph's density: [`BfsMethod::DirectionOptimizing`] with
    /// [`Direction::default`] at an average degree of [`DENSE_DEGREE`] (12) or more, else
    /// [`BfsMethod::Bands`] with `delta` 1. A dense graph (R-MAT, a uniform random graph at
    /// edge factor 16) has a short diameter, where bottom-up steps skip most edges (H200,
    /// R-MAT 22: 8.00x GAPBS); a sparse one (a grid, a road network) has thousands of levels,
    /// a round each for the direction-optimizing search (0.33x GAPBS on the 2048 x 2048 grid)
    /// but none on the bands (4.03x GAPBS there). BENCHMARKS.md has both on every class. A
    /// dense graph of long diameter (a fine 3-D mesh) is guessed wrong: choose the bands.
    Auto,
    /// Beamer's direction-optimizing search on the Broker Queue: top-down steps from the
    /// frontier, bottom-up steps from the unvisited vertices when the frontier is large.
    DirectionOptimizing(Direction),
    /// On the priority scheduler: a vertex first reached at depth d is expanded in band
    /// d / `delta`, so levels run in order without a barrier between them (delta-stepping
    /// with unit weights; within a band a depth may be lowered again, a stale scan).
    Bands {
        /// Levels per band (at least 1).
        delta: u32,
    },
    /// Frontier rounds, one per level, each a continuation: every edge of a reached vertex
    /// is scanned exactly once.
    LevelSynchronous,
    /// Every lowered depth is passed on at once, on the Broker Queue (whose FIFO order keeps
    /// the rescans few), with no rounds.
    DataDriven,
}

/// The average degree from which [`BfsMethod::Auto`] picks the direction-optimizing search.
pub use kernel::DENSE_DEGREE;

/// How [`bfs_with`] searches.
#[derive(Clone, Copy, Debug)]
pub struct BfsOptions {
    /// The variant ([`BfsMethod::Auto`] by default).
    pub method: BfsMethod,
    /// Edges per task for the bands, the level-synchronous and the data-driven searches
    /// (an edge list longer than this is split across tasks). The direction-optimizing
    /// search takes its own grains from its [`Direction`].
    pub grain: u32,
    /// Whether to find a parent for every vertex ([`Bfs::parent`]): one more pass over the
    /// edges on the host, after the run.
    pub parents: bool,
}

impl Default for BfsOptions {
    fn default() -> Self {
        BfsOptions { method: BfsMethod::Auto, grain: kernel::DEFAULT_GRAIN, parents: true }
    }
}

/// What a breadth-first search found.
#[derive(Debug)]
pub struct Bfs {
    /// The hop distance of every vertex from the source; [`UNREACHED`] where there is no path.
    pub depth: Vec<u32>,
    /// A parent of every vertex in a breadth-first tree: for a vertex at depth d > 0, its
    /// in-neighbour of depth d - 1 with the smallest id (the same whichever variant ran and
    /// however its tasks were ordered); the source's is the source; [`UNREACHED`] for a vertex
    /// not reached. Empty when [`BfsOptions::parents`] is off.
    pub parent: Vec<u32>,
    /// The variant that ran ([`BfsMethod::Auto`] resolved).
    pub method: BfsMethod,
    /// Edges looked at (rescans included).
    pub edges_scanned: u64,
    /// Tasks that found their vertex reached by a shorter path since, and stopped (the bands
    /// and the data-driven search).
    pub stale: u64,
    /// Levels expanded (the direction-optimizing and level-synchronous searches; else 0).
    pub levels: u32,
    /// Bottom-up steps among those levels (direction-optimizing).
    pub bottom_up: u32,
    /// The run's statistics and backend.
    pub run: Run,
}

impl Bfs {
    /// The vertices reached, the source included.
    pub fn reached(&self) -> usize {
        self.depth.iter().filter(|&&d| d != UNREACHED).count()
    }

    /// The largest depth of a reached vertex (the source's eccentricity).
    pub fn max_depth(&self) -> u32 {
        self.depth.iter().copied().filter(|&d| d != UNREACHED).max().unwrap_or(0)
    }
}

/// Breadth-first search from `source` with the variant chosen for the graph
/// ([`BfsOptions::default`]).
///
/// ```
/// use wsdsl::graph::Grid;
/// use wsdsl::prelude::*;
/// let g = Grid { rows: 8, columns: 8, delete: 0.0, seed: 1, weighted: false }.generate()?;
/// let found = wsdsl_graph::bfs(&Runtime::new(Backend::Cpu), &g, 0)?;
/// assert_eq!(found.depth[63], 14); // the far corner: 7 rows and 7 columns away
/// assert_eq!(found.method, wsdsl_graph::BfsMethod::Bands { delta: 1 }); // degree 3.5: sparse
/// assert_eq!(found.depth[found.parent[63] as usize], 13);
/// # Ok::<(), wsdsl::Error>(())
/// ```
pub fn bfs(rt: &Runtime, g: &Graph, source: u32) -> Result<Bfs, wsdsl::Error> {
    bfs_with(rt, g, source, &BfsOptions::default())
}

/// Breadth-first search from `source` as `opts` say. Errors: a graph whose arrays are not
/// CSR ([`Graph::validate`]), a source outside the graph, a zero grain or beta; and the
/// run's own ([`wsdsl::Error`]).
pub fn bfs_with(rt: &Runtime, g: &Graph, source: u32, opts: &BfsOptions) -> Result<Bfs, wsdsl::Error> {
    g.validate()?;
    if source as usize >= g.vertices() {
        return Err(wsdsl::Error::InvalidConfig(format!("the source vertex {source} is not in the graph (vertices 0..{})", g.vertices())));
    }
    let method = match opts.method {
        BfsMethod::Auto if kernel::prefers_direction(g) => BfsMethod::DirectionOptimizing(Direction::default()),
        BfsMethod::Auto => BfsMethod::Bands { delta: 1 },
        chosen => chosen,
    };
    let (found, run) = match method {
        BfsMethod::DirectionOptimizing(how) => {
            let (found, out) = kernel::search_direction(rt, &kernel::device_graph(g), source, how)?;
            (found, out.into())
        }
        relaxed => {
            // These read the out-edges alone: no transpose to build.
            let method = match relaxed {
                BfsMethod::Bands { delta } => Method::Ordered { delta },
                BfsMethod::LevelSynchronous => Method::Rounds,
                _ => Method::DataDriven,
            };
            let how = Relaxation { grain: opts.grain, step: 1 };
            let initial = relax::from_source(g.vertices(), source);
            let (found, run) = relax::solve(rt, &DeviceGraph::new(g, None), initial, &[source], how, method)?;
            (kernel::Searched::from(found), run)
        }
    };
    let parent = if opts.parents { parents(g, &found.depth, source) } else { Vec::new() };
    Ok(Bfs {
        depth: found.depth,
        parent,
        method,
        edges_scanned: found.edges_scanned,
        stale: found.stale,
        levels: found.levels,
        bottom_up: found.bottom_up,
        run,
    })
}

/// Each reached vertex's in-neighbour one level nearer the source with the smallest id (the
/// source its own), from the depths: a pass over the out-edges of the reached vertices on
/// every core, each edge that goes one level deeper offering its source to its target.
fn parents(g: &Graph, depth: &[u32], source: u32) -> Vec<u32> {
    let parent: Vec<AtomicU32> = (0..g.vertices()).map(|_| AtomicU32::new(UNREACHED)).collect();
    (0..g.vertices() as u32).into_par_iter().for_each(|u| {
        let d = depth[u as usize];
        if d == UNREACHED {
            return;
        }
        for &v in g.neighbours(u) {
            if depth[v as usize] == d + 1 {
                parent[v as usize].fetch_min(u, Ordering::Relaxed);
            }
        }
    });
    parent[source as usize].store(source, Ordering::Relaxed);
    parent.into_iter().map(AtomicU32::into_inner).collect()
}
