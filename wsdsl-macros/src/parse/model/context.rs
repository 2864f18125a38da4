//! The context and its parts as types of helpers' and methods' parameters and of locals:
//! `ctx: &mut Ctx` (or `&Ctx`), `&Buffers` (the `#[buffers]` struct, `ctx.buffers`),
//! `&Buffer<T>` / `&ReadOnly<T>` (one of its buffers, `&ctx.buffers.data`), `&mut Counters`
//! (the `#[counters]` struct, `ctx.counters`) and `&mut Sum<T>` / `Max<T>` / `Min<T>` (one
//! counter). Each refers to the run's state, so like a reference it lives only in a
//! parameter or a local (`Ty::is_context`). C passes the context as `wsdsl_ctx* ctx`, the
//! buffer table and the counters as pointers, a buffer as its element pointer and length
//! (`ws_buf_<T>`), a counter as a pointer to it.

use super::Reduce;
use crate::types::{FloatTy, IntTy, Ty};
use syn::spanned::Spanned;

/// The names of the module's `#[buffers]` and `#[counters]` structs, which `&Name` parameters
/// may take.
#[derive(Clone, Default)]
pub struct ContextNames {
    pub buffers: Option<String>,
    pub counters: Option<String>,
}

impl ContextNames {
    pub fn of(structs: &[super::StructDef]) -> ContextNames {
        let named = |kind| structs.iter().find(|s| s.kind == kind).map(|s| s.name.to_string());
        ContextNames { buffers: named(super::StructKind::Buffers), counters: named(super::StructKind::Counters) }
    }
}

/// The type of a parameter or local annotation that names the context or one of its parts,
/// if `ty` is one.
pub fn context_param(ty: &syn::Type, names: &ContextNames) -> Option<syn::Result<Ty>> {
    let syn::Type::Reference(r) = ty else { return None };
    let mut elem = &*r.elem;
    while let syn::Type::Paren(p) = elem {
        elem = &p.elem;
    }
    let syn::Type::Path(p) = elem else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    let name = last.ident.to_string();
    let plain = p.path.segments.len() == 1 && last.arguments.is_none();
    Some(Ok(match name.as_str() {
        "Ctx" if plain => Ty::Ctx,
        "Buffer" | "ReadOnly" => match parse_buffer(elem) {
            Ok((e, read_only)) => Ty::Buffer(Box::new(e), read_only),
            Err(e) => return Some(Err(e)),
        },
        "Sum" | "Max" | "Min" => match parse_counter(elem) {
            Ok((reduce, int)) => Ty::Counter(reduce, int),
            Err(e) => return Some(Err(e)),
        },
        n if plain && names.buffers.as_deref() == Some(n) => Ty::Buffers(name),
        n if plain && names.counters.as_deref() == Some(n) => Ty::Counters(name),
        _ => return None,
    }))
}

/// `Buffer<T>` or `ReadOnly<T>` (then `true`) with `T` one of the element types the
/// runtime supports.
pub fn parse_buffer(ty: &syn::Type) -> syn::Result<(Ty, bool)> {
    let bad = || {
        syn::Error::new_spanned(
            ty,
            "`#[buffers]` fields must be `Buffer<T>` (read and written) or `ReadOnly<T>` (only read) with `T` one of u32, i32, u64, i64, f32, f64",
        )
    };
    let syn::Type::Path(p) = ty else { return Err(bad()) };
    let last = p.path.segments.last().ok_or_else(bad)?;
    let read_only = match last.ident.to_string().as_str() {
        "Buffer" => false,
        "ReadOnly" => true,
        _ => return Err(bad()),
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return Err(bad()) };
    let Some(syn::GenericArgument::Type(syn::Type::Path(inner))) = args.args.first().filter(|_| args.args.len() == 1) else {
        return Err(bad());
    };
    let elem = match inner.path.get_ident().map(|i| i.to_string()).as_deref() {
        Some("u32") => Ty::Int(IntTy::U32),
        Some("i32") => Ty::Int(IntTy::I32),
        Some("u64") => Ty::Int(IntTy::U64),
        Some("i64") => Ty::Int(IntTy::I64),
        Some("f32") => Ty::Float(FloatTy::F32),
        Some("f64") => Ty::Float(FloatTy::F64),
        _ => return Err(bad()),
    };
    Ok((elem, read_only))
}

/// `Sum<T>`, `Max<T>` or `Min<T>` with `T` an integer type.
pub fn parse_counter(ty: &syn::Type) -> syn::Result<(Reduce, IntTy)> {
    let bad = || {
        syn::Error::new(
            ty.span(),
            "counter fields must be `Sum<T>`, `Max<T>` or `Min<T>` with `T` an integer type, e.g. `Sum<u64>`",
        )
    };
    let syn::Type::Path(p) = ty else { return Err(bad()) };
    let last = p.path.segments.last().ok_or_else(bad)?;
    let reduce = match last.ident.to_string().as_str() {
        "Sum" => Reduce::Sum,
        "Max" => Reduce::Max,
        "Min" => Reduce::Min,
        _ => return Err(bad()),
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return Err(bad()) };
    if args.args.len() != 1 {
        return Err(bad());
    }
    let syn::GenericArgument::Type(syn::Type::Path(inner)) = &args.args[0] else { return Err(bad()) };
    let int = inner.path.get_ident().and_then(|i| IntTy::from_name(&i.to_string())).ok_or_else(bad)?;
    Ok((reduce, int))
}
