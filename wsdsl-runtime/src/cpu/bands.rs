//! Ordered runs on the CPU backend (`order = priority`): band by band, as GAPBS runs
//! delta-stepping on CPUs. The lowest band's tasks run side by side on the pool; what they
//! spawn goes to its band (a plain `ctx.spawn`: the parent's), and a child of the band being
//! run runs in that band's next sweep. A priority below the band being run counts as that
//! band (the lowest band never moves down, as on the GPU, `cuda/schedulers/bands.cuh`). The run ends
//! when no band holds a task.
//!
//! Strict order costs one barrier per sweep; the GPU instead looks ahead into higher bands
//! while the lowest one drains. Ordered programs have no complete handlers (the macro
//! refuses them), so no task waits here for another.

use super::tree::Run;
use super::workers::here;
use crate::contract::Program;
use crate::stats::BandStats;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

/// Fewest tasks a piece of a sweep hands to one pool thread (fewer would cost more in
/// rayon's splitting than the tasks take).
const PIECE: usize = 64;

impl<P: Program> Run<'_, P> {
    /// Runs `roots` (band 0) and everything they spawn, lowest band first.
    pub fn bands(&self, roots: &[P::Task]) -> BandStats {
        let mut stats = BandStats::default();
        let mut bands: BTreeMap<u32, Vec<P::Task>> = BTreeMap::new();
        if !roots.is_empty() {
            bands.insert(0, roots.to_vec());
        }
        let threads = rayon::current_num_threads().max(1);
        let mut band_tasks = 0u64;
        let mut current = None;
        while let Some((band, tasks)) = bands.pop_first() {
            if self.abort.load(Ordering::Relaxed) {
                break;
            }
            if current != Some(band) {
                if current.is_some() {
                    stats.lowest_moves += 1;
                }
                stats.add_band(band_tasks);
                band_tasks = 0;
                current = Some(band);
                stats.highest = band;
            }
            band_tasks += tasks.len() as u64;
            let piece = (tasks.len() / (threads * 4)).max(PIECE);
            let children: Vec<Vec<(u32, P::Task)>> = tasks.par_chunks(piece).map(|piece| self.sweep(band, piece)).collect();
            for (p, child) in children.into_iter().flatten() {
                bands.entry(p.max(band)).or_default().push(child);
            }
        }
        stats.add_band(band_tasks);
        stats
    }

    /// Runs `tasks` of `band` on this pool thread; their children with their bands.
    fn sweep(&self, band: u32, tasks: &[P::Task]) -> Vec<(u32, P::Task)> {
        let me = here();
        let mut children = Vec::new();
        self.handler(me, |w| {
            for task in tasks {
                if self.abort.load(Ordering::Relaxed) {
                    return;
                }
                w.start();
                P::execute(task, &self.params, self.buffers, &mut w.counters, &mut w.spawned);
                if !w.spawned.is_empty() {
                    w.held += w.spawned.len() as i64;
                    children.extend(w.spawned.with_priorities(band).map(|(p, t)| (p, *t)));
                    w.spawned.clear();
                    if !self.count_held(w) {
                        return;
                    }
                }
            }
        });
        children
    }
}
