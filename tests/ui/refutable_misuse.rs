use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[task]
    pub struct T {
        pub x: u32,
    }

    fn half(x: u32) -> Option<u32> {
        if x % 2 == 0 { Some(x / 2) } else { None }
    }

    fn f(x: u32, y: i32) -> u32 {
        let Some(h) = half(x) else { 7 };
        let a = matches!(x);
        let b = (1..5).contains(x);
        let c = y.is_multiple_of(2);
        h
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {}
}

fn main() {}
