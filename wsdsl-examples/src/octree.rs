//! Octree partitioning (Cederman & Tsigas, GPU Computing Gems, section 35.4.2): a set of
//! particles is split recursively into the eight octants of its cell until at most
//! `max_leaf` particles are left in a cell. A task is one cell with its particles, a range of
//! an index array; all threads of a block partition it together (a cooperative schedule),
//! and every sub-octant with too many particles becomes a task of its own.
//!
//! Cells are half-open: a coordinate equal to a cell's centre belongs to the upper half, so
//! every point lies in exactly one cell of each level. A cell is named by its location code,
//! a 1 bit followed by three bits (x, y, z: upper half or not) per level below the root.

use std::collections::HashMap;
use std::fmt;
use wsdsl::prelude::*;

#[megakernel(worker = block, cooperative)]
pub mod octree {
    use wsdsl::prelude::*;

    /// Depth at which a cell becomes a leaf whatever its size: coincident particles cannot
    /// be separated, and 1 + 3 * 21 bits fill the 64-bit location code.
    pub const MAX_DEPTH: u32 = 21;
    /// Scratch elements per slot (one slot per running task): the eight sub-octant totals,
    /// then the eight cursors that threads reserve their places with.
    pub const SCRATCH_PER_SLOT: usize = 16;
    /// Particles a thread takes per round of a pass: their loads do not depend on each
    /// other, so they are in flight together instead of one after another. This matters at
    /// the top levels, where one block sweeps millions of particles: on an H100, 15 million
    /// particles with leaves of 32 were partitioned about a quarter faster with 8 than with 1
    /// (trees of single-particle leaves, all tiny tasks, about a fifth slower).
    const IN_FLIGHT: usize = 8;

    #[params]
    pub struct Params {
        /// Number of particles: the length of each half of `index`.
        pub n: u32,
        /// Most particles a leaf may hold (unless it is at `MAX_DEPTH`).
        pub max_leaf: u32,
        /// A task whose range starts at `lo` owns scratch slot `lo / slot_width`. Every task
        /// but the root holds more than `max_leaf` particles (and the root, when it does
        /// not, is the only task), so with `slot_width <= max_leaf + 1` two tasks that exist
        /// at the same time (disjoint ranges) never share a slot.
        pub slot_width: u32,
    }

    #[buffers]
    pub struct Buffers {
        pub x: ReadOnly<f32>,
        pub y: ReadOnly<f32>,
        pub z: ReadOnly<f32>,
        /// Particle ids in two halves of `n`: a task at depth `d` reads its range from half
        /// `d % 2` and writes it, grouped by sub-octant, at the same place in the other half.
        /// A leaf at depth `d` therefore keeps its particles in half `d % 2`.
        pub index: Buffer<u32>,
        /// `SCRATCH_PER_SLOT` elements per slot, all zero whenever no task owns the slot.
        pub scratch: Buffer<u32>,
        /// Element 0: leaves recorded so far.
        pub leaf_count: Buffer<u32>,
        /// Per leaf: first position of its particles in the index half of its depth.
        pub leaf_start: Buffer<u32>,
        /// Per leaf: its number of particles (never zero: empty cells are not recorded).
        pub leaf_len: Buffer<u32>,
        /// Per leaf: its location code.
        pub leaf_code: Buffer<u64>,
    }

    #[counters]
    pub struct Counters {
        /// Particles that have found their leaf; the tree is complete when it reaches `n`.
        pub placed: Sum<u64>,
    }

    /// A cell to split: its centre and half-width, and its particles `index[lo..hi]` (in
    /// the half of its depth).
    #[task]
    pub struct Cell {
        pub cx: f32,
        pub cy: f32,
        pub cz: f32,
        pub half: f32,
        pub lo: u32,
        pub hi: u32,
        pub depth: u32,
        pub code: u64,
    }

    /// The sub-octant of a point: bit 0 set for the upper half in x, bit 1 in y, bit 2 in z.
    fn octant(x: f32, y: f32, z: f32, cx: f32, cy: f32, cz: f32) -> u32 {
        (x >= cx) as u32 | ((y >= cy) as u32) << 1 | ((z >= cz) as u32) << 2
    }

    /// A sub-octant holding `count` particles at `depth` is a leaf: few enough particles, or
    /// as deep as the tree goes.
    fn is_leaf(count: u32, depth: u32, max_leaf: u32) -> bool {
        count <= max_leaf || depth == MAX_DEPTH
    }

