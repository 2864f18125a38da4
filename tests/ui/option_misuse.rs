use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[task]
    pub struct T {
        pub x: u32,
    }

    fn r(x: u32) -> Result<u32, u32> {
        Ok(x)
    }

    fn z(a: Option<u32>, b: Option<u32>) -> u32 {
        let c: Option<()> = None;
        a.zip(b).unwrap_or(0)
    }

    fn q(a: u32) -> Option<u32> {
        let b = a?;
        Some(b)
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {}
}

fn main() {}
