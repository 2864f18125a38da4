//! What a caller waits for: the whole `run` call on the wall clock (roots and buffers in,
//! output out, every upload and download included; the program's own input generation and
//! checking left out) beside the kernel's CUDA-event time of the same runs, for the programs
//! that move the most data (octree), run shortest (connect4's test set) or run again and
//! again in one process (N-Queens 14).

use super::{connect4, median_of, nqueens, octree, queens_verdict, Bench, Row};
use std::time::{Duration, Instant};
use wsdsl::prelude::*;

/// The medians of one program's calls: whole call, kernel, and the phases around it.
struct Calls {
    call_ms: f64,
    kernel_ms: f64,
    launch_ms: f64,
    copy_back_ms: f64,
    tasks: u64,
}

impl Bench<'_> {
    /// Times `call` (which runs the program once and returns its answer, its statistics and
    /// the wall time of the `run` call alone): medians of at least 9 calls after a warm-up.
    fn calls<T>(&self, mut call: impl FnMut() -> Result<(T, Stats, Duration), String>) -> Result<(T, Calls), String> {
        let mut phases: Vec<[f64; 3]> = Vec::new();
        let timed = median_of(self.args.repeat.max(9), || {
            let (value, stats, took) = call()?;
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            phases.push([ms(stats.phases.run), ms(stats.phases.launch), ms(stats.phases.copy_back)]);
            Ok(((value, stats.tasks), took))
        });
        let ((value, tasks), call_ms) = timed?;
        phases.remove(0); // the warm-up's
        let median = |k: usize| {
            let mut v: Vec<f64> = phases.iter().map(|p| p[k]).collect();
            v.sort_by(|a, b| a.total_cmp(b));
            v[v.len() / 2]
        };
        Ok((value, Calls { call_ms, kernel_ms: median(0), launch_ms: median(1), copy_back_ms: median(2), tasks }))
    }

    /// The row of a timed program: the kernel as the GPU time, the whole call as the baseline.
    fn call_row(workload: String, timed: Result<Calls, String>, check: Result<String, String>) -> Row {
        match timed {
            Err(e) => Row::failed(workload, e),
            Ok(c) => Row {
                workload,
                gpu_ms: c.kernel_ms,
                tasks: c.tasks,
                host: Some(("the whole run call".into(), c.call_ms)),
                check,
                note: format!(
                    "{:.2} ms beyond the kernel ({:.2}x): upload {:.2} ms, copy-back {:.2} ms",
                    c.call_ms - c.kernel_ms,
                    c.call_ms / c.kernel_ms,
                    c.launch_ms,
                    c.copy_back_ms
                ),
                profile: None,
            },
        }
    }

    /// N-Queens `n` run again and again in one process.
    pub(super) fn warm_call(&self, rt: &Runtime, n: u32) -> Row {
        let timed = self.calls(|| {
            let t = Instant::now();
            let (count, out) = nqueens::solve(rt, n).map_err(|e| e.to_string())?;
            Ok((count, out.stats, t.elapsed()))
        });
        let check = match &timed {
            Ok((count, _)) => queens_verdict(n, *count),
            Err(e) => Err(e.clone()),
        };
        Self::call_row(format!("N-Queens {n}, warm call (kernel; the whole call beside it)"), timed.map(|(_, c)| c), check)
    }

    /// The octree of `particles` uniform particles (the example's defaults: seed 1, at most 32
    /// per leaf); the last tree is checked.
    pub(super) fn octree_call(&self, rt: &Runtime, particles: usize) -> Row {
        let cloud = octree::Particles::generate(octree::Distribution::Uniform, particles, 1);
        let max_leaf = 32;
        let timed = self.calls(|| {
            let inputs = octree::inputs(&cloud, max_leaf).map_err(|e| e.to_string())?;
            let t = Instant::now();
            let out = rt.run_with::<octree::octree::Kernel>(inputs.params, &inputs.buffers, [inputs.root]).map_err(|e| e.to_string())?;
            let took = t.elapsed();
            let tree = octree::read_tree(&inputs, &out.counters, out.stats.tasks);
            Ok((tree, out.stats, took))
        });
        let check = match &timed {
            Ok((tree, _)) => octree::check(&cloud, max_leaf, tree).map(|s| s.to_string()),
            Err(e) => Err(e.clone()),
        };
        Self::call_row(format!("octree {} M particles, whole call", particles / 1_000_000), timed.map(|(_, c)| c), check)
    }

    /// Every position of the connect4 test set `file`, solved exactly in one run.
    pub(super) fn connect4_call(&self, rt: &Runtime, file: &std::path::Path) -> Row {
        let workload = format!("connect4 solve {}, whole call", file.file_name().and_then(|f| f.to_str()).unwrap_or("?"));
        let cases = match std::fs::read_to_string(file).map_err(|e| e.to_string()).and_then(|t| connect4::parse_test_set(&t).map_err(|e| e.to_string())) {
            Ok(c) => c,
            Err(e) => return Row::failed(workload, format!("{}: {e}", file.display())),
        };
        let positions: Vec<connect4::Position> = cases.iter().map(|c| c.position).collect();
        let timed = self.calls(|| {
            let t = Instant::now();
            let out = rt.run::<connect4::exact::Kernel>((), positions.iter().map(connect4::exact_root)).map_err(|e| e.to_string())?;
            let took = t.elapsed();
            Ok((out.values.clone(), out.stats, took))
        });
        let check = match &timed {
            Ok((values, _)) => {
                let wrong = cases.iter().zip(values).filter(|(c, &v)| c.score != v).count();
                if wrong == 0 { Ok(format!("{} scores match the file", cases.len())) } else { Err(format!("{wrong} scores differ from the file")) }
            }
            Err(e) => Err(e.clone()),
        };
        Self::call_row(workload, timed.map(|(_, c)| c), check)
    }
}
