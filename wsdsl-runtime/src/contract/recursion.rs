//! Bounded recursion of helpers (`wsdsl-macros/src/check/recursion.rs`): what a program
//! declares, and the CPU backend's depth guard.
//!
//! On the device a recursive helper takes its depth as a hidden argument; natively, the macro
//! runs the body of each recursive function through [`enter`], on a thread-local count per
//! cycle of functions, so both backends panic at the same call with the same message, and
//! [`enter`] moves a recursion that runs short of stack to a new segment.

use super::spawned::Stop;
use std::cell::Cell;
use std::thread::LocalKey;

/// The recursive helpers of a program (`Program::RECURSION`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recursion {
    /// How many calls of one cycle may be active at once (`recursion_limit`).
    pub limit: u32,
    /// How many cycles of functions call each other: a call chain may pass through each, so
    /// a thread's stack holds `limit` frames of each (`gpu/device/stack.rs`,
    /// `gpu/emulate/stack.rs`).
    pub cycles: u32,
    /// Every function of the cycles, by which the stacks are sized from the compiled code's
    /// frames and a refusal names the helper.
    pub functions: &'static [RecursiveFn],
}

/// A function of a cycle of recursive functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecursiveFn {
    /// Its Rust path (`depth`, `Walker::down`), as the depth check's panic names it.
    pub name: &'static str,
    /// Its name in the generated CUDA (`f_depth`, `m_6Walker_down`; a generic helper's
    /// instance its own), whose frame the compilers record.
    pub symbol: &'static str,
    /// Its cycle, from 0 to `cycles - 1`.
    pub cycle: u32,
}

impl Recursion {
    /// The functions of cycle `cycle`.
    pub fn cycle(&self, cycle: u32) -> impl Iterator<Item = &RecursiveFn> + '_ {
        self.functions.iter().filter(move |f| f.cycle == cycle)
    }
}

/// The room a recursive call wants left on its thread's stack before it runs its body: its
/// frame and the non-recursive calls it makes (unoptimised, a frame holds copies of its
/// arrays). Less than that and the body runs on a new segment.
const RED_ZONE: usize = 1 << 20;

/// A further stack segment for a recursion that runs short of room. Address space: only the
/// pages a recursion touches become memory.
const SEGMENT: usize = 16 << 20;

/// Runs `body`, the body of a recursive function, as one more active call of a cycle whose
/// count is `depth`; panics with `message` (the text of the device's fault site, from the
/// macro) at the caller's location (the recursive function's name) when `limit` are active
/// already. The count goes down when the body returns, also while a panic unwinds.
///
/// The body runs on the thread's stack while `RED_ZONE` is left of it, else on a segment of
/// its own (`stacker`): a recursion `limit` calls deep never overflows a thread's fixed
/// stack, which aborts the process. A segment that cannot be had stops the run with
/// `Error::OutOfMemory`.
///
/// Inlined into every recursive function, so that the thread-local is reached directly (one
/// load and one store per call) and the room left is two comparisons (`has_room`); the panic
/// and the move to a new segment are out of line.
#[track_caller]
#[inline]
pub fn enter<R>(depth: &'static LocalKey<Cell<u32>>, limit: u32, message: &'static str, body: impl FnOnce() -> R) -> R {
    // The check outside `with`'s closure, which would take the panic's location.
    let d = depth.with(Cell::get);
    if d >= limit {
        too_deep(message);
    }
    depth.with(|c| c.set(d + 1));
    let _active = DepthGuard(depth);
    if !has_room() {
        return on_a_new_segment(body);
    }
    body()
}

thread_local! {
    /// Stack addresses, lowest and highest, from which a call was measured to have
    /// `RED_ZONE` left below it (empty at first): within them nothing needs measuring again.
    /// Forgotten when the thread leaves a segment (`forget_room`), whose addresses another
    /// segment may take later.
    static ROOMY: Cell<(usize, usize)> = const { Cell::new((1, 0)) };
}

