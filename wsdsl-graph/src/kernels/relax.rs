//! Frontier relaxation: the engine of the `sssp` example and of the `bfs` and `cc` examples'
//! variants (`--level`, `--data-driven`, `--label-propagation`). Every vertex
//! holds a value (a hop count, a distance, a component label). Round by round, each vertex of
//! the frontier offers each neighbour its own value plus the edge's weight (or plus `step` on
//! an unweighted graph: 1 for hop counts, 0 for labels); a neighbour
//! whose value that lowers (`atomic_min`) joins the next frontier, once (`atomic_max` on the
//! round it was last queued in). The rounds end when a frontier is empty: every value is then
//! the least over all paths — Bellman-Ford driven by the vertices that changed.
//!
//! The rounds are a continuation: the `Round` task expands one frontier, and its complete
//! handler, run when that whole round is done, starts the next. A frontier range or an edge
//! list longer than `grain` is split into up to `SPLIT` tasks at a time, so neither a large
//! frontier nor a hub serialises one thread.
//!
//! `relax_driven` is the same relaxation without rounds: a task carries the value it offers
//! along part of one vertex's edges, and a neighbour whose value it lowers gets a task of its
//! own at once; a task whose vertex has meanwhile dropped below its offer stops. It runs on
//! the Broker Queue, whose FIFO order keeps it close to rounds without waiting for them.
//! `relax_ordered` is `relax_driven` on the priority scheduler: delta-stepping.
//! `solve` picks one of them.

use wsdsl::graph::Graph;
use wsdsl::prelude::*;

/// Frontier rounds, each a continuation (the module's documentation says how they run).
#[megakernel]
pub mod relax {
    use wsdsl::prelude::*;

    /// The most parts a range or an edge list is split into at a time.
    pub const SPLIT: u32 = 16;

    /// How to relax.
    #[params]
    pub struct Params {
        /// Frontier vertices, or edges of one vertex, per task.
        pub grain: u32,
        /// 1: add the edge's weight to the offered value; 0: add `step`.
        pub weighted: u32,
        /// What an edge adds when the graph is unweighted (1: hop counts; 0: labels).
        pub step: u32,
    }

    /// The graph, the values and the frontiers.
    #[buffers]
    pub struct Graph {
        /// Row offsets.
        pub offsets: ReadOnly<u32>,
        /// The target of every edge, row by row.
        pub targets: ReadOnly<u32>,
        /// Parallel to `targets` when `weighted` (else one unused element).
        pub weights: ReadOnly<u32>,
        /// Every vertex's value, lowered as offers arrive.
        pub value: Buffer<u32>,
        /// The last round each vertex joined the frontier of.
        pub queued: Buffer<u32>,
        /// Two frontiers of up to `vertices` entries: round `r` lives in half `r % 2`.
        pub frontier: Buffer<u32>,
        /// The sizes of the two frontiers.
        pub sizes: Buffer<u32>,
    }

    /// What the rounds did.
    #[counters]
    pub struct Counters {
        /// Edges relaxed.
        pub edges: Sum<u64>,
        /// Rounds run.
        pub rounds: Max<u32>,
    }

    /// The rounds: round k of this task expands frontier k.
    #[task]
    pub struct Round {
        /// The number of its first round (0): its round k is round `r + k`.
        pub r: u32,
    }

    /// Frontier entries `lo..hi` of round `r`.
    #[task]
    pub struct Chunk {
        /// The round.
        pub r: u32,
        /// The first entry.
        pub lo: u32,
        /// One past the last entry.
        pub hi: u32,
    }

    /// Edges `lo..hi` of vertex `v`, in round `r`.
    #[task]
    pub struct Edges {
        /// The vertex.
        pub v: u32,
        /// The round.
        pub r: u32,
        /// The first edge.
        pub lo: u32,
        /// One past the last edge.
        pub hi: u32,
    }

