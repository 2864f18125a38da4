// Recursion of helpers is supported (bounded by `recursion_limit`), except where it cannot
// be: helpers taking closures are inlined at each call, and the limit is at least 1.
use wsdsl::prelude::*;

#[megakernel(recursion_limit = 0)]
mod m {
    use wsdsl::prelude::*;

    #[counters]
    pub struct Counters {
        pub total: Sum<u64>,
    }

    #[task]
    pub struct Node {
        pub n: u32,
    }

    fn repeat<F: Fn(u32) -> u32>(f: F, n: u32, x: u32) -> u32 {
        if n == 0 { x } else { repeat(f, n - 1, f(x)) }
    }

    #[spawn]
    fn visit(node: &Node, ctx: &mut Ctx) {
        ctx.counters.total.add(repeat(|x| x + 1, node.n, 0) as u64);
    }
}

fn main() {}
