use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[buffers]
    pub struct Buffers {
        pub keys: Buffer<u32>,
        pub wide: Buffer<u64>,
        pub weights: Buffer<f32>,
        pub fixed: ReadOnly<u32>,
    }

    #[task]
    pub struct T {
        pub lo: u32,
        pub hi: u32,
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {
        let (lo, hi) = (t.lo as usize, t.hi as usize);
        // Floats: not `Ord`, and a parallel sum would round differently.
        ctx.reduce_sum(&ctx.buffers.weights, lo..hi);
        // A read-only array cannot be written.
        ctx.copy(&ctx.buffers.keys, lo..hi, &ctx.buffers.fixed, 0);
        // Source and destination of different element types.
        ctx.merge(&ctx.buffers.keys, lo..hi, hi..hi, &ctx.buffers.wide, 0);
        // A range written some other way.
        ctx.partition(&ctx.buffers.keys, lo..=hi, 5, &ctx.buffers.keys, 0);
        ctx.sort(&ctx.buffers.keys, lo.., &ctx.buffers.keys, lo);
        // A buffer that is not one of the context's.
        ctx.reduce_max(ctx.buffers.keys, lo..hi);
        // Arguments missing.
        ctx.exclusive_scan(&ctx.buffers.keys, lo..hi);
        // `ctx.result` takes the word's index.
        let w = ctx.result();
    }

    #[complete]
    fn c(_t: &T, _ctx: &mut Ctx) {}
}

fn main() {}
