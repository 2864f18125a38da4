//! Dealing a run's first levels over its GPUs. Roots are dealt round-robin (`roots_of`), so a
//! run that starts from one root starts on GPU 0 alone, and every other GPU then lives, for
//! the whole run, on what its thieves take from GPU 0 piece by piece. Profiled on UTS T1XL
//! dealt that way, GPU 1 makes 3.4 times GPU 0's steals and runs 2.4% fewer tasks in the same
//! time: its share of the tree comes in fragments.
//!
//! So before a run the host runs the tree's first levels itself, breadth first, toward
//! `Runtime::spread` tasks for every GPU, and deals that frontier instead of the roots: every
//! GPU starts with subtrees of the same depth, and work crosses between GPUs only to even out
//! what those subtrees turned out to hold. (On one GPU the same frontier starts every worker
//! at once, instead of the tree fanning out through steals.) The host does this on a thread
//! of its own while the run sets up; the run asks for the frontier only when it uploads its
//! roots (`runner.rs`; `multi/run.rs`, once the GPUs have agreed on the run), and waits for it
//! no longer than the watchdog allows: a handler looping for ever on the host is the run's
//! `Error::Watchdog`, as it would be on the GPU. That thread owns what it reads (the roots, the
//! parameters), so it may go on spinning after the run returned: hence only programs without
//! buffers qualify.
//!
//! Exact by construction, for the programs it takes: their tasks hand nothing back (no
//! complete handlers, no values: no frame the GPUs would have to know), record no jobs, and
//! have no buffers; the handlers the host ran add their counters to the run's. A level whose children are no more than itself (the tree does not widen there, or
//! ends), or a handler that panics or records a job, stops the spreading: the host's work on
//! that level is thrown away whole, counters with it, and the GPUs run the level as they would
//! have. So the host never keeps a level that does not widen: a tree whose parallelism is
//! scarce, like UTS T3L, gains nothing from it, a chain would otherwise run level by level on
//! the host, and tasks that each spawn one task of real work (DLB_Bench's holders) stay the
//! GPUs' work.
//!
//! Deterministic, since every process of a multi-GPU run spreads for itself and must deal the
//! same frontier: the host runs a level only while it holds at most half the tasks wanted (the
//! next is expected to reach them), never on a clock. (The judgement below is bounded by one,
//! and voted on; which levels are dealt never depends on it.)
//!
//! A level that hardly widens (its children at most a quarter more) says more on several
//! GPUs: the tree may be one whose parallelism stays scarce, like UTS T3L (about 2,000 tasks a level for 17,844 levels, fewer
//! than one GPU's threads), which a second GPU cannot speed up (its critical path is the run)
//! and only slows down: the multi-GPU kernel's own code costs it 2% on one GPU, and the second
//! GPU's probes another 1%. So there the host looks further
//! (`stays_narrow`): it runs the next `NARROW_LEVELS` levels too, and throws them away. If
//! none of them reaches the tasks wanted nor grows a quarter past the level that hardly
//! widened, the tree is judged narrow and the run goes to GPU 0 alone, with the one-GPU
//! kernel, once every process agrees (`gpu/multi/alone.rs`). That look is bounded by a clock
//! (`NARROW_TIME`): a level of long tasks is not judged narrow. Since a clock is not
//! deterministic, the processes vote on the judgement, and the levels dealt never depend on
//! it. A tree narrow at the top and wide further down would run on one GPU: the
//! judgement is a bet on the first levels, and `Runtime::alone_when_narrow(false)` (or
//! `WSDSL_ALONE_WHEN_NARROW=0`) keeps every run on all its GPUs.

use crate::cpu::panics;
use crate::cache::stable_hash_bytes;
use crate::gpu::run::images::encode_tasks;
use crate::error::{Error, RanOn};
use crate::contract::{CounterSet, Program, RunResult};
use crate::contract::schedule::{KernelConfig, Order, Scheduler};
use crate::contract::spawned::Spawned;
use crate::stats::SpreadStats;
use crate::contract::value::TaskValue;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Tasks one level may spawn on the host (a level that spawns more is not kept).
const LEVEL_TASKS: usize = 1 << 16;

