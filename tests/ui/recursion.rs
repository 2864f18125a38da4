use wsdsl::prelude::*;

#[megakernel]
mod m {
    #[counters]
    pub struct Counters {
        pub total: Sum<u64>,
    }

    #[task]
    pub struct Node {
        pub n: u32,
    }

    fn fib(n: u32) -> u64 {
        if n < 2 { n as u64 } else { fib(n - 1) + fib(n - 2) }
    }

    fn even(n: u32) -> bool {
        if n == 0 { true } else { odd(n - 1) }
    }

    fn odd(n: u32) -> bool {
        if n == 0 { false } else { even(n - 1) }
    }

    #[spawn]
    fn visit(node: &Node, ctx: &mut Ctx) {
        if even(node.n) {
            ctx.counters.total.add(fib(node.n));
        }
    }
}

fn main() {}
