use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[buffers]
    pub struct Graph {
        pub targets: ReadOnly<u32>,
        pub dist: Buffer<u32>,
    }

    #[task]
    pub struct T {
        pub x: u32,
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {
        let d = ctx.buffers.dist.get(t.x as usize);
        ctx.buffers.targets.set(0, d);
    }
}

fn main() {}