    /// Round 0 (here) expands the first frontier; the complete handler's round k, run when
    /// round `k - 1` is done, the next one. An empty frontier ends the search.
    #[spawn]
    fn round(t: &Round, ctx: &mut Ctx) {
        let r = t.r + ctx.round();
        let n = ctx.buffers.sizes.get((r % 2) as usize);
        if n > 0 {
            ctx.buffers.sizes.set(((r + 1) % 2) as usize, 0);
            ctx.counters.rounds.max(r + 1);
            ctx.spawn(Chunk { r, lo: 0, hi: n });
        }
    }

    #[complete]
    fn next_round(t: &Round, ctx: &mut Ctx) {
        let r = t.r + ctx.round();
        let n = ctx.buffers.sizes.get((r % 2) as usize);
        if n > 0 {
            ctx.buffers.sizes.set(((r + 1) % 2) as usize, 0);
            ctx.counters.rounds.max(r + 1);
            ctx.spawn(Chunk { r, lo: 0, hi: n });
        }
    }

    #[spawn]
    fn chunk(c: &Chunk, ctx: &mut Ctx) {
        let n = c.hi - c.lo;
        if n > ctx.params.grain {
            let parts = parts(n, ctx.params.grain);
            for p in 0..parts {
                ctx.spawn(Chunk { r: c.r, lo: cut(c.lo, n, p, parts), hi: cut(c.lo, n, p + 1, parts) });
            }
            return;
        }
        let vertices = ctx.buffers.offsets.len() - 1;
        let here = (c.r % 2) as usize * vertices;
        for i in c.lo..c.hi {
            let v = ctx.buffers.frontier.get(here + i as usize);
            let lo = ctx.buffers.offsets.get(v as usize);
            let hi = ctx.buffers.offsets.get(v as usize + 1);
            if hi > lo {
                ctx.spawn(Edges { v, r: c.r, lo, hi });
            }
        }
    }

    #[spawn]
    fn edges(e: &Edges, ctx: &mut Ctx) {
        let n = e.hi - e.lo;
        if n > ctx.params.grain {
            let parts = parts(n, ctx.params.grain);
            for p in 0..parts {
                ctx.spawn(Edges { v: e.v, r: e.r, lo: cut(e.lo, n, p, parts), hi: cut(e.lo, n, p + 1, parts) });
            }
            return;
        }
        // The vertex's value now: it may have dropped since it was queued, which only helps.
        let base = ctx.buffers.value.get(e.v as usize);
        let vertices = ctx.buffers.offsets.len() - 1;
        let next = e.r + 1;
        for i in e.lo..e.hi {
            let u = ctx.buffers.targets.get(i as usize) as usize;
            let offer = if ctx.params.weighted == 1 { base + ctx.buffers.weights.get(i as usize) } else { base + ctx.params.step };
            if ctx.buffers.value.atomic_min(u, offer) > offer && ctx.buffers.queued.atomic_max(u, next) < next {
                let at = ctx.buffers.sizes.atomic_add((next % 2) as usize, 1) as usize;
                ctx.buffers.frontier.set((next % 2) as usize * vertices + at, u as u32);
            }
        }
        ctx.counters.edges.add(n as u64);
    }

    /// A split range is done when all its parts are (the round waits for all of them).
    #[complete]
    fn chunk_done(_c: &Chunk, _ctx: &mut Ctx) {}

    #[complete]
    fn edges_done(_e: &Edges, _ctx: &mut Ctx) {}

    /// Parts a range of `n` longer than `grain` is split into: whole grains, at most `SPLIT`.
    fn parts(n: u32, grain: u32) -> u32 {
        let grains = n / grain + (n % grain != 0) as u32;
        if grains < SPLIT {
            grains
        } else {
            SPLIT
        }
    }

    /// Where part `p` of `parts` of the range `lo..lo + n` starts.
    fn cut(lo: u32, n: u32, p: u32, parts: u32) -> u32 {
        lo + ((n as u64 * p as u64) / parts as u64) as u32
    }
}

/// The relaxation without rounds, on the Broker Queue.
#[megakernel(scheduler = bq)]
pub mod relax_driven {
    use wsdsl::prelude::*;

