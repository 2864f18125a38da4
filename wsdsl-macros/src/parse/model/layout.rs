//! The C layouts of the module's structs and enums with data: each type's (size, align)
//! computed after the types its fields name, as C lays them out (`types.rs`); a type that
//! contains itself has no size and is refused.

use super::{enums, EnumDef, StructDef, StructKind};
use crate::types::{struct_layout, Ty};
use std::collections::BTreeMap;

/// The C (size, align) of every struct and enum with data, by name, each struct's also set in
/// its `StructDef`.
pub(super) fn layouts(structs: &mut [StructDef], enums: &[EnumDef], errors: &mut Vec<syn::Error>) -> BTreeMap<String, (u64, u64)> {
    let mut layouts = BTreeMap::new();
    let order = structs
        .iter()
        .filter(|s| !matches!(s.kind, StructKind::Counters | StructKind::Buffers))
        .map(|s| s.name.to_string())
        .chain(enums.iter().map(|e| e.name.to_string()));
    for n in order {
        let mut stack = Vec::new();
        compute_layout(&n, structs, enums, &mut layouts, &mut stack, errors);
    }
    for s in structs.iter_mut() {
        if let Some(&(size, align)) = layouts.get(&s.name.to_string()) {
            s.size = size;
            s.align = align;
        }
    }
    layouts
}

/// Fills `layouts` with the C (size, align) of the struct or enum with data `name`, after the
/// types its fields name.
fn compute_layout(
    name: &str,
    structs: &[StructDef],
    enums: &[EnumDef],
    layouts: &mut BTreeMap<String, (u64, u64)>,
    stack: &mut Vec<String>,
    errors: &mut Vec<syn::Error>,
) {
    if layouts.contains_key(name) {
        return;
    }
    let s = structs.iter().find(|s| s.name == name);
    let e = enums.iter().find(|e| e.name == name && e.has_data());
    let (tys, span): (Vec<&Ty>, _) = match (s, e) {
        (Some(s), _) => (s.fields.iter().map(|f| &f.ty).collect(), s.name.span()),
        (None, Some(e)) => (e.variants.iter().flat_map(|v| v.fields.iter().map(|f| &f.ty)).collect(), e.name.span()),
        _ => return,
    };
    if stack.iter().any(|s| s == name) {
        errors.push(syn::Error::new(span, format!("type `{name}` contains itself; recursive types have no fixed size")));
        layouts.insert(name.to_string(), (1, 1));
        return;
    }
    stack.push(name.to_string());
    let mut inner = Vec::new();
    for t in &tys {
        enums::named_types(t, &mut inner);
    }
    for n in inner {
        compute_layout(&n, structs, enums, layouts, stack, errors);
    }
    stack.pop();
    if layouts.contains_key(name) {
        return;
    }
    let (size, align) = match e {
        Some(e) if s.is_none() => {
            let (size, align, _) = e.c_layout(layouts);
            (size, align)
        }
        _ => {
            let (size, align, _) = struct_layout(&tys, layouts);
            (size, align)
        }
    };
    layouts.insert(name.to_string(), (size, align));
}
