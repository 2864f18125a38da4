//! Parking, for good, the CPU threads whose handlers would not stop when the watchdog asked.
//!
//! A handler is native Rust: nothing can stop one that loops forever (Rust's semantics say it
//! never returns, and the GPU cannot stop one either). The run must still come back as an
//! error, and the handler holds references to the program's buffers, which the caller may
//! free once the run returns. So the watchdog sends each pool thread a signal, and a thread
//! that is inside a handler of that run (`Inside`) waits in the signal handler for ever: it
//! never touches anything again, and the run returns `Error::Watchdog`. Such a thread costs
//! its stack and, while the handler looped, its core; the runtime starts a new pool for later
//! runs.
//!
//! Why it is sound: a thread marks itself inside the run before it checks whether the run
//! was stopped, and runs a handler only if it was not (`tree.rs`). The watchdog stops the run
//! before it sends the signal, and a signal is delivered after what its sender did before: so
//! a thread that the signal found outside sees the stop afterwards and starts no handler,
//! and one found inside is parked. Handlers of the DSL allocate only through `ctx.spawn`,
//! which stops at the bound on tasks held (`limits.rs`) long before a watchdog would fire, so
//! a parked thread holds no allocator lock.
//!
//! The signal is a real-time one, its handler installed the first time a thread is parked.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

thread_local! {
    /// The run whose handler this thread runs now (0: none).
    static INSIDE: Cell<u64> = const { Cell::new(0) };
}

/// Marks the calling thread as running handlers of a run while it lives.
pub(crate) struct Inside(());

impl Inside {
    #[inline]
    pub fn run(run: u64) -> Inside {
        INSIDE.with(|r| r.set(run));
        Inside(())
    }
}

impl Drop for Inside {
    #[inline]
    fn drop(&mut self) {
        // Also when a handler's panic unwinds through: the thread is not inside any more.
        INSIDE.with(|r| r.set(0));
    }
}

/// A fresh run id (never 0).
pub(crate) fn new_run_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, SeqCst)
}

/// A thread as the system knows it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ThreadId(libc::pthread_t);

impl ThreadId {
    pub fn current() -> ThreadId {
        // SAFETY: always callable.
        ThreadId(unsafe { libc::pthread_self() })
    }
}

/// The run whose handlers are being parked now (0: none).
static PARKING: AtomicU64 = AtomicU64::new(0);
/// Threads that handled the signal of the current parking, and those of them parked.
static ANSWERED: AtomicUsize = AtomicUsize::new(0);
static PARKED: AtomicUsize = AtomicUsize::new(0);

/// Longest the watchdog waits for the signalled threads to answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(2);

/// Parks every thread of `threads` that runs a handler of `run` (which must have been
/// stopped already, see the module notes); how many were.
pub(crate) fn park(run: u64, threads: &[ThreadId]) -> usize {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    install_handler();
    ANSWERED.store(0, SeqCst);
    PARKED.store(0, SeqCst);
    PARKING.store(run, SeqCst);
    let mut signalled = 0;
    for t in threads {
        // SAFETY: a thread of a pool that lives (its `CpuPool` is not dropped while parked threads
        // may run); the signal's handler is installed.
        if unsafe { libc::pthread_kill(t.0, signal()) } == 0 {
            signalled += 1;
        }
    }
    let asked = Instant::now();
    while ANSWERED.load(SeqCst) < signalled && asked.elapsed() < ANSWER_WITHIN {
        std::thread::sleep(Duration::from_millis(1));
    }
    PARKING.store(0, SeqCst);
    PARKED.load(SeqCst)
}

fn signal() -> libc::c_int {
    #[cfg(target_os = "linux")]
    return libc::SIGRTMIN() + 5;
    #[cfg(not(target_os = "linux"))]
    return libc::SIGUSR2;
}

fn install_handler() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: a zeroed sigaction with an empty mask and a plain handler is valid.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal(), &action, std::ptr::null_mut());
        }
    });
}

/// Runs on the signalled thread: parks it if it is inside the run being parked.
extern "C" fn on_signal(_: libc::c_int) {
    let run = PARKING.load(SeqCst);
    let inside = INSIDE.with(Cell::get);
    if run != 0 && inside == run {
        PARKED.fetch_add(1, SeqCst);
        ANSWERED.fetch_add(1, SeqCst);
        loop {
            // SAFETY: async-signal-safe; other signals still reach the thread.
            unsafe { libc::pause() };
        }
    }
    ANSWERED.fetch_add(1, SeqCst);
}
