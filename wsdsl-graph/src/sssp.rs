//! Single-source shortest paths as a library call: delta-stepping by default, the distances,
//! the statistics; and a proof of the distances where 32 bits might not hold them.

use crate::kernels::relax::{self, DeviceGraph, Method, Relaxation};
use crate::Run;
use rayon::prelude::*;
use wsdsl::graph::Graph;
use wsdsl::prelude::*;

/// Which shortest-path search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsspMethod {
    /// Delta-stepping with a band width from the weights: the mean weight times 8 over the
    /// mean degree, at least 1 ([`relax::default_delta`]; H200: 20.8x GAPBS on R-MAT 22,
    /// 2.65x on the 2048 x 2048 grid, 7.80x on a road-like graph of 4 M vertices).
    Auto,
    /// Delta-stepping (Meyer and Sanders) on the priority scheduler: an offer of distance d
    /// waits in band d / `delta`, so vertices settle roughly in distance order.
    DeltaStepping {
        /// The width of a band in distance (at least 1).
        delta: u32,
    },
    /// Bellman-Ford driven by the vertices whose distance changed, a frontier round at a time.
    Rounds,
    /// Every lowered distance passed on at once, on the Broker Queue, with no rounds or bands.
    DataDriven,
}

/// How [`sssp_with`] searches.
#[derive(Clone, Copy, Debug)]
pub struct SsspOptions {
    /// The variant ([`SsspMethod::Auto`] by default).
    pub method: SsspMethod,
    /// Frontier vertices, or edges of one vertex, per task.
    pub grain: u32,
}

impl Default for SsspOptions {
    fn default() -> Self {
        SsspOptions { method: SsspMethod::Auto, grain: relax::DEFAULT_GRAIN }
    }
}

/// What a shortest-path search found.
#[derive(Debug)]
pub struct Sssp {
    /// The length of a shortest path from the source to every vertex; `u32::MAX` where there
    /// is no path ([`crate::UNREACHED`]).
    pub distance: Vec<u32>,
    /// The variant that ran ([`SsspMethod::Auto`] resolved).
    pub method: SsspMethod,
    /// Edges relaxed, rescans included.
    pub edges_scanned: u64,
    /// Offers that found their vertex already lower, and stopped (delta-stepping, data-driven).
    pub stale: u64,
    /// Frontier rounds ([`SsspMethod::Rounds`]; else 0).
    pub rounds: u32,
    /// The run's statistics and backend.
    pub run: Run,
}

/// Shortest distances from `source` by delta-stepping, with the graph's weights: integers,
/// or real weights that are whole numbers ([`Graph::integer_weights`]); every edge of a graph
/// without weights weighs 1, so its distances are hop counts.
///
/// ```
/// use wsdsl::graph::{Graph, Weights};
/// use wsdsl::prelude::*;
/// // 0 -> 1 (weight 5), 0 -> 2 (1), 2 -> 1 (2): the way through 2 is shorter.
/// let g = Graph::from_csr(vec![0, 2, 2, 3], vec![1, 2, 1], Weights::Int(vec![5, 1, 2]))?;
/// let found = wsdsl_graph::sssp(&Runtime::new(Backend::Cpu), &g, 0)?;
/// assert_eq!(found.distance, vec![0, 3, 1]);
/// # Ok::<(), wsdsl::Error>(())
/// ```
pub fn sssp(rt: &Runtime, g: &Graph, source: u32) -> Result<Sssp, wsdsl::Error> {
    sssp_with(rt, g, source, &SsspOptions::default())
}

