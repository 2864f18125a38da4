//! Bounded recursion of helpers (`wsdsl-macros/src/check/recursion.rs`): what a program
//! declares, and the CPU backend's depth guard.
//!
//! On the device a recursive helper takes its depth as a hidden argument; natively, the macro
//! starts each recursive function with [`enter`] on a thread-local count per cycle of
//! functions, so both backends panic at the same call with the same message.

use std::cell::Cell;
use std::thread::LocalKey;

/// The recursive helpers of a program (`Program::RECURSION`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recursion {
    /// How many calls of one cycle may be active at once (`recursion_limit`).
    pub limit: u32,
    /// How many cycles of functions call each other: a call chain may pass through each, so
    /// the GPU's stack holds `limit` frames of each (`gpu/device/stack.rs`).
    pub cycles: u32,
}

/// Counts one more active call of a cycle whose count is `depth`, or panics with `message`
/// (the text of the device's fault site, from the macro) at the caller's location (the
/// recursive function's name) when `limit` are active already. The count goes down when the
/// guard drops, also while a panic unwinds.
///
/// Inlined into every recursive function, so that the thread-local is reached directly (one
/// load and one store per call); the panic is out of line.
#[track_caller]
#[inline]
pub fn enter(depth: &'static LocalKey<Cell<u32>>, limit: u32, message: &'static str) -> DepthGuard {
    // The check outside `with`'s closure, which would take the panic's location.
    let d = depth.with(Cell::get);
    if d >= limit {
        too_deep(message);
    }
    depth.with(|c| c.set(d + 1));
    DepthGuard(depth)
}

#[cold]
#[inline(never)]
#[track_caller]
fn too_deep(message: &'static str) -> ! {
    panic!("{message}")
}

/// An active call of a recursive function, counted until it drops.
pub struct DepthGuard(&'static LocalKey<Cell<u32>>);

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
        let _g = enter(&DEPTH, limit, "too deep");
        if n == 0 { DEPTH.with(Cell::get) } else { down(n - 1, limit) }
    }

    #[test]
    fn the_limit_is_the_number_of_active_calls() {
        assert_eq!(down(3, 4), 4, "four calls active at the bottom");
        assert_eq!(DEPTH.with(Cell::get), 0, "all counted off");
        let e = std::panic::catch_unwind(|| down(4, 4)).unwrap_err();
        assert_eq!(e.downcast_ref::<String>().unwrap(), "too deep");
        assert_eq!(DEPTH.with(Cell::get), 0, "counted off while unwinding");
    }
}