    fn child_centre(centre: f32, child_half: f32, upper: bool) -> f32 {
        if upper {
            centre + child_half
        } else {
            centre - child_half
        }
    }

    #[spawn]
    fn split(cell: &Cell, ctx: &mut Ctx) {
        let rank = ctx.thread() as usize;
        let threads = ctx.threads() as usize;
        let n = ctx.params.n as usize;
        let from = (cell.depth % 2) as usize * n;
        let to = n - from;
        let slot = (cell.lo / ctx.params.slot_width) as usize * SCRATCH_PER_SLOT;
        let lo = cell.lo as usize;
        let hi = cell.hi as usize;

        // Phase 1: each thread counts its strided share per sub-octant and adds its counts
        // to the task's totals (one atomic per sub-octant and thread, not per particle).
        let mut mine = [0u32; 8];
        let mut i = lo + rank;
        while i < hi {
            // This round's particles are at i, i + threads, ...: the first `live` are in range.
            let live = ((hi - i + threads - 1) / threads).min(IN_FLIGHT);
            let mut id = [0u32; IN_FLIGHT];
            for u in 0..IN_FLIGHT {
                if u < live {
                    id[u] = ctx.buffers.index.get(from + i + u * threads);
                }
            }
            let mut point = [[0f32; 3]; IN_FLIGHT];
            for u in 0..IN_FLIGHT {
                if u < live {
                    let p = id[u] as usize;
                    point[u] = [ctx.buffers.x.get(p), ctx.buffers.y.get(p), ctx.buffers.z.get(p)];
                }
            }
            for u in 0..IN_FLIGHT {
                if u < live {
                    let k = octant(point[u][0], point[u][1], point[u][2], cell.cx, cell.cy, cell.cz);
                    mine[k as usize] += 1;
                }
            }
            i += IN_FLIGHT * threads;
        }
        for k in 0..8usize {
            if mine[k] > 0 {
                let _ = ctx.buffers.scratch.atomic_add(slot + k, mine[k]);
            }
        }
        ctx.sync();

        // Phase 2: sub-octant k takes the next `count[k]` places of the range. Each thread
        // reserves a run of places in every sub-octant it has particles for, then scatters
        // its share (the same particles as in phase 1) into them.
        let mut count = [0u32; 8];
        let mut start = [0u32; 8];
        let mut next = [0u32; 8];
        let mut at = cell.lo;
        for k in 0..8usize {
            count[k] = ctx.buffers.scratch.get(slot + k);
            start[k] = at;
            at += count[k];
            if mine[k] > 0 {
                next[k] = start[k] + ctx.buffers.scratch.atomic_add(slot + 8 + k, mine[k]);
            }
        }
        let mut i = lo + rank;
        while i < hi {
            // This round's particles are at i, i + threads, ...: the first `live` are in range.
            let live = ((hi - i + threads - 1) / threads).min(IN_FLIGHT);
            let mut id = [0u32; IN_FLIGHT];
            for u in 0..IN_FLIGHT {
                if u < live {
                    id[u] = ctx.buffers.index.get(from + i + u * threads);
                }
            }
            let mut point = [[0f32; 3]; IN_FLIGHT];
            for u in 0..IN_FLIGHT {
                if u < live {
                    let p = id[u] as usize;
                    point[u] = [ctx.buffers.x.get(p), ctx.buffers.y.get(p), ctx.buffers.z.get(p)];
                }
            }
            for u in 0..IN_FLIGHT {
                if u < live {
                    let k = octant(point[u][0], point[u][1], point[u][2], cell.cx, cell.cy, cell.cz) as usize;
                    ctx.buffers.index.set(to + next[k] as usize, id[u]);
                    next[k] += 1;
                }
            }
            i += IN_FLIGHT * threads;
        }
        // Every thread has read the totals and taken its places before the slot is cleared.
        ctx.sync();

        // Phase 3 (one thread): free the slot for the next task that maps to it, record the
        // sub-octants that are leaves, and spawn the others. The slot is cleared before the
        // first spawn because a child may map to the same slot and start at once.
        if rank == 0 {
            for e in 0..SCRATCH_PER_SLOT {
                ctx.buffers.scratch.set(slot + e, 0);
            }
            let depth = cell.depth + 1;
            let max_leaf = ctx.params.max_leaf;
            let mut leaves = 0u32;
            for k in 0..8usize {
                if count[k] > 0 && is_leaf(count[k], depth, max_leaf) {
                    leaves += 1;
                }
            }
            let mut leaf = 0u32;
            if leaves > 0 {
                leaf = ctx.buffers.leaf_count.atomic_add(0, leaves);
            }
            let half = cell.half * 0.5;
            for k in 0..8usize {
                let len = count[k];
                if len == 0 {
                    continue;
                }
                let code = (cell.code << 3) | k as u64;
                if is_leaf(len, depth, max_leaf) {
                    ctx.buffers.leaf_start.set(leaf as usize, start[k]);
                    ctx.buffers.leaf_len.set(leaf as usize, len);
                    ctx.buffers.leaf_code.set(leaf as usize, code);
                    ctx.counters.placed.add(len as u64);
                    leaf += 1;
                } else {
                    ctx.spawn(Cell {
                        cx: child_centre(cell.cx, half, (k & 1) != 0),
                        cy: child_centre(cell.cy, half, (k & 2) != 0),
                        cz: child_centre(cell.cz, half, (k & 4) != 0),
                        half,
                        lo: start[k],
                        hi: start[k] + len,
                        depth,
                        code,
                    });
                }
            }
        }
    }
}

