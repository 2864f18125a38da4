//! What the graph library takes in: compressed sparse rows handed in as arrays, each way
//! they can be wrong named in the error (never a panic, whichever call gets them); bad
//! settings; shortest distances too long for 32 bits; and petgraph's graphs.

use super::graph_library::{clean, cpu, gnutella, weak_components};
use wsdsl::graph::{Graph, Grid, Rmat, Weights};
use wsdsl_graph::kernels::bfs as bfs_kernel;
use wsdsl_graph::{reference, BfsMethod, BfsOptions, FromPetgraph, PageRankMethod, PageRankOptions, SsspMethod, SsspOptions};

/// Each broken array, with what its error must say.
fn broken() -> Vec<(Graph, &'static str)> {
    let g = |offsets: Vec<u32>, targets: Vec<u32>, weights: Weights| Graph { offsets, targets, weights };
    vec![
        (g(vec![], vec![], Weights::None), "there are no offsets"),
        (g(vec![1, 2], vec![0, 0], Weights::None), "offsets[0] is 1, not 0"),
        (g(vec![0, 2, 1, 3], vec![1, 2, 0], Weights::None), "the offsets decrease at vertex 1: offsets[1] = 2, offsets[2] = 1"),
        (g(vec![0, 1, 2, 4], vec![1, 2, 0], Weights::None), "the last offset, offsets[3], is 4, but there are 3 targets"),
        (g(vec![0, 1, 2, 2], vec![1, 2, 0], Weights::None), "the last offset, offsets[3], is 2, but there are 3 targets"),
        (g(vec![0, 1, 1, 3], vec![1, 0, 7], Weights::None), "edge 2, from vertex 2, goes to vertex 7, but the graph has 3 vertices"),
        (g(vec![0, 1, 1, 3], vec![1, 0, 2], Weights::Int(vec![4, 5])), "2 integer weights for 3 edges"),
        (g(vec![0, 1, 1, 3], vec![1, 0, 2], Weights::Real(vec![4.0; 4])), "4 real weights for 3 edges"),
    ]
}

#[test]
fn bad_csr_arrays_are_errors_that_name_the_problem() {
    for (bad, says) in broken() {
        let e = Graph::from_csr(bad.offsets.clone(), bad.targets.clone(), bad.weights.clone()).unwrap_err();
        assert!(e.to_string().starts_with("CSR arrays: ") && e.to_string().contains(says), "{e} (want {says:?})");
        assert_eq!(bad.validate().unwrap_err(), e);
    }
    let fine = Graph::from_csr(vec![0, 2, 2, 3], vec![1, 2, 0], Weights::Int(vec![1, 2, 3])).unwrap();
    assert_eq!((fine.vertices(), fine.edges(), fine.neighbours(0)), (3, 3, &[1, 2][..]));
    assert_eq!(Graph::from_csr(vec![0], vec![], Weights::None).unwrap().vertices(), 0, "a graph without vertices");
}

/// A graph whose public fields were set by hand, wrongly, is an error from every call, naming
/// the problem, before anything indexes it.
#[test]
fn every_call_refuses_a_broken_graph_without_panicking() {
    let rt = cpu();
    for (bad, says) in broken() {
        let errors = [
            wsdsl_graph::bfs(&rt, &bad, 0).map(drop),
            wsdsl_graph::sssp(&rt, &bad, 0).map(drop),
            wsdsl_graph::connected_components(&rt, &bad).map(drop),
            wsdsl_graph::pagerank(&rt, &bad, &PageRankOptions::default()).map(drop),
        ];
        for e in errors {
            let e = e.expect_err(says).to_string();
            assert!(e.contains(says), "{e} (want {says:?})");
        }
    }
}

