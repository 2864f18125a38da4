//! Where a handler panicked. A caught panic's payload holds only its message; the file and
//! line are known to the panic hook alone. So the CPU backend chains a hook in front of the
//! process's (once, at its first run): a panic on one of the backend's pool threads, which run
//! nothing but handlers and the backend's bookkeeping, is recorded as `file:line: message`,
//! the GPU's text for the same panic, and not printed, since it comes back as the run's
//! error; every other panic goes to the hook that was there before. (Some handlers' panics
//! are caught where they happen, others unwind to the run's end first: `tree.rs`.)
//!
//! A hook the program installs later replaces this one: panics then still come back as
//! errors, with the message alone. Built with `panic = "abort"`, nothing can be caught: the
//! previous hook prints the panic and the process aborts.

use crate::contract::spawned::Stop;
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// Whether this thread runs handlers: set for good on the CPU backend's pool threads
    /// (`mark_pool_thread`), which run nothing else.
    static IN_HANDLER: Cell<bool> = const { Cell::new(false) };
    /// What the hook saw of this thread's last panic in a handler.
    static CAUGHT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Chains the hook in front of the process's, once (before a run: not per handler).
pub(crate) fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if !cfg!(panic = "unwind") {
            return;
        }
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_HANDLER.with(Cell::get) {
                return previous(info);
            }
            let message = payload_text(info.payload());
            let text = match info.location() {
                Some(at) => format!("{}:{}: {message}", at.file(), at.line()),
                None => message.to_string(),
            };
            CAUGHT.with(|c| *c.borrow_mut() = Some(text));
        }));
    });
}

/// Makes the calling thread one whose panics are handlers' (called as each pool thread
/// starts, `workers.rs`).
pub(crate) fn mark_pool_thread() {
    IN_HANDLER.with(|h| h.set(true));
}

/// How a handler that did not return ended.
pub(crate) enum Caught {
    /// It panicked: `file:line: message` (the message alone if the hook is not ours).
    Panic(String),
    /// The backend stopped it (`limits.rs`).
    Stop(Stop),
}

/// Runs a handler; a panic comes back as `Err`.
pub(crate) fn catch<R>(f: impl FnOnce() -> R) -> Result<R, Caught> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| match payload.downcast_ref::<Stop>() {
        Some(stop) => Caught::Stop(*stop),
        None => Caught::Panic(caught().unwrap_or_else(|| payload_text(&*payload).to_string())),
    })
}

/// `catch` on a thread that is not a pool thread, its panics recorded as a pool thread's
/// (not printed): the host's run of a GPU run's first levels (`gpu/run/spread.rs`), which gives
/// up on a panic and leaves the tasks to the GPUs, whose fault report names it.
pub(crate) fn catch_as_handler<R>(f: impl FnOnce() -> R) -> Result<R, Caught> {
    install_hook();
    let was = IN_HANDLER.with(|h| h.replace(true));
    let result = catch(f);
    IN_HANDLER.with(|h| h.set(was));
    caught(); // a stop's record, which `catch` leaves (the pool's threads overwrite theirs)
    result
}

/// What the hook recorded of this thread's last panic (`file:line: message`), taken.
pub(crate) fn caught() -> Option<String> {
    CAUGHT.with(|c| c.borrow_mut().take())
}

/// A panic's message, as Rust's default hook prints it.
pub(crate) fn payload_text(payload: &(dyn Any + Send)) -> &str {
    match payload.downcast_ref::<&str>() {
        Some(s) => s,
        None => payload.downcast_ref::<String>().map_or("Box<dyn Any>", String::as_str),
    }
}
