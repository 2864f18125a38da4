use wsdsl::prelude::*;

#[megakernel]
mod m {
    #[task]
    pub struct Node {
        pub depth: u32,
    }

    #[spawn]
    fn visit(node: &Node, _ctx: &mut Ctx) {
        if node.depth > 100 {
            panic!("too deep");
        }
    }
}

fn main() {}
