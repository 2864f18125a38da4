//! Reading the module's items into the model. Each item is classified by its marker
//! (`#[task]`, `#[spawn]`, ...) or its kind, and the names are checked (reserved by the macro,
//! defined twice); then enums, traits and `impl` blocks, the structs' fields, the C layouts,
//! the functions' signatures and the consts are parsed, in the order their types need; last,
//! each task must have its handlers.

use super::fns::{parse_fn, FnRole};
use super::layout::layouts;
use super::structs::{data_type, parse_struct};
use super::{enums, impls, traits, EnumDef, FnDef, FnKind, Module, StructKind, TraitDef};
use crate::parse::attr::{take_derives_reject_repr, take_marker, Marked, Marker};
use crate::types::parse_type_in;
use syn::spanned::Spanned;

const RESERVED: [&str; 3] = ["Task", "Ctx", "Kernel"];

/// The primitive types' names, which no type of the module may take (`refuse_primitive_names`).
const PRIMITIVES: [&str; 17] =
    ["u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64", "bool", "char", "str"];

/// Reports each struct, enum or trait of the module named like a primitive type (`struct u8`).
/// Rust would take the name for the module's type everywhere in the module, in the code
/// #[megakernel] generates there as well, which means the primitive (its device images, its
/// `Program` constants, its `Ctx` methods); the checker would have to read every `u8` of the
/// user's code as the type too. Whether any was reported.
fn refuse_primitive_names<'a>(types: impl Iterator<Item = &'a syn::Ident>, errors: &mut Vec<syn::Error>) -> bool {
    let n0 = errors.len();
    for id in types {
        let name = id.to_string();
        let name = crate::names::unraw(&name);
        if PRIMITIVES.contains(&name) {
            let mut rename = name.to_string();
            rename[..1].make_ascii_uppercase();
            errors.push(syn::Error::new(
                id.span(),
                format!("`{name}` is the name of a primitive type: a type of a #[megakernel] module named so would stand for itself in every `{name}` of the module, the code #[megakernel] generates there included, which means the primitive; rename this type (e.g. `{rename}`)"),
            ));
        }
    }
    errors.len() != n0
}

