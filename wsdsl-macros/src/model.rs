//! The module as the macro understands it: marker-classified structs and functions with
//! parsed types and their C layouts. Bodies stay `syn` until `typeck` turns them into `ir`.

use crate::attr::{reject_derive_repr, take_marker, Marker};
use crate::types::{parse_type, struct_layout, IntTy, Ty};
use proc_macro2::Ident;
use std::collections::BTreeMap;
use syn::spanned::Spanned;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StructKind {
    Task,
    Params,
    Counters,
    Plain,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Reduce {
    Sum,
    Max,
    Min,
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

pub struct StructDef {
    pub kind: StructKind,
    pub name: Ident,
    pub fields: Vec<Field>,
    pub counters: Vec<CounterField>,
    pub item: syn::ItemStruct,
    /// C size and alignment (not for counters, which never cross the host/device boundary).
    pub size: u64,
    pub align: u64,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FnKind {
    Handler { task: String },
    Helper,
}

pub struct Param {
    pub name: Ident,
    pub ty: Ty,
}

pub struct FnDef {
    pub kind: FnKind,
    pub name: Ident,
    pub params: Vec<Param>,
    /// For handlers: the name of the `&mut Ctx` parameter.
    pub ctx: Option<Ident>,
    pub ret: Ty,
    pub item: syn::ItemFn,
}

pub struct Module {
    pub attrs: Vec<syn::Attribute>,
    pub vis: syn::Visibility,
    pub name: Ident,
    /// `use` items, re-emitted untouched.
    pub passthrough: Vec<syn::Item>,
    pub structs: Vec<StructDef>,
    pub fns: Vec<FnDef>,
    pub layouts: BTreeMap<String, (u64, u64)>,
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
    pub fn func(&self, name: &str) -> Option<&FnDef> {
        self.fns.iter().find(|f| f.name == name)
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
        for item in items {
            match item {
                syn::Item::Use(_) => passthrough.push(item),
                syn::Item::Struct(mut s) => {
                    let marker = take_marker(&mut s.attrs, errors);
                    let kind = match marker {
                        None => StructKind::Plain,
                        Some(Marker::Task) => StructKind::Task,
                        Some(Marker::Params) => StructKind::Params,
                        Some(Marker::Counters) => StructKind::Counters,
                        Some(Marker::Spawn) => {
                            errors.push(syn::Error::new(
                                s.ident.span(),
                                "`#[spawn]` marks handler functions, not structs; use `#[task]` on task structs",
                            ));
                            StructKind::Plain
                        }
                    };
                    reject_derive_repr(&s.attrs, errors);
                    raw_structs.push((kind, s));
                }
                syn::Item::Fn(mut f) => {
                    let marker = take_marker(&mut f.attrs, errors);
                    match marker {
                        None | Some(Marker::Spawn) => {}
                        Some(m) => errors.push(syn::Error::new(
                            f.sig.ident.span(),
                            format!("`#[{}]` marks structs; handler functions are marked `#[spawn]`", m.name()),
                        )),
                    }
                    raw_fns.push((marker == Some(Marker::Spawn), f));
                }
                other => errors.push(syn::Error::new(
                    other.span(),
                    "a #[megakernel] module may contain only structs, functions and `use` items",
                )),
            }
        }

        for kind in [StructKind::Params, StructKind::Counters] {
            let mut of_kind = raw_structs.iter().filter(|(k, _)| *k == kind);
            of_kind.next();
            for (_, s) in of_kind {
                errors.push(syn::Error::new(
                    s.ident.span(),
                    format!("a megakernel has at most one `#[{}]` struct", if kind == StructKind::Params { "params" } else { "counters" }),
                ));
            }
        }
        let has = |k| raw_structs.iter().any(|(kind, _)| *kind == k);
        let mut reserved: Vec<&str> = RESERVED.to_vec();
        if !has(StructKind::Params) {
            reserved.push("Params");
        }
        if !has(StructKind::Counters) {
            reserved.push("Counters");
        }
        let mut names: Vec<(String, proc_macro2::Span)> = Vec::new();
        for id in raw_structs.iter().map(|(_, s)| &s.ident).chain(raw_fns.iter().map(|(_, f)| &f.sig.ident)) {
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
            .filter(|(k, _)| *k != StructKind::Counters)
            .map(|(_, s)| s.ident.to_string())
            .collect();

        let mut structs = Vec::new();
        for (kind, s) in raw_structs {
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
            for f in &named.named {
                let name = f.ident.clone().expect("named field");
                if kind == StructKind::Counters {
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
            structs.push(StructDef { kind, name, fields, counters, item: s, size: 0, align: 1 });
        }

        let mut layouts = BTreeMap::new();
        let order: Vec<String> = structs.iter().filter(|s| s.kind != StructKind::Counters).map(|s| s.name.to_string()).collect();
        for n in &order {
            let mut stack = Vec::new();
            compute_layout(n, &structs, &mut layouts, &mut stack, errors);
        }
        for s in &mut structs {
            if let Some(&(size, align)) = layouts.get(&s.name.to_string()) {
                s.size = size;
                s.align = align;
            }
        }

        let mut fns = Vec::new();
        for (is_handler, f) in raw_fns {
            if let Some(def) = parse_fn(is_handler, f, &value_structs, &structs, errors) {
                fns.push(def);
            }
        }

        let module = Module {
            attrs: m.attrs,
            vis: m.vis,
            name: m.ident,
            passthrough,
            structs,
            fns,
            layouts,
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
        }
    }
}

fn compute_layout(
    name: &str,
    structs: &[StructDef],
    layouts: &mut BTreeMap<String, (u64, u64)>,
    stack: &mut Vec<String>,
    errors: &mut Vec<syn::Error>,
) {
    if layouts.contains_key(name) {
        return;
    }
    let Some(def) = structs.iter().find(|s| s.name == name) else { return };
    if stack.iter().any(|s| s == name) {
        errors.push(syn::Error::new(
            def.name.span(),
            format!("struct `{name}` contains itself; recursive types have no fixed size"),
        ));
        layouts.insert(name.to_string(), (1, 1));
        return;
    }
    stack.push(name.to_string());
    for f in &def.fields {
        let mut t = &f.ty;
        while let Ty::Array(e, _) = t {
            t = e;
        }
        if let Ty::Struct(inner) = t {
            compute_layout(inner, structs, layouts, stack, errors);
        }
    }
    stack.pop();
    if layouts.contains_key(name) {
        return;
    }
    let tys: Vec<&Ty> = def.fields.iter().map(|f| &f.ty).collect();
    let (size, align, _) = struct_layout(&tys, layouts);
    layouts.insert(name.to_string(), (size, align));
}

fn parse_counter(ty: &syn::Type) -> syn::Result<(Reduce, IntTy)> {
    let bad = || {
        syn::Error::new(
            ty.span(),
            "counter fields must be `Sum<T>`, `Max<T>` or `Min<T>` with `T` an integer type, e.g. `Sum<u64>`",
        )
    };
    let syn::Type::Path(p) = ty else { return Err(bad()) };
    let last = p.path.segments.last().ok_or_else(bad)?;
    let reduce = match last.ident.to_string().as_str() {
        "Sum" => Reduce::Sum,
        "Max" => Reduce::Max,
        "Min" => Reduce::Min,
        _ => return Err(bad()),
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return Err(bad()) };
    if args.args.len() != 1 {
        return Err(bad());
    }
    let syn::GenericArgument::Type(syn::Type::Path(inner)) = &args.args[0] else { return Err(bad()) };
    let int = inner.path.get_ident().and_then(|i| IntTy::from_name(&i.to_string())).ok_or_else(bad)?;
    Ok((reduce, int))
}

fn parse_fn(
    is_handler: bool,
    f: syn::ItemFn,
    value_structs: &[String],
    structs: &[StructDef],
    errors: &mut Vec<syn::Error>,
) -> Option<FnDef> {
    let sig = &f.sig;
    let n0 = errors.len();
    if !sig.generics.params.is_empty() {
        errors.push(syn::Error::new(sig.generics.span(), "generic functions are not supported in megakernel code"));
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
    let mut kind = FnKind::Helper;
    if is_handler {
        let usage = "a spawn handler's signature must be `fn name(task: &TaskType, ctx: &mut Ctx)`";
        let inputs: Vec<&syn::FnArg> = sig.inputs.iter().collect();
        if inputs.len() != 2 || ret != Ty::Unit {
            errors.push(syn::Error::new(sig.span(), usage));
            return None;
        }
        let (p0, t0) = typed_arg(inputs[0], errors)?;
        let (p1, t1) = typed_arg(inputs[1], errors)?;
        let task = match t0 {
            syn::Type::Reference(r) if r.mutability.is_none() => match &*r.elem {
                syn::Type::Path(p) if p.path.get_ident().is_some() => {
                    let n = p.path.get_ident().unwrap().to_string();
                    if structs.iter().any(|s| s.kind == StructKind::Task && s.name == n) {
                        Some(n)
                    } else {
                        errors.push(syn::Error::new(
                            r.elem.span(),
                            format!("`{n}` is not a `#[task]` struct; a spawn handler's first parameter is `&TaskType`"),
                        ));
                        return None;
                    }
                }
                _ => None,
            },
            _ => None,
        };
        let Some(task) = task else {
            errors.push(syn::Error::new(t0.span(), usage));
            return None;
        };
        let ctx_ok = match t1 {
            syn::Type::Reference(r) if r.mutability.is_some() => match &*r.elem {
                syn::Type::Path(p) => p.path.segments.len() == 1 && p.path.segments[0].ident == "Ctx",
                _ => false,
            },
            _ => false,
        };
        if !ctx_ok {
            errors.push(syn::Error::new(t1.span(), usage));
            return None;
        }
        params.push(Param { name: p0, ty: Ty::Struct(task.clone()) });
        ctx = Some(p1);
        kind = FnKind::Handler { task };
    } else {
        for arg in &sig.inputs {
            let Some((name, ty)) = typed_arg(arg, errors) else { continue };
            match parse_type(ty, value_structs) {
                Ok(t) => params.push(Param { name, ty: t }),
                Err(e) => errors.push(e),
            }
        }
    }
    if errors.len() != n0 {
        return None;
    }
    let name = f.sig.ident.clone();
    Some(FnDef { kind, name, params, ctx, ret, item: f })
}

fn typed_arg<'a>(arg: &'a syn::FnArg, errors: &mut Vec<syn::Error>) -> Option<(Ident, &'a syn::Type)> {
    match arg {
        syn::FnArg::Receiver(r) => {
            errors.push(syn::Error::new(r.span(), "methods are not supported; write a free function"));
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