/// Particle positions (structure of arrays, as the kernel reads them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Particles {
    pub x: Vec<f32>,
    pub y: Vec<f32>,
    pub z: Vec<f32>,
}

impl Particles {
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Particle `p` as a point.
    pub fn at(&self, p: usize) -> [f32; 3] {
        [self.x[p], self.y[p], self.z[p]]
    }

    /// `n` particles drawn from `distribution`; the same seed gives the same particles.
    pub fn generate(distribution: Distribution, n: usize, seed: u64) -> Particles {
        let mut rng = SplitMix64(seed);
        let mut out = Particles { x: Vec::with_capacity(n), y: Vec::with_capacity(n), z: Vec::with_capacity(n) };
        for _ in 0..n {
            let [x, y, z] = match distribution {
                Distribution::Uniform => [rng.unit_f32(), rng.unit_f32(), rng.unit_f32()],
                Distribution::Plummer => plummer_point(&mut rng),
            };
            out.x.push(x);
            out.y.push(y);
            out.z.push(z);
        }
        out
    }
}

/// How the particles are spread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distribution {
    /// Uniform in the unit cube: a balanced tree.
    Uniform,
    /// A Plummer model star cluster: a dense core and a sparse halo, so the tree is deep in
    /// the middle and shallow outside.
    Plummer,
}

/// Plummer radii beyond this (in units of the Plummer radius) are drawn again: the density
/// has an unbounded tail, and a few far particles would stretch the root cell.
pub const PLUMMER_MAX_RADIUS: f64 = 10.0;

/// SplitMix64 (Steele, Lea & Flood): small, fast, and good enough to place particles.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), every value a multiple of 2^-24 (exact in f32).
    fn unit_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
    }

    /// Uniform in the open interval (0, 1).
    fn open_unit_f64(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
    }
}

/// A point of the Plummer sphere: the radius by inverting the enclosed-mass fraction
/// u = r^3 / (1 + r^2)^(3/2), the direction uniform on the sphere.
fn plummer_point(rng: &mut SplitMix64) -> [f32; 3] {
    let r = loop {
        let u = rng.open_unit_f64();
        let r = 1.0 / (u.powf(-2.0 / 3.0) - 1.0).sqrt();
        if r <= PLUMMER_MAX_RADIUS {
            break r;
        }
    };
    let cos_theta = 2.0 * rng.open_unit_f64() - 1.0;
    let sin_theta = (1.0 - cos_theta * cos_theta).sqrt();
    let phi = 2.0 * std::f64::consts::PI * rng.open_unit_f64();
    [(r * sin_theta * phi.cos()) as f32, (r * sin_theta * phi.sin()) as f32, (r * cos_theta) as f32]
}

/// Most particles a run can take: ranges and ids are `u32`.
pub const MAX_PARTICLES: usize = u32::MAX as usize;

/// Rejects sizes the kernel cannot take, before anything is allocated for them.
pub fn validate(particles: usize, max_leaf: u32) -> Result<(), wsdsl::Error> {
    if particles == 0 {
        return Err(wsdsl::Error::InvalidConfig("no particles: an octree needs at least one".into()));
    }
    if particles > MAX_PARTICLES {
        return Err(wsdsl::Error::InvalidConfig(format!(
            "{particles} particles is more than the {MAX_PARTICLES} that 32-bit particle ids can name"
        )));
    }
    if max_leaf == 0 {
        return Err(wsdsl::Error::InvalidConfig("max_leaf must be at least 1".into()));
    }
    Ok(())
}

