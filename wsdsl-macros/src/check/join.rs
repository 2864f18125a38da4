//! The rules that make values flow up the task tree, checked once the bodies are typed:
//! every value a task produces has a receiver of the same type, and every complete handler
//! has children to wait for.
//!
//! - Each task type declares its own value type (`#[task(value = T)]`, any value type); with
//!   several, a frame's value array holds a union of them (`lower/values.rs`) and the roots'
//!   values come back as the generated enum `Value`.
//! - A spawn handler returns its task's value type, or nothing when the task declares none.
//! - A complete handler returns its task's value type (or nothing), and exists only for a task
//!   whose spawn handler spawns.
//! - A complete handler may spawn too (a continuation): its children are waited for like the
//!   spawn handler's, and it runs again when they are done (`ctx.round()` tells the runs
//!   apart). A data-parallel job (`ctx.merge(..)`, `jobs.rs`) is waited for like a
//!   child that hands no value.
//! - A complete handler taking `children: &[C]` receives the values of everything its task
//!   spawns, from its spawn handler or from itself: each spawned type must produce `C`. It
//!   declares `max_children`, the size of the frame's value array (per round).
//! - A task that produces a value is spawned only by a task whose complete handler takes
//!   the values; anywhere else the value would be lost.

use crate::ir::FnBody;
use crate::parse::model::{FnDef, FnKind, Module};
use crate::types::{rust_name, Ty};

pub fn check(m: &Module, bodies: &[FnBody], errors: &mut Vec<syn::Error>) {
    if m.ordered {
        refuse_in_ordered(m, bodies, errors);
    }
    let mut err = |e: syn::Error| errors.push(e);
    let value_of = |task: &str| m.struct_def(task).and_then(|t| t.value.as_ref().map(|(ty, _)| ty.clone()));
    let show = |t: &Option<Ty>| t.as_ref().map_or("nothing".to_string(), |t| format!("`{}`", rust_name(t)));

    // Several value types: the roots' values come back as the generated `Value` enum.
    if m.value_types().len() > 1 && m.is_named_type("Value") {
        if let Some(t) = m.tasks().find_map(|t| t.value.as_ref()) {
            err(syn::Error::new(t.1, "the tasks of this module hand values of several types, so #[megakernel] generates an enum `Value` (one variant per task type): rename this module's own `Value`"));
        }
    }

    for (f, body) in m.fns.iter().zip(bodies) {
        let (task, is_complete) = match &f.kind {
            FnKind::Handler { task } => (task, false),
            FnKind::Complete { task, .. } => (task, true),
            FnKind::Helper | FnKind::Const => continue,
        };
        let declared = value_of(task);
        let returned = if f.ret.is_value() { Some(f.ret.clone()) } else { None };
        if returned != declared && f.ret != Ty::Err {
            let span = match &f.item.sig.output {
                syn::ReturnType::Type(_, t) => syn::spanned::Spanned::span(&**t),
                syn::ReturnType::Default => f.name.span(),
            };
            let which = if is_complete { "complete" } else { "spawn" };
            let msg = match (&declared, &returned) {
                (None, Some(r)) => format!(
                    "task `{task}` declares no value, so its {which} handler returns nothing; to hand `{}` to the parent, declare `#[task(value = {})]`",
                    rust_name(r), rust_name(r)
                ),
                (Some(d), None) => format!(
                    "task `{task}` declares `#[task(value = {})]`: its {which} handler must return `{}` (add `-> {}`)",
                    rust_name(d), rust_name(d), rust_name(d)
                ),
                _ => format!(
                    "mismatched value type: task `{task}` declares {}, but its {which} handler returns {}",
                    show(&declared), show(&returned)
                ),
            };
            err(syn::Error::new(span, msg));
        }
        // What the task's complete handler receives from each child, if it takes values.
        let complete = m.complete_handler(task);
        let receives = complete.and_then(|c| {
            let body = &bodies[m.fns.iter().position(|g| std::ptr::eq(g, c)).expect("handler of the module")];
            let &children = body.params.get(1)?;
            match &body.locals[children].ty {
                Ty::Slice(elem, _) => Some((c, (**elem).clone())),
                _ => None,
            }
        });
        let mut mismatch_shown = false;
        for (child, span) in &body.spawns {
            let produced = value_of(child);
            match (&receives, &produced) {
                (None, Some(v)) => err(syn::Error::new(*span, format!(
                    "`{child}` hands its parent a `{}`, but `{task}` has no complete handler taking the children's values, so it would be lost; \
                     add `#[complete(max_children = N)] fn name(t: &{task}, children: &[{}], ctx: &mut Ctx)`",
                    rust_name(v), rust_name(v)
                ))),
                (Some((c, elem)), _) if produced.as_ref() != Some(elem) => {
                    // The parameter is what is wrong (the child's type is declared on the
                    // child): the error is at its type, once, and each spawn gets a note.
                    let received = rust_name(&Ty::Slice(Box::new(elem.clone()), false));
                    if !mismatch_shown {
                        mismatch_shown = true;
                        let fix = match &produced {
                            Some(v) => format!("; take `&[{}]`", rust_name(v)),
                            None => String::new(),
                        };
                        err(children_type_error(c, format!(
                            "mismatched value type: `{}` receives `{received}` from each child, but the child `{child}` hands {}{fix}",
                            c.name, show(&produced)
                        )));
                    }
                    err(syn::Error::new(*span, format!("note: the child `{child}` is spawned here, and hands {} to `{}`", show(&produced), c.name)));
                }
                _ => {}
            }
        }
        if !is_complete {
            continue;
        }

        let Some(spawn) = m.spawn_handler(task) else { continue };
        let spawn_body = &bodies[m.fns.iter().position(|g| std::ptr::eq(g, spawn)).expect("handler of the module")];
        if spawn_body.spawns.is_empty() && spawn_body.jobs.is_empty() {
            err(syn::Error::new(f.name.span(), format!(
                "`{}` is a complete handler for `{task}`, whose spawn handler `{}` never spawns nor starts a job (`ctx.merge(..)`, ..): it would have nothing to wait for; remove it, or spawn from `{}`",
                f.name, spawn.name, spawn.name
            )));
        }
        if receives.is_some() {
            if let FnKind::Complete { max_children: None, .. } = f.kind {
                err(syn::Error::new(f.name.span(), format!(
                    "`{}` receives the children's values: declare how many children `{task}` spawns at most, e.g. `#[complete(max_children = 8)]` (the size of its frame's value array)",
                    f.name
                )));
            }
        }
    }
}

