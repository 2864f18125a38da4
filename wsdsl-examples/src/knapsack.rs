//! 0/1 knapsack by branch and bound: a task is a partial packing (the next item to decide,
//! the weight and value packed so far) and spawns up to two children, without and with that
//! item. Items are sorted by value density, best first, so the fractional relaxation (fill
//! whole items in order, then a fraction of the first that does not fit) bounds what a
//! subtree can reach. Every task reads the best value found so far, a shared `#[buffers]`
//! word that tasks raise with `atomic_max`, and prunes its subtree when its bound cannot beat
//! it; a greedy completion of every packing it visits raises the best value early.
//!
//! The host side generates instances and solves them by dynamic programming over capacities,
//! which shares no code with the kernel.

use wsdsl::prelude::*;

use crate::rng::SplitMix64;

#[megakernel]
pub mod knapsack {
    use wsdsl::prelude::*;

    /// The most items an instance may have.
    pub const MAX_ITEMS: usize = 128;

    pub struct Item {
        pub weight: u32,
        pub value: u32,
    }

    /// The instance, items sorted by value per weight, best first.
    #[params]
    pub struct Instance {
        pub n: u32,
        pub capacity: u32,
        pub items: [Item; MAX_ITEMS],
    }

    /// The best value found so far (one word), raised by every task that finds a better one.
    #[buffers]
    pub struct Best {
        pub value: Buffer<u64>,
    }

    #[counters]
    pub struct Counters {
        /// Tasks whose bound could not beat the best value found when they ran.
        pub pruned: Sum<u64>,
        /// Tasks whose greedy completion raised the best value.
        pub improved: Sum<u64>,
    }

    /// Items `0..next` are decided: those taken weigh `weight` and are worth `value`.
    #[task]
    pub struct Packing {
        pub next: u32,
        pub weight: u32,
        pub value: u64,
    }

    impl Instance {
        /// The fractional relaxation: what `p` could reach if items could be cut. Items go in
        /// by density, whole while they fit, then the fraction of the first that does not
        /// (rounded down: values are integers, so no packing of `p` is worth more).
        pub fn bound(&self, p: &Packing) -> u64 {
            let mut room = self.capacity - p.weight;
            let mut bound = p.value;
            let rest = &self.items[p.next as usize..self.n as usize];
            for item in rest.iter() {
                if item.weight > room {
                    return bound + item.value as u64 * room as u64 / item.weight as u64;
                }
                room -= item.weight;
                bound += item.value as u64;
            }
            bound
        }

        /// A packing that extends `p` greedily (every item that still fits, by density): its
        /// value is one the search can reach.
        pub fn greedy(&self, p: &Packing) -> u64 {
            let rest = &self.items[p.next as usize..self.n as usize];
            let (_, value) = rest.iter().fold((self.capacity - p.weight, p.value), |(room, value), item| {
                if item.weight <= room {
                    (room - item.weight, value + item.value as u64)
                } else {
                    (room, value)
                }
            });
            value
        }
    }

    #[spawn]
    fn branch(p: &Packing, ctx: &mut Ctx) {
        let inst = ctx.params;
        assert!(p.weight <= inst.capacity, "a packing of weight {} over the capacity {}", p.weight, inst.capacity);
        let best = ctx.buffers.value.get(0);
        let bound = inst.bound(p);
        assert!(bound >= p.value, "bound {} below the value {} already packed", bound, p.value);
        if bound <= best {
            ctx.counters.pruned.add(1);
            return;
        }
        let greedy = inst.greedy(p);
        assert!(greedy <= bound, "greedy value {} above the bound {}", greedy, bound);
        if greedy > best && ctx.buffers.value.atomic_max(0, greedy) < greedy {
            ctx.counters.improved.add(1);
        }
        // A subtree whose greedy packing meets its bound holds nothing better.
        if greedy == bound || p.next == inst.n {
            return;
        }
        let item = inst.items[p.next as usize];
        let next = p.next + 1;
        ctx.spawn(Packing { next, weight: p.weight, value: p.value });
        if p.weight + item.weight <= inst.capacity {
            ctx.spawn(Packing { next, weight: p.weight + item.weight, value: p.value + item.value as u64 });
        }
    }
}

/// Best-first branch and bound on the priority scheduler: the same search, but a packing
/// waits in a band by its bound, highest bound first (band `(top - bound) / width`, `top`
/// the root's bound), so the packings that could still be worth the most are expanded first
/// and the incumbent rises early; packings whose bound falls to it are never expanded. With
/// every packing in band 0 (`ordered: false`) the same kernel runs in no particular order.
/// A child's bound is computed once, by its parent, and travels in the task.
///
/// The bound and greedy completion repeat the module above: a megakernel module's items are
/// its own (the DSL shares no items between modules yet).
#[megakernel(order = priority)]
pub mod best_first {
    use wsdsl::prelude::*;

