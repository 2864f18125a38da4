//! Literal inference and operator typing, observed through the C types they select.

use super::*;

#[test]
fn unsuffixed_literals_take_the_type_of_their_context() {
    let c = cuda(program(quote! {
        fn f(a: u64) -> u64 { let x = 3; let y: u8 = 7; a + x + (y as u64) }
        fn g() -> i32 { let z = 5; z }
    }));
    let f = helper_c(&c, "f");
    assert!(f.contains("ws_u64 l_x_1 = ((ws_u64)3);"), "{f}");
    assert!(f.contains("ws_u8 l_y_2 = ((ws_u8)7);"), "{f}");
    assert!(helper_c(&c, "g").contains("ws_i32 l_z_0 = ((ws_i32)5);"));
}

#[test]
fn a_literal_decided_later_is_typed_by_its_later_use() {
    let c = cuda(program(quote! {
        fn f(y: u64) -> u64 { let mut x = 0; x = y; x }
    }));
    assert!(helper_c(&c, "f").contains("ws_u64 l_x_1 = ((ws_u64)0);"));
}

#[test]
fn literals_default_to_i32_and_f64() {
    let c = cuda(program(quote! {
        fn f() -> bool { let a = 1; let b = 2.5; a < 3 && b > 1.0 }
    }));
    let f = helper_c(&c, "f");
    assert!(f.contains("ws_i32 l_a_0"), "{f}");
    assert!(f.contains("ws_f64 l_b_1 = ((ws_f64)2.5);"), "{f}");
}

#[test]
fn literal_under_a_cast_takes_the_cast_type() {
    // `1 << 40` would be an i32 shift, but `(1 as u64) << 40` must be a u64 literal.
    let c = cuda(program(quote! { fn f() -> u64 { (1 as u64) << 40 } }));
    assert!(helper_c(&c, "f").contains("((ws_u64)1)"));
}

#[test]
fn shift_amounts_keep_their_own_type() {
    let c = cuda(program(quote! { fn f(a: u8, n: i64) -> u8 { a << n } }));
    let f = helper_c(&c, "f");
    assert!(f.contains("((ws_u8)((ws_u32)(l_a_0) << ((ws_u32)(l_n_1) & 7u)))"), "{f}");
}

#[test]
fn comparisons_are_bool_and_methods_have_rust_result_types() {
    let c = cuda(program(quote! {
        fn f(a: u64) -> u32 { let n = a.count_ones(); let b = n == 3; if b { a.leading_zeros() } else { 0 } }
    }));
    let f = helper_c(&c, "f");
    assert!(f.contains("ws_u32 l_n_1 = ws_count_ones_u64((ws_u64)(l_a_0));"), "{f}");
    assert!(f.contains("bool l_b_2"), "{f}");
}

#[test]
fn mismatched_operands_are_reported_like_rustc() {
    let e = errors(program(quote! { fn f(a: u32, b: u64) -> u32 { a + b } }));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("found `u32` and `u64`"), "{e:?}");
}

#[test]
fn out_of_range_literals_and_negated_unsigned_are_errors() {
    let e = errors(program(quote! { fn f() -> u8 { let x: u8 = 256; let y: i8 = -128; x + (y as u8) } fn g() -> u32 { -1 } }));
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(e[0].contains("out of range for `u8`"), "{e:?}");
    assert!(e[1].contains("cannot apply unary operator `-` to type `u32`"), "{e:?}");
}

#[test]
fn methods_on_ambiguous_literals_are_rejected() {
    let e = errors(program(quote! { fn f() -> u32 { let x = 5; x.count_ones() } }));
    assert!(e[0].contains("ambiguous numeric type"), "{e:?}");
}
