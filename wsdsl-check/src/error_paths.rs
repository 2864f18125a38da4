//! The error paths: failures a user can cause come back as the right errors on the GPU, not
//! hangs or panics, and the GPU still works afterwards.

use crate::report::{first_words, print_row, Row};
use std::time::{Duration, Instant};
use wsdsl::prelude::*;
use wsdsl::Error;
use wsdsl_examples::{fib, nqueens};

/// A chain of tasks whose assertion fails at depth 5: a panic in a handler.
#[megakernel]
mod asserting {
    #[task]
    pub struct Step {
        pub depth: u32,
    }

    #[spawn]
    fn step(s: &Step, ctx: &mut Ctx) {
        assert!(s.depth < 5, "depth {} reached", s.depth);
        ctx.spawn(Step { depth: s.depth + 1 });
    }
}

/// The failures a user can cause must come back as the right errors, not hangs or panics,
/// and the GPU must still work afterwards.
pub fn error_path_checks(gpu: &Runtime) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut check = |workload: &str, expected: &str, outcome: Result<String, Error>, pass: bool| {
        let answer = match &outcome {
            Ok(v) => v.clone(),
            Err(e) => first_words(&e.to_string()),
        };
        let row = Row::gpu_check(workload.into(), answer, expected.into(), pass);
        print_row(&row);
        rows.push(row);
    };
    let tiny = Runtime::new(Backend::Gpu).deque_capacity(4).watchdog(Duration::from_secs(60));
    let outcome = nqueens::solve(&tiny, 12).map(|r| r.0.to_string());
    let pass = matches!(outcome, Err(Error::QueueOverflow { .. }));
    check("nqueens 12, deques of 4 slots", "QueueOverflow error", outcome, pass);

    let hurried = Runtime::new(Backend::Gpu).watchdog(Duration::from_millis(50));
    let started = Instant::now();
    let outcome = nqueens::solve(&hurried, 18).map(|r| r.0.to_string());
    let pass = matches!(outcome, Err(Error::Watchdog { stopped: true, .. })) && started.elapsed() < Duration::from_secs(10);
    check("nqueens 18, watchdog 50 ms", "Watchdog error, stopped", outcome, pass);

    let small_pool = Runtime::new(Backend::Gpu).frames(64).watchdog(Duration::from_secs(60));
    let outcome = fib::solve(&small_pool, 25).map(|r| r.1.to_string());
    let pass = matches!(outcome, Err(Error::FramePoolExhausted { capacity: 64 }));
    check("fib 25 (joins), a pool of 64 frames", "FramePoolExhausted error", outcome, pass);

    // The GPU's error names the Rust line and says what the CPU backend's does.
    let root = [asserting::Step { depth: 0 }];
    let native = Runtime::new(Backend::Cpu).run::<asserting::Kernel>((), root).map(|_| ());
    let outcome = gpu.run::<asserting::Kernel>((), root).map(|_| "no error".to_string());
    let pass = match (&outcome, &native) {
        (Err(Error::DeviceFault { site }), Err(Error::TaskPanicked { message })) => site == message && site.ends_with(": depth 5 reached"),
        _ => false,
    };
    check("a handler's assert! fails at depth 5", "DeviceFault, as on the CPU", outcome, pass);

    let outcome = nqueens::solve(gpu, 10).map(|r| r.0.to_string());
    let pass = matches!(&outcome, Ok(v) if v == "724");
    check("nqueens 10 after those errors", "724", outcome, pass);
    rows
}
