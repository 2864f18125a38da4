//! The graph examples' megakernels on the CPU backend, each against its sequential reference:
//! BFS (direction-optimizing, data-driven and level-synchronous), connected components
//! (union-find with sampling, and label propagation), SSSP (frontier relaxation), PageRank (the Broker Queue paper's formulation, pulled sweeps, residual push), on
//! SNAP's p2p-Gnutella31, small R-MAT graphs and every generated class (grids with and without
//! holes, random geometric, uniform random); and their bad inputs. (The GPU runs are
//! in `bench --rows graphs` and the examples themselves.)

use wsdsl_examples::bfs;
use wsdsl_examples::cc;
use wsdsl_examples::graph_reference;
use wsdsl_examples::pagerank;
use wsdsl_examples::relax;

use wsdsl::graph::{self, Geometric, Graph, GraphOptions, Grid, Rmat, Uniform};
use wsdsl::prelude::*;

fn cpu() -> Runtime {
    Runtime::new(Backend::Cpu).cpu_threads(2)
}

fn clean(symmetrize: bool) -> GraphOptions {
    GraphOptions { symmetrize, remove_self_loops: true, remove_duplicates: true, quiet: true }
}

fn gnutella(symmetrize: bool) -> Graph {
    graph::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/graphs/p2p-Gnutella31.txt.gz"), &clean(symmetrize)).expect("the shipped graph reads")
}

fn rmat(scale: u32, weighted: bool, symmetrize: bool) -> Graph {
    Rmat { scale, edge_factor: 16, seed: 3, weighted }.generate(&clean(symmetrize)).expect("R-MAT")
}

#[test]
fn bfs_on_gnutella_reaches_the_published_60826_vertices_at_depth_25_both_ways() {
    let g = gnutella(false);
    let dg = bfs::device_graph(&g);
    let (levels, _) = bfs::search(&cpu(), &dg, 0, 64, false).unwrap();
    assert_eq!(bfs::reach(&levels.depth), (60_826, 25));
    assert_eq!(bfs::check(&g, 0, &levels.depth), Ok(()));
    assert_eq!(levels.edges_scanned, bfs::traversed_edges(&g, &levels.depth), "level by level, every edge once");
    let (driven, _) = bfs::search(&cpu(), &dg, 0, 64, true).unwrap();
    assert_eq!(bfs::check(&g, 0, &driven.depth), Ok(()));
    assert!(driven.edges_scanned >= levels.edges_scanned);
}

#[test]
fn bfs_on_rmat_splits_hub_edge_lists_and_matches_the_reference() {
    let g = rmat(12, false, true);
    let source = g.first_vertex_with_edges().unwrap_or(0);
    let dg = bfs::device_graph(&g);
    for grain in [1, 7, 64] {
        let (levels, out) = bfs::search(&cpu(), &dg, source, grain, false).unwrap();
        assert_eq!(bfs::check(&g, source, &levels.depth), Ok(()), "grain {grain}");
        assert!(out.stats.tasks > g.max_degree() as u64 / grain as u64, "hub edge lists were split: {}", out.stats);
        let (driven, _) = bfs::search(&cpu(), &dg, source, grain, true).unwrap();
        assert_eq!(bfs::check(&g, source, &driven.depth), Ok(()), "data-driven, grain {grain}");
    }
}

#[test]
fn bfs_refuses_a_source_outside_the_graph_and_a_zero_grain() {
    let g = gnutella(false);
    let dg = bfs::device_graph(&g);
    let e = bfs::search(&cpu(), &dg, 62_586, 64, true).err().expect("vertex 62586 does not exist");
    assert!(e.to_string().contains("62586"), "{e}");
    let e = bfs::search(&cpu(), &dg, 0, 0, false).err().expect("grain 0");
    assert!(e.to_string().contains("grain"), "{e}");
}

