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

    #[spawn]
    fn visit(node: &Node, ctx: &mut Ctx) {
        ctx.spawn(Leaf { value: node.depth });
    }
}

fn main() {}
