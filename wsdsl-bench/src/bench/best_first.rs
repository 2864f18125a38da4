//! Best-first search on the priority scheduler beside the same kernels unordered (every task
//! in band 0) and, for the knapsack, the depth-first module on the deques: A* on the
//! 15-puzzle against the sequential IDA* on the host, best-first branch and bound against
//! dynamic programming. The note of each row says how many positions or packings it expanded.

use super::{fifteen, host_median, knapsack, Bench, Row};
use std::cell::Cell;
use wsdsl::prelude::*;

/// `n` strongly correlated items (weights 1..=1000) and half their total weight as capacity.
fn strong_instance(n: usize, seed: u64) -> (Vec<knapsack::Item>, u32) {
    let items = knapsack::generate(n, 1000, knapsack::Correlation::Strong, seed);
    let capacity = items.iter().map(|&(w, _)| w).sum::<u32>() / 2;
    (items, capacity)
}

impl Bench<'_> {
    /// A* (`ordered`) or the same kernel unordered on a `scramble`-move position, both from
    /// the scramble's length as the incumbent; beside the host's sequential IDA*.
    pub(crate) fn astar(&self, rt: &Runtime, scramble: u32, seed: u64, ordered: bool) -> Row {
        let grid = fifteen::scramble(scramble, seed);
        let (optimal, ms) = host_median(self.args.repeat, || fifteen::optimal(&grid, scramble));
        let what = if ordered { "A*, band = moves + distance" } else { "unordered, every position in band 0" };
        let expanded = Cell::new(0);
        let mut row = self.gpu_row(
            format!("15-puzzle scramble {scramble} seed {seed} ({what})"),
            rt,
            |rt| fifteen::shortest(rt, &grid, scramble, ordered).map(|s| ((s.moves, s.expanded), s.out.stats)),
            |&(moves, n)| {
                expanded.set(n);
                if moves.is_some() && moves == optimal { Ok(format!("{} moves", moves.unwrap_or(0))) } else { Err(format!("{moves:?} moves, IDA* {optimal:?}")) }
            },
        );
        row.note = format!("{} positions expanded", expanded.get());
        row.host = Some(("sequential IDA*".into(), ms));
        row
    }

    /// Best-first branch and bound (`ordered`) or the same kernel unordered on `n` strongly
    /// correlated items; beside dynamic programming on the host.
    pub(crate) fn knapsack_best_first(&self, rt: &Runtime, n: usize, seed: u64, ordered: bool) -> Row {
        let (items, capacity) = strong_instance(n, seed);
        let (optimum, ms) = host_median(self.args.repeat, || knapsack::reference(&items, capacity));
        let what = if ordered { "best-first, band by bound" } else { "unordered, every packing in band 0" };
        let expanded = Cell::new(0);
        let mut row = self.gpu_row(
            format!("knapsack {n} items seed {seed} ({what})"),
            rt,
            |rt| knapsack::solve_best_first(rt, &items, capacity, ordered).map(|r| ((r.best, r.expanded), r.out.stats)),
            |&(best, n)| {
                expanded.set(n);
                if best == optimum { Ok(best.to_string()) } else { Err(format!("{best}, dynamic programming {optimum}")) }
            },
        );
        row.note = format!("{} packings expanded", expanded.get());
        row.host = Some(("dynamic programming".into(), ms));
        row
    }

    /// The depth-first knapsack module on the deques, for comparison.
    pub(crate) fn knapsack_depth_first(&self, rt: &Runtime, n: usize, seed: u64) -> Row {
        let (items, capacity) = strong_instance(n, seed);
        let optimum = knapsack::reference(&items, capacity);
        let mut row = self.gpu_row(
            format!("knapsack {n} items seed {seed} (depth-first module, deques)"),
            rt,
            |rt| knapsack::solve(rt, &items, capacity).map(|(best, out)| (best, out.stats)),
            |&best| if best == optimum { Ok(best.to_string()) } else { Err(format!("{best}, dynamic programming {optimum}")) },
        );
        row.note = format!("{} packings run", row.tasks);
        row
    }
}
