//! Connected components as a library call: union-find (Afforest) by default, a label per
//! vertex, the statistics.

use crate::kernels::cc::{self as kernel, Afforest};
use crate::kernels::relax::{self, DeviceGraph, Method, Relaxation};
use crate::Run;
use wsdsl::graph::{Graph, GraphOptions};
use wsdsl::prelude::*;

/// Which connected-components algorithm runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcMethod {
    /// [`CcMethod::UnionFind`] with [`Afforest::default`]: the fastest on every class
    /// measured (H200: 10.4x GAPBS on R-MAT 22, 3.18x on the 2048 x 2048 grid, 4.08x on a
    /// road-like graph of 4 M vertices).
    Auto,
    /// Union-find with sampling (Afforest, the algorithm of GAPBS's `cc`), on the Broker Queue.
    UnionFind(Afforest),
    /// Label propagation: the smallest label spreads through each component, a frontier
    /// round at a time (a round per hop of the longest path: slow on long diameters).
    LabelPropagation,
    /// Label propagation with every lowered label passed on at once, no rounds.
    LabelPropagationDataDriven,
}

/// How [`connected_components_with`] labels.
#[derive(Clone, Copy, Debug)]
pub struct CcOptions {
    /// The algorithm ([`CcMethod::Auto`] by default).
    pub method: CcMethod,
    /// Label propagation: frontier vertices, or edges of one vertex, per task (union-find
    /// takes its grain from its [`Afforest`]).
    pub grain: u32,
}

impl Default for CcOptions {
    fn default() -> Self {
        CcOptions { method: CcMethod::Auto, grain: relax::DEFAULT_GRAIN }
    }
}

/// What a connected-components run found.
#[derive(Debug)]
pub struct Components {
    /// Every vertex labelled with the smallest vertex of its component (so two vertices are
    /// connected exactly when their labels are equal, and the labels are the same whichever
    /// algorithm ran).
    pub label: Vec<u32>,
    /// The algorithm that ran ([`CcMethod::Auto`] resolved).
    pub method: CcMethod,
    /// Edges linked (union-find, which skips most edges of the largest component) or relaxed
    /// (label propagation, rescans included).
    pub edges_scanned: u64,
    /// Whether the graph was directed, and its components are those of the graph with every
    /// edge made two-way (weakly connected components).
    pub symmetrized: bool,
    /// The run's statistics and backend.
    pub run: Run,
}

impl Components {
    /// The number of components (isolated vertices count, one each).
    pub fn count(&self) -> usize {
        self.label.iter().enumerate().filter(|&(v, &l)| v as u32 == l).count()
    }

    /// The number of vertices of the largest component (0 for a graph without vertices).
    pub fn largest(&self) -> usize {
        let mut size = vec![0usize; self.label.len()];
        for &l in &self.label {
            size[l as usize] += 1;
        }
        size.into_iter().max().unwrap_or(0)
    }
}

/// Connected components by union-find with sampling (Afforest). A directed graph's are its
/// weakly connected components: every edge is taken both ways (on the host, a copy of the
/// graph with the reverse edges added, since union-find over out-edges alone would miss the
/// components an edge joins only from its other end).
///
/// ```
/// use wsdsl::graph::{Graph, Weights};
/// use wsdsl::prelude::*;
/// // Vertices 0 - 1 and 2 - 3 - 4, each edge both ways; 5 alone.
/// let g = Graph::from_csr(vec![0, 1, 2, 3, 5, 6, 6], vec![1, 0, 3, 2, 4, 3], Weights::None)?;
/// let found = wsdsl_graph::connected_components(&Runtime::new(Backend::Cpu), &g)?;
/// assert_eq!(found.label, vec![0, 0, 2, 2, 2, 5]);
/// assert_eq!((found.count(), found.largest()), (3, 3));
/// # Ok::<(), wsdsl::Error>(())
/// ```
pub fn connected_components(rt: &Runtime, g: &Graph) -> Result<Components, wsdsl::Error> {
    connected_components_with(rt, g, &CcOptions::default())
}

/// Connected components as `opts` say. Errors: a graph whose arrays are not CSR
/// ([`Graph::validate`]), a zero grain or sample count, and the run's own.
pub fn connected_components_with(rt: &Runtime, g: &Graph, opts: &CcOptions) -> Result<Components, wsdsl::Error> {
    g.validate()?;
    let symmetrized = !g.is_symmetric();
    let both_ways;
    let g = if symmetrized {
        both_ways = two_way(g)?;
        &both_ways
    } else {
        g
    };
    let method = match opts.method {
        CcMethod::Auto => CcMethod::UnionFind(Afforest::default()),
        chosen => chosen,
    };
    let (label, edges_scanned, run) = match method {
        CcMethod::UnionFind(how) => {
            // Undirected by now: `DeviceGraph::new` would check that again, a transpose more.
            let device = kernel::DeviceGraph { offsets: ReadOnly::from_vec(g.offsets.clone()), targets: ReadOnly::from_vec(g.targets.clone()) };
            let (found, out) = kernel::afforest(rt, &device, how)?;
            (found.labels, found.links, out.into())
        }
        _ => {
            // Every vertex starts as its own label and in the first frontier; an edge adds 0.
            let everyone: Vec<u32> = (0..g.vertices() as u32).collect();
            let how = Relaxation { grain: opts.grain, step: 0 };
            let driven = Method::driven_or_rounds(method == CcMethod::LabelPropagationDataDriven);
            let (found, run) = relax::solve(rt, &DeviceGraph::new(g, None), everyone.clone(), &everyone, how, driven)?;
            (found.value, found.edges, run)
        }
    };
    Ok(Components { label, method, edges_scanned, symmetrized, run })
}

/// `g` with the reverse of every edge, once per pair (weights do not matter to components).
fn two_way(g: &Graph) -> Result<Graph, wsdsl::Error> {
    let edges: Vec<(u32, u32, u32)> = (0..g.vertices() as u32).flat_map(|u| g.neighbours(u).iter().map(move |&v| (u, v, 0))).collect();
    let opts = GraphOptions { symmetrize: true, remove_self_loops: false, remove_duplicates: true, quiet: true };
    Ok(Graph::from_edges(g.vertices(), edges, false, &opts)?)
}
