//! Enums of the module. A field-less enum is `#[repr(u32)]` in Rust and a `ws_u32` in C. An
//! enum with data is a tagged union in C:
//!
//! ```c
//! struct wsv_5Shape_Rect { ws_f32 u_w; ws_f32 u_h; };     // one struct per variant with fields
//! union wsu_5Shape { wsv_5Shape_Circle u_Circle; wsv_5Shape_Rect u_Rect; };
//! struct u_Shape { ws_u32 tag; wsu_5Shape v; };            // tag = the variant's index
//! ```
//!
//! The names are spelled for C by `crate::names` (the enum's with its length, which keeps
//! `wsv_<Enum>_<Variant>` unambiguous).
//!
//! Rust lays such an enum out as it likes: the device image is written field by field at
//! these C offsets (`expand/device_image.rs`), so the two never have to agree.

use crate::names::{c_ident, c_len_ident};
use crate::types::{align_up, struct_layout, Ty};
use proc_macro2::Ident;
use std::collections::BTreeMap;

pub struct EnumDef {
    pub name: Ident,
    pub variants: Vec<Variant>,
    pub item: syn::ItemEnum,
}

pub struct Variant {
    pub name: Ident,
    /// The discriminant (field-less enums) or the tag (enums with data: the index).
    pub disc: u32,
    /// `V { a: T }` (named) or `V(T, U)`; empty for a unit variant.
    pub fields: Vec<VariantField>,
    pub named: bool,
}

pub struct VariantField {
    /// The field's name, or its position (`0`, `1`, ..) in a tuple variant.
    pub name: String,
    pub ty: Ty,
}

impl VariantField {
    /// The C member: `u_<name>` or `f<i>`, as struct fields and tuple elements are named.
    pub fn c_member(&self) -> String {
        match self.name.parse::<usize>() {
            Ok(i) => format!("f{i}"),
            Err(_) => crate::names::user(&self.name),
        }
    }
}

impl EnumDef {
    pub fn has_data(&self) -> bool {
        self.variants.iter().any(|v| !v.fields.is_empty())
    }

    pub fn variant(&self, name: &str) -> Option<&Variant> {
        self.variants.iter().find(|v| v.name == name)
    }

    /// The C struct of a variant's fields.
    pub fn variant_c_struct(&self, v: &Variant) -> String {
        format!("wsv_{}_{}", c_len_ident(&self.name), c_ident(&v.name))
    }

    /// The member of the union that holds variant `v`'s fields: `u_<v>`, prefixed as every
    /// name of the module is, so that a variant named like a C keyword or macro (`int`,
    /// `NULL`, `EOF`) is still a member's name.
    pub fn variant_member(v: impl std::fmt::Display) -> String {
        crate::names::user(v)
    }

    pub fn union_c_name(&self) -> String {
        format!("wsu_{}", c_len_ident(&self.name))
    }

    /// (size, align, offset of the union) of the C tagged union, given the layouts of the
    /// types its fields name.
    pub fn c_layout(&self, layouts: &BTreeMap<String, (u64, u64)>) -> (u64, u64, u64) {
        let (mut usize_, mut ualign) = (0, 1);
        for v in &self.variants {
            let tys: Vec<&Ty> = v.fields.iter().map(|f| &f.ty).collect();
            let (s, a, _) = struct_layout(&tys, layouts);
            usize_ = usize_.max(s);
            ualign = ualign.max(a);
        }
        let at = align_up(4, ualign);
        let align = ualign.max(4);
        (align_up(at + usize_, align), align, at)
    }

    /// Offsets of a variant's fields from the start of the enum.
    pub fn field_offsets(&self, v: &Variant, layouts: &BTreeMap<String, (u64, u64)>) -> Vec<u64> {
        let (_, _, at) = self.c_layout(layouts);
        let tys: Vec<&Ty> = v.fields.iter().map(|f| &f.ty).collect();
        struct_layout(&tys, layouts).2.into_iter().map(|o| at + o).collect()
    }
}

/// The variants as written: names, discriminants and the syntax of their fields (resolved by
/// `resolve_fields` once every type name of the module is known).
pub fn parse_enum(e: syn::ItemEnum, errors: &mut Vec<syn::Error>) -> Option<EnumDef> {
    let n0 = errors.len();
    if !e.generics.params.is_empty() {
        errors.push(syn::Error::new_spanned(&e.generics, "generic enums are not supported in megakernel code"));
    }
    if e.variants.is_empty() {
        errors.push(syn::Error::new(e.ident.span(), "an enum needs at least one variant"));
    }
    let with_data = e.variants.iter().any(|v| !matches!(v.fields, syn::Fields::Unit));
    let mut variants = Vec::new();
    let mut next: u64 = 0;
    for v in &e.variants {
        if let Some((_, d)) = &v.discriminant {
            if with_data {
                errors.push(syn::Error::new_spanned(d, "explicit discriminants are supported on field-less enums only; an enum with data is tagged by the variant's position"));
            }
            match d {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(l), .. }) => match l.base10_parse::<u64>() {
                    Ok(x) => next = x,
                    Err(err) => errors.push(err),
                },
                other => errors.push(syn::Error::new_spanned(other, "enum discriminants must be integer literals")),
            }
        }
        if next > u32::MAX as u64 {
            errors.push(syn::Error::new(v.ident.span(), "enum discriminants must fit in `u32` (enums are `#[repr(u32)]`)"));
        }
        let named = matches!(v.fields, syn::Fields::Named(_));
        variants.push(Variant { name: v.ident.clone(), disc: next as u32, fields: Vec::new(), named });
        next += 1;
    }
    if errors.len() != n0 {
        return None;
    }
    Some(EnumDef { name: e.ident.clone(), variants, item: e })
}

/// Parses the variants' field types (`parse` knows the module's structs, enums and consts).
pub fn resolve_fields(e: &mut EnumDef, parse: &dyn Fn(&syn::Type) -> syn::Result<Ty>, errors: &mut Vec<syn::Error>) {
    for (v, syn_v) in e.variants.iter_mut().zip(&e.item.variants) {
        for (i, f) in syn_v.fields.iter().enumerate() {
            if super::structs::is_placeholder_field(f, errors) {
                continue;
            }
            match parse(&f.ty) {
                Ok(ty) => {
                    let name = f.ident.as_ref().map(|n| n.to_string()).unwrap_or_else(|| i.to_string());
                    v.fields.push(VariantField { name, ty });
                }
                Err(err) => errors.push(err),
            }
        }
    }
}

/// The enum or struct names a type's layout depends on (through arrays, tuples, options).
pub fn named_types(t: &Ty, out: &mut Vec<String>) {
    match t {
        Ty::Struct(n) | Ty::Enum(n) => out.push(n.clone()),
        Ty::Array(e, _) | Ty::Option(e) => named_types(e, out),
        Ty::Tuple(ts) => ts.iter().for_each(|e| named_types(e, out)),
        _ => {}
    }
}