impl Module {
    pub fn parse(m: syn::ItemMod, errors: &mut Vec<syn::Error>) -> Option<Module> {
        let Some((_, items)) = m.content else {
            errors.push(syn::Error::new(
                m.ident.span(),
                "#[megakernel] needs an inline module: `mod name { ... }`",
            ));
            return None;
        };
        let mut passthrough = Vec::new();
        let mut raw_structs = Vec::new();
        let mut raw_fns = Vec::new();
        let mut raw_enums = Vec::new();
        let mut raw_consts = Vec::new();
        let mut raw_impls = Vec::new();
        let mut trait_items = Vec::new();
        for item in items {
            match item {
                syn::Item::Use(_) => passthrough.push(item),
                syn::Item::Struct(mut s) => {
                    let marked = take_marker(&mut s.attrs, errors);
                    let mut value_arg = None;
                    let kind = match marked {
                        None => StructKind::Plain,
                        Some(Marked { marker: Marker::Task, args }) => {
                            value_arg = args;
                            StructKind::Task
                        }
                        Some(Marked { marker: Marker::Params, .. }) => StructKind::Params,
                        Some(Marked { marker: Marker::Counters, .. }) => StructKind::Counters,
                        Some(Marked { marker: Marker::Buffers, .. }) => StructKind::Buffers,
                        Some(Marked { marker: m @ (Marker::Spawn | Marker::Complete), .. }) => {
                            errors.push(syn::Error::new(
                                s.ident.span(),
                                format!("`#[{}]` marks handler functions, not structs; use `#[task]` on task structs", m.name()),
                            ));
                            StructKind::Plain
                        }
                    };
                    take_derives_reject_repr(&mut s.attrs, errors);
                    raw_structs.push((kind, s, value_arg));
                }
                syn::Item::Fn(mut f) => {
                    let marked = take_marker(&mut f.attrs, errors);
                    let role = match marked {
                        None => FnRole::Helper,
                        Some(Marked { marker: Marker::Spawn, .. }) => FnRole::Spawn,
                        Some(Marked { marker: Marker::Complete, args }) => FnRole::Complete(args),
                        Some(m) => {
                            errors.push(syn::Error::new(
                                f.sig.ident.span(),
                                format!("`#[{}]` marks structs; handler functions are marked `#[spawn]` or `#[complete]`", m.marker.name()),
                            ));
                            FnRole::Helper
                        }
                    };
                    raw_fns.push((role, f));
                }
                syn::Item::Enum(mut e) => {
                    if let Some(m) = take_marker(&mut e.attrs, errors) {
                        errors.push(syn::Error::new(e.ident.span(), format!("`#[{}]` does not apply to enums", m.marker.name())));
                    }
                    take_derives_reject_repr(&mut e.attrs, errors);
                    raw_enums.push(e);
                }
                syn::Item::Const(c) => raw_consts.push(c),
                syn::Item::Static(st) => errors.push(syn::Error::new(
                    st.static_token.span,
                    "`static` items are not supported (no global mutable state on the device); use a `const`",
                )),
                syn::Item::Impl(i) => raw_impls.push(i),
                syn::Item::Trait(t) => trait_items.push(t),
                other => errors.push(syn::Error::new(
                    other.span(),
                    "a #[megakernel] module may contain only structs, field-less enums, consts, functions and `use` items",
                )),
            }
        }

        for kind in [StructKind::Params, StructKind::Counters, StructKind::Buffers] {
            let mut of_kind = raw_structs.iter().filter(|(k, _, _)| *k == kind);
            of_kind.next();
            for (_, s, _) in of_kind {
                errors.push(syn::Error::new(
                    s.ident.span(),
                    format!("a megakernel has at most one `#[{}]` struct", match kind { StructKind::Params => "params", StructKind::Counters => "counters", _ => "buffers" }),
                ));
            }
        }
        // Nothing more is read after such a name: each of its uses would be taken for the
        // primitive and report an error of its own.
        let types = raw_structs.iter().map(|(_, s, _)| &s.ident).chain(raw_enums.iter().map(|e| &e.ident));
        if refuse_primitive_names(types.chain(trait_items.iter().map(|t| &t.ident)), errors) {
            return None;
        }
        let has = |k| raw_structs.iter().any(|(kind, _, _)| *kind == k);
        let mut reserved: Vec<&str> = RESERVED.to_vec();
        if !has(StructKind::Params) {
            reserved.push("Params");
        }
        if !has(StructKind::Counters) {
            reserved.push("Counters");
        }
        if !has(StructKind::Buffers) {
            reserved.push("Buffers");
        }
        let mut names: Vec<(String, proc_macro2::Span)> = Vec::new();
        let idents = raw_structs.iter().map(|(_, s, _)| &s.ident).chain(raw_fns.iter().map(|(_, f)| &f.sig.ident));
        let idents = idents.chain(raw_enums.iter().map(|e| &e.ident)).chain(raw_consts.iter().map(|c| &c.ident));
        let idents = idents.chain(trait_items.iter().map(|t| &t.ident));
        for id in idents {
            let n = id.to_string();
            if reserved.contains(&n.as_str()) {
                let why = if n == "Params" || n == "Counters" {
                    format!("`{n}` is generated by #[megakernel] as `()` when the module has no `#[{}]` struct; mark this struct `#[{}]` or rename it", n.to_lowercase(), n.to_lowercase())
                } else {
                    format!("the name `{n}` is reserved: #[megakernel] generates `Task`, `Ctx` and `Kernel` in this module; rename this item")
                };
                errors.push(syn::Error::new(id.span(), why));
            }
            if names.iter().any(|(m, _)| *m == n) {
                errors.push(syn::Error::new(id.span(), format!("`{n}` is defined twice in this module")));
            }
            names.push((n, id.span()));
        }

        let value_structs: Vec<String> = raw_structs
            .iter()
            .filter(|(k, _, _)| !matches!(k, StructKind::Counters | StructKind::Buffers))
            .map(|(_, s, _)| s.ident.to_string())
            .collect();
        let mut enums: Vec<EnumDef> = raw_enums.into_iter().filter_map(|e| enums::parse_enum(e, errors)).collect();
        // Names types may mention besides structs: enums, and integer constants (array lengths).
        let mut names: Vec<(String, Option<u64>)> = enums.iter().map(|e| (e.name.to_string(), None)).collect();
        for c in &raw_consts {
            if let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(l), .. }) = &*c.expr {
                if let Ok(v) = l.base10_parse::<u64>() {
                    names.push((c.ident.to_string(), Some(v)));
                }
            }
        }
        let traits: Vec<TraitDef> = trait_items.iter().filter_map(|t| traits::parse_trait(t, errors)).collect();
        let kinds: Vec<(StructKind, String)> = raw_structs.iter().map(|(k, s, _)| (*k, s.ident.to_string())).collect();
        let (impls, impl_items) = impls::impl_blocks(raw_impls, &kinds, &enums, &traits, errors);
        names.extend(impls.iter().flat_map(|b| b.int_consts()));
        // Fields cross between host and device: types that exist only in code are refused.
        let parse_type = |t: &syn::Type, s: &[String]| parse_type_in(t, s, &names).and_then(|ty| data_type(t, ty));
        for e in &mut enums {
            enums::resolve_fields(e, &|t| parse_type(t, &value_structs), errors);
        }

        let mut structs = Vec::new();
        for (kind, s, value_arg) in raw_structs {
            if let Some(def) = parse_struct(kind, s, value_arg, &value_structs, &names, errors) {
                structs.push(def);
            }
        }

        let layouts = layouts(&mut structs, &enums, errors);

        let mut fns = Vec::new();
        let mut rejected = Vec::new();
        for (role, f) in raw_fns {
            let key = f.sig.ident.to_string();
            match parse_fn(role, f, None, &value_structs, &names, &structs, errors) {
                Some(def) => fns.push(def),
                None => rejected.push(key),
            }
        }
        for b in &impls {
            for f in &b.fns {
                match parse_fn(FnRole::Helper, f.item.clone(), Some(&b.ty), &value_structs, &names, &structs, errors) {
                    Some(def) => fns.push(FnDef { shared: f.shared.clone(), ..def }),
                    None => rejected.push(format!("{}::{}", b.ty, f.item.sig.ident)),
                }
            }
        }
        let owned_consts = impls.iter().flat_map(|b| b.consts.iter().map(move |c| (Some(b.ty.clone()), c.clone())));
        for (owner, c) in raw_consts.into_iter().map(|c| (None, c)).chain(owned_consts) {
            let ty = match parse_type(&c.ty, &value_structs) {
                Ok(t) => t,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            // Checked and lowered as `fn NAME() -> T { expr }`; C calls it at every use.
            let (name, expr) = (c.ident.clone(), &c.expr);
            let item: syn::ItemFn = syn::parse_quote_spanned!(c.ident.span()=> fn #name() { #expr });
            // An associated const is re-emitted with its `impl` block.
            let konst = owner.is_none().then_some(c);
            fns.push(FnDef { kind: FnKind::Const, name, owner, params: Vec::new(), ctx: None, ret: ty, item, konst, generics: Vec::new(), shared: None });
        }

        let module = Module {
            attrs: m.attrs,
            vis: m.vis,
            name: m.ident,
            passthrough,
            impls: impl_items,
            traits,
            trait_items,
            structs,
            enums,
            fns,
            type_names: names,
            layouts,
            recursion_limit: crate::parse::schedule::DEFAULT_RECURSION_LIMIT,
            ordered: false,
            rejected,
        };
        module.check_handlers(errors);
        Some(module)
    }

    /// Every task has exactly one spawn handler and at most one complete handler.
    fn check_handlers(&self, errors: &mut Vec<syn::Error>) {
        if self.tasks().next().is_none() {
            errors.push(syn::Error::new(
                self.name.span(),
                "a megakernel needs at least one `#[task]` struct and its `#[spawn]` handler",
            ));
        }
        for t in self.tasks() {
            let handlers: Vec<&FnDef> = self
                .fns
                .iter()
                .filter(|f| f.kind == FnKind::Handler { task: t.name.to_string() })
                .collect();
            if handlers.is_empty() {
                errors.push(syn::Error::new(
                    t.name.span(),
                    format!(
                        "task `{0}` has no spawn handler; add `#[spawn] fn name(task: &{0}, ctx: &mut Ctx)`",
                        t.name
                    ),
                ));
            }
            for h in handlers.iter().skip(1) {
                errors.push(syn::Error::new(
                    h.name.span(),
                    format!(
                        "task `{}` already has the spawn handler `{}`; each task type has exactly one",
                        t.name, handlers[0].name
                    ),
                ));
            }
            let completes: Vec<&FnDef> =
                self.fns.iter().filter(|f| matches!(&f.kind, FnKind::Complete { task, .. } if *task == t.name.to_string())).collect();
            for h in completes.iter().skip(1) {
                errors.push(syn::Error::new(
                    h.name.span(),
                    format!("task `{}` already has the complete handler `{}`; a task type has at most one", t.name, completes[0].name),
                ));
            }
        }
    }
}