/// Ordered modules (`order = priority`) take no complete handlers or values yet: a task
/// waiting for children in later bands would hold its worker, or its frame would have to
/// remember its band for the continuation, which neither backend's bands do.
fn refuse_in_ordered(m: &Module, bodies: &[FnBody], errors: &mut Vec<syn::Error>) {
    for span in bodies.iter().flat_map(|b| &b.jobs) {
        errors.push(syn::Error::new(
            *span,
            "order = priority does not support data-parallel jobs yet (the CPU backend's bands and cuda/schedulers/bands.cuh run no job records); \
             loop over the range in the handler or split it into tasks, or drop `order = priority`",
        ));
    }
    const WHY: &str = "order = priority does not support complete handlers or task values yet \
                       (a task's children may run bands later, so its continuation would have to keep its band); \
                       write the result into a buffer or counter instead, or drop `order = priority`";
    for f in m.fns.iter().filter(|f| matches!(f.kind, FnKind::Complete { .. })) {
        errors.push(syn::Error::new(f.name.span(), WHY));
    }
    for (_, span) in m.tasks().filter_map(|t| t.value.as_ref()) {
        errors.push(syn::Error::new(*span, WHY));
    }
}

/// An error at the whole type of a complete handler's children parameter (`&[V]`), or at
/// its name where it has none.
fn children_type_error(c: &FnDef, msg: String) -> syn::Error {
    match c.item.sig.inputs.iter().nth(1) {
        Some(syn::FnArg::Typed(p)) => syn::Error::new_spanned(&p.ty, msg),
        _ => syn::Error::new(c.name.span(), msg),
    }
}