/// Levels the host runs past one that did not widen, to judge whether the tree stays narrow.
const NARROW_LEVELS: usize = 4;

/// Levels narrower than this say nothing of the tree (a few set-up tasks in a chain, say):
/// they are never judged narrow.
const NARROW_MIN_WIDTH: usize = 256;

/// How long the host may look past a level that hardly widened (T3L's four levels, about
/// 8,000 tasks, take 2-4 ms on an H200 machine's CPU); longer, even by one task, the tree is
/// not judged narrow.
const NARROW_TIME: Duration = Duration::from_millis(20);

/// What the host did: the tasks the GPUs start with, what the handlers it ran counted, and
/// whether it judged the tree narrow (module comment).
struct Spread<P: Program> {
    roots: Vec<P::Task>,
    counters: P::Counters,
    stats: SpreadStats,
    narrow: bool,
}

/// Whether `P`'s first levels can run on the host and be dealt (module comment): the deque
/// scheduler without an order (ordered runs keep bands the host does not), no join frames or
/// values, tasks that are not cooperative (a worker's threads together), and a build that can
/// catch a handler's panic. The buffers (none) are checked by `no_buffers`.
fn can_spread<P: Program>(config: &KernelConfig) -> bool {
    // A program whose handlers spawn with priorities runs ordered whatever `config` says.
    let ordered = config.with_order_of::<P>().order != Order::None;
    config.scheduler == Scheduler::Deque && !ordered && !config.cooperative && P::JOIN.is_none() && cfg!(panic = "unwind")
}

/// `P`'s buffers, for a thread that may outlive the run, if `P` has none.
fn no_buffers<P: Program>() -> Option<&'static P::Buffers> {
    (&() as &'static dyn std::any::Any).downcast_ref::<P::Buffers>()
}

/// Runs levels of the tree from `roots` toward `want` tasks, and on several GPUs (`judge`)
/// judges whether it stays narrow (module comment).
fn spread<P: Program>(roots: &[P::Task], params: &P::Params, buffers: &P::Buffers, want: usize, judge: bool) -> Spread<P> {
    let start = Instant::now();
    let mut level = roots.to_vec();
    let mut counters = P::Counters::default();
    let mut stats = SpreadStats::default();
    let mut narrow = false;
    let mut judge = judge;
    while !level.is_empty() && level.len() * 2 <= want {
        let Some((next, counted)) = run_level::<P>(&level, params, buffers, None) else { break };
        // A level of `NARROW_MIN_WIDTH` tasks or more that grew by a quarter or less: on
        // several GPUs, look further (once).
        if judge && level.len() >= NARROW_MIN_WIDTH && next.len() <= level.len() + level.len() / 4 {
            narrow = stays_narrow::<P>(&next, level.len(), params, buffers, want);
            judge = false;
        }
        if next.len() <= level.len() {
            break; // not wider: the GPUs run this level themselves
        }
        counters.merge(&counted);
        stats.tasks += level.len() as u64;
        stats.levels += 1;
        // (A level judged narrow that still widened goes on as any other: which levels the
        // host deals must not depend on the judgement's clock.)
        level = next;
    }
    stats.dealt = level.len() as u64;
    stats.time = start.elapsed();
    Spread { roots: level, counters, stats, narrow }
}

/// Whether the tree stays narrow below `next` (the children of a level of `width` tasks, at
/// most a quarter more): the next `NARROW_LEVELS` levels, run and thrown away before
/// `NARROW_TIME` has passed (checked task by task), each hold fewer than `want` tasks, the
/// last no more than a quarter past `width`. A tree that ends meanwhile is narrow too: all of
/// it ran on the host within that time.
fn stays_narrow<P: Program>(next: &[P::Task], width: usize, params: &P::Params, buffers: &P::Buffers, want: usize) -> bool {
    let deadline = Instant::now() + NARROW_TIME;
    let mut level = next.to_vec();
    for _ in 0..NARROW_LEVELS {
        if level.is_empty() {
            return true;
        }
        match run_level::<P>(&level, params, buffers, Some(deadline)) {
            Some((next, _)) if next.len() < want => level = next,
            _ => return false, // too wide, out of time, a panic or a job: not judged
        }
    }
    level.len() <= width + width / 4
}

