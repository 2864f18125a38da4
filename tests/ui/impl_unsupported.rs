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
        fn more(&self) -> u32;
    }

    // Only the module's own traits are implemented, each item a member of it, all of its
    // required items defined.
    impl Clone for T {
        fn clone(&self) -> T {
            *self
        }
    }

    impl Twice for T {
        fn twice(&self) -> u32 {
            self.x * 2
        }
        fn thrice(&self) -> u32 {
            self.x * 3
        }
    }

    // Generic traits and associated types.
    pub trait Holder<V> {
        type Item;
        fn hold(&self) -> u32;
    }

    pub struct Wrap<V> {
        pub v: V,
    }

    // Generic impls other than blanket impls of a trait `impl<T: Bound> Trait for T`.
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
