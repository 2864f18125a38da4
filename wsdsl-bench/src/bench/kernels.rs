//! Kernels that exist only to isolate one mechanism in the bench.

use wsdsl::prelude::*;

/// The call tree of fib(n) without joins: leaves add their `n` to a counter, so the counter
/// ends at fib(n) exactly as the joined program's root value does. The difference between
/// the two runs is what waiting for children costs.
#[megakernel]
pub mod fib_plain {
    use wsdsl::prelude::*;

    #[counters]
    pub struct Counters {
        pub value: Sum<u64>,
        pub leaves: Sum<u64>,
    }

    #[task]
    pub struct Call {
        pub n: u32,
    }

    #[spawn]
    fn call(c: &Call, ctx: &mut Ctx) {
        if c.n < 2 {
            ctx.counters.value.add(c.n as u64);
            ctx.counters.leaves.add(1);
            return;
        }
        ctx.spawn(Call { n: c.n - 1 });
        ctx.spawn(Call { n: c.n - 2 });
    }
}
