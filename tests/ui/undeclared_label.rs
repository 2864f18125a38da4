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
        loop {
            break 'outer;
        }
    }
}

fn main() {}
