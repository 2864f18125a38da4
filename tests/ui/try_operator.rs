use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[task]
    pub struct T {
        pub x: u32,
    }

    fn f(a: u32) -> u32 {
        let b = a.checked_add(1)?;
        b
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {}
}

fn main() {}
