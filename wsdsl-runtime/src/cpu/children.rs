//! The children a task waits for on the CPU backend, taken from the list its handler spawned
//! into ([`Spawned`], the contract's).

use crate::contract::spawned::Spawned;
use std::mem::MaybeUninit;

/// The children a task waits for: up to `FEW` of them copied onto the waiting call's stack
/// (what fork-join programs spawn; the handler's list is then cleared, not handed over, which
/// saves taking and giving back a list per task), or a list taken whole.
pub(crate) enum Children<T> {
    Few([MaybeUninit<T>; FEW], usize),
    List(Spawned<T>),
}

/// Children kept on the stack (`Children::Few`) up to this many.
pub(crate) const FEW: usize = 2;

impl<T: Copy> Children<T> {
    /// Copies the tasks of `list` (at most `FEW`) and clears it.
    #[inline]
    pub fn few_from(list: &mut Spawned<T>) -> Children<T> {
        debug_assert!(list.len() <= FEW);
        let mut tasks = [const { MaybeUninit::uninit() }; FEW];
        let n = list.len();
        // A loop over `FEW` places, not `n` tasks: the compiler unrolls it into a few moves
        // where a loop over `n` would become a call to `memcpy`.
        for (i, slot) in tasks.iter_mut().enumerate() {
            if i < n {
                slot.write(list.tasks()[i]);
            }
        }
        list.clear();
        Children::Few(tasks, n)
    }

    #[inline]
    pub fn tasks(&self) -> &[T] {
        match self {
            // SAFETY: the first `n` were written by `few_from`.
            Children::Few(tasks, n) => unsafe { std::slice::from_raw_parts(tasks.as_ptr().cast::<T>(), *n) },
            Children::List(list) => list.tasks(),
        }
    }
}
