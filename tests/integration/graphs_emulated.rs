//! The graph kernels that coordinate through buffers rather than joins alone, through the
//! host-compiled templates (`wsdsl::gpu::emulate`: the very CUDA source the GPU runs, no GPU
//! needed): direction-optimizing BFS (its last task of a step starts the next, counted with
//! atomics and fences) and union-find connected components (compare-and-swap hooking), each
//! against its sequential reference.

use wsdsl_examples::bfs;
use wsdsl_examples::cc;
use wsdsl_examples::graph_reference;
use wsdsl_examples::pagerank;
use wsdsl_examples::relax;

use wsdsl::gpu::emulate::{run_emulated, Emulation};
use wsdsl::graph::{Graph, GraphOptions, Grid, Rmat};

fn rmat(scale: u32) -> Graph {
    let opts = GraphOptions { symmetrize: true, remove_self_loops: true, remove_duplicates: true, quiet: true };
    Rmat { scale, edge_factor: 16, seed: 5, weighted: false }.generate(&opts).unwrap()
}

fn grid() -> Graph {
    Grid { rows: 30, columns: 40, delete: 0.1, seed: 6, weighted: false }.generate().unwrap()
}

#[test]
fn direction_optimizing_bfs_emulated_matches_the_sequential_bfs() {
    for (name, g) in [("R-MAT 10", rmat(10)), ("grid", grid())] {
        let source = g.first_vertex_with_edges().unwrap_or(0);
        // Small grains: many tasks, hubs split, several workers finishing the same step.
        let how = bfs::Direction { frontier_grain: 1, vertex_grain: 8, edge_grain: 8, ..bfs::Direction::default() };
        let (params, buffers, root) = bfs::direction_inputs(&bfs::device_graph(&g), source, how).unwrap();
        let (counters, _, stats) =
            run_emulated::<bfs::direction::direction::Kernel>(&params, &buffers, &[root.into()], &<bfs::direction::direction::Kernel as wsdsl::Program>::SCHEDULE.resolve(), &Emulation::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        let depth = buffers.depth.to_vec();
        assert_eq!(bfs::check(&g, source, &depth), Ok(()), "{name}");
        assert_eq!(counters.levels.get(), bfs::reach(&depth).1 + 1, "{name}");
        if name == "R-MAT 10" {
            assert!(counters.bottom_up.get() > 0, "{name}: bottom-up steps ran");
        }
        assert!(stats.tasks > 100, "{name}: {stats}");
    }
}

/// A BFS whose depths are large enough (4 MB) that the runtime readies them for the copy back
/// while the kernel runs: the fill owed to every tile the search never reaches arrives
/// intact, and the reached ones are the sequential BFS's. The grid keeps 40% of its edges,
/// so the source's component is small and most tiles are never written on the device.
#[test]
fn depths_owed_their_fill_come_back_whole_from_a_run_readied_under_the_kernel() {
    use wsdsl::prelude::*;
    let g = Grid { rows: 1024, columns: 1024, delete: 0.6, seed: 7, weighted: false }.generate().unwrap();
    let source = g.first_vertex_with_edges().unwrap_or(0);
    let rt = Runtime::new(Backend::Emulate);
    let (found, out) = bfs::search_direction(&rt, &bfs::device_graph(&g), source, bfs::Direction::default()).unwrap();
    assert!(found.depth.len() * 4 >= 4 << 20, "large enough to be readied under the kernel");
    assert_eq!(bfs::check(&g, source, &found.depth), Ok(()), "{}", out.stats);
    let (reached, _) = bfs::reach(&found.depth);
    assert!(reached > 1 && reached < g.vertices() / 2, "a small component: most depths are the fill ({reached} reached)");
}

/// BFS on the priority bands (depth d in band d / delta), on the host-compiled templates and
/// the CPU backend: exact, and on a grid it scans about each edge once (levels run in order).
/// The emulated GPU runs with a lookahead of 1: the relaxation's own 8 lets workers run
/// bands ahead, which on 2 busy cores sometimes rescanned a third of the grid's edges (exact
/// still; `ordered.rs` checks the lookaheads' answers).
#[test]
fn ordered_bfs_is_exact_and_scans_each_edge_about_once() {
    use wsdsl::prelude::*;
    for rt in [Runtime::new(Backend::Emulate).band_lookahead(1), Runtime::new(Backend::Cpu).cpu_threads(2)] {
        for (name, g) in [("R-MAT 10", rmat(10)), ("grid", grid())] {
            let source = g.first_vertex_with_edges().unwrap_or(0);
            for delta in [1, 4] {
                let (found, ran) = bfs::search_ordered(&rt, &bfs::device_graph(&g), source, 8, delta).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(bfs::check(&g, source, &found.depth), Ok(()), "{name}, delta {delta} on {}", ran.backend);
                if name == "grid" {
                    let traversed = bfs::traversed_edges(&g, &found.depth);
                    assert!(found.edges_scanned * 10 <= traversed * 11, "{name}, delta {delta} on {}: {} scans for {traversed} edges", ran.backend, found.edges_scanned);
                }
            }
        }
    }
}

#[test]
fn union_find_emulated_labels_every_component_with_its_smallest_vertex() {
    for (name, g) in [("R-MAT 10", rmat(10)), ("grid", grid())] {
        let how = cc::Afforest { grain: 4, ..cc::Afforest::default() };
        let (params, buffers, roots) = cc::afforest_inputs(&cc::DeviceGraph::new(&g).unwrap(), how).unwrap();
        let roots: Vec<_> = roots.into_iter().map(Into::into).collect();
        // The program's own schedule (the Broker Queue), as it runs on a GPU.
        run_emulated::<cc::afforest::Kernel>(&params, &buffers, &roots, &<cc::afforest::Kernel as wsdsl::Program>::SCHEDULE.resolve(), &Emulation::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = graph_reference::components(&g);
        assert_eq!(relax::compare(&buffers.comp.to_vec(), &want, "labels"), Ok(()), "{name}");
    }
}

/// The pulled PageRank on the emulated GPUs: its first shares computed on the device in a
/// round of their own, its shares and hub sums scratch buffers (cleared at the launch, not
/// read back), the ranks within `pull_tolerance` of float64 power iteration (32-bit shares), and
/// a second run on the same runtime (reusing the device copies) as close; the first cuts its
/// leaves by walks of the offsets, the second evenly.
#[test]
fn pulled_pagerank_emulated_matches_float64_power_iteration() {
    let rt = wsdsl::Runtime::new(wsdsl::Backend::Emulate);
    let g = rmat(9);
    let mut pg = pagerank::PullGraph::new(&g);
    let want = pagerank::reference(&g, Some(5));
    for run in 0..2 {
        pg.skewed = run == 0;
        let (rank, edges, _) = pagerank::pull(&rt, &pg, 5, 8).unwrap_or_else(|e| panic!("run {run}: {e}"));
        let (rel, _) = pagerank::error(&rank, &want);
        assert!(rel < pagerank::pull_tolerance(5), "run {run}: relative error {rel}");
        assert_eq!(edges, 5 * g.edges() as u64, "run {run}: every in-edge summed once per iteration");
    }
}
