use wsdsl::prelude::*;

// Ordered modules: not on the deque scheduler, no complete handlers or values, and the
// priority is a u32.
#[megakernel(order = priority, scheduler = deque)]
mod on_deques {
    #[task]
    pub struct T {
        pub x: u32,
    }

    #[spawn]
    fn run(_t: &T, _ctx: &mut Ctx) {}
}

#[megakernel(order = priority)]
mod with_joins {
    #[task(value = u32)]
    pub struct T {
        pub x: u32,
    }

    #[spawn]
    fn run(t: &T, ctx: &mut Ctx) -> u32 {
        if t.x > 0 {
            ctx.spawn_with_priority(t.x as u64, T { x: t.x - 1 });
        }
        t.x
    }

    #[complete(max_children = 1)]
    fn done(t: &T, children: &[u32], _ctx: &mut Ctx) -> u32 {
        t.x + children[0]
    }
}

fn main() {}
