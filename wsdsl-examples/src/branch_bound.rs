//! Branch and bound written once, over a trait: `search` is a generic helper bounded by
//! `Problem`, and two problems implement it, a 0/1 knapsack (`Packing`) and a travelling
//! salesman tour (`Tour`). Each is a task type whose spawn handler calls `search` with its
//! node; the macro checks and emits one `search` per problem, so nothing dispatches at run
//! time. A node is pruned when its bound cannot beat the best value found so far (one word
//! per problem in a `#[buffers]` array, raised with `atomic_max`), a complete one raises it,
//! any other spawns its children, the most promising spawned last so that the worker that
//! made them runs it first (depth first, best child first).
//!
//! Both problems maximise: the knapsack its packed value, the tour the negated length. The
//! host side generates instances and solves them exactly by other means: dynamic programming
//! over capacities for the knapsack, Held and Karp's dynamic programming over subsets for the
//! tour.

use wsdsl::prelude::*;

use crate::rng::SplitMix64;

#[megakernel]
pub mod bnb {
    use wsdsl::prelude::*;

    /// The most items of a knapsack instance.
    pub const MAX_ITEMS: usize = 40;
    /// The most cities of a tour.
    pub const MAX_CITIES: usize = 12;
    /// The most children a node has (a tour's next city: any unvisited one).
    pub const MAX_CHILDREN: usize = 12;

    pub struct Item {
        pub weight: u32,
        pub value: u32,
    }

    /// A knapsack instance, items sorted by value per weight, best first.
    pub struct Knapsack {
        pub n: u32,
        pub capacity: u32,
        pub items: [Item; MAX_ITEMS],
    }

    /// A travelling salesman instance: the tour starts and ends at city 0.
    pub struct Cities {
        pub n: u32,
        pub dist: [[u32; MAX_CITIES]; MAX_CITIES],
    }

    #[params]
    pub struct Instances {
        pub knapsack: Knapsack,
        pub cities: Cities,
    }

    /// The best value found so far, one word per problem (`Problem::SLOT`).
    #[buffers]
    pub struct Best {
        pub best: Buffer<i64>,
    }

    #[counters]
    pub struct Counters {
        /// Nodes whose bound could not beat the best value found when they ran.
        pub pruned: Sum<u64>,
        /// Complete (or greedy) solutions that raised the best value.
        pub improved: Sum<u64>,
    }

    /// A maximisation problem searched by branch and bound. A node is a partial solution and
    /// a task of this megakernel (`Into<Task>`), so `search` can spawn its children.
    pub trait Problem: Copy + Into<Task> {
        /// The word of `Best::best` that holds this problem's best value.
        const SLOT: usize;

        /// The value of this node if it is a complete solution.
        fn value(&self, inst: &Instances) -> Option<i64>;

        /// A bound on the value of every complete solution below this node.
        fn bound(&self, inst: &Instances) -> i64;

        /// Writes this node's children to `children`, the most promising first; how many.
        fn branch(&self, inst: &Instances, children: &mut [Self]) -> usize;

        /// The value of a complete solution below this node found quickly, which raises the
        /// best value early; none by default.
        fn greedy(&self, _inst: &Instances) -> Option<i64> {
            None
        }
    }

    /// One node of the search: a complete solution raises the best value, a node whose bound
    /// cannot beat it is pruned, any other spawns its children (the first one last).
    fn search<P: Problem>(node: &P, ctx: &mut Ctx) {
        let inst = ctx.params;
        let best = &ctx.buffers.best;
        if let Some(v) = node.value(inst) {
            if best.atomic_max(P::SLOT, v) < v {
                ctx.counters.improved.add(1);
            }
            return;
        }
        if node.bound(inst) <= best.get(P::SLOT) {
            ctx.counters.pruned.add(1);
            return;
        }
        if let Some(g) = node.greedy(inst) {
            if best.atomic_max(P::SLOT, g) < g {
                ctx.counters.improved.add(1);
            }
        }
        let mut children = [*node; MAX_CHILDREN];
        let n = node.branch(inst, &mut children);
        for child in children[..n].iter().rev() {
            ctx.spawn(*child);
        }
    }

    /// Items `0..next` are decided: those taken weigh `weight` and are worth `value`.
    #[task]
    pub struct Packing {
        pub next: u32,
        pub weight: u32,
        pub value: u32,
    }

    impl Problem for Packing {
        const SLOT: usize = 0;

        fn value(&self, inst: &Instances) -> Option<i64> {
            if self.next == inst.knapsack.n { Some(self.value as i64) } else { None }
        }

