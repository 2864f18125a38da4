//! The C spelling of the module's names (`names.rs`): plain C names unchanged, every other
//! name ASCII, and no two names alike.

use super::*;
use crate::names::{c_ident, c_len_ident, type_name, user};

/// The name `c` spells (`c_ident`'s inverse), or `None` for text no name is spelled as.
fn decode(c: &str) -> Option<String> {
    let Some(body) = c.strip_prefix('0') else { return Some(c.to_string()) };
    let (mut out, mut rest) = (String::new(), body);
    while let Some(ch) = rest.chars().next() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch);
            rest = &rest[1..];
        } else {
            let tail = rest.strip_prefix("_u")?;
            let end = tail.find('_')?;
            out.push(char::from_u32(u32::from_str_radix(&tail[..end], 16).ok()?)?);
            rest = &tail[end + 1..];
        }
    }
    Some(out)
}

/// `c_len_ident`'s inverse on a longer text: the name it starts with, and the rest.
fn decode_len(c: &str) -> Option<(String, &str)> {
    let escaped = c.starts_with('0');
    let digits = if escaped { &c[1..] } else { c };
    let n = digits.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = digits[..n].parse().ok()?;
    let (name, rest) = digits[n..].split_at(len);
    Some((if escaped { decode(&format!("0{name}"))? } else { name.to_string() }, rest))
}

/// Names a module may use, those that escapes could mistake for each other among them.
const NAMES: &[&str] = &[
    "x", "Shape", "_unused", "a__b", "WSDSL_BLOCK_THREADS", "threadIdx", "r#type", "r#loop", "länge", "l_u00e4_nge",
    "l_u00e4_nge_", "高さ", "_u9ad8__u3055_", "größe", "gr_u00f6__u00df_e", "ñ", "_", "é_", "é_u005f_", "x_u005f_", "int", "char",
    "int8_t", "u_int", "Grün", "Gr_u00fc_n", "Ärger",
];

#[test]
fn plain_names_keep_their_spelling() {
    for n in ["x", "Shape", "_unused", "a__b", "WSDSL_BLOCK_THREADS", "threadIdx", "INT_MAX", "l_u00e4_nge", "u_int"] {
        assert_eq!(c_ident(n), n);
    }
    assert_eq!(c_len_ident("Shape"), "5Shape");
    assert_eq!(crate::lower::fn_name("Cell::get"), "m_4Cell_get");
    // A raw identifier is the name without `r#`.
    assert_eq!(c_ident("r#type"), "type");
    assert_eq!(user("r#match"), "u_match");
}

#[test]
fn other_names_are_escaped_to_ascii() {
    assert_eq!(c_ident("länge"), "0l_u00e4_nge");
    assert_eq!(c_ident("高さ"), "0_u9ad8__u3055_");
    assert_eq!(c_ident("größe_max"), "0gr_u00f6__u00df_e_u005f_max");
    // `u_int` is BSD's type in the host's C library: a struct `int` is escaped, a field is not.
    assert_eq!(type_name("int"), "u_0int");
    assert_eq!(type_name("int8_t"), "u_0int8_u005f_t");
    assert_eq!(user("int"), "u_int");
    assert_eq!(type_name("Shape"), "u_Shape");
    assert_eq!(c_len_ident("länge"), "011l_u00e4_nge");
    for n in NAMES {
        let c = c_ident(n);
        assert!(c.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'), "{n}: {c}");
    }
}

#[test]
fn no_two_names_share_a_spelling() {
    for n in NAMES {
        let bare = crate::names::unraw(n);
        assert_eq!(decode(&c_ident(n)).as_deref(), Some(bare), "{n}");
        assert_eq!(decode(&type_name(n)[2..]).as_deref(), Some(bare), "{n}");
        for v in NAMES {
            // `wsv_<Enum>_<Variant>`: the enum's part ends where its length says.
            let both = format!("{}_{}", c_len_ident(n), c_ident(v));
            let (e, rest) = decode_len(&both).unwrap_or_else(|| panic!("{both}"));
            assert_eq!((e.as_str(), decode(&rest[1..]).as_deref()), (bare, Some(crate::names::unraw(v))), "{both}");
        }
    }
}

/// `c` without its string literals, comments and preprocessor lines: the C the compiler
/// reads as identifiers and operators.
fn code_only(c: &str) -> String {
    let mut out = String::new();
    for line in c.lines().filter(|l| !l.trim_start().starts_with('#')) {
        let mut rest = line;
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix('"') {
                rest = &r[r.find('"').map_or(r.len(), |i| i + 1)..];
            } else if rest.starts_with("//") {
                break;
            } else if let Some(r) = rest.strip_prefix("/*") {
                rest = &r[r.find("*/").map_or(r.len(), |i| i + 2)..];
            } else {
                let ch = rest.chars().next().unwrap();
                out.push(ch);
                rest = &rest[ch.len_utf8()..];
            }
        }
        out.push('\n');
    }
    out
}

