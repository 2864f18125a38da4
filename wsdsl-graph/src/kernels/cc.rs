//! Connected components by union-find with sampling: Afforest (Sutton, Ben-Nun, Barak,
//! IPDPS 2018), the algorithm of GAPBS's `cc`.
//!
//! Every vertex starts as its own tree (`comp[v] = v`, written on the device by the first
//! phase, as GAPBS writes it inside its timed kernel: the host then builds and uploads
//! nothing, and the labels' buffer is zeroed memory the copy back fills). Linking an edge
//! `(u, v)` walks both ends up to their roots and hooks the higher root under the lower one
//! with a compare-and-swap, retrying when another link moved a root first; since a root only
//! ever gets a lower parent, every root is the smallest vertex of its tree. Compressing points
//! every vertex straight at its root. Afforest's order of work:
//!
//! 1. for each of the first `rounds` (2) neighbour positions, link every vertex with its
//!    neighbour at that position, then compress: a sparse sample of the graph that already
//!    joins most of the largest component;
//! 2. sample `samples` (1,024) vertices' roots and take the most frequent as the largest
//!    component's;
//! 3. link the remaining edges of every vertex *outside* that component (on a power-law or
//!    mesh graph, most vertices are in it and skip their edges), then compress.
//!
//! An edge skipped in step 3 joins two vertices already in the largest component, or was
//! linked in step 1 from the other end, so every component comes out whole, and labelled
//! with its smallest vertex whichever sample was drawn.
//!
//! Each phase is a tree of `Part` tasks over a range (vertices, or sample numbers), split 16
//! ways until a part holds `grain`; a vertex with more than `grain` edges left for step 3
//! gets `Part`s over its edges. A phase must end before the next starts: the `Components`
//! task's complete handler, run once a phase's whole tree is done, starts the next (eight
//! phases, so the continuations cost nothing measurable).
//!
//! The phases run on the Broker Queue (`scheduler = bq`): a phase is a burst of short
//! independent tasks that must reach every worker quickly, which a shared FIFO hands out in
//! one dequeue where the deques spread a tree one steal at a time. Measured on an H100
//! (`BENCHMARKS.md`): R-MAT 22 in 3.4-3.5 ms on the Broker Queue against 7.2-7.3 ms on the
//! deques, whose workers spent 64% of their time stealing; a 2048 x 2048 grid 3.7-3.9 ms
//! against 7.1-7.2.

use wsdsl::graph::Graph;
use wsdsl::prelude::*;

/// Afforest's program (the module's documentation says how it runs).
#[megakernel(scheduler = bq)]
pub mod afforest {
    use wsdsl::prelude::*;

    /// The most parts a range is split into at a time.
    pub const SPLIT: u32 = 16;

    /// A `Part`'s job: link each vertex with its neighbour at position `arg`.
    pub const LINK: u32 = 0;
    /// Point each vertex at its root.
    pub const COMPRESS: u32 = 1;
    /// Vote for the root of a sampled vertex (the range is sample numbers).
    pub const SAMPLE: u32 = 2;
    /// Link the edges from position `rounds` on of each vertex whose root is not `arg`.
    pub const FINISH: u32 = 3;
    /// Link vertex `arg` with the targets of edges `lo..hi` (a long edge list of FINISH).
    pub const EDGES: u32 = 4;
    /// Make each vertex its own root (the first phase).
    pub const INIT: u32 = 5;
    /// Vertices per INIT task, in grains: a write per vertex is much less than a link, so a
    /// part holds more of them (at R-MAT 22, 4,096 tasks rather than 262,144).
    pub const INIT_GRAINS: u32 = 64;

    /// Afforest's settings (`super::Afforest`).
    #[params]
    pub struct Params {
        /// Vertices, samples or edges per task.
        pub grain: u32,
        /// Neighbour positions linked before sampling.
        pub rounds: u32,
        /// Vertices sampled to find the largest component.
        pub samples: u32,
    }

    /// The graph and the union-find forest.
    #[buffers]
    pub struct Graph {
        /// Row offsets of the (undirected) edges.
        pub offsets: ReadOnly<u32>,
        /// The target of every edge, row by row.
        pub targets: ReadOnly<u32>,
        /// Each vertex's parent; a root's is itself.
        pub comp: Buffer<u32>,
        /// Samples per root, counted in buckets by a hash of the root.
        pub votes: Buffer<u32>,
        /// The most votes seen and its root, as `votes << 32 | root`.
        pub largest: Buffer<u64>,
    }

    /// What the phases did.
    #[counters]
    pub struct Counters {
        /// Edges linked.
        pub links: Sum<u64>,
        /// Vertices whose remaining edges step 3 skipped (in the largest component).
        pub skipped: Sum<u64>,
    }

    /// The whole computation: phase k runs in round k of this task.
    #[task]
    pub struct Components {
        /// The graph's vertices.
        pub vertices: u32,
    }

