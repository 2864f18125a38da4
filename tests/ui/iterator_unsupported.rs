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
        let b: [u32; 3] = a.iter().map(|v| v + t.x).collect();
        let c = a.iter().chain(b.iter()).count();
        let d = (0..t.x).map(|v| v * 2).rev().sum::<u32>();
        let m = [1.5f32, 2.0].iter().max();
        for c in a.windows(2) {}
    }
}

fn main() {}