#[test]
fn sssp_distances_equal_dijkstra_on_gnutella_and_weighted_rmat() {
    for (g, weights) in [
        { let g = gnutella(false); let w = graph_reference::hashed_weights(&g); (g, w) },
        { let g = rmat(11, true, true); let w = g.int_weights().unwrap().to_vec(); (g, w) },
    ] {
        let source = g.first_vertex_with_edges().unwrap_or(0);
        let dg = relax::DeviceGraph::new(&g, Some(weights.clone()));
        let mut initial = vec![graph_reference::UNREACHED; g.vertices()];
        initial[source as usize] = 0;
        let want = graph_reference::dijkstra(&g, &weights, source);
        let (found, _) = relax::run(&cpu(), &dg, initial.clone(), &[source], relax::Relaxation { grain: 16, step: 0 }).unwrap();
        assert_eq!(relax::compare(&found.value, &want, "distances"), Ok(()));
        assert!(found.rounds > 1);
        if g.vertices() < 10_000 {
            // Without rounds the CPU's depth-first order rescans a lot: a small graph only.
            let (found, _) = relax::run_driven(&cpu(), &dg, initial, &[source], relax::Relaxation { grain: 16, step: 0 }).unwrap();
            assert_eq!(relax::compare(&found.value, &want, "distances (data-driven)"), Ok(()));
        }
    }
}

#[test]
fn components_label_every_vertex_with_the_smallest_of_its_component() {
    for g in [gnutella(true), rmat(11, false, true)] {
        let everyone: Vec<u32> = (0..g.vertices() as u32).collect();
        let dg = relax::DeviceGraph::new(&g, None);
        let (found, _) = relax::run(&cpu(), &dg, everyone.clone(), &everyone, relax::Relaxation { grain: 32, step: 0 }).unwrap();
        let want = graph_reference::components(&g);
        assert_eq!(relax::compare(&found.value, &want, "labels"), Ok(()));
        let (driven, _) = relax::run_driven(&cpu(), &dg, everyone.clone(), &everyone, relax::Relaxation { grain: 32, step: 0 }).unwrap();
        assert_eq!(relax::compare(&driven.value, &want, "labels (data-driven)"), Ok(()));
        let (count, largest) = graph_reference::component_summary(&found.value);
        assert!(count >= 1 && largest > g.vertices() / 2, "{count} components, largest {largest}");
    }
}

#[test]
fn relaxation_refuses_inputs_that_do_not_fit_the_graph() {
    let g = rmat(8, false, true);
    let dg = relax::DeviceGraph::new(&g, None);
    let how = relax::Relaxation { grain: 16, step: 1 };
    let n = g.vertices();
    let e = relax::run(&cpu(), &dg, vec![0; n - 1], &[0], how).err().expect("one value short");
    assert!(e.to_string().contains("initial values"), "{e}");
    let e = relax::run_driven(&cpu(), &dg, vec![0; n], &[n as u32], how).err().expect("vertex n is not in the graph");
    assert!(e.to_string().contains(&format!("vertex {n}")), "{e}");
}

