use wsdsl::prelude::*;

#[megakernel]
mod m {
    #[task(value = i32)]
    pub struct Node {
        pub depth: u32,
    }

    #[spawn]
    fn expand(n: &Node, ctx: &mut Ctx) -> i32 {
        if n.depth > 0 {
            ctx.spawn(Node { depth: n.depth - 1 });
        }
        1
    }

    // Node hands its parent an i32, not an i64; and its children hand i32 too.
    #[complete(max_children = 1)]
    fn done(_n: &Node, children: &[u64], _ctx: &mut Ctx) -> i64 {
        children[0] as i64
    }
}

fn main() {}
