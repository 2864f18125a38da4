use wsdsl::prelude::*;

#[megakernel]
mod m {
    #[task]
    pub struct Node {
        pub depth: u32,
    }

    pub struct Holder {
        pub f: u32,
    }

    #[spawn]
    fn visit(node: &Node, ctx: &mut Ctx) {
        let h = Holder { f: |x: u32| x + node.depth };
        let _ = h.f;
    }
}

fn main() {}