#[test]
fn pagerank_eight_iterations_match_float64_power_iteration() {
    for g in [gnutella(false), rmat(10, false, false)] {
        let dg = pagerank::DeviceGraph::new(&g);
        let (rank, edges, _) = pagerank::iterate(&cpu(), &dg, 8).unwrap();
        let (rel, _) = pagerank::error(&rank, &pagerank::reference(&g, Some(8)));
        assert!(rel < 1e-9, "relative error {rel}");
        assert_eq!(edges, 8 * g.edges() as u64, "every edge passes a rank on once per iteration");
        // Pulled over in-edges, in tasks of 8 (R-MAT's hubs are summed in parts), with leaves
        // cut evenly and by walks of the offsets whatever the degrees say.
        let mut pg = pagerank::PullGraph::new(&g);
        assert!(pg.skewed, "both graphs' in-degrees are skewed");
        let even = [Grid { rows: 60, columns: 50, delete: 0.0, seed: 1, weighted: false }, Grid { rows: 80, columns: 80, delete: 0.4, seed: 2, weighted: false }];
        for grid in even {
            assert!(!pagerank::PullGraph::new(&grid.generate().unwrap()).skewed, "a grid's in-degrees are even: {grid:?}");
        }
        let geometric = Geometric { vertices: 6_000, degree: 6.0, seed: 3, weighted: false }.generate().unwrap();
        assert!(!pagerank::PullGraph::new(&geometric).skewed, "a geometric graph's in-degrees are even");
        for skewed in [true, false] {
            pg.skewed = skewed;
            let (pulled, edges, _) = pagerank::pull(&cpu(), &pg, 8, 8).unwrap();
            let (rel, _) = pagerank::error(&pulled, &pagerank::reference(&g, Some(8)));
            assert!(rel < pagerank::pull_tolerance(8), "pulled, skewed {skewed}: relative error {rel}");
            assert_eq!(edges, 8 * g.edges() as u64, "skewed {skewed}: every in-edge summed once per iteration");
        }
    }
}

#[test]
fn pagerank_to_a_tolerance_is_within_its_bound_of_the_fixed_point() {
    let g = gnutella(false);
    let tol = 1e-10;
    let (rank, _, _) = pagerank::converge(&cpu(), &pagerank::DeviceGraph::new(&g), tol).unwrap();
    let (_, total) = pagerank::error(&rank, &pagerank::reference(&g, None));
    let bound = tol * (g.vertices() + g.edges()) as f64 / (1.0 - pagerank::DAMPING);
    assert!(total <= bound, "total error {total:e} above the bound {bound:e}");
    let e = pagerank::converge(&cpu(), &pagerank::DeviceGraph::new(&g), 0.0).err().expect("tolerance 0");
    assert!(e.to_string().contains("tolerance"), "{e}");
}

/// A tolerance below what float64 ranks resolve would only spin: residuals that small change
/// no rank when added. It is refused at once, saying the smallest accepted and why. (The
/// work grows as 1 / tolerance, so a run at the smallest is long: the one just below is the
/// one tried.)
#[test]
fn pagerank_refuses_a_tolerance_below_what_float64_ranks_resolve() {
    let g = gnutella(false);
    let rt = cpu().watchdog(std::time::Duration::from_secs(20));
    let started = std::time::Instant::now();
    let e = pagerank::converge(&rt, &pagerank::DeviceGraph::new(&g), 1e-300).err().expect("tolerance 1e-300");
    let msg = e.to_string();
    assert!(matches!(e, wsdsl::Error::InvalidConfig(_)), "{msg}");
    assert!(msg.contains("1e-300") && msg.contains("smallest") && msg.contains("62586 vertices"), "{msg}");
    let smallest = pagerank::smallest_tolerance(g.vertices());
    assert!(msg.contains(&format!("{smallest:.1e}")), "{msg}");
    assert!((5e-22..6e-22).contains(&smallest), "f64::EPSILON * 0.15 / 62586: {smallest:e}");
    assert_eq!(pagerank::check_tolerance(smallest, g.vertices()), Ok(()));
    let e = pagerank::converge(&rt, &pagerank::DeviceGraph::new(&g), smallest * 0.99).err().expect("just below the smallest");
    assert!(e.to_string().contains("smallest"), "{e}");
    for bad in [f64::INFINITY, f64::NAN, -1e-10] {
        assert!(pagerank::check_tolerance(bad, g.vertices()).unwrap_err().contains("not a positive finite number"), "{bad}");
    }
    assert!(started.elapsed().as_secs() < 5, "refused before running: {:?}", started.elapsed());
}

