//! Direction-optimizing breadth-first search (Beamer, Asanović, Patterson, SC 2012).
//!
//! A top-down step scans the out-edges of the frontier and claims every unvisited neighbour
//! (a compare-and-swap on its depth); a bottom-up step lets every unvisited vertex scan its
//! in-edges for a parent in the frontier and stop at the first. When the frontier is a large
//! part of the graph, bottom-up scans far fewer edges. Beamer's heuristic picks the step:
//! go bottom-up when the frontier's out-edges `m_f` exceed the edges not yet explored `m_u`
//! over `alpha` (15); go back to top-down when the frontier has shrunk below `n / beta` (36)
//! vertices. The depth array is the frontier's bitmap (level `r` is the vertices of depth
//! `r`), so entering bottom-up costs nothing; leaving it, a gather step queues level `r`.
//!
//! Levels cost little, so long-diameter graphs stay fast (a 2048 x 2048 grid has 4,095):
//!
//! - A step is a tree of `Part` tasks over its range (queue entries top-down, vertex ids
//!   bottom-up), split 16 ways until a part holds a grain; an edge list longer than its grain
//!   is a tree of `Edges` tasks. A top-down step's work is proportional to its frontier.
//! - No complete handler waits for a step. Every leaf adds what it did to `PENDING` (the
//!   units of the step, set by the step's `Level` task) with one atomic after its writes and
//!   a fence; the task that brings it to zero starts the next level. A level thus costs the
//!   hand-offs down the tree and no continuation back up (a joined level costs a complete
//!   handler per tree level, about 4 µs each on an H100: `BENCHMARKS.md`, chains).
//! - A leaf that meets a hub adds the hub's `Edges` task to the count before spawning it,
//!   while its own units still hold the count above zero; an `Edges` task that splits
//!   counts its parts before spawning them. So the count cannot reach zero early.
//! - Counts are added per task, not per vertex: a top-down discovery takes one atomic (its
//!   queue slot), a bottom-up one none.
//!
//! Every level's vertices are appended to one queue of `n` entries (a vertex is queued once
//! at most: by the top-down step that claims it, or by the gather after the bottom-up step
//! that found it); level `r` is `queue[START[r % 2]..][..SIZE[r % 2]]`.

use wsdsl::prelude::*;

/// The direction-optimizing search's program (the module's documentation says how it runs).
#[megakernel(scheduler = bq)]
pub mod direction {
    use wsdsl::prelude::*;

    /// The most parts a range or an edge list is split into at a time.
    pub const SPLIT: u32 = 16;
    /// The depth of a vertex not reached (yet).
    pub const UNREACHED: u32 = u32::MAX;

    /// A step that scans the out-edges of the frontier.
    pub const TOP_DOWN: u32 = 0;
    /// A step that lets every unvisited vertex look for a parent among its in-edges.
    pub const BOTTOM_UP: u32 = 1;
    /// Queue level `r` from the depth array (after bottom-up steps, before top-down ones).
    pub const GATHER: u32 = 2;

    /// Slots of `tally`: the size of a level (2 slots, by level parity).
    pub const SIZE: usize = 0;
    /// Slots of `tally`: where a level starts in the queue (2, by parity).
    pub const START: usize = 2;
    /// The slot of `tally` holding the queue's tail.
    pub const TAIL: usize = 4;
    /// The slot of `tally` holding the units of the step in flight.
    pub const PENDING: usize = 5;
    /// Slots of `edge_tally`: the out-edges of a level's vertices (2, by parity; Beamer's
    /// `m_f`).
    pub const SCOUT: usize = 0;
    /// The slot of `edge_tally` holding the edges not yet explored (Beamer's `m_u`).
    pub const UNEXPLORED: usize = 2;

