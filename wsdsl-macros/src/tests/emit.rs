//! The C text chosen for Rust operators whose C meaning differs.

use super::*;

#[test]
fn narrow_arithmetic_is_done_in_unsigned_32_bit() {
    let c = cuda(program(quote! {
        fn mul(a: u16, b: u16) -> u16 { a * b }
        fn add(a: i8, b: i8) -> i8 { a + b }
        fn neg(a: i64) -> i64 { -a }
    }));
    assert!(helper_c(&c, "mul").contains("((ws_u16)((ws_u32)(l_a_0) * (ws_u32)(l_b_1)))"));
    assert!(helper_c(&c, "add").contains("((ws_i8)((ws_u32)(l_a_0) + (ws_u32)(l_b_1)))"));
    // Negation goes through the helper the device keeps opaque (core/rust_semantics.cuh).
    assert!(helper_c(&c, "neg").contains("((ws_i64)ws_neg_u64((ws_u64)(l_a_0)))"));
}

#[test]
fn subtracting_from_zero_is_a_negation() {
    let c = cuda(program(quote! {
        fn f(a: i32) -> i32 { 0 - a }
        fn g(a: u8) -> u8 { a.wrapping_neg() }
    }));
    assert!(helper_c(&c, "f").contains("((ws_i32)ws_neg_u32((ws_u32)(l_a_0)))"));
    assert!(helper_c(&c, "g").contains("((ws_u8)ws_neg_u32((ws_u32)(l_a_0)))"));
}

#[test]
fn shifts_mask_the_count() {
    let c = cuda(program(quote! {
        fn shr(a: i32, n: u32) -> i32 { a >> n }
        fn shl(a: u64, n: u32) -> u64 { a << n }
    }));
    assert!(helper_c(&c, "shr").contains("((ws_i32)((l_a_0) >> ((ws_u32)(l_n_1) & 31u)))"));
    assert!(helper_c(&c, "shl").contains("((ws_u64)((ws_u64)(l_a_0) << ((ws_u32)(l_n_1) & 63u)))"));
}

#[test]
fn casts_use_saturating_helpers_from_floats() {
    let c = cuda(program(quote! {
        fn a(x: f64) -> u8 { x as u8 }
        fn b(x: bool) -> u32 { x as u32 }
        fn c(x: i8) -> u64 { x as u64 }
    }));
    assert!(helper_c(&c, "a").contains("ws_f64_to_u8(l_x_0)"));
    assert!(helper_c(&c, "b").contains("((ws_u32)((l_x_0) ? 1 : 0))"));
    assert!(helper_c(&c, "c").contains("((ws_u64)(l_x_0))"));
}

#[test]
fn division_checks_zero_and_registers_fault_sites() {
    let c = cuda(program(quote! {
        fn d(a: i32, b: i32) -> i32 { a / b }
        fn r(a: u32, b: u32) -> u32 { a % b }
        fn i(a: [u32; 4], k: usize) -> u32 { a[k] }
    }));
    // Each division has two sites (zero, overflow), Rust's two messages.
    assert!(helper_c(&c, "d").contains("ws_div_i32(l_a_0, l_b_1, 0u)"));
    assert!(helper_c(&c, "r").contains("ws_rem_u32(l_a_0, l_b_1, 2u)"));
    assert!(helper_c(&c, "i").contains("(l_a_0).v[ws_index(l_k_1, 4ull, 4u)]"));
    assert!(c.types.contains("struct ws_arr_u32_4 { ws_u32 v[4]; };"));
}

#[test]
fn fault_sites_carry_rusts_messages() {
    let sites = fault_sites(program(quote! {
        fn d(a: i32, b: i32) -> i32 { a / b }
        fn r(a: u32, b: u32) -> u32 { a % b }
        fn i(a: [u32; 4], k: usize) -> u32 { a[k] }
    }));
    assert_eq!(
        sites,
        [
            "<unknown>:0: attempt to divide by zero",
            "<unknown>:0: attempt to divide with overflow",
            "<unknown>:0: attempt to calculate the remainder with a divisor of zero",
            "<unknown>:0: attempt to calculate the remainder with overflow",
            "<unknown>:0: index out of bounds: the len is {0:u} but the index is {1:u}",
        ]
    );
}