/// The root cell: the bounding cube of all particles.
pub fn root_cell(particles: &Particles) -> octree::Cell {
    let mut centre = [0f32; 3];
    let mut reach = 0f64;
    for (axis, values) in [&particles.x, &particles.y, &particles.z].into_iter().enumerate() {
        let (lo, hi) = values.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        centre[axis] = ((lo as f64 + hi as f64) / 2.0) as f32;
        reach = reach.max(hi as f64 - centre[axis] as f64).max(centre[axis] as f64 - lo as f64);
    }
    // Round the half-width up, so the cube still encloses every particle after rounding.
    let mut half = reach as f32;
    if (half as f64) < reach {
        half = half.next_up();
    }
    octree::Cell { cx: centre[0], cy: centre[1], cz: centre[2], half, lo: 0, hi: particles.len() as u32, depth: 0, code: 1 }
}

/// Everything one run needs: parameters, buffers and the root task.
pub struct Inputs {
    pub params: octree::Params,
    pub buffers: octree::Buffers,
    pub root: octree::Cell,
}

/// Validates the particles and lays out the buffers.
///
/// Sizes: every leaf holds at least one particle, so there are at most `n` leaves. The
/// scratch needs one slot per `slot_width` positions of the range `0..n` (see
/// `Params::slot_width`): a task owns the slot its first position falls in, and ranges of
/// tasks alive together are disjoint and longer than `max_leaf`, so no bound on the number
/// of tasks is needed and none can be exceeded.
pub fn inputs(particles: &Particles, max_leaf: u32) -> Result<Inputs, wsdsl::Error> {
    let n = particles.len();
    validate(n, max_leaf)?;
    if particles.y.len() != n || particles.z.len() != n {
        return Err(wsdsl::Error::InvalidConfig(format!(
            "coordinate arrays differ in length: x {n}, y {}, z {}",
            particles.y.len(),
            particles.z.len()
        )));
    }
    if let Some(p) = (0..n).find(|&p| particles.at(p).iter().any(|c| !c.is_finite())) {
        return Err(wsdsl::Error::InvalidConfig(format!("particle {p} is at {:?}, not a finite point", particles.at(p))));
    }
    // Only the root can hold `max_leaf` particles or fewer, so any width up to `max_leaf + 1`
    // works; clamping to `n` keeps it a `u32` without changing the number of slots.
    let slot_width = (max_leaf as u64 + 1).min(n as u64) as u32;
    let slots = (n - 1) / slot_width as usize + 1;
    let mut index: Vec<u32> = (0..n as u32).collect();
    index.resize(2 * n, 0);
    let buffers = octree::Buffers {
        x: ReadOnly::from_vec(particles.x.clone()),
        y: ReadOnly::from_vec(particles.y.clone()),
        z: ReadOnly::from_vec(particles.z.clone()),
        index: Buffer::from_vec(index),
        scratch: Buffer::zeroed(slots * octree::SCRATCH_PER_SLOT),
        leaf_count: Buffer::zeroed(1),
        leaf_start: Buffer::zeroed(n),
        leaf_len: Buffer::zeroed(n),
        leaf_code: Buffer::zeroed(n),
    };
    let params = octree::Params { n: n as u32, max_leaf, slot_width };
    Ok(Inputs { params, buffers, root: root_cell(particles) })
}

/// One leaf as the kernel recorded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leaf {
    pub start: u32,
    pub len: u32,
    pub code: u64,
}

impl Leaf {
    /// Levels below the root (three code bits per level under the leading 1).
    pub fn depth(&self) -> u32 {
        (63 - self.code.leading_zeros()) / 3
    }
}

/// A finished run, read back from the buffers.
#[derive(Debug, Clone)]
pub struct Octree {
    pub root: octree::Cell,
    pub leaves: Vec<Leaf>,
    /// Both halves of the index array: a leaf at depth `d` holds the particle ids
    /// `index[d % 2 * n + start ..][..len]`.
    pub index: Vec<u32>,
    /// The kernel's count of particles that found their leaf.
    pub placed: u64,
    /// Tasks run: cells that were split.
    pub tasks: u64,
}

impl Octree {
    /// Number of particles.
    pub fn particles(&self) -> usize {
        self.index.len() / 2
    }

    /// The particle ids of `leaf`; its range must lie within `0..particles()`.
    pub fn members(&self, leaf: &Leaf) -> &[u32] {
        let base = (leaf.depth() % 2) as usize * self.particles() + leaf.start as usize;
        &self.index[base..base + leaf.len as usize]
    }
}