/// One level's children and counters, or `None` where a handler panicked or recorded a job,
/// or the level was not done by `deadline`.
fn run_level<P: Program>(level: &[P::Task], params: &P::Params, buffers: &P::Buffers, deadline: Option<Instant>) -> Option<(Vec<P::Task>, P::Counters)> {
    let mut counters = P::Counters::default();
    let mut spawned = Spawned::with_limit(LEVEL_TASKS);
    let ran = panics::catch_as_handler(|| {
        for task in level {
            P::execute(task, params, buffers, &mut counters, &mut spawned);
            if spawned.has_jobs() || deadline.is_some_and(|d| Instant::now() > d) {
                return false;
            }
        }
        true
    });
    match ran {
        Ok(true) => Some((spawned.tasks().to_vec(), counters)),
        _ => None,
    }
}

/// A run's roots: those it was given, which name the run, and those the host deals, which may
/// still be coming from the spreading thread.
pub(crate) struct Roots<'a, P: Program> {
    given: &'a [P::Task],
    /// Tasks asked for over all the GPUs (0: the roots as given).
    want: usize,
    /// How long the run waits for the host's levels (the run's watchdog limit).
    limit: Duration,
    coming: Mutex<Option<mpsc::Receiver<Spread<P>>>>,
    spread: OnceLock<Result<Option<Spread<P>>, ()>>,
    /// Whether `dealt` handed out the host's frontier: only then are the host's tasks and
    /// counters the run's (across hosts the processes may then deal the roots as given after
    /// all: `forget_levels`).
    handed: AtomicBool,
}

impl<'a, P: Program> Roots<'a, P> {
    /// Roots dealt as they are.
    pub(crate) fn as_given(given: &'a [P::Task]) -> Self {
        Roots { given, want: 0, limit: Duration::ZERO, coming: Mutex::new(None), spread: OnceLock::new(), handed: AtomicBool::new(false) }
    }

    /// The roots the run was asked to start from: what names the run.
    pub(crate) fn given(&self) -> &'a [P::Task] {
        self.given
    }

    /// Tasks asked for over all the GPUs, 0 for none: with the roots given, what decides the
    /// tasks dealt (processes that differ here would deal different ones).
    pub(crate) fn want(&self) -> usize {
        self.want
    }

    /// Whether the host judged the tree narrow (module comment); known once `dealt` returned.
    pub(crate) fn narrow(&self) -> bool {
        matches!(self.spread.get(), Some(Ok(Some(s))) if s.narrow)
    }

    /// What names the tasks `dealt` handed out and what the host's levels counted (0 when it
    /// handed out the roots as given): processes of a job across hosts compare it, since
    /// their levels come from their own hosts' maths libraries (`gpu/multi/run.rs`).
    pub(crate) fn fingerprint(&self) -> u64 {
        match self.spread.get() {
            Some(Ok(Some(s))) if self.handed.load(Ordering::Relaxed) => {
                let counted = format!("{:?}", s.counters);
                stable_hash_bytes(&[&encode_tasks::<P>(&s.roots), &s.stats.tasks.to_le_bytes(), counted.as_bytes()])
            }
            _ => 0,
        }
    }

    /// The run deals the roots as given after all (the processes' levels differed): the
    /// host's tasks and counters are not the run's.
    pub(crate) fn forget_levels(&self) -> &'a [P::Task] {
        self.handed.store(false, Ordering::Relaxed);
        self.given
    }

    /// The tasks to deal, once the host has run its levels (waiting for them up to the run's
    /// watchdog limit: longer, a handler is looping on the host, `Error::Watchdog`).
    pub(crate) fn dealt(&self) -> Result<&[P::Task], Error> {
        let spread = self.spread.get_or_init(|| {
            let coming = self.coming.lock().unwrap_or_else(|e| e.into_inner()).take();
            match coming.map(|rx| rx.recv_timeout(self.limit)) {
                None => Ok(None),
                Some(Ok(s)) => Ok(Some(s)),
                Some(Err(mpsc::RecvTimeoutError::Timeout)) => Err(()),
                // The thread ended without sending (it cannot: panics are caught): as given.
                Some(Err(mpsc::RecvTimeoutError::Disconnected)) => Ok(None),
            }
        });
        match spread {
            Ok(Some(s)) if s.stats.levels > 0 => {
                self.handed.store(true, Ordering::Relaxed);
                Ok(&s.roots)
            }
            Ok(_) => Ok(self.given),
            Err(()) => Err(Error::Watchdog { program: P::NAME, on: RanOn::HostBeforeGpu, limit: self.limit, stopped: false }),
        }
    }
}