#[test]
fn a_malformed_graph_file_is_an_error_naming_file_and_line() {
    let path = std::env::temp_dir().join(format!("wsdsl-graphs-cpu-{}.txt", std::process::id()));
    std::fs::write(&path, "# comment\n0 1\n1 x\n").unwrap();
    let e = graph::read(&path, &clean(false)).unwrap_err();
    let _ = std::fs::remove_file(&path);
    let msg = e.to_string();
    assert!(msg.contains(&path.display().to_string()) && msg.contains(":3:") && msg.contains("`x`"), "{msg}");
}

/// A graph of every class, small: (name, undirected graph).
fn classes() -> Vec<(&'static str, Graph)> {
    vec![
        ("gnutella", gnutella(true)),
        ("R-MAT 11", rmat(11, false, true)),
        ("grid 60 x 50", Grid { rows: 60, columns: 50, delete: 0.0, seed: 1, weighted: false }.generate().unwrap()),
        ("grid with holes", Grid { rows: 80, columns: 80, delete: 0.4, seed: 2, weighted: false }.generate().unwrap()),
        ("geometric", Geometric { vertices: 6_000, degree: 6.0, seed: 3, weighted: false }.generate().unwrap()),
        ("uniform", Uniform { vertices: 6_000, degree: 3, seed: 4, weighted: false }.generate().unwrap()),
    ]
}

#[test]
fn direction_optimizing_bfs_matches_the_reference_on_every_class() {
    for (name, g) in classes() {
        let source = g.first_vertex_with_edges().unwrap_or(0);
        let (found, out) = bfs::search_direction(&cpu(), &bfs::device_graph(&g), source, bfs::Direction::default()).unwrap();
        assert_eq!(bfs::check(&g, source, &found.depth), Ok(()), "{name}");
        let (_, deepest) = bfs::reach(&found.depth);
        assert_eq!(found.levels, deepest + 1, "{name}: a level per depth");
        assert_eq!(out.stats.completions, 0, "{name}: no continuation waits for a level");
        if name == "R-MAT 11" || name == "uniform" {
            assert!(found.bottom_up > 0, "{name}: a short-diameter graph goes bottom-up");
        }
        if name == "R-MAT 11" {
            let traversed = bfs::traversed_edges(&g, &found.depth);
            assert!(found.edges_scanned * 2 < traversed, "{name}: bottom-up scans fewer edges ({} of {traversed})", found.edges_scanned);
        }
    }
}

#[test]
fn direction_optimizing_bfs_on_a_directed_graph_looks_up_in_edges() {
    // Gnutella as shipped is directed: bottom-up steps must scan in-edges, not out-edges.
    let g = gnutella(false);
    let dg = bfs::device_graph(&g);
    for alpha in [15, 1_000_000] {
        let how = bfs::Direction { alpha, ..bfs::Direction::default() };
        let (found, _) = bfs::search_direction(&cpu(), &dg, 0, how).unwrap();
        assert_eq!(bfs::reach(&found.depth), (60_826, 25), "alpha {alpha}");
        assert_eq!(bfs::check(&g, 0, &found.depth), Ok(()), "alpha {alpha}");
        assert!(found.bottom_up > 0, "alpha {alpha}: {} bottom-up steps", found.bottom_up);
    }
}

#[test]
fn direction_optimizing_bfs_agrees_for_every_grain_and_splits_hubs() {
    let g = rmat(12, false, true);
    let source = g.first_vertex_with_edges().unwrap_or(0);
    let dg = bfs::device_graph(&g);
    for (frontier_grain, vertex_grain, edge_grain) in [(1, 1, 1), (7, 100, 3), (64, 4096, 1 << 20)] {
        for alpha in [0, 15, 1 << 30] {
            let how = bfs::Direction { frontier_grain, vertex_grain, edge_grain, alpha, beta: 18 };
            let (found, out) = bfs::search_direction(&cpu(), &dg, source, how).unwrap();
            let label = format!("grains {frontier_grain}/{vertex_grain}/{edge_grain}, alpha {alpha}");
            assert_eq!(bfs::check(&g, source, &found.depth), Ok(()), "{label}");
            if alpha == 0 {
                assert_eq!(found.bottom_up, 0, "{label}: alpha 0 never goes bottom-up");
                assert_eq!(found.edges_scanned, bfs::traversed_edges(&g, &found.depth), "{label}: top-down scans every edge once");
            }
            if edge_grain == 3 {
                assert!(out.stats.tasks > g.max_degree() as u64 / 3, "{label}: the hub's edges were split: {}", out.stats);
            }
        }
    }
}

