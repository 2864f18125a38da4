//! The octree example on the CPU backend (one thread per task), on the host-compiled GPU
//! templates (every thread of an emulated block on one task), and through NVRTC; and the
//! check itself, which must reject corrupted trees.

use wsdsl_examples::octree;

use octree::{check, Distribution, Particles};
use wsdsl::gpu::emulate::{run_emulated, Emulation};
use wsdsl::gpu::{compile_check, compile_check_with, KernelConfig};
use wsdsl::prelude::*;
use wsdsl::{Scheduler, Worker};

fn cpu() -> Runtime {
    Runtime::new(Backend::Cpu)
}

/// The schedule the program declares: block workers, all threads on one task.
fn cooperative_blocks() -> KernelConfig {
    KernelConfig { worker: Worker::Block, cooperative: true, ..KernelConfig::default() }
}

#[test]
fn uniform_and_plummer_trees_pass_the_check() {
    let n = 50_000;
    for distribution in [Distribution::Uniform, Distribution::Plummer] {
        let particles = Particles::generate(distribution, n, 3);
        for max_leaf in [16, 64] {
            let (tree, out) = octree::build(&cpu(), &particles, max_leaf).unwrap();
            let summary = check(&particles, max_leaf, &tree).unwrap_or_else(|e| panic!("{distribution:?}, max_leaf {max_leaf}: {e}"));
            assert_eq!(summary.capped_leaves, 0, "distinct random points separate long before the cap");
            assert!(summary.largest_leaf <= max_leaf);
            assert!(summary.leaves as u32 > n as u32 / max_leaf, "{summary}");
            assert_eq!(out.stats.tasks, summary.internal as u64);
        }
    }
}

#[test]
fn plummer_trees_are_deeper_than_uniform_ones() {
    let depth = |distribution| {
        let particles = Particles::generate(distribution, 20_000, 5);
        let (tree, _) = octree::build(&cpu(), &particles, 16).unwrap();
        check(&particles, 16, &tree).unwrap().max_depth
    };
    assert!(depth(Distribution::Plummer) > depth(Distribution::Uniform) + 1, "the dense core needs more levels");
}

#[test]
fn coincident_particles_stop_at_the_depth_cap() {
    let mut particles = Particles::generate(Distribution::Uniform, 1_000, 9);
    for _ in 0..40 {
        particles.x.push(0.25);
        particles.y.push(0.5);
        particles.z.push(0.75);
    }
    let (tree, _) = octree::build(&cpu(), &particles, 8).unwrap();
    let summary = check(&particles, 8, &tree).unwrap();
    assert_eq!(summary.capped_leaves, 1, "{summary}");
    assert_eq!(summary.max_depth, octree::octree::MAX_DEPTH);
    assert!(summary.largest_leaf >= 40, "{summary}");
}

#[test]
fn fewer_particles_than_a_leaf_holds_split_the_root_once() {
    let particles = Particles::generate(Distribution::Uniform, 5, 1);
    let (tree, _) = octree::build(&cpu(), &particles, 100).unwrap();
    let summary = check(&particles, 100, &tree).unwrap();
    assert_eq!((summary.internal, summary.max_depth), (1, 1), "{summary}");
}

#[test]
fn the_check_rejects_corrupted_trees() {
    let particles = Particles::generate(Distribution::Plummer, 5_000, 11);
    let (tree, _) = octree::build(&cpu(), &particles, 16).unwrap();
    check(&particles, 16, &tree).unwrap();
    let rejects = |tree: &octree::Octree, max_leaf: u32, expected: &str| {
        let err = check(&particles, max_leaf, tree).expect_err(expected);
        assert!(err.contains(expected), "expected `{expected}`, got: {err}");
    };

    // Two particles of different leaves trade places: each is now outside its leaf's cell.
    let mut swapped = tree.clone();
    let (a, b) = (swapped.leaves[0], swapped.leaves[1]);
    let n = swapped.particles();
    let position = |leaf: &octree::Leaf| (leaf.depth() % 2) as usize * n + leaf.start as usize;
    swapped.index.swap(position(&a), position(&b));
    rejects(&swapped, 16, "lies outside leaf");

    // A particle listed twice (so another is missing).
    let mut duplicated = tree.clone();
    let first = duplicated.members(&a)[0];
    duplicated.index[position(&b)] = first;
    rejects(&duplicated, 16, "and in an earlier leaf");

    // A leaf dropped: its positions and particles are in no leaf.
    let mut dropped = tree.clone();
    dropped.leaves.remove(0);
    rejects(&dropped, 16, "is in no leaf");

    // The kernel's own count disagrees.
    let mut miscounted = tree.clone();
    miscounted.placed -= 1;
    rejects(&miscounted, 16, "placed counter");

    // A leaf claims to be its parent cell, which then overlaps its siblings.
    let mut nested = tree.clone();
    let deepest = nested.leaves.iter().position(|l| l.depth() == nested.leaves.iter().map(|l| l.depth()).max().unwrap()).unwrap();
    nested.leaves[deepest].code >>= 3;
    assert!(check(&particles, 16, &nested).is_err(), "a leaf moved up a level is caught");

    // Leaves larger than a smaller limit.
    rejects(&tree, 4, "more than max_leaf");
    // And cells split although they held few enough particles for a larger limit.
    rejects(&tree, 10_000, "was split");
    // The tasks run must be the cells split.
    let mut extra_task = tree.clone();
    extra_task.tasks += 1;
    rejects(&extra_task, 16, "tasks ran");
}

