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

    #[spawn]
    fn visit(node: &Node, ctx: &mut Ctx) {
        let double = |x: u32| x * 2;
        ctx.counters.total.add(double(node.depth) as u64);
    }
}

fn main() {}
