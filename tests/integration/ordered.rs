//! Priority scheduling (`order = priority`): tasks run lowest band first on the CPU backend
//! and the host-compiled templates, and delta-stepping SSSP (`relax_ordered`) is exact. The
//! GPU runs are gpu-check's (`ordered` rows).

use wsdsl_examples::graph_reference::{dijkstra, hashed_weights};
use wsdsl_examples::relax;

use wsdsl::graph::{Graph, GraphOptions, Rmat};
use wsdsl::prelude::*;

/// Every task logs its band in the order tasks ran: a root spawns items in bands `n-1` down to
/// 0, each item spawns an echo (a plain spawn: the item's band) and logs.
#[megakernel(order = priority)]
pub mod bands_log {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        /// Nonzero: one more item, in this band.
        pub top: u32,
    }

    #[buffers]
    pub struct Log {
        pub bands: Buffer<u32>,
        pub next: Buffer<u32>,
    }

    #[task]
    pub struct Start {
        pub n: u32,
    }

    #[task]
    pub struct Item {
        pub band: u32,
        pub echo: u32,
    }

    #[spawn]
    fn start(t: &Start, ctx: &mut Ctx) {
        for i in 0..t.n {
            let band = t.n - 1 - i;
            ctx.spawn_with_priority(band, Item { band, echo: 1 });
        }
        if ctx.params.top > 0 {
            ctx.spawn_with_priority(ctx.params.top, Item { band: ctx.params.top, echo: 0 });
        }
    }

    #[spawn]
    fn item(t: &Item, ctx: &mut Ctx) {
        let at = ctx.buffers.next.atomic_add(0, 1) as usize;
        ctx.buffers.bands.set(at, t.band);
        if t.echo == 1 {
            ctx.spawn(Item { band: t.band, echo: 0 });
        }
    }
}

/// The bands in the order their tasks ran (`n` bands, two tasks each).
pub fn run_log(rt: &Runtime, n: u32) -> Result<(Vec<u32>, Stats), wsdsl::Error> {
    let log = bands_log::Log { bands: Buffer::zeroed(2 * n as usize), next: Buffer::zeroed(1) };
    let out = rt.run_with::<bands_log::Kernel>(bands_log::Params { top: 0 }, &log, [bands_log::Start { n }])?;
    Ok((log.bands.to_vec(), out.stats))
}

/// The first place where a task of a higher band ran before one of a lower band.
pub fn first_inversion(log: &[u32]) -> Option<usize> {
    log.windows(2).position(|w| w[0] > w[1])
}

fn cpu() -> Runtime {
    Runtime::new(Backend::Cpu).cpu_threads(2)
}

/// A `side` x `side` grid, both directions of every edge: a long diameter, as meshes and road
/// networks have.
pub fn grid(side: u32) -> Graph {
    let at = |r: u32, c: u32| r * side + c;
    let mut edges = Vec::new();
    for r in 0..side {
        for c in 0..side {
            if c + 1 < side {
                edges.push((at(r, c), at(r, c + 1), 0));
            }
            if r + 1 < side {
                edges.push((at(r, c), at(r + 1, c), 0));
            }
        }
    }
    let opts = GraphOptions { symmetrize: true, remove_self_loops: true, remove_duplicates: true, quiet: true };
    Graph::from_edges((side * side) as usize, edges, false, &opts).expect("a grid")
}

/// Delta-stepping SSSP from vertex 0 against Dijkstra; the run's statistics.
pub fn sssp_exact(rt: &Runtime, g: &Graph, delta: u32) -> Stats {
    let weights = hashed_weights(g);
    let device = relax::DeviceGraph::new(g, Some(weights.clone()));
    let mut initial = vec![u32::MAX; g.vertices()];
    initial[0] = 0;
    let how = relax::Relaxation { grain: relax::DEFAULT_GRAIN, step: 0 };
    let (found, out) = relax::run_ordered(rt, &device, initial, &[0], how, delta).unwrap();
    assert_eq!(relax::compare(&found.value, &dijkstra(g, &weights, 0), "distances"), Ok(()), "delta {delta}");
    out.stats
}

#[test]
fn the_cpu_backend_runs_bands_in_order_and_a_plain_spawn_keeps_the_band() {
    let (log, stats) = run_log(&cpu(), 50).unwrap();
    assert_eq!(first_inversion(&log), None, "bands out of order: {log:?}");
    assert_eq!(log.iter().filter(|&&b| b == 49).count(), 2, "the echo ran in its parent's band: {log:?}");
    let bands = stats.bands.clone().expect("an ordered run counts its bands");
    assert_eq!((bands.visited, bands.highest, bands.lowest_moves, bands.out_of_order), (50, 49, 49, 0), "{bands}");
    assert!(stats.to_string().contains("bands       50 visited up to band 49"), "{stats}");
}

