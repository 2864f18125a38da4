//! Tables (Markdown), CSV and the SVG chart of a queue-bench run.

use crate::{RunCfg, Variant};
use std::fmt::Write as _;
use std::path::Path;

pub struct Measurement {
    pub variant: Variant,
    pub cfg: RunCfg,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    /// Queue operations of one run (successful or answered Full/Empty).
    pub ops: u64,
    pub enq_ok: u64,
    pub deq_ok: u64,
    pub full: u64,
    pub empty: u64,
    pub steals: u64,
    pub problems: Vec<String>,
}

impl Measurement {
    pub fn gops(&self) -> f64 {
        self.ops as f64 / (self.median_ms * 1e-3) / 1e9
    }
    fn verified(&self) -> &'static str {
        if self.problems.is_empty() {
            "ok"
        } else {
            "FAIL"
        }
    }
}

pub struct Report {
    device: String,
    arch: String,
    sms: u32,
    blocks_per_sm: u32,
    block: u32,
    reps: usize,
    compile_s: f64,
    quick: bool,
    pub run_s: f64,
    pub atomics: Option<(f64, f64)>,
    rows: Vec<(&'static str, Measurement)>,
}

fn full_label(v: Variant) -> &'static str {
    v.label()
}

impl Report {
    #[allow(clippy::too_many_arguments)]
    pub fn new(device: &str, arch: &str, sms: u32, blocks_per_sm: u32, block: u32, reps: usize, compile_s: f64, quick: bool) -> Report {
        Report {
            device: device.into(),
            arch: arch.into(),
            sms,
            blocks_per_sm,
            block,
            reps,
            compile_s,
            quick,
            run_s: 0.0,
            atomics: None,
            rows: Vec::new(),
        }
    }

    pub fn full_threads(&self) -> u32 {
        self.sms * self.blocks_per_sm * self.block
    }

    pub fn header(&self) -> String {
        format!(
            "# queue-bench{}\n\nDevice: {} ({}, {} SMs); blocks of {} threads, {} blocks/SM by the occupancy API \
             => full occupancy = {} threads. NVRTC compile {:.1} s. Each cell: median of {} timed runs after one warm-up; \
             every run self-checked (elements in == elements out, by count and by sum of values).\n",
            if self.quick { " (--quick smoke run)" } else { "" },
            self.device,
            self.arch,
            self.sms,
            self.block,
            self.blocks_per_sm,
            self.full_threads(),
            self.compile_s,
            self.reps
        )
    }

    pub fn add(&mut self, exp: &'static str, m: Measurement) {
        self.rows.push((exp, m));
    }

    pub fn failures(&self) -> usize {
        self.rows.iter().filter(|(_, m)| !m.problems.is_empty()).count()
    }

    fn of(&self, exp: &str) -> impl Iterator<Item = &Measurement> {
        let exp = exp.to_string();
        self.rows.iter().filter(move |(e, _)| *e == exp).map(|(_, m)| m)
    }

    fn table(&self, title: &str, ms: &[&Measurement], row_key: impl Fn(&Measurement) -> String, cell: impl Fn(&Measurement) -> String, row_name: &str) -> String {
        let mut variants: Vec<Variant> = Vec::new();
        let mut rows: Vec<String> = Vec::new();
        for m in ms {
            if !variants.contains(&m.variant) {
                variants.push(m.variant);
            }
            let k = row_key(m);
            if !rows.contains(&k) {
                rows.push(k);
            }
        }
        let mut s = format!("\n### {title}\n\n| {row_name} |");
        for v in &variants {
            let _ = write!(s, " {} |", full_label(*v));
        }
        s.push_str("\n| ---: |");
        for _ in &variants {
            s.push_str(" ---: |");
        }
        s.push('\n');
        for r in &rows {
            let _ = write!(s, "| {r} |");
            for v in &variants {
                match ms.iter().find(|m| m.variant == *v && &row_key(m) == r) {
                    Some(m) => {
                        let flag = if m.problems.is_empty() { "" } else { " **FAIL**" };
                        let _ = write!(s, " {}{} |", cell(m), flag);
                    }
                    None => s.push_str(" – |"),
                }
            }
            s.push('\n');
        }
        s
    }