#[test]
fn raw_and_non_ascii_names_reach_c_as_ascii_identifiers() {
    let c = cuda(program(quote! {
        struct r#type { länge: u32, int: u32 }
        struct 高さ { r#loop: u32 }
        struct int { long: u32 }
        enum Form { int(u32), Größe { ñ: u32 }, NULL }
        trait Maß { fn maß(&self) -> u32; }
        impl Maß for 高さ { fn maß(&self) -> u32 { self.r#loop } }
        impl r#type { fn r#fn(&self, r#in: u32) -> u32 { self.länge + self.int + r#in } }
        fn größte<T: Maß>(a: &T) -> u32 { a.maß() }
        fn r#match(f: Form, t: r#type) -> u32 {
            let ñ = match f { Form::int(x) => x, Form::Größe { ñ } => ñ, Form::NULL => 0 };
            ñ + t.r#fn(1) + größte(&高さ { r#loop: 2 }) + int { long: 3 }.long
        }
    }));
    for text in [&c.types, &c.handlers] {
        let code = code_only(text);
        assert!(code.is_ascii() && !code.contains('#'), "{text}");
    }
    assert!(c.types.contains("struct u_type {\n    ws_u32 u_0l_u00e4_nge;\n    ws_u32 u_int;\n};"), "{}", c.types);
    assert!(c.types.contains("struct u_0_u9ad8__u3055_ {\n    ws_u32 u_loop;\n};"), "{}", c.types);
    // Variants are prefixed members of the union: `int` names nothing of C's there.
    assert!(c.types.contains("union wsu_4Form { wsv_4Form_int u_int; wsv_4Form_0Gr_u00f6__u00df_e u_0Gr_u00f6__u00df_e; };"), "{}", c.types);
    assert!(c.types.contains("struct u_0int {\n    ws_u32 u_long;\n};"), "{}", c.types);
    assert!(c.handlers.contains("__device__ static ws_u32 f_match(u_Form l_f_0, u_type l_t_1)"), "{}", c.handlers);
    assert!(c.handlers.contains("m_4type_fn(const u_type* l_self_0, ws_u32 l_in_1)"), "{}", c.handlers);
    assert!(c.handlers.contains("m_014_u9ad8__u3055__0ma_u00df_(const u_0_u9ad8__u3055_* l_self_0)"), "{}", c.handlers);
}

#[test]
fn a_raw_identifier_of_a_word_is_the_word_and_names_are_one_namespace() {
    // Rust takes `r#Foo` and `Foo` for one name; a keyword's (`r#type`) keeps its `r#`.
    let c = cuda(program(quote! {
        struct r#Foo { r#a: u32, r#type: u32 }
        fn g(f: Foo) -> u32 { f.a + f.r#type }
        fn r#k() -> u32 { r#g(r#Foo { a: 1, r#type: 2 }) + r#g(Foo { r#a: 3, r#type: 4 }) }
    }));
    assert!(c.types.contains("struct u_Foo {\n    ws_u32 u_a;\n    ws_u32 u_type;\n};"), "{}", c.types);
    assert!(helper_c(&c, "k").contains("f_g("), "{}", c.handlers);
    let e = errors(program(quote! {
        fn r#k() -> u32 { 1 }
        fn k() -> u32 { 2 }
    }));
    assert_eq!(e, ["`k` is defined twice in this module"]);
    // Rust keeps types and functions apart; the macro's names are one namespace.
    let e = errors(program(quote! {
        enum r#match { A }
        fn r#match() -> u32 { 1 }
    }));
    assert_eq!(e, ["`r#match` is defined twice in this module"]);
}
