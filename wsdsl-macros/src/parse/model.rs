//! The module as the macro understands it: marker-classified structs and functions with
//! parsed types and their C layouts. Bodies stay `syn` until `check` turns them into `ir`.
//!
//! Here the model's types and its queries. The files of `model/` read the module into it:
//! `items.rs` (each item classified, the names checked, the parts parsed in the order their
//! types need), `structs.rs` (fields and task values), `fns.rs` (signatures), `enums.rs`,
//! `traits.rs`, `impls.rs`, `context.rs` (the context's parts as types) and `layout.rs` (C
//! layouts).

use crate::types::{IntTy, Ty};
use proc_macro2::Ident;
use std::collections::BTreeMap;

mod context;
mod enums;
mod fns;
mod impls;
mod items;
mod layout;
mod structs;
mod traits;

pub use context::{context_param, ContextNames};
pub use enums::{EnumDef, Variant};
pub(crate) use fns::{parse_fn, FnRole};
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
