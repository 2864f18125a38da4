use wsdsl::prelude::*;

#[megakernel(worker = wavefront, steal = all, block_threads = 100, colour = blue)]
mod m {
    #[task]
    pub struct T {
        pub x: u32,
    }

    #[spawn]
    fn run(_t: &T, _ctx: &mut Ctx) {}
}

fn main() {}
