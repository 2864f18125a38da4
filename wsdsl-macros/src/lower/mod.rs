//! C emission. `expr.rs` lowers expressions to (hoisted statements, C expression), `stmt.rs`
//! statements and control flow, `items.rs` the program-level fragments.
//!
//! C naming: user structs `u_Name` with fields `u_field`; arrays `ws_arr_<elem>_<N>` with the
//! elements in `v`; tuples `ws_tupN_<elems>` with fields `f0..`; `Option<int>` `ws_opt_<int>`
//! (`some`, `v`); enums `u_Name` (a `ws_u32` typedef); helpers and consts `f_name`, methods,
//! associated functions and consts `m_<len><Type>_name` (`fn_name`); `&T`/`&mut T`
//! `const T*`/`T*`; handlers `h_name`; locals `l_<name>_<n>` (n unique per
//! function, so Rust shadowing needs no C scoping); temporaries `t_<n>`; C labels `wsb_<loop>`/`wsc_<loop>` for labelled
//! `break`/`continue` (`goto`). Every name of the module is spelled for C by `crate::names`
//! (`r#` dropped, anything not plain C escaped), after its prefix.

mod expr;
mod items;
mod jobs;
mod refs;
mod shallow;
mod stmt;
mod values;

pub use items::{lower, Cuda};
#[cfg(test)]
pub use shallow::paren_depth;
#[cfg(test)]
pub use expr::{float_lit as float_lit_for_tests, int_lit as int_lit_for_tests};

use crate::check::infer::Infer;
use crate::ir::FnBody;
use crate::parse::model::Module;
use crate::names::{c_ident, c_len_ident, unraw};
use crate::types::{c_name, Ty};

pub struct FnLower<'a> {
    pub m: &'a Module,
    pub infer: &'a Infer,
    pub body: &'a FnBody,
    pub tmp: usize,
    /// Array and tuple types met, so `items.rs` can emit their wrapper structs.
    pub arrays: &'a mut Vec<Ty>,
    /// Enclosing loops, innermost last: (id, destination of `break value`).
    pub loops: Vec<(crate::ir::LoopId, Option<String>)>,
    /// The functions that may panic (`Checked::may_panic`): a call of one passes the panic
    /// flag, and its caller leaves when the flag is set.
    pub may_panic: &'a [String],
    /// How this function returns after a panic: `return;` or `return T();` (a value the
    /// caller, which leaves as well, never uses).
    pub leave: String,
    /// Whether this is a helper that may panic: it sets its caller's flag, `*ws_panicking`.
    pub flags_caller: bool,
    /// Whether `debug_assert!` and its family are lowered (the kernel of a debug build).
    pub debug: bool,
    /// The recursive functions, which take their depth (`check/recursion.rs`).
    pub recursion: &'a crate::check::recursion::Recursion,
}

impl FnLower<'_> {
    pub fn ty(&self, t: &Ty) -> Ty {
        self.infer.resolve(t)
    }

    pub fn cty(&mut self, t: &Ty) -> String {
        let t = self.ty(t);
        record_arrays(&t, self.arrays);
        c_name(&t)
    }

    /// The statements that end this function after it panicked.
    pub fn panic_exit(&self) -> String {
        if self.flags_caller {
            format!("*ws_panicking = true; {}", self.leave)
        } else {
            self.leave.clone()
        }
    }

    /// The panic flag a call of a helper that may panic passes: the caller's own, or the
    /// local `ws_panicked` of a handler.
    pub fn flag_arg(&self) -> &'static str {
        if self.flags_caller {
            "ws_panicking"
        } else {
            "&ws_panicked"
        }
    }

    /// Whether the callee panicked, after such a call.
    pub fn flag_test(&self) -> &'static str {
        if self.flags_caller {
            "*ws_panicking"
        } else {
            "ws_panicked"
        }
    }

    /// The depth argument of a call of `callee`, if it recurses: one more than this
    /// function's own within its cycle, else 0.
    pub fn depth_arg(&self, callee: &str) -> Option<&'static str> {
        let cycle = self.recursion.member(callee)?.cycle;
        let own = self.recursion.member(&self.body.name).map(|m| m.cycle);
        Some(if own == Some(cycle) { "ws_depth + 1u" } else { "0u" })
    }

    pub fn fresh(&mut self) -> String {
        self.tmp += 1;
        format!("t_{}", self.tmp)
    }

    pub fn local(&self, id: usize) -> String {
        local_name(&self.body.locals[id].name, id)
    }
}

/// The C name of the function with key `key` (`FnDef::key`): `f_name` for a helper or
/// const, `m_<len><Type>_name` for an item of `impl Type` (the length keeps `A_b::c` and
/// `A::b_c` apart without the double underscore C++ reserves).
pub fn fn_name(key: &str) -> String {
    match key.split_once("::") {
        Some((t, name)) => format!("m_{}_{}", c_len_ident(t), c_ident(name)),
        None => format!("f_{}", c_ident(key)),
    }
}

pub fn local_name(name: &str, id: usize) -> String {
    // `_` would give C identifiers with a double underscore, which C++ reserves.
    let name = if unraw(name) == "_" { "anon".to_string() } else { c_ident(name) };
    format!("l_{name}_{id}")
}

/// Records the array, tuple and slice types inside `t`, elements first (C needs them declared
/// in that order). `Option<int>` wrappers live in `core/rust_semantics.cuh`.
pub fn record_arrays(t: &Ty, arrays: &mut Vec<Ty>) {
    match t {
        Ty::Array(e, _) => record_arrays(e, arrays),
        Ty::Tuple(ts) => ts.iter().for_each(|e| record_arrays(e, arrays)),
        // `Option<int>` is in `core/rust_semantics.cuh`; others (iterator consumers' results, e.g.
        // `Option<(usize, u32)>`) get a wrapper struct of the same shape.
        Ty::Option(e) if matches!(**e, Ty::Int(_)) => return,
        Ty::Option(e) => record_arrays(e, arrays),
        Ty::Slice(e, _) => record_arrays(e, arrays),
        Ty::Buffer(..) => {}
        Ty::Result(v, e) => {
            record_arrays(v, arrays);
            record_arrays(e, arrays);
        }
        // A pointer needs its target's type, and no wrapper of its own.
        Ty::Ref(e, _) => return record_arrays(e, arrays),
        _ => return,
    }
    if !arrays.contains(t) {
        arrays.push(t.clone());
    }
}

/// The deepest indentation, in spaces (16 levels): deeper blocks are written at this one, so
/// that C nested as deep as Rust allows stays linear in size (1,000 nested blocks indented
/// in full would be 8 MB).
const MAX_INDENT: usize = 16 * 4;

pub fn indent(lines: Vec<String>) -> Vec<String> {
    let deepest = |l: &str| l.bytes().take_while(|&b| b == b' ').count() >= MAX_INDENT;
    lines
        .into_iter()
        .map(|l| if l.starts_with("#line") || deepest(&l) { l } else { format!("    {l}") })
        .collect()
}