#[test]
fn delta_stepping_on_the_cpu_backend_equals_dijkstra() {
    let mesh = grid(48);
    let delta = relax::default_delta(&mesh, &hashed_weights(&mesh));
    for d in [1, delta, 100_000] {
        let stats = sssp_exact(&cpu(), &mesh, d);
        let bands = stats.bands.unwrap();
        assert!(d == 100_000 || bands.visited > 3, "a grid's distances span several bands of {d}: {bands}");
    }
    let opts = GraphOptions { symmetrize: true, remove_self_loops: true, remove_duplicates: true, quiet: true };
    let power_law = Rmat { scale: 11, edge_factor: 16, seed: 3, weighted: false }.generate(&opts).unwrap();
    sssp_exact(&cpu(), &power_law, relax::default_delta(&power_law, &hashed_weights(&power_law)));
}

#[test]
fn a_zero_delta_is_refused() {
    let g = grid(4);
    let device = relax::DeviceGraph::new(&g, Some(hashed_weights(&g)));
    let how = relax::Relaxation { grain: 8, step: 0 };
    let e = relax::run_ordered(&cpu(), &device, vec![0; 16], &[0], how, 0).err().expect("refused");
    assert!(e.to_string().contains("delta"), "{e}");
}

mod emulated {
    //! The same on the host-compiled templates (`cuda/schedulers/bands.cuh`).
    use super::*;
    use wsdsl::gpu::emulate::{run_emulated, Emulation};
    use wsdsl::gpu::{ordered_kernel_configs, Scheduler, Worker};
    use wsdsl::KernelConfig;

    /// Small band queues: 33 of them are cleared for every run.
    fn emulation(grid: u32, block_threads: u32) -> Emulation {
        Emulation { grid, block_threads, queue_capacity: 1 << 13, ..Emulation::default() }
    }

    fn config(scheduler: Scheduler, worker: Worker) -> KernelConfig {
        *ordered_kernel_configs(64).iter().find(|c| c.scheduler == scheduler && c.worker == worker).expect("an ordered configuration")
    }

    fn log(config: &KernelConfig, emu: &Emulation, n: u32) -> Result<(Vec<u32>, Stats), wsdsl::Error> {
        log_with_top(config, emu, n, 0)
    }

    /// `log` with one more item in band `top` (if nonzero).
    fn log_with_top(config: &KernelConfig, emu: &Emulation, n: u32, top: u32) -> Result<(Vec<u32>, Stats), wsdsl::Error> {
        let log = bands_log::Log { bands: Buffer::zeroed(2 * n as usize + 1), next: Buffer::zeroed(1) };
        let params = bands_log::Params { top };
        let (_, _, stats) = run_emulated::<bands_log::Kernel>(&params, &log, &[bands_log::Start { n }.into()], config, emu)?;
        let logged = log.next.to_vec()[0] as usize;
        Ok((log.bands.to_vec()[..logged].to_vec(), stats))
    }

    #[test]
    fn one_worker_runs_bands_in_order_through_the_far_queue() {
        // 50 bands: 32 in the window, the rest wait in the far queue until it drains.
        let (order, stats) = log(&config(Scheduler::Bq, Worker::Warp), &Emulation { os_threads: 1, ..emulation(1, 32) }, 50).unwrap();
        assert_eq!(first_inversion(&order), None, "bands out of order: {order:?}");
        assert_eq!(order.iter().filter(|&&b| b == 49).count(), 2, "the echo ran in its parent's band: {order:?}");
        let bands = stats.bands.clone().expect("band statistics");
        assert_eq!(bands.highest, 49, "{bands}");
        assert_eq!(bands.rebanded, 18, "bands 32..49 came back from the far queue: {bands}");
        assert!(bands.lowest_moves >= 2, "{bands}");
        assert_eq!(stats.tasks, 101);
    }

