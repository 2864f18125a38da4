//! Inherent `impl` blocks: their methods, associated functions and associated consts become
//! ordinary functions of the module keyed `Type::name` (`FnDef::owner`), checked and lowered
//! like helpers (a method's `self` is its first parameter). Rust keeps each block as written.
//!
//! Inside a block `Self` names the implementing type. The checked copy of each item has every
//! `Self` token replaced by the type's name (with the token's span), so signatures, bodies,
//! `Self::N`, `Self::new(..)` and `Self { .. }` need no rule of their own.

use super::{EnumDef, StructKind};
use crate::types::{parse_param_type, Ty};
use proc_macro2::{Group, Ident, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;

pub struct ImplBlock {
    /// The implementing type.
    pub ty: Ident,
    /// Methods and associated functions, `Self` replaced.
    pub fns: Vec<syn::ItemFn>,
    /// Associated consts, `Self` replaced.
    pub consts: Vec<syn::ItemConst>,
    /// The block as the user wrote it, for rustc.
    pub item: syn::ItemImpl,
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

/// The supported blocks: inherent, not generic, for a struct (not `#[counters]` or
/// `#[buffers]`) or an enum of the module; everything else is reported.
pub fn impl_blocks(
    raw: Vec<syn::ItemImpl>,
    structs: &[(StructKind, String)],
    enums: &[EnumDef],
    errors: &mut Vec<syn::Error>,
) -> Vec<ImplBlock> {
    let mut out = Vec::new();
    for item in raw {
        if let Some((_, path, _)) = &item.trait_ {
            errors.push(syn::Error::new_spanned(
                path,
                "trait impls are not supported in megakernel code (no traits on the device); write an inherent `impl Type { .. }` block with methods",
            ));
            continue;
        }
        if !item.generics.params.is_empty() {
            errors.push(syn::Error::new(
                item.generics.span(),
                "generic `impl` blocks are not supported in megakernel code; write the block for a concrete struct or enum of this module",
            ));
            continue;
        }
        if let Some(u) = &item.unsafety {
            errors.push(syn::Error::new(u.span, "`unsafe` is not supported in megakernel code"));
        }
        let ty = match &*item.self_ty {
            syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
            _ => None,
        };
        let kind = ty.as_ref().and_then(|t| structs.iter().find(|(_, n)| t == n).map(|(k, _)| *k));
        let is_enum = ty.as_ref().is_some_and(|t| enums.iter().any(|e| e.name == *t));
        let ty = match (ty, kind) {
            (Some(_), Some(k @ (StructKind::Counters | StructKind::Buffers))) => {
                let marker = if k == StructKind::Counters { "counters" } else { "buffers" };
                errors.push(syn::Error::new_spanned(
                    &item.self_ty,
                    format!("methods on the `#[{marker}]` struct are not supported (handlers reach it through `ctx.{marker}`); write free functions"),
                ));
                continue;
            }
            (Some(t), Some(_)) => t,
            (Some(t), None) if is_enum => t,
            _ => {
                errors.push(syn::Error::new_spanned(
                    &item.self_ty,
                    "`impl` blocks are supported for the structs and enums declared in this module",
                ));
                continue;
            }
        };
        let mut fns = Vec::new();
        let mut consts = Vec::new();
        for it in &item.items {
            match it {
                syn::ImplItem::Fn(f) => match syn::parse2::<syn::ImplItemFn>(replace_self(f.to_token_stream(), &ty)) {
                    Ok(f) => fns.push(syn::ItemFn { attrs: f.attrs, vis: f.vis, sig: f.sig, block: Box::new(f.block) }),
                    Err(e) => errors.push(e),
                },
                syn::ImplItem::Const(c) => match syn::parse2::<syn::ImplItemConst>(replace_self(c.to_token_stream(), &ty)) {
                    Ok(c) => consts.push(syn::ItemConst {
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
                    Err(e) => errors.push(e),
                },
                other => errors.push(syn::Error::new_spanned(
                    other,
                    "an `impl` block in megakernel code may contain methods, associated functions and associated consts only",
                )),
            }
        }
        // Kept even if an item was refused (that error stops the build), so that calls of its
        // other items report nothing more.
        out.push(ImplBlock { ty, fns, consts, item });
    }
    out
}

/// `self` (by value), `&self`, `&mut self` or `self: T` with `T` one of those written out.
pub fn receiver_type(r: &syn::Receiver, owner: &Ident, structs: &[String], names: &[(String, Option<u64>)]) -> syn::Result<Ty> {
    let ty: syn::Type = syn::parse2(replace_self(r.ty.to_token_stream(), owner))?;
    let t = parse_param_type(&ty, structs, names)?;
    let named = |t: &Ty| matches!(t, Ty::Struct(n) | Ty::Enum(n) if owner == n);
    match &t {
        Ty::Ref(inner, _) if named(inner) => Ok(t),
        _ if named(&t) => Ok(t),
        _ => Err(syn::Error::new_spanned(r, "a method takes `self`, `&self` or `&mut self`")),
    }
}

/// `tokens` with every `Self` replaced by `ty` (spanned like the `Self` it replaces).
fn replace_self(tokens: TokenStream, ty: &Ident) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Ident(i) if i == "Self" => {
                let mut t = ty.clone();
                t.set_span(i.span());
                TokenTree::Ident(t)
            }
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), replace_self(g.stream(), ty));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            other => other,
        })
        .collect()
}
