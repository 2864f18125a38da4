use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[task]
    pub struct T {
        pub x: u32,
    }

    fn add(x: &mut u32, by: u32) {
        *x += by;
    }

    fn twice(x: &u32) -> u32 {
        *x * 2
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {
        let mut v = t.x;
        // A value where a reference is expected, and the other way round.
        add(v, 1);
        let w = twice(&v) + twice(v);
        let r = &v;
        let s: u32 = r;
        let b = r == 1;
        // References to references, and `*` of a value.
        let rr = &&v;
        let d = *v;
    }
}

fn main() {}