        /// The fractional relaxation: items go in by density, whole while they fit, then
        /// the fraction of the first that does not (rounded down: values are integers).
        fn bound(&self, inst: &Instances) -> i64 {
            let k = &inst.knapsack;
            let mut room = k.capacity - self.weight;
            let mut bound = self.value as i64;
            for item in k.items[self.next as usize..k.n as usize].iter() {
                if item.weight > room {
                    return bound + (item.value as u64 * room as u64 / item.weight as u64) as i64;
                }
                room -= item.weight;
                bound += item.value as i64;
            }
            bound
        }

        /// With the next item (if it fits) first, then without it.
        fn branch(&self, inst: &Instances, children: &mut [Packing]) -> usize {
            let k = &inst.knapsack;
            let item = k.items[self.next as usize];
            let mut n = 0;
            if self.weight + item.weight <= k.capacity {
                children[n] = Packing { next: self.next + 1, weight: self.weight + item.weight, value: self.value + item.value };
                n += 1;
            }
            children[n] = Packing { next: self.next + 1, weight: self.weight, value: self.value };
            n + 1
        }

        /// Every remaining item that still fits, by density.
        fn greedy(&self, inst: &Instances) -> Option<i64> {
            let k = &inst.knapsack;
            let (_, value) = k.items[self.next as usize..k.n as usize].iter().fold((k.capacity - self.weight, self.value), |(room, value), item| {
                if item.weight <= room { (room - item.weight, value + item.value) } else { (room, value) }
            });
            Some(value as i64)
        }
    }

    /// A path from city 0 through `count` cities (those in `visited`) to `last`, of length
    /// `cost`.
    #[task]
    pub struct Tour {
        pub visited: u32,
        pub last: u32,
        pub count: u32,
        pub cost: u32,
    }

    impl Tour {
        fn open(&self, city: usize) -> bool {
            self.visited & (1 << city) == 0
        }
    }

    impl Problem for Tour {
        const SLOT: usize = 1;

        fn value(&self, inst: &Instances) -> Option<i64> {
            let c = &inst.cities;
            if self.count == c.n { Some(-((self.cost + c.dist[self.last as usize][0]) as i64)) } else { None }
        }

        /// The path must still leave `last` once, and each open city once (for another open
        /// city or home): each at least by its shortest such edge.
        fn bound(&self, inst: &Instances) -> i64 {
            let c = &inst.cities;
            let n = c.n as usize;
            let here = self.last as usize;
            let leave = (0..n).filter(|&to| self.open(to)).map(|to| c.dist[here][to]).min().unwrap_or(0);
            let rest: u32 = (0..n)
                .filter(|&from| self.open(from))
                .map(|from| (0..n).filter(|&to| to != from && (to == 0 || self.open(to))).map(|to| c.dist[from][to]).min().unwrap_or(0))
                .sum();
            -((self.cost + leave + rest) as i64)
        }

        /// The open cities, nearest first.
        fn branch(&self, inst: &Instances, children: &mut [Tour]) -> usize {
            let c = &inst.cities;
            let here = self.last as usize;
            let mut next = [0u32; MAX_CITIES];
            let mut m = 0;
            for city in 0..c.n as usize {
                if self.open(city) {
                    next[m] = city as u32;
                    m += 1;
                }
            }
            next[..m].sort_unstable_by_key(|&city| c.dist[here][city as usize]);
            for (i, &city) in next[..m].iter().enumerate() {
                let cost = self.cost + c.dist[here][city as usize];
                children[i] = Tour { visited: self.visited | 1 << city, last: city, count: self.count + 1, cost };
            }
            m
        }
    }

    #[spawn]
    fn pack(p: &Packing, ctx: &mut Ctx) {
        search(p, ctx);
    }

    #[spawn]
    fn travel(t: &Tour, ctx: &mut Ctx) {
        search(t, ctx);
    }
}

/// A knapsack item as generated: (weight, value).
pub type Item = (u32, u32);

/// `n` items with weights in `1..=100` and values strongly correlated with them (weight +
/// 10, the hard case for branch and bound), and a capacity of half their weight.
pub fn knapsack_instance(n: usize, seed: u64) -> (Vec<Item>, u32) {
    let mut rng = SplitMix64::new(seed);
    let items: Vec<Item> = (0..n).map(|_| rng.within(1, 100)).map(|w| (w, w + 10)).collect();
    let capacity = items.iter().map(|&(w, _)| w).sum::<u32>() / 2;
    (items, capacity)
}

