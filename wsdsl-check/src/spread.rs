//! The spread rows: the host runs a program's first levels and deals them to the GPU.

use crate::report::{first_words, print_row, Job, Row};
use std::time::Duration;
use wsdsl::prelude::*;
use wsdsl_examples::{nqueens, uts};

/// The host's first levels dealt to the GPU (`Runtime::spread`, on by default): one root of
/// N-Queens 12 and of UTS T3 each, exact, with the host's levels reported.
pub fn spread_rows(limit: Duration) -> Vec<Row> {
    let rt = Runtime::new(Backend::Gpu).watchdog(limit);
    let t3 = uts::preset("T3").expect("a preset");
    let cases: [(&str, Job<'_>); 2] = [
        (
            "nqueens 12",
            Box::new(|rt: &Runtime| {
                let (got, out) = nqueens::solve(rt, 12)?;
                Ok((got.to_string(), nqueens::expected(12).unwrap().to_string(), out.stats))
            }),
        ),
        (
            "uts T3",
            Box::new(|rt: &Runtime| {
                let out = rt.run::<uts::uts::Kernel>(t3.params, [uts::root(t3.seed)])?;
                let got = (out.counters.nodes.get(), out.counters.leaves.get(), out.counters.depth.get());
                Ok((format!("{got:?}"), format!("{:?}", t3.known.expect("known counts")), out.stats))
            }),
        ),
    ];
    let mut rows = Vec::new();
    for (name, job) in cases {
        let row = match job(&rt) {
            Ok((answer, expected, stats)) => {
                let levels = stats.spread.as_ref().map_or(0, |s| s.levels);
                let pass = answer == expected && levels > 0;
                let mut row = Row::gpu_check(format!("{name}, first levels run by the host"), answer, expected, pass);
                row.tasks = stats.tasks;
                row.steals = stats.steals;
                row.median_ms = stats.phases.run.as_secs_f64() * 1e3;
                row.note = stats.spread.map_or("the host ran no level".into(), |s| format!("{} levels on the host, {} tasks dealt", s.levels, s.dealt));
                row
            }
            Err(e) => Row::gpu_check(format!("{name}, first levels run by the host"), first_words(&e.to_string()), "the answer".into(), false),
        };
        print_row(&row);
        rows.push(row);
    }
    rows
}
