//! Task values on the Rust side: with several value types in a module, the generated
//! `enum Value` (one variant per task type that declares a value) is `Program::Value`.

use crate::lower::Cuda;
use crate::parse::model::Module;
use proc_macro2::TokenStream;
use quote::quote;

/// `Value`, for a module whose tasks hand values of several types: one variant per task type
/// that declares a value, named after it (the roots' values come back as these).
pub fn value_enum(m: &Module, cuda: &Cuda, p: &TokenStream) -> TokenStream {
    let (names, tys): (Vec<&syn::Ident>, Vec<TokenStream>) = m
        .tasks()
        .filter_map(|t| t.value.as_ref().map(|(ty, _)| (&t.name, crate::types::rust_name(ty).parse::<TokenStream>().expect("a type name"))))
        .unzip();
    let (first, first_ty) = (names[0], &tys[0]);
    let bytes = cuda.value_bytes as usize;
    let docs: Vec<String> = names.iter().map(|t| format!("The value a [`{t}`](struct@{t}) task hands its parent.")).collect();
    // `as_<task>()` per variant, so that a root's value reads as `out.values[0].as_root()`
    // instead of a match. Two types whose snake-case names meet get none (nor would Rust
    // let the program name them apart).
    let snake: Vec<String> = names.iter().map(|t| snake_case(&t.to_string())).collect();
    let accessors: Vec<TokenStream> = names
        .iter()
        .zip(&tys)
        .zip(&snake)
        .filter(|(_, s)| snake.iter().filter(|o| o == s).count() == 1)
        .map(|((t, ty), s)| {
            let method = quote::format_ident!("as_{}", s);
            let doc = format!("The value if it is a [`{t}`](struct@{t}) task's, else `None`.");
            quote! {
                #[doc = #doc]
                pub fn #method(self) -> ::core::option::Option<#ty> {
                    match self {
                        Value::#t(v) => ::core::option::Option::Some(v),
                        #[allow(unreachable_patterns)]
                        _ => ::core::option::Option::None,
                    }
                }
            }
        })
        .collect();
    quote! {
        /// What a task hands its parent, by task type (the tasks of this module hand values
        /// of several types).
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Value {
            #(#[doc = #docs] #names(#tys),)*
        }
        impl Value {
            #(#accessors)*
        }
        impl #p::TaskValue for Value {
            const DEVICE_BYTES: usize = #bytes;
            /// Without the task it came from the image is ambiguous: read as the first
            /// variant (the runtime decodes roots with `Program::decode_value`).
            fn from_device_bytes(bytes: &[u8]) -> Self {
                Value::#first(<#first_ty as #p::TaskValue>::from_device_bytes(bytes))
            }
            fn placeholder() -> Self {
                Value::#first(<#first_ty as #p::TaskValue>::placeholder())
            }
        }
    }
}

/// `GameNode` as `game_node`, `HTTPServer` as `http_server` (a raw identifier's `r#` dropped),
/// for the accessors' names.
fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.trim_start_matches("r#").chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() && i > 0 {
            let before = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if (before.is_lowercase() || before.is_ascii_digit() || (before.is_uppercase() && next_lower)) && before != '_' {
                out.push('_');
            }
        }
        out.extend(c.to_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn snake_case_names_as_rust_writes_them() {
        for (name, want) in [("Root", "root"), ("GameNode", "game_node"), ("HTTPServer", "http_server"), ("Node2D", "node2_d"), ("r#Match", "match"), ("Already_snake", "already_snake"), ("Ärger", "ärger")] {
            assert_eq!(super::snake_case(name), want, "{name}");
        }
    }
}