/// Reads the tree out of the buffers of a finished run.
pub fn read_tree(inputs: &Inputs, counters: &octree::Counters, tasks: u64) -> Octree {
    let b = &inputs.buffers;
    let count = b.leaf_count.get(0) as usize;
    let (start, len, code) = (b.leaf_start.to_vec(), b.leaf_len.to_vec(), b.leaf_code.to_vec());
    let leaves = (0..count.min(start.len())).map(|l| Leaf { start: start[l], len: len[l], code: code[l] }).collect();
    Octree { root: inputs.root, leaves, index: b.index.to_vec(), placed: counters.placed.get(), tasks }
}

/// Builds the octree of `particles` on `rt`.
pub fn build(rt: &Runtime, particles: &Particles, max_leaf: u32) -> Result<(Octree, Output<octree::Kernel>), wsdsl::Error> {
    let inputs = inputs(particles, max_leaf)?;
    let out = rt.run_with::<octree::Kernel>(inputs.params, &inputs.buffers, [inputs.root])?;
    let tree = read_tree(&inputs, &out.counters, out.stats.tasks);
    Ok((tree, out))
}

/// The shape of a tree that passed the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub leaves: usize,
    /// Cells that were split (the root and every ancestor of a leaf); equals the tasks run.
    pub internal: usize,
    pub max_depth: u32,
    pub largest_leaf: u32,
    /// Leaves at `MAX_DEPTH` holding more than `max_leaf` particles (coincident or nearly
    /// coincident particles).
    pub capped_leaves: usize,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} leaves, {} internal cells, depth {}, largest leaf {} particles, {} oversized leaves at the depth cap",
            self.leaves, self.internal, self.max_depth, self.largest_leaf, self.capped_leaves
        )
    }
}

/// Checks a tree against the particles, independently of the kernel; the error names the
/// first violation. A valid tree:
/// - placed every particle (`placed == n`) in exactly one leaf, and its leaves' ranges tile
///   the positions `0..n`;
/// - puts each particle in its leaf's cell. Cells are half-open by the kernel's rule (a
///   coordinate equal to a centre belongs to the upper half), and the check walks each leaf's
///   path from the root with the same f32 arithmetic (halving is exact, each centre one
///   rounded addition), so membership is decided exactly, with no tolerance; the root cube
///   encloses every particle (inclusive bounds, checked in f64);
/// - has leaves that are distinct, non-nested cells, each holding at most `max_leaf`
///   particles unless it is at `MAX_DEPTH`;
/// - split only cells holding more than `max_leaf` particles (the root is always split), and
///   ran exactly one task per split cell.
pub fn check(particles: &Particles, max_leaf: u32, tree: &Octree) -> Result<Summary, String> {
    let n = particles.len();
    if tree.particles() != n {
        return Err(format!("the tree indexes {} particles, not {n}", tree.particles()));
    }
    if tree.placed != n as u64 {
        return Err(format!("the placed counter is {}, not the {n} particles", tree.placed));
    }
    let root = tree.root;
    let centre = [root.cx, root.cy, root.cz];
    if let Some(p) = (0..n).find(|&p| (0..3).any(|a| (particles.at(p)[a] as f64 - centre[a] as f64).abs() > root.half as f64)) {
        return Err(format!("particle {p} at {:?} lies outside the root cube", particles.at(p)));
    }
    let mut covered = vec![false; n];
    let mut seen = vec![false; n];
    let mut summary = Summary { leaves: tree.leaves.len(), internal: 0, max_depth: 0, largest_leaf: 0, capped_leaves: 0 };
    for (l, leaf) in tree.leaves.iter().enumerate() {
        let is_location_code = leaf.code != 0 && leaf.code.leading_zeros() % 3 == 0;
        if !is_location_code || leaf.depth() == 0 || leaf.depth() > octree::MAX_DEPTH {
            return Err(format!("leaf {l} has code {:#x}, not the location code of a cell below the root", leaf.code));
        }
        let depth = leaf.depth();
        if leaf.len == 0 || leaf.start as u64 + leaf.len as u64 > n as u64 {
            return Err(format!("leaf {l} has the range {}..+{} (n = {n})", leaf.start, leaf.len));
        }
        if leaf.len > max_leaf {
            if depth < octree::MAX_DEPTH {
                return Err(format!("leaf {l} at depth {depth} holds {} particles, more than max_leaf = {max_leaf}", leaf.len));
            }
            summary.capped_leaves += 1;
        }
        summary.max_depth = summary.max_depth.max(depth);
        summary.largest_leaf = summary.largest_leaf.max(leaf.len);
        let bounds = CellBounds::of(&root, leaf.code);
        for (offset, &p) in tree.members(leaf).iter().enumerate() {
            let position = leaf.start as usize + offset;
            if std::mem::replace(&mut covered[position], true) {
                return Err(format!("position {position} belongs to leaf {l} and to an earlier leaf"));
            }
            let p = p as usize;
            if p >= n {
                return Err(format!("leaf {l} holds particle id {p}, but there are {n} particles"));
            }
            if std::mem::replace(&mut seen[p], true) {
                return Err(format!("particle {p} is in leaf {l} and in an earlier leaf"));
            }
            if !bounds.contains(particles.at(p)) {
                return Err(format!("particle {p} at {:?} lies outside leaf {l} (cell {:#x})", particles.at(p), leaf.code));
            }
        }
    }
    if let Some(p) = seen.iter().position(|&s| !s) {
        return Err(format!("particle {p} is in no leaf"));
    }
    check_disjoint(&tree.leaves)?;
    summary.internal = check_splits(&tree.leaves, max_leaf)?;
    if summary.internal as u64 != tree.tasks {
        return Err(format!("{} cells were split but {} tasks ran", summary.internal, tree.tasks));
    }
    Ok(summary)
}

