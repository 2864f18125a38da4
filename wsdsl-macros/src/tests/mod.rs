//! Unit tests of the pipeline stages, on modules built with `parse_quote!`.

mod depth;
mod emit;
mod errors;
mod fuzz;
mod host_diff;
mod names;
mod typing;

use crate::lower::Cuda;
use proc_macro2::TokenStream;
use quote::quote;

/// A minimal program around `items` (helpers), so tests can focus on the helpers.
pub fn program(items: TokenStream) -> syn::ItemMod {
    syn::parse2(quote! {
        mod t {
            #[task]
            struct T { x: u32 }
            #[spawn]
            fn h(t: &T, ctx: &mut Ctx) { let _ = t.x; }
            #items
        }
    })
    .expect("test module parses")
}

pub fn cuda(m: syn::ItemMod) -> Cuda {
    match crate::compile(m, crate::parse::schedule::DEFAULT_RECURSION_LIMIT) {
        Ok((_, c)) => c,
        Err(e) => panic!("unexpected errors: {:?}", errors_of(e)),
    }
}

/// `Program::FAULT_SITES` of a module that compiles.
pub fn fault_sites(m: syn::ItemMod) -> Vec<String> {
    let mut errors = Vec::new();
    let model = crate::parse::model::Module::parse(m, &mut errors).expect("the module parses");
    let checked = crate::check::check(&model, &mut errors);
    assert!(errors.is_empty(), "unexpected errors: {:?}", errors.iter().map(|e| e.to_string()).collect::<Vec<_>>());
    checked.sites
}

pub fn errors_of(e: syn::Error) -> Vec<String> {
    e.into_iter().map(|e| e.to_string()).collect()
}

pub fn errors(m: syn::ItemMod) -> Vec<String> {
    match crate::compile(m, crate::parse::schedule::DEFAULT_RECURSION_LIMIT) {
        Ok(_) => Vec::new(),
        Err(e) => errors_of(e),
    }
}

/// The C body of helper `f_name` (its definition, not its prototype).
pub fn helper_c(c: &Cuda, name: &str) -> String {
    let head = format!(" f_{name}(");
    let mut lines = c.handlers.lines().skip_while(|l| !(l.contains(&head) && l.ends_with(" {")));
    lines.next().expect("helper emitted");
    lines.take_while(|l| *l != "}").collect::<Vec<_>>().join("\n")
}
