//! The module's structs: their fields by the struct's kind (value fields of a task, params or
//! plain struct; the buffers of `#[buffers]`, the counters of `#[counters]`) and the value a
//! task hands its parent (`#[task(value = T)]`).

use super::context::{parse_buffer, parse_counter};
use super::{BufferField, CounterField, Field, StructDef, StructKind};
use crate::types::{parse_type_in, Ty};
use proc_macro2::Ident;
use syn::spanned::Spanned;

/// A struct of the module, its fields parsed as its kind has them (values, buffers or
/// counters); None (reported) for one without named fields. Its size and alignment are set
/// once every type is known (`layout.rs`).
pub(super) fn parse_struct(
    kind: StructKind,
    s: syn::ItemStruct,
    value_arg: Option<syn::MetaList>,
    value_structs: &[String],
    names: &[(String, Option<u64>)],
    errors: &mut Vec<syn::Error>,
) -> Option<StructDef> {
    // Fields cross between host and device: types that exist only in code are refused.
    let parse_type = |t: &syn::Type| parse_type_in(t, value_structs, names).and_then(|ty| data_type(t, ty));
    let value = value_arg.and_then(|a| parse_value_arg(&a, value_structs, names, errors));
    if !s.generics.params.is_empty() {
        errors.push(syn::Error::new(s.generics.span(), "generic structs are not supported in megakernel code"));
    }
    let syn::Fields::Named(named) = &s.fields else {
        errors.push(syn::Error::new(
            s.ident.span(),
            "use a struct with named fields, e.g. `struct Name { a: u32 }`",
        ));
        return None;
    };
    if named.named.is_empty() {
        errors.push(syn::Error::new(
            s.ident.span(),
            "structs need at least one field (C and Rust disagree on the size of empty structs); add e.g. `_unused: u8`",
        ));
        return None;
    }
    let mut fields = Vec::new();
    let mut counters = Vec::new();
    let mut buffers = Vec::new();
    for f in &named.named {
        let name = f.ident.clone().expect("named field");
        if is_placeholder_field(f, errors) {
            continue;
        }
        if kind == StructKind::Buffers {
            match parse_buffer(&f.ty) {
                Ok((elem, read_only)) => buffers.push(BufferField { name, elem, read_only }),
                Err(e) => errors.push(e),
            }
        } else if kind == StructKind::Counters {
            match parse_counter(&f.ty) {
                Ok((reduce, int)) => counters.push(CounterField { name, reduce, int }),
                Err(e) => errors.push(e),
            }
        } else {
            match parse_type(&f.ty) {
                Ok(ty) => fields.push(Field { name, ty }),
                Err(e) => errors.push(e),
            }
        }
    }
    let name = s.ident.clone();
    Some(StructDef { kind, name, fields, counters, buffers, item: s, size: 0, align: 1, value })
}

/// `ty` (written `t`), unless it holds a type that exists only in handler code.
pub(super) fn data_type(t: &syn::Type, ty: Ty) -> syn::Result<Ty> {
    match ty.code_only() {
        Some(c) => Err(syn::Error::new_spanned(
            t,
            format!("`{}` exists only in handler code (locals, parameters, results); struct fields, task values and params cannot hold it", crate::types::rust_name(c)),
        )),
        None => Ok(ty),
    }
}

/// `value = T` of `#[task(value = T)]`: T must be a scalar (it travels in a frame slot).
fn parse_value_arg(args: &syn::MetaList, structs: &[String], names: &[(String, Option<u64>)], errors: &mut Vec<syn::Error>) -> Option<(Ty, proc_macro2::Span)> {
    let usage = "`#[task]` takes one argument, the type of the value the task hands its parent: `#[task(value = u64)]`";
    let parsed = args.parse_args_with(|input: syn::parse::ParseStream| {
        let key: Ident = input.parse()?;
        input.parse::<syn::Token![=]>()?;
        let ty: syn::Type = input.parse()?;
        Ok((key, ty))
    });
    let ty = match parsed {
        Ok((key, ty)) if key == "value" => ty,
        Ok((key, _)) => {
            errors.push(syn::Error::new(key.span(), usage));
            return None;
        }
        Err(_) => {
            errors.push(syn::Error::new_spanned(args, usage));
            return None;
        }
    };
    // Any value type: a scalar, an array, a tuple, an `Option`, a struct or enum of the module.
    match parse_type_in(&ty, structs, names).and_then(|t| data_type(&ty, t)) {
        Ok(t) if t.is_value() => Some((t, ty.span())),
        Ok(_) => {
            errors.push(syn::Error::new_spanned(&ty, "a task's value must be a value type (a number, `bool`, an array, a tuple, an `Option`, or a struct or enum of this module)"));
            None
        }
        Err(e) => {
            errors.push(e);
            None
        }
    }
}

/// A field named `_` (which syn accepts, for anonymous fields): refused with the reason, since
/// the generated code names every field (`self._` is not Rust, nor a C member).
pub(super) fn is_placeholder_field(f: &syn::Field, errors: &mut Vec<syn::Error>) -> bool {
    let placeholder = f.ident.as_ref().is_some_and(|n| n == "_");
    if placeholder {
        errors.push(syn::Error::new(f.ident.span(), "a field cannot be named `_` in megakernel code: give it a name, e.g. `_unused`"));
    }
    placeholder
}
