//! The module as the macro understands it: marker-classified structs and functions with
//! parsed types and their C layouts. Bodies stay `syn` until `check` turns them into `ir`.

use crate::parse::attr::{take_derives_reject_repr, take_marker, Marked, Marker};
use crate::types::{parse_param_type, parse_type_in, struct_layout, IntTy, Ty};
use proc_macro2::Ident;
use std::collections::BTreeMap;
use syn::spanned::Spanned;

mod context;
mod enums;
mod impls;
mod traits;

pub use context::{context_param, ContextNames};
use context::{parse_buffer, parse_counter};
pub use enums::{EnumDef, Variant};
pub use traits::TraitDef;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StructKind {
    Task,
    Params,
    Counters,
    Buffers,
    Plain,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord, Hash)]
pub enum Reduce {
    Sum,
    Max,
    Min,
}

impl Reduce {
    /// The counter type's name: `Sum`, `Max` or `Min`.
    pub fn name(self) -> &'static str {
        match self {
            Reduce::Sum => "Sum",
            Reduce::Max => "Max",
            Reduce::Min => "Min",
        }
    }

    /// The method that updates such a counter: `add`, `max` or `min`.
    pub fn method(self) -> &'static str {
        match self {
            Reduce::Sum => "add",
            Reduce::Max => "max",
            Reduce::Min => "min",
        }
    }
}

pub struct Field {
    pub name: Ident,
    pub ty: Ty,
}

pub struct CounterField {
    pub name: Ident,
    pub reduce: Reduce,
    pub int: IntTy,
}

/// A `Buffer<T>` or `ReadOnly<T>` field of the `#[buffers]` struct; `elem` is a scalar `Ty`.
pub struct BufferField {
    pub name: Ident,
    pub elem: Ty,
    /// `ReadOnly<T>`: handlers may only `get` and `len`; the device reads it through the
    /// read-only cache.
    pub read_only: bool,
}

