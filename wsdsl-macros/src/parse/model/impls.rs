//! `impl` blocks: their methods, associated functions and associated consts become ordinary
//! functions of the module keyed `Type::name` (`FnDef::owner`), checked and lowered like
//! helpers (a method's `self` is its first parameter). Inherent blocks, implementations of
//! the module's traits for one of its types, and blanket implementations `impl<T: A> B for
//! T` (one block per type that implements `A`; `traits.rs`). Rust keeps each block as
//! written.
//!
//! Inside a block `Self` names the implementing type. The checked copy of each item has every
//! `Self` token replaced by the type's name (with the token's span), so signatures, bodies,
//! `Self::N`, `Self::new(..)` and `Self { .. }` need no rule of their own; a blanket impl's
//! parameter is replaced the same way.

use super::traits::{param_bounds, TraitDef};
use super::{EnumDef, StructKind};
use crate::types::{parse_param_type, Ty};
use proc_macro2::{Group, Ident, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;

/// A method or associated function of a block.
pub struct ImplFn {
    /// `Self` replaced.
    pub item: syn::ItemFn,
    /// The Rust function this one is a copy of when it is not the type's own: a trait's
    /// default method or a blanket impl's method, `Trait::name`.
    pub shared: Option<String>,
}

pub struct ImplBlock {
    /// The implementing type.
    pub ty: Ident,
    pub fns: Vec<ImplFn>,
    /// Associated consts, `Self` replaced.
    pub consts: Vec<syn::ItemConst>,
}

impl ImplBlock {
    /// The associated consts defined by an integer literal, as `("Type::N", Some(value))`:
    /// they may size arrays, like module consts.
    pub fn int_consts(&self) -> Vec<(String, Option<u64>)> {
        self.consts
            .iter()
            .filter_map(|c| match &*c.expr {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(l), .. }) => {
                    l.base10_parse::<u64>().ok().map(|v| (format!("{}::{}", self.ty, c.ident), Some(v)))
                }
                _ => None,
            })
            .collect()
    }
}

/// A blanket implementation, made into a block per type that satisfies its bounds.
struct Blanket<'a> {
    item: &'a syn::ItemImpl,
    param: Ident,
    bounds: Vec<String>,
    tr: &'a TraitDef,
}