#[test]
fn panic_messages_are_rusts_with_the_values_as_placeholders() {
    let sites = fault_sites(program(quote! {
        enum E { A, B = 7 }
        struct S { v: u32 }
        fn f(x: i8, y: u64, z: f32, b: bool, e: E, s: S) -> u32 {
            assert!(x < 3 && b);
            assert!(b, "b {{is}} {}", b);
            assert_eq!(x, -1);
            assert_ne!(z, 1.5, "z {z:?} {0} {y}", x);
            debug_assert_eq!(e as u32, 7, "{:?}", e);
            let q = y.checked_add(1).unwrap() + y.checked_sub(1).expect("y > 0 {}");
            if q == 0 { unreachable!() }
            if q == 1 { todo!("later {}", s.v) }
            if q == 2 { unimplemented!() }
            if q == 3 { panic!("{0} {1} {2} {3} {0}", x, y, z, b) }
            if q == 4 { panic!("{} {:?} {} {} {} {}", x, s, y, z, b, e) }
            panic!()
        }
    }));
    let want = [
        "assertion failed: x < 3 && b",
        "b {{is}} {0:b}",
        "assertion `left == right` failed\n  left: {0:i}\n right: {1:i}",
        // Four values at most (two are the operands).
        "assertion `left != right` failed: z {2:f32?} {3:i} <not shown on the GPU>\n  left: {0:f32?}\n right: {1:f32?}",
        "assertion `left == right` failed: {2:e:A=0,B=7}\n  left: {0:u}\n right: {1:u}",
        "called `Option::unwrap()` on a `None` value",
        "y > 0 {{}}",
        "internal error: entered unreachable code",
        "not yet implemented: later {0:u}",
        "not implemented",
        // An argument shown twice is carried once.
        "{0:i} {1:u} {2:f32} {3:b} {0:i}",
        // A struct is not carried at all.
        "{0:i} <not shown on the GPU> {1:u} {2:f32} {3:b} <not shown on the GPU>",
        "explicit panic",
    ];
    let got: Vec<&str> = sites.iter().map(|s| s.trim_start_matches("<unknown>:0: ")).collect();
    assert_eq!(got, want);
}

#[test]
fn a_panic_leaves_the_function_and_its_callers() {
    let c = cuda(syn::parse_quote! {
        mod t {
            #[task] struct T { x: u32 }
            #[spawn] fn h(t: &T, ctx: &mut Ctx) { let _ = twice(t.x); }
            fn must(x: u32) -> u32 { if x == 0 { panic!("zero: {}", x) } x }
            fn twice(x: u32) -> u32 { must(x) + must(x + 1) }
            fn pure(x: u32) -> u32 { x + 1 }
        }
    });
    let must = helper_c(&c, "must");
    assert!(c.handlers.contains("__device__ static ws_u32 f_must(ws_u32 l_x_0, bool* ws_panicking);"), "{}", c.handlers);
    assert!(must.contains("wsdsl_fault(0u, (ws_u64)(l_x_0), 0ull, 0ull, 0ull);\n        *ws_panicking = true; return ws_u32();"), "{must}");
    let twice = helper_c(&c, "twice");
    assert!(twice.contains("ws_u32 t_1 = f_must(l_x_0, ws_panicking);\n    if (*ws_panicking) { return ws_u32(); }"), "{twice}");
    assert!(c.handlers.contains("__device__ static ws_u32 f_pure(ws_u32 l_x_0);"), "{}", c.handlers);
    let h = &c.handlers[c.handlers.find("h_h(").unwrap()..];
    assert!(h.contains("bool ws_panicked = false;"), "{h}");
    assert!(h.contains("ws_u32 t_1 = f_twice((l_t_0).u_x, &ws_panicked);\n    if (ws_panicked) { return; }"), "{h}");
}

#[test]
fn unwrap_tests_the_option_and_debug_assertions_have_their_own_variant() {
    let c = cuda(program(quote! {
        fn u(a: u32) -> u32 { a.checked_add(1).unwrap() }
    }));
    assert!(helper_c(&c, "u").contains("if (!t_1.some) { wsdsl_fault(0u); *ws_panicking = true; return ws_u32(); }"), "{}", c.handlers);
    assert!(c.handlers_debug.is_none());
    let c = cuda(program(quote! {
        fn d(a: u32) -> u32 { debug_assert!(a > 1); a }
    }));
    let debug = c.handlers_debug.as_deref().expect("a debug variant");
    assert!(debug.contains("wsdsl_fault(0u, 0ull, 0ull, 0ull, 0ull);"), "{debug}");
    assert!(!c.handlers.contains("wsdsl_fault"), "{}", c.handlers);
}

