//! PageRank as a library call: pulled iterations by default, a rank per vertex, the statistics.

use crate::kernels::pagerank as kernel;
use crate::Run;
use wsdsl::graph::Graph;
use wsdsl::prelude::*;

/// The damping factor d of every PageRank here: a rank is (1 - d) / n plus d times the shares
/// of its in-neighbours (GAPBS's 0.85).
pub use kernel::DAMPING;

/// Which PageRank runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PageRankMethod {
    /// [`PageRankMethod::Pull`] with [`kernel::PULL_GRAIN`]: the fastest (H200, R-MAT 22,
    /// 8 iterations: 11.7x GAPBS) and the smallest (memory per vertex, not per vertex and
    /// iteration), at 32-bit precision for the shares.
    Auto,
    /// Synchronous iterations as tasks, each vertex summing its in-neighbours' shares over
    /// the transposed graph with no atomics. The shares are 32-bit floats (the sums and ranks
    /// 64-bit): the ranks agree with float64 power iteration to
    /// [`kernel::pull_tolerance`] (relative; 1e-6 for 8 iterations).
    Pull {
        /// In-edges per task; a vertex with more is summed in parts.
        grain: u32,
    },
    /// The Broker Queue paper's formulation: a vertex passes its rank on as soon as it is
    /// final, no iteration waiting for another; float64 throughout (agrees with power
    /// iteration to 1e-9). Its memory grows with the iterations: a rank slot per vertex and
    /// iteration.
    Push,
    /// To a tolerance instead of a number of iterations: each vertex holds the rank it has
    /// not passed on, and is queued when that reaches `tolerance` times its out-degree. The
    /// ranks end within `tolerance * (edges + n) / (1 - d)` in total of the fixed point.
    /// [`PageRankOptions::iterations`] does not apply.
    ToTolerance {
        /// At least [`kernel::smallest_tolerance`] of the graph's vertices.
        tolerance: f64,
    },
}

/// How [`pagerank`] ranks.
#[derive(Clone, Copy, Debug)]
pub struct PageRankOptions {
    /// Iterations from 1/n each (8 by default, as in the Broker Queue paper and the
    /// benchmarks).
    pub iterations: u32,
    /// The variant ([`PageRankMethod::Auto`] by default).
    pub method: PageRankMethod,
}

impl Default for PageRankOptions {
    fn default() -> Self {
        PageRankOptions { iterations: 8, method: PageRankMethod::Auto }
    }
}

/// What a PageRank run found.
#[derive(Debug)]
pub struct PageRank {
    /// The rank of every vertex: r(u) = (1 - d) / n + d * the sum over edges w -> u of
    /// r(w) / outdegree(w). A vertex without out-edges passes its rank to nobody (as in the
    /// Broker Queue paper's experiment), so the ranks need not add up to 1.
    pub rank: Vec<f64>,
    /// The variant that ran ([`PageRankMethod::Auto`] resolved).
    pub method: PageRankMethod,
    /// Edges summed or pushed along.
    pub edges_scanned: u64,
    /// The run's statistics and backend.
    pub run: Run,
}

/// PageRank of `g` as `opts` say ([`PageRankOptions::default`]: 8 pulled iterations).
///
/// ```
/// use wsdsl::graph::{Graph, Weights};
/// use wsdsl::prelude::*;
/// use wsdsl_graph::{PageRankMethod, PageRankOptions};
/// // A directed cycle 0 -> 1 -> 2 -> 0: every vertex ranks the same, 1/3.
/// let g = Graph::from_csr(vec![0, 1, 2, 3], vec![1, 2, 0], Weights::None)?;
/// let opts = PageRankOptions { method: PageRankMethod::Push, ..PageRankOptions::default() };
/// let found = wsdsl_graph::pagerank(&Runtime::new(Backend::Cpu), &g, &opts)?;
/// assert!(found.rank.iter().all(|r| (r - 1.0 / 3.0).abs() < 1e-12), "{:?}", found.rank);
/// # Ok::<(), wsdsl::Error>(())
/// ```
///
/// Errors: a graph whose arrays are not CSR ([`Graph::validate`]) or has no vertex; no
/// iteration, a zero grain, a tolerance that float64 ranks cannot resolve; more rank slots
/// than [`PageRankMethod::Push`] can index; and the run's own.
pub fn pagerank(rt: &Runtime, g: &Graph, opts: &PageRankOptions) -> Result<PageRank, wsdsl::Error> {
    g.validate()?;
    if g.vertices() == 0 {
        return Err(wsdsl::Error::InvalidConfig("PageRank of a graph without vertices: there is nothing to rank".into()));
    }
    let method = match opts.method {
        PageRankMethod::Auto => PageRankMethod::Pull { grain: kernel::PULL_GRAIN },
        chosen => chosen,
    };
    let (rank, edges_scanned, run) = match method {
        PageRankMethod::Pull { grain } => {
            let (rank, edges, out) = kernel::pull(rt, &kernel::PullGraph::new(g), opts.iterations, grain)?;
            (rank, edges, out.into())
        }
        PageRankMethod::Push => {
            let (rank, edges, out) = kernel::iterate(rt, &kernel::DeviceGraph::new(g), opts.iterations)?;
            (rank, edges, out.into())
        }
        PageRankMethod::ToTolerance { tolerance } => {
            let (rank, edges, out) = kernel::converge(rt, &kernel::DeviceGraph::new(g), tolerance)?;
            (rank, edges, out.into())
        }
        PageRankMethod::Auto => unreachable!("Auto is resolved to Pull above"),
    };
    Ok(PageRank { rank, method, edges_scanned, run })
}
