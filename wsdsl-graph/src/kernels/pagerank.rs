//! PageRank as data-driven tasks, two ways (no redistribution of dangling vertices' rank:
//! r(u) = (1 - d) / n + d * sum over edges w -> u of r(w) / outdegree(w), as in the Broker
//! Queue paper's experiment).
//!
//! `pagerank` is the paper's formulation (Kerbl et al., section 7.3): the queue starts with
//! one task per vertex; an active vertex passes its rank for iteration i on to its
//! neighbours, and the neighbour whose last contribution for iteration i + 1 that was
//! enqueues itself for iteration i + 1. No iteration waits for another as a whole: a vertex
//! runs ahead as far as the ranks it needs are final. Each iteration's ranks have their own
//! slots, so contributions to different iterations never mix; `ctx.fence()` orders a task's
//! contributions before the arrival counts that announce them. A vertex with more than
//! `GRAIN` out-edges passes its rank on in parts, as several tasks.
//!
//! `pagerank_pull` is the synchronous power iteration as tasks, for throughput: each
//! iteration (a round of a continuation) sums, for every vertex, the shares of its
//! in-neighbours over the transposed graph, with no atomics at all, in tasks of about
//! `grain` in-edges; a vertex with more is summed in parts (atomically added) and completed
//! by its own complete handler. It computes exactly what `pagerank` does, in a different order.
//!
//! `pagerank_delta` runs to a tolerance instead: each vertex holds a residual (rank not yet
//! passed on); a task claims a vertex's residual, adds it to the rank and spreads
//! `d * residual / outdegree` to the neighbours; a neighbour whose residual crosses its
//! threshold, the tolerance times its out-degree (at least 1), is enqueued (so a hub is
//! not rescanned for every crumb it receives). When no residual reaches its threshold, the
//! ranks are within `tolerance * (edges + n) / (1 - d)` in total of the fixed point.

use wsdsl::graph::Graph;
use wsdsl::prelude::*;

/// The Broker Queue paper's formulation: a task per vertex and iteration whose rank is final.
#[megakernel(scheduler = bq)]
pub mod pagerank {
    use wsdsl::prelude::*;

    /// The iterations to run and the damping factor.
    #[params]
    pub struct Params {
        /// Iterations from 1/n each.
        pub iterations: u32,
        /// The damping factor d.
        pub damping: f64,
    }

    /// The graph and every iteration's ranks.
    #[buffers]
    pub struct Graph {
        /// Row offsets of the out-edges.
        pub offsets: ReadOnly<u32>,
        /// The target of every out-edge, row by row.
        pub targets: ReadOnly<u32>,
        /// Every vertex's in-degree: the contributions its next rank waits for.
        pub in_degree: ReadOnly<u32>,
        /// The rank of vertex v after iteration i at `i * n + v` (i = 0 holds 1 / n);
        /// slots of later iterations accumulate contributions until complete.
        pub rank: Buffer<f64>,
        /// Contributions arrived for iteration i + 1 of vertex u, at `i * n + u`.
        pub arrived: Buffer<u32>,
    }

    /// What the run did.
    #[counters]
    pub struct Counters {
        /// Edges a rank was passed along.
        pub edges: Sum<u64>,
    }

    /// Out-edges a task passes a rank along; longer edge lists are split.
    pub const GRAIN: u32 = 256;
    /// The most parts an edge list is split into at a time.
    pub const SPLIT: u32 = 16;

    /// The rank of `v` after iteration `i` is final: pass it along edges `lo..hi` (all of
    /// v's out-edges when `whole` is 1; a part of them otherwise).
    #[task]
    pub struct Node {
        /// The vertex.
        pub v: u32,
        /// The iteration its rank is final for.
        pub i: u32,
        /// The first out-edge.
        pub lo: u32,
        /// One past the last out-edge.
        pub hi: u32,
        /// 1 when `lo..hi` is all of the vertex's out-edges.
        pub whole: u32,
    }

