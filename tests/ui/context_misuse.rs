use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[buffers]
    pub struct Bufs {
        pub data: Buffer<u32>,
    }

    #[counters]
    pub struct Counters {
        pub found: Sum<u64>,
    }

    #[task]
    pub struct T {
        pub x: u32,
    }

    // The context and its parts are borrowed: parameters and locals, never values, fields or
    // results.
    pub struct Holder {
        pub data: Buffer<u32>,
    }

    fn by_value(b: Buffer<u32>) -> u32 {
        0
    }

    fn twice(ctx: &mut Ctx, again: &mut Ctx) {}

    // A signature refused above: its calls below report nothing more.
    fn merge_count(data: Vec<u32>) -> u32 {
        0
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {
        // Counters are updated, never read; buffers are read with `get`.
        let seen = ctx.counters.found;
        let v = ctx.buffers.data[0];
        let pair = (ctx.buffers, t.x);
        let n = merge_count(t.x);
    }
}

fn main() {}