    #[test]
    fn delta_stepping_is_exact_under_each_queue_and_worker() {
        let mesh = grid(24);
        let weights = hashed_weights(&mesh);
        let want = dijkstra(&mesh, &weights, 0);
        let delta = relax::default_delta(&mesh, &weights);
        // The lookaheads: the relaxation's own (8, as `Runtime` resolves it), none, the window's most.
        let program = Runtime::new(wsdsl::Backend::Emulate).config_for::<relax::relax_ordered::Kernel>().band_lookahead();
        assert_eq!(program, 8, "the attribute's lookahead reaches the configuration");
        let ahead = |c: KernelConfig, lookahead: u32| KernelConfig { lookahead: Some(lookahead), ..c };
        for (c, d) in [
            (config(Scheduler::Bq, Worker::Warp), delta),
            (config(Scheduler::Bwd, Worker::Thread), 16),
            (ahead(config(Scheduler::Bq, Worker::Thread), 0), 1),
            (ahead(config(Scheduler::Bq, Worker::Warp), 31), 16),
        ] {
            let g = relax::DeviceGraph::new(&mesh, Some(weights.clone()));
            let mut initial = vec![u32::MAX; mesh.vertices()];
            initial[0] = 0;
            let buffers = relax::relax_ordered::Graph { offsets: g.offsets, targets: g.targets, weights: g.weights, value: Buffer::from_vec(initial) };
            let params = relax::relax_ordered::Params { grain: 16, weighted: 1, step: 0, delta: d };
            let root = relax::relax_ordered::Offer { v: 0, lo: 0, hi: mesh.degree(0), base: 0 };
            let (counters, _, stats) = run_emulated::<relax::relax_ordered::Kernel>(&params, &buffers, &[root.into()], &c, &emulation(4, 64))
                .unwrap_or_else(|e| panic!("{c:?}, delta {d}: {e}"));
            assert_eq!(relax::compare(&buffers.value.to_vec(), &want, "distances"), Ok(()), "{c:?}, delta {d}");
            let bands = stats.bands.unwrap();
            if c.lookahead == Some(0) {
                assert_eq!(bands.out_of_order, 0, "{c:?}: no lookahead, no task above the lowest live band");
            }
            // Fewer tasks than threads are outstanding here: workers run children of the
            // lowest band they spawn without a queue.
            assert!(bands.kept > 0, "{c:?}: no child was kept ({bands})");
            eprintln!("{:?}/{:?} delta {d}: {} edges scanned for {} ({bands})", c.scheduler, c.worker, counters.edges.get(), mesh.edges());
            assert!(bands.highest >= want.iter().filter(|&&x| x != u32::MAX).max().unwrap() / d / 2, "{bands}");
        }
    }

    #[test]
    fn the_highest_priority_runs_last_and_the_run_ends() {
        // (A task lost to the bands would keep the run from ending: the watchdog says so.)
        let emu = Emulation { os_threads: 1, watchdog: std::time::Duration::from_secs(20), ..emulation(1, 32) };
        let (order, stats) = log_with_top(&config(Scheduler::Bq, Worker::Warp), &emu, 3, u32::MAX).unwrap();
        assert_eq!(order, [0, 0, 1, 1, 2, 2, u32::MAX], "{stats}");
        assert_eq!(stats.bands.unwrap().highest, u32::MAX - 1, "it shares the band below");
    }

    #[test]
    fn a_full_band_queue_is_an_overflow_naming_it() {
        let tiny = Emulation { queue_capacity: 4, ..emulation(1, 32) };
        let e = log(&config(Scheduler::Bq, Worker::Warp), &tiny, 50).err().expect("18 tasks do not fit a far queue of 4 slots");
        let text = e.to_string();
        assert!(text.contains("far queue") && text.contains("priority bands"), "{text}");
        assert!(matches!(e, wsdsl::Error::QueueOverflow { capacity: 4, needed, .. } if needed > 4), "{e:?}");
    }

    #[test]
    fn an_ordered_program_is_refused_on_the_deques() {
        let deque = KernelConfig::default();
        let e = log(&deque, &emulation(1, 32), 4).err().expect("refused");
        assert!(e.to_string().contains("order = priority runs on the broker queues' bands"), "{e}");
    }
}

/// A run whose tasks all sit in one band (delta larger than every distance) gets the
/// statistics' warning with a narrower width to try, bands of a distance each one with a wider
/// width; the width the examples start from gets none. On the CPU backend, which counts each
/// band's tasks.
#[test]
fn bands_too_wide_are_warned_about_and_a_good_width_is_not() {
    let mesh = grid(128);
    let delta = relax::default_delta(&mesh, &hashed_weights(&mesh));
    let wide = sssp_exact(&cpu(), &mesh, u32::MAX);
    let advice = |s: &Stats| s.bands.as_ref().and_then(|b| b.width_advice(s.tasks, s.workers()));
    let too_wide = advice(&wide).unwrap_or_else(|| panic!("no warning for one band: {wide}"));
    assert!(too_wide.contains("ran in one band") && too_wide.contains("16 times narrower"), "{too_wide}");
    assert!(wide.to_string().contains("\nwarning     100% of the"), "{wide}");
    let good = sssp_exact(&cpu(), &mesh, delta);
    assert_eq!(advice(&good), None, "delta {delta}: {good}");
    assert!(!good.to_string().contains("warning"), "{good}");
    // Bands of one distance each hold a couple of tasks: too narrow for the threads.
    let narrow = sssp_exact(&cpu(), &mesh, 1);
    let too_narrow = advice(&narrow).unwrap_or_else(|| panic!("no warning for thin bands: {narrow}"));
    assert!(too_narrow.contains("too narrow") && too_narrow.contains("times wider"), "{too_narrow}");
    // The GPU's code counts bands, not their tasks: one band is judged from the moves of the
    // lowest band, on the emulated GPU as on the GPU.
    let emulated = Runtime::new(Backend::Emulate);
    let wide = sssp_exact(&emulated, &grid(104), u32::MAX);
    assert!(advice(&wide).is_some_and(|a| a.contains("ran in 1 band")), "{wide}");
}
