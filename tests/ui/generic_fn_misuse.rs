use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[task]
    pub struct T {
        pub x: u32,
    }

    fn id<N: Copy>(x: N) -> N {
        x
    }

    fn first<const K: usize>(a: [u32; K]) -> u32 {
        a[0]
    }

    fn nest<F: Fn(u32) -> u32>(f: F, n: u32) -> u32 {
        if n == 0 { f(0) } else { nest(f, n - 1) }
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {
        let a = id(3);
        let b = id(t.x) + id::<u32>(4);
        let c = nest(|v| v + 1, t.x);
    }
}

fn main() {}