    /// Items `lo..hi` of a phase: vertices, sample numbers or (EDGES) edges of vertex `arg`.
    #[task]
    pub struct Part {
        /// `INIT`, `LINK`, `COMPRESS`, `SAMPLE`, `FINISH` or `EDGES`.
        pub job: u32,
        /// The job's argument: a neighbour position (`LINK`), the largest component's root (`FINISH`), a vertex (`EDGES`).
        pub arg: u32,
        /// The first item.
        pub lo: u32,
        /// One past the last item.
        pub hi: u32,
    }

    #[spawn]
    fn start(c: &Components, ctx: &mut Ctx) {
        ctx.spawn(phase(0, ctx.params.rounds, c.vertices, ctx.params.samples, 0));
    }

    #[complete]
    fn next_phase(c: &Components, ctx: &mut Ctx) {
        let k = ctx.round();
        if k < phases(ctx.params.rounds) {
            let largest = (ctx.buffers.largest.get(0) & 0xffff_ffff) as u32;
            ctx.spawn(phase(k, ctx.params.rounds, c.vertices, ctx.params.samples, largest));
        }
    }

    #[spawn]
    fn part(p: &Part, ctx: &mut Ctx) {
        let n = p.hi - p.lo;
        let grain = if p.job == INIT { ctx.params.grain * INIT_GRAINS } else { ctx.params.grain };
        if n > grain {
            let parts = parts(n, grain);
            for k in 0..parts {
                ctx.spawn(Part { job: p.job, arg: p.arg, lo: cut(p.lo, n, k, parts), hi: cut(p.lo, n, k + 1, parts) });
            }
            return;
        }
        if p.job == INIT {
            for v in p.lo..p.hi {
                ctx.buffers.comp.set(v as usize, v);
            }
            return;
        }
        if p.job == COMPRESS {
            for v in p.lo..p.hi {
                let mut parent = ctx.buffers.comp.get(v as usize);
                let mut grand = ctx.buffers.comp.get(parent as usize);
                while parent != grand {
                    ctx.buffers.comp.set(v as usize, grand);
                    parent = grand;
                    grand = ctx.buffers.comp.get(parent as usize);
                }
            }
            return;
        }
        if p.job == SAMPLE {
            let vertices = ctx.buffers.comp.len() as u32;
            let buckets = ctx.buffers.votes.len() as u32;
            for s in p.lo..p.hi {
                let root = ctx.buffers.comp.get((mix(s) % vertices) as usize);
                let votes = ctx.buffers.votes.atomic_add((mix(root ^ 0x9e37_79b9) % buckets) as usize, 1) + 1;
                ctx.buffers.largest.atomic_max(0, (votes as u64) << 32 | root as u64);
            }
            return;
        }
        // LINK, FINISH and EDGES: each item is a vertex and a range of its edges.
        let mut links = 0u64;
        let mut skipped = 0u64;
        for x in p.lo..p.hi {
            let u = if p.job == EDGES { p.arg } else { x };
            let (first, last) = if p.job == EDGES {
                (x, x + 1)
            } else {
                let lo = ctx.buffers.offsets.get(x as usize);
                let hi = ctx.buffers.offsets.get(x as usize + 1);
                if p.job == LINK {
                    let at = lo + p.arg;
                    if at < hi { (at, at + 1) } else { (hi, hi) }
                } else if ctx.buffers.comp.get(x as usize) == p.arg {
                    skipped += 1;
                    (hi, hi)
                } else {
                    let from = lo + ctx.params.rounds;
                    if from < hi { (from, hi) } else { (hi, hi) }
                }
            };
            if last - first > ctx.params.grain {
                ctx.spawn(Part { job: EDGES, arg: u, lo: first, hi: last });
                continue;
            }
            for e in first..last {
                links += 1;
                // Link u and v: hook the higher of their roots under the lower.
                let mut a = ctx.buffers.comp.get(u as usize);
                let mut b = ctx.buffers.comp.get(ctx.buffers.targets.get(e as usize) as usize);
                while a != b {
                    let high = if a > b { a } else { b };
                    let low = if a > b { b } else { a };
                    let above = ctx.buffers.comp.get(high as usize);
                    if above == low {
                        break;
                    }
                    if above == high && ctx.buffers.comp.atomic_cas(high as usize, high, low) == high {
                        break;
                    }
                    a = ctx.buffers.comp.get(ctx.buffers.comp.get(high as usize) as usize);
                    b = ctx.buffers.comp.get(low as usize);
                }
            }
        }
        ctx.counters.links.add(links);
        ctx.counters.skipped.add(skipped);
    }

    /// A part is done when all its parts are (the phase waits for all of them).
    #[complete]
    fn part_done(_p: &Part, _ctx: &mut Ctx) {}

    /// The phases of a run: initialise, link and compress `rounds` times, sample, finish,
    /// compress.
    pub fn phases(rounds: u32) -> u32 {
        2 * rounds + 4
    }

