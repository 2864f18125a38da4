use wsdsl::prelude::*;

#[megakernel]
mod m {
    #[task]
    pub struct Node {
        pub depth: u32,
    }

    pub const LIMIT: u32 = 100;

    #[spawn]
    fn visit(node: &Node, _ctx: &mut Ctx) {
        if node.depth > LIMIT {
            panic!(LIMIT);
        }
        assert!(node.depth != 7, "depth {:#x}", node.depth);
        assert_eq!(node.depth, 3, "depth {} of {}", node.depth);
    }
}

fn main() {}