    /// The search's settings (`super::Direction`) and its source.
    #[params]
    pub struct Params {
        /// Frontier vertices per top-down task.
        pub frontier_grain: u32,
        /// Vertices per bottom-up or gather task.
        pub vertex_grain: u32,
        /// Edges per task: a longer edge list is split across tasks.
        pub edge_grain: u32,
        /// Bottom-up when `m_f > m_u / alpha`; 0: never.
        pub alpha: u32,
        /// Back to top-down when the frontier shrinks below `n / beta`.
        pub beta: u32,
        /// Where the search starts: level 0's one queue entry, written by level 0's task.
        pub source: u32,
    }

    /// The graph, the depths and the search's bookkeeping.
    #[buffers]
    pub struct Graph {
        /// Row offsets of the out-edges.
        pub offsets: ReadOnly<u32>,
        /// The target of every out-edge, row by row.
        pub targets: ReadOnly<u32>,
        /// Row offsets of the in-edges (the transpose; an undirected graph's own arrays).
        pub in_offsets: ReadOnly<u32>,
        /// The source of every in-edge, row by row.
        pub in_sources: ReadOnly<u32>,
        /// The depth of every vertex (`UNREACHED` until found): level `r` is the vertices of depth `r`.
        pub depth: Buffer<u32>,
        /// Every level's vertices, one level after another (device-only working memory).
        pub queue: Buffer<u32>,
        /// The levels' sizes and starts, the queue's tail, the units pending (`SIZE`, `START`, `TAIL`, `PENDING`).
        pub tally: Buffer<u32>,
        /// The frontier's out-edges and the edges unexplored (`SCOUT`, `UNEXPLORED`).
        pub edge_tally: Buffer<u64>,
    }

    /// What the search did.
    #[counters]
    pub struct Counters {
        /// Edges scanned.
        pub edges: Sum<u64>,
        /// Levels expanded.
        pub levels: Max<u32>,
        /// Bottom-up steps among them.
        pub bottom_up: Sum<u32>,
    }

    /// Starts the step of level `r`, after a step `last` whose frontier had `awake` vertices.
    #[task]
    pub struct Level {
        /// The level whose step this task starts.
        pub r: u32,
        /// The kind of step before it (`TOP_DOWN`, `BOTTOM_UP` or `GATHER`).
        pub last: u32,
        /// The size of the frontier that step found.
        pub awake: u32,
    }

    /// Units `lo..hi` of a step at level `r`: queue entries (top-down) or vertex ids.
    #[task]
    pub struct Part {
        /// `TOP_DOWN`, `BOTTOM_UP` or `GATHER`.
        pub step: u32,
        /// The level.
        pub r: u32,
        /// The first unit.
        pub lo: u32,
        /// One past the last unit.
        pub hi: u32,
    }

    /// Edges `lo..hi` of vertex `v` at level `r`: out-edges (top-down) or in-edges (bottom-up).
    #[task]
    pub struct Edges {
        /// `TOP_DOWN` or `BOTTOM_UP`.
        pub step: u32,
        /// The level.
        pub r: u32,
        /// The vertex whose edges these are.
        pub v: u32,
        /// The first edge.
        pub lo: u32,
        /// One past the last edge.
        pub hi: u32,
    }

