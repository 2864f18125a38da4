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
    quote! {
        /// What a task hands its parent, by task type (the tasks of this module hand values
        /// of several types).
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Value {
            #(#[doc = #docs] #names(#tys),)*
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
