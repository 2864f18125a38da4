use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[task]
    pub struct T {
        pub x: u32,
    }

    static LIMIT: u32 = 3;

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {}
}

fn main() {}
