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
        let v = t.x.checked_mul(3).expect(t.x);
        let w = t.x.unwrap();
    }
}

fn main() {}
