use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[task]
    pub struct T {
        pub x: u32,
    }

    pub enum Shape {
        Circle(u32),
        Dot,
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {}
}

fn main() {}
