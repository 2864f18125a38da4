//! Breadth-first search, two ways.
//!
//! `bfs` is data-driven: a task scans part of one vertex's edge list, lowers each
//! neighbour's depth with `atomic_min`, and spawns a scan of every neighbour whose depth it
//! lowered. Whatever order the scheduler runs tasks in, each vertex ends at its hop distance;
//! a scan whose vertex was reached by a shorter path meanwhile stops at once. No level waits
//! for another, but a depth-first order reaches vertices by long paths first and scans them
//! again when a shorter one turns up (the `stale` and `edges` counters show how often).
//!
//! `bfs_levels` is level-synchronous, written with a continuation: the `Level` task expands
//! the frontier of one depth into the next (chunks of the frontier as tasks; a vertex that
//! wins the `atomic_cas` from unreached is appended to the next frontier), and its complete
//! handler, run when that whole level is done, starts the next. Every edge of a reached
//! vertex is scanned exactly once.
//!
//! In both, a vertex with more than `grain` edges does not serialise one thread: its edge
//! range is split into up to `SPLIT` parts of whole grains, down to `grain` edges per task.

use wsdsl::graph::Graph;
use wsdsl::prelude::*;

/// FIFO order (the Broker Queue) keeps the search close to breadth-first, so few vertices
/// are reached by a long path first: on the H100 it rescans 1% of edges where the deques'
/// depth-first order rescans 50% (`BENCHMARKS.md`).
#[megakernel(scheduler = bq)]
pub mod bfs {
    use wsdsl::prelude::*;

    /// Parts a long edge range is split into at a time.
    pub const SPLIT: u32 = 16;
    /// The depth of a vertex not reached (yet).
    pub const UNREACHED: u32 = u32::MAX;

    #[params]
    pub struct Params {
        /// Edges one task scans; longer ranges are split.
        pub grain: u32,
    }

    #[buffers]
    pub struct Graph {
        /// CSR: the edges of `v` are `targets[offsets[v]..offsets[v + 1]]`.
        pub offsets: ReadOnly<u32>,
        pub targets: ReadOnly<u32>,
        /// Hop distance from the source, `UNREACHED` until reached.
        pub depth: Buffer<u32>,
    }

    #[counters]
    pub struct Counters {
        /// Edges scanned (with repeats when a vertex was first reached by a longer path).
        pub edges: Sum<u64>,
        /// Scans that found their vertex already reached by a shorter path.
        pub stale: Sum<u64>,
    }

    /// Scan edges `lo..hi` of vertex `v`, which was reached at depth `d`.
    #[task]
    pub struct Scan {
        pub v: u32,
        pub lo: u32,
        pub hi: u32,
        pub d: u32,
    }

    #[spawn]
    fn scan(s: &Scan, ctx: &mut Ctx) {
        if ctx.buffers.depth.get(s.v as usize) < s.d {
            ctx.counters.stale.add(1);
            return;
        }
        let n = s.hi - s.lo;
        if n > ctx.params.grain {
            let parts = parts(n, ctx.params.grain);
            for p in 0..parts {
                ctx.spawn(Scan { v: s.v, lo: cut(s.lo, n, p, parts), hi: cut(s.lo, n, p + 1, parts), d: s.d });
            }
            return;
        }
        let next = s.d + 1;
        for e in s.lo..s.hi {
            let u = ctx.buffers.targets.get(e as usize) as usize;
            if ctx.buffers.depth.atomic_min(u, next) > next {
                let lo = ctx.buffers.offsets.get(u);
                let hi = ctx.buffers.offsets.get(u + 1);
                if hi > lo {
                    ctx.spawn(Scan { v: u as u32, lo, hi, d: next });
                }
            }
        }
        ctx.counters.edges.add(n as u64);
    }

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

#[megakernel]
pub mod bfs_levels {
    use wsdsl::prelude::*;

    pub const SPLIT: u32 = 16;
    pub const UNREACHED: u32 = u32::MAX;

    #[params]
    pub struct Params {
        /// Frontier vertices, or edges of one vertex, per task.
        pub grain: u32,
    }

    #[buffers]
    pub struct Graph {
        pub offsets: ReadOnly<u32>,
        pub targets: ReadOnly<u32>,
        pub depth: Buffer<u32>,
        /// Two frontiers of up to `vertices` entries each: depth `d` lives in half `d % 2`.
        pub frontier: Buffer<u32>,
        /// The length of each half.
        pub sizes: Buffer<u32>,
    }

    #[counters]
    pub struct Counters {
        pub edges: Sum<u64>,
        pub levels: Max<u32>,
    }