    #[spawn]
    fn pass_on(t: &Node, ctx: &mut Ctx) {
        let n = ctx.buffers.in_degree.len();
        let v = t.v as usize;
        let i = t.i as usize;
        let teleport = (1.0 - ctx.params.damping) / n as f64;
        // Nobody links to v: its next rank is the teleport term alone, final at once.
        if t.whole == 1 && ctx.buffers.in_degree.get(v) == 0 {
            ctx.buffers.rank.set((i + 1) * n + v, teleport);
            if t.i + 1 < ctx.params.iterations {
                ctx.spawn(Node { v: t.v, i: t.i + 1, lo: t.lo, hi: t.hi, whole: 1 });
            }
        }
        let len = t.hi - t.lo;
        if len > GRAIN {
            // A hub's edges in parts, so no thread walks thousands of them alone.
            let grains = len / GRAIN + (len % GRAIN != 0) as u32;
            let parts = if grains < SPLIT { grains } else { SPLIT };
            for p in 0..parts {
                let lo = t.lo + ((len as u64 * p as u64) / parts as u64) as u32;
                let hi = t.lo + ((len as u64 * (p + 1) as u64) / parts as u64) as u32;
                ctx.spawn(Node { v: t.v, i: t.i, lo, hi, whole: 0 });
            }
            return;
        }
        if len == 0 {
            return;
        }
        let degree = ctx.buffers.offsets.get(v + 1) - ctx.buffers.offsets.get(v);
        let share = ctx.params.damping * ctx.buffers.rank.get(i * n + v) / degree as f64;
        for e in t.lo..t.hi {
            let u = ctx.buffers.targets.get(e as usize) as usize;
            ctx.buffers.rank.atomic_add((i + 1) * n + u, share);
        }
        // Every contribution above is in before any count below announces it.
        ctx.fence();
        for e in t.lo..t.hi {
            let u = ctx.buffers.targets.get(e as usize) as usize;
            if ctx.buffers.arrived.atomic_add(i * n + u, 1) + 1 == ctx.buffers.in_degree.get(u) {
                // The last contribution to u's next rank: complete it and pass it on.
                ctx.fence();
                let sum = ctx.buffers.rank.get((i + 1) * n + u);
                ctx.buffers.rank.set((i + 1) * n + u, teleport + sum);
                if t.i + 1 < ctx.params.iterations {
                    let lo = ctx.buffers.offsets.get(u);
                    let hi = ctx.buffers.offsets.get(u + 1);
                    ctx.spawn(Node { v: u as u32, i: t.i + 1, lo, hi, whole: 1 });
                }
            }
        }
        ctx.counters.edges.add(len as u64);
    }
}

/// On the Broker Queue: each sweep starts from one task, and the queue hands its parts to
/// every worker at once where the deques spread them by stealing (H100, R-MAT 22: 31.1 ms
/// against 74.9 ms). The sums wait on scattered loads, so registers for 3 blocks per SM
/// (more warps with loads in flight) pay: 27.3 ms against 31.1 (`BENCHMARKS.md`).
///
/// The shares (what a vertex passes along each out-edge) are kept as 32-bit floats, as GAPBS
/// keeps its scores: the gathers that bound the sweep then read half the bytes, and the half
/// of `share` a sweep reads (16 MB at 4 M vertices) stays in L2. Sums and ranks are 64-bit;
/// the ranks agree with float64 power iteration to [`pull_tolerance`] (relative).
#[megakernel(scheduler = bq, min_blocks = 3)]
pub mod pagerank_pull {
    use wsdsl::prelude::*;

    /// The most parts a range is split into at a time.
    pub const SPLIT: u32 = 16;

    /// The iterations, the damping factor and how the sweeps are cut.
    #[params]
    pub struct Params {
        /// Iterations from 1/n each.
        pub iterations: u32,
        /// The damping factor d.
        pub damping: f64,
        /// In-edges (and at most vertices) per task; a vertex with more is a hub, summed in parts.
        pub grain: u32,
        /// Whether in-degrees vary so much that even cuts by vertices leave the lanes of a warp
        /// unequal work (decided on the host from the degrees, `PullGraph::new`): ranges of
        /// a few grains are then cut into leaves by a walk of their offsets.
        pub skewed: bool,
    }