#[test]
fn bad_inputs_are_rejected_with_a_reason() {
    let reason = |particles: &Particles, max_leaf| match octree::inputs(particles, max_leaf) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted"),
    };
    assert!(reason(&Particles::default(), 8).contains("no particles"));
    let some = Particles::generate(Distribution::Uniform, 10, 1);
    assert!(reason(&some, 0).contains("max_leaf"));
    let mut nan = some.clone();
    nan.y[3] = f32::NAN;
    assert!(reason(&nan, 8).contains("particle 3"));
    let mut ragged = some.clone();
    ragged.z.pop();
    assert!(reason(&ragged, 8).contains("differ in length"));
    let too_many = octree::validate(octree::MAX_PARTICLES + 1, 8).unwrap_err().to_string();
    assert!(too_many.contains("32-bit"), "{too_many}");
}

#[test]
fn the_same_seed_gives_the_same_particles() {
    let a = Particles::generate(Distribution::Plummer, 1_000, 42);
    assert_eq!(a, Particles::generate(Distribution::Plummer, 1_000, 42));
    assert_ne!(a, Particles::generate(Distribution::Plummer, 1_000, 43));
    let radius = |p: usize| a.at(p).iter().map(|&c| (c as f64).powi(2)).sum::<f64>().sqrt();
    assert!((0..a.len()).all(|p| radius(p) <= octree::PLUMMER_MAX_RADIUS + 1e-5));
}

/// Runs the kernel on the host build of the GPU templates under `config`.
fn emulated(particles: &Particles, max_leaf: u32, config: &KernelConfig) -> octree::Summary {
    let inputs = octree::inputs(particles, max_leaf).unwrap();
    let (counters, _, stats) =
        run_emulated::<octree::octree::Kernel>(&inputs.params, &inputs.buffers, &[inputs.root.into()], config, &Emulation::default())
            .unwrap_or_else(|e| panic!("{e}"));
    let tree = octree::read_tree(&inputs, &counters, stats.tasks);
    check(particles, max_leaf, &tree).unwrap_or_else(|e| panic!("{config:?}: {e}"))
}

#[test]
fn blocks_cooperate_on_the_host_compiled_templates() {
    let config = cpu().config_for::<octree::octree::Kernel>();
    assert_eq!(config, cooperative_blocks(), "the program asks for cooperative block workers");
    let particles = Particles::generate(Distribution::Plummer, 20_000, 2);
    let summary = emulated(&particles, 32, &config);
    assert!(summary.internal > 100, "{summary}");
}

#[test]
fn the_static_scheduler_builds_the_tree_one_level_per_launch() {
    let particles = Particles::generate(Distribution::Uniform, 20_000, 4);
    let one_thread_per_task = KernelConfig { scheduler: Scheduler::Static, ..KernelConfig::default() };
    let blocks = KernelConfig { scheduler: Scheduler::Static, ..cooperative_blocks() };
    for config in [one_thread_per_task, blocks] {
        emulated(&particles, 32, &config);
    }
}

#[test]
fn the_kernel_compiles_with_nvrtc() {
    let bytes = compile_check::<octree::octree::Kernel>("sm_90").unwrap_or_else(|e| panic!("{e}"));
    assert!(bytes > 1000, "a CUBIN of {bytes} bytes is too small to hold the kernel");
    compile_check_with::<octree::octree::Kernel>("sm_90", &cooperative_blocks()).unwrap_or_else(|e| panic!("{e}"));
}
