//! The buffer constructors that take a vector's memory (`from_vec`), fill on every core
//! (`from_fn`) or copy a slice (`from_slice`) hand the same elements to a run as the ones that
//! were there before: on the CPU backend and on the host-compiled GPU templates, for a graph
//! search reading `ReadOnly` arrays and for a program reading every element type; and the
//! run's statistics count what the constructors took, once per buffer.

use wsdsl::graph::{GraphOptions, Grid, Rmat};
use wsdsl::prelude::*;
use wsdsl_examples::bfs;
use wsdsl_examples::relax::DeviceGraph;

#[megakernel]
pub mod scale {
    use wsdsl::prelude::*;

    #[buffers]
    pub struct Bufs {
        pub ints: ReadOnly<u64>,
        pub signed: ReadOnly<i32>,
        pub reals: ReadOnly<f64>,
        pub factors: Buffer<u32>,
        pub out: Buffer<f64>,
    }

    #[counters]
    pub struct Counters {
        pub total: Sum<u64>,
        pub lowest: Min<i64>,
    }

    /// Elements `first..first + 4096` (those there are).
    #[task]
    pub struct Item {
        pub first: u32,
    }

    #[spawn]
    fn item(t: &Item, ctx: &mut Ctx) {
        let end = ctx.buffers.out.len().min(t.first as usize + 4096);
        for i in t.first as usize..end {
            let f = ctx.buffers.factors.get(i);
            ctx.buffers.out.set(i, ctx.buffers.reals.get(i) * f as f64);
            ctx.counters.total.add(ctx.buffers.ints.get(i) * f as u64);
            ctx.counters.lowest.min(ctx.buffers.signed.get(i) as i64);
        }
    }
}

/// A task per 4096 elements.
fn items() -> impl Iterator<Item = scale::Item> {
    (0..N as u32).step_by(4096).map(|first| scale::Item { first })
}

/// Elements across several pieces of the parallel fill, the last one short.
const N: usize = 3 * (1 << 16) + 5;

fn int(i: usize) -> u64 {
    (i as u64 * 2_654_435_761) % 1000
}
fn signed(i: usize) -> i32 {
    500 - i as i32
}
fn real(i: usize) -> f64 {
    i as f64 * 0.25 - 3.0
}
fn factor(i: usize) -> u32 {
    (i % 7) as u32
}

/// The program's buffers, every one made by the constructor `how` names.
fn bufs(how: &str) -> scale::Bufs {
    let (ints, signs, reals, factors): (Vec<u64>, Vec<i32>, Vec<f64>, Vec<u32>) =
        ((0..N).map(int).collect(), (0..N).map(signed).collect(), (0..N).map(real).collect(), (0..N).map(factor).collect());
    match how {
        "from_vec" => scale::Bufs {
            ints: ReadOnly::from_vec(ints),
            signed: ReadOnly::from(signs),
            reals: ReadOnly::from_vec(reals),
            factors: Buffer::from_vec(factors),
            out: Buffer::zeroed(N),
        },
        "from_fn" => scale::Bufs {
            ints: ReadOnly::from_fn(N, int).unwrap(),
            signed: ReadOnly::from_fn(N, signed).unwrap(),
            reals: ReadOnly::from_fn(N, real).unwrap(),
            factors: Buffer::from_fn(N, factor).unwrap(),
            out: Buffer::from_fn(N, |_| 0.0).unwrap(),
        },
        "from_slice" => scale::Bufs {
            ints: ReadOnly::from_slice(&ints),
            signed: ReadOnly::from_slice(&signs),
            reals: ReadOnly::from_slice(&reals),
            factors: Buffer::from_slice(&factors),
            out: Buffer::from_slice(&vec![0.0; N]),
        },
        _ => unreachable!("{how}"),
    }
}

#[test]
fn buffers_built_every_way_give_a_run_the_same_elements_on_the_cpu_and_the_emulated_gpu() {
    let total: u64 = (0..N).map(|i| int(i) * factor(i) as u64).sum();
    let lowest = (0..N).map(signed).min().unwrap() as i64;
    let out: Vec<f64> = (0..N).map(|i| real(i) * factor(i) as f64).collect();
    for rt in [Runtime::new(Backend::Cpu).cpu_threads(2), Runtime::new(Backend::Emulate)] {
        for how in ["from_vec", "from_fn", "from_slice"] {
            let b = bufs(how);
            let ran = rt.run_with::<scale::Kernel>((), &b, items()).unwrap();
            let on = &ran.backend;
            assert_eq!((ran.counters.total.get(), ran.counters.lowest.get()), (total, lowest), "{how} on {on}");
            assert_eq!(b.out.to_vec(), out, "{how} on {on}");
            assert_eq!(b.factors.into_vec(), (0..N).map(factor).collect::<Vec<_>>(), "{how} on {on}: an input buffer comes back as it went");
        }
    }
}

