//! `#[megakernel]`: turns a module of task structs and spawn handlers into a
//! `wsdsl::__private::Program` with a native Rust implementation and a CUDA C translation.
//!
//! Pipeline, one stage per file: `model` (classify and parse items, C layouts) → `typeck`
//! (exact Rust types of every expression, into `ir`) → `lower` (CUDA C) → `expand` (Rust
//! glue). Every stage collects errors so one build reports all of them.

extern crate proc_macro;

mod attr;
mod expand;
mod infer;
mod ir;
mod lower;
mod model;
mod span;
mod typeck;
mod types;

#[cfg(test)]
mod tests;

use proc_macro::TokenStream;
use quote::quote;

/// Compiles a module of `#[task]` structs and `#[spawn]` handlers into a megakernel program.
/// See the `wsdsl` crate documentation for the supported Rust subset.
#[proc_macro_attribute]
pub fn megakernel(args: TokenStream, input: TokenStream) -> TokenStream {
    let args = proc_macro2::TokenStream::from(args);
    let module = match syn::parse::<syn::ItemMod>(input) {
        Ok(m) => m,
        Err(e) => return e.to_compile_error().into(),
    };
    if !args.is_empty() {
        let e = syn::Error::new_spanned(args, "#[megakernel] takes no arguments");
        return e.to_compile_error().into();
    }
    let (vis, name) = (module.vis.clone(), module.ident.clone());
    match compile(module) {
        Ok((tokens, _)) => tokens.into(),
        Err(e) => {
            // An empty module keeps rustc from adding errors about the items we rejected.
            let errs = e.to_compile_error();
            quote!(#errs #vis mod #name {}).into()
        }
    }
}

/// The whole pipeline; `Err` combines every error found.
pub(crate) fn compile(module: syn::ItemMod) -> syn::Result<(proc_macro2::TokenStream, lower::Cuda)> {
    let mut errors = Vec::new();
    let model = model::Module::parse(module, &mut errors);
    let Some(model) = model else { return Err(combine(errors)) };
    let checked = typeck::check(&model, &mut errors);
    if !errors.is_empty() {
        return Err(combine(errors));
    }
    let cuda = lower::lower(&model, &checked);
    let tokens = expand::expand(&model, &cuda, &checked.sites);
    Ok((tokens, cuda))
}

fn combine(errors: Vec<syn::Error>) -> syn::Error {
    let mut it = errors.into_iter();
    let mut first = it.next().expect("at least one error");
    for e in it {
        first.combine(e);
    }
    first
}