#[test]
fn direction_optimizing_bfs_refuses_bad_settings() {
    let g = gnutella(false);
    let dg = bfs::device_graph(&g);
    let e = bfs::search_direction(&cpu(), &dg, 62_586, bfs::Direction::default()).err().expect("no vertex 62586");
    assert!(e.to_string().contains("62586"), "{e}");
    let e = bfs::search_direction(&cpu(), &dg, 0, bfs::Direction { edge_grain: 0, ..bfs::Direction::default() }).err().expect("grain 0");
    assert!(e.to_string().contains("grain"), "{e}");
    let e = bfs::search_direction(&cpu(), &dg, 0, bfs::Direction { beta: 0, ..bfs::Direction::default() }).err().expect("beta 0");
    assert!(e.to_string().contains("beta"), "{e}");
}

#[test]
fn union_find_labels_every_vertex_with_the_smallest_of_its_component_on_every_class() {
    for (name, g) in classes() {
        let dg = cc::DeviceGraph::new(&g).unwrap();
        let want = graph_reference::components(&g);
        let (found, out) = cc::afforest(&cpu(), &dg, cc::Afforest::default()).unwrap();
        assert_eq!(relax::compare(&found.labels, &want, "labels"), Ok(()), "{name}");
        assert!(out.stats.completions >= 7, "{name}: a continuation per phase: {}", out.stats);
        // The sample found the largest component, and its vertices skipped their remaining edges.
        let (_, largest) = graph_reference::component_summary(&want);
        let sampled = want.iter().filter(|&&l| l == found.largest_root).count();
        assert_eq!(sampled, largest, "{name}: the sampled root {} is the largest component's", found.largest_root);
        assert!(found.skipped > 0 && found.skipped as usize <= sampled, "{name}: {} skipped", found.skipped);
        assert!(found.links < g.edges() as u64, "{name}: {} links for {} edges", found.links, g.edges());
    }
}

#[test]
fn union_find_is_exact_for_any_rounds_samples_and_grain() {
    for g in [rmat(10, false, true), Grid { rows: 40, columns: 40, delete: 0.45, seed: 9, weighted: false }.generate().unwrap()] {
        let want = graph_reference::components(&g);
        let dg = cc::DeviceGraph::new(&g).unwrap();
        for (grain, rounds, samples) in [(1, 0, 1), (3, 1, 7), (16, 2, 1024), (1000, 5, 10_000)] {
            let (found, _) = cc::afforest(&cpu(), &dg, cc::Afforest { grain, rounds, samples }).unwrap();
            assert_eq!(relax::compare(&found.labels, &want, "labels"), Ok(()), "grain {grain}, rounds {rounds}, samples {samples}");
        }
    }
}

#[test]
fn union_find_handles_isolated_vertices_and_an_empty_graph() {
    let opts = clean(true);
    let g = Graph::from_edges(6, vec![(1, 2, 0), (4, 4, 0)], false, &opts).unwrap();
    let (found, _) = cc::afforest(&cpu(), &cc::DeviceGraph::new(&g).unwrap(), cc::Afforest::default()).unwrap();
    assert_eq!(found.labels, vec![0, 1, 1, 3, 4, 5]);
    let empty = Graph::from_edges(0, vec![], false, &opts).unwrap();
    let (found, _) = cc::afforest(&cpu(), &cc::DeviceGraph::new(&empty).unwrap(), cc::Afforest::default()).unwrap();
    assert!(found.labels.is_empty());
}

