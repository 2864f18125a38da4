use wsdsl::prelude::*;

#[megakernel]
mod m {
    #[task(value = u32)]
    pub struct Node {
        pub n: u32,
    }

    #[spawn]
    fn expand(n: &Node, ctx: &mut Ctx) -> u32 {
        ctx.spawn(Node { n: n.n / 2 });
        0
    }

    // No `max_children`, and a method slices lack.
    #[complete]
    fn done(_n: &Node, children: &[u32], _ctx: &mut Ctx) -> u32 {
        children.windows(2).count() as u32
    }
}

fn main() {}