/// The box of a cell as the tightest of the comparisons along its path: a point is in the
/// cell iff `ge[a] <= v[a] < lt[a]` on every axis (the root bounds nothing).
struct CellBounds {
    ge: [f32; 3],
    lt: [f32; 3],
}

impl CellBounds {
    fn of(root: &octree::Cell, code: u64) -> CellBounds {
        let depth = (63 - code.leading_zeros()) / 3;
        let mut centre = [root.cx, root.cy, root.cz];
        let mut half = root.half;
        let mut bounds = CellBounds { ge: [f32::NEG_INFINITY; 3], lt: [f32::INFINITY; 3] };
        for level in (0..depth).rev() {
            let octant = (code >> (3 * level)) & 7;
            half *= 0.5;
            for (axis, c) in centre.iter_mut().enumerate() {
                if (octant >> axis) & 1 == 1 {
                    bounds.ge[axis] = bounds.ge[axis].max(*c);
                    *c += half;
                } else {
                    bounds.lt[axis] = bounds.lt[axis].min(*c);
                    *c -= half;
                }
            }
        }
        bounds
    }

    fn contains(&self, point: [f32; 3]) -> bool {
        (0..3).all(|a| self.ge[a] <= point[a] && point[a] < self.lt[a])
    }
}

/// A cell's share of the deepest level's cells, as a half-open interval of their indices.
fn code_interval(code: u64) -> (u64, u64) {
    let depth = (63 - code.leading_zeros()) / 3;
    let path = code ^ (1 << (3 * depth));
    let shift = 3 * (octree::MAX_DEPTH - depth);
    (path << shift, (path + 1) << shift)
}

/// No leaf is the same cell as another or lies inside it.
fn check_disjoint(leaves: &[Leaf]) -> Result<(), String> {
    let mut spans: Vec<(u64, u64, u64)> = leaves
        .iter()
        .map(|leaf| {
            let (lo, hi) = code_interval(leaf.code);
            (lo, hi, leaf.code)
        })
        .collect();
    spans.sort_unstable();
    for pair in spans.windows(2) {
        if pair[1].0 < pair[0].1 {
            return Err(format!("leaf cells {:#x} and {:#x} overlap", pair[0].2, pair[1].2));
        }
    }
    Ok(())
}

/// Every proper ancestor of a leaf was split, so it must hold more than `max_leaf`
/// particles (the root excepted: it is always split). Returns the number of split cells.
fn check_splits(leaves: &[Leaf], max_leaf: u32) -> Result<usize, String> {
    let mut held: HashMap<u64, u64> = HashMap::new();
    for leaf in leaves {
        let mut code = leaf.code >> 3;
        while code != 0 {
            *held.entry(code).or_default() += leaf.len as u64;
            code >>= 3;
        }
    }
    if let Some((code, particles)) = held.iter().find(|&(&code, &particles)| code != 1 && particles <= max_leaf as u64) {
        return Err(format!("cell {code:#x} holds only {particles} particles (max_leaf = {max_leaf}) but was split"));
    }
    Ok(held.len())
}
