use wsdsl::prelude::*;

#[megakernel]
mod m {
    #[task]
    pub struct Quiet {
        pub x: u32,
    }

    // Quiet declares no value (`#[task(value = u32)]`), so there is nobody to return it to.
    #[spawn]
    fn run(q: &Quiet, _ctx: &mut Ctx) -> u32 {
        q.x
    }
}

fn main() {}