    /// The transposed graph, the shares and the ranks.
    #[buffers]
    pub struct Graph {
        /// The transposed graph: the in-neighbours of u are `sources[in_offsets[u]..in_offsets[u + 1]]`.
        pub in_offsets: ReadOnly<u32>,
        /// The source of every in-edge, row by row.
        pub sources: ReadOnly<u32>,
        /// Every vertex's out-degree: what its rank is shared among.
        pub out_degree: ReadOnly<u32>,
        /// What each vertex passes along each out-edge in iteration i, at `(i % 2) * n + w`:
        /// damping x rank / out-degree, rounded to 32 bits.
        pub share: Buffer<f32>,
        /// The partial sums of hubs' in-edges.
        pub hub_sum: Buffer<f64>,
        /// The ranks after the last iteration (written by it alone).
        pub rank: Buffer<f64>,
    }

    /// What the sweeps did.
    #[counters]
    pub struct Counters {
        /// In-edges summed.
        pub edges: Sum<u64>,
    }

    /// Runs the iterations: round 0 (the spawn handler) prepares the shares of the first
    /// one, round k + 1 sweeps iteration k.
    #[task]
    pub struct Sweep {
        /// The graph's vertices.
        pub n: u32,
    }

    /// The `i` of the ranges of round 0: each vertex's share of the initial rank 1/n, computed
    /// on the device (`share` is scratch memory, never uploaded).
    pub const PREPARE: u32 = u32::MAX;

    /// Vertices `lo..hi` in iteration `i` (or `PREPARE`).
    #[task]
    pub struct Range {
        /// The iteration (or `PREPARE`).
        pub i: u32,
        /// The first vertex.
        pub lo: u32,
        /// One past the last vertex.
        pub hi: u32,
    }

    /// Vertex `u`, whose in-edges are too many for one task, in iteration `i`.
    #[task]
    pub struct Hub {
        /// The iteration.
        pub i: u32,
        /// The hub.
        pub u: u32,
    }

    /// In-edges `lo..hi` of hub `u` in iteration `i`.
    #[task]
    pub struct Part {
        /// The iteration.
        pub i: u32,
        /// The hub.
        pub u: u32,
        /// The first in-edge.
        pub lo: u32,
        /// One past the last in-edge.
        pub hi: u32,
    }

    #[spawn]
    fn sweep(t: &Sweep, ctx: &mut Ctx) {
        if ctx.params.iterations > 0 {
            ctx.spawn(Range { i: PREPARE, lo: 0, hi: t.n });
        }
    }

    /// Round `round - 1` is complete everywhere: sweep iteration `round - 1`, if any.
    #[complete]
    fn next_sweep(t: &Sweep, ctx: &mut Ctx) {
        if ctx.round() <= ctx.params.iterations {
            ctx.spawn(Range { i: ctx.round() - 1, lo: 0, hi: t.n });
        }
    }

    /// A range with more in-edges (or vertices) than the grain is split: evenly by vertices
    /// while it holds more than SPLIT grains, then into leaves of at most a grain each, evenly
    /// on a graph of even degrees and by a walk of its offsets on a skewed one
    /// (`cut_into_leaves`), so lanes of a warp get similar work; a single vertex above the
    /// grain is a hub.
    #[spawn]
    fn range(r: &Range, ctx: &mut Ctx) {
        if r.i == PREPARE {
            prepare(r, ctx);
            return;
        }
        let len = r.hi - r.lo;
        let edges_in = ctx.buffers.in_offsets.get(r.hi as usize) - ctx.buffers.in_offsets.get(r.lo as usize);
        if len > 1 && (edges_in > ctx.params.grain || len > ctx.params.grain) {
            if edges_in > SPLIT * ctx.params.grain || len > SPLIT * ctx.params.grain || !ctx.params.skewed {
                split(r, ctx);
            } else {
                cut_into_leaves(r, ctx);
            }
            return;
        }
        let n = ctx.buffers.out_degree.len();
        let here = (r.i % 2) as usize * n;
        let next = ((r.i + 1) % 2) as usize * n;
        let teleport = (1.0 - ctx.params.damping) / n as f64;
        let last = r.i + 1 == ctx.params.iterations;
        let mut edges = 0u64;
        // A vertex's in-edges end where the next one's begin: one offset read per vertex.
        let mut lo = ctx.buffers.in_offsets.get(r.lo as usize);
        for u in r.lo..r.hi {
            let hi = ctx.buffers.in_offsets.get(u as usize + 1);
            if hi - lo > ctx.params.grain {
                ctx.spawn(Hub { i: r.i, u });
            } else {
                let rank = teleport + gather(ctx, here, lo, hi);
                finish(ctx, u as usize, rank, next, last);
                edges += (hi - lo) as u64;
            }
            lo = hi;
        }
        ctx.counters.edges.add(edges);
    }

