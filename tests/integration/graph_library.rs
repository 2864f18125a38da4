//! The graph library's calls (`wsdsl_graph::{bfs, sssp, connected_components, pagerank}`) on
//! the CPU backend, each exact against its sequential reference on every generated graph
//! class and SNAP's p2p-Gnutella31, by default and with every variant. The same checks run
//! on the emulated GPU and the GPU in `graph_library_emulated.rs`; bad input is in
//! `graph_input.rs`.

use wsdsl::graph::{self, Geometric, Graph, GraphOptions, Grid, Rmat, Uniform, Weights};
use wsdsl::prelude::*;
use wsdsl_graph::kernels::{bfs as bfs_kernel, pagerank as pagerank_kernel};
use wsdsl_graph::{reference, Afforest, BfsMethod, BfsOptions, CcMethod, CcOptions, Direction, PageRankMethod, PageRankOptions, SsspMethod, SsspOptions};

pub fn cpu() -> Runtime {
    Runtime::new(Backend::Cpu).cpu_threads(2)
}

pub fn clean(symmetrize: bool) -> GraphOptions {
    GraphOptions { symmetrize, remove_self_loops: true, remove_duplicates: true, quiet: true }
}

pub fn gnutella(symmetrize: bool) -> Graph {
    graph::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/graphs/p2p-Gnutella31.txt.gz"), &clean(symmetrize)).expect("the shipped graph reads")
}

/// One graph of every generated class, `scale` setting their size (R-MAT's scale; the others
/// about 2^scale vertices), weighted and not, symmetric and directed.
pub fn generated(scale: u32) -> Vec<(String, Graph)> {
    let side = 1u32 << (scale / 2);
    let n = 1u32 << scale;
    vec![
        (format!("R-MAT {scale}, undirected, weighted"), Rmat { scale, edge_factor: 16, seed: 3, weighted: true }.generate(&clean(true)).unwrap()),
        (format!("R-MAT {}, directed", scale - 1), Rmat { scale: scale - 1, edge_factor: 8, seed: 4, weighted: false }.generate(&clean(false)).unwrap()),
        (format!("grid {side} x {}, weighted", side + 3), Grid { rows: side, columns: side + 3, delete: 0.0, seed: 1, weighted: true }.generate().unwrap()),
        (format!("grid {side} x {side} with holes"), Grid { rows: side, columns: side, delete: 0.35, seed: 2, weighted: false }.generate().unwrap()),
        (format!("geometric {n}, weighted"), Geometric { vertices: n, degree: 6.0, seed: 3, weighted: true }.generate().unwrap()),
        (format!("uniform {n}, degree 16"), Uniform { vertices: n, degree: 16, seed: 4, weighted: false }.generate().unwrap()),
    ]
}

/// The weights shortest paths add up: the graph's, or 1 per edge where it has none (as the
/// library weighs such a graph).
pub fn weights_of(g: &Graph) -> Vec<u32> {
    g.integer_weights().unwrap().unwrap_or_else(|| vec![1; g.edges()])
}

/// Weakly connected components by a sequential union-find over every edge: each vertex
/// labelled with its component's smallest vertex (the reference of a directed graph, whose
/// out-edges alone do not reach a whole component).
pub fn weak_components(g: &Graph) -> Vec<u32> {
    let mut parent: Vec<u32> = (0..g.vertices() as u32).collect();
    fn root(parent: &mut [u32], mut v: u32) -> u32 {
        while parent[v as usize] != v {
            parent[v as usize] = parent[parent[v as usize] as usize];
            v = parent[v as usize];
        }
        v
    }
    for u in 0..g.vertices() as u32 {
        for &v in g.neighbours(u) {
            let (a, b) = (root(&mut parent, u), root(&mut parent, v));
            parent[a.max(b) as usize] = a.min(b);
        }
    }
    (0..g.vertices() as u32).map(|v| root(&mut parent, v)).collect()
}