pub struct StructDef {
    pub kind: StructKind,
    pub name: Ident,
    pub fields: Vec<Field>,
    pub counters: Vec<CounterField>,
    pub buffers: Vec<BufferField>,
    pub item: syn::ItemStruct,
    /// C size and alignment (not for counters, which never cross the host/device boundary).
    pub size: u64,
    pub align: u64,
    /// For tasks: what the task hands its parent (`#[task(value = T)]`), a scalar type.
    pub value: Option<(Ty, proc_macro2::Span)>,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FnKind {
    /// `#[spawn]`: runs when the task is taken from a queue.
    Handler { task: String },
    /// `#[complete]`: runs once after every child of the task is done. `max_children` bounds
    /// the children whose values it receives (the size of the frame's value array).
    Complete { task: String, max_children: Option<u32> },
    Helper,
    /// A module `const`, checked and lowered as a helper without parameters; Rust keeps the
    /// original item (`FnDef::konst`).
    Const,
}

pub struct Param {
    pub name: Ident,
    pub ty: Ty,
}

pub struct FnDef {
    pub kind: FnKind,
    pub name: Ident,
    /// For methods, associated functions and associated consts: the type of their `impl`
    /// block (Rust keeps the block as written, `Module::impls`).
    pub owner: Option<Ident>,
    pub params: Vec<Param>,
    /// For handlers: the name of the `&mut Ctx` parameter.
    pub ctx: Option<Ident>,
    pub ret: Ty,
    pub item: syn::ItemFn,
    /// For `FnKind::Const`: the user's item, re-emitted as written.
    pub konst: Option<syn::ItemConst>,
    /// The type parameters of a generic helper. Such a helper has no parameters or result
    /// here: `check/generics.rs` checks a copy of it per instantiation.
    pub generics: Vec<Ident>,
    /// The Rust function this one is a copy of when it is not its own (a trait's default
    /// method or a blanket impl's method, `Trait::name`; `model/traits.rs`): where the CPU
    /// backend's recursion guard goes, and the name its message shows.
    pub shared: Option<String>,
}

impl FnDef {
    /// The name calls and bodies use: `name`, or `Type::name` for an item of an `impl`.
    pub fn key(&self) -> String {
        match &self.owner {
            Some(t) => format!("{t}::{}", self.name),
            None => self.name.to_string(),
        }
    }
}

pub struct Module {
    pub attrs: Vec<syn::Attribute>,
    pub vis: syn::Visibility,
    pub name: Ident,
    /// `use` items, re-emitted untouched.
    pub passthrough: Vec<syn::Item>,
    /// `impl` blocks, re-emitted untouched; their items (and the trait defaults they use)
    /// are also in `fns`.
    pub impls: Vec<syn::ItemImpl>,
    /// The module's traits (`model/traits.rs`), and as written, re-emitted untouched.
    pub traits: Vec<TraitDef>,
    pub trait_items: Vec<syn::ItemTrait>,
    pub structs: Vec<StructDef>,
    pub enums: Vec<EnumDef>,
    pub fns: Vec<FnDef>,
    /// Enums (`None`) and integer-literal consts (`Some(value)`), for `parse_type_in`.
    pub type_names: Vec<(String, Option<u64>)>,
    pub layouts: BTreeMap<String, (u64, u64)>,
    /// How deep recursive helpers may call (`#[megakernel(recursion_limit = N)]`,
    /// `check/recursion.rs`).
    pub recursion_limit: u32,
    /// Whether tasks carry priorities (`#[megakernel(order = priority)]`): only then may
    /// handlers call `ctx.spawn_with_priority`.
    pub ordered: bool,
    /// The keys (`FnDef::key`) of functions whose signature was refused (and reported):
    /// their calls report nothing more.
    pub rejected: Vec<String>,
}

const RESERVED: [&str; 3] = ["Task", "Ctx", "Kernel"];

impl Module {
    pub fn struct_def(&self, name: &str) -> Option<&StructDef> {
        self.structs.iter().find(|s| s.name == name)
    }
    pub fn tasks(&self) -> impl Iterator<Item = &StructDef> {
        self.structs.iter().filter(|s| s.kind == StructKind::Task)
    }
    pub fn params(&self) -> Option<&StructDef> {
        self.structs.iter().find(|s| s.kind == StructKind::Params)
    }
    pub fn counters(&self) -> Option<&StructDef> {
        self.structs.iter().find(|s| s.kind == StructKind::Counters)
    }
    pub fn buffers(&self) -> Option<&StructDef> {
        self.structs.iter().find(|s| s.kind == StructKind::Buffers)
    }
    pub fn enum_def(&self, name: &str) -> Option<&EnumDef> {
        self.enums.iter().find(|e| e.name == name)
    }
    /// The function, method or const whose `FnDef::key` is `key`.
    pub fn func(&self, key: &str) -> Option<&FnDef> {
        self.fns.iter().find(|f| f.key() == key)
    }
    /// Whether `name` is a struct or enum of the module, the types that may have an `impl`.
    pub fn is_named_type(&self, name: &str) -> bool {
        self.struct_def(name).is_some() || self.enum_def(name).is_some()
    }
    pub fn task_tag(&self, name: &str) -> Option<usize> {
        self.tasks().position(|t| t.name == name)
    }
    pub fn task_names(&self) -> Vec<String> {
        self.tasks().map(|t| t.name.to_string()).collect()
    }

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
            let value = value_arg.and_then(|a| parse_value_arg(&a, &value_structs, &names, errors));
            if !s.generics.params.is_empty() {
                errors.push(syn::Error::new(s.generics.span(), "generic structs are not supported in megakernel code"));
            }
            let syn::Fields::Named(named) = &s.fields else {
                errors.push(syn::Error::new(
                    s.ident.span(),
                    "use a struct with named fields, e.g. `struct Name { a: u32 }`",
                ));
                continue;
            };
            if named.named.is_empty() {
                errors.push(syn::Error::new(
                    s.ident.span(),
                    "structs need at least one field (C and Rust disagree on the size of empty structs); add e.g. `_unused: u8`",
                ));
                continue;
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
                    match parse_type(&f.ty, &value_structs) {
                        Ok(ty) => fields.push(Field { name, ty }),
                        Err(e) => errors.push(e),
                    }
                }
            }
            let name = s.ident.clone();
            structs.push(StructDef { kind, name, fields, counters, buffers, item: s, size: 0, align: 1, value });
        }

        let mut layouts = BTreeMap::new();
        let order = structs
            .iter()
            .filter(|s| !matches!(s.kind, StructKind::Counters | StructKind::Buffers))
            .map(|s| s.name.to_string())
            .chain(enums.iter().map(|e| e.name.to_string()));
        for n in order {
            let mut stack = Vec::new();
            compute_layout(&n, &structs, &enums, &mut layouts, &mut stack, errors);
        }
        for s in &mut structs {
            if let Some(&(size, align)) = layouts.get(&s.name.to_string()) {
                s.size = size;
                s.align = align;
            }
        }

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

    /// The spawn handler of task `task`.
    pub fn spawn_handler(&self, task: &str) -> Option<&FnDef> {
        self.fns.iter().find(|f| matches!(&f.kind, FnKind::Handler { task: t } if t == task))
    }

    /// The complete handler of task `task`, if it has one.
    pub fn complete_handler(&self, task: &str) -> Option<&FnDef> {
        self.fns.iter().find(|f| matches!(&f.kind, FnKind::Complete { task: t, .. } if t == task))
    }

    /// Whether any task has a complete handler (the program then needs join frames).
    pub fn joins(&self) -> bool {
        self.fns.iter().any(|f| matches!(f.kind, FnKind::Complete { .. }))
    }

    /// The value type tasks hand their parents (one per module), if any task declares one.
    pub fn value_ty(&self) -> Option<&Ty> {
        self.tasks().find_map(|t| t.value.as_ref().map(|(ty, _)| ty))
    }

    /// The distinct types tasks hand their parents, in task order.
    pub fn value_types(&self) -> Vec<Ty> {
        let mut out: Vec<Ty> = Vec::new();
        for (ty, _) in self.tasks().filter_map(|t| t.value.as_ref()) {
            if !out.contains(ty) {
                out.push(ty.clone());
            }
        }
        out
    }

    /// Whether values are a union on the device and an enum (`Value`) in Rust: when tasks
    /// hand values of several types, or of one type that is not a scalar.
    pub fn values_are_union(&self) -> bool {
        match &self.value_types()[..] {
            [] => false,
            [t] => !matches!(t, Ty::Int(_) | Ty::Float(_) | Ty::Bool),
            _ => true,
        }
    }
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