    /// `r` as up to SPLIT ranges of as many vertices each, in the same iteration.
    fn split(r: &Range, ctx: &mut Ctx) {
        let len = r.hi - r.lo;
        let parts = if len < SPLIT { len } else { SPLIT };
        for p in 0..parts {
            ctx.spawn(Range { i: r.i, lo: cut(r.lo, len, p, parts), hi: cut(r.lo, len, p + 1, parts) });
        }
    }

    /// `r` (at most SPLIT grains of in-edges and vertices) as leaves of at most a grain of
    /// each, cut by walking its offsets once: an even cut by vertices leaves lanes of a warp
    /// with 1 to 256 in-edges each on a skewed graph, and the warp waits for the longest. A
    /// vertex with more than a grain is a leaf of its own (a hub, summed in parts).
    fn cut_into_leaves(r: &Range, ctx: &mut Ctx) {
        let grain = ctx.params.grain;
        let mut lo = r.lo;
        let mut start = ctx.buffers.in_offsets.get(r.lo as usize);
        let mut begin = start;
        for u in r.lo..r.hi {
            let end = ctx.buffers.in_offsets.get(u as usize + 1);
            // Vertex u would take the leaf begun at `lo` past a grain: the leaf ends before u.
            if u > lo && (end - start > grain || u + 1 - lo > grain) {
                ctx.spawn(Range { i: r.i, lo, hi: u });
                lo = u;
                start = begin;
            }
            begin = end;
        }
        ctx.spawn(Range { i: r.i, lo, hi: r.hi });
    }

    /// Round 0: the shares of iteration 0 (rank 1/n each), ranges of `grain` vertices.
    fn prepare(r: &Range, ctx: &mut Ctx) {
        if r.hi - r.lo > ctx.params.grain {
            split(r, ctx);
            return;
        }
        let n = ctx.buffers.out_degree.len();
        for u in r.lo..r.hi {
            let degree = ctx.buffers.out_degree.get(u as usize);
            let share = if degree > 0 { ctx.params.damping / n as f64 / degree as f64 } else { 0.0 };
            ctx.buffers.share.set(u as usize, share as f32);
        }
    }

    /// A hub's in-edges as parts of at most `grain` each, all spawned here: the parts are
    /// the hub's own children, so they need no complete handler of their own (no frame, no
    /// join) for `hub_summed` to wait for them all.
    #[spawn]
    fn hub(h: &Hub, ctx: &mut Ctx) {
        let lo = ctx.buffers.in_offsets.get(h.u as usize);
        let hi = ctx.buffers.in_offsets.get(h.u as usize + 1);
        ctx.buffers.hub_sum.set(h.u as usize, 0.0);
        let len = hi - lo;
        let parts = len / ctx.params.grain + (len % ctx.params.grain != 0) as u32;
        for k in 0..parts {
            ctx.spawn(Part { i: h.i, u: h.u, lo: cut(lo, len, k, parts), hi: cut(lo, len, k + 1, parts) });
        }
    }

    /// Every part of the hub's in-edges is summed: complete its rank.
    #[complete]
    fn hub_summed(h: &Hub, ctx: &mut Ctx) {
        let n = ctx.buffers.out_degree.len();
        let u = h.u as usize;
        let rank = (1.0 - ctx.params.damping) / n as f64 + ctx.buffers.hub_sum.get(u);
        finish(ctx, u, rank, ((h.i + 1) % 2) as usize * n, h.i + 1 == ctx.params.iterations);
    }