#[test]
fn bad_settings_are_refused_with_what_is_accepted() {
    let rt = cpu();
    let g = Grid { rows: 5, columns: 5, delete: 0.0, seed: 1, weighted: true }.generate().unwrap();
    let refused = |r: Result<(), wsdsl::Error>, says: &str| {
        let e = r.expect_err(says).to_string();
        assert!(e.contains(says), "{e} (want {says:?})");
    };
    refused(wsdsl_graph::bfs(&rt, &g, 25).map(drop), "the source vertex 25 is not in the graph (vertices 0..25)");
    refused(wsdsl_graph::sssp(&rt, &g, 99).map(drop), "the source vertex 99 is not in the graph");
    refused(wsdsl_graph::bfs_with(&rt, &g, 0, &BfsOptions { method: BfsMethod::Bands { delta: 0 }, ..BfsOptions::default() }).map(drop), "delta");
    refused(wsdsl_graph::bfs_with(&rt, &g, 0, &BfsOptions { method: BfsMethod::LevelSynchronous, grain: 0, parents: true }).map(drop), "grain");
    let dense = BfsMethod::DirectionOptimizing(wsdsl_graph::Direction { beta: 0, ..Default::default() });
    refused(wsdsl_graph::bfs_with(&rt, &g, 0, &BfsOptions { method: dense, ..BfsOptions::default() }).map(drop), "beta must be at least 1");
    refused(wsdsl_graph::sssp_with(&rt, &g, 0, &SsspOptions { method: SsspMethod::DeltaStepping { delta: 0 }, grain: 8 }).map(drop), "delta");
    refused(wsdsl_graph::pagerank(&rt, &g, &PageRankOptions { iterations: 0, method: PageRankMethod::Pull { grain: 8 } }).map(drop), "at least one iteration");
    refused(wsdsl_graph::pagerank(&rt, &g, &PageRankOptions { iterations: 8, method: PageRankMethod::ToTolerance { tolerance: 1e-30 } }).map(drop), "is below");
    let empty = Graph::from_csr(vec![0], vec![], Weights::None).unwrap();
    refused(wsdsl_graph::pagerank(&rt, &empty, &PageRankOptions::default()).map(drop), "a graph without vertices");
    assert!(wsdsl_graph::connected_components(&rt, &empty).unwrap().label.is_empty());
    // A real weight that is not a whole number has no exact path sums: refused, naming its edge.
    let real = Graph::from_csr(vec![0, 1, 1], vec![1], Weights::Real(vec![0.5])).unwrap();
    refused(wsdsl_graph::sssp(&rt, &real, 0).map(drop), "the edge from vertex 0 to vertex 1 (ids from 0) has the weight 0.5, not a whole number");
    let negative = Graph::from_csr(vec![0, 1, 1], vec![1], Weights::Real(vec![-2.0])).unwrap();
    refused(wsdsl_graph::sssp(&rt, &negative, 0).map(drop), "the negative weight -2");
}

/// Weights whose path sums pass 32 bits: the kernels' sums wrap, so the library proves the
/// distances and refuses those it cannot, where a plain run would hand back wrong ones; below
/// the bound, a heavy weight is exact.
#[test]
fn distances_beyond_32_bits_are_refused_not_wrapped() {
    let rt = cpu();
    // 0 -> 1 -> 2, each edge 4e9: vertex 2 is 8e9 away, which wraps to 3,705,032,704.
    let far = Graph::from_csr(vec![0, 1, 2, 2], vec![1, 2], Weights::Int(vec![4_000_000_000; 2])).unwrap();
    for method in [SsspMethod::Auto, SsspMethod::Rounds, SsspMethod::DataDriven] {
        let e = wsdsl_graph::sssp_with(&rt, &far, 0, &SsspOptions { method, grain: 8 }).expect_err("8e9 does not fit").to_string();
        assert!(e.contains("to vertex 2 does not fit in 32 bits"), "{method:?}: {e}");
    }
    // One heavy edge and a short way round it: every sum fits, though the bound does not hold.
    let round = Graph::from_csr(vec![0, 2, 3, 3], vec![2, 1, 2], Weights::Int(vec![4_000_000_000, 5, 7])).unwrap();
    assert_eq!(wsdsl_graph::sssp(&rt, &round, 0).unwrap().distance, vec![0, 5, 12]);
    let heavy = Graph::from_csr(vec![0, 1, 1], vec![1], Weights::Int(vec![u32::MAX - 1])).unwrap();
    assert_eq!(wsdsl_graph::sssp(&rt, &heavy, 0).unwrap().distance, vec![0, u32::MAX - 1]);
}