/// Every call's default on `g` from `source`, each against its reference; the BFS method
/// chosen.
pub fn check_defaults(rt: &Runtime, name: &str, g: &Graph, source: u32) -> BfsMethod {
    let found = wsdsl_graph::bfs(rt, g, source).unwrap_or_else(|e| panic!("{name}: BFS: {e}"));
    assert_eq!(found.depth, bfs_kernel::reference(g, source), "{name}: depths ({:?})", found.method);
    assert_eq!(found.parent, reference::bfs_parents(g, &found.depth, source), "{name}: parents ({:?})", found.method);
    let ran = found.run.backend.clone();
    let sssp = wsdsl_graph::sssp(rt, g, source).unwrap_or_else(|e| panic!("{name}: SSSP: {e}"));
    assert_eq!(sssp.distance, reference::dijkstra(g, &weights_of(g), source), "{name}: distances ({:?})", sssp.method);
    assert!(matches!(sssp.method, SsspMethod::DeltaStepping { delta } if delta >= 1), "{name}: {:?}", sssp.method);
    let cc = wsdsl_graph::connected_components(rt, g).unwrap_or_else(|e| panic!("{name}: components: {e}"));
    assert_eq!(cc.label, weak_components(g), "{name}: labels");
    assert_eq!(cc.symmetrized, !g.is_symmetric(), "{name}");
    assert_eq!(cc.method, CcMethod::UnionFind(Afforest::default()), "{name}");
    let pr = wsdsl_graph::pagerank(rt, g, &PageRankOptions::default()).unwrap_or_else(|e| panic!("{name}: PageRank: {e}"));
    let (rel, _) = pagerank_kernel::error(&pr.rank, &pagerank_kernel::reference(g, Some(8)));
    assert!(rel <= pagerank_kernel::pull_tolerance(8), "{name}: a rank off by {rel:e} (relative)");
    assert!(matches!(pr.method, PageRankMethod::Pull { .. }), "{name}: {:?}", pr.method);
    for backend in [&sssp.run.backend, &cc.run.backend, &pr.run.backend] {
        assert_eq!(*backend, ran, "{name}: every call on the runtime's backend");
    }
    found.method
}

#[test]
fn every_call_matches_its_reference_on_every_generated_class() {
    for (name, g) in generated(12) {
        let method = check_defaults(&cpu(), &name, &g, g.first_vertex_with_edges().unwrap_or(0));
        // A grid's or a geometric graph's degree is far below 12; the uniform graph's is 16.
        if name.starts_with("grid") || name.starts_with("geometric") {
            assert_eq!(method, BfsMethod::Bands { delta: 1 }, "{name}");
        }
        if name.starts_with("uniform") {
            assert_eq!(method, BfsMethod::DirectionOptimizing(Direction::default()), "{name}");
        }
    }
}

#[test]
fn every_call_matches_its_reference_on_the_snap_file() {
    for symmetrize in [false, true] {
        let g = gnutella(symmetrize);
        check_defaults(&cpu(), &format!("p2p-Gnutella31, symmetrize {symmetrize}"), &g, 0);
    }
    // The published reach of a directed BFS from node 0 (data/README.md).
    let found = wsdsl_graph::bfs(&cpu(), &gnutella(false), 0).unwrap();
    assert_eq!((found.reached(), found.max_depth()), (60_826, 25));
}

/// Shortest paths on the SNAP file with weights hashed from the edges' ends, against
/// Dijkstra's on the file's own edges read by the reference's own parser.
#[test]
fn shortest_paths_on_the_snap_file_equal_dijkstra_on_the_file_read_on_its_own() {
    let mut g = gnutella(false);
    g.weights = Weights::Int(reference::hashed_weights(&g));
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/data/graphs/p2p-Gnutella31.txt.gz"));
    let want = reference::file_distances(path, false, g.vertices(), 0).unwrap();
    let found = wsdsl_graph::sssp(&cpu(), &g, 0).unwrap();
    assert_eq!(found.distance, want);
    assert!(found.distance.iter().filter(|&&d| d != reference::UNREACHED).count() == 60_826);
}

