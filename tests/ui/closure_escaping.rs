use wsdsl::prelude::*;

#[megakernel]
mod m {
    #[counters]
    pub struct Counters {
        pub total: Sum<u64>,
    }

    #[task]
    pub struct Node {
        pub depth: u32,
    }

    fn twice(x: u32) -> u32 {
        x * 2
    }

    fn make(k: u32) -> u32 {
        let add = move |x: u32| x + k;
        add
    }

    #[spawn]
    fn visit(node: &Node, ctx: &mut Ctx) {
        let double = |x: u32| x * 2;
        ctx.counters.total.add(twice(double) as u64);
        let copy = double;
        let countdown = |n: u32| if n == 0 { 0 } else { countdown(n - 1) };
        let _ = countdown(node.depth);
    }
}

fn main() {}
