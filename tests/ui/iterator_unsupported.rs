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
        // `chain` after an adaptor that may end early, `rev` after one that counts.
        let c = a.iter().take(2).chain(b.iter()).count();
        let d = (0..t.x).skip(1).rev().sum::<u32>();
        let p = a.iter().peekable().count();
        let s = a.iter().scan(0, |acc, v| Some(*acc + v)).count();
        let m = [1.5f32, 2.0].iter().max();
        for c in a.windows(2) {}
    }
}

fn main() {}
