//! Functions' signatures: a spawn handler's `(task: &T, ctx: &mut Ctx)`, a complete
//! handler's `(task: &T, children: &[V], ctx: &mut Ctx)` with its `max_children`, and a
//! helper's or method's parameters (values, references, the context or its parts); generic
//! helpers keep their tokens, to be checked per instantiation (`check/generics.rs`).

use super::context::{context_param, ContextNames};
use super::impls;
use super::{FnDef, FnKind, Param, StructDef, StructKind};
use crate::types::{parse_param_type, parse_type_in, Ty};
use proc_macro2::Ident;
use syn::spanned::Spanned;

/// What a marker makes of a function.
pub(crate) enum FnRole {
    Helper,
    Spawn,
    /// `#[complete]`, with its arguments (`max_children = N`) if any.
    Complete(Option<syn::MetaList>),
}

/// `max_children = N` of `#[complete(max_children = N)]`.
fn parse_max_children(args: &syn::MetaList, errors: &mut Vec<syn::Error>) -> Option<u32> {
    let usage = "`#[complete]` takes `max_children = N`: the most children a task spawns, which bounds the values its complete handler receives";
    let parsed = args.parse_args_with(|input: syn::parse::ParseStream| {
        let key: Ident = input.parse()?;
        input.parse::<syn::Token![=]>()?;
        let n: syn::LitInt = input.parse()?;
        Ok((key, n))
    });
    match parsed {
        Ok((key, n)) if key == "max_children" => match n.base10_parse::<u32>() {
            Ok(v) if (1..=1024).contains(&v) => Some(v),
            _ => {
                errors.push(syn::Error::new(n.span(), "`max_children` must be between 1 and 1024"));
                None
            }
        },
        Ok((key, _)) => {
            errors.push(syn::Error::new(key.span(), usage));
            None
        }
        Err(_) => {
            errors.push(syn::Error::new_spanned(args, usage));
            None
        }
    }
}

/// The `&TaskType` first parameter of a handler: the task's name.
fn handler_task(t0: &syn::Type, structs: &[StructDef], usage: &str, errors: &mut Vec<syn::Error>) -> Option<String> {
    if let syn::Type::Reference(r) = t0 {
        if r.mutability.is_none() {
            if let syn::Type::Path(p) = &*r.elem {
                if let Some(id) = p.path.get_ident() {
                    let n = id.to_string();
                    if structs.iter().any(|s| s.kind == StructKind::Task && s.name == n) {
                        return Some(n);
                    }
                    errors.push(syn::Error::new(
                        r.elem.span(),
                        format!("`{n}` is not a `#[task]` struct; a handler's first parameter is `&TaskType`"),
                    ));
                    return None;
                }
            }
        }
    }
    errors.push(syn::Error::new(t0.span(), usage));
    None
}

fn is_ctx_param(t: &syn::Type) -> bool {
    match t {
        syn::Type::Reference(r) if r.mutability.is_some() => match &*r.elem {
            syn::Type::Path(p) => p.path.segments.len() == 1 && p.path.segments[0].ident == "Ctx",
            _ => false,
        },
        _ => false,
    }
}

/// `&[T]` with `T` a scalar: the children's values of a complete handler.
fn slice_param(t: &syn::Type, structs: &[String], names: &[(String, Option<u64>)]) -> Option<Ty> {
    let syn::Type::Reference(r) = t else { return None };
    if r.mutability.is_some() {
        return None;
    }
    let syn::Type::Slice(sl) = &*r.elem else { return None };
    match parse_type_in(&sl.elem, structs, names) {
        Ok(e) if e.is_value() => Some(Ty::Slice(Box::new(e), false)),
        _ => None,
    }
}

