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

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {
        let a = id(3);
        let b = id(t.x) + id::<u32>(4);
    }
}

fn main() {}