    pub const MAX_ITEMS: usize = 128;

    pub struct Item {
        pub weight: u32,
        pub value: u32,
    }

    /// The instance, items sorted by value per weight, best first, and how bounds map to bands.
    #[params]
    pub struct Instance {
        pub n: u32,
        pub capacity: u32,
        pub items: [Item; MAX_ITEMS],
        /// The root's bound: band 0.
        pub top: u64,
        /// Bound per band (at least 1).
        pub width: u64,
        /// Whether packings wait in bands by bound, or all run in band 0.
        pub ordered: bool,
    }

    #[buffers]
    pub struct Best {
        pub value: Buffer<u64>,
    }

    #[counters]
    pub struct Counters {
        /// Packings whose children were generated.
        pub expanded: Sum<u64>,
        /// Packings (run or about to be spawned) whose bound could not beat the best value.
        pub pruned: Sum<u64>,
        /// Packings whose greedy completion raised the best value.
        pub improved: Sum<u64>,
    }

    /// Items `0..next` decided, weighing `weight` and worth `value`; nothing below is worth
    /// more than `bound`.
    #[task]
    pub struct Packing {
        pub next: u32,
        pub weight: u32,
        pub value: u64,
        pub bound: u64,
    }

    impl Instance {
        /// The fractional relaxation of a packing (rounded down).
        pub fn bound(&self, next: u32, weight: u32, value: u64) -> u64 {
            let mut room = self.capacity - weight;
            let mut bound = value;
            for item in self.items[next as usize..self.n as usize].iter() {
                if item.weight > room {
                    return bound + item.value as u64 * room as u64 / item.weight as u64;
                }
                room -= item.weight;
                bound += item.value as u64;
            }
            bound
        }

        /// The value of a greedy completion of a packing: one the search can reach.
        pub fn greedy(&self, next: u32, weight: u32, value: u64) -> u64 {
            let mut room = self.capacity - weight;
            let mut total = value;
            for item in self.items[next as usize..self.n as usize].iter() {
                if item.weight <= room {
                    room -= item.weight;
                    total += item.value as u64;
                }
            }
            total
        }

        /// The band of a packing of bound `bound`: the higher the bound, the sooner.
        pub fn band(&self, bound: u64) -> u32 {
            if !self.ordered {
                return 0;
            }
            let band = (self.top - bound) / self.width;
            if band < 0xffff_fffe { band as u32 } else { 0xffff_fffe }
        }
    }

    #[spawn]
    fn branch(p: &Packing, ctx: &mut Ctx) {
        let inst = ctx.params;
        let best = ctx.buffers.value.get(0);
        if p.bound <= best {
            ctx.counters.pruned.add(1);
            return;
        }
        ctx.counters.expanded.add(1);
        let greedy = inst.greedy(p.next, p.weight, p.value);
        assert!(greedy <= p.bound, "greedy value {} above the bound {}", greedy, p.bound);
        let mut best = best;
        if greedy > best {
            if ctx.buffers.value.atomic_max(0, greedy) < greedy {
                ctx.counters.improved.add(1);
            }
            best = greedy;
        }
        // A subtree whose greedy packing meets its bound holds nothing better.
        if greedy == p.bound || p.next == inst.n {
            return;
        }
        let item = inst.items[p.next as usize];
        let next = p.next + 1;
        let without = inst.bound(next, p.weight, p.value);
        if without > best {
            ctx.spawn_with_priority(inst.band(without), Packing { next, weight: p.weight, value: p.value, bound: without });
        } else {
            ctx.counters.pruned.add(1);
        }
        if p.weight + item.weight <= inst.capacity {
            let (weight, value) = (p.weight + item.weight, p.value + item.value as u64);
            let with = inst.bound(next, weight, value);
            if with > best {
                ctx.spawn_with_priority(inst.band(with), Packing { next, weight, value, bound: with });
            } else {
                ctx.counters.pruned.add(1);
            }
        }
    }
}

/// An item as generated: (weight, value).
pub type Item = (u32, u32);

/// How values relate to weights in a generated instance (Pisinger's classes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Correlation {
    /// Values independent of weights: easy.
    None,
    /// Value = weight + a random number within a tenth of the range either way.
    Weak,
    /// Value = weight + a tenth of the range: hard for branch and bound.
    Strong,
}

/// `n` items with weights in `1..=range` and values related to them by `correlation`.
pub fn generate(n: usize, range: u32, correlation: Correlation, seed: u64) -> Vec<Item> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| {
            let weight = rng.within(1, range);
            let value = match correlation {
                Correlation::None => rng.within(1, range),
                Correlation::Weak => (weight as i64 + rng.within(0, range / 5) as i64 - (range / 10) as i64).max(1) as u32,
                Correlation::Strong => weight + range / 10,
            };
            (weight, value)
        })
        .collect()
}

