//! Nesting as deep as rustc compiles: the whole expansion, as rustc runs it (`expand_deep`),
//! on a thread with rustc's 8 MiB of stack, gives code; the C it makes nests no deeper than
//! the CUDA compiler takes. (`fuzz.rs` mutates the corpus deeper at random.)

use proc_macro2::TokenStream;
use quote::quote;

/// The shapes of the brief that crashed rustc in the macro: a sum of 5,000 terms (a tree
/// 5,000 deep), 2,000 nested parentheses, 1,000 nested blocks; and more of their kind.
fn deep_bodies() -> Vec<(&'static str, String)> {
    let nest = |open: &str, inner: &str, close: &str, n: usize| format!("{}{inner}{}", open.repeat(n), close.repeat(n));
    vec![
        ("a sum of 5,000 terms", vec!["x"; 5000].join(" + ")),
        ("2,000 nested parentheses", nest("(", "x", " + 1)", 2000)),
        ("1,000 nested blocks", nest("{ let y = x; ", "y", " }", 1000)),
        ("1,000 nested `if`s", nest("if x > 1 { ", "x", " } else { 0 }", 1000)),
        ("an `else if` chain of 3,000", format!("{} {{ 0 }}", (0..3000).map(|k| format!("if x == {k} {{ {k} }} else")).collect::<Vec<_>>().join(" "))),
        ("a closure called 1,000 calls deep", format!("{{ let g = |y: i32| y + 1; {} }}", nest("g(", "x", ")", 1000))),
        // Closures are inlined, at most 24 inside each other (`check/closures.rs`).
        ("20 nested iterator chains", nest("(0..2).map(|k: i32| k + ", "x", ").sum::<i32>()", 20)),
        ("a chain of 2,000 methods", format!("x{}", ".wrapping_add(1)".repeat(2000))),
        ("2,000 negations", format!("{}x", "-".repeat(2000))),
    ]
}

fn module(body: &str) -> TokenStream {
    let body: TokenStream = body.parse().expect("the body lexes");
    quote! {
        mod t {
            #[task]
            struct T { x: i32 }
            #[spawn]
            fn h(t: &T, ctx: &mut Ctx) { let _ = f(t.x); }
            fn f(x: i32) -> i32 { #body }
        }
    }
}

/// Whether the expansion is an error: `compile_error!` invocations ahead of an empty module.
fn is_error(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|t| matches!(t, proc_macro2::TokenTree::Ident(i) if i == "compile_error"))
}

#[test]
fn deep_modules_expand_on_rustcs_stack() {
    for (shape, body) in deep_bodies() {
        let worker = std::thread::Builder::new().stack_size(8 << 20).spawn(move || {
            let tokens = module(&body);
            let out = crate::expand_deep(TokenStream::new(), tokens);
            is_error(&out).then(|| out.to_string().chars().take(400).collect::<String>())
        });
        let error = worker.unwrap().join().unwrap_or_else(|_| panic!("{shape}: the expansion panicked"));
        assert!(error.is_none(), "{shape}: {error:?}");
    }
}

#[test]
fn deep_expressions_become_shallow_c() {
    for (shape, body) in deep_bodies().into_iter().take(3) {
        let c = crate::depth::on_large_stack(move || {
            let m: syn::ItemMod = syn::parse2(module(&body)).expect("the module parses");
            super::cuda(m)
        });
        let deepest = crate::lower::paren_depth(&c.handlers);
        assert!(deepest <= 300, "{shape}: C nested {deepest} parentheses deep");
        // Linear in the input: no quadratic indentation of deep blocks.
        assert!(c.handlers.len() < 2_000_000, "{shape}: {} bytes of C", c.handlers.len());
    }
}

/// A sum of 5,000 terms computes what Rust computes: its hoisted parts add up in order.
#[test]
fn a_hoisted_sum_keeps_its_order_and_types() {
    let body: TokenStream = (1..=600).map(|k| format!("x.wrapping_mul({})", k % 200 + 1)).collect::<Vec<_>>().join(" + ").parse().unwrap();
    let c = super::cuda(super::program(quote! { fn f(x: u8) -> u8 { #body } }));
    let f = super::helper_c(&c, "f");
    assert!(f.contains("ws_u8 t_"), "the partial sums are u8 temporaries: {f}");
    assert!(crate::lower::paren_depth(&f) <= 300, "{f}");
}