    #[spawn]
    fn level(l: &Level, ctx: &mut Ctx) {
        let r = l.r;
        if r == 0 {
            // The queue is device-only working memory (cleared at launch): level 0 is the
            // source alone, at depth 0 (both ordered before the step's parts by the fence
            // below). Set here rather than by the host, so that the depths arrive as one
            // value, set on the device without a tile copied.
            ctx.buffers.queue.set(0, ctx.params.source);
            ctx.buffers.depth.set(ctx.params.source as usize, 0);
        }
        let here = (r % 2) as usize;
        let next = ((r + 1) % 2) as usize;
        let size = ctx.buffers.tally.get(SIZE + here);
        if size == 0 {
            return;
        }
        let n = ctx.buffers.depth.len() as u32;
        let step = if l.last == BOTTOM_UP {
            if size >= l.awake || size > n / ctx.params.beta { BOTTOM_UP } else { GATHER }
        } else if l.last == GATHER {
            TOP_DOWN
        } else {
            let scout = ctx.buffers.edge_tally.get(SCOUT + here);
            let unexplored = ctx.buffers.edge_tally.get(UNEXPLORED);
            if ctx.params.alpha > 0 && scout > unexplored / ctx.params.alpha as u64 {
                BOTTOM_UP
            } else {
                ctx.buffers.edge_tally.set(UNEXPLORED, unexplored.saturating_sub(scout));
                TOP_DOWN
            }
        };
        if step == GATHER {
            // Level r is recounted as it is queued.
            ctx.buffers.tally.set(START + here, ctx.buffers.tally.get(TAIL));
            ctx.buffers.tally.set(SIZE + here, 0);
        } else {
            ctx.counters.levels.max(r + 1);
            ctx.buffers.tally.set(START + next, ctx.buffers.tally.get(TAIL));
            ctx.buffers.tally.set(SIZE + next, 0);
            ctx.buffers.edge_tally.set(SCOUT + next, 0);
        }
        if step == BOTTOM_UP {
            ctx.counters.bottom_up.add(1);
        }
        let (lo, hi) = if step == TOP_DOWN {
            let start = ctx.buffers.tally.get(START + here);
            (start, start + size)
        } else {
            (0, n)
        };
        ctx.buffers.tally.set(PENDING, hi - lo);
        // The counts above before any part of the step can see them.
        ctx.fence();
        ctx.spawn(Part { step, r, lo, hi });
    }

    #[spawn]
    fn part(p: &Part, ctx: &mut Ctx) {
        let count = p.hi - p.lo;
        let grain = if p.step == TOP_DOWN { ctx.params.frontier_grain } else { ctx.params.vertex_grain };
        if count > grain {
            let parts = parts(count, grain);
            for k in 0..parts {
                ctx.spawn(Part { step: p.step, r: p.r, lo: cut(p.lo, count, k, parts), hi: cut(p.lo, count, k + 1, parts) });
            }
            return;
        }
        let here = (p.r % 2) as usize;
        let next = p.r + 1;
        let mut found = 0u32;
        let mut scout = 0u64;
        let mut scanned = 0u64;
        for i in p.lo..p.hi {
            if p.step == GATHER {
                if ctx.buffers.depth.get(i as usize) == p.r {
                    let at = ctx.buffers.tally.atomic_add(TAIL, 1);
                    ctx.buffers.queue.set(at as usize, i);
                    found += 1;
                }
                continue;
            }
            let top_down = p.step == TOP_DOWN;
            let v = if top_down { ctx.buffers.queue.get(i as usize) } else { i };
            if !top_down && ctx.buffers.depth.get(v as usize) != UNREACHED {
                continue;
            }
            let lo = if top_down { ctx.buffers.offsets.get(v as usize) } else { ctx.buffers.in_offsets.get(v as usize) };
            let hi = if top_down { ctx.buffers.offsets.get(v as usize + 1) } else { ctx.buffers.in_offsets.get(v as usize + 1) };
            if hi - lo > ctx.params.edge_grain {
                // A hub: its own task, counted before it is spawned (this part's units,
                // not yet retired, keep the count above zero until then).
                ctx.buffers.tally.atomic_add(PENDING, 1);
                ctx.fence();
                ctx.spawn(Edges { step: p.step, r: p.r, v, lo, hi });
                continue;
            }
            for e in lo..hi {
                scanned += 1;
                if top_down {
                    let u = ctx.buffers.targets.get(e as usize);
                    if ctx.buffers.depth.get(u as usize) == UNREACHED && ctx.buffers.depth.atomic_cas(u as usize, UNREACHED, next) == UNREACHED {
                        let at = ctx.buffers.tally.atomic_add(TAIL, 1);
                        ctx.buffers.queue.set(at as usize, u);
                        found += 1;
                        scout += (ctx.buffers.offsets.get(u as usize + 1) - ctx.buffers.offsets.get(u as usize)) as u64;
                    }
                } else if ctx.buffers.depth.get(ctx.buffers.in_sources.get(e as usize) as usize) == p.r {
                    // No other task looks at v's depth for UNREACHED in this step: a plain store.
                    ctx.buffers.depth.set(v as usize, next);
                    found += 1;
                    scout += (ctx.buffers.offsets.get(v as usize + 1) - ctx.buffers.offsets.get(v as usize)) as u64;
                    break;
                }
            }
        }
        ctx.counters.edges.add(scanned);
        // A gather recounts level r itself; the other steps count level r + 1.
        let slot = if p.step == GATHER { here } else { (next % 2) as usize };
        if found > 0 {
            ctx.buffers.tally.atomic_add(SIZE + slot, found);
        }
        if scout > 0 {
            ctx.buffers.edge_tally.atomic_add(SCOUT + slot, scout);
        }
        // Retire this part's units after every write above; the task that retires the
        // step's last unit starts the next one.
        ctx.fence();
        if ctx.buffers.tally.atomic_add(PENDING, 0u32.wrapping_sub(count)) == count {
            ctx.fence();
            let size = ctx.buffers.tally.get(SIZE + here);
            ctx.spawn(after(p.step, p.r, size));
        }
    }