    /// Vertex `u`'s rank is summed: the last iteration keeps it; the others pass it on as
    /// the next sweep's share (at `next + u`).
    fn finish(ctx: &mut Ctx, u: usize, rank: f64, next: usize, last: bool) {
        if last {
            ctx.buffers.rank.set(u, rank);
        } else {
            let degree = ctx.buffers.out_degree.get(u);
            let passed = if degree > 0 { ctx.params.damping * rank / degree as f64 } else { 0.0 };
            ctx.buffers.share.set(next + u, passed as f32);
        }
    }

    #[spawn]
    fn part(p: &Part, ctx: &mut Ctx) {
        let here = (p.i % 2) as usize * ctx.buffers.out_degree.len();
        let sum = gather(ctx, here, p.lo, p.hi);
        ctx.buffers.hub_sum.atomic_add(p.u as usize, sum);
        ctx.counters.edges.add((p.hi - p.lo) as u64);
    }

    /// The shares along in-edges `lo..hi` of the sweep's `here` half, summed four edges at a
    /// time: a round's four gathers do not wait for one another, so a lane keeps four in
    /// flight where one edge at a time waited for each (4% on R-MAT 22: `BENCHMARKS.md`).
    fn gather(ctx: &mut Ctx, here: usize, lo: u32, hi: u32) -> f64 {
        let end = hi as usize;
        let mut e = lo as usize;
        let mut s0 = 0.0f64;
        let mut s1 = 0.0f64;
        let mut s2 = 0.0f64;
        let mut s3 = 0.0f64;
        while e + 4 <= end {
            let a = ctx.buffers.sources.get(e) as usize;
            let b = ctx.buffers.sources.get(e + 1) as usize;
            let c = ctx.buffers.sources.get(e + 2) as usize;
            let d = ctx.buffers.sources.get(e + 3) as usize;
            s0 += ctx.buffers.share.get(here + a) as f64;
            s1 += ctx.buffers.share.get(here + b) as f64;
            s2 += ctx.buffers.share.get(here + c) as f64;
            s3 += ctx.buffers.share.get(here + d) as f64;
            e += 4;
        }
        while e < end {
            s0 += ctx.buffers.share.get(here + ctx.buffers.sources.get(e) as usize) as f64;
            e += 1;
        }
        (s0 + s1) + (s2 + s3)
    }

    /// A split range is done when all its pieces are (the sweep waits for them all).
    #[complete]
    fn range_done(_r: &Range, _ctx: &mut Ctx) {}

    fn cut(lo: u32, n: u32, p: u32, parts: u32) -> u32 {
        lo + ((n as u64 * p as u64) / parts as u64) as u32
    }
}

/// PageRank to a tolerance: residuals pushed on until none reaches its threshold.
#[megakernel(scheduler = bq)]
pub mod pagerank_delta {
    use wsdsl::prelude::*;

    /// The damping factor.
    #[params]
    pub struct Params {
        /// The damping factor d.
        pub damping: f64,
    }

    /// The graph, the ranks and the residuals.
    #[buffers]
    pub struct Graph {
        /// Row offsets of the out-edges.
        pub offsets: ReadOnly<u32>,
        /// The target of every out-edge, row by row.
        pub targets: ReadOnly<u32>,
        /// The residual at which each vertex is enqueued: tolerance x max(out-degree, 1).
        pub threshold: ReadOnly<f64>,
        /// Every vertex's rank so far.
        pub rank: Buffer<f64>,
        /// Rank received but not yet passed on.
        pub residual: Buffer<f64>,
    }

    /// What the pushes did.
    #[counters]
    pub struct Counters {
        /// Edges a residual was pushed along.
        pub edges: Sum<u64>,
    }

    /// Vertex `v`'s residual has reached its threshold: push it on.
    #[task]
    pub struct Push {
        /// The vertex.
        pub v: u32,
    }

