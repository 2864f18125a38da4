//! Dealing a run's first levels over its GPUs. Roots are dealt round-robin (`roots_of`), so a
//! run that starts from one root starts on GPU 0 alone, and every other GPU then lives, for
//! the whole run, on what its thieves take from GPU 0 piece by piece. Profiled on UTS T1XL
//! (BENCHMARKS.md), GPU 1 made 3.4 times GPU 0's steals and ran 2.4% fewer tasks in the same
//! time: its share of the tree came in fragments.
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
//! next is expected to reach them), never on a clock.

use crate::cpu::panics;
use crate::error::{Error, RanOn};
use crate::program::{CounterSet, Program, RunResult};
use crate::schedule::{KernelConfig, Order, Scheduler};
use crate::spawned::Spawned;
use crate::stats::SpreadStats;
use crate::value::TaskValue;
use std::sync::{mpsc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Tasks one level may spawn on the host (a level that spawns more is not kept).
const LEVEL_TASKS: usize = 1 << 16;

/// What the host did: the tasks the GPUs start with, and what the handlers it ran counted.
struct Spread<P: Program> {
    roots: Vec<P::Task>,
    counters: P::Counters,
    stats: SpreadStats,
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

/// Runs levels of the tree from `roots` toward `want` tasks (module comment).
fn spread<P: Program>(roots: &[P::Task], params: &P::Params, buffers: &P::Buffers, want: usize) -> Spread<P> {
    let start = Instant::now();
    let mut level = roots.to_vec();
    let mut counters = P::Counters::default();
    let mut stats = SpreadStats::default();
    while !level.is_empty() && level.len() * 2 <= want {
        let Some((next, counted)) = run_level::<P>(&level, params, buffers) else { break };
        if next.len() <= level.len() {
            break; // not wider: the GPUs run this level themselves
        }
        counters.merge(&counted);
        stats.tasks += level.len() as u64;
        stats.levels += 1;
        level = next;
    }
    stats.dealt = level.len() as u64;
    stats.time = start.elapsed();
    Spread { roots: level, counters, stats }
}

/// One level's children and counters, or `None` where a handler panicked or recorded a job.
fn run_level<P: Program>(level: &[P::Task], params: &P::Params, buffers: &P::Buffers) -> Option<(Vec<P::Task>, P::Counters)> {
    let mut counters = P::Counters::default();
    let mut spawned = Spawned::with_limit(LEVEL_TASKS);
    let ran = panics::catch_as_handler(|| {
        for task in level {
            P::execute(task, params, buffers, &mut counters, &mut spawned);
            if spawned.has_jobs() {
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
}

impl<'a, P: Program> Roots<'a, P> {
    /// Roots dealt as they are.
    pub(crate) fn as_given(given: &'a [P::Task]) -> Self {
        Roots { given, want: 0, limit: Duration::ZERO, coming: Mutex::new(None), spread: OnceLock::new() }
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

    /// The tasks to deal, once the host has run its levels (waiting for them up to the run's
    /// watchdog limit: longer, a handler is looping on the host, `Error::Watchdog`).
    pub(crate) fn dealt(&self) -> Result<&[P::Task], Error> {
        let spread = self.spread.get_or_init(|| {
            let coming = self.coming.lock().unwrap_or_else(|e| e.into_inner()).take();
            match coming.map(|rx| rx.recv_timeout(self.limit)) {
                None => Ok(None),
                Some(Ok(s)) => Ok(Some(s).filter(|s| s.stats.levels > 0)),
                Some(Err(mpsc::RecvTimeoutError::Timeout)) => Err(()),
                // The thread ended without sending (it cannot: panics are caught): as given.
                Some(Err(mpsc::RecvTimeoutError::Disconnected)) => Ok(None),
            }
        });
        match spread {
            Ok(s) => Ok(s.as_ref().map_or(self.given, |s| &s.roots)),
            Err(()) => Err(Error::Watchdog { program: P::NAME, on: RanOn::HostBeforeGpu, limit: self.limit, stopped: false }),
        }
    }
}

/// Runs `run` with the run's roots, spread over the GPUs when `P` qualifies and `want` (tasks
/// over all the GPUs) is more than the roots: the host's levels run on a thread of their own
/// while `run` sets up, and `run` takes them with `Roots::dealt`, waiting up to `limit`. The
/// result is then made the run's from the original roots: the host's counters and tasks
/// added, one value a root (programs that spread hand none back).
pub(crate) fn run_spread<P: Program>(
    roots: &[P::Task],
    params: &P::Params,
    config: &KernelConfig,
    want: usize,
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
        .spawn(move || send.send(spread::<P>(&owned, &params, buffers, want)));
    // No thread to spare: the roots as they are (`want` kept: it names the run in every process).
    let coming = Mutex::new(started.ok().map(|_| coming));
    let roots_of_run = Roots { given: roots, want, limit, coming, spread: OnceLock::new() };
    let (mut counters, values, mut stats) = run(&roots_of_run)?;
    let Some(Ok(Some(spread))) = roots_of_run.spread.into_inner() else { return Ok((counters, values, stats)) };
    counters.merge(&spread.counters);
    stats.tasks += spread.stats.tasks;
    stats.spread = Some(spread.stats);
    Ok((counters, vec![P::Value::placeholder(); roots.len()], stats))
}
