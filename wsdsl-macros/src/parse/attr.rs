//! The inert marker attributes (`#[task]`, `#[spawn]`, `#[complete]`, `#[params]`,
//! `#[counters]`, `#[buffers]`) that `#[megakernel]` consumes. They are never expanded by
//! rustc: the module macro runs first and strips them, which is why they need no definitions
//! of their own. `#[task(value = T)]` and `#[complete(max_children = N)]` take arguments;
//! `model.rs` parses them.

use syn::spanned::Spanned;
use syn::Attribute;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Marker {
    Task,
    Spawn,
    Complete,
    Params,
    Counters,
    Buffers,
}

impl Marker {
    pub fn name(self) -> &'static str {
        match self {
            Marker::Task => "task",
            Marker::Spawn => "spawn",
            Marker::Complete => "complete",
            Marker::Params => "params",
            Marker::Counters => "counters",
            Marker::Buffers => "buffers",
        }
    }
}

fn marker_of(attr: &Attribute) -> Option<Marker> {
    let last = attr.path().segments.last()?;
    match last.ident.to_string().as_str() {
        "task" => Some(Marker::Task),
        "spawn" => Some(Marker::Spawn),
        "complete" => Some(Marker::Complete),
        "params" => Some(Marker::Params),
        "counters" => Some(Marker::Counters),
        "buffers" => Some(Marker::Buffers),
        _ => None,
    }
}

/// A marker and its arguments (`value = T` in `#[task(value = T)]`), if it has any.
pub struct Marked {
    pub marker: Marker,
    pub args: Option<syn::MetaList>,
}

/// Removes the marker attributes from `attrs` and returns the (single) marker found. Only
/// `#[task]` and `#[complete]` may carry arguments.
pub fn take_marker(attrs: &mut Vec<Attribute>, errors: &mut Vec<syn::Error>) -> Option<Marked> {
    let mut found: Option<Marked> = None;
    attrs.retain(|a| {
        let Some(m) = marker_of(a) else { return true };
        let takes_args = matches!(m, Marker::Task | Marker::Complete);
        let args = match &a.meta {
            syn::Meta::List(l) if takes_args => Some(l.clone()),
            _ => None,
        };
        if !matches!(a.meta, syn::Meta::Path(_)) && args.is_none() {
            errors.push(syn::Error::new(
                a.span(),
                format!("`#[{}]` takes no arguments", m.name()),
            ));
        }
        if let Some(prev) = &found {
            errors.push(syn::Error::new(
                a.span(),
                format!(
                    "an item can carry only one marker; it is already `#[{}]`",
                    prev.marker.name()
                ),
            ));
        } else {
            found = Some(Marked { marker: m, args });
        }
        false
    });
    found
}

/// The traits #[megakernel] derives on every struct and enum of the module.
const DERIVED: [&str; 4] = ["Clone", "Copy", "Debug", "PartialEq"];

/// The macro fixes derives and `repr`s itself: the device encoding depends on them. A
/// `#[derive]` of traits it derives anyway (what a Rust programmer writes on a value type,
/// `#[derive(Clone, Copy)]`) is dropped; one naming another trait, and any `#[repr]`, is an
/// error.
pub fn take_derives_reject_repr(attrs: &mut Vec<Attribute>, errors: &mut Vec<syn::Error>) {
    attrs.retain(|a| {
        if !a.path().is_ident("derive") {
            return true;
        }
        let traits = a.parse_args_with(syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated);
        let names: Vec<String> = traits.iter().flatten().map(|p| p.segments.last().map(|s| s.ident.to_string()).unwrap_or_default()).collect();
        let others: Vec<&String> = names.iter().filter(|n| !DERIVED.contains(&n.as_str())).collect();
        if traits.is_err() || !others.is_empty() {
            let shown = others.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
            errors.push(syn::Error::new_spanned(
                a,
                format!(
                    "#[megakernel] derives Clone, Copy, Debug and PartialEq on the module's types itself (Default on counters), so a `#[derive]` may name only those; {} cannot be derived here",
                    if shown.is_empty() { "this list".to_string() } else { shown }
                ),
            ));
        }
        false
    });
    reject_repr(attrs, errors);
}

fn reject_repr(attrs: &[Attribute], errors: &mut Vec<syn::Error>) {
    for a in attrs {
        if a.path().is_ident("repr") {
            errors.push(syn::Error::new_spanned(
                a,
                "remove this `#[repr]`: #[megakernel] chooses representations itself (field-less enums are `#[repr(u32)]`; structs are copied to the device field by field at their C offsets)",
            ));
        }
    }
}
