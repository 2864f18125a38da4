//! `#[megakernel(...)]` selects the scheduler; runtime settings override it.

use wsdsl::gpu::compile_check_with;
use wsdsl::prelude::*;
use wsdsl::{Program, Schedule, Scheduler, Steal, Victim, Worker};

#[megakernel(scheduler = static, block_threads = 128, capacity = 4096)]
mod levels {
    use wsdsl::prelude::*;

    #[counters]
    pub struct Counters {
        pub leaves: Sum<u64>,
    }

    #[task]
    pub struct Node {
        pub depth: u32,
    }

    #[spawn]
    fn grow(n: &Node, ctx: &mut Ctx) {
        if n.depth == 10 {
            ctx.counters.leaves.add(1);
        } else {
            ctx.spawn(Node { depth: n.depth + 1 });
            ctx.spawn(Node { depth: n.depth + 1 });
        }
    }
}

#[megakernel(worker = block, victim = small_world, steal = half)]
mod stealing {

    #[task]
    pub struct Leaf {
        pub x: u32,
    }

    #[spawn]
    fn leaf(_l: &Leaf, _ctx: &mut Ctx) {}
}

#[test]
fn the_attribute_becomes_the_programs_schedule() {
    let s = levels::Kernel::SCHEDULE;
    assert_eq!(s.scheduler, Some(Scheduler::Static));
    assert_eq!((s.block_threads, s.capacity, s.worker), (Some(128), Some(4096), None));
    let s = stealing::Kernel::SCHEDULE;
    assert_eq!((s.worker, s.victim, s.steal), (Some(Worker::Block), Some(Victim::SmallWorld), Some(Steal::Half)));
}

#[test]
fn runtime_settings_override_the_attribute() {
    let rt = Runtime::new(Backend::Cpu);
    assert_eq!(rt.config_for::<levels::Kernel>().scheduler, Scheduler::Static);
    assert_eq!(rt.config_for::<levels::Kernel>().block_threads, 128);
    let rt = rt.scheduler(Scheduler::Deque).victim(Victim::Pws);
    let c = rt.config_for::<levels::Kernel>();
    assert_eq!((c.scheduler, c.victim, c.block_threads), (Scheduler::Deque, Victim::Pws, 128));
    assert_eq!(Schedule::DEFAULT.resolve(), wsdsl::KernelConfig::default());
}

#[test]
fn the_selected_kernels_compile_and_the_cpu_answer_is_exact() {
    let rt = Runtime::new(Backend::Cpu);
    for config in [rt.config_for::<levels::Kernel>(), Runtime::new(Backend::Cpu).config_for::<stealing::Kernel>()] {
        let bytes = compile_check_with::<levels::Kernel>("sm_90", &config).unwrap_or_else(|e| panic!("{config:?}: {e}"));
        assert!(bytes > 1000);
    }
    let out = rt.run::<levels::Kernel>((), [levels::Node { depth: 0 }]).unwrap();
    assert_eq!(out.counters.leaves.get(), 1024);
}