/// The blocks of `raw` for the module's `structs` (with their kinds), `enums` and `traits`,
/// and the blocks as written (for rustc); everything outside the subset is reported.
pub fn impl_blocks(
    raw: Vec<syn::ItemImpl>,
    structs: &[(StructKind, String)],
    enums: &[EnumDef],
    traits: &[TraitDef],
    errors: &mut Vec<syn::Error>,
) -> (Vec<ImplBlock>, Vec<syn::ItemImpl>) {
    let mut out = Vec::new();
    let mut blankets = Vec::new();
    // Which module trait each type implements, for the blanket impls' bounds.
    let mut implemented: Vec<(String, String)> = Vec::new();
    for item in &raw {
        if let Some(u) = &item.unsafety {
            errors.push(syn::Error::new(u.span, "`unsafe` is not supported in megakernel code"));
        }
        let tr = match &item.trait_ {
            None => None,
            Some((_, path, _)) => {
                let name = path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                match traits.iter().find(|t| t.name == name) {
                    Some(t) => Some(t),
                    None => {
                        errors.push(syn::Error::new_spanned(
                            path,
                            format!("`{name}` is not a trait of this module: megakernel code implements only the module's own traits (not std's `Clone`, `PartialEq`, `Default`, ..: #[megakernel] derives `Clone` and `Copy` itself; compare fields, and write constructors as associated functions)"),
                        ));
                        continue;
                    }
                }
            }
        };
        if !item.generics.params.is_empty() {
            match (tr, blanket_param(item)) {
                (Some(tr), Some(param)) => {
                    let bounds = param_bounds(&item.generics, &param, traits);
                    blankets.push(Blanket { item, param, bounds, tr });
                }
                _ => errors.push(syn::Error::new(
                    item.generics.span(),
                    "generic `impl` blocks are supported as blanket implementations of a trait of this module, `impl<T: Bound> Trait for T { .. }`; write other blocks for a concrete struct or enum of this module",
                )),
            }
            continue;
        }
        let Some(ty) = own_type(item, structs, enums, errors) else { continue };
        let block = match tr {
            Some(tr) => {
                implemented.push((ty.to_string(), tr.name.to_string()));
                trait_block(item, &ty, None, tr, errors)
            }
            None => inherent_block(item, &ty, errors),
        };
        out.push(block);
    }
    // Blanket impls, until no type gains another trait.
    let types: Vec<Ident> = structs
        .iter()
        .filter(|(k, _)| !matches!(k, StructKind::Counters | StructKind::Buffers))
        .map(|(_, n)| crate::names::rust_ident(n, proc_macro2::Span::call_site()))
        .chain(enums.iter().map(|e| e.name.clone()))
        .collect();
    loop {
        let mut grew = false;
        for b in &blankets {
            for ty in &types {
                let has = |tr: &str| implemented.iter().any(|(t, x)| *ty == t && x == tr);
                if has(&b.tr.name.to_string()) || !b.bounds.iter().all(|tr| has(tr)) {
                    continue;
                }
                implemented.push((ty.to_string(), b.tr.name.to_string()));
                out.push(trait_block(b.item, ty, Some(&b.param), b.tr, errors));
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    // A type's methods are called by name: two blocks may not define the same one.
    let mut seen: Vec<(String, String)> = Vec::new();
    for b in &out {
        for f in &b.fns {
            let key = (b.ty.to_string(), f.item.sig.ident.to_string());
            if seen.contains(&key) {
                errors.push(syn::Error::new(
                    f.item.sig.ident.span(),
                    format!("`{}::{}` is defined by two `impl` blocks (megakernel code calls methods by name); rename one of them", key.0, key.1),
                ));
            }
            seen.push(key);
        }
    }
    (out, raw)
}

/// `T` of `impl<T: ..> Trait for T`, the only generic block supported.
fn blanket_param(item: &syn::ItemImpl) -> Option<Ident> {
    let params: Vec<&syn::GenericParam> = item.generics.params.iter().collect();
    let [syn::GenericParam::Type(tp)] = params[..] else { return None };
    match &*item.self_ty {
        syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident(&tp.ident) => Some(tp.ident.clone()),
        _ => None,
    }
}

/// The struct or enum of the module a non-generic block is for, if it may have one.
fn own_type(item: &syn::ItemImpl, structs: &[(StructKind, String)], enums: &[EnumDef], errors: &mut Vec<syn::Error>) -> Option<Ident> {
    let ty = match &*item.self_ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
        _ => None,
    };
    let kind = ty.as_ref().and_then(|t| structs.iter().find(|(_, n)| t == n).map(|(k, _)| *k));
    let is_enum = ty.as_ref().is_some_and(|t| enums.iter().any(|e| e.name == *t));
    match (ty, kind) {
        (Some(_), Some(k @ (StructKind::Counters | StructKind::Buffers))) => {
            let marker = if k == StructKind::Counters { "counters" } else { "buffers" };
            errors.push(syn::Error::new_spanned(
                &item.self_ty,
                format!("methods on the `#[{marker}]` struct are not supported (handlers reach it through `ctx.{marker}`); write free functions, which may take it as `&mut {}` / `&{}`", if marker == "counters" { "Counters" } else { "Buffers" }, if marker == "counters" { "Counters" } else { "Buffers" }),
            ));
            None
        }
        (Some(t), Some(_)) => Some(t),
        (Some(t), None) if is_enum => Some(t),
        _ => {
            errors.push(syn::Error::new_spanned(&item.self_ty, "`impl` blocks are supported for the structs and enums declared in this module"));
            None
        }
    }
}

/// An inherent block's items for `ty`.
fn inherent_block(item: &syn::ItemImpl, ty: &Ident, errors: &mut Vec<syn::Error>) -> ImplBlock {
    let mut fns = Vec::new();
    let mut consts = Vec::new();
    for it in &item.items {
        match it {
            syn::ImplItem::Fn(f) => fns.extend(impl_fn(f.to_token_stream(), ty, None, errors).map(|item| ImplFn { item, shared: None })),
            syn::ImplItem::Const(c) => consts.extend(impl_const(c.to_token_stream(), ty, None, errors)),
            other => errors.push(syn::Error::new_spanned(
                other,
                "an `impl` block in megakernel code may contain methods, associated functions and associated consts only",
            )),
        }
    }
    // Kept even if an item was refused (that error stops the build), so that calls of its
    // other items report nothing more.
    ImplBlock { ty: ty.clone(), fns, consts }
}

/// The implementation of `tr` by `item` for `ty` (`param`: a blanket impl's parameter,
/// replaced by `ty` too): the block's items, then the trait's defaults it does not define.
fn trait_block(item: &syn::ItemImpl, ty: &Ident, param: Option<&Ident>, tr: &TraitDef, errors: &mut Vec<syn::Error>) -> ImplBlock {
    let shared = |name: &Ident| param.map(|_| format!("{}::{name}", tr.name));
    let mut fns = Vec::new();
    let mut consts = Vec::new();
    for it in &item.items {
        match it {
            syn::ImplItem::Fn(f) => {
                if !tr.methods.iter().any(|m| m.sig.ident == f.sig.ident) {
                    errors.push(syn::Error::new(f.sig.ident.span(), format!("method `{}` is not a member of trait `{}`", f.sig.ident, tr.name)));
                    continue;
                }
                fns.extend(impl_fn(f.to_token_stream(), ty, param, errors).map(|item| ImplFn { item, shared: shared(&f.sig.ident) }));
            }
            syn::ImplItem::Const(c) => {
                if !tr.consts.iter().any(|k| k.ident == c.ident) {
                    errors.push(syn::Error::new(c.ident.span(), format!("const `{}` is not a member of trait `{}`", c.ident, tr.name)));
                    continue;
                }
                consts.extend(impl_const(c.to_token_stream(), ty, param, errors));
            }
            other => errors.push(syn::Error::new_spanned(other, "an `impl` block in megakernel code may contain methods and associated consts only")),
        }
    }
    let mut missing = Vec::new();
    for m in &tr.methods {
        if fns.iter().any(|f| f.item.sig.ident == m.sig.ident) {
            continue;
        }
        match &m.default {
            Some(body) => {
                let f = syn::ItemFn { attrs: m.attrs.clone(), vis: syn::Visibility::Inherited, sig: m.sig.clone(), block: Box::new(body.clone()) };
                let name = &m.sig.ident;
                fns.extend(impl_fn(f.to_token_stream(), ty, None, errors).map(|item| ImplFn { item, shared: Some(format!("{}::{name}", tr.name)) }));
            }
            None => missing.push(format!("`{}`", m.sig.ident)),
        }
    }
    for k in &tr.consts {
        if consts.iter().any(|c| c.ident == k.ident) {
            continue;
        }
        match &k.default {
            Some((_, value)) => {
                let (name, t) = (&k.ident, &k.ty);
                consts.extend(impl_const(quote::quote!(const #name: #t = #value;), ty, None, errors));
            }
            None => missing.push(format!("`{}`", k.ident)),
        }
    }
    if !missing.is_empty() {
        errors.push(syn::Error::new_spanned(&item.self_ty, format!("not all trait items implemented, missing: {}", missing.join(", "))));
    }
    ImplBlock { ty: ty.clone(), fns, consts }
}

/// A method of a block, `Self` (and `param`) replaced by `ty`.
fn impl_fn(tokens: TokenStream, ty: &Ident, param: Option<&Ident>, errors: &mut Vec<syn::Error>) -> Option<syn::ItemFn> {
    match syn::parse2::<syn::ImplItemFn>(replaced(tokens, ty, param)) {
        Ok(f) => Some(syn::ItemFn { attrs: f.attrs, vis: f.vis, sig: f.sig, block: Box::new(f.block) }),
        Err(e) => {
            errors.push(e);
            None
        }
    }
}

/// An associated const of a block, `Self` (and `param`) replaced by `ty`.
fn impl_const(tokens: TokenStream, ty: &Ident, param: Option<&Ident>, errors: &mut Vec<syn::Error>) -> Option<syn::ItemConst> {
    match syn::parse2::<syn::ImplItemConst>(replaced(tokens, ty, param)) {
        Ok(c) => Some(syn::ItemConst {
            attrs: c.attrs,
            vis: c.vis,
            const_token: c.const_token,
            ident: c.ident,
            generics: c.generics,
            colon_token: c.colon_token,
            ty: Box::new(c.ty),
            eq_token: c.eq_token,
            expr: Box::new(c.expr),
            semi_token: c.semi_token,
        }),
        Err(e) => {
            errors.push(e);
            None
        }
    }
}

/// `tokens` with `Self` and `param` replaced by `ty`.
fn replaced(tokens: TokenStream, ty: &Ident, param: Option<&Ident>) -> TokenStream {
    let tokens = replace_ident(tokens, "Self", ty);
    match param {
        Some(p) => replace_ident(tokens, &p.to_string(), ty),
        None => tokens,
    }
}

/// `self` (by value), `&self`, `&mut self` or `self: T` with `T` one of those written out.
pub fn receiver_type(r: &syn::Receiver, owner: &Ident, structs: &[String], names: &[(String, Option<u64>)]) -> syn::Result<Ty> {
    let ty: syn::Type = syn::parse2(replace_ident(r.ty.to_token_stream(), "Self", owner))?;
    let t = parse_param_type(&ty, structs, names)?;
    let named = |t: &Ty| matches!(t, Ty::Struct(n) | Ty::Enum(n) if owner == n);
    match &t {
        Ty::Ref(inner, _) if named(inner) => Ok(t),
        _ if named(&t) => Ok(t),
        _ => Err(syn::Error::new_spanned(r, "a method takes `self`, `&self` or `&mut self`")),
    }
}

/// `tokens` with every identifier `name` replaced by `ty` (spanned like the one it replaces).
fn replace_ident(tokens: TokenStream, name: &str, ty: &Ident) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Ident(i) if i == name => {
                let mut t = ty.clone();
                t.set_span(i.span());
                TokenTree::Ident(t)
            }
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), replace_ident(g.stream(), name, ty));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            other => other,
        })
        .collect()
}
