use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[task]
    pub struct T {
        pub x: u32,
    }

    fn first(s: &[u32]) -> u32 {
        s[0]
    }

    fn clear(s: &[u32]) {
        // A shared slice's elements cannot be borrowed mutably.
        let m = &mut s[..];
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {
        let a = [1u32, 2, 3];
        // A slice by value, an inclusive range, slicing a scalar, slice methods.
        let b = a[0..2];
        let c = first(&a[0..=1]);
        let d = &t.x[1..];
        let e = (&a[..]).iter();
    }
}

fn main() {}