    #[spawn]
    fn push(p: &Push, ctx: &mut Ctx) {
        let v = p.v as usize;
        // Claim the residual (swap it for zero).
        let mut r = ctx.buffers.residual.get(v);
        loop {
            let seen = ctx.buffers.residual.atomic_cas(v, r, 0.0);
            if seen.to_bits() == r.to_bits() {
                break;
            }
            r = seen;
        }
        ctx.buffers.rank.atomic_add(v, r);
        let lo = ctx.buffers.offsets.get(v);
        let hi = ctx.buffers.offsets.get(v + 1);
        if hi > lo {
            let share = ctx.params.damping * r / (hi - lo) as f64;
            for e in lo..hi {
                let u = ctx.buffers.targets.get(e as usize) as usize;
                let before = ctx.buffers.residual.atomic_add(u, share);
                let threshold = ctx.buffers.threshold.get(u);
                if before < threshold && before + share >= threshold {
                    ctx.spawn(Push { v: u as u32 });
                }
            }
            ctx.counters.edges.add((hi - lo) as u64);
        }
    }
}

/// The damping factor d: a rank is (1 - d) / n plus d times the shares of its in-neighbours.
pub const DAMPING: f64 = 0.85;

/// The graph's arrays on the device (kept there between runs).
pub struct DeviceGraph {
    /// Row offsets of the out-edges.
    pub offsets: ReadOnly<u32>,
    /// The target of every out-edge, row by row.
    pub targets: ReadOnly<u32>,
    /// Every vertex's in-degree.
    pub in_degree: ReadOnly<u32>,
}

impl DeviceGraph {
    /// The arrays of `g`, its in-degrees counted.
    pub fn new(g: &Graph) -> Self {
        let mut in_degree = vec![0u32; g.vertices()];
        for &u in &g.targets {
            in_degree[u as usize] += 1;
        }
        DeviceGraph {
            offsets: ReadOnly::from_vec(g.offsets.clone()),
            targets: ReadOnly::from_vec(g.targets.clone()),
            in_degree: ReadOnly::from_vec(in_degree),
        }
    }
}

/// Ranks after `iterations` iterations from 1/n each (the paper's formulation); edges scanned.
pub fn iterate(rt: &Runtime, g: &DeviceGraph, iterations: u32) -> Result<(Vec<f64>, u64, Output<pagerank::Kernel>), wsdsl::Error> {
    let n = g.in_degree.len();
    if iterations == 0 || n == 0 {
        return Err(wsdsl::Error::InvalidConfig("PageRank needs at least one iteration and one vertex".into()));
    }
    let slots = (iterations as usize + 1).checked_mul(n).filter(|&s| s < u32::MAX as usize);
    let Some(slots) = slots else {
        return Err(wsdsl::Error::InvalidConfig(format!("{iterations} iterations of {n} vertices need too many rank slots; use --tolerance")));
    };
    let mut rank = vec![0.0f64; slots];
    rank[..n].fill(1.0 / n as f64);
    let buffers = pagerank::Graph {
        offsets: g.offsets.clone(),
        targets: g.targets.clone(),
        in_degree: g.in_degree.clone(),
        rank: Buffer::from_vec(rank),
        arrived: Buffer::zeroed(iterations as usize * n),
    };
    let offsets = g.offsets.as_slice();
    let roots: Vec<pagerank::Node> =
        (0..n as u32).map(|v| pagerank::Node { v, i: 0, lo: offsets[v as usize], hi: offsets[v as usize + 1], whole: 1 }).collect();
    let out = rt.run_with::<pagerank::Kernel>(pagerank::Params { iterations, damping: DAMPING }, &buffers, roots)?;
    let all = buffers.rank.to_vec();
    let last = iterations as usize * n;
    Ok((all[last..last + n].to_vec(), out.counters.edges.get(), out))
}

/// In-edges per task of `pagerank_pull`.
pub const PULL_GRAIN: u32 = 256;

