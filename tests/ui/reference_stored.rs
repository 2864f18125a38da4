use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[task]
    pub struct T {
        pub x: u32,
    }

    // References live in parameters and locals only: not in fields, results, arrays or tuples.
    pub struct Holder {
        pub r: &'static u32,
    }

    fn larger(a: &u32) -> &u32 {
        a
    }

    fn keep(a: &mut u32, b: &mut u32) -> u32 {
        let both = [&*a, &*b];
        let pair = (*a, &*b);
        0
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {}
}

fn main() {}