    /// The most parts an edge list is split into at a time.
    pub const SPLIT: u32 = 16;

    /// How to relax.
    #[params]
    pub struct Params {
        /// Edges of one vertex per task.
        pub grain: u32,
        /// 1: add the edge's weight to the offered value; 0: add `step`.
        pub weighted: u32,
        /// What an edge adds when the graph is unweighted.
        pub step: u32,
    }

    /// The graph and the values.
    #[buffers]
    pub struct Graph {
        /// Row offsets.
        pub offsets: ReadOnly<u32>,
        /// The target of every edge, row by row.
        pub targets: ReadOnly<u32>,
        /// Parallel to `targets` when `weighted` (else one unused element).
        pub weights: ReadOnly<u32>,
        /// Every vertex's value, lowered as offers arrive.
        pub value: Buffer<u32>,
    }

    /// What the offers did.
    #[counters]
    pub struct Counters {
        /// Edges relaxed.
        pub edges: Sum<u64>,
        /// Offers that found their vertex already lower, and stopped.
        pub stale: Sum<u64>,
    }

    /// Offer `base` (plus each edge's weight) along edges `lo..hi` of vertex `v`.
    #[task]
    pub struct Offer {
        /// The vertex whose edges these are.
        pub v: u32,
        /// The first edge.
        pub lo: u32,
        /// One past the last edge.
        pub hi: u32,
        /// The vertex's value when the offer was made.
        pub base: u32,
    }

    #[spawn]
    fn offer(t: &Offer, ctx: &mut Ctx) {
        if ctx.buffers.value.get(t.v as usize) < t.base {
            ctx.counters.stale.add(1);
            return;
        }
        let n = t.hi - t.lo;
        if n > ctx.params.grain {
            let grains = n / ctx.params.grain + (n % ctx.params.grain != 0) as u32;
            let parts = if grains < SPLIT { grains } else { SPLIT };
            for p in 0..parts {
                let lo = t.lo + ((n as u64 * p as u64) / parts as u64) as u32;
                let hi = t.lo + ((n as u64 * (p + 1) as u64) / parts as u64) as u32;
                ctx.spawn(Offer { v: t.v, lo, hi, base: t.base });
            }
            return;
        }
        for i in t.lo..t.hi {
            let u = ctx.buffers.targets.get(i as usize) as usize;
            let offer = if ctx.params.weighted == 1 { t.base + ctx.buffers.weights.get(i as usize) } else { t.base + ctx.params.step };
            if ctx.buffers.value.atomic_min(u, offer) > offer {
                let lo = ctx.buffers.offsets.get(u);
                let hi = ctx.buffers.offsets.get(u + 1);
                if hi > lo {
                    ctx.spawn(Offer { v: u as u32, lo, hi, base: offer });
                }
            }
        }
        ctx.counters.edges.add(n as u64);
    }
}

/// Delta-stepping (Meyer and Sanders): `relax_driven` on the priority scheduler. An offer of
/// distance `d` waits in band `d / delta`, so vertices settle roughly in distance order and
/// few offers go stale (each one a vertex expanded before its final distance was known);
/// within a band, offers run in no particular order, as Bellman-Ford's do.
///
/// The GPU's workers may take from 8 bands above the lowest one still running: on a
/// long-diameter graph a band is a thin wavefront, and waiting for its last offers left
/// most of the GPU idle (H100, SSSP on the 2048 x 2048 grid 68.6 ms with 1 band, 56.0 with
/// 4, 55.2 with 8; on the road-like graph 82.0, 60.5, 56.5 ms; R-MAT 22 unchanged, 12.6 ms:
/// `BENCHMARKS.md`), at the price of offers run before a lower band lowers them (1.2 → 4.7
/// scans per edge on the grid).
#[megakernel(order = priority, lookahead = 8)]
pub mod relax_ordered {
    use wsdsl::prelude::*;

    /// The most parts an edge list is split into at a time.
    pub const SPLIT: u32 = 16;

