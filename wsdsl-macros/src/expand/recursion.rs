//! The CPU backend's depth checks of recursive functions (`check/recursion.rs`): the user's
//! function is re-emitted with its body in a closure that the guard runs, counting the active
//! calls of its cycle in a thread-local per cycle (`wsdsl_runtime::contract::recursion::enter`),
//! which also moves the body to a new stack segment when the thread's stack runs short: a
//! recursion as deep as the limit must not overflow a thread's fixed stack, which aborts the
//! process. The guard carries the span of the function's name, so its panic names the line
//! the device's fault site names, with the same message.

use crate::check::recursion::{message, rust_name, Recursion};
use crate::parse::model::Module;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::visit::Visit;

pub struct Guards {
    /// The thread-local counts, one per cycle.
    pub statics: Vec<TokenStream>,
    /// The guard of each recursive Rust function (`Type::name` for a method; a generic helper
    /// once for all its instances): the count, the limit and the panic's text, and the span of
    /// the function's name.
    guards: Vec<(String, Guard)>,
}

impl Guards {
    pub fn new(m: &Module, r: &Recursion) -> Self {
        let count = |cycle: usize| format_ident!("__WSDSL_RECURSION_DEPTH_{}", cycle, span = Span::call_site());
        let statics = (0..r.cycles)
            .map(|cycle| {
                let name = count(cycle);
                quote!(::std::thread_local! { static #name: ::core::cell::Cell<u32> = const { ::core::cell::Cell::new(0) }; })
            })
            .collect();
        let mut guards: Vec<(String, Guard)> = Vec::new();
        for member in r.members() {
            let name = rust_name(m, &member.key);
            if guards.iter().any(|(n, _)| *n == name) {
                continue; // another instance of the same generic helper
            }
            let guard = Guard { depth: count(member.cycle), limit: r.limit, text: message(&name, r.limit), span: member.span };
            guards.push((name, guard));
        }
        Guards { statics, guards }
    }

    /// `f` (whose key is `key`) with its guard, if it recurses.
    pub fn function(&self, key: &str, f: &syn::ItemFn) -> syn::ItemFn {
        let mut f = f.clone();
        self.insert(key, &f.sig.output, &mut f.block);
        f
    }

    /// `imp` with a guard in each of its recursive methods (a blanket impl's are named
    /// after the trait, as their copies are: `parse/model/traits.rs`).
    pub fn impl_block(&self, imp: &syn::ItemImpl) -> syn::ItemImpl {
        let mut imp = imp.clone();
        let owner = match (&imp.trait_, &*imp.self_ty) {
            (Some((_, tr, _)), _) if !imp.generics.params.is_empty() => tr.segments.last().map(|s| s.ident.to_string()),
            (_, syn::Type::Path(p)) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let Some(owner) = owner else { return imp };
        for item in &mut imp.items {
            if let syn::ImplItem::Fn(f) = item {
                self.insert(&format!("{owner}::{}", f.sig.ident), &f.sig.output, &mut f.block);
            }
        }
        imp
    }

    /// `t` with a guard in each of its recursive default methods.
    pub fn trait_item(&self, t: &syn::ItemTrait) -> syn::ItemTrait {
        let mut t = t.clone();
        let name = t.ident.to_string();
        for item in &mut t.items {
            if let syn::TraitItem::Fn(f) = item {
                if let Some(block) = &mut f.default {
                    self.insert(&format!("{name}::{}", f.sig.ident), &f.sig.output, block);
                }
            }
        }
        t
    }

    /// Makes `block`, the body of the function `key` returning `output`, run through its
    /// guard, if it recurses: `{ enter_recursion(&count, limit, text, move || -> R { body }) }`.
    /// A `return` in the body leaves the closure with the function's value, and `?` converts
    /// to the closure's return type, the function's (left to inference where it names a
    /// lifetime, which a closure's return type cannot elide).
    fn insert(&self, key: &str, output: &syn::ReturnType, block: &mut syn::Block) {
        let Some((_, g)) = self.guards.iter().find(|(n, _)| n == key) else { return };
        let (depth, limit, text) = (&g.depth, g.limit, &g.text);
        let ret = match output {
            syn::ReturnType::Type(_, ty) if !borrows(ty) => quote!(-> #ty),
            _ => quote!(),
        };
        let body = &*block;
        let call = quote_spanned!(g.span=> ::wsdsl::__private::enter_recursion(&#depth, #limit, #text, move || #ret #body));
        *block = syn::parse2(quote!({ #call })).expect("a block");
    }
}

/// What the guard of one recursive function names.
struct Guard {
    depth: syn::Ident,
    limit: u32,
    text: String,
    span: Span,
}

/// Whether `ty` names a lifetime, elided or not, or an opaque type: a closure's return type
/// may not stand for those.
fn borrows(ty: &syn::Type) -> bool {
    struct Finds(bool);
    impl<'a> Visit<'a> for Finds {
        fn visit_type_reference(&mut self, _: &'a syn::TypeReference) {
            self.0 = true;
        }
        fn visit_lifetime(&mut self, _: &'a syn::Lifetime) {
            self.0 = true;
        }
        fn visit_type_impl_trait(&mut self, _: &'a syn::TypeImplTrait) {
            self.0 = true;
        }
        fn visit_type_infer(&mut self, _: &'a syn::TypeInfer) {
            self.0 = true;
        }
    }
    let mut finds = Finds(false);
    finds.visit_type(ty);
    finds.0
}