/// How close `pull`'s ranks after `iterations` are to float64 power iteration (the largest
/// relative difference): its shares are 32-bit floats, each rounded by up to 6e-8 (relative),
/// and a rank made mostly of shares keeps every iteration's rounding, so the bound grows with
/// the iterations: 1e-7 each, 1e-6 at least (8 iterations on R-MAT 22 measured 7e-8). The
/// other formulations are float64 throughout and agree to 1e-9.
pub fn pull_tolerance(iterations: u32) -> f64 {
    1e-7 * iterations.max(10) as f64
}

/// The transposed graph and out-degrees for `pull` (built once; kept on the device).
pub struct PullGraph {
    /// Row offsets of the in-edges.
    pub in_offsets: ReadOnly<u32>,
    /// The source of every in-edge, row by row.
    pub sources: ReadOnly<u32>,
    /// Every vertex's out-degree.
    pub out_degree: ReadOnly<u32>,
    /// Whether some vertex has more than SKEWED times the mean in-degree (`Params::skewed`).
    pub skewed: bool,
}

/// A graph whose largest in-degree is above this many times the mean is skewed: an even cut
/// of its ranges by vertices gives lanes from 1 to a grain of in-edges (an R-MAT graph's
/// largest is thousands of times its mean; a grid's and a road network's a few times).
/// Walking every range's offsets instead cost the 2048 x 2048 grid 36% (7.7-8.0 ms against
/// 5.7) and saved R-MAT 22 4% (27.0 against 28.1 ms with a check on the device of whether
/// the even cut would do).
pub const SKEWED: u32 = 16;

impl PullGraph {
    /// The transpose of `g`, its out-degrees, and whether its in-degrees are skewed.
    pub fn new(g: &Graph) -> Self {
        let t = g.transpose();
        let out_degree = (0..g.vertices() as u32).map(|v| g.degree(v)).collect();
        let largest = t.offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        let mean = t.targets.len() as u64 / (t.offsets.len() as u64).saturating_sub(1).max(1);
        let skewed = largest as u64 > SKEWED as u64 * mean.max(1);
        PullGraph { in_offsets: ReadOnly::from_vec(t.offsets), sources: ReadOnly::from_vec(t.targets), out_degree: ReadOnly::from_vec(out_degree), skewed }
    }
}

/// Ranks after `iterations` synchronous iterations from 1/n, pulled over in-edges; edges summed.
pub fn pull(rt: &Runtime, g: &PullGraph, iterations: u32, grain: u32) -> Result<(Vec<f64>, u64, Output<pagerank_pull::Kernel>), wsdsl::Error> {
    let n = g.out_degree.len();
    if iterations == 0 || n == 0 || grain == 0 {
        return Err(wsdsl::Error::InvalidConfig("PageRank needs at least one iteration, one vertex and a grain of at least 1".into()));
    }
    // The shares and the hubs' partial sums live on the device only (the run computes the
    // first shares itself); every rank is written by the last iteration.
    let buffers = pagerank_pull::Graph {
        in_offsets: g.in_offsets.clone(),
        sources: g.sources.clone(),
        out_degree: g.out_degree.clone(),
        share: Buffer::scratch(2 * n),
        hub_sum: Buffer::scratch(n),
        rank: Buffer::zeroed(n),
    };
    let params = pagerank_pull::Params { iterations, damping: DAMPING, grain, skewed: g.skewed };
    let out = rt.run_with::<pagerank_pull::Kernel>(params, &buffers, [pagerank_pull::Sweep { n: n as u32 }])?;
    Ok((buffers.rank.into_vec(), out.counters.edges.get(), out))
}

/// The smallest tolerance [`converge`] accepts on `vertices` vertices:
/// `f64::EPSILON * (1 - d) / n`. Every rank is at least the teleport share `(1 - d) / n`, and
/// adding a residual below about `f64::EPSILON` times a rank leaves the rank as it was (the
/// sum rounds back to it), so residuals smaller than this change no rank: a run to a smaller
/// tolerance would only pass on crumbs that change nothing, for ever longer as the tolerance
/// shrinks. At this tolerance the bound `tolerance * (edges + n) / (1 - d)` is
/// `f64::EPSILON * (edges + n) / n`, the rounding of the sums themselves.
pub fn smallest_tolerance(vertices: usize) -> f64 {
    f64::EPSILON * (1.0 - DAMPING) / vertices.max(1) as f64
}

