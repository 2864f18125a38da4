use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[task]
    pub struct T {
        pub x: u32,
    }

    fn f(x: Box<dyn Fn(u32) -> u32>) -> u32 {
        0
    }

    pub trait Problem {
        fn bound(&self) -> u32;
    }

    impl Problem for T {
        fn bound(&self) -> u32 {
            self.x
        }
    }

    // Dynamic dispatch: the error shows the generic rewrite.
    fn g(p: &dyn Problem) -> u32 {
        p.bound()
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {}
}

fn main() {}