    /// How to relax.
    #[params]
    pub struct Params {
        /// Edges of one vertex per task.
        pub grain: u32,
        /// 1: add the edge's weight to the offered value; 0: add `step`.
        pub weighted: u32,
        /// What an edge adds when the graph is unweighted.
        pub step: u32,
        /// Width of a band in distance (at least 1).
        pub delta: u32,
    }

    /// The graph and the values.
    #[buffers]
    pub struct Graph {
        /// Row offsets.
        pub offsets: ReadOnly<u32>,
        /// The target of every edge, row by row.
        pub targets: ReadOnly<u32>,
        /// Parallel to `targets` when `weighted` (else one unused element).
        pub weights: ReadOnly<u32>,
        /// Every vertex's value, lowered as offers arrive.
        pub value: Buffer<u32>,
    }

    /// What the offers did.
    #[counters]
    pub struct Counters {
        /// Edges relaxed.
        pub edges: Sum<u64>,
        /// Offers that found their vertex already lower, and stopped.
        pub stale: Sum<u64>,
    }

    /// Offer `base` (plus each edge's weight) along edges `lo..hi` of vertex `v`.
    #[task]
    pub struct Offer {
        /// The vertex whose edges these are.
        pub v: u32,
        /// The first edge.
        pub lo: u32,
        /// One past the last edge.
        pub hi: u32,
        /// The vertex's value when the offer was made.
        pub base: u32,
    }

    #[spawn]
    fn offer(t: &Offer, ctx: &mut Ctx) {
        if ctx.buffers.value.get(t.v as usize) < t.base {
            ctx.counters.stale.add(1);
            return;
        }
        let n = t.hi - t.lo;
        if n > ctx.params.grain {
            // The parts stay in this offer's band (a plain spawn keeps the parent's).
            let grains = n / ctx.params.grain + (n % ctx.params.grain != 0) as u32;
            let parts = if grains < SPLIT { grains } else { SPLIT };
            for p in 0..parts {
                let lo = t.lo + ((n as u64 * p as u64) / parts as u64) as u32;
                let hi = t.lo + ((n as u64 * (p + 1) as u64) / parts as u64) as u32;
                ctx.spawn(Offer { v: t.v, lo, hi, base: t.base });
            }
            return;
        }
        // Four edges at a time: their four atomics leave together, so a task waits for one
        // round trip per four edges instead of one per edge. On a long-diameter graph each
        // band is a thin wavefront and these waits are the path from one band to the next.
        let mut i = t.lo;
        while i < t.hi {
            let (u0, o0) = along(ctx, i, t.hi, t.base);
            let (u1, o1) = along(ctx, i + 1, t.hi, t.base);
            let (u2, o2) = along(ctx, i + 2, t.hi, t.base);
            let (u3, o3) = along(ctx, i + 3, t.hi, t.base);
            let b0 = lower(ctx, u0, o0);
            let b1 = lower(ctx, u1, o1);
            let b2 = lower(ctx, u2, o2);
            let b3 = lower(ctx, u3, o3);
            settle(ctx, u0, o0, b0);
            settle(ctx, u1, o1, b1);
            settle(ctx, u2, o2, b2);
            settle(ctx, u3, o3, b3);
            i += 4;
        }
        ctx.counters.edges.add(n as u64);
    }

    /// No edge (past the end of a task's list).
    const NONE: u32 = u32::MAX;

    /// Edge `i`'s target and what `base` offers along it, or `NONE` past `hi`.
    fn along(ctx: &mut Ctx, i: u32, hi: u32, base: u32) -> (u32, u32) {
        if i >= hi {
            return (NONE, 0);
        }
        let offer = if ctx.params.weighted == 1 { base + ctx.buffers.weights.get(i as usize) } else { base + ctx.params.step };
        (ctx.buffers.targets.get(i as usize), offer)
    }

    /// Lowers `u`'s value to `offer` where that is lower; the value before (0 for `NONE`).
    fn lower(ctx: &mut Ctx, u: u32, offer: u32) -> u32 {
        if u == NONE {
            return 0;
        }
        ctx.buffers.value.atomic_min(u as usize, offer)
    }