/// Whether [`converge`] can run to `tolerance` on `vertices` vertices: a finite number, at
/// least [`smallest_tolerance`]; the error says why not and what is accepted.
pub fn check_tolerance(tolerance: f64, vertices: usize) -> Result<(), String> {
    if !(tolerance > 0.0 && tolerance.is_finite()) {
        return Err(format!("the tolerance {tolerance} is not a positive finite number"));
    }
    let smallest = smallest_tolerance(vertices);
    if tolerance < smallest {
        return Err(format!(
            "the tolerance {tolerance:e} is below {smallest:.1e}, the smallest that float64 ranks resolve on {vertices} vertices: \
             every rank is at least (1 - d) / n = {:.1e}, and a residual below f64::EPSILON ({:.1e}) times that changes no rank \
             when added, so a run to a smaller tolerance would only pass on residuals that change nothing, for ever longer. \
             Use a tolerance of {smallest:.1e} or more",
            (1.0 - DAMPING) / vertices.max(1) as f64,
            f64::EPSILON
        ));
    }
    Ok(())
}

/// Ranks within `tolerance * (edges + n) / (1 - d)` in total of the fixed point; edges scanned.
/// The tolerance must pass [`check_tolerance`].
pub fn converge(rt: &Runtime, g: &DeviceGraph, tolerance: f64) -> Result<(Vec<f64>, u64, Output<pagerank_delta::Kernel>), wsdsl::Error> {
    let n = g.in_degree.len();
    if n == 0 {
        return Err(wsdsl::Error::InvalidConfig("PageRank to a tolerance needs a graph with at least one vertex".into()));
    }
    check_tolerance(tolerance, n).map_err(wsdsl::Error::InvalidConfig)?;
    let offsets = g.offsets.as_slice();
    let threshold: Vec<f64> = (0..n).map(|v| tolerance * (offsets[v + 1] - offsets[v]).max(1) as f64).collect();
    let buffers = pagerank_delta::Graph {
        offsets: g.offsets.clone(),
        targets: g.targets.clone(),
        threshold: ReadOnly::from_vec(threshold),
        rank: Buffer::zeroed(n),
        residual: Buffer::filled(n, (1.0 - DAMPING) / n as f64),
    };
    let roots: Vec<pagerank_delta::Push> = (0..n as u32).map(|v| pagerank_delta::Push { v }).collect();
    let out = rt.run_with::<pagerank_delta::Kernel>(pagerank_delta::Params { damping: DAMPING }, &buffers, roots)?;
    Ok((buffers.rank.to_vec(), out.counters.edges.get(), out))
}

/// Synchronous power iteration in float64, the independent reference: `iterations` steps
/// from 1/n, or (with `None`) until the ranks change by less than 1e-15 in total.
pub fn reference(g: &Graph, iterations: Option<u32>) -> Vec<f64> {
    let n = g.vertices();
    let teleport = (1.0 - DAMPING) / n as f64;
    let mut rank = vec![1.0 / n as f64; n];
    let mut step = 0;
    loop {
        let mut next = vec![teleport; n];
        for v in 0..n as u32 {
            let deg = g.degree(v);
            if deg > 0 {
                let share = DAMPING * rank[v as usize] / deg as f64;
                for &u in g.neighbours(v) {
                    next[u as usize] += share;
                }
            }
        }
        let change: f64 = next.iter().zip(&rank).map(|(a, b)| (a - b).abs()).sum();
        rank = next;
        step += 1;
        match iterations {
            Some(k) if step >= k => return rank,
            None if change < 1e-15 || step >= 10_000 => return rank,
            _ => {}
        }
    }
}

/// The largest difference from the reference relative to its rank, and the total difference.
pub fn error(got: &[f64], want: &[f64]) -> (f64, f64) {
    let rel = got.iter().zip(want).map(|(a, b)| (a - b).abs() / b.abs().max(f64::MIN_POSITIVE)).fold(0.0, f64::max);
    let total = got.iter().zip(want).map(|(a, b)| (a - b).abs()).sum();
    (rel, total)
}
