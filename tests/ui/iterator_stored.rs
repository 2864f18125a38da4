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
        let a = [1u32, 2, 3];
        let doubled = a.iter().map(|v| v * 2);
        for v in doubled {}
        let it = a.iter();
    }
}

fn main() {}