/// The best value of `items` within `capacity`, by dynamic programming: `best[c]` is the most
/// value of the items seen so far within weight `c`.
pub fn reference(items: &[Item], capacity: u32) -> u64 {
    // Room beyond the items' total weight changes nothing: the table stops there.
    let total: u64 = items.iter().map(|&(w, _)| w as u64).sum();
    let capacity = capacity.min(total.min(u32::MAX as u64) as u32);
    let mut best = vec![0u64; capacity as usize + 1];
    for &(w, v) in items {
        for c in (w as usize..=capacity as usize).rev() {
            best[c] = best[c].max(best[c - w as usize] + v as u64);
        }
    }
    best[capacity as usize]
}

/// `items` sorted by value per weight, best first (ties: lighter first).
fn by_density(items: &[Item]) -> Vec<Item> {
    let mut sorted = items.to_vec();
    // a before b when v_a / w_a > v_b / w_b, compared exactly as v_a * w_b > v_b * w_a.
    sorted.sort_by(|&(wa, va), &(wb, vb)| (vb as u64 * wa as u64).cmp(&(va as u64 * wb as u64)).then(wa.cmp(&wb)));
    sorted
}

/// Refuses instances the kernels cannot hold.
fn check_items(items: &[Item]) -> Result<(), wsdsl::Error> {
    if items.len() > knapsack::MAX_ITEMS {
        return Err(wsdsl::Error::InvalidConfig(format!("at most {} items, not {}", knapsack::MAX_ITEMS, items.len())));
    }
    if items.iter().any(|&(w, _)| w == 0) {
        return Err(wsdsl::Error::InvalidConfig("every item must weigh something".into()));
    }
    Ok(())
}

/// The kernel's instance: the items sorted by value per weight, best first (ties: lighter first).
pub fn instance(items: &[Item], capacity: u32) -> Result<knapsack::Instance, wsdsl::Error> {
    check_items(items)?;
    let sorted = by_density(items);
    let mut inst = knapsack::Instance {
        n: items.len() as u32,
        capacity,
        items: [knapsack::Item { weight: 0, value: 0 }; knapsack::MAX_ITEMS],
    };
    for (slot, &(weight, value)) in inst.items.iter_mut().zip(&sorted) {
        *slot = knapsack::Item { weight, value };
    }
    Ok(inst)
}

/// The best value of `items` within `capacity` by branch and bound on `rt`.
pub fn solve(rt: &Runtime, items: &[Item], capacity: u32) -> Result<(u64, Output<knapsack::Kernel>), wsdsl::Error> {
    let inst = instance(items, capacity)?;
    let best = knapsack::Best { value: Buffer::zeroed(1) };
    let out = rt.run_with::<knapsack::Kernel>(inst, &best, [knapsack::Packing { next: 0, weight: 0, value: 0 }])?;
    Ok((best.value.get(0), out))
}

/// What a best-first run found: the best value and the packings it expanded.
pub struct BestFirst {
    pub best: u64,
    pub expanded: u64,
    pub out: Output<best_first::Kernel>,
}

/// Bands across the root's gap between its bound and its greedy value: finer bands follow
/// the bounds more closely, at the price of more band moves.
pub const BANDS: u64 = 64;

/// The best value of `items` within `capacity` by best-first branch and bound on `rt`
/// (`ordered`: highest bound first; otherwise every packing in band 0).
pub fn solve_best_first(rt: &Runtime, items: &[Item], capacity: u32, ordered: bool) -> Result<BestFirst, wsdsl::Error> {
    check_items(items)?;
    let sorted = by_density(items);
    let mut inst = best_first::Instance {
        n: items.len() as u32,
        capacity,
        items: [best_first::Item { weight: 0, value: 0 }; best_first::MAX_ITEMS],
        top: 0,
        width: 1,
        ordered,
    };
    for (slot, &(weight, value)) in inst.items.iter_mut().zip(&sorted) {
        *slot = best_first::Item { weight, value };
    }
    inst.top = inst.bound(0, 0, 0);
    inst.width = ((inst.top - inst.greedy(0, 0, 0)) / BANDS).max(1);
    let best = best_first::Best { value: Buffer::zeroed(1) };
    let root = best_first::Packing { next: 0, weight: 0, value: 0, bound: inst.top };
    let out = rt.run_with::<best_first::Kernel>(inst, &best, [root])?;
    Ok(BestFirst { best: best.value.get(0), expanded: out.counters.expanded.get(), out })
}
