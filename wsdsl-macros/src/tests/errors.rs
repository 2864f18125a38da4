//! Rejections of code outside the subset: every error of a module is reported at once.

use super::*;

#[test]
fn several_bad_constructs_are_all_reported() {
    let m: syn::ItemMod = syn::parse_quote! {
        mod bad {
            #[task] struct A { v: Vec<u32> }
            #[task] struct B { x: u32 }
            struct NotATask { y: u32 }
            struct Holder { f: u32 }
            #[spawn]
            fn hb(b: &B, ctx: &mut Ctx) {
                let f = |x: u32| x + 1;
                let _ = Holder { f: f };
                println!("no");
                ctx.spawn(NotATask { y: 1 });
                let _ = b.x.checked_add(1).expect(b.x);
                let _ = b.x.to_string();
            }
        }
    };
    let e = errors(m);
    let want = [
        "`Vec` is not supported",
        "task `A` has no spawn handler; add `#[spawn] fn name(task: &A, ctx: &mut Ctx)`",
        "a closure cannot be a value on the GPU",
        "macro invocations such as `println!`",
        "`NotATask` is not a task type of this megakernel; tasks are the structs marked #[task]: A, B",
        "`expect` takes its message as a string literal",
        "method `to_string` is not supported",
    ];
    for w in want {
        assert!(e.iter().any(|m| m.contains(w)), "missing {w:?} in {e:#?}");
    }
    assert_eq!(e.len(), want.len(), "{e:#?}");
}

#[test]
fn reserved_names_signatures_and_duplicate_handlers() {
    let m: syn::ItemMod = syn::parse_quote! {
        mod bad {
            #[task] #[derive(Clone, Default)] struct A { x: u32 }
            struct Kernel { y: u32 }
            #[spawn] fn h1(a: &A, ctx: &mut Ctx) {}
            #[spawn] fn h2(a: &A, ctx: &mut Ctx) {}
            #[spawn] fn h3(a: A) {}
        }
    };
    let e = errors(m);
    for w in [
        "so a `#[derive]` may name only those; `Default` cannot be derived here",
        "the name `Kernel` is reserved",
        "task `A` already has the spawn handler `h1`",
        "a spawn handler's signature must be `fn name(task: &TaskType, ctx: &mut Ctx)`",
    ] {
        assert!(e.iter().any(|m| m.contains(w)), "missing {w:?} in {e:#?}");
    }
}

#[test]
fn misused_panics_are_reported() {
    let m: syn::ItemMod = syn::parse_quote! {
        mod bad {
            #[task] struct A { x: u32 }
            const MSG: u32 = 1;
            #[spawn]
            fn h(a: &A, ctx: &mut Ctx) {
                if a.x == 0 { panic!(MSG) }
                if a.x == 1 { panic!("{:x}", a.x) }
                if a.x == 2 { panic!("{} {}", a.x) }
                if a.x == 3 { panic!("{}", a.x, a.x) }
                if a.x == 4 { panic!("{nope}") }
                if a.x == 5 { panic!("unmatched }") }
                assert!();
                assert!(a.x);
                assert_eq!(a.x);
                assert_eq!(a.x, 1u8);
                assert_eq!(a, a);
                let _ = a.x.checked_add(1).unwrap(3);
                other::panic!("x");
            }
        }
    };
    let e = errors(m);
    let want = [
        "a panic message must be a string literal",
        "the format spec `{:x}` is not supported",
        "this format string refers to argument 1, but the message has 1 argument(s) after it",
        "argument never used",
        "cannot find value `nope` in this scope",
        "invalid format string: unmatched `}`",
        "`assert!` takes a condition",
        "mismatched types: expected `bool`, found `u32`",
        "`assert_eq!` takes two values to compare",
        "mismatched types: `assert_eq!` compares two values of the same type, found `u32` and `u8`",
        "`assert_eq!` compares integers, floats, bools, field-less enums and `Option`s of them, not `A`",
        "`unwrap` takes no arguments",
        "macro invocations such as `panic!` are not supported",
    ];
    for w in want {
        assert!(e.iter().any(|m| m.contains(w)), "missing {w:?} in {e:#?}");
    }
    assert_eq!(e.len(), want.len(), "{e:#?}");
}