    #[spawn]
    fn edges(t: &Edges, ctx: &mut Ctx) {
        let count = t.hi - t.lo;
        if count > ctx.params.edge_grain {
            let parts = parts(count, ctx.params.edge_grain);
            // This task's unit passes to its parts: count them before any can finish.
            ctx.buffers.tally.atomic_add(PENDING, parts - 1);
            ctx.fence();
            for k in 0..parts {
                ctx.spawn(Edges { step: t.step, r: t.r, v: t.v, lo: cut(t.lo, count, k, parts), hi: cut(t.lo, count, k + 1, parts) });
            }
            return;
        }
        let next = t.r + 1;
        let mut found = 0u32;
        let mut scout = 0u64;
        let mut scanned = 0u64;
        for e in t.lo..t.hi {
            if t.step == TOP_DOWN {
                scanned += 1;
                let u = ctx.buffers.targets.get(e as usize);
                if ctx.buffers.depth.get(u as usize) == UNREACHED && ctx.buffers.depth.atomic_cas(u as usize, UNREACHED, next) == UNREACHED {
                    let at = ctx.buffers.tally.atomic_add(TAIL, 1);
                    ctx.buffers.queue.set(at as usize, u);
                    found += 1;
                    scout += (ctx.buffers.offsets.get(u as usize + 1) - ctx.buffers.offsets.get(u as usize)) as u64;
                }
            } else {
                // Another part of this edge list may have found the parent already.
                if ctx.buffers.depth.get(t.v as usize) != UNREACHED {
                    break;
                }
                scanned += 1;
                if ctx.buffers.depth.get(ctx.buffers.in_sources.get(e as usize) as usize) == t.r {
                    if ctx.buffers.depth.atomic_cas(t.v as usize, UNREACHED, next) == UNREACHED {
                        found += 1;
                        scout += (ctx.buffers.offsets.get(t.v as usize + 1) - ctx.buffers.offsets.get(t.v as usize)) as u64;
                    }
                    break;
                }
            }
        }
        ctx.counters.edges.add(scanned);
        let slot = (next % 2) as usize;
        if found > 0 {
            ctx.buffers.tally.atomic_add(SIZE + slot, found);
        }
        if scout > 0 {
            ctx.buffers.edge_tally.atomic_add(SCOUT + slot, scout);
        }
        ctx.fence();
        if ctx.buffers.tally.atomic_add(PENDING, 0u32.wrapping_sub(1)) == 1 {
            ctx.fence();
            let size = ctx.buffers.tally.get(SIZE + (t.r % 2) as usize);
            ctx.spawn(after(t.step, t.r, size));
        }
    }

    /// The level task that follows a finished step: the same level, queued, after a gather;
    /// the next one, whose frontier the step found, after the others.
    fn after(step: u32, r: u32, size: u32) -> Level {
        if step == GATHER {
            Level { r, last: GATHER, awake: 0 }
        } else {
            Level { r: r + 1, last: step, awake: size }
        }
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