    pub fn section(&self, exp: &str) -> String {
        let all: Vec<&Measurement> = self.of(exp).collect();
        let mut s = String::new();
        match exp {
            "7.1" => {
                s.push_str(
                    "\n## 7.1 Alternating enqueue/dequeue pairs (10 pairs per thread; queue never full or empty)\n\n\
                     Cell: G queue operations/s (2 x 10 x threads / median kernel time), then the median time. \
                     'BQ warp-agg'/'BWD warp-agg': the 32 lanes of a warp share one Count atomic and one Head/Tail \
                     atomic and take consecutive slots. 'deque': each warp owns a Cederman-Tsigas deque and pushes/pops \
                     its lanes' elements as one batch (the megakernel's pattern).\n",
                );
                for (pw, name) in [(false, "per thread (every thread enqueues/dequeues)"), (true, "per warp (lane 0 of each warp only)")] {
                    let ms: Vec<&Measurement> = all.iter().copied().filter(|m| m.cfg.per_warp == pw).collect();
                    s += &self.table(name, &ms, |m| m.cfg.threads.to_string(), |m| format!("{:.2} ({:.3} ms)", m.gops(), m.median_ms), "threads");
                }
            }
            "7.2" => {
                s.push_str(
                    "\n## 7.2 Imbalanced: 1-10 iterations per thread, enqueue with P(enq), dequeue with P(deq), 128 FMAs per dequeued task\n\n\
                     Cell: median kernel time in ms (lower is better), then successful dequeues / attempted dequeues.\n",
                );
                let mut scen: Vec<(u64, u64, u32)> = Vec::new();
                for m in &all {
                    let k = ((m.cfg.p_enq * 1000.0) as u64, (m.cfg.p_deq * 1000.0) as u64, m.cfg.prefill);
                    if !scen.contains(&k) {
                        scen.push(k);
                    }
                }
                for (pe, pd, pre) in scen {
                    let ms: Vec<&Measurement> = all
                        .iter()
                        .copied()
                        .filter(|m| ((m.cfg.p_enq * 1000.0) as u64, (m.cfg.p_deq * 1000.0) as u64, m.cfg.prefill) == (pe, pd, pre))
                        .collect();
                    let title = format!(
                        "P(enq) = {:.2}, P(deq) = {:.2}, {}",
                        pe as f64 / 1000.0,
                        pd as f64 / 1000.0,
                        if pre > 0 { format!("pre-filled with {pre} elements") } else { "initially empty".into() }
                    );
                    s += &self.table(&title, &ms, |m| m.cfg.threads.to_string(), |m| format!("{:.3} ({:.0}%)", m.median_ms, 100.0 * m.deq_ok as f64 / (m.deq_ok + m.empty).max(1) as f64), "threads");
                }
            }
            _ => {
                s.push_str(&format!(
                    "\n## 7.3 Variants at full occupancy ({} threads) across enqueue/dequeue ratios (P(deq) = 0.5, 1-10 iterations)\n\n\
                     Cell: median kernel time in ms, then G queue operations/s.\n",
                    self.full_threads()
                ));
                for fma in [0u32, 320] {
                    let ms: Vec<&Measurement> = all.iter().copied().filter(|m| m.cfg.fma == fma).collect();
                    if ms.is_empty() {
                        continue;
                    }
                    s += &self.table(
                        &format!("{fma} FMAs per dequeued task"),
                        &ms,
                        |m| format!("{:.3} (ratio {:.2})", m.cfg.p_enq, m.cfg.p_enq / m.cfg.p_deq),
                        |m| format!("{:.3} ({:.2})", m.median_ms, m.gops()),
                        "P(enq)",
                    );
                }
            }
        }
        s
    }

    pub fn print_section(&self, exp: &str) {
        println!("{}", self.section(exp));
    }

