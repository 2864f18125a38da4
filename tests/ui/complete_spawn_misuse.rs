use wsdsl::prelude::*;

#[megakernel]
mod m {
    #[task(value = u32)]
    pub struct Node {
        pub n: u32,
    }

    #[task]
    pub struct Quiet {
        pub n: u32,
    }

    #[spawn]
    fn expand(n: &Node, ctx: &mut Ctx) -> u32 {
        ctx.spawn(Node { n: n.n / 2 });
        0
    }

    #[spawn]
    fn quiet(_q: &Quiet, _ctx: &mut Ctx) {}

    // A complete handler may spawn, but its children hand their values to it like the spawn
    // handler's do: `Quiet` hands none. And `round()` is a `u32`.
    #[complete(max_children = 2)]
    fn done(n: &Node, children: &[u32], ctx: &mut Ctx) -> u32 {
        if ctx.round() == 1 {
            ctx.spawn(Quiet { n: n.n });
        }
        let r: u64 = ctx.round();
        children[0] + r as u32
    }
}

fn main() {}
