//! The matrices: a few programs under every scheduler configuration, and delta-stepping under
//! every configuration of the priority scheduler, each cell exact and timed.

use crate::report::{measure, print_row, Job, Row};
use crate::workloads::ordered_sssp_case;
use std::time::Duration;
use wsdsl::prelude::*;
use wsdsl_examples::{fib, nqueens, uts};

/// N-Queens 12, UTS T3 and fork-join fib 25 under every scheduler configuration: exact
/// answers, and the run time of each (median of `repeat` runs after a warm-up).
pub fn scheduler_matrix(rows: &mut Vec<Row>, repeat: usize, limit: Duration) -> String {
    let mut table = String::from(
        "\n| worker | victim | steal | nqueens 12 | ms | steals | uts T3 | ms | steals | fib 25 (joins) | ms | frames |\n|---|---|---|---|---:|---:|---|---:|---:|---|---:|---:|\n",
    );
    let t3 = uts::preset("T3").unwrap();
    for config in wsdsl::gpu::all_kernel_configs(256).into_iter().chain(wsdsl::gpu::broker_kernel_configs(256)) {
        let rt = Runtime::new(Backend::Gpu).kernel_config(config).watchdog(limit).spread(0);
        let name = match config.scheduler {
            wsdsl::Scheduler::Static => "Static".to_string(),
            s @ (wsdsl::Scheduler::Bq | wsdsl::Scheduler::Bwd | wsdsl::Scheduler::Bsq) => format!("{s:?}/{:?}", config.worker),
            wsdsl::Scheduler::Deque => format!("{:?}/{:?}/{:?}", config.worker, config.victim, config.steal),
        };
        let queens: Job<'_> = Box::new(|rt: &Runtime| {
            let (got, out) = nqueens::solve(rt, 12)?;
            Ok((got.to_string(), "14200".to_string(), out.stats))
        });
        let tree: Job<'_> = Box::new(|rt: &Runtime| {
            let (got, out) = uts::solve(rt, &t3)?;
            let want = t3.known.unwrap();
            Ok((format!("{got:?}"), format!("{want:?}"), out.stats))
        });
        let joins: Job<'_> = Box::new(|rt: &Runtime| {
            let (leaves, value, out) = fib::solve(rt, 25)?;
            let joins = out.counters.joins.get();
            let mut stats = out.stats;
            // The frame high-water mark rides in `steals` for this column (see the table).
            stats.steals = stats.peak_frames;
            Ok((format!("{value}/{leaves}/{joins}"), format!("{}/{}/{}", fib::reference(25), fib::reference(26), fib::reference(26) - 1), stats))
        });
        let q = measure(&format!("nqueens 12 [{name}]"), &rt, &queens, repeat);
        let u = measure(&format!("uts T3 [{name}]"), &rt, &tree, repeat);
        let f = measure(&format!("fib 25 joins [{name}]"), &rt, &joins, repeat);
        print_row(&q);
        print_row(&u);
        print_row(&f);
        let cell = |r: &Row| if r.pass { "PASS".to_string() } else { format!("FAIL: {} {}", r.answer, r.note) };
        let (w, v, s) = match config.scheduler {
            wsdsl::Scheduler::Static => ("static baseline".to_string(), "-".to_string(), "-".to_string()),
            s @ (wsdsl::Scheduler::Bq | wsdsl::Scheduler::Bwd | wsdsl::Scheduler::Bsq) => {
                (format!("{:?} ({s:?})", config.worker), "-".to_string(), "-".to_string())
            }
            wsdsl::Scheduler::Deque => (format!("{:?}", config.worker), format!("{:?}", config.victim), format!("{:?}", config.steal)),
        };
        table.push_str(&format!(
            "| {w} | {v} | {s} | {} | {:.2} | {} | {} | {:.2} | {} | {} | {:.2} | {} |\n",
            cell(&q), q.median_ms, q.steals, cell(&u), u.median_ms, u.steals, cell(&f), f.median_ms, f.steals
        ));
        rows.push(q);
        rows.push(u);
        rows.push(f);
    }
    table
}

/// Delta-stepping SSSP on R-MAT 14 under every configuration of the priority scheduler
/// (band queues as BQ and BWD, each worker granularity): exact distances, run time, and how
/// the bands went.
pub fn ordered_matrix(rows: &mut Vec<Row>, repeat: usize, limit: Duration) -> String {
    let mut table = String::from("\n| ordered: band queues | worker | SSSP R-MAT 14 (delta-stepping) | ms | bands |\n|---|---|---|---:|---|\n");
    let sssp = ordered_sssp_case(14);
    for config in wsdsl::gpu::ordered_kernel_configs(256) {
        let rt = Runtime::new(Backend::Gpu).kernel_config(config).watchdog(limit);
        let job: Job<'_> = Box::new(|rt: &Runtime| {
            let (found, stats) = sssp.run(rt)?;
            Ok((sssp.verdict(&found), sssp.expected(), stats))
        });
        let name = format!("sssp R-MAT 14 ordered [{:?}/{:?}]", config.scheduler, config.worker);
        let row = measure(&name, &rt, &job, repeat);
        print_row(&row);
        let bands = job(&rt).ok().and_then(|(_, _, stats)| stats.bands).map(|b| b.to_string().replace("bands       ", "")).unwrap_or_default();
        let cell = if row.pass { "PASS".to_string() } else { format!("FAIL: {} {}", row.answer, row.note) };
        table.push_str(&format!("| {:?} | {:?} | {cell} | {:.2} | {bands} |\n", config.scheduler, config.worker, row.median_ms));
        rows.push(row);
    }
    table
}