#[test]
fn union_find_refuses_a_directed_graph_and_bad_settings() {
    let e = cc::DeviceGraph::new(&gnutella(false)).err().expect("directed");
    assert!(e.to_string().contains("undirected"), "{e}");
    let dg = cc::DeviceGraph::new(&rmat(8, false, true)).unwrap();
    let e = cc::afforest(&cpu(), &dg, cc::Afforest { grain: 0, ..cc::Afforest::default() }).err().expect("grain 0");
    assert!(e.to_string().contains("grain"), "{e}");
    let e = cc::afforest(&cpu(), &dg, cc::Afforest { samples: 0, ..cc::Afforest::default() }).err().expect("no samples");
    assert!(e.to_string().contains("sample"), "{e}");
}


/// The sssp example's reference reads a file's edges and weights itself: it agrees with
/// Dijkstra on the graph the runtime read when the reader is right (integer and real
/// weights, duplicates, symmetric matrices, gzip, unweighted files with hashed weights), and
/// disagrees when the weights differ from the file's, as weights rounded through `f32` did.
#[test]
fn the_sssp_reference_reads_edges_and_weights_from_the_file_itself() {
    let dir = std::env::temp_dir().join(format!("wsdsl-sssp-reference-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let real = write(
        "real.mtx",
        "%%MatrixMarket matrix coordinate real general\n% 2^24 + 1 is no f32\n4 4 5\n1 2 16777217.0\n1 2 16777218\n2 3 0.5e1\n1 3 16777223\n3 4 2.50e1\n",
    );
    let g = graph::read(&real, &clean(false)).unwrap();
    let weights = g.integer_weights().unwrap().unwrap();
    let want = graph_reference::file_distances(&real, false, g.vertices(), 0).unwrap();
    assert_eq!(want, vec![0, 16_777_217, 16_777_222, 16_777_247]);
    assert_eq!(graph_reference::dijkstra(&g, &weights, 0), want);
    let rounded: Vec<u32> = weights.iter().map(|&w| w as f32 as u32).collect();
    assert_ne!(graph_reference::dijkstra(&g, &rounded, 0), want, "weights not the file's are noticed");
    let fraction = write("fraction.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.99999999\n");
    let e = graph_reference::file_distances(&fraction, false, 2, 0).unwrap_err();
    assert!(e.contains("`0.99999999` is not a whole number") && e.contains("line 3"), "{e}");

    let symmetric = write("sym.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n2 1 4\n3 2 5\n");
    let g = graph::read(&symmetric, &clean(false)).unwrap();
    let want = graph_reference::file_distances(&symmetric, false, g.vertices(), 2).unwrap();
    assert_eq!(want, vec![9, 5, 0]);
    assert_eq!(graph_reference::dijkstra(&g, g.int_weights().unwrap(), 2), want);
    let road = write("road.gr", "c x\np sp 3 2\na 1 2 7\na 2 3 1\n");
    let g = graph::read(&road, &clean(false)).unwrap();
    assert_eq!(graph_reference::file_distances(&road, false, g.vertices(), 0).unwrap(), vec![0, 7, 8]);
    assert_eq!(graph_reference::dijkstra(&g, g.int_weights().unwrap(), 0), vec![0, 7, 8]);
    for symmetrize in [false, true] {
        let g = gnutella(symmetrize);
        let source = g.first_vertex_with_edges().unwrap_or(0);
        let want = graph_reference::file_distances(&wsdsl_examples::cli::graph::default_graph(), symmetrize, g.vertices(), source).unwrap();
        assert_eq!(graph_reference::dijkstra(&g, &graph_reference::hashed_weights(&g), source), want, "symmetrize {symmetrize}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
