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

    // No `max_children`, spawning from a complete handler, and a method slices lack.
    #[complete]
    fn done(n: &Node, children: &[u32], ctx: &mut Ctx) -> u32 {
        ctx.spawn(Node { n: n.n });
        children.iter().sum()
    }
}

fn main() {}
