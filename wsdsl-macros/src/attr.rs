//! The inert marker attributes (`#[task]`, `#[spawn]`, `#[params]`, `#[counters]`,
//! `#[buffers]`) that
//! `#[megakernel]` consumes. They are never expanded by rustc: the module macro runs first
//! and strips them, which is why they need no definitions of their own.

use syn::spanned::Spanned;
use syn::Attribute;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Marker {
    Task,
    Spawn,
    Params,
    Counters,
    Buffers,
}

impl Marker {
    pub fn name(self) -> &'static str {
        match self {
            Marker::Task => "task",
            Marker::Spawn => "spawn",
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
        "params" => Some(Marker::Params),
        "counters" => Some(Marker::Counters),
        "buffers" => Some(Marker::Buffers),
        _ => None,
    }
}

/// Removes the marker attributes from `attrs` and returns the (single) marker found.
pub fn take_marker(attrs: &mut Vec<Attribute>, errors: &mut Vec<syn::Error>) -> Option<Marker> {
    let mut found: Option<Marker> = None;
    attrs.retain(|a| {
        let Some(m) = marker_of(a) else { return true };
        if !matches!(a.meta, syn::Meta::Path(_)) {
            errors.push(syn::Error::new(
                a.span(),
                format!("`#[{}]` takes no arguments", m.name()),
            ));
        }
        if let Some(prev) = found {
            errors.push(syn::Error::new(
                a.span(),
                format!(
                    "an item can carry only one marker; it is already `#[{}]`",
                    prev.name()
                ),
            ));
        } else {
            found = Some(m);
        }
        false
    });
    found
}

/// The macro fixes derives and `repr(C)` itself: the device layout depends on them.
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
                "remove this `#[repr]`: #[megakernel] makes structs `#[repr(C)]` to match the CUDA layout",
            ));
        }
    }
}