#[test]
fn extreme_literals_are_exact_bit_patterns() {
    let c = cuda(program(quote! {
        fn a() -> i64 { i64::MIN }
        fn b() -> i8 { -128i8 }
        fn c() -> f32 { 0.1 }
        fn d() -> f64 { f64::INFINITY }
    }));
    assert!(helper_c(&c, "a").contains("((ws_i64)0x8000000000000000ull)"));
    assert!(helper_c(&c, "b").contains("((ws_i8)0x80ull)"));
    assert!(helper_c(&c, "c").contains("((ws_f32)0.1f)"));
    assert!(helper_c(&c, "d").contains("ws_f64_from_bits(0x7ff0000000000000ull)"));
}

#[test]
fn for_ranges_evaluate_bounds_once_and_inclusive_ranges_stop_at_max() {
    let c = cuda(program(quote! {
        fn f(n: u8) -> u32 { let mut s = 0u32; for i in 0..=n { s += i as u32; } for j in 1..n { s += j as u32; } s }
    }));
    let f = helper_c(&c, "f");
    // The step happens only while the distance to the last element allows it.
    assert!(f.contains("bool t_4 = (t_1 <= t_2);"), "{f}");
    assert!(f.contains("t_4 = ((ws_u64)(ws_u8)((ws_u8)t_5 - (ws_u8)t_6) >= t_3) ? ((t_6 = (ws_u8)((ws_u32)(t_6) + (ws_u32)(t_3))), true) : false"), "{f}");
    // `a..b` is the canonical counted loop (unrollable); `cur < end` guards the increment.
    assert!(f.contains("for (ws_u8 t_9 = t_7; t_9 < t_8; ++t_9) {"), "{f}");
}

#[test]
fn hoisted_operands_keep_left_to_right_order() {
    // The block runs statements, so `a` must be read before them.
    let c = cuda(program(quote! {
        fn f(mut a: u32) -> u32 { a + { a = 5; a } }
    }));
    let f = helper_c(&c, "f");
    let save = f.find("ws_u32 t_2 = l_a_0;").expect(&f);
    let assign = f.find("l_a_0 = ((ws_u32)5);").expect(&f);
    assert!(save < assign, "{f}");
}

#[test]
fn short_circuit_survives_hoisting() {
    let c = cuda(program(quote! {
        fn f(a: bool, b: u32) -> bool { a && { let c = b + 1; c > 2 } }
    }));
    let f = helper_c(&c, "f");
    assert!(f.contains("bool t_2 = l_a_0;\n    if (t_2) {"), "{f}");
}

#[test]
fn output_is_deterministic() {
    let src = quote! {
        #[counters] struct C { n: Sum<u64>, m: Max<i32>, k: Min<u16> }
        #[task] struct B { a: [u8; 3], p: P }
        struct P { x: f64, y: bool }
        #[spawn] fn hb(b: &B, ctx: &mut Ctx) { ctx.counters.n.add(1); ctx.spawn(T { x: b.a[0] as u32 }); }
        fn q(v: [[u16; 2]; 2]) -> u16 { v[1][0] }
    };
    let a = cuda(program(src.clone()));
    let b = cuda(program(src));
    assert_eq!(a.types, b.types);
    assert_eq!(a.handlers, b.handlers);
    assert!(a.types.contains("struct ws_arr_arr_u16_2_2 { ws_arr_u16_2 v[2]; };"), "{}", a.types);
    assert!(a.types.contains("atomicMax((long long*)&slots[1], (long long)(c->u_m));"), "{}", a.types);
    assert!(a.types.contains("c->u_k = ((ws_u16)65535);"), "{}", a.types);
}

#[test]
fn methods_take_the_receiver_first_and_references_are_pointers_to_the_place() {
    let c = cuda(program(quote! {
        struct Cell { v: u32 }
        impl Cell {
            fn get(&self) -> u32 { self.v }
            fn set(&mut self, v: u32) { self.v = v; }
            fn take(self) -> u32 { self.v }
        }
        fn bump(x: &mut u32) { *x += 1; }
        fn f(i: usize) -> u32 {
            let mut a = [Cell { v: 1 }, Cell { v: 2 }];
            a[i].set(5);
            bump(&mut a[i].v);
            a[0].get() + a[1].take()
        }
    }));
    // `Type::name` is `m_<len><Type>_name`; `&self`/`&mut self` are `const T*`/`T*`.
    assert!(c.handlers.contains("__device__ static ws_u32 m_4Cell_get(const u_Cell* l_self_0);"), "{}", c.handlers);
    assert!(c.handlers.contains("__device__ static void m_4Cell_set(u_Cell* l_self_0, ws_u32 l_v_1);"));
    assert!(c.handlers.contains("__device__ static ws_u32 m_4Cell_take(u_Cell l_self_0);"));
    assert!(c.handlers.contains("__device__ static void f_bump(ws_u32* l_x_0);"));
    let f = helper_c(&c, "f");
    // The address of the element itself, never of a copy of the array.
    assert!(f.contains("m_4Cell_set((&((l_a_1).v[ws_index(l_i_0, 2ull, "), "{f}");
    assert!(f.contains("f_bump((&(((l_a_1).v[ws_index(l_i_0, 2ull, "), "{f}");
}