/// Shortest distances from `source` as `opts` say. Errors: a graph whose arrays are not CSR
/// ([`Graph::validate`]); a weight that is negative or not a whole number, naming its edge; a
/// source outside the graph; a zero grain or delta; a distance that 32 bits do not hold
/// (checked wherever the weights allow one); and the run's own.
pub fn sssp_with(rt: &Runtime, g: &Graph, source: u32, opts: &SsspOptions) -> Result<Sssp, wsdsl::Error> {
    g.validate()?;
    let n = g.vertices();
    if source as usize >= n {
        return Err(wsdsl::Error::InvalidConfig(format!("the source vertex {source} is not in the graph (vertices 0..{n})")));
    }
    let weights = g.integer_weights()?;
    let method = match opts.method {
        SsspMethod::Auto => SsspMethod::DeltaStepping {
            delta: match &weights {
                Some(w) => relax::default_delta(g, w),
                None => relax::delta_for(1.0, g.edges() as f64 / n as f64),
            },
        },
        chosen => chosen,
    };
    let kernel_method = match method {
        SsspMethod::DeltaStepping { delta } => Method::Ordered { delta },
        SsspMethod::Rounds => Method::Rounds,
        _ => Method::DataDriven,
    };
    let heaviest = weights.as_ref().map_or(1, |w| w.par_iter().copied().max().unwrap_or(0));
    // With weights the kernels' own unit step stands in for every weight: 1 each.
    let (step, device) = match weights {
        Some(w) => (0, DeviceGraph::new(g, Some(w))),
        None => (1, DeviceGraph::new(g, None)),
    };
    let how = Relaxation { grain: opts.grain, step };
    let (found, run) = relax::solve(rt, &device, relax::from_source(n, source), &[source], how, kernel_method)?;
    // A simple path has at most n - 1 edges: below this bound no sum can pass u32::MAX (the
    // kernels add in 32 bits, wrapping as Rust's release builds do); above it, prove the
    // distances instead of trusting them.
    if u64::from(heaviest) * (n as u64).saturating_sub(1) >= u64::from(u32::MAX) {
        prove(g, &device, step, source, &found.value)?;
    }
    Ok(Sssp { distance: found.value, method, edges_scanned: found.edges, stale: found.stale, rounds: found.rounds, run })
}

/// Proves `dist` the shortest distances from `source`, summing in 64 bits: no edge from a
/// reached vertex offers its target less than it holds, nor reaches a vertex left unreached
/// (so no distance is above the shortest), and every reached vertex is reached from the
/// source along edges that add up to its distance exactly (so none is below). A sum that
/// wrapped past 32 bits breaks the second; a distance of 2^32 - 1 or more, the first.
fn prove(g: &Graph, device: &DeviceGraph, step: u32, source: u32, dist: &[u32]) -> Result<(), wsdsl::Error> {
    let weights = device.weights.as_slice();
    let weight = |e: usize| if step == 0 { u64::from(weights[e]) } else { u64::from(step) };
    let too_far = |v: usize| {
        wsdsl::Error::InvalidConfig(format!(
            "the shortest distance from vertex {source} to vertex {v} does not fit in 32 bits (distances are u32, at most {}): scale the weights down",
            u32::MAX - 1
        ))
    };
    let reached = |v: usize| dist[v] != u32::MAX;
    // The first edge out of `u` whose target is unreached or holds more than `u` offers it.
    let undercut = |u: usize| {
        let lo = g.offsets[u] as usize;
        g.neighbours(u as u32).iter().enumerate().map(|(k, &v)| (k, v as usize)).find(|&(k, v)| !reached(v) || u64::from(dist[u]) + weight(lo + k) < u64::from(dist[v]))
    };
    if let Some((_, v)) = (0..g.vertices()).into_par_iter().filter(|&u| reached(u)).find_map_any(undercut) {
        return Err(too_far(v));
    }
    if dist[source as usize] != 0 {
        return Err(too_far(source as usize));
    }
    let mut seen = vec![false; g.vertices()];
    let mut stack = vec![source as usize];
    seen[source as usize] = true;
    while let Some(u) = stack.pop() {
        let lo = g.offsets[u] as usize;
        for (k, &v) in g.neighbours(u as u32).iter().enumerate() {
            let v = v as usize;
            if !seen[v] && u64::from(dist[u]) + weight(lo + k) == u64::from(dist[v]) {
                seen[v] = true;
                stack.push(v);
            }
        }
    }
    match (0..g.vertices()).find(|&v| reached(v) && !seen[v]) {
        Some(v) => Err(too_far(v)),
        None => Ok(()),
    }
}
