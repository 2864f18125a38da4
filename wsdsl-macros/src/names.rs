//! The C spelling of the module's names.
//!
//! A Rust identifier is not always a C one: a raw identifier carries `r#` (`r#type`), and
//! Rust accepts non-ASCII letters (`länge`, `高さ`), which the host's C++ compiler takes but
//! NVRTC does not ("unrecognized token"). Every name of the module reaches C through
//! [`c_ident`], always after a prefix of the lowering's (`u_` for types, fields, variants,
//! params, counters and buffers, `f_`, `m_`, `h_` and `c_` for functions, `l_` for locals,
//! `t_` for the task union's members; `lower/mod.rs`), so no name, whatever C, C++ or CUDA
//! mean by it (`int`, `template`, `threadIdx`, `printf`, `NULL`, `INT_MAX`,
//! `WSDSL_BLOCK_THREADS`), is read as anything but the program's own.
//!
//! The spelling is injective, so two names of the module never share a C name:
//!
//! - `r#` goes: a raw identifier is the same Rust name as the one without it (`r#x` is `x`),
//!   and the names it allows (keywords) are plain C once prefixed.
//! - A name of ASCII letters, digits and `_` (plain C) stays as it is: every kernel written with
//!   such names keeps its C byte for byte.
//! - Any other name is escaped: `0`, then each ASCII letter and digit as itself and every other
//!   character, `_` included, as `_u<hex>_` (its code point, at least four hex digits):
//!   `länge` is `0l_u00e4_nge`. The leading digit keeps escaped names apart from plain ones (a
//!   Rust identifier never starts with a digit), and the escapes decode left to right.
//! - A type is escaped also when its name is one the host's C library takes once prefixed
//!   (`struct int` would be BSD's `u_int`): [`type_name`].
//!
//! Where a name is followed by more text that could also be read as part of it
//! (`m_<Type>_<name>`, `wsv_<Enum>_<Variant>`), [`c_len_ident`] spells it with its length.
//!
//! Before any of this, [`unraw_words`] drops the `r#` of raw identifiers that need none
//! (`r#len`), in the module's tokens: the macro compares names as written, and Rust takes
//! `r#len` and `len` for one name.

use std::fmt::{Display, Write};

/// The type names whose `u_` spelling the host's C library declares at namespace scope: BSD's
/// `u_char` .. `u_int64_t` (glibc's `<sys/types.h>`, which the emulated GPU's build includes),
/// so that a struct named `int` would be a second `u_int` there ([`type_name`]). Members
/// (`u_int` as a field) and functions (`f_short`) are in no conflict.
const HOST_LIBRARY: [&str; 9] = ["char", "short", "int", "long", "quad_t", "int8_t", "int16_t", "int32_t", "int64_t"];

/// Whether `name` (without `r#`) is already a C identifier's tail.
fn is_plain(name: &str) -> bool {
    name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `name` without the `r#` of a raw identifier.
pub fn unraw(name: &str) -> &str {
    name.strip_prefix("r#").unwrap_or(name)
}

/// The escaped body of a name that is not plain C (without the leading `0`).
fn escaped(name: &str) -> String {
    let mut out = String::with_capacity(name.len() * 2);
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            write!(out, "_u{:04x}_", c as u32).unwrap();
        }
    }
    out
}

/// The C spelling of the module's name `name` (a Rust identifier, raw or not, or a key such as
/// a generic helper's instance name), to follow a prefix: the name itself when it is plain C,
/// else its escape (module documentation).
pub fn c_ident(name: impl Display) -> String {
    let name = name.to_string();
    let bare = unraw(&name);
    if is_plain(bare) {
        bare.to_string()
    } else {
        format!("0{}", escaped(bare))
    }
}

/// `name` as the prefix-free part of a longer C name: `<len><name>` for a plain name,
/// `0<len><escape>` for another. The first digit tells the two apart
/// (a length has no leading zero), and an escape starts with a letter or `_`, so the length
/// ends where the name starts.
pub fn c_len_ident(name: impl Display) -> String {
    let name = name.to_string();
    let bare = unraw(&name);
    if is_plain(bare) {
        format!("{}{bare}", bare.len())
    } else {
        let e = escaped(bare);
        format!("0{}{e}", e.len())
    }
}

/// `u_<name>`: the C name of a field, a variant's union member, a field of the params, a
/// counter or a buffer.
pub fn user(name: impl Display) -> String {
    format!("u_{}", c_ident(name))
}

/// `u_<name>` for a struct or enum of the module, a type at namespace scope: as [`user`], but a
/// name the host's C library takes once prefixed ([`HOST_LIBRARY`]) is escaped (`int` is
/// `u_0int`), as a name that is not plain C is (the leading `0` keeps it apart from the
/// others).
pub fn type_name(name: impl Display) -> String {
    let name = name.to_string();
    let bare = unraw(&name);
    if HOST_LIBRARY.contains(&bare) {
        format!("u_0{}", escaped(bare))
    } else {
        user(bare)
    }
}

/// Rust's keywords in any edition, strict, reserved and contextual: the words a raw identifier
/// may need its `r#` for.
const KEYWORDS: [&str; 58] = [
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in",
    "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super",
    "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box",
    "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen", "macro_rules",
    "union", "safe", "raw", "auto", "default",
];

/// The module with each raw identifier of a word that is no keyword in any edition written
/// without its `r#`: Rust takes `r#len` and `len` for one name, and the macro, which compares
/// names as written, then does too. A keyword's raw identifier (`r#type`) keeps its `r#`, as
/// every use of it must. A module without such identifiers is returned as it is.
pub fn unraw_words(module: syn::ItemMod) -> syn::ItemMod {
    let mut changed = false;
    let tokens = unraw_in(quote::ToTokens::into_token_stream(module.clone()), &mut changed);
    if !changed {
        return module;
    }
    syn::parse2(tokens).unwrap_or(module)
}

fn unraw_in(tokens: proc_macro2::TokenStream, changed: &mut bool) -> proc_macro2::TokenStream {
    use proc_macro2::{Group, TokenTree};
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Ident(i) => {
                let name = i.to_string();
                match name.strip_prefix("r#") {
                    Some(word) if !KEYWORDS.contains(&word) => {
                        *changed = true;
                        TokenTree::Ident(proc_macro2::Ident::new(word, i.span()))
                    }
                    _ => TokenTree::Ident(i),
                }
            }
            TokenTree::Group(g) => {
                let mut n = Group::new(g.delimiter(), crate::depth::with_room(|| unraw_in(g.stream(), changed)));
                n.set_span(g.span());
                TokenTree::Group(n)
            }
            other => other,
        })
        .collect()
}

/// The Rust identifier spelled `name` (as `Ident::to_string` gives it: `r#type` for a raw one).
pub fn rust_ident(name: &str, span: proc_macro2::Span) -> proc_macro2::Ident {
    match name.strip_prefix("r#") {
        Some(raw) => proc_macro2::Ident::new_raw(raw, span),
        None => proc_macro2::Ident::new(name, span),
    }
}