#[test]
fn petgraph_graphs_convert_and_search_as_their_csr() {
    use petgraph::{Directed, Undirected};
    // petgraph's Graph, directed, with a parallel edge and a self-loop kept as they are.
    let mut p = petgraph::Graph::<(), u32, Directed>::new();
    let v: Vec<_> = (0..5).map(|_| p.add_node(())).collect();
    for (a, b, w) in [(0, 1, 4), (1, 2, 1), (0, 2, 9), (2, 3, 1), (3, 3, 2), (0, 1, 6)] {
        p.add_edge(v[a], v[b], w);
    }
    let g = Graph::from_petgraph_weighted(&p, |&w| w).unwrap();
    assert_eq!(g.offsets, vec![0, 3, 4, 5, 6, 6]);
    assert_eq!((g.neighbours(0), g.neighbours(3)), (&[1, 2, 1][..], &[3][..]));
    assert_eq!(g.int_weights().unwrap()[..3], [4, 9, 6]);
    assert_eq!(wsdsl_graph::sssp(&cpu(), &g, 0).unwrap().distance, vec![0, 4, 5, 6, u32::MAX]);
    assert_eq!(Graph::from_petgraph(&p).unwrap().weights, Weights::None);

    // Undirected: every edge both ways, a self-loop once.
    let mut u = petgraph::Graph::<(), (), Undirected>::new_undirected();
    let w: Vec<_> = (0..4).map(|_| u.add_node(())).collect();
    u.extend_with_edges([(w[0], w[1]), (w[1], w[2]), (w[3], w[3])]);
    let g = Graph::from_petgraph(&u).unwrap();
    assert!(g.is_symmetric());
    assert_eq!((g.neighbours(1), g.neighbours(3), g.edges()), (&[0, 2][..], &[3][..], 5));
    assert_eq!(wsdsl_graph::connected_components(&cpu(), &g).unwrap().label, vec![0, 0, 0, 3]);

    // A generated graph through petgraph's Csr and back is the same graph, and searches so.
    let grid = Grid { rows: 9, columns: 7, delete: 0.2, seed: 3, weighted: true }.generate().unwrap();
    let mut csr = petgraph::csr::Csr::<(), u32, Directed>::with_nodes(grid.vertices());
    for a in 0..grid.vertices() as u32 {
        let lo = grid.offsets[a as usize] as usize;
        for (k, &b) in grid.neighbours(a).iter().enumerate() {
            csr.add_edge(a, b, grid.int_weights().unwrap()[lo + k]);
        }
    }
    let back = Graph::from_petgraph_weighted(&csr, |&w| w).unwrap();
    // A Csr keeps each row sorted by target, and the grid's rows need not be.
    let rows = |g: &Graph| -> Vec<Vec<(u32, u32)>> {
        (0..g.vertices() as u32)
            .map(|v| {
                let lo = g.offsets[v as usize] as usize;
                let mut row: Vec<(u32, u32)> = g.neighbours(v).iter().enumerate().map(|(k, &t)| (t, g.int_weights().unwrap()[lo + k])).collect();
                row.sort_unstable();
                row
            })
            .collect()
    };
    assert_eq!((&back.offsets, rows(&back)), (&grid.offsets, rows(&grid)));
    let found = wsdsl_graph::bfs(&cpu(), &back, 0).unwrap();
    assert_eq!(found.depth, bfs_kernel::reference(&grid, 0));
    let mut both = petgraph::csr::Csr::<(), (), Undirected>::with_nodes(3);
    both.add_edge(0, 2, ());
    assert_eq!(Graph::from_petgraph(&both).unwrap().offsets, vec![0, 1, 1, 2], "a Csr holds an undirected edge both ways");
}

/// A directed graph's components are its weakly connected ones, whichever method runs.
#[test]
fn a_directed_graph_has_its_weak_components() {
    let g = Rmat { scale: 8, edge_factor: 2, seed: 11, weighted: false }.generate(&clean(false)).unwrap();
    assert!(!g.is_symmetric());
    let want = weak_components(&g);
    let found = wsdsl_graph::connected_components(&cpu(), &g).unwrap();
    assert!(found.symmetrized && found.label == want && found.count() > 1);
    // The SNAP file read as directed has the components of the file read as undirected.
    let directed = wsdsl_graph::connected_components(&cpu(), &gnutella(false)).unwrap();
    assert_eq!(directed.label, reference::components(&gnutella(true)));
}