    /// Expands the frontier of depth `d`, then (in its complete handler) each next one.
    #[task]
    pub struct Level {
        pub d: u32,
    }

    /// Frontier entries `lo..hi` of depth `d`.
    #[task]
    pub struct Chunk {
        pub d: u32,
        pub lo: u32,
        pub hi: u32,
    }

    /// Edges `lo..hi` of a vertex at depth `d`.
    #[task]
    pub struct Edges {
        pub d: u32,
        pub lo: u32,
        pub hi: u32,
    }

    #[spawn]
    fn level(l: &Level, ctx: &mut Ctx) {
        // Round 0 (here) expands depth `d`; the complete handler's round k, run when depth
        // `d + k - 1` is fully expanded, the next one. A level with no vertices ends it.
        let d = l.d + ctx.round();
        let n = ctx.buffers.sizes.get((d % 2) as usize);
        if n > 0 {
            ctx.buffers.sizes.set(((d + 1) % 2) as usize, 0);
            ctx.counters.levels.max(d + 1);
            ctx.spawn(Chunk { d, lo: 0, hi: n });
        }
    }

    #[complete]
    fn next_level(l: &Level, ctx: &mut Ctx) {
        let d = l.d + ctx.round();
        let n = ctx.buffers.sizes.get((d % 2) as usize);
        if n > 0 {
            ctx.buffers.sizes.set(((d + 1) % 2) as usize, 0);
            ctx.counters.levels.max(d + 1);
            ctx.spawn(Chunk { d, lo: 0, hi: n });
        }
    }

    /// Splits a long frontier range; else one `Edges` task per vertex.
    #[spawn]
    fn chunk(c: &Chunk, ctx: &mut Ctx) {
        let n = c.hi - c.lo;
        if n > ctx.params.grain {
            let parts = parts(n, ctx.params.grain);
            for p in 0..parts {
                ctx.spawn(Chunk { d: c.d, lo: cut(c.lo, n, p, parts), hi: cut(c.lo, n, p + 1, parts) });
            }
            return;
        }
        let vertices = ctx.buffers.offsets.len() - 1;
        let here = (c.d % 2) as usize * vertices;
        for i in c.lo..c.hi {
            let v = ctx.buffers.frontier.get(here + i as usize) as usize;
            let lo = ctx.buffers.offsets.get(v);
            let hi = ctx.buffers.offsets.get(v + 1);
            if hi > lo {
                ctx.spawn(Edges { d: c.d, lo, hi });
            }
        }
    }

    /// Splits a long edge range; else claims every unreached neighbour for depth `d + 1`
    /// and appends it to the next frontier.
    #[spawn]
    fn edges(e: &Edges, ctx: &mut Ctx) {
        let n = e.hi - e.lo;
        if n > ctx.params.grain {
            let parts = parts(n, ctx.params.grain);
            for p in 0..parts {
                ctx.spawn(Edges { d: e.d, lo: cut(e.lo, n, p, parts), hi: cut(e.lo, n, p + 1, parts) });
            }
            return;
        }
        let vertices = ctx.buffers.offsets.len() - 1;
        let next = ((e.d + 1) % 2) as usize;
        for i in e.lo..e.hi {
            let u = ctx.buffers.targets.get(i as usize);
            if ctx.buffers.depth.atomic_cas(u as usize, UNREACHED, e.d + 1) == UNREACHED {
                let at = ctx.buffers.sizes.atomic_add(next, 1) as usize;
                ctx.buffers.frontier.set(next * vertices + at, u);
            }
        }
        ctx.counters.edges.add(n as u64);
    }

