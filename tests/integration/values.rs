//! Values of any type through joins: structs holding an `Option` and an enum with data,
//! tuples and `Option`s handed from children to complete handlers, and several value types
//! in one module (the roots' values then come back as the generated `Value` enum). On the
//! CPU backend, the host-compiled templates under every scheduler with joins, and the GPU.

use crate::schedulers;

use schedulers::{join_configs, label};
use wsdsl::gpu::emulate::{run_emulated, Emulation};
use wsdsl::prelude::*;

#[megakernel]
pub mod summaries {
    pub enum Parity {
        Even(u32),
        Odd,
    }

    /// What a range of the input hands up: a count, a sum, the largest element if any, and
    /// the parity of the sum (with half of it when even).
    pub struct Summary {
        pub count: u32,
        pub sum: u64,
        pub max: Option<u32>,
        pub parity: Parity,
    }

    impl Summary {
        pub fn of(x: u32) -> Summary {
            Summary { count: 1, sum: x as u64, max: Some(x), parity: parity(x as u64) }
        }

        pub fn merge(&self, o: &Summary) -> Summary {
            let max = match (self.max, o.max) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, None) => a,
                (None, b) => b,
            };
            let sum = self.sum + o.sum;
            Summary { count: self.count + o.count, sum, max, parity: parity(sum) }
        }
    }

    pub fn parity(s: u64) -> Parity {
        if s % 2 == 0 { Parity::Even((s / 2) as u32) } else { Parity::Odd }
    }

    pub fn element(i: u32) -> u32 {
        (i.wrapping_mul(2654435761) >> 7) % 1000
    }

    /// Summarises `lo..hi`, halving down to 3 elements.
    #[task(value = Summary)]
    pub struct Range {
        pub lo: u32,
        pub hi: u32,
    }

    #[spawn]
    fn range(r: &Range, ctx: &mut Ctx) -> Summary {
        if r.hi - r.lo <= 3 {
            let mut s = Summary { count: 0, sum: 0, max: None, parity: Parity::Even(0) };
            for i in r.lo..r.hi {
                s = s.merge(&Summary::of(element(i)));
            }
            return s;
        }
        let mid = r.lo + (r.hi - r.lo) / 2;
        ctx.spawn(Range { lo: r.lo, hi: mid });
        ctx.spawn(Range { lo: mid, hi: r.hi });
        Summary { count: 0, sum: 0, max: None, parity: Parity::Odd }
    }

    #[complete(max_children = 2)]
    fn ranges(_r: &Range, children: &[Summary], _ctx: &mut Ctx) -> Summary {
        children[0].merge(&children[1])
    }

    /// A root over a range: its value is a signed digest of the summary.
    #[task(value = i64)]
    pub struct Top {
        pub n: u32,
    }

    #[spawn]
    fn top(t: &Top, ctx: &mut Ctx) -> i64 {
        ctx.spawn(Range { lo: 0, hi: t.n });
        0
    }

    pub fn digest(s: &Summary) -> i64 {
        let half = match s.parity {
            Parity::Even(h) => h as i64,
            Parity::Odd => -1,
        };
        s.sum as i64 * 1000 + s.count as i64 - s.max.map_or(0, |m| m as i64) * half
    }

    #[complete(max_children = 1)]
    fn top_done(_t: &Top, children: &[Summary], _ctx: &mut Ctx) -> i64 {
        digest(&children[0])
    }

    /// A leaf handing a tuple.
    #[task(value = (u32, bool))]
    pub struct Probe {
        pub x: u32,
    }

    #[spawn]
    fn probe(p: &Probe, _ctx: &mut Ctx) -> (u32, bool) {
        (element(p.x) % 97, p.x % 3 == 0)
    }

    /// Probes `k` values; its value is the smallest probe among those divisible by 3, if any.
    #[task(value = Option<u32>)]
    pub struct Pick {
        pub k: u32,
    }

    #[spawn]
    fn pick(p: &Pick, ctx: &mut Ctx) -> Option<u32> {
        for x in 0..p.k {
            ctx.spawn(Probe { x: x * 7 + p.k });
        }
        None
    }

    #[complete(max_children = 8)]
    fn picked(_p: &Pick, children: &[(u32, bool)], _ctx: &mut Ctx) -> Option<u32> {
        children.iter().filter(|c| c.1).map(|c| c.0).min()
    }
}

use summaries::{digest, element, Summary, Value};

fn roots() -> Vec<summaries::Task> {
    let mut roots: Vec<summaries::Task> = Vec::new();
    for n in [1u32, 2, 5, 40, 333] {
        roots.push(summaries::Top { n }.into());
    }
    for k in [1u32, 2, 3, 8] {
        roots.push(summaries::Pick { k }.into());
    }
    roots
}

/// The same values computed directly.
fn expected() -> Vec<Value> {
    let mut out = Vec::new();
    for n in [1u32, 2, 5, 40, 333] {
        let mut s = Summary { count: 0, sum: 0, max: None, parity: summaries::Parity::Even(0) };
        for i in 0..n {
            s = s.merge(&Summary::of(element(i)));
        }
        out.push(Value::Top(digest(&s)));
    }
    for k in [1u32, 2, 3, 8] {
        let best = (0..k).map(|x| x * 7 + k).filter(|x| x % 3 == 0).map(|x| element(x) % 97).min();
        out.push(Value::Pick(best));
    }
    out
}

#[test]
fn struct_tuple_and_option_values_of_several_types_on_the_cpu() {
    let out = Runtime::new(Backend::Cpu).cpu_threads(2).run::<summaries::Kernel>((), roots()).unwrap();
    assert_eq!(out.values, expected());
    assert!(out.values.iter().any(|v| matches!(v, Value::Pick(Some(_)))), "a probe divisible by 3 exists");
    // The generated accessors read each root's value by its task type, without a match.
    let want = expected();
    let tops: Vec<_> = out.values.iter().filter_map(|v| v.as_top()).collect();
    let picks: Vec<_> = out.values.iter().filter_map(|v| v.as_pick()).collect();
    assert_eq!((tops.len(), picks.len()), (5, 4));
    assert_eq!(tops, want.iter().filter_map(|v| match v { Value::Top(t) => Some(*t), _ => None }).collect::<Vec<_>>());
    assert_eq!(picks, want.iter().filter_map(|v| match v { Value::Pick(p) => Some(*p), _ => None }).collect::<Vec<_>>());
}

#[test]
fn struct_tuple_and_option_values_under_every_scheduler_on_the_host_build() {
    let want = expected();
    let mut failures = Vec::new();
    for config in join_configs() {
        match run_emulated::<summaries::Kernel>(&(), &(), &roots(), &config, &Emulation::default()) {
            Ok((_, got, _)) if got == want => {}
            Ok((_, got, _)) => failures.push(format!("{}: {got:?}", label(&config))),
            Err(e) => failures.push(format!("{}: {e}", label(&config))),
        }
    }
    assert!(failures.is_empty(), "expected {want:?}:\n{}", failures.join("\n"));
}

#[test]
fn struct_tuple_and_option_values_on_the_gpu() {
    let rt = Runtime::new(Backend::Gpu);
    if let Err(e) = rt.gpu() {
        println!("SKIPPED (no GPU): {e}");
        return;
    }
    assert_eq!(rt.run::<summaries::Kernel>((), roots()).unwrap().values, expected());
    println!("GPU VALUES: PASS");
}
