use wsdsl::prelude::*;

#[megakernel]
mod m {
    #[task]
    #[derive(Clone, Copy, Hash)]
    pub struct Node {
        pub depth: u32,
        pub kind: u8,
    }

    pub struct Ctx {
        pub x: u32,
    }

    #[spawn]
    fn visit(node: &Node, ctx: &mut Ctx) {
        match node.kind {
            0 => {}
            _ => {}
        }
        let x = node.depth.pow(2);
        let y: u64 = node.depth + 1;
        ctx.spawn(Node { depth: x, kind: 1 });
    }
}

fn main() {}
