//! Fork-join Fibonacci: `fib(n)` spawns `fib(n-1)` and `fib(n-2)`, and its complete handler
//! adds the two values they hand back. Leaves are `fib(0)` and `fib(1)`, which return `n`;
//! the root's value is fib(n). The call tree has fib(n+1) leaves and fib(n+1) - 1 joins.

use wsdsl::prelude::*;

#[megakernel]
pub mod fib {
    use wsdsl::prelude::*;

    #[counters]
    pub struct Counters {
        /// Leaves of the call tree.
        pub leaves: Sum<u64>,
        /// Complete handlers run (inner nodes of the call tree).
        pub joins: Sum<u64>,
    }

    #[task(value = u64)]
    pub struct Call {
        pub n: u32,
    }

    #[spawn]
    fn call(c: &Call, ctx: &mut Ctx) -> u64 {
        if c.n < 2 {
            ctx.counters.leaves.add(1);
            return c.n as u64;
        }
        ctx.spawn(Call { n: c.n - 1 });
        ctx.spawn(Call { n: c.n - 2 });
        0 // replaced by `add`'s result once both children are done
    }

    #[complete(max_children = 2)]
    fn add(_c: &Call, children: &[u64], ctx: &mut Ctx) -> u64 {
        ctx.counters.joins.add(1);
        children[0] + children[1]
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

/// The leaves of fib(n)'s call tree, fib(n + 1), in words: exact while it fits in a u128.
fn leaves_of(n: u32) -> String {
    let (mut a, mut b) = (0u128, 1u128);
    for _ in 0..=n {
        match a.checked_add(b) {
            Some(next) => (a, b) = (b, next),
            None => return "more than 10^38".into(),
        }
    }
    a.to_string()
}

/// Runs the call tree of fib(n); returns (leaves, fib(n) as joined up the tree, output).
/// The output's `joins` counter is the number of complete handlers that ran.
pub fn solve(rt: &Runtime, n: u32) -> Result<(u64, u64, Output<fib::Kernel>), wsdsl::Error> {
    if n > 60 {
        return Err(wsdsl::Error::InvalidConfig(format!("fib({n}) has {} leaves, too many to enumerate; use n <= 60", leaves_of(n))));
    }
    let out = rt.run::<fib::Kernel>((), [fib::Call { n }])?;
    Ok((out.counters.leaves.get(), out.values[0], out))
}