#[test]
fn calls_of_a_refused_signature_report_nothing_more() {
    let m: syn::ItemMod = syn::parse_quote! {
        mod bad {
            #[task] struct A { x: u32 }
            impl A {
                fn scaled(&self, by: Box<u32>) -> u32 { self.x }
            }
            fn merge_count(data: Vec<u32>, n: u32) -> u32 { n }
            #[spawn]
            fn h(a: &A, ctx: &mut Ctx) {
                let n = merge_count(a.x, 1) + a.scaled(2);
                let m = merge_count(a.x, missing);
            }
        }
    };
    let e = errors(m);
    // The two signatures, and the argument that names nothing: no "cannot find function".
    assert_eq!(e.len(), 3, "{e:#?}");
    assert!(e.iter().any(|m| m.contains("`Vec` is not supported")) && e.iter().any(|m| m.contains("`Box` is not supported")), "{e:#?}");
    assert!(e.iter().any(|m| m.contains("cannot find value `missing`")), "{e:#?}");
}

#[test]
fn destructuring_assignment_takes_tuples_of_places() {
    let m: syn::ItemMod = syn::parse_quote! {
        mod bad {
            #[task] struct T { x: u32 }
            #[spawn]
            fn t(t: &T, ctx: &mut Ctx) {
                let mut a = 0u32;
                let mut b = 0u32;
                [a, b] = [t.x, 1];
                (a, b) = (1u32, 2u32, 3u32);
                (a, b) = (1u64, 2u32);
                let _ = a + b;
            }
        }
    };
    let e = errors(m);
    let want = [
        "destructuring assignment takes tuples of places, `(a, b.f, _) = value`",
        "mismatched types: expected `(u32, u32, u32)`, found a tuple of 2 places",
        "mismatched types",
    ];
    for w in want {
        assert!(e.iter().any(|m| m.contains(w)), "missing {w:?} in {e:#?}");
    }
    assert_eq!(e.len(), want.len(), "{e:#?}");
}

/// What a newcomer writes first is accepted: `let else`, `matches!`, `T::from`, iterators
/// through a reference to an array, tuple lets from `min`/`max`, slices of arrays summed.
#[test]
fn a_newcomers_first_constructs_compile() {
    let m: syn::ItemMod = syn::parse_quote! {
        mod probe {
            #[task] struct T { x: u32, a: [u32; 4] }
            fn first_big(a: &[u32; 4]) -> Option<usize> { a.iter().position(|&v| v > 3) }
            #[spawn]
            fn t(t: &T, ctx: &mut Ctx) {
                let Some(i) = first_big(&t.a) else { return; };
                let wide = u64::from(t.x) + i as u64;
                let ok = matches!(t.x, 1 | 2 | 5..=9);
                let w = u64::from(t.x);
                let (lo, hi) = (t.x.min(3), t.x.max(3));
                let s: u32 = t.a[..2].iter().sum();
                if ok && wide > w && lo < hi && s > 0 { ctx.spawn(T { x: t.x - 1, a: t.a }); }
            }
        }
    };
    let e = errors(m);
    assert!(e.is_empty(), "{e:#?}");
}

#[test]
fn conversions_the_standard_library_lacks_are_refused_with_the_cast_to_write() {
    let m: syn::ItemMod = syn::parse_quote! {
        mod bad {
            #[task] struct T { x: u32, y: u64 }
            #[spawn]
            fn t(t: &T, ctx: &mut Ctx) {
                let a = u32::from(t.y);
                let b = usize::from(t.x);
                let c = f32::from(t.x);
                let d: u64 = t.x.into();
                let _ = (a, b, c, d);
            }
        }
    };
    let e = errors(m);
    let want = [
        "the standard library has no `From<u64>` for `u32`",
        "the standard library has no `From<u32>` for `usize`",
        "the standard library has no `From<u32>` for `f32`",
        "`into()` takes its target type from where the value goes",
    ];
    for w in want {
        assert!(e.iter().any(|m| m.contains(w)), "missing {w:?} in {e:#?}");
    }
    assert_eq!(e.len(), want.len(), "{e:#?}");
}

