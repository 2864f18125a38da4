//! Every example's megakernel, run on the CPU backend, against its known answer.
//! (The GPU runs of the same programs are in the gpu-check binary.)

#[path = "../examples/fib/kernel.rs"]
mod fib;
#[path = "../examples/nqueens/kernel.rs"]
mod nqueens;
#[path = "../examples/uts/kernel.rs"]
mod uts;

use wsdsl::prelude::*;

fn cpu() -> Runtime {
    Runtime::new(Backend::Cpu)
}

#[test]
fn nqueens_matches_oeis_for_small_boards() {
    for n in 1..=10 {
        let (got, _) = nqueens::solve(&cpu(), n).unwrap();
        assert_eq!(Some(got), nqueens::expected(n), "n = {n}");
    }
}

#[test]
fn nqueens_12_is_14200() {
    let (got, out) = nqueens::solve(&cpu(), 12).unwrap();
    assert_eq!(got, 14_200);
    assert!(out.stats.tasks > 10_000, "the search tree was walked: {}", out.stats);
}

#[test]
fn nqueens_rejects_boards_without_a_known_answer() {
    let err = nqueens::solve(&cpu(), 21).unwrap_err();
    assert!(err.to_string().contains("between 1 and 20"), "{err}");
}

#[test]
fn fib_call_tree_has_fib_n_plus_1_leaves() {
    for n in [0, 1, 2, 10, 25] {
        let (leaves, value, out) = fib::solve(&cpu(), n).unwrap();
        assert_eq!(value, fib::reference(n), "fib({n})");
        assert_eq!(leaves, fib::reference(n + 1), "leaves of fib({n})");
        assert_eq!(out.stats.tasks, 2 * leaves - 1, "a binary tree with {leaves} leaves");
    }
}

#[test]
fn uts_dsl_sha1_agrees_with_the_host_sha1() {
    // FIPS 180 test vector, through the host implementation the root state uses.
    let abc = uts::host_sha1(b"abc");
    let hex: String = abc.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
    // A small custom tree: the DSL walk (DSL SHA-1) equals the sequential host walk.
    let tree = uts::Tree {
        params: uts::uts::Params { shape: 0, b0: 50.0, gen_mx: 0, q: 0.2, m: 4 },
        seed: 7,
        known: None,
    };
    let (got, _) = uts::solve(&cpu(), &tree).unwrap();
    assert_eq!(got, uts::reference(&tree));
    assert!(got.0 > 50, "non-trivial tree: {got:?}");
}

#[test]
fn uts_t1_has_4130071_nodes() {
    let tree = uts::preset("T1").unwrap();
    let (got, out) = uts::solve(&cpu(), &tree).unwrap();
    assert_eq!(got, tree.known.unwrap());
    assert_eq!(out.stats.tasks, 4_130_071);
}

#[test]
fn uts_t3_has_4112897_nodes() {
    let tree = uts::preset("T3").unwrap();
    let (got, _) = uts::solve(&cpu(), &tree).unwrap();
    assert_eq!(got, tree.known.unwrap());
}

#[test]
fn the_cpu_backend_steals_and_balances() {
    let rt = cpu().cpu_threads(4);
    let (got, out) = nqueens::solve(&rt, 11).unwrap();
    assert_eq!(got, 2_680);
    assert_eq!(out.stats.workers(), 4);
    assert!(out.stats.steals > 0, "one root task must be stolen to reach the other threads: {}", out.stats);
    assert_eq!(out.stats.per_worker_tasks.iter().sum::<u64>(), out.stats.tasks);
}