#[test]
fn an_assignment_whose_index_runs_statements_writes_the_array_itself() {
    let c = cuda(program(quote! {
        fn must(x: usize) -> usize { assert!(x < 3); x }
        fn f(k: usize) -> u32 { let mut a = [1u32, 2, 3]; a[must(k)] = 7; a[0] }
    }));
    let f = helper_c(&c, "f");
    assert!(f.contains("(l_a_1).v[ws_index(t_"), "{f}");
    assert!(!f.contains("= l_a_1;"), "the array is not copied:\n{f}");
}

#[test]
fn an_iterator_chain_is_one_loop_and_closures_leave_no_calls() {
    let c = cuda(program(quote! {
        fn f(a: [u32; 4], k: u32) -> u32 {
            let add = |x: u32| x + k;
            a.iter().map(|x| add(*x)).filter(|x| x % 2 == 0).sum()
        }
    }));
    let body = helper_c(&c, "f");
    assert_eq!(body.matches("for (").count(), 1, "{body}");
    // The array is read in place at the loop's index, not copied.
    assert!(body.contains("(l_a_0).v[ws_index("), "{body}");
    assert!(!body.contains("ws_arr_u32_4 l_arr"), "{body}");
    // Closures are inlined: the only functions are the helper itself.
    assert_eq!(c.handlers.matches("static ws_u32 f_").count(), 2, "prototype and definition only:\n{}", c.handlers);
}

#[test]
fn generic_helpers_get_one_c_function_per_instantiation() {
    let c = cuda(program(quote! {
        fn larger<T: Copy + PartialOrd>(a: T, b: T) -> T { if a > b { a } else { b } }
        fn apply<F: Fn(u32) -> u32>(f: F, x: u32) -> u32 { f(x) }
        fn g(a: u32, b: u64, c: u32) -> u64 { larger(a, c) as u64 + larger(b, 2) + larger::<u64>(1, 2) + apply(|x| x * 3, a) as u64 }
    }));
    for name in ["larger__u32", "larger__u64"] {
        assert_eq!(c.handlers.matches(&format!(" f_{name}(")).count(), 2, "{name}: prototype and definition\n{}", c.handlers);
    }
    assert!(!c.handlers.contains("f_larger("), "the generic helper itself is not emitted");
    assert!(!c.handlers.contains("f_apply"), "a helper taking a closure is inlined");
}

#[test]
fn iterator_panics_carry_rusts_messages() {
    let sites = fault_sites(program(quote! {
        fn m(n: u32) -> u32 { (0..n).min().unwrap() }
        fn s(n: u32, k: usize) -> u32 { (0..n).map(|x| x + 1).step_by(k).sum() }
        fn c(a: [u32; 4], k: usize) -> usize { a.chunks(k).count() }
    }));
    for want in ["called `Option::unwrap()` on a `None` value", "assertion failed: step != 0", "chunk size must be non-zero"] {
        assert!(sites.iter().any(|s| s.ends_with(want)), "{want:?} in {sites:#?}");
    }
}

