use wsdsl::prelude::*;

#[megakernel]
mod m {
    #[task]
    pub struct Node {
        pub children: Vec<u32>,
    }

    #[spawn]
    fn visit(_node: &Node, _ctx: &mut Ctx) {}
}

fn main() {}