/// A value type with the derive a Rust programmer writes, compared with `==`, and the standard
/// library's `cmp::max`/`min` and `mem::swap`/`replace`: accepted.
#[test]
fn derived_value_types_and_std_helpers_compile() {
    let m: syn::ItemMod = syn::parse_quote! {
        mod probe {
            #[derive(Clone, Copy)]
            struct P { x: f32, y: f32 }
            impl P { fn dist2(&self, o: &P) -> f32 { (self.x - o.x) * (self.x - o.x) + (self.y - o.y) * (self.y - o.y) } }
            #[task] struct T { x: u32, a: [u32; 4] }
            #[spawn]
            fn t(t: &T, ctx: &mut Ctx) {
                let m = std::cmp::max(t.x, 3);
                let n = core::cmp::min(t.x, 3);
                let mut a = t.a;
                let mut b = 1u32;
                let mut c = 2u32;
                std::mem::swap(&mut b, &mut c);
                a.swap(0, 1);
                let has = a.contains(&3);
                let p = P { x: 1.0, y: 2.0 };
                let d = p.dist2(&P { x: 0.0, y: 0.0 });
                let same = p == P { x: 1.0, y: 2.0 } && (m, n) != (n, m);
                let was = std::mem::replace(&mut b, 9);
                let big = a.iter().copied().max().unwrap_or(0);
                let total: u64 = a.iter().map(|&v| v as u64).sum();
                if has && same && was > 0 && d > 0.0 && m > n && b > c && big > 0 && total > 0 { ctx.spawn(T { x: t.x - 1, a }); }
            }
        }
    };
    let e = errors(m);
    assert!(e.is_empty(), "{e:#?}");
}

/// A trait implemented by a helper struct, and the numeric methods and constants of geometry
/// and sign handling: accepted.
#[test]
fn traits_float_functions_and_constants_compile() {
    let m: syn::ItemMod = syn::parse_quote! {
        mod probe {
            trait Area { fn area(&self) -> f32; }
            struct C { r: f32 }
            impl Area for C { fn area(&self) -> f32 { std::f32::consts::PI * self.r * self.r } }
            #[task] struct T { x: u32, y: i32, f: f32 }
            #[spawn]
            fn t(t: &T, ctx: &mut Ctx) {
                let a = t.x.clamp(1, 10);
                let b = t.y.signum();
                let c = t.f.max(0.0).min(1.0);
                let d = (t.f - 1.0).abs() < f32::EPSILON;
                let e = u32::BITS - t.x.leading_zeros();
                let g = (t.y % 7 + 7) % 7;
                let h = t.f.hypot(2.0) + t.f.atan2(1.0) + t.f.exp2() + t.f.cbrt();
                let k = C { r: t.f }.area();
                let l = t.f.to_radians() + core::f64::consts::E as f32;
                let mm = t.y.abs().pow(2) as u32 + (31 - t.x.leading_zeros()) + u32::max(t.x, 1) + i32::abs(t.y) as u32 + f32::sqrt(t.f) as u32;
                if a > 0 && b > 0 && c > 0.0 && d && e > 0 && g > 0 && h > 0.0 && k > 0.0 && l > 0.0 && mm > 0 { ctx.spawn(T { x: t.x - 1, y: t.y, f: t.f }); }
            }
        }
    };
    let e = errors(m);
    assert!(e.is_empty(), "{e:#?}");
}

/// `div_ceil` and `next_power_of_two` are methods of unsigned integers only (as in stable Rust).
#[test]
fn unsigned_only_methods_name_the_signed_type() {
    let m: syn::ItemMod = syn::parse_quote! {
        mod probe {
            #[task] struct T { x: i32 }
            #[spawn]
            fn t(t: &T, ctx: &mut Ctx) {
                let a = t.x.div_ceil(3);
                let b = t.x.next_power_of_two();
                if a > b { ctx.spawn(T { x: t.x - 1 }); }
            }
        }
    };
    let e = errors(m);
    assert!(e.iter().any(|m| m.contains("`div_ceil` exists for unsigned types only, not `i32`")), "{e:#?}");
    assert!(e.iter().any(|m| m.contains("`next_power_of_two` exists for unsigned types only, not `i32`")), "{e:#?}");
}
