//! The CPU backend's depth checks of recursive functions (`check/recursion.rs`): the user's
//! function is re-emitted with a guard as its first statement, counting the active calls of
//! its cycle in a thread-local per cycle (`wsdsl_runtime::recursion::enter`). The guard
//! carries the span of the function's name, so its panic names the line the device's fault
//! site names, with the same message.

use crate::check::recursion::{message, rust_name, Recursion};
use crate::parse::model::Module;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

pub struct Guards {
    /// The thread-local counts, one per cycle.
    pub statics: Vec<TokenStream>,
    /// The guard statement of each recursive Rust function (`Type::name` for a method; a
    /// generic helper once for all its instances).
    guards: Vec<(String, syn::Stmt)>,
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
        let mut guards: Vec<(String, syn::Stmt)> = Vec::new();
        for member in r.members() {
            let name = rust_name(m, &member.key);
            if guards.iter().any(|(n, _)| *n == name) {
                continue; // another instance of the same generic helper
            }
            let (depth, limit, text) = (count(member.cycle), r.limit, message(&name, r.limit));
            let stmt = quote_spanned!(member.span=> let _wsdsl_depth = ::wsdsl::__private::enter_recursion(&#depth, #limit, #text););
            guards.push((name, syn::parse2(stmt).expect("a let statement")));
        }
        Guards { statics, guards }
    }

    /// `f` (whose key is `key`) with its guard, if it recurses.
    pub fn function(&self, key: &str, f: &syn::ItemFn) -> syn::ItemFn {
        let mut f = f.clone();
        self.insert(key, &mut f.block);
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
                self.insert(&format!("{owner}::{}", f.sig.ident), &mut f.block);
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
                    self.insert(&format!("{name}::{}", f.sig.ident), block);
                }
            }
        }
        t
    }

    fn insert(&self, key: &str, block: &mut syn::Block) {
        if let Some((_, stmt)) = self.guards.iter().find(|(n, _)| n == key) {
            block.stmts.insert(0, stmt.clone());
        }
    }
}