    /// The offer lowered `u` (its value was `before`): `u` offers it on, in its band.
    fn settle(ctx: &mut Ctx, u: u32, offer: u32, before: u32) {
        if before > offer {
            let lo = ctx.buffers.offsets.get(u as usize);
            let hi = ctx.buffers.offsets.get(u as usize + 1);
            if hi > lo {
                ctx.spawn_with_priority(offer / ctx.params.delta, Offer { v: u, lo, hi, base: offer });
            }
        }
    }
}

/// A band width for delta-stepping from the weights: the mean weight times 8 over the mean
/// degree (GAPBS's users pick delta near the mean weight on meshes and road graphs, where a
/// band must hold a wavefront to give the workers enough to do, and smaller on power-law
/// graphs, whose bands fill at once). At least 1.
pub fn default_delta(g: &Graph, weights: &[u32]) -> u32 {
    if weights.is_empty() || g.vertices() == 0 {
        return 1;
    }
    let mean_weight = weights.iter().map(|&w| w as f64).sum::<f64>() / weights.len() as f64;
    delta_for(mean_weight, weights.len() as f64 / g.vertices() as f64)
}

/// [`default_delta`] from the means themselves (a graph whose every edge weighs 1 has no
/// weights to average).
pub fn delta_for(mean_weight: f64, mean_degree: f64) -> u32 {
    ((mean_weight * 8.0 / mean_degree.max(1.0)).round() as u32).max(1)
}

/// Frontier vertices or edges per task by default.
pub const DEFAULT_GRAIN: u32 = 64;

/// The initial values of a search from `source`: every vertex unreached (`u32::MAX`) but the
/// source (0). Filled, not built from a vector: one value but the source's, which the GPU
/// backend sets on the device instead of copying.
pub fn from_source(vertices: usize, source: u32) -> Buffer<u32> {
    let values = Buffer::filled(vertices, u32::MAX);
    values.set(source as usize, 0);
    values
}

/// A graph's arrays as read-only device arrays, uploaded on the first run that uses them.
pub struct DeviceGraph {
    /// Row offsets.
    pub offsets: ReadOnly<u32>,
    /// The target of every edge, row by row.
    pub targets: ReadOnly<u32>,
    /// The weight of every edge, or one unused element for an unweighted graph.
    pub weights: ReadOnly<u32>,
}

impl DeviceGraph {
    /// `weights`: one per edge, or `None` (labels need none).
    pub fn new(g: &Graph, weights: Option<Vec<u32>>) -> Self {
        DeviceGraph {
            offsets: ReadOnly::from_vec(g.offsets.clone()),
            targets: ReadOnly::from_vec(g.targets.clone()),
            weights: ReadOnly::from_vec(weights.unwrap_or_else(|| vec![0])),
        }
    }
}

/// The least values after relaxing from `initial` (one per vertex) with the vertices of
/// `frontier` as the first round; also the edges scanned, the rounds run (`run`) and the
/// tasks that found their vertex already lower than their offer (`run_driven`).
pub struct Relaxed {
    /// The least value of every vertex (`u32::MAX`: never offered one).
    pub value: Vec<u32>,
    /// Edges relaxed.
    pub edges: u64,
    /// Frontier rounds run (`run`; else 0).
    pub rounds: u32,
    /// Offers that found their vertex already lower (`run_driven`, `run_ordered`; else 0).
    pub stale: u64,
}

/// How to relax: `grain` frontier vertices or edges per task; `step` is what an edge of an
/// unweighted graph adds (1: hop counts; 0: labels).
#[derive(Clone, Copy)]
pub struct Relaxation {
    /// Frontier vertices, or edges of one vertex, per task.
    pub grain: u32,
    /// What an edge of an unweighted graph adds (1: hop counts; 0: labels).
    pub step: u32,
}