/// Runs `run` with the run's roots, spread over the GPUs when `P` qualifies and `want` (tasks
/// over all the GPUs) is more than the roots: the host's levels run on a thread of their own
/// while `run` sets up, and `run` takes them with `Roots::dealt`, waiting up to `limit`, and
/// the host's judgement with `Roots::narrow` when `judge` (several GPUs) asked for one. The
/// result is then made the run's from the original roots: the host's counters and tasks
/// added, one value a root (programs that spread hand none back).
pub(crate) fn run_spread<P: Program>(
    roots: &[P::Task],
    params: &P::Params,
    config: &KernelConfig,
    want: usize,
    judge: bool,
    limit: Duration,
    run: impl FnOnce(&Roots<'_, P>) -> Result<RunResult<P>, Error>,
) -> Result<RunResult<P>, Error> {
    let buffers = no_buffers::<P>();
    let Some(buffers) = buffers.filter(|_| want > roots.len() && can_spread::<P>(config)) else {
        return run(&Roots::as_given(roots));
    };
    let (send, coming) = mpsc::channel();
    let (owned, params) = (roots.to_vec(), *params);
    // The stack of the CPU backend's threads (handlers may recurse deeply); address space only.
    let started = std::thread::Builder::new()
        .name("wsdsl-spread".into())
        .stack_size(64 << 20)
        .spawn(move || send.send(spread::<P>(&owned, &params, buffers, want, judge)));
    // No thread to spare: the roots as they are (`want` kept: it names the run in every process).
    let coming = Mutex::new(started.ok().map(|_| coming));
    let roots_of_run = Roots { given: roots, want, limit, coming, spread: OnceLock::new(), handed: AtomicBool::new(false) };
    let (mut counters, values, mut stats) = run(&roots_of_run)?;
    let handed = roots_of_run.handed.load(Ordering::Relaxed);
    let Some(Ok(Some(spread))) = roots_of_run.spread.into_inner().filter(|_| handed) else { return Ok((counters, values, stats)) };
    counters.merge(&spread.counters);
    stats.tasks += spread.stats.tasks;
    stats.spread = Some(spread.stats);
    Ok((counters, vec![P::Value::placeholder(); roots.len()], stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{CounterSlot, Reduce};
    use crate::stats::Stats;

    /// Chains from one root: the root spawns `width` tasks, each of which spawns one until
    /// `length`; every task spins `spin` for as long as its parameters say.
    #[derive(Debug, Clone, Copy)]
    struct Link {
        level: u32,
    }

    #[derive(Debug, Clone, Copy)]
    struct Shape {
        width: u32,
        length: u32,
        spin: Duration,
    }

    #[derive(Debug, Clone, Default)]
    struct Tally(u64);

    impl CounterSet for Tally {
        const SLOTS: &'static [CounterSlot] = &[CounterSlot { name: "links", reduce: Reduce::Sum, signed: false }];
        fn merge(&mut self, other: &Self) {
            self.0 += other.0;
        }
        fn from_slots(slots: &[u64]) -> Self {
            Tally(slots[0])
        }
    }

    struct Chains;

    impl Program for Chains {
        const NAME: &'static str = "chains";
        const CUDA_TYPES: &'static str = "";
        const CUDA_HANDLERS: &'static str = "";
        const FAULT_SITES: &'static [&'static str] = &[];
        const TASK_NAMES: &'static [&'static str] = &["Link"];
        const TASK_BYTES: usize = 8;
        const PARAMS_BYTES: usize = 8;
        type Params = Shape;
        type Task = Link;
        type Counters = Tally;
        type Buffers = ();
        type Value = ();
        fn encode_task(task: &Link, out: &mut [u8]) {
            out[4..8].copy_from_slice(&task.level.to_le_bytes());
        }
        fn encode_params(shape: &Shape, out: &mut [u8]) {
            out[..4].copy_from_slice(&shape.width.to_le_bytes());
            out[4..8].copy_from_slice(&shape.length.to_le_bytes());
        }
        fn execute(link: &Link, shape: &Shape, _: &(), tally: &mut Tally, spawned: &mut Spawned<Link>) {
            let until = Instant::now() + shape.spin;
            while Instant::now() < until {}
            tally.0 += 1;
            let children = match link.level {
                0 => shape.width,
                l if l < shape.length => 1,
                _ => 0,
            };
            for _ in 0..children {
                spawned.push(Link { level: link.level + 1 });
            }
        }
    }

    const QUICK: Shape = Shape { width: 300, length: 50, spin: Duration::ZERO };

    #[test]
    fn chains_wide_enough_are_judged_narrow_and_only_on_several_gpus() {
        let s = spread::<Chains>(&[Link { level: 0 }], &QUICK, &(), 4_096, true);
        assert!(s.narrow);
        // The root's level was kept (it widened); the chains' levels were not.
        assert_eq!((s.stats.levels, s.stats.dealt, s.counters.0), (1, 300, 1));
        assert!(!spread::<Chains>(&[Link { level: 0 }], &QUICK, &(), 2_048, false).narrow, "one GPU: nothing to judge");
        // Fewer than `NARROW_MIN_WIDTH` chains say nothing of the tree.
        let thin = Shape { width: 100, ..QUICK };
        assert!(!spread::<Chains>(&[Link { level: 0 }], &thin, &(), 4_096, true).narrow);
    }

    #[test]
    fn a_slow_look_is_no_judgement_and_ends_on_time() {
        // 300 tasks of 1 ms a level: the first level past the chains' start runs out of time.
        let slow = Shape { spin: Duration::from_millis(1), ..QUICK };
        let started = Instant::now();
        let s = spread::<Chains>(&[Link { level: 0 }], &slow, &(), 4_096, true);
        assert!(!s.narrow);
        // The root (1 ms), its 300 children (300 ms, kept whole: no clock there), and then the
        // look's 20 ms and one task more, where four levels unbounded would take 1.2 s more.
        assert!(started.elapsed() < Duration::from_millis(1_000), "{:?}", started.elapsed());
    }

    #[test]
    fn levels_forgotten_are_not_the_runs() {
        let config = KernelConfig::default();
        let run = |forget: bool| {
            run_spread::<Chains>(&[Link { level: 0 }], &QUICK, &config, 4_096, true, Duration::from_secs(60), |roots| {
                let dealt = roots.dealt()?;
                assert_eq!(dealt.len(), 300);
                assert!(roots.narrow() && roots.fingerprint() != 0);
                if forget {
                    assert_eq!(roots.forget_levels().len(), 1);
                    assert_eq!(roots.fingerprint(), 0);
                }
                Ok((Tally(0), Vec::new(), Stats::default()))
            })
            .unwrap()
        };
        let (kept, _, stats) = run(false);
        assert_eq!((kept.0, stats.tasks, stats.spread.map(|s| s.dealt)), (1, 1, Some(300)), "the host's root is the run's");
        let (forgot, _, stats) = run(true);
        assert_eq!((forgot.0, stats.tasks, stats.spread), (0, 0, None), "forgotten levels are not folded");
    }
}
