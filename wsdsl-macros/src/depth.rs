//! Deep input: the stack the expansion runs on.
//!
//! rustc compiles nesting far deeper than a recursive pass over it fits in rustc's 8 MiB
//! thread (a sum of 5,000 terms is a tree 5,000 deep), and a stack overflow is a crash, not
//! an error. The macro runs on rustc's thread (the proc-macro bridge lives there), so instead
//! of a thread of its own it switches that thread to a large stack segment for the whole
//! expansion: syn's parsing, cloning, quoting and the dropping of the parsed trees, which no
//! code of ours can check, recurse as deep as the input nests. Our own recursive passes
//! (`check`, `lower`) also check the room left at every expression, pattern and branch and
//! move to a fresh segment when it runs short, so they have no depth limit of their own.
//!
//! The segments are address space: only the pages a deep expansion touches are memory.

/// The stack of the whole expansion. At rustc's 8 MiB, syn at `opt-level = 0` (the
/// default for macros) overflows near 700 nested blocks; this is room for many times the
/// nesting rustc itself accepts on its default stack.
const EXPANSION_STACK: usize = 256 << 20;

/// The room a recursive pass needs between two checks: the frames from one expression to its
/// sub-expression (the type checker's largest functions, unoptimised).
const RED_ZONE: usize = 1 << 20;

/// A further segment, when a pass runs short of room.
const SEGMENT: usize = 16 << 20;

/// Runs `f` (a whole expansion) on a stack of its own, on this thread.
pub fn on_large_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::grow(EXPANSION_STACK, f)
}

/// Runs `f` (one level of a recursive pass), first moving to a new segment if the stack has
/// less than `RED_ZONE` left.
pub fn with_room<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}
