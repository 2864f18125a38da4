use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[task]
    pub struct T {
        pub x: u32,
    }

    fn id<N: Copy>(x: N) -> N {
        x
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {}
}

fn main() {}