#[test]
fn recursive_helpers_take_their_depth_and_check_it_first() {
    let m: syn::ItemMod = syn::parse_quote! {
        mod t {
            #[task] struct T { x: u32 }
            #[spawn] fn h(t: &T, ctx: &mut Ctx) { let _ = even(t.x) || fib(t.x) > 3 || pure(t.x) > 1; }
            fn fib(n: u32) -> u32 { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }
            fn even(n: u32) -> bool { if n == 0 { true } else { odd(n - 1) } }
            fn odd(n: u32) -> bool { if n == 0 { false } else { even(n - 1) && fib(n) > 0 } }
            fn pure(x: u32) -> u32 { x + 1 }
        }
    };
    let c = match crate::compile(m, 40) {
        Ok((_, c)) => c,
        Err(e) => panic!("{:?}", errors_of(e)),
    };
    assert!(c.handlers.contains("__device__ static ws_u32 f_fib(ws_u32 l_n_0, ws_u32 ws_depth, bool* ws_panicking);"), "{}", c.handlers);
    assert!(c.handlers.contains("__device__ static ws_u32 f_pure(ws_u32 l_x_0);"), "no depth without recursion: {}", c.handlers);
    let fib = helper_c(&c, "fib");
    assert!(fib.starts_with("    if (ws_depth >= 40u) { wsdsl_fault(0u); *ws_panicking = true; return ws_u32(); }"), "{fib}");
    assert!(fib.contains("(ws_u32)(((ws_u32)1)))), ws_depth + 1u, ws_panicking);\n        if (*ws_panicking) { return ws_u32(); }"), "{fib}");
    // Within its cycle a call goes one deeper; into another cycle it starts at 0.
    let odd = helper_c(&c, "odd");
    assert!(odd.contains("(ws_u32)(((ws_u32)1)))), ws_depth + 1u, ws_panicking)") && odd.contains("f_fib(l_n_0, 0u, ws_panicking)"), "{odd}");
    let h = &c.handlers[c.handlers.find("h_h(").unwrap()..];
    assert!(h.contains("f_even((l_t_0).u_x, 0u, &ws_panicked)"), "{h}");
}

#[test]
fn a_job_call_records_its_op_word_operands_and_sites_and_frames_keep_its_results() {
    let m: syn::ItemMod = syn::parse2(quote! {
        mod t {
            #[buffers]
            struct B { keys: Buffer<u32>, wide: Buffer<i64>, out: Buffer<i64> }
            #[task]
            struct T { lo: u32, hi: u32 }
            #[spawn]
            fn h(t: &T, ctx: &mut Ctx) {
                ctx.partition(&ctx.buffers.wide, t.lo as usize..t.hi as usize, -3, &ctx.buffers.out, 7);
            }
            #[complete]
            fn c(_t: &T, ctx: &mut Ctx) {
                let _ = ctx.result(1);
            }
        }
    })
    .expect("parses");
    let sites = fault_sites(m.clone());
    let c = cuda(m);
    // Partition (4) of i64 keys (3 << 8) from buffer 1 (wide) into buffer 2 (out); the pivot
    // sign-extended; the call's nine sites start at 0.
    let op = 4 | 3 << 8 | 1 << 16 | 2 << 24;
    let call = format!("ws_job_record(ctx, {op}u, (ws_u64)(((ws_usize)((l_t_0).u_lo))), (ws_u64)(((ws_usize)((l_t_0).u_hi))), 0ull, 0ull, (ws_u64)(((ws_usize)7)), (ws_u64)(ws_i64)(((ws_i64)0xfffffffffffffffdull)), wsdsl_ctx_buffers(ctx)->n_wide, wsdsl_ctx_buffers(ctx)->n_out, 0u);");
    assert!(c.handlers.contains(&call), "{}", c.handlers);
    assert_eq!(sites.len(), 9 + 1, "nine for the job, one for the result's index");
    assert!(sites[0].ends_with("slice index starts at {0:u} but ends at {1:u}"), "{}", sites[0]);
    assert!(sites[6].contains("ctx.partition writes {0:u}..{1:u} of the buffer it reads"), "{}", sites[6]);
    assert!(c.handlers.contains("wsdsl_ctx_result(ctx, ((ws_usize)1), 9u)"), "{}", c.handlers);
    // The frame: the task (a job record is the largest: 16 + 56 bytes), 8 result words, then the
    // values laid over a split job's scratch (16 children x 3 words).
    assert!(c.types.contains("#define WSDSL_JOBS 1") && c.types.contains("ws_job job;"));
    assert!(c.types.contains("ws_u64 results[WSDSL_JOB_RESULTS];") && c.types.contains("#define WSDSL_JOB_SCRATCH 48u"));
    assert_eq!((c.task_bytes, c.frame_bytes), (72, 24 + 72 + 64 + 384));
}