    pub fn summary(&self) -> String {
        let full = self.full_threads();
        let mut s = String::from("\n## Summary\n\n");
        let at_full = |v: Variant| self.of("7.1").find(|m| m.variant == v && !m.cfg.per_warp && m.cfg.threads == full);
        let goal = 10.0;
        for v in [Variant::Bq, Variant::BqWarp, Variant::Bwd, Variant::BwdWarp, Variant::Bsq, Variant::Deque] {
            if let Some(m) = at_full(v) {
                let _ = writeln!(
                    s,
                    "- 7.1 at full occupancy ({full} threads), {}: **{:.2} G queue ops/s** ({})",
                    v.label(),
                    m.gops(),
                    if m.gops() >= goal { "meets the 10 G ops/s goal" } else { "below the 10 G ops/s goal" }
                );
            }
        }
        if let Some((t, w)) = self.atomics {
            let per_warp_atomics = w / 32.0;
            let _ = writeln!(
                s,
                "- Same-address atomics (atom.add.acq_rel.gpu on one word, {full} threads): with all 32 lanes of a warp in \
                 one instruction, {t:.2} G lane-increments/s (the hardware merges a converged warp's same-address \
                 atomics); with one lane per warp, {per_warp_atomics:.2} G atomics/s, i.e. {:.2} ns per serialized \
                 same-address atomic.",
                1.0 / per_warp_atomics
            );
            let _ = writeln!(
                s,
                "- What that means for the BQ: each operation does two same-address atomics (Count, then Head or Tail). \
                 When a warp's lanes call the queue together (7.1), the hardware merges them and the ceiling is \
                 ~{:.1} G ops/s; when lanes diverge (7.2, 7.3: each lane picks enqueue/dequeue at random), every lane's \
                 atomic is its own instruction and the ceiling falls to ~{:.2} G ops/s. The warp-aggregated variant \
                 issues one Count and one Head/Tail atomic per warp explicitly, so it keeps the high ceiling when lanes \
                 diverge (compare the BQ and 'BQ warp-agg' columns of 7.2 and 7.3).",
                t / 2.0,
                per_warp_atomics / 2.0
            );
        }
        let best = [Variant::Bq, Variant::BqWarp]
            .iter()
            .filter_map(|v| at_full(*v))
            .map(|m| (m.gops(), m.variant.label()))
            .fold((0.0, ""), |a, b| if b.0 > a.0 { b } else { a });
        let _ = writeln!(
            s,
            "- Goal (BQ micro-benchmark at full occupancy >= 10 G queue ops/s): {} — best BQ variant in 7.1: {} at {:.2} G ops/s.",
            if best.0 >= goal { "REACHED" } else { "NOT reached" },
            best.1,
            best.0
        );
        let fails = self.failures();
        let _ = writeln!(
            s,
            "- Self-checks: {} measurements, {} failed.{}",
            self.rows.len(),
            fails,
            if fails == 0 { " Every run: elements in == elements out (count and value sum)." } else { " See FAIL cells." }
        );
        let _ = writeln!(s, "- Wall time of the measurements: {:.1} s.", self.run_s);
        s
    }

    fn csv(&self) -> String {
        let mut s = String::from(
            "experiment,granularity,variant,threads,p_enq,p_deq,fma,prefill,median_ms,min_ms,max_ms,ops,gops,enq_ok,deq_ok,full,empty,steals,verified\n",
        );
        for (e, m) in &self.rows {
            let _ = writeln!(
                s,
                "{e},{},{},{},{},{},{},{},{:.5},{:.5},{:.5},{},{:.4},{},{},{},{},{},{}",
                if m.cfg.per_warp { "warp" } else { "thread" },
                m.variant.label(),
                m.cfg.threads,
                m.cfg.p_enq,
                m.cfg.p_deq,
                m.cfg.fma,
                m.cfg.prefill,
                m.median_ms,
                m.min_ms,
                m.max_ms,
                m.ops,
                m.gops(),
                m.enq_ok,
                m.deq_ok,
                m.full,
                m.empty,
                m.steals,
                m.verified()
            );
        }
        s
    }

