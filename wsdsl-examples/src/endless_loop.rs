//! A helper that loops for ever: gpu-check's chaos rows (`wsdsl-check/src/chaos.rs`) run it on
//! the GPU, and the CPU backend's and the emulation's tests (`tests/integration/reliability.rs`)
//! on the host.

use wsdsl::prelude::*;

/// A helper whose loop never ends for an odd start: the C++ forward-progress rule lets a
/// compiler assume such a loop ends and delete it, which must not happen to Rust code.
#[megakernel]
pub mod spinning {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        pub start: u32,
    }

    #[counters]
    pub struct Counters {
        pub answer: Sum<u64>,
    }

    #[task]
    pub struct Spin {
        pub unused: u32,
    }

    fn never_zero(start: u32) -> u32 {
        let mut i = start;
        loop {
            if i == 0 {
                return 7;
            }
            i = i.wrapping_add(2);
        }
    }

    #[spawn]
    fn spin(_s: &Spin, ctx: &mut Ctx) {
        ctx.counters.answer.add(never_zero(ctx.params.start) as u64);
    }
}
