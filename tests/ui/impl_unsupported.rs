use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[counters]
    pub struct Counters {
        pub total: Sum<u64>,
    }

    #[task]
    pub struct T {
        pub x: u32,
    }

    pub trait Twice {
        fn twice(&self) -> u32;
    }

    // Trait impls: no traits on the device.
    impl Twice for T {
        fn twice(&self) -> u32 {
            self.x * 2
        }
    }

    pub struct Wrap<V> {
        pub v: V,
    }

    // Generic impls (generic code is another item of the subset).
    impl<V> Wrap<V> {
        fn get(self) -> V {
            self.v
        }
    }

    // Methods on the counters: handlers reach them through `ctx.counters`.
    impl Counters {
        fn none(&self) {}
    }

    impl T {
        // Only methods, associated functions and consts.
        type Out = u32;

        fn ok(&self) -> u32 {
            self.x
        }
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {
        ctx.counters.total.add(t.ok() as u64);
    }
}

fn main() {}
