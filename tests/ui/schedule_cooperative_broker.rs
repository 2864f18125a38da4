use wsdsl::prelude::*;

#[megakernel(scheduler = bq, cooperative)]
mod m {
    #[task]
    pub struct T {
        pub x: u32,
    }

    #[spawn]
    fn run(_t: &T, _ctx: &mut Ctx) {}
}

fn main() {}