#[test]
fn a_frame_without_jobs_keeps_its_values_right_after_the_task() {
    // A 36-byte task record (not a multiple of 8): the values follow at byte 24 + 36, with no
    // padding for result words the program does not have.
    let m: syn::ItemMod = syn::parse2(quote! {
        mod t {
            #[buffers]
            struct B { keys: Buffer<u32> }
            #[task]
            struct T { a: u32, b: u32, c: u32, d: u32, e: u32, f: u32 }
            #[spawn]
            fn h(t: &T, ctx: &mut Ctx) {
                if t.a > 0 {
                    ctx.spawn(T { a: t.a - 1, b: t.b, c: t.c, d: t.d, e: t.e, f: t.f });
                }
            }
            #[complete]
            fn c(_t: &T, _ctx: &mut Ctx) {}
        }
    })
    .expect("parses");
    let c = cuda(m);
    assert_eq!((c.task_bytes, c.frame_bytes), (36, 24 + 36 + 4));
    assert!(c.types.contains("static_assert(sizeof(ws_frame) == 64,"), "{}", c.types);
}

/// C++ compilers may assume that a loop without side effects ends and delete it; Rust's
/// `loop`, `while` and `while let` go round through one (`ws_loop_progress`), ranges and the
/// iterator chains lowered to them need none.
#[test]
fn loops_rust_does_not_bound_go_round_through_a_side_effect() {
    let c = cuda(program(quote! {
        fn forever(i: u32) -> u32 { let mut i = i; loop { if i == 0 { return 7; } i = i.wrapping_add(2); } }
        fn spin(i: u32) -> u32 { let mut i = i; while i != 1 { i = i.wrapping_add(0); } i }
        fn drain(o: Option<u32>) -> u32 { let mut o = o; let mut n = 0; while let Some(x) = o { n += x; o = None; } n }
        fn ranges(n: u32, a: [u32; 4]) -> u32 { let mut s = 0; for k in 0..n { s += k; } for k in (0..n).rev().step_by(2) { s += k; } s + a.iter().sum::<u32>() }
    }));
    assert!(helper_c(&c, "forever").contains("for (;; ws_loop_progress()) {"), "{}", c.handlers);
    assert!(helper_c(&c, "spin").contains("for (; ((l_i_1) != (((ws_u32)1))); ws_loop_progress()) {"), "{}", c.handlers);
    assert!(helper_c(&c, "drain").contains("for (;; ws_loop_progress()) {"), "{}", c.handlers);
    assert!(!helper_c(&c, "ranges").contains("ws_loop_progress"), "{}", c.handlers);
}

/// A loop that spawns performs an atomic operation each time round (the spawn claims its
/// slot), so no compiler may assume it ends: it goes round without `ws_loop_progress`.
#[test]
fn loops_that_spawn_need_no_progress_marker() {
    let c = cuda(program(quote! {
        #[task]
        struct U { x: u32 }
        #[spawn]
        fn step(u: &U, ctx: &mut Ctx) {
            let mut free = u.x;
            while free != 0 {
                let bit = free & free.wrapping_neg();
                free ^= bit;
                ctx.spawn(T { x: bit });
            }
            let mut i = u.x;
            while i != 1 { i = i.wrapping_add(0); }
        }
    }));
    let loop_over = |var: &str| c.handlers.lines().find(|l| l.trim_start().starts_with("for (") && l.contains(var)).unwrap_or_else(|| panic!("a loop over {var}: {}", c.handlers)).to_string();
    assert!(!loop_over("l_free_").contains("ws_loop_progress"), "the spawning loop: {}", c.handlers);
    assert!(loop_over("l_i_").contains("ws_loop_progress"), "the spinning loop: {}", c.handlers);
}

#[test]
fn inline_attributes_become_cuda_qualifiers() {
    let c = cuda(program(quote! {
        #[inline(never)]
        fn kept(a: u32) -> u32 { a + 1 }
        #[inline(always)]
        fn folded(a: u32) -> u32 { a * 2 }
        #[inline]
        fn hinted(a: u32) -> u32 { a }
    }));
    let head = |name: &str| {
        let at = format!(" f_{name}(");
        c.handlers.lines().find(|l| l.contains(&at) && l.ends_with(" {")).expect("helper emitted").to_string()
    };
    assert!(head("kept").starts_with("__device__ static __noinline__ ws_u32 f_kept("), "{}", head("kept"));
    assert!(head("folded").starts_with("__device__ static __forceinline__ ws_u32 f_folded("), "{}", head("folded"));
    // A plain `#[inline]` is a hint Rust may ignore: NVRTC decides, as without it.
    assert!(head("hinted").starts_with("__device__ static ws_u32 f_hinted("), "{}", head("hinted"));
}
