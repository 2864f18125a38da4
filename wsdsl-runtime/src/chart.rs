//! Load-balance charts of a run: [`Stats::write_chart`] draws, one above the other, the tasks
//! each worker ran (sorted, busiest first, with the mean), the steals of the same workers and
//! the most tasks each held at once, as SVG or PNG (plotters).
//!
//! Text needs a TrueType font, read from the system (`WSDSL_CHART_FONT`, else the usual font
//! folders); without one the chart is an error saying so, never a picture without labels.

use crate::error::Error;
use crate::stats::Stats;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Pixels of a chart (three panels).
const SIZE: (u32, u32) = (1000, 960);

impl Stats {
    /// Writes the load-balance chart of this run to `path` (`.svg` or `.png`), titled
    /// `title`.
    pub fn write_chart(&self, path: impl AsRef<Path>, title: &str) -> Result<(), Error> {
        let path = path.as_ref();
        let fail = |reason: String| Error::Chart { path: path.to_path_buf(), reason };
        let svg = match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("svg") => true,
            Some("png") => false,
            _ => return Err(fail("the file name must end in .svg or .png".into())),
        };
        let panels = Panels::of(self).ok_or_else(|| {
            fail("the run has no per-worker statistics (the static scheduler runs one kernel per generation, with no lasting workers)".into())
        })?;
        font().map_err(|e| fail(e.clone()))?;
        let drawn = if svg {
            panels.draw(SVGBackend::new(path, SIZE).into_drawing_area(), title)
        } else {
            panels.draw(BitMapBackend::new(path, SIZE).into_drawing_area(), title)
        };
        drawn.map_err(fail)
    }
}

/// The three series, every one in the order of the workers sorted by tasks run.
struct Panels {
    tasks: Vec<u64>,
    steals: Vec<u64>,
    peak: Vec<u64>,
    queue_capacity: u64,
}

impl Panels {
    fn of(stats: &Stats) -> Option<Panels> {
        let n = stats.per_worker_tasks.len();
        if n == 0 {
            return None;
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&w| std::cmp::Reverse(stats.per_worker_tasks[w]));
        let pick = |v: &[u64]| order.iter().map(|&w| v.get(w).copied().unwrap_or(0)).collect::<Vec<_>>();
        Some(Panels {
            tasks: pick(&stats.per_worker_tasks),
            steals: pick(&stats.per_worker_steals),
            peak: pick(&stats.per_worker_peak),
            queue_capacity: stats.queue_capacity,
        })
    }

    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>, title: &str) -> Result<(), String> {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(err)?;
        let root = root.titled(title, ("sans-serif", 26)).map_err(err)?;
        let areas = root.split_evenly((3, 1));
        let n = self.tasks.len();
        let mean = self.tasks.iter().sum::<u64>() as f64 / n as f64;
        let max = self.tasks[0] as f64;
        let busy = self.tasks.iter().filter(|&&t| t > 0).count();
        let imbalance = if mean > 0.0 { max / mean } else { 0.0 };
        panel(
            &areas[0],
            &format!("tasks run per worker, busiest first: {busy} of {n} busy, mean {mean:.0}, busiest {imbalance:.2}x the mean"),
            &self.tasks,
            Some(mean),
            &BLUE,
        )?;
        let steals: u64 = self.steals.iter().sum();
        panel(&areas[1], &format!("steals by the same workers: {steals} in all"), &self.steals, None, &RED)?;
        let capacity = if self.queue_capacity > 0 { format!(" (capacity {})", self.queue_capacity) } else { String::new() };
        panel(&areas[2], &format!("most tasks each worker held at once{capacity}"), &self.peak, None, &GREEN)?;
        root.present().map_err(err)
    }
}

/// One panel: `values` by worker rank, with a dashed line at `mean` if given.
fn panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, caption: &str, values: &[u64], mean: Option<f64>, color: &RGBColor) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let top = values.iter().copied().max().unwrap_or(0).max(1) as f64 * 1.08;
    let n = values.len();
    // Whole workers and, for small counts, whole numbers of tasks: no repeated labels.
    let x_labels = n.min(10) + 1;
    let y_labels = (top.floor() as usize + 1).min(8);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..n as f64, 0f64..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("worker (by tasks run)")
        .x_labels(x_labels)
        .y_labels(y_labels)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| short(*y))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    // A step outline: worker i spans [i, i + 1), so a few workers read as bars and
    // thousands as a curve.
    let steps = values.iter().enumerate().flat_map(|(i, &v)| [(i as f64, v as f64), (i as f64 + 1.0, v as f64)]);
    chart.draw_series(AreaSeries::new(steps, 0.0, color.mix(0.25)).border_style(color)).map_err(err)?;
    if let Some(m) = mean {
        let line = DashedLineSeries::new([(0.0, m), (n as f64, m)], 8, 6, BLACK.stroke_width(1));
        chart.draw_series(line).map_err(err)?.label("mean").legend(|(x, y)| PathElement::new([(x, y), (x + 18, y)], BLACK));
        chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(err)?;
    }
    Ok(())
}