/// Relaxes `g` from `initial` in frontier rounds (`relax`), the vertices of `frontier` the
/// first; the least values and the run.
pub fn run(rt: &Runtime, g: &DeviceGraph, initial: impl Into<Buffer<u32>>, frontier: &[u32], how: Relaxation) -> Result<(Relaxed, Output<relax::Kernel>), wsdsl::Error> {
    let initial = checked_inputs(g, initial, frontier)?;
    let grain = how.grain;
    let vertices = g.offsets.len() - 1;
    if grain == 0 {
        return Err(wsdsl::Error::InvalidConfig("the grain (vertices or edges per task) must be at least 1".into()));
    }
    let weighted = g.weights.len() == g.targets.len() && !g.targets.is_empty();
    let mut halves = vec![0u32; 2 * vertices];
    halves[..frontier.len()].copy_from_slice(frontier);
    let buffers = relax::Graph {
        offsets: g.offsets.clone(),
        targets: g.targets.clone(),
        weights: g.weights.clone(),
        value: initial,
        queued: Buffer::zeroed(vertices),
        frontier: Buffer::from_vec(halves),
        sizes: Buffer::from_vec(vec![frontier.len() as u32, 0]),
    };
    let params = relax::Params { grain, weighted: weighted as u32, step: how.step };
    let out = rt.run_with::<relax::Kernel>(params, &buffers, [relax::Round { r: 0 }])?;
    let relaxed = Relaxed { value: buffers.value.into_vec(), edges: out.counters.edges.get(), rounds: out.counters.rounds.get(), stale: 0 };
    Ok((relaxed, out))
}

/// [`run`] without rounds (`relax_driven`): the vertices of `frontier` offer their initial
/// values first.
pub fn run_driven(rt: &Runtime, g: &DeviceGraph, initial: impl Into<Buffer<u32>>, frontier: &[u32], how: Relaxation) -> Result<(Relaxed, Output<relax_driven::Kernel>), wsdsl::Error> {
    let initial = checked_inputs(g, initial, frontier)?;
    let grain = how.grain;
    if grain == 0 {
        return Err(wsdsl::Error::InvalidConfig("the grain (vertices or edges per task) must be at least 1".into()));
    }
    let weighted = g.weights.len() == g.targets.len() && !g.targets.is_empty();
    let offsets = g.offsets.as_slice();
    let roots: Vec<relax_driven::Offer> = frontier
        .iter()
        .map(|&v| relax_driven::Offer { v, lo: offsets[v as usize], hi: offsets[v as usize + 1], base: initial.get(v as usize) })
        .filter(|o| o.hi > o.lo)
        .collect();
    let buffers = relax_driven::Graph { offsets: g.offsets.clone(), targets: g.targets.clone(), weights: g.weights.clone(), value: initial };
    let params = relax_driven::Params { grain, weighted: weighted as u32, step: how.step };
    let out = rt.run_with::<relax_driven::Kernel>(params, &buffers, roots)?;
    let c = &out.counters;
    let relaxed = Relaxed { value: buffers.value.into_vec(), edges: c.edges.get(), rounds: 0, stale: c.stale.get() };
    Ok((relaxed, out))
}

/// [`run_driven`] in bands of `delta` (`relax_ordered`, delta-stepping).
pub fn run_ordered(rt: &Runtime, g: &DeviceGraph, initial: impl Into<Buffer<u32>>, frontier: &[u32], how: Relaxation, delta: u32) -> Result<(Relaxed, Output<relax_ordered::Kernel>), wsdsl::Error> {
    let initial = checked_inputs(g, initial, frontier)?;
    if how.grain == 0 {
        return Err(wsdsl::Error::InvalidConfig("the grain (vertices or edges per task) must be at least 1".into()));
    }
    if delta == 0 {
        return Err(wsdsl::Error::InvalidConfig("delta (the width of a band in distance) must be at least 1".into()));
    }
    let weighted = g.weights.len() == g.targets.len() && !g.targets.is_empty();
    let offsets = g.offsets.as_slice();
    let roots: Vec<relax_ordered::Offer> = frontier
        .iter()
        .map(|&v| relax_ordered::Offer { v, lo: offsets[v as usize], hi: offsets[v as usize + 1], base: initial.get(v as usize) })
        .filter(|o| o.hi > o.lo)
        .collect();
    let buffers = relax_ordered::Graph { offsets: g.offsets.clone(), targets: g.targets.clone(), weights: g.weights.clone(), value: initial };
    let params = relax_ordered::Params { grain: how.grain, weighted: weighted as u32, step: how.step, delta };
    let out = rt.run_with::<relax_ordered::Kernel>(params, &buffers, roots)?;
    let c = &out.counters;
    let relaxed = Relaxed { value: buffers.value.into_vec(), edges: c.edges.get(), rounds: 0, stale: c.stale.get() };
    Ok((relaxed, out))
}