    /// Phase `k` of [`phases`].
    fn phase(k: u32, rounds: u32, vertices: u32, samples: u32, largest: u32) -> Part {
        if k == 0 {
            Part { job: INIT, arg: 0, lo: 0, hi: vertices }
        } else if k <= 2 * rounds {
            let job = if k % 2 == 1 { LINK } else { COMPRESS };
            Part { job, arg: (k - 1) / 2, lo: 0, hi: vertices }
        } else if k == 2 * rounds + 1 {
            Part { job: SAMPLE, arg: 0, lo: 0, hi: samples }
        } else if k == 2 * rounds + 2 {
            Part { job: FINISH, arg: largest, lo: 0, hi: vertices }
        } else {
            Part { job: COMPRESS, arg: 0, lo: 0, hi: vertices }
        }
    }

    /// A 32-bit mix (MurmurHash3's finalizer): sample numbers to vertices, roots to buckets.
    fn mix(x: u32) -> u32 {
        let mut h = x ^ (x >> 16);
        h = h.wrapping_mul(0x85eb_ca6b);
        h ^= h >> 13;
        h = h.wrapping_mul(0xc2b2_ae35);
        h ^ (h >> 16)
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

/// Vertices, samples or edges per task by default: enough tasks to fill a GPU on a graph of
/// a million vertices, few enough that a task is more than its scheduling.
pub const DEFAULT_GRAIN: u32 = 16;

/// Afforest's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Afforest {
    /// Vertices, samples or edges per task.
    pub grain: u32,
    /// Neighbour positions linked before sampling (Afforest's 2).
    pub rounds: u32,
    /// Vertices sampled to find the largest component (Afforest's 1,024).
    pub samples: u32,
}

impl Default for Afforest {
    fn default() -> Self {
        Afforest { grain: DEFAULT_GRAIN, rounds: 2, samples: 1024 }
    }
}

/// Vote buckets: many more than the components a sample can hit, so the largest rarely
/// shares one (if it did, another large root would be skipped in step 3: only slower).
const BUCKETS: usize = 4096;

/// An undirected graph's CSR as read-only device arrays (uploaded once, reused by every run).
pub struct DeviceGraph {
    /// Row offsets.
    pub offsets: ReadOnly<u32>,
    /// The target of every edge, row by row.
    pub targets: ReadOnly<u32>,
}

impl DeviceGraph {
    /// Refuses a graph that is not undirected: union-find over out-edges alone would miss
    /// the components a directed edge joins only from its other end.
    pub fn new(g: &Graph) -> Result<Self, wsdsl::Error> {
        if !g.is_symmetric() {
            return Err(wsdsl::Error::InvalidConfig(
                "connected components need an undirected graph (every edge in both directions): symmetrize it".into(),
            ));
        }
        Ok(DeviceGraph { offsets: ReadOnly::from_vec(g.offsets.clone()), targets: ReadOnly::from_vec(g.targets.clone()) })
    }
}

/// What a run found: each vertex labelled with the smallest vertex of its component.
pub struct Components {
    /// The smallest vertex of each vertex's component.
    pub labels: Vec<u32>,
    /// Edges linked (step 1 links at most `rounds` per vertex; step 3 the rest of those outside
    /// the largest component).
    pub links: u64,
    /// Vertices that skipped step 3.
    pub skipped: u64,
    /// The root the samples found most often.
    pub largest_root: u32,
}

/// Connected components of the undirected graph `g` by Afforest.
pub fn afforest(rt: &Runtime, g: &DeviceGraph, how: Afforest) -> Result<(Components, Output<afforest::Kernel>), wsdsl::Error> {
    let (params, buffers, roots) = afforest_inputs(g, how)?;
    let out = rt.run_with::<afforest::Kernel>(params, &buffers, roots)?;
    let found = Components {
        labels: buffers.comp.into_vec(),
        links: out.counters.links.get(),
        skipped: out.counters.skipped.get(),
        largest_root: (buffers.largest.get(0) & 0xffff_ffff) as u32,
    };
    Ok((found, out))
}

/// What [`afforest()`] hands the runtime: the parameters, the buffers (every vertex its own
/// root) and the root task (none for a graph without vertices: nothing to sample).
pub fn afforest_inputs(g: &DeviceGraph, how: Afforest) -> Result<(afforest::Params, afforest::Graph, Vec<afforest::Components>), wsdsl::Error> {
    if how.grain == 0 {
        return Err(wsdsl::Error::InvalidConfig("the grain (vertices or edges per task) must be at least 1".into()));
    }
    if how.samples == 0 {
        return Err(wsdsl::Error::InvalidConfig("sample at least 1 vertex to find the largest component".into()));
    }
    let vertices = g.offsets.len() - 1;
    let buffers = afforest::Graph {
        offsets: g.offsets.clone(),
        targets: g.targets.clone(),
        // Written by the first phase on the device.
        comp: Buffer::zeroed(vertices),
        votes: Buffer::zeroed(BUCKETS),
        largest: Buffer::zeroed(1),
    };
    let params = afforest::Params { grain: how.grain, rounds: how.rounds, samples: how.samples };
    let roots = if vertices == 0 { vec![] } else { vec![afforest::Components { vertices: vertices as u32 }] };
    Ok((params, buffers, roots))
}
