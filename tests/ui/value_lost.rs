use wsdsl::prelude::*;

#[megakernel]
mod m {
    #[task]
    pub struct Parent {
        pub n: u32,
    }

    #[task(value = u32)]
    pub struct Child {
        pub x: u32,
    }

    // Parent has no complete handler: the children's values would go nowhere.
    #[spawn]
    fn fan_out(p: &Parent, ctx: &mut Ctx) {
        ctx.spawn(Child { x: p.n });
    }

    #[spawn]
    fn leaf(c: &Child, _ctx: &mut Ctx) -> u32 {
        c.x
    }
}

fn main() {}
