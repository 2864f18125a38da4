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
        let mut n = t.x;
        while let Some(m) = n.checked_sub(3) {
            n = m;
        }
    }
}

fn main() {}