    /// A split chunk or edge range is done when all its parts are (the level waits for all).
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

/// Edges per task by default: long enough to amortise a task, short enough that a hub's
/// edge list spreads over many workers.
pub const DEFAULT_GRAIN: u32 = 64;

/// The graph's CSR arrays as the program's read-only buffers, with every depth unreached.
/// Built once; later searches on the same arrays reuse the device copies.
pub struct DeviceGraph {
    pub offsets: ReadOnly<u32>,
    pub targets: ReadOnly<u32>,
}

impl DeviceGraph {
    pub fn new(g: &Graph) -> Self {
        DeviceGraph { offsets: ReadOnly::from_vec(g.offsets.clone()), targets: ReadOnly::from_vec(g.targets.clone()) }
    }
}

/// What a search found.
pub struct Searched {
    pub depth: Vec<u32>,
    pub edges_scanned: u64,
    pub stale: u64,
}

/// Hop distances from `source` (`bfs::UNREACHED` where there is no path).
pub fn search(rt: &Runtime, g: &DeviceGraph, source: u32, grain: u32) -> Result<(Searched, Output<bfs::Kernel>), wsdsl::Error> {
    let vertices = g.offsets.len() - 1;
    check_search(vertices, source, grain)?;
    let buffers = bfs::Graph { offsets: g.offsets.clone(), targets: g.targets.clone(), depth: Buffer::filled(vertices, bfs::UNREACHED) };
    buffers.depth.set(source as usize, 0);
    let (lo, hi) = (g.offsets.get(source as usize), g.offsets.get(source as usize + 1));
    let roots: Vec<bfs::Scan> = if hi > lo { vec![bfs::Scan { v: source, lo, hi, d: 0 }] } else { Vec::new() };
    let out = rt.run_with::<bfs::Kernel>(bfs::Params { grain }, &buffers, roots)?;
    let searched = Searched { depth: buffers.depth.to_vec(), edges_scanned: out.counters.edges.get(), stale: out.counters.stale.get() };
    Ok((searched, out))
}

/// Hop distances from `source` level by level (`bfs_levels`); also the number of levels.
pub fn search_levels(rt: &Runtime, g: &DeviceGraph, source: u32, grain: u32) -> Result<(Searched, Output<bfs_levels::Kernel>), wsdsl::Error> {
    let vertices = g.offsets.len() - 1;
    check_search(vertices, source, grain)?;
    let buffers = bfs_levels::Graph {
        offsets: g.offsets.clone(),
        targets: g.targets.clone(),
        depth: Buffer::filled(vertices, bfs::UNREACHED),
        frontier: Buffer::zeroed(2 * vertices),
        sizes: Buffer::from_vec(vec![1, 0]),
    };
    buffers.depth.set(source as usize, 0);
    buffers.frontier.set(0, source);
    let out = rt.run_with::<bfs_levels::Kernel>(bfs_levels::Params { grain }, &buffers, [bfs_levels::Level { d: 0 }])?;
    let searched = Searched { depth: buffers.depth.to_vec(), edges_scanned: out.counters.edges.get(), stale: 0 };
    Ok((searched, out))
}

fn check_search(vertices: usize, source: u32, grain: u32) -> Result<(), wsdsl::Error> {
    if source as usize >= vertices {
        return Err(wsdsl::Error::InvalidConfig(format!("the source vertex {source} is not in the graph (vertices 0..{vertices})")));
    }
    if grain == 0 {
        return Err(wsdsl::Error::InvalidConfig("the grain (edges per task) must be at least 1".into()));
    }
    Ok(())
}

/// The vertex searches start from by default: `0` if it has edges, else the first that does.
pub fn default_source(g: &Graph) -> u32 {
    (0..g.vertices() as u32).find(|&v| g.degree(v) > 0).unwrap_or(0)
}

/// Hop distances by a plain sequential BFS: the independent reference.
pub fn reference(g: &Graph, source: u32) -> Vec<u32> {
    let mut depth = vec![bfs::UNREACHED; g.vertices()];
    let mut frontier = vec![source];
    depth[source as usize] = 0;
    let mut d = 0;
    while !frontier.is_empty() {
        d += 1;
        let mut next = Vec::new();
        for &v in &frontier {
            for &u in g.neighbours(v) {
                if depth[u as usize] == bfs::UNREACHED {
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
    let reached: Vec<u32> = depth.iter().copied().filter(|&d| d != bfs::UNREACHED).collect();
    (reached.len(), reached.iter().copied().max().unwrap_or(0))
}

/// Edges of the reached vertices: what "traversed edges per second" counts (Graph500).
pub fn traversed_edges(g: &Graph, depth: &[u32]) -> u64 {
    (0..g.vertices()).filter(|&v| depth[v] != bfs::UNREACHED).map(|v| g.degree(v as u32) as u64).sum()
}

/// Compares with the reference: `Err` names the first vertices that differ.
pub fn check(g: &Graph, source: u32, depth: &[u32]) -> Result<(), String> {
    let want = reference(g, source);
    let bad: Vec<usize> = (0..want.len()).filter(|&v| want[v] != depth[v]).collect();
    if bad.is_empty() {
        return Ok(());
    }
    let show: Vec<String> = bad.iter().take(5).map(|&v| format!("vertex {v}: {} (want {})", depth[v], want[v])).collect();
    Err(format!("{} depths differ from a sequential BFS: {}", bad.len(), show.join(", ")))
}
