use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[task]
    pub struct T {
        pub x: u32,
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {
        let a = t.x.abs();
    }
}

fn main() {}