pub use crate::run::Run;

/// Which relaxation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Frontier rounds (Bellman-Ford driven by the changed vertices, [`run`]).
    Rounds,
    /// Without rounds, on the Broker Queue ([`run_driven`]).
    DataDriven,
    /// Delta-stepping ([`run_ordered`]).
    Ordered {
        /// The width of a band in value (at least 1).
        delta: u32,
    },
}

impl Method {
    /// [`Method::DataDriven`] when `data_driven`, else [`Method::Rounds`].
    pub fn driven_or_rounds(data_driven: bool) -> Method {
        if data_driven { Method::DataDriven } else { Method::Rounds }
    }
}

/// [`run`], [`run_driven`] or [`run_ordered`], as `method` says.
pub fn solve(rt: &Runtime, g: &DeviceGraph, initial: impl Into<Buffer<u32>>, frontier: &[u32], how: Relaxation, method: Method) -> Result<(Relaxed, Run), wsdsl::Error> {
    Ok(match method {
        Method::DataDriven => {
            let (found, out) = run_driven(rt, g, initial, frontier, how)?;
            (found, out.into())
        }
        Method::Rounds => {
            let (found, out) = run(rt, g, initial, frontier, how)?;
            (found, out.into())
        }
        Method::Ordered { delta } => {
            let (found, out) = run_ordered(rt, g, initial, frontier, how, delta)?;
            (found, out.into())
        }
    })
}

/// The initial values as a buffer, once checked: one per vertex, and a first frontier of
/// vertices of the graph.
fn checked_inputs(g: &DeviceGraph, initial: impl Into<Buffer<u32>>, frontier: &[u32]) -> Result<Buffer<u32>, wsdsl::Error> {
    let initial = initial.into();
    let vertices = g.offsets.len() - 1;
    let bad = |what: String| Err(wsdsl::Error::InvalidConfig(what));
    if initial.len() != vertices {
        return bad(format!("{} initial values for a graph of {vertices} vertices", initial.len()));
    }
    if frontier.len() > vertices {
        return bad(format!("a first frontier of {} vertices in a graph of {vertices}: list each vertex once", frontier.len()));
    }
    match frontier.iter().find(|&&v| v as usize >= vertices) {
        Some(v) => bad(format!("vertex {v} of the first frontier is not in the graph (vertices 0..{vertices})")),
        None => Ok(initial),
    }
}

/// Edges of the vertices with a value (`u32::MAX`: none, not reached): what "traversed edges
/// per second" counts (Graph500).
pub fn traversed_edges(g: &Graph, value: &[u32]) -> u64 {
    (0..g.vertices()).filter(|&v| value[v] != u32::MAX).map(|v| g.degree(v as u32) as u64).sum()
}

/// The first vertex that differs from `want` (`what` names the values), or `Ok`.
pub fn compare(got: &[u32], want: &[u32], what: &str) -> Result<(), String> {
    let bad: Vec<usize> = (0..want.len()).filter(|&v| got[v] != want[v]).collect();
    if bad.is_empty() {
        return Ok(());
    }
    let show: Vec<String> = bad.iter().take(5).map(|&v| format!("vertex {v}: {} (want {})", got[v], want[v])).collect();
    Err(format!("{} {what} differ from the reference: {}", bad.len(), show.join(", ")))
}
