//! The graph library's calls on the emulated GPU (the CUDA the GPU runs, compiled for the
//! host: `Backend::Emulate`) and on the GPU where there is one, with the checks of
//! `graph_library.rs`: every generated class and the SNAP file, each call exact against its
//! reference. The emulation runs each GPU thread as a fiber, so its graphs are small.

use super::graph_library::{check_defaults, generated, gnutella};
use wsdsl::prelude::*;
use wsdsl::BackendKind;
use wsdsl_graph::{BfsMethod, Direction};

#[test]
fn every_call_matches_its_reference_on_the_emulated_gpu() {
    let rt = Runtime::new(Backend::Emulate);
    for (name, g) in generated(9) {
        let method = check_defaults(&rt, &name, &g, g.first_vertex_with_edges().unwrap_or(0));
        if name.starts_with("uniform") {
            assert_eq!(method, BfsMethod::DirectionOptimizing(Direction::default()), "{name}");
        }
        if name.starts_with("grid") {
            assert_eq!(method, BfsMethod::Bands { delta: 1 }, "{name}");
        }
    }
    let found = wsdsl_graph::bfs(&rt, &gnutella(false), 0).unwrap();
    assert_eq!((found.reached(), found.max_depth()), (60_826, 25), "p2p-Gnutella31 on the emulated GPU");
    assert!(matches!(found.run.backend, BackendKind::Emulated { .. }), "{:?}", found.run.backend);
}

/// The same on the GPU: larger graphs, and the SNAP file whole.
#[test]
fn every_call_matches_its_reference_on_the_gpu() {
    let rt = Runtime::new(Backend::Gpu);
    if let Err(e) = rt.gpu() {
        println!("SKIPPED: no GPU ({e})");
        return;
    }
    for (name, g) in generated(14) {
        check_defaults(&rt, &name, &g, g.first_vertex_with_edges().unwrap_or(0));
    }
    for symmetrize in [false, true] {
        check_defaults(&rt, &format!("p2p-Gnutella31, symmetrize {symmetrize}"), &gnutella(symmetrize), 0);
    }
}
