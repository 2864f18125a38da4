use wsdsl::prelude::*;

#[megakernel]
mod m {
    #[task(value = u32)]
    pub struct Leaf {
        pub x: u32,
    }

    #[spawn]
    fn run(l: &Leaf, _ctx: &mut Ctx) -> u32 {
        l.x
    }

    // Leaf never spawns, so there is nothing to wait for.
    #[complete(max_children = 2)]
    fn done(_l: &Leaf, children: &[u32], _ctx: &mut Ctx) -> u32 {
        children[0]
    }
}

fn main() {}
