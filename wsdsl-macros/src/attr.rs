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

/// The macro fixes derives and `repr`s itself: the device encoding depends on them.
pub fn reject_derive_repr(attrs: &[Attribute], errors: &mut Vec<syn::Error>) {
    for a in attrs {
        if a.path().is_ident("derive") {
            errors.push(syn::Error::new_spanned(
                a,
                "remove this `#[derive]`: #[megakernel] derives the traits the device encoding needs (Clone, Copy, Debug, PartialEq; Default for counters)",
            ));
        } else if a.path().is_ident("repr") {
            errors.push(syn::Error::new_spanned(
                a,
                "remove this `#[repr]`: #[megakernel] chooses representations itself (field-less enums are `#[repr(u32)]`; structs are copied to the device field by field at their C offsets)",
            ));
        }
    }
}
