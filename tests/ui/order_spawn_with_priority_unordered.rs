use wsdsl::prelude::*;

// `spawn_with_priority` in a module whose tasks carry no priorities.
#[megakernel(scheduler = bq)]
mod m {
    #[task]
    pub struct T {
        pub x: u32,
    }

    #[spawn]
    fn run(t: &T, ctx: &mut Ctx) {
        if t.x > 0 {
            ctx.spawn_with_priority(t.x, T { x: t.x - 1 });
        }
    }
}

fn main() {}