/// `ty` (written `t`), unless it holds a type that exists only in handler code.
fn data_type(t: &syn::Type, ty: Ty) -> syn::Result<Ty> {
    match ty.code_only() {
        Some(c) => Err(syn::Error::new_spanned(
            t,
            format!("`{}` exists only in handler code (locals, parameters, results); struct fields, task values and params cannot hold it", crate::types::rust_name(c)),
        )),
        None => Ok(ty),
    }
}

/// What a marker makes of a function.
pub(crate) enum FnRole {
    Helper,
    Spawn,
    /// `#[complete]`, with its arguments (`max_children = N`) if any.
    Complete(Option<syn::MetaList>),
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

/// `max_children = N` of `#[complete(max_children = N)]`.
fn parse_max_children(args: &syn::MetaList, errors: &mut Vec<syn::Error>) -> Option<u32> {
    let usage = "`#[complete]` takes `max_children = N`: the most children a task spawns, which bounds the values its complete handler receives";
    let parsed = args.parse_args_with(|input: syn::parse::ParseStream| {
        let key: Ident = input.parse()?;
        input.parse::<syn::Token![=]>()?;
        let n: syn::LitInt = input.parse()?;
        Ok((key, n))
    });
    match parsed {
        Ok((key, n)) if key == "max_children" => match n.base10_parse::<u32>() {
            Ok(v) if (1..=1024).contains(&v) => Some(v),
            _ => {
                errors.push(syn::Error::new(n.span(), "`max_children` must be between 1 and 1024"));
                None
            }
        },
        Ok((key, _)) => {
            errors.push(syn::Error::new(key.span(), usage));
            None
        }
        Err(_) => {
            errors.push(syn::Error::new_spanned(args, usage));
            None
        }
    }
}

/// The `&TaskType` first parameter of a handler: the task's name.
fn handler_task(t0: &syn::Type, structs: &[StructDef], usage: &str, errors: &mut Vec<syn::Error>) -> Option<String> {
    if let syn::Type::Reference(r) = t0 {
        if r.mutability.is_none() {
            if let syn::Type::Path(p) = &*r.elem {
                if let Some(id) = p.path.get_ident() {
                    let n = id.to_string();
                    if structs.iter().any(|s| s.kind == StructKind::Task && s.name == n) {
                        return Some(n);
                    }
                    errors.push(syn::Error::new(
                        r.elem.span(),
                        format!("`{n}` is not a `#[task]` struct; a handler's first parameter is `&TaskType`"),
                    ));
                    return None;
                }
            }
        }
    }
    errors.push(syn::Error::new(t0.span(), usage));
    None
}

fn is_ctx_param(t: &syn::Type) -> bool {
    match t {
        syn::Type::Reference(r) if r.mutability.is_some() => match &*r.elem {
            syn::Type::Path(p) => p.path.segments.len() == 1 && p.path.segments[0].ident == "Ctx",
            _ => false,
        },
        _ => false,
    }
}

/// `&[T]` with `T` a scalar: the children's values of a complete handler.
fn slice_param(t: &syn::Type, structs: &[String], names: &[(String, Option<u64>)]) -> Option<Ty> {
    let syn::Type::Reference(r) = t else { return None };
    if r.mutability.is_some() {
        return None;
    }
    let syn::Type::Slice(sl) = &*r.elem else { return None };
    match parse_type_in(&sl.elem, structs, names) {
        Ok(e) if e.is_value() => Some(Ty::Slice(Box::new(e), false)),
        _ => None,
    }
}

pub(crate) fn parse_fn(
    role: FnRole,
    f: syn::ItemFn,
    owner: Option<&Ident>,
    value_structs: &[String],
    names: &[(String, Option<u64>)],
    structs: &[StructDef],
    errors: &mut Vec<syn::Error>,
) -> Option<FnDef> {
    let parse_type = |t: &syn::Type, s: &[String]| parse_type_in(t, s, names);
    let sig = &f.sig;
    let n0 = errors.len();
    let generics: Vec<Ident> = sig.generics.type_params().map(|t| t.ident.clone()).collect();
    let only_types = sig.generics.params.iter().all(|p| matches!(p, syn::GenericParam::Type(_)));
    if !only_types || (!generics.is_empty() && !matches!(role, FnRole::Helper)) {
        errors.push(syn::Error::new(
            sig.generics.span(),
            "only helper functions may be generic, over type parameters (`fn f<T: Copy>(x: T) -> T`, `fn g<F: Fn(u32) -> u32>(f: F)`); lifetimes and const generics are not supported",
        ));
        return None;
    }
    if !generics.is_empty() && owner.is_some() {
        errors.push(syn::Error::new(
            sig.generics.span(),
            "generic methods are not supported yet; write a generic helper function (`fn f<T: Copy>(x: T) -> T`) and call it from the method",
        ));
        return None;
    }
    if !generics.is_empty() {
        let name = sig.ident.clone();
        return (errors.len() == n0).then(|| FnDef { kind: FnKind::Helper, name, owner: None, params: Vec::new(), ctx: None, ret: Ty::Unit, item: f, konst: None, generics, shared: None });
    }
    if let Some(t) = &sig.asyncness {
        errors.push(syn::Error::new(t.span(), "`async` functions are not supported in megakernel code"));
    }
    if let Some(t) = &sig.unsafety {
        errors.push(syn::Error::new(t.span(), "`unsafe` is not supported in megakernel code"));
    }
    if let Some(t) = &sig.constness {
        errors.push(syn::Error::new(t.span(), "`const fn` is not supported yet; write a plain `fn`"));
    }
    if let Some(v) = &sig.variadic {
        errors.push(syn::Error::new(v.span(), "variadic functions are not supported"));
    }
    let ret = match &sig.output {
        syn::ReturnType::Default => Ty::Unit,
        syn::ReturnType::Type(_, t) => match parse_type(t, value_structs) {
            Ok(t) => t,
            Err(e) => {
                errors.push(e);
                Ty::Err
            }
        },
    };
    let mut params = Vec::new();
    let mut ctx = None;
    let kind;
    let inputs: Vec<&syn::FnArg> = sig.inputs.iter().collect();
    match role {
        FnRole::Spawn => {
            let usage = "a spawn handler's signature must be `fn name(task: &TaskType, ctx: &mut Ctx)`, with `-> T` when the task declares `#[task(value = T)]`";
            if inputs.len() != 2 {
                errors.push(syn::Error::new(sig.span(), usage));
                return None;
            }
            let (p0, t0) = typed_arg(inputs[0], errors)?;
            let (p1, t1) = typed_arg(inputs[1], errors)?;
            let task = handler_task(t0, structs, usage, errors)?;
            if !is_ctx_param(t1) {
                errors.push(syn::Error::new(t1.span(), usage));
                return None;
            }
            params.push(Param { name: p0, ty: Ty::Struct(task.clone()) });
            ctx = Some(p1);
            kind = FnKind::Handler { task };
        }
        FnRole::Complete(args) => {
            let usage = "a complete handler's signature must be `fn name(task: &TaskType, children: &[V], ctx: &mut Ctx) -> T` \
                         (`children` holds the values the children returned, in spawn order; leave it out when they return none)";
            if !(2..=3).contains(&inputs.len()) {
                errors.push(syn::Error::new(sig.span(), usage));
                return None;
            }
            let (p0, t0) = typed_arg(inputs[0], errors)?;
            let task = handler_task(t0, structs, usage, errors)?;
            params.push(Param { name: p0, ty: Ty::Struct(task.clone()) });
            if inputs.len() == 3 {
                let (p1, t1) = typed_arg(inputs[1], errors)?;
                let Some(slice) = slice_param(t1, value_structs, names) else {
                    errors.push(syn::Error::new(
                        t1.span(),
                        "the children's values are received as a slice of the children's value type, e.g. `children: &[i32]`",
                    ));
                    return None;
                };
                params.push(Param { name: p1, ty: slice });
            }
            let (pc, tc) = typed_arg(inputs[inputs.len() - 1], errors)?;
            if !is_ctx_param(tc) {
                errors.push(syn::Error::new(tc.span(), usage));
                return None;
            }
            ctx = Some(pc);
            let max_children = args.and_then(|a| parse_max_children(&a, errors));
            kind = FnKind::Complete { task, max_children };
        }
        FnRole::Helper => {
            let context = ContextNames::of(structs);
            for arg in &sig.inputs {
                if let (syn::FnArg::Receiver(r), Some(owner)) = (arg, owner) {
                    match impls::receiver_type(r, owner, value_structs, names) {
                        Ok(t) => params.push(Param { name: Ident::from(r.self_token), ty: t }),
                        Err(e) => errors.push(e),
                    }
                    continue;
                }
                let Some((name, ty)) = typed_arg(arg, errors) else { continue };
                let parsed = context_param(ty, &context).unwrap_or_else(|| parse_param_type(ty, value_structs, names));
                match parsed {
                    Ok(Ty::Ctx) if params.iter().any(|p| p.ty == Ty::Ctx) => {
                        errors.push(syn::Error::new_spanned(ty, "a function takes the context once: `ctx: &mut Ctx` reaches the params, buffers and counters"));
                    }
                    Ok(t) => params.push(Param { name, ty: t }),
                    Err(e) => errors.push(e),
                }
            }
            kind = FnKind::Helper;
        }
    }
    if errors.len() != n0 {
        return None;
    }
    let name = f.sig.ident.clone();
    Some(FnDef { kind, name, owner: owner.cloned(), params, ctx, ret, item: f, konst: None, generics: Vec::new(), shared: None })
}

fn typed_arg<'a>(arg: &'a syn::FnArg, errors: &mut Vec<syn::Error>) -> Option<(Ident, &'a syn::Type)> {
    match arg {
        syn::FnArg::Receiver(r) => {
            errors.push(syn::Error::new(r.span(), "`self` parameters belong to methods: put the function in an `impl Type { .. }` block of a struct or enum of this module"));
            None
        }
        syn::FnArg::Typed(pt) => match &*pt.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => Some((pi.ident.clone(), &pt.ty)),
            syn::Pat::Wild(_) => Some((Ident::new("_unused", pt.pat.span()), &pt.ty)),
            other => {
                errors.push(syn::Error::new(other.span(), "only simple parameter names are supported, e.g. `x: u32`"));
                None
            }
        },
    }
}

/// A field named `_` (which syn accepts, for anonymous fields): refused with the reason, since
/// the generated code names every field (`self._` is not Rust, nor a C member).
pub(crate) fn is_placeholder_field(f: &syn::Field, errors: &mut Vec<syn::Error>) -> bool {
    let placeholder = f.ident.as_ref().is_some_and(|n| n == "_");
    if placeholder {
        errors.push(syn::Error::new(f.ident.span(), "a field cannot be named `_` in megakernel code: give it a name, e.g. `_unused`"));
    }
    placeholder
}
