//! User traits with static dispatch. A trait of the module declares methods (with or without
//! a default body) and associated consts (with or without a default value); the module's
//! structs and enums implement it (`impl Problem for Knapsack { .. }`), one type at a time or
//! all types that implement other traits of the module at once (`impl<T: Problem> Search for
//! T { .. }`, a blanket impl). Nothing of this exists on the device: each implementation is
//! an `ImplBlock` of its type (`impls.rs`), holding the impl's own items, then the trait's
//! defaults it does not override, with `Self` (and a blanket impl's parameter) replaced by the
//! type. Its methods are then the type's methods (`Type::name`), and a generic helper
//! bounded by the trait (`fn solve<P: Problem>(p: &P)`) is checked once per type it is
//! called with (`check/generics.rs`): one C function per instantiation.
//!
//! Trait objects (`&dyn Problem`, `Box<dyn Problem>`) stay refused: the device has no
//! function pointers worth calling through.

use proc_macro2::Ident;
use syn::spanned::Spanned;

pub struct TraitDef {
    pub name: Ident,
    /// The methods as declared, their default bodies (if any) with `Self` still in them.
    pub methods: Vec<syn::TraitItemFn>,
    /// The associated consts, their default values (if any) with `Self` still in them.
    pub consts: Vec<syn::TraitItemConst>,
}

/// The trait `t` as the module understands it; every part outside the subset is reported.
pub fn parse_trait(t: &syn::ItemTrait, errors: &mut Vec<syn::Error>) -> Option<TraitDef> {
    let n0 = errors.len();
    if !t.generics.params.is_empty() {
        errors.push(syn::Error::new(t.generics.span(), "generic traits are not supported in megakernel code; make the methods take the types they need, or declare an associated const"));
    }
    if let Some(u) = &t.unsafety {
        errors.push(syn::Error::new(u.span, "`unsafe` is not supported in megakernel code"));
    }
    if let Some(a) = &t.auto_token {
        errors.push(syn::Error::new(a.span, "auto traits are not supported in megakernel code"));
    }
    let mut methods = Vec::new();
    let mut consts = Vec::new();
    for item in &t.items {
        match item {
            syn::TraitItem::Fn(f) => {
                if !f.sig.generics.params.is_empty() {
                    errors.push(syn::Error::new(
                        f.sig.generics.span(),
                        "generic methods are not supported yet; make the trait's implementations call a generic helper function (`fn f<T: Copy>(x: T) -> T`)",
                    ));
                }
                methods.push(f.clone());
            }
            syn::TraitItem::Const(c) => consts.push(c.clone()),
            syn::TraitItem::Type(ty) => errors.push(syn::Error::new_spanned(
                ty,
                "associated types are not supported in megakernel code; use an associated const, or the implementing type itself (`Self`)",
            )),
            other => errors.push(syn::Error::new_spanned(other, "a trait in megakernel code may declare methods and associated consts only")),
        }
    }
    (errors.len() == n0).then(|| TraitDef { name: t.ident.clone(), methods, consts })
}

/// The module traits named by the bounds of a blanket impl's parameter `param` (in its
/// `<T: A + B>` and in `where T: ..`): a type gets the impl when it implements all of them.
pub fn param_bounds(generics: &syn::Generics, param: &Ident, traits: &[TraitDef]) -> Vec<String> {
    let mut out = Vec::new();
    let mut add = |bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>| {
        for b in bounds {
            if let syn::TypeParamBound::Trait(tb) = b {
                if let Some(s) = tb.path.segments.last() {
                    let n = s.ident.to_string();
                    if traits.iter().any(|t| t.name == n) && !out.contains(&n) {
                        out.push(n);
                    }
                }
            }
        }
    };
    for p in generics.type_params().filter(|p| p.ident == *param) {
        add(&p.bounds);
    }
    if let Some(w) = &generics.where_clause {
        for pred in &w.predicates {
            if let syn::WherePredicate::Type(pt) = pred {
                if matches!(&pt.bounded_ty, syn::Type::Path(p) if p.path.is_ident(param)) {
                    add(&pt.bounds);
                }
            }
        }
    }
    out
}
