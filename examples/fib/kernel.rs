//! The call tree of naive Fibonacci as tasks: `fib(n)` spawns `fib(n-1)` and `fib(n-2)`.
//! Leaves are `fib(0)` and `fib(1)`; their values add up to fib(n), and there are fib(n+1)
//! of them. (The version where values flow back up through complete handlers comes with
//! fork-join support.)

use wsdsl::prelude::*;

#[megakernel]
pub mod fib {
    use wsdsl::prelude::*;

    #[counters]
    pub struct Counters {
        /// Leaves of the call tree.
        pub leaves: Sum<u64>,
        /// Sum of the leaves' values: fib(n).
        pub value: Sum<u64>,
    }

    #[task]
    pub struct Call {
        pub n: u32,
    }

    #[spawn]
    fn call(c: &Call, ctx: &mut Ctx) {
        if c.n < 2 {
            ctx.counters.leaves.add(1);
            ctx.counters.value.add(c.n as u64);
        } else {
            ctx.spawn(Call { n: c.n - 1 });
            ctx.spawn(Call { n: c.n - 2 });
        }
    }
}

/// fib(n) by iteration (fib(0) = 0, fib(1) = 1): the independent reference.
pub fn reference(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a.wrapping_add(b));
    }
    a
}

/// Runs the call tree of fib(n); returns (leaves, value).
pub fn solve(rt: &Runtime, n: u32) -> Result<(u64, u64, Output<fib::Kernel>), wsdsl::Error> {
    if n > 60 {
        return Err(wsdsl::Error::InvalidConfig(format!(
            "fib({n}) has {} leaves, too many to enumerate; use n <= 60",
            reference(n + 1)
        )));
    }
    let out = rt.run::<fib::Kernel>((), [fib::Call { n }])?;
    Ok((out.counters.leaves.get(), out.counters.value.get(), out))
}