/// `1234567.0` as `1.2M`.
fn short(y: f64) -> String {
    match y {
        y if y >= 1e9 => format!("{:.1}G", y / 1e9),
        y if y >= 1e6 => format!("{:.1}M", y / 1e6),
        y if y >= 1e4 => format!("{:.0}k", y / 1e3),
        y if y.fract() == 0.0 || y >= 100.0 => format!("{y:.0}"),
        y => format!("{y:.1}"),
    }
}

/// Registers a system TrueType font as plotters' "sans-serif" once per process (any chart
/// drawn with plotters needs it for its text); the error says where it looked.
pub fn font() -> Result<(), &'static String> {
    static FONT: OnceLock<Result<(), String>> = OnceLock::new();
    FONT.get_or_init(|| {
        let (path, bytes) = find_font()?;
        // plotters keeps fonts for the whole process: the bytes live as long.
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
            .map_err(|_| format!("{} is not a TrueType font plotters can read; set WSDSL_CHART_FONT to another", path.display()))
    })
    .as_ref()
    .map(|_| ())
}

/// Font files tried first, by name, in the folders below (then any `.ttf` there).
const PREFERRED: [&str; 4] = ["DejaVuSans.ttf", "LiberationSans-Regular.ttf", "Arial.ttf", "arial.ttf"];
const FOLDERS: [&str; 5] = ["/usr/share/fonts", "/usr/local/share/fonts", "/System/Library/Fonts", "/Library/Fonts", "C:\\Windows\\Fonts"];

fn find_font() -> Result<(PathBuf, Vec<u8>), String> {
    if let Some(p) = std::env::var_os("WSDSL_CHART_FONT") {
        let p = PathBuf::from(p);
        return read_font(&p).map(|b| (p.clone(), b)).map_err(|e| format!("WSDSL_CHART_FONT={}: {e}", p.display()));
    }
    let mut found = Vec::new();
    for folder in FOLDERS {
        collect_ttf(Path::new(folder), 4, &mut found);
    }
    let rank = |p: &PathBuf| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        PREFERRED.iter().position(|&want| want == name).unwrap_or(PREFERRED.len())
    };
    found.sort_by_key(|p| (rank(p), p.clone()));
    for p in found {
        if let Ok(bytes) = read_font(&p) {
            return Ok((p, bytes));
        }
    }
    Err(format!(
        "no TrueType font for the chart's text (looked for .ttf files under {}); install one (e.g. the DejaVu fonts) or set WSDSL_CHART_FONT to a .ttf file",
        FOLDERS.join(", ")
    ))
}

/// Larger than any font file (DejaVuSans.ttf is 0.7 MB, a CJK font some 20 MB).
const MAX_FONT_BYTES: u64 = 64 << 20;

/// The bytes of the font file `path`: a regular file of a font's size (a device such as
/// `/dev/zero` would be read until memory runs out).
fn read_font(path: &Path) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > MAX_FONT_BYTES {
        return Err(format!("{} bytes, more than a font file holds ({MAX_FONT_BYTES} at most)", meta.len()));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path).and_then(|f| f.take(MAX_FONT_BYTES).read_to_end(&mut bytes)).map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// The `.ttf` files under `dir`, `depth` folders deep at most.
fn collect_ttf(dir: &Path, depth: u32, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let p = entry.path();
        if p.is_dir() && depth > 0 {
            collect_ttf(&p, depth - 1, out);
        } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("ttf")) {
            out.push(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats() -> Stats {
        Stats {
            per_worker_tasks: vec![10, 400, 0, 250],
            per_worker_steals: vec![1, 0, 0, 3],
            per_worker_peak: vec![2, 9, 0, 5],
            queue_capacity: 16,
            ..Stats::default()
        }
    }

    #[test]
    fn the_panels_follow_the_busiest_worker_first() {
        let p = Panels::of(&stats()).unwrap();
        assert_eq!(p.tasks, vec![400, 250, 10, 0]);
        assert_eq!(p.steals, vec![0, 3, 1, 0], "each worker's steals stay with its tasks");
        assert_eq!(p.peak, vec![9, 5, 2, 0]);
        assert!(Panels::of(&Stats::default()).is_none(), "no workers, no chart");
    }

    #[test]
    fn an_svg_chart_is_written_with_its_figures() {
        if let Err(why) = font() {
            eprintln!("SKIPPED the chart drawing: {why}");
            return;
        }
        let path = std::env::temp_dir().join(format!("wsdsl-chart-{}.svg", std::process::id()));
        stats().write_chart(&path, "four workers").unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).ok();
        assert!(svg.contains("four workers"), "the title is drawn");
        assert!(svg.contains("3 of 4 busy"), "the caption counts busy workers");
        assert!(svg.contains("capacity 16"));
    }

    #[test]
    fn bad_requests_are_errors_that_say_why() {
        let e = stats().write_chart("chart.jpg", "t").unwrap_err().to_string();
        assert!(e.contains(".svg or .png"), "{e}");
        let e = Stats::default().write_chart("chart.svg", "t").unwrap_err().to_string();
        assert!(e.contains("no per-worker statistics"), "{e}");
    }
}
