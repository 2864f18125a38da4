use wsdsl::prelude::*;

#[megakernel]
mod m {
    #[task]
    pub struct Node {
        pub depth: u32,
    }

    #[task]
    pub struct Leaf {
        pub value: u32,
    }

    pub struct Point {
        pub x: u32,
    }

    #[spawn]
    fn visit(node: &Node, ctx: &mut Ctx) {
        ctx.spawn(Point { x: node.depth });
    }

    #[spawn]
    fn leaf(_leaf: &Leaf, _ctx: &mut Ctx) {}
}

fn main() {}