#[test]
fn a_runs_statistics_count_the_building_of_its_buffers_once() {
    let rt = Runtime::new(Backend::Cpu).cpu_threads(2);
    let b = bufs("from_fn");
    let first = rt.run_with::<scale::Kernel>((), &b, items()).unwrap();
    let built = first.stats.phases.inputs_built;
    assert!(built > std::time::Duration::ZERO, "five arrays written on every core: {}", first.stats);
    assert!(first.stats.to_string().contains("inputs built in"), "{}", first.stats);
    let again = rt.run_with::<scale::Kernel>((), &b, items()).unwrap();
    assert_eq!(again.stats.phases.inputs_built, std::time::Duration::ZERO, "counted by the first run only");
    assert!(!again.stats.to_string().contains("inputs built"), "{}", again.stats);
    // Clones of counted arrays count nothing, nor do counted buffers handed on; a new buffer
    // beside them is counted.
    let scale::Bufs { ints, signed, reals, factors, out } = b;
    let next = scale::Bufs { ints: ints.clone(), signed: signed.clone(), reals: reals.clone(), factors, out };
    assert_eq!(rt.run_with::<scale::Kernel>((), &next, items()).unwrap().stats.phases.inputs_built, std::time::Duration::ZERO);
    let fresh = scale::Bufs { out: Buffer::from_fn(N, |_| 1.0).unwrap(), ..next };
    assert!(rt.run_with::<scale::Kernel>((), &fresh, items()).unwrap().stats.phases.inputs_built > std::time::Duration::ZERO);
}

/// A graph's `ReadOnly` arrays made by each constructor, as `bfs::device_graph` makes them
/// from vectors.
fn graph_by(g: &wsdsl::graph::Graph, how: &str) -> bfs::BfsGraph {
    let t = g.transpose();
    let make = |v: &Vec<u32>| match how {
        "from_vec" => ReadOnly::from_vec(v.clone()),
        "from_fn" => ReadOnly::from_fn(v.len(), |i| v[i]).unwrap(),
        "from_slice" => ReadOnly::from_slice(v),
        _ => unreachable!("{how}"),
    };
    let out = DeviceGraph { offsets: make(&g.offsets), targets: make(&g.targets), weights: make(&vec![0]) };
    bfs::BfsGraph { out, in_offsets: make(&t.offsets), in_sources: make(&t.targets) }
}

#[test]
fn buffer_built_graphs_search_alike_on_the_cpu_and_the_emulated_gpu() {
    let opts = GraphOptions { symmetrize: true, remove_self_loops: true, remove_duplicates: true, quiet: true };
    let graphs = [
        ("R-MAT 11", Rmat { scale: 11, edge_factor: 16, seed: 4, weighted: false }.generate(&opts).unwrap()),
        ("grid", Grid { rows: 40, columns: 50, delete: 0.1, seed: 2, weighted: false }.generate().unwrap()),
    ];
    for (name, g) in &graphs {
        let source = g.first_vertex_with_edges().unwrap_or(0);
        let reference = bfs::device_graph(g);
        let (expected, _) = bfs::search(&Runtime::new(Backend::Cpu).cpu_threads(2), &reference, source, 8, false).unwrap();
        assert_eq!(bfs::check(g, source, &expected.depth), Ok(()), "{name}");
        for how in ["from_vec", "from_fn", "from_slice"] {
            let dg = graph_by(g, how);
            assert_eq!(dg.out.targets.as_slice(), reference.out.targets.as_slice(), "{name}, {how}");
            assert_eq!(dg.in_sources.as_slice(), reference.in_sources.as_slice(), "{name}, {how}");
            let (cpu, _) = bfs::search(&Runtime::new(Backend::Cpu).cpu_threads(2), &dg, source, 8, false).unwrap();
            assert_eq!(cpu.depth, expected.depth, "{name}, {how}, CPU backend");
            let how_dir = bfs::Direction { frontier_grain: 2, vertex_grain: 16, edge_grain: 16, ..bfs::Direction::default() };
            let (emulated, out) = bfs::search_direction(&Runtime::new(Backend::Emulate), &dg, source, how_dir).unwrap();
            assert_eq!(emulated.depth, expected.depth, "{name}, {how}, emulated GPU: {}", out.stats);
        }
    }
}