/// `n` cities at random points of a 1000 x 1000 square; distances rounded to integers.
pub fn cities(n: usize, seed: u64) -> Vec<Vec<u32>> {
    let mut rng = SplitMix64::new(seed ^ 0x7A5);
    let points: Vec<(f64, f64)> = (0..n).map(|_| (rng.below(1000) as f64, rng.below(1000) as f64)).collect();
    points.iter().map(|a| points.iter().map(|b| ((a.0 - b.0).hypot(a.1 - b.1)).round() as u32).collect()).collect()
}

/// The best value of a knapsack, by dynamic programming: `best[c]` is the most value of the
/// items seen so far within weight `c`.
pub fn knapsack_reference(items: &[Item], capacity: u32) -> i64 {
    let mut best = vec![0i64; capacity as usize + 1];
    for &(w, v) in items {
        for c in (w as usize..=capacity as usize).rev() {
            best[c] = best[c].max(best[c - w as usize] + v as i64);
        }
    }
    best[capacity as usize]
}

/// The shortest tour from city 0 through every city and back (Held and Karp): `len[s][j]` is
/// the shortest path from 0 through the set `s` of other cities ending at `j`.
pub fn tour_reference(dist: &[Vec<u32>]) -> u32 {
    let n = dist.len();
    if n <= 1 {
        return 0;
    }
    let full = 1usize << (n - 1);
    let mut len = vec![vec![u32::MAX; n - 1]; full];
    for j in 0..n - 1 {
        len[1 << j][j] = dist[0][j + 1];
    }
    for s in 1..full {
        for j in 0..n - 1 {
            if s & (1 << j) == 0 || len[s][j] == u32::MAX {
                continue;
            }
            for k in (0..n - 1).filter(|&k| s & (1 << k) == 0) {
                let t = s | 1 << k;
                len[t][k] = len[t][k].min(len[s][j] + dist[j + 1][k + 1]);
            }
        }
    }
    (0..n - 1).map(|j| len[full - 1][j] + dist[j + 1][0]).min().unwrap_or(0)
}

/// The kernel's params: the knapsack's items by value per weight, best first (ties: lighter
/// first), and the distances.
pub fn instances(items: &[Item], capacity: u32, dist: &[Vec<u32>]) -> Result<bnb::Instances, wsdsl::Error> {
    if items.len() > bnb::MAX_ITEMS || items.iter().any(|&(w, _)| w == 0) {
        return Err(wsdsl::Error::InvalidConfig(format!("at most {} items, each weighing something", bnb::MAX_ITEMS)));
    }
    if dist.is_empty() || dist.len() > bnb::MAX_CITIES || dist.iter().any(|row| row.len() != dist.len()) {
        return Err(wsdsl::Error::InvalidConfig(format!("1 to {} cities, with a square distance matrix", bnb::MAX_CITIES)));
    }
    let mut sorted = items.to_vec();
    sorted.sort_by(|&(wa, va), &(wb, vb)| (vb as u64 * wa as u64).cmp(&(va as u64 * wb as u64)).then(wa.cmp(&wb)));
    let mut knapsack = bnb::Knapsack { n: items.len() as u32, capacity, items: [bnb::Item { weight: 0, value: 0 }; bnb::MAX_ITEMS] };
    for (slot, &(weight, value)) in knapsack.items.iter_mut().zip(&sorted) {
        *slot = bnb::Item { weight, value };
    }
    let mut cities = bnb::Cities { n: dist.len() as u32, dist: [[0; bnb::MAX_CITIES]; bnb::MAX_CITIES] };
    for (row, from) in cities.dist.iter_mut().zip(dist) {
        row[..from.len()].copy_from_slice(from);
    }
    Ok(bnb::Instances { knapsack, cities })
}

/// The best packing's value and the shortest tour's length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solution {
    pub knapsack: i64,
    pub tour: u32,
}

/// Both problems in one run on `rt`: a root task for each, the same search for both.
pub fn solve(rt: &Runtime, items: &[Item], capacity: u32, dist: &[Vec<u32>]) -> Result<(Solution, Output<bnb::Kernel>), wsdsl::Error> {
    let inst = instances(items, capacity, dist)?;
    let best = bnb::Best { best: Buffer::from_vec(vec![0, i64::MIN]) };
    let roots: [bnb::Task; 2] =
        [bnb::Packing { next: 0, weight: 0, value: 0 }.into(), bnb::Tour { visited: 1, last: 0, count: 1, cost: 0 }.into()];
    let out = rt.run_with::<bnb::Kernel>(inst, &best, roots)?;
    Ok((Solution { knapsack: best.best.get(0), tour: (-best.best.get(1)) as u32 }, out))
}

/// What the references say.
pub fn reference(items: &[Item], capacity: u32, dist: &[Vec<u32>]) -> Solution {
    Solution { knapsack: knapsack_reference(items, capacity), tour: tour_reference(dist) }
}