pub(crate) fn parse_fn(
    role: FnRole,
    f: syn::ItemFn,
    owner: Option<&Ident>,
    value_structs: &[String],
    names: &[(String, Option<u64>)],
    structs: &[StructDef],
    errors: &mut Vec<syn::Error>,
) -> Option<FnDef> {
    let parse_type = |t: &syn::Type, s: &[String]| parse_type_in(t, s, names);
    let sig = &f.sig;
    let n0 = errors.len();
    let generics: Vec<Ident> = sig.generics.type_params().map(|t| t.ident.clone()).collect();
    let only_types = sig.generics.params.iter().all(|p| matches!(p, syn::GenericParam::Type(_)));
    if !only_types || (!generics.is_empty() && !matches!(role, FnRole::Helper)) {
        errors.push(syn::Error::new(
            sig.generics.span(),
            "only helper functions may be generic, over type parameters (`fn f<T: Copy>(x: T) -> T`, `fn g<F: Fn(u32) -> u32>(f: F)`); lifetimes and const generics are not supported",
        ));
        return None;
    }
    if !generics.is_empty() && owner.is_some() {
        errors.push(syn::Error::new(
            sig.generics.span(),
            "generic methods are not supported yet; write a generic helper function (`fn f<T: Copy>(x: T) -> T`) and call it from the method",
        ));
        return None;
    }
    if !generics.is_empty() {
        let name = sig.ident.clone();
        return (errors.len() == n0).then(|| FnDef { kind: FnKind::Helper, name, owner: None, params: Vec::new(), ctx: None, ret: Ty::Unit, item: f, konst: None, generics, shared: None });
    }
    if let Some(t) = &sig.asyncness {
        errors.push(syn::Error::new(t.span(), "`async` functions are not supported in megakernel code"));
    }
    if let Some(t) = &sig.unsafety {
        errors.push(syn::Error::new(t.span(), "`unsafe` is not supported in megakernel code"));
    }
    if let Some(t) = &sig.constness {
        errors.push(syn::Error::new(t.span(), "`const fn` is not supported yet; write a plain `fn`"));
    }
    if let Some(v) = &sig.variadic {
        errors.push(syn::Error::new(v.span(), "variadic functions are not supported"));
    }
    let ret = match &sig.output {
        syn::ReturnType::Default => Ty::Unit,
        syn::ReturnType::Type(_, t) => match parse_type(t, value_structs) {
            Ok(t) => t,
            Err(e) => {
                errors.push(e);
                Ty::Err
            }
        },
    };
    let mut params = Vec::new();
    let mut ctx = None;
    let kind;
    let inputs: Vec<&syn::FnArg> = sig.inputs.iter().collect();
    match role {
        FnRole::Spawn => {
            let usage = "a spawn handler's signature must be `fn name(task: &TaskType, ctx: &mut Ctx)`, with `-> T` when the task declares `#[task(value = T)]`";
            if inputs.len() != 2 {
                errors.push(syn::Error::new(sig.span(), usage));
                return None;
            }
            let (p0, t0) = typed_arg(inputs[0], errors)?;
            let (p1, t1) = typed_arg(inputs[1], errors)?;
            let task = handler_task(t0, structs, usage, errors)?;
            if !is_ctx_param(t1) {
                errors.push(syn::Error::new(t1.span(), usage));
                return None;
            }
            params.push(Param { name: p0, ty: Ty::Struct(task.clone()) });
            ctx = Some(p1);
            kind = FnKind::Handler { task };
        }
        FnRole::Complete(args) => {
            let usage = "a complete handler's signature must be `fn name(task: &TaskType, children: &[V], ctx: &mut Ctx) -> T` \
                         (`children` holds the values the children returned, in spawn order; leave it out when they return none)";
            if !(2..=3).contains(&inputs.len()) {
                errors.push(syn::Error::new(sig.span(), usage));
                return None;
            }
            let (p0, t0) = typed_arg(inputs[0], errors)?;
            let task = handler_task(t0, structs, usage, errors)?;
            params.push(Param { name: p0, ty: Ty::Struct(task.clone()) });
            if inputs.len() == 3 {
                let (p1, t1) = typed_arg(inputs[1], errors)?;
                let Some(slice) = slice_param(t1, value_structs, names) else {
                    errors.push(syn::Error::new(
                        t1.span(),
                        "the children's values are received as a slice of the children's value type, e.g. `children: &[i32]`",
                    ));
                    return None;
                };
                params.push(Param { name: p1, ty: slice });
            }
            let (pc, tc) = typed_arg(inputs[inputs.len() - 1], errors)?;
            if !is_ctx_param(tc) {
                errors.push(syn::Error::new(tc.span(), usage));
                return None;
            }
            ctx = Some(pc);
            let max_children = args.and_then(|a| parse_max_children(&a, errors));
            kind = FnKind::Complete { task, max_children };
        }
        FnRole::Helper => {
            let context = ContextNames::of(structs);
            for arg in &sig.inputs {
                if let (syn::FnArg::Receiver(r), Some(owner)) = (arg, owner) {
                    match impls::receiver_type(r, owner, value_structs, names) {
                        Ok(t) => params.push(Param { name: Ident::from(r.self_token), ty: t }),
                        Err(e) => errors.push(e),
                    }
                    continue;
                }
                let Some((name, ty)) = typed_arg(arg, errors) else { continue };
                let parsed = context_param(ty, &context).unwrap_or_else(|| parse_param_type(ty, value_structs, names));
                match parsed {
                    Ok(Ty::Ctx) if params.iter().any(|p| p.ty == Ty::Ctx) => {
                        errors.push(syn::Error::new_spanned(ty, "a function takes the context once: `ctx: &mut Ctx` reaches the params, buffers and counters"));
                    }
                    Ok(t) => params.push(Param { name, ty: t }),
                    Err(e) => errors.push(e),
                }
            }
            kind = FnKind::Helper;
        }
    }
    if errors.len() != n0 {
        return None;
    }
    let name = f.sig.ident.clone();
    Some(FnDef { kind, name, owner: owner.cloned(), params, ctx, ret, item: f, konst: None, generics: Vec::new(), shared: None })
}

fn typed_arg<'a>(arg: &'a syn::FnArg, errors: &mut Vec<syn::Error>) -> Option<(Ident, &'a syn::Type)> {
    match arg {
        syn::FnArg::Receiver(r) => {
            errors.push(syn::Error::new(r.span(), "`self` parameters belong to methods: put the function in an `impl Type { .. }` block of a struct or enum of this module"));
            None
        }
        syn::FnArg::Typed(pt) => match &*pt.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => Some((pi.ident.clone(), &pt.ty)),
            syn::Pat::Wild(_) => Some((Ident::new("_unused", pt.pat.span()), &pt.ty)),
            other => {
                errors.push(syn::Error::new(other.span(), "only simple parameter names are supported, e.g. `x: u32`"));
                None
            }
        },
    }
}