/// Whether a call made here has `RED_ZONE` left on its stack. Measuring it (`stacker`: a
/// call into its assembly and a look at its thread-local) cost a recursive helper of a game
/// tree a third of its time, so a call within the addresses last measured takes their
/// answer: the stack's end is where it was, and deeper calls are at lower addresses.
#[inline]
fn has_room() -> bool {
    let marker = 0u8;
    let here = std::ptr::addr_of!(marker) as usize;
    let (low, high) = ROOMY.with(Cell::get);
    if low <= here && here <= high {
        return true;
    }
    measure_room(here)
}

#[inline(never)]
fn measure_room(here: usize) -> bool {
    match stacker::remaining_stack() {
        // Where the room left is unknown, the thread's own stack.
        None => true,
        Some(room) if room >= RED_ZONE => {
            // `stacker` measured from below `here`: the end it implies is, if anything, too
            // high, which only shortens the span.
            let end = here.saturating_sub(room);
            ROOMY.with(|r| r.set((end + RED_ZONE, here)));
            true
        }
        Some(_) => false,
    }
}

/// Forgets the addresses measured to have room (`has_room`): called as a thread leaves a
/// stack segment, and as it enters one.
#[inline]
pub(crate) fn forget_room() {
    ROOMY.with(|r| r.set((1, 0)));
}

#[cold]
#[inline(never)]
#[track_caller]
fn too_deep(message: &'static str) -> ! {
    panic!("{message}")
}

/// Runs `body` on a stack segment of its own; a segment that cannot be mapped is the run's
/// `Error::OutOfMemory` (a `Stop`), not a panic of the handler.
#[cold]
#[inline(never)]
fn on_a_new_segment<R>(body: impl FnOnce() -> R) -> R {
    let entered = Cell::new(false);
    forget_room();
    let grown = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        stacker::grow(SEGMENT, || {
            entered.set(true);
            body()
        })
    }));
    forget_room();
    match grown {
        Ok(r) => r,
        Err(payload) if entered.get() => std::panic::resume_unwind(payload),
        Err(_) => {
            // `stacker`'s own panic, which the CPU backend's hook recorded as a handler's.
            let _ = crate::cpu::panics::caught();
            Stop::NoMemory { what: "a stack segment for a recursive helper", bytes: SEGMENT as u64 }.raise()
        }
    }
}

/// An active call of a recursive function, counted until it drops.
struct DepthGuard(&'static LocalKey<Cell<u32>>);

impl Drop for DepthGuard {
    #[inline]
    fn drop(&mut self) {
        self.0.with(|c| c.set(c.get() - 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static DEPTH: Cell<u32> = const { Cell::new(0) };
    }

    fn down(n: u32, limit: u32) -> u32 {
        enter(&DEPTH, limit, "too deep", || if n == 0 { DEPTH.with(Cell::get) } else { down(n - 1, limit) })
    }

    #[test]
    fn the_limit_is_the_number_of_active_calls() {
        assert_eq!(down(3, 4), 4, "four calls active at the bottom");
        assert_eq!(DEPTH.with(Cell::get), 0, "all counted off");
        let e = std::panic::catch_unwind(|| down(4, 4)).unwrap_err();
        assert_eq!(e.downcast_ref::<String>().unwrap(), "too deep");
        assert_eq!(DEPTH.with(Cell::get), 0, "counted off while unwinding");
    }

    #[test]
    fn a_recursion_deeper_than_the_thread_stack_moves_to_new_segments() {
        // A million calls of 256 bytes of frame each, on a thread of 1 MiB.
        fn sum(n: u32) -> u64 {
            enter(&DEPTH, u32::MAX, "too deep", || {
                let pad = std::hint::black_box([n as u8; 256]);
                if n == 0 { 0 } else { sum(n - 1) + pad[n as usize % 256] as u64 }
            })
        }
        let deep = std::thread::Builder::new().stack_size(1 << 20).spawn(|| sum(1_000_000)).unwrap().join().unwrap();
        assert_eq!(deep, (1..=1_000_000u64).map(|n| n % 256).sum::<u64>());
    }
}