    /// 7.1, per thread: G ops/s against threads (log axis), one line per variant.
    fn svg(&self, path: &Path) -> Result<(), String> {
        use plotters::prelude::*;
        wsdsl_runtime::chart::font().map_err(|e| e.clone())?;
        let err = |e: DrawingAreaErrorKind<_>| e.to_string();
        let ms: Vec<&Measurement> = self.of("7.1").filter(|m| !m.cfg.per_warp).collect();
        let threads = |m: &&Measurement| m.cfg.threads as f64;
        let x0 = ms.iter().map(threads).fold(f64::MAX, f64::min).min(1.0e9);
        let x1 = ms.iter().map(threads).fold(0.0, f64::max).max(x0 * 2.0);
        let ymax = ms.iter().map(|m| m.gops()).fold(1.0, f64::max) * 1.1;
        let root = SVGBackend::new(path, (900, 480)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let title = format!("7.1 alternating enqueue/dequeue, per thread: throughput vs threads ({})", self.device);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((x0..x1).log_scale(), 0f64..ymax)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("threads (log scale)")
            .y_desc("G queue operations / s")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.1}"))
            .draw()
            .map_err(err)?;
        if 10.0 < ymax {
            let goal = DashedLineSeries::new([(x0, 10.0), (x1, 10.0)], 6, 4, RED.stroke_width(1));
            chart.draw_series(goal).map_err(err)?.label("10 G ops/s goal").legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], RED));
        }
        for (i, v) in Variant::ALL.iter().enumerate() {
            let mut pts: Vec<(f64, f64)> = ms.iter().filter(|m| m.variant == *v).map(|m| (threads(m), m.gops())).collect();
            if pts.is_empty() {
                continue;
            }
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)).point_size(3))
                .map_err(err)?
                .label(v.label())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(3)));
        }
        chart.configure_series_labels().position(SeriesLabelPosition::UpperLeft).background_style(WHITE.mix(0.85)).border_style(BLACK).draw().map_err(err)?;
        root.present().map_err(err)
    }

    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let head = self.header();
        std::fs::write(dir.join("7.1_alternating.md"), format!("{head}{}", self.section("7.1")))?;
        std::fs::write(dir.join("7.2_imbalanced.md"), format!("{head}{}", self.section("7.2")))?;
        std::fs::write(dir.join("7.3_variants.md"), format!("{head}{}", self.section("7.3")))?;
        std::fs::write(dir.join("summary.md"), format!("{head}{}", self.summary()))?;
        std::fs::write(dir.join("results.csv"), self.csv())?;
        self.svg(&dir.join("7.1_throughput.svg")).map_err(std::io::Error::other)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measurement(variant: Variant, threads: u32, median_ms: f64) -> Measurement {
        let cfg = RunCfg { threads, mode: 0, per_warp: false, pairs: 10, p_enq: 0.5, p_deq: 0.5, fma: 0, prefill: 0 };
        let ops = 20 * threads as u64;
        Measurement { variant, cfg, median_ms, min_ms: median_ms, max_ms: median_ms, ops, enq_ok: ops / 2, deq_ok: ops / 2, full: 0, empty: 0, steals: 0, problems: vec![] }
    }

    /// The throughput chart is drawn from the measurements, with a line per variant.
    #[test]
    fn the_throughput_chart_names_every_variant_measured() {
        if let Err(why) = wsdsl_runtime::chart::font() {
            println!("SKIPPED the chart: {why}");
            return;
        }
        let mut report = Report::new("a test GPU", "sm_90", 132, 8, 256, 3, 0.1, true);
        for (v, ms) in [(Variant::ALL[0], 0.2), (Variant::ALL[1], 0.1)] {
            for threads in [256, 4096, 65536] {
                report.add("7.1", measurement(v, threads, ms));
            }
        }
        let dir = std::env::temp_dir().join(format!("queue-bench-report-{}", std::process::id()));
        report.write(&dir).unwrap();
        let svg = std::fs::read_to_string(dir.join("7.1_throughput.svg")).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        assert!(svg.contains("a test GPU"), "the device is in the title");
        assert!(svg.contains(Variant::ALL[0].label()) && svg.contains(Variant::ALL[1].label()), "a legend entry per variant");
        assert!(!svg.contains(Variant::ALL[2].label()), "no entry for a variant not measured");
    }
}