/// Each variant, on a graph of long diameter and one of skewed degrees (directed), gives the
/// default's answer.
#[test]
fn every_variant_gives_the_same_answer() {
    let graphs = [
        ("grid with holes", Grid { rows: 40, columns: 40, delete: 0.3, seed: 9, weighted: true }.generate().unwrap()),
        ("R-MAT 9, directed", Rmat { scale: 9, edge_factor: 16, seed: 5, weighted: true }.generate(&clean(false)).unwrap()),
    ];
    let small = Direction { frontier_grain: 2, vertex_grain: 5, edge_grain: 3, ..Direction::default() };
    for (name, g) in &graphs {
        let source = g.first_vertex_with_edges().unwrap();
        let depth = bfs_kernel::reference(g, source);
        let parent = reference::bfs_parents(g, &depth, source);
        for method in [
            BfsMethod::DirectionOptimizing(Direction::default()),
            BfsMethod::DirectionOptimizing(small),
            BfsMethod::Bands { delta: 1 },
            BfsMethod::Bands { delta: 4 },
            BfsMethod::LevelSynchronous,
            BfsMethod::DataDriven,
        ] {
            let found = wsdsl_graph::bfs_with(&cpu(), g, source, &BfsOptions { method, grain: 3, parents: true }).unwrap();
            assert_eq!((&found.depth, &found.parent, found.method), (&depth, &parent, method), "{name}");
            let without = wsdsl_graph::bfs_with(&cpu(), g, source, &BfsOptions { method, grain: 3, parents: false }).unwrap();
            assert!(without.parent.is_empty() && without.depth == depth, "{name}, {method:?} without parents");
        }
        let distance = reference::dijkstra(g, g.int_weights().unwrap(), source);
        for method in [SsspMethod::DeltaStepping { delta: 1 }, SsspMethod::DeltaStepping { delta: 300 }, SsspMethod::Rounds, SsspMethod::DataDriven] {
            let found = wsdsl_graph::sssp_with(&cpu(), g, source, &SsspOptions { method, grain: 3 }).unwrap();
            assert_eq!((&found.distance, found.method), (&distance, method), "{name}");
        }
        let label = weak_components(g);
        let tiny = Afforest { grain: 3, rounds: 1, samples: 7 };
        for method in [CcMethod::UnionFind(Afforest::default()), CcMethod::UnionFind(tiny), CcMethod::LabelPropagation, CcMethod::LabelPropagationDataDriven] {
            let found = wsdsl_graph::connected_components_with(&cpu(), g, &CcOptions { method, grain: 3 }).unwrap();
            assert_eq!((&found.label, found.method), (&label, method), "{name}");
        }
        let rank = pagerank_kernel::reference(g, Some(5));
        for (method, allowed) in [(PageRankMethod::Pull { grain: 256 }, pagerank_kernel::pull_tolerance(5)), (PageRankMethod::Pull { grain: 3 }, pagerank_kernel::pull_tolerance(5)), (PageRankMethod::Push, 1e-9)] {
            let found = wsdsl_graph::pagerank(&cpu(), g, &PageRankOptions { iterations: 5, method }).unwrap();
            let (rel, _) = pagerank_kernel::error(&found.rank, &rank);
            assert!(rel <= allowed && found.method == method, "{name}, {method:?}: off by {rel:e}");
        }
        let tolerance = 1e-9;
        let found = wsdsl_graph::pagerank(&cpu(), g, &PageRankOptions { iterations: 0, method: PageRankMethod::ToTolerance { tolerance } }).unwrap();
        let (_, total) = pagerank_kernel::error(&found.rank, &pagerank_kernel::reference(g, None));
        let bound = tolerance * (g.vertices() + g.edges()) as f64 / (1.0 - wsdsl_graph::DAMPING);
        assert!(total <= bound, "{name}: to a tolerance, off by {total:e} in total (bound {bound:e})");
    }
}
