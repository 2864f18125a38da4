//! Differential test: the same functions run as Rust (this test binary, with overflow checks
//! off like every wsdsl build) and as the generated C compiled by the host C++ compiler
//! against `core/rust_semantics.cuh`, on edge values. A panic in Rust must be a fault in C.

use super::*;
use std::cmp::Ordering;
use std::process::Command;

trait Val: Copy {
    fn c(self) -> String;
    fn show(self) -> String;
}

macro_rules! int_val {
    ($($t:ident => $it:ident, $wide:ty);*) => {$(
        impl Val for $t {
            fn c(self) -> String { crate::lower::int_lit_for_tests(crate::types::IntTy::$it, self as i128 as u128) }
            fn show(self) -> String { (self as $wide).to_string() }
        }
    )*};
}
int_val!(u8 => U8, u64; u16 => U16, u64; u32 => U32, u64; u64 => U64, u64; usize => Usize, u64;
         i8 => I8, i64; i16 => I16, i64; i32 => I32, i64; i64 => I64, i64; isize => Isize, i64);

impl Val for f32 {
    fn c(self) -> String {
        crate::lower::float_lit_for_tests(crate::types::FloatTy::F32, self as f64)
    }
    fn show(self) -> String {
        // All NaNs print alike: C and Rust may produce different NaN payloads.
        if self.is_nan() { "nan".into() } else { self.to_bits().to_string() }
    }
}
impl Val for f64 {
    fn c(self) -> String {
        crate::lower::float_lit_for_tests(crate::types::FloatTy::F64, self)
    }
    fn show(self) -> String {
        if self.is_nan() { "nan".into() } else { self.to_bits().to_string() }
    }
}
impl Val for bool {
    fn c(self) -> String {
        self.to_string()
    }
    fn show(self) -> String {
        (self as u8).to_string()
    }
}

macro_rules! diff {
    ($( fn $name:ident($($a:ident : $t:ty),*) -> $r:ty $body:block for [$( ($($v:expr),*) ),* $(,)?] )*) => {
        $( #[allow(unused_mut, unused_parens, clippy::all)] fn $name($(mut $a: $t),*) -> $r $body )*
        fn source() -> String {
            stringify!($( fn $name($(mut $a: $t),*) -> $r $body )*).to_string()
        }
        /// (C call, expected output line)
        fn cases() -> Vec<(String, String)> {
            let mut v = Vec::new();
            $( {
                let argc = |$($a: $t),*| -> Vec<String> { vec![$(Val::c($a)),*] };
                $( {
                    let args = argc($($v),*);
                    let expect = match std::panic::catch_unwind(|| $name($($v),*)) {
                        Ok(r) => Val::show(r),
                        Err(_) => "P".to_string(),
                    };
                    v.push((format!("f_{}({})", stringify!($name), args.join(", ")), expect));
                } )*
            } )*
            v
        }
    };
}

diff! {
    fn add_u8(a: u8, b: u8) -> u8 { a + b } for [(0, 0), (255, 1), (200, 100), (255, 255)]
    fn mul_u16(a: u16, b: u16) -> u16 { a * b } for [(65535, 65535), (256, 256), (3, 7)]
    fn mul_i32(a: i32, b: i32) -> i32 { a * b } for [(i32::MAX, 2), (i32::MIN, -1), (-7, 6)]
    fn sub_i64(a: i64, b: i64) -> i64 { a - b } for [(i64::MIN, 1), (0, i64::MIN), (5, 9)]
    fn neg_i8(a: i8) -> i8 { -a } for [(i8::MIN), (0), (-1), (127)]
    fn not_u8(a: u8) -> u8 { !a } for [(0), (255), (0x5a)]
    fn shl_u32(a: u32, n: u32) -> u32 { a << n } for [(1, 31), (1, 32), (1, 33), (u32::MAX, 100)]
    fn shl_i8(a: i8, n: i64) -> i8 { a << n } for [(1, 7), (-1, 9), (3, -1)]
    fn shr_i16(a: i16, n: u8) -> i16 { a >> n } for [(i16::MIN, 15), (-1, 200), (0x4000, 17)]
    fn shr_u64(a: u64, n: u32) -> u64 { a >> n } for [(u64::MAX, 63), (u64::MAX, 64), (8, 3)]
    fn div_i32(a: i32, b: i32) -> i32 { a / b } for [(7, -2), (-7, 2), (i32::MIN, -1), (1, 0), (i32::MIN, 1)]
    fn rem_i64(a: i64, b: i64) -> i64 { a % b } for [(-7, 2), (7, -2), (i64::MIN, -1), (5, 0)]
    fn div_u8(a: u8, b: u8) -> u8 { a / b } for [(255, 2), (1, 0)]
    fn rem_f64(a: f64, b: f64) -> f64 { a % b } for [(-7.5, 2.0), (1.0, 0.0), (f64::INFINITY, 1.0)]
    fn f64_u8(x: f64) -> u8 { x as u8 } for [(-1.0), (255.9), (256.0), (f64::NAN), (f64::INFINITY), (-0.99)]
    fn f32_i32(x: f32) -> i32 { x as i32 } for [(2147483520.0), (2147483648.0), (-2147483904.0), (f32::NAN), (f32::NEG_INFINITY), (-1.5)]
    fn f64_u64(x: f64) -> u64 { x as u64 } for [(18446744073709549568.0), (18446744073709551616.0), (-5.0), (1e300)]
    fn f64_i64(x: f64) -> i64 { x as i64 } for [(-9223372036854775808.0), (9223372036854775807.0), (-1e19), (f64::NAN)]
    fn f32_u16(x: f32) -> u16 { x as u16 } for [(65535.5), (65536.0), (0.5)]
    fn u64_f32(x: u64) -> f32 { x as f32 } for [(u64::MAX), (16777217), (0)]
    fn i64_u8(x: i64) -> u8 { x as u8 } for [(-1), (256), (i64::MIN)]
    fn i8_u64(x: i8) -> u64 { x as u64 } for [(-1), (i8::MIN)]
    fn f64_f32(x: f64) -> f32 { x as f32 } for [(1e300), (0.1), (-0.0)]
    fn bool_i8(b: bool) -> i8 { b as i8 } for [(true), (false)]
    fn rotl_u32(x: u32, n: u32) -> u32 { x.rotate_left(n) } for [(0x80000001, 1), (1, 32), (1, 33), (5, 0)]
    fn rotr_i16(x: i16, n: u32) -> i16 { x.rotate_right(n) } for [(1, 1), (-2, 17), (i16::MIN, 15)]
    fn rotl_u8(x: u8, n: u32) -> u8 { x.rotate_left(n) } for [(0x81, 1), (0x81, 9)]
    fn clz_u8(x: u8) -> u32 { x.leading_zeros() } for [(0), (1), (255)]
    fn clz_i64(x: i64) -> u32 { x.leading_zeros() } for [(0), (1), (-1)]
    fn ctz_u16(x: u16) -> u32 { x.trailing_zeros() } for [(0), (0x8000), (6)]
    fn ctz_u64(x: u64) -> u32 { x.trailing_zeros() } for [(0), (1 << 63)]
    fn pop_i32(x: i32) -> u32 { x.count_ones() } for [(-1), (0), (i32::MIN)]
    fn pop_u64(x: u64) -> u32 { x.count_ones() } for [(u64::MAX), (0x0f0f)]
    fn min_i32(a: i32, b: i32) -> i32 { a.min(b) } for [(i32::MIN, 0), (3, -3)]
    fn max_u64(a: u64, b: u64) -> u64 { a.max(b) } for [(u64::MAX, 0), (3, 4)]
    fn wadd_u16(a: u16, b: u16) -> u16 { a.wrapping_add(b).wrapping_mul(3).wrapping_sub(1) } for [(65535, 1), (40000, 40000)]
    fn wneg_u32(a: u32) -> u32 { a.wrapping_neg() } for [(0), (1), (u32::MAX)]
    fn sum_incl(n: u8) -> u32 { let mut s = 0u32; for i in 0..=n { if i % 3 == 0 { continue; } s += i as u32; } s } for [(255), (0), (10)]
    fn sum_excl(a: i8, b: i8) -> i32 { let mut s = 0; for i in a..b { s += i as i32; } s } for [(-128, 127), (5, 5), (5, -5)]
    fn incl_min_max(a: i64) -> u32 { let mut c = 0u32; for _i in a..=i64::MAX { c += 1; } c } for [(i64::MAX), (i64::MAX - 3)]
    fn loops(n: u32) -> u32 { let mut i = 0; let mut c = 0; loop { i += 1; if i > n { break; } if i % 2 == 0 { continue; } c += i; } while c > 10 { c -= 7; } c } for [(0), (9), (100)]
    fn index(k: usize) -> u32 { let a = [10u32, 20, 30]; let mut b = [[0u8; 2]; 3]; b[2][1] = 7; a[k] + b[k][1] as u32 } for [(0), (2), (3), (usize::MAX)]
    fn blocks(x: i32) -> i32 { let y = if x > 0 { x * 2 } else if x == 0 { 100 } else { let z = x - 1; z * z }; let w = { let q = y + 1; q * 2 }; y + w } for [(5), (0), (-3)]
    fn order(a: u32) -> u32 { let mut x = a; x + { x = 5; x } + x } for [(1), (u32::MAX)]
    fn opt_basic(x: u32) -> u32 { let a = half(x); let b: Option<u32> = None; let c = a.or(b).map(|v| v.wrapping_add(1)).unwrap_or(7); c.wrapping_add(quarter(x).unwrap_or(100)) } for [(0), (1), (6), (8), (u32::MAX), (u32::MAX - 1)]
    fn opt_comb(x: u32) -> u32 { let o = Some(x).filter(|v| *v > 3).and_then(half); let mut t = o; let old = t.take(); let mut r = (old.is_some() as u32) * 10 + t.is_none() as u32; r += o.map_or(5, |v| v.wrapping_mul(2)); r += half(x).is_some_and(|v| v > 2) as u32; let _ = t.replace(3); r + t.unwrap_or_default() + half(x).unwrap_or_else(|| x * 3) } for [(0), (2), (3), (8), (9), (u32::MAX)]
    fn opt_unwrap(x: u32) -> u32 { half(x).unwrap() + half(x).expect("even") } for [(4), (3)]
    fn opt_try(x: u32) -> u32 { chain(x).unwrap_or(1) } for [(0), (2), (4), (12), (u32::MAX - 3)]
    fn while_let(n: u32) -> u32 { let mut x = Some(n); let mut steps = 0; while let Some(v) = x { steps += 1; x = if v > 1 { Some(v / 2) } else { None }; } steps } for [(0), (1), (1000), (u32::MAX)]
    fn shapes(k: u32) -> u32 { let s = mk_shape(k); let mut t = s.area(); if let Shape::Rect { w, .. } = s { t += w; } match s { Shape::Duo(_, Some(b)) if b > 3 => t + 1000, Shape::Empty => t + 7, Shape::Circle(..) => t + 1, _ => t } } for [(0), (1), (2), (3), (10), (11), (255), (4000)]
    fn slot_fields(k: u32) -> i64 { let mut s = Slot { best: None, at: (k as u8, -(k as i64)), shape: Shape::Empty }; if k > 3 { s.best = Some(k); s.shape = mk_shape(k); } s.at.1 + s.best.unwrap_or(0) as i64 + s.shape.area() as i64 + s.at.0 as i64 } for [(0), (5), (7), (300)]
    fn find_pos(x: u32) -> u32 { let a = [3, 1, 4, 1]; match find_first(&a, x) { Some(i) => i as u32, None => 99 } } for [(1), (4), (5)]
    fn let_else_t(x: u32) -> u32 { let Some(h) = half(x) else { return 1000; }; let Shape::Rect { w, h: hh } = mk_shape(x) else { return h; }; w + hh + h } for [(0), (1), (2), (5), (9), (10)]
    fn matches_t(k: u32) -> u32 { let s = mk_shape(k); matches!(s, Shape::Duo(_, Some(b)) if b > 3) as u32 * 10 + matches!(k % 7, 1 | 3..=5) as u32 + matches!(half(k), Some(2)) as u32 * 100 } for [(0), (3), (4), (7), (11), (23), (1003)]
    fn opt_eq(a: u32, b: u32) -> u32 { let x = half(a); let y = half(b); (x == y) as u32 + (x != Some(3)) as u32 * 2 + (Some(x) == Some(None)) as u32 * 4 } for [(1, 3), (6, 6), (6, 8), (2, 5), (4, 4)]
    fn contains_t(x: i32) -> u32 { (-3..7).contains(&x) as u32 + (1..=9).contains(&x) as u32 * 2 } for [(-4), (-3), (6), (7), (9), (10)]
    fn abs_diff_i(a: i8, b: i8) -> u8 { a.abs_diff(b) } for [(127, -128), (-5, 3), (0, 0), (-128, 127)]
    fn abs_diff_u(a: u64, b: u64) -> u64 { a.abs_diff(b) } for [(0, u64::MAX), (5, 3), (3, 5)]
    fn multiple(a: u32, b: u32) -> bool { a.is_multiple_of(b) } for [(0, 0), (5, 0), (6, 3), (7, 3)]
    fn assert_opt(a: u32) -> u32 { assert_eq!(half(a), Some(a / 2)); assert_ne!(half(a), None, "odd {}", a); a } for [(4), (5), (0)]
    fn rec_opt(x: u32) -> u32 { rfind(&[5, 3, 8, 3, 1, 9], 0, x).map_or(99, |i| i as u32) + depth_opt(x).unwrap_or(1000) } for [(3), (9), (7), (12), (20)]
    fn short(a: u32, b: u32) -> bool { a != 0 && { let q = b / a; q > 2 } || b == 7 } for [(0, 7), (0, 5), (2, 8), (2, 2)]
    fn consts(a: u32) -> u64 { (u32::MAX as u64) + (i64::MIN as u64) + (u8::BITS as u64) + (a as u64) } for [(0)]
    fn floats(x: f64) -> f64 { (x * 0.1 + 1e-300).sqrt().floor() + x.abs() - 2.5f64 } for [(4.0), (-9.0), (f64::INFINITY)]
    fn floats32(x: f32) -> f32 { (x * 3.0 - 0.1).abs().sqrt() / 7.0 } for [(1.0), (-2.5), (1e30)]
    fn compound(a: i16, b: u32) -> i16 { let mut x = a; x *= 3; x <<= b; x >>= 1; x ^= -1; x %= 1000; x } for [(i16::MIN, 1), (1234, 20), (-5, 0)]
    fn literals() -> i64 { -9223372036854775808 } for [()]
    fn structs(a: u32) -> u32 { let p = Pair { x: a, y: [a; 2] }; let mut q = p; q.y[1] = q.x + 1; id(q).y[1] } for [(1), (u32::MAX)]
    fn match_int(x: i32) -> u32 { match x { i32::MIN => 1, -5..=-1 => 2, 0 => 3, 1 | 2 | 7 => 4, 10..20 => 5, n if n > 1000 => 6, _ => 7 } } for [(i32::MIN), (-3), (0), (7), (19), (20), (5000), (i32::MAX), (-6)]
    fn match_u8(x: u8) -> u8 { match x { 0..=9 => x * 2, 250.. => 1, v => v / 2 } } for [(0), (9), (10), (250), (255), (100)]
    fn match_enum(c: u32) -> u32 { let k = if c == 0 { Color::Red } else if c == 1 { Color::Green } else { Color::Blue }; let v = match k { Color::Red => 10, Color::Green | Color::Blue => 20 }; v + k as u32 + (k == Color::Blue) as u32 } for [(0), (1), (2)]
    fn if_let_checked(a: u32, b: u32) -> u32 { if let Some(s) = a.checked_add(b) { s } else { 7 } } for [(1, 2), (u32::MAX, 1), (u32::MAX, 0)]
    fn checked_i8(a: i8, b: i8) -> i32 { let mut r = 0i32; let ops = [a.checked_add(b), a.checked_sub(b), a.checked_mul(b), a.checked_div(b), a.checked_rem(b), a.checked_neg()]; for i in 0..6 { r = r * 3 + match ops[i] { Some(v) => 1 + (v as i32 & 1), None => 0 }; } r } for [(127, 1), (-128, -1), (-128, 0), (5, -3), (0, 0), (-128, 1), (100, 2)]
    fn checked_u64(a: u64, b: u64) -> u64 { a.checked_mul(b).unwrap_or(1) + a.checked_sub(b).unwrap_or(2) + a.checked_add(b).is_some() as u64 + a.checked_shl(b as u32).unwrap_or(3) + a.checked_shr(70).is_none() as u64 } for [(u64::MAX, 2), (1 << 32, 1 << 32), (5, 3), (0, 64), (3, 63)]
    fn checked_i64(a: i64, b: i64) -> i64 { a.checked_mul(b).unwrap_or(1).wrapping_add(a.checked_div(b).unwrap_or(2)) } for [(i64::MIN, -1), (i64::MAX, 2), (-3, 7), (i64::MIN, 1), (4, 0), (-1, i64::MIN)]
    fn saturating(a: i16, b: i16) -> i64 { a.saturating_add(b) as i64 * 100000 + a.saturating_sub(b) as i64 * 10 + a.saturating_mul(b) as i64 } for [(i16::MAX, 1), (i16::MIN, 1), (-300, 300), (200, -200), (i16::MIN, -1)]
    fn saturating_u32(a: u32, b: u32) -> u64 { a.saturating_add(b) as u64 + a.saturating_sub(b) as u64 + a.saturating_mul(b) as u64 } for [(u32::MAX, 1), (1, 2), (70000, 70000)]
    fn pow_abs(a: i32, e: u32) -> i32 { a.pow(e).wrapping_add(a.abs()) } for [(3, 4), (2, 31), (-2, 31), (i32::MIN, 1), (7, 100), (0, 0)]
    fn pow_u8(a: u8, e: u32) -> u8 { a.pow(e) } for [(2, 7), (2, 8), (3, 5), (255, 0)]
    fn bytes(x: u32, y: i64, z: u16) -> u64 { x.swap_bytes() as u64 ^ y.to_be() as u64 ^ u16::from_be(z) as u64 ^ x.to_le() as u64 ^ x.count_zeros() as u64 ^ (z.is_power_of_two() as u64) << 40 } for [(0x12345678, -2, 0x0100), (0, i64::MIN, 3), (u32::MAX, 1, 0)]
    fn wshift(x: i32, n: u32) -> i32 { x.wrapping_shl(n) ^ x.wrapping_shr(n) } for [(1, 33), (-7, 31), (i32::MIN, 64)]
    fn labels(n: u32) -> u32 { let mut c = 0u32; 'outer: for i in 0..n { let mut j = 0u32; 'inner: loop { j += 1; if j > i { continue 'outer; } if (i * j) % 7 == 3 { break 'outer; } if j % 2 == 0 { continue 'inner; } c += i * j; } } c } for [(0), (5), (40)]
    fn break_value(n: u64) -> u64 { let mut i = 0u64; let r = loop { i += 1; if i * i >= n { break i * 10; } }; let w = 'a: loop { loop { break 'a r + 1; } }; w } for [(0), (17), (1000000)]
    fn while_label(n: i32) -> i32 { let mut s = 0; let mut i = 0; 'w: while i < n { i += 1; for k in 0..i { if k == 3 { continue 'w; } s += k; } } s } for [(0), (10)]
    fn rev_step(a: u8, b: u8, k: usize) -> u32 { let mut s = 0u32; for i in (a..b).rev() { s = s * 3 + i as u32; } for i in (a..=b).step_by(k) { s = s.wrapping_mul(5) + i as u32; } for i in (a..b).rev().step_by(k) { s = s.wrapping_mul(7) ^ i as u32; } for i in (a..=b).rev().step_by(k) { s = s.wrapping_mul(11) ^ i as u32; } s } for [(0, 255, 1), (250, 255, 2), (0, 255, 100), (5, 5, 3), (7, 3, 1), (0, 10, 0), (0, 255, 254), (255, 255, 1)]
    fn step_i64(a: i64, b: i64, k: usize) -> i64 { let mut s = 0i64; for i in (a..b).step_by(k) { s = s.wrapping_add(i); } for i in (a..=b).rev().step_by(k) { s = s.wrapping_mul(3).wrapping_add(i); } s } for [(i64::MIN, i64::MIN + 10, 3), (i64::MAX - 10, i64::MAX, 4), (i64::MIN, i64::MAX, usize::MAX), (-5, 5, 1)]
    fn tuples(a: u32, b: i64) -> i64 { let t = (a, b, (a as u8, true)); let (x, y, (z, w)) = t; let mut u = swap(t.0 as i64, y); u.0 += 1; let m = match (x % 3, w) { (0, true) => 1, (_, false) => 2, (1, _) => 3, _ => 4 }; u.0 + u.1 + z as i64 + m } for [(3, -4), (4, 9), (u32::MAX, i64::MIN)]
    fn tuple_assign(a: u32, b: u32) -> u64 { let mut x = a; let mut y = b; (x, y) = (y, x + 1); let mut p = Pair { x: 0, y: [0; 2] }; let mut i = 0usize; p.y[i] = 5; (p.x, _, (p.y[i], y)) = (x * 2, { i = 1; 7 }, (y, x)); (i, _) = (i + 1, 0); x as u64 * 1000 + y as u64 * 10 + p.x as u64 + p.y[0] as u64 * 3 + p.y[1] as u64 + i as u64 } for [(1, 2), (u32::MAX, 5), (0, u32::MAX)]
    fn from_conv(a: u8, b: i16, c: bool, f: f32) -> f64 { (u64::from(a) + u64::from(c)) as f64 + f64::from(b) + f64::from(f) + f64::from(u32::from(a)) + i64::from(b) as f64 + f64::from(i32::from(b)) + usize::from(a) as f64 } for [(0, 0, false, 0.0), (255, i16::MIN, true, -1.5), (7, i16::MAX, false, 1e30)]
    fn iter_ref(a: u32) -> u32 { let arr = [a, a.wrapping_add(1), 7, 9]; let r = &arr; let s: u32 = r.iter().fold(0u32, |x, &y| x.wrapping_add(y)); let mut b = arr; let m = &mut b; for x in m.iter_mut() { *x = x.wrapping_mul(3); } let big = r.iter().filter(|&&v| v > 8).count() as u32; s.wrapping_add(b[0]).wrapping_add(b[3]).wrapping_add(big) } for [(0), (8), (u32::MAX)]
    fn float_more(x: f64, y: f64) -> f64 { x.signum() + x.to_radians() * 3.0 + x.to_degrees() * 5.0 + x.hypot(y) * 7.0 + y.atan2(x) * 11.0 + x.exp2() + x.cbrt() + x.recip() + x.fract() + x.copysign(y) + (x.is_finite() as u8 as f64) + (x.is_infinite() as u8 as f64) * 2.0 + (x.is_sign_negative() as u8 as f64) * 4.0 + (x.is_sign_positive() as u8 as f64) * 8.0 + (x / 20.0).asin() + (x / 20.0).acos() + x.atan() + (x / 8.0).sinh() + (x / 8.0).cosh() + x.tanh() + std::f64::consts::PI + core::f64::consts::E * 2.0 + std::f64::consts::FRAC_PI_3 } for [(1.5, 2.0), (-2.5, 0.5), (0.0, -0.0), (-0.0, 1.0), (f64::INFINITY, 2.0), (f64::NAN, 1.0), (7.25, -3.0)]
    fn float_more32(x: f32, y: f32) -> f32 { x.signum() + x.to_radians() * 3.0 + x.to_degrees() * 5.0 + x.hypot(y) * 7.0 + y.atan2(x) * 11.0 + x.exp2() + x.cbrt() + x.recip() + x.fract() + x.copysign(y) + (x.is_infinite() as u8 as f32) * 2.0 + (x / 20.0).asin() + x.tanh() + std::f32::consts::PI + core::f32::consts::LN_2 * 3.0 + std::f32::consts::SQRT_2 } for [(1.5, 2.0), (-2.5, 0.5), (-0.0, 1.0), (f32::NEG_INFINITY, 2.0), (3.75, -1.0)]
    fn int_more(a: i32, lo: i32, hi: i32) -> i32 { a.signum() * 1000 + a.clamp(lo, hi) + (a as i8).signum() as i32 * 7 + (a as u8 as u32).clamp(3, 9) as i32 } for [(5, 0, 10), (-7, 0, 10), (0, -3, -1), (i32::MIN, i32::MIN, i32::MAX), (40, 50, 60), (3, 9, 2)]
    fn euclid_int(a: i32, b: i32) -> i64 { a.rem_euclid(b) as i64 * 100000 + a.div_euclid(b) as i64 + (a as u32).rem_euclid(b as u32 | 1) as i64 * 7 + (a as u32).div_euclid(b as u32 | 1) as i64 + (a as i8).rem_euclid(3) as i64 * 11 } for [(7, 3), (-7, 3), (7, -3), (-7, -3), (0, 5), (i32::MIN, i32::MIN), (-1, i32::MIN), (i32::MIN, 7), (i32::MIN, -1), (5, 0)]
    fn euclid_f(x: f64, y: f64) -> f64 { x.rem_euclid(y) * 1000.0 + x.div_euclid(y) } for [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-7.5, -2.0), (-0.0, 3.0), (1.0, 0.0), (f64::NAN, 1.0), (-1e-300, 1e300), (5.0, f64::INFINITY), (-5.0, f64::INFINITY)]
    fn euclid_f32(x: f32, y: f32) -> f32 { x.rem_euclid(y) * 1000.0 + x.div_euclid(y) } for [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-0.0, -3.0), (-1e-30, 3.0)]
    fn clamp_f(x: f64, lo: f64, hi: f64) -> f64 { x.clamp(lo, hi) + (x as f32).clamp(lo as f32, hi as f32) as f64 * 3.0 } for [(1.5, 0.0, 1.0), (-3.0, -1.0, 1.0), (0.25, -1.0, 1.0), (f64::NAN, 0.0, 1.0), (-0.0, 0.0, 1.0), (0.0, -0.0, 0.0), (0.5, 2.0, 1.0), (0.5, f64::NAN, 1.0)]
    fn ilog(a: u64, b: i32) -> u32 { a.ilog2() * 100 + b.ilog2() + (a as u8 | 1).ilog2() * 7 } for [(1, 1), (u64::MAX, i32::MAX), (1024, 3), (0, 1), (5, -4), (5, 0)]
    fn ufcs(a: u32, b: i32, f: f64) -> f64 { u32::max(a, 3) as f64 + i32::abs(b) as f64 + f64::sqrt(f.abs()) + f64::max(f, 1.5) * 3.0 + u32::pow(a % 10, 2) as f64 + f32::min(f as f32, 2.0) as f64 + i32::rem_euclid(b, 7) as f64 + u64::wrapping_add(a as u64, u64::MAX) as f64 + u8::max(7, a as u8) as f64 } for [(5, -7, 2.25), (0, i32::MIN, -4.0), (u32::MAX, 3, f64::NAN)]
    fn ones(a: u32, b: u8, c: i16) -> u32 { a.leading_ones() * 1000 + a.trailing_ones() * 100 + b.leading_ones() * 10 + c.trailing_ones() + (c as u16).leading_ones() * 7 } for [(0, 0, 0), (u32::MAX, 255, -1), (0xF000_000F, 0xC3, 0x7ff), (0x8000_0001, 0x80, i16::MIN)]
    fn ceil_pow(a: u32, b: u32, c: u8, d: u64) -> u64 { a.div_ceil(b) as u64 * 1000 + a.next_power_of_two() as u64 + c.next_power_of_two() as u64 * 3 + d.next_power_of_two() + d.div_ceil(7) } for [(7, 2, 0, 0), (8, 2, 1, 1), (0, 5, 200, u64::MAX), (u32::MAX, 1, 128, 1 << 63), ((1 << 31) + 1, 3, 129, (1 << 63) + 1), (5, 0, 3, 3)]
    fn consts_enum(i: usize) -> u32 { let t = TABLE; t[i % N] + LIMIT + N as u32 } for [(0), (5), (usize::MAX)]
    fn floats_more(x: f64, y: f64) -> f64 { x.ceil() + x.trunc() * 2.0 + x.round() * 4.0 + x.min(y) * 8.0 + x.max(y) * 16.0 + x.mul_add(y, 1.0) + (x.is_nan() as u32 as f64) + y.powi(3) } for [(1.5, 2.0), (-2.5, 0.5), (f64::NAN, 1.0), (3.0, f64::NAN), (-0.5, -0.0), (f64::INFINITY, 2.0)]
    fn floats_f32(x: f32, y: f32) -> f32 { x.ceil() - x.floor() + x.round() + x.min(y) + x.max(y) + x.mul_add(y, -1.0) + x.abs().sqrt() + y.powi(-2) + (x.to_bits() & 0xff) as f32 } for [(1.5, 2.0), (-2.5, 0.5), (f32::NAN, 4.0), (f32::NEG_INFINITY, -0.0)]
    fn transcendental(x: f64) -> f64 { x.exp() + x.ln() + x.log2() + x.sin() + x.cos() + x.powf(1.5) + x.log10() + x.tan() } for [(1.0), (0.5), (10.0)]
    fn block_if_let(x: i64) -> i64 { let y = { let z = x.checked_neg(); if let Some(v) = z { v } else { 0 } }; let y = y * 2; y } for [(i64::MIN), (5), (-9)]
    fn panics(x: u32) -> u32 { if x > 5 { panic!("too big: {} > {}", x, 5) } x * 2 } for [(3), (6)]
    fn asserts(a: i32, b: i32) -> i32 { assert!(a < b); assert!(a != 7, "a = {a}"); assert_eq!(a % 2, 0, "odd {}", a); assert_ne!(b, 0); a + b } for [(2, 4), (4, 2), (7, 9), (3, 4), (-2, 0)]
    fn unwraps(a: u8, b: u8) -> u8 { a.checked_add(b).unwrap() + a.checked_sub(b).expect("a >= b") } for [(5, 3), (255, 1), (3, 5)]
    fn unreach(x: u32) -> u32 { match x { 0 => 1, 1 => todo!(), 2 => unimplemented!("two"), 3 => 4, _ => unreachable!("x = {}", x) } } for [(0), (1), (2), (3), (4)]
    fn via_helper(x: u32) -> u32 { let mut i = x; loop { i = must(i) - 1; if i == 3 { break; } } check(i); 100 / i } for [(5), (2), (6)]
    fn in_loop(n: u32) -> u32 { let mut s = 0u32; for i in 0..n { if i == 13 { check(i); } s += i; } s } for [(10), (20)]
    fn debug_only(x: u32) -> u32 { debug_assert!(x < 10, "x = {}", x); debug_assert_eq!(x, x); x + 1 } for [(3), (30)]
    fn methods(k: usize, v: u8) -> u32 { let mut b = Board::new(1); let first = b.place(k, v); let again = b.place(k, v); b.n * 1000 + first as u32 * 100 + again as u32 * 10 + b.free(k) as u32 + b.total() + Board::N as u32 } for [(0, 7), (3, 0), (2, 255), (4, 1), (usize::MAX, 1)]
    fn by_value(a: u32) -> u32 { let c = Counter::new(a).add(3).add(a); let d = Counter::add(c, 1); c.get() * 7 + d.get() + Counter::START } for [(0), (1), (u32::MAX)]
    fn enum_methods(x: u32) -> u32 { let d = if x % 2 == 0 { Dir::Up } else { Dir::Down }; d.flip().code() * 10 + d.code() + d.flip().flip().code() * 100 } for [(0), (1)]
    fn refs_mut(a: u32, b: u32) -> u64 { let mut x = a; let mut y = b; swap_refs(&mut x, &mut y); bump(&mut x, 5); let r = &mut y; *r += 1; bump(r, 2); x as u64 * 1_000_000 + y as u64 } for [(1, 2), (u32::MAX, 0), (7, u32::MAX)]
    fn ref_elems(k: usize, v: u32) -> u32 { let mut a = [1u32, 2, 3]; bump(&mut a[k % 3], v); let mut b = Board::new(0); bump(&mut b.n, v); b.reset_n(k as u32); let mut g = Grid { rows: [[0u8; 2]; 2], cnt: Counter::new(9) }; g.cnt.bump_by(v); g.set(k % 2, 1, 5); sum3(&a) + sum3(&[v, v, 1]) + b.n + g.cnt.get() + g.rows[k % 2][1] as u32 + g.total() } for [(0, 1), (1, u32::MAX), (5, 100)]
    fn ref_panics(a: u32, b: u32) -> u32 { let mut c = b; bump(&mut c, 1); capped(&a, &c) } for [(1, 2), (5, 3), (0, u32::MAX)]
    fn ref_bounds(k: usize) -> u32 { let mut a = [1u32, 2, 3]; bump(&mut a[k], 1); first_of(&a) + a[2] } for [(0), (2), (3)]
    fn assign_index(k: u32) -> u32 { let mut a = [1u32, 2, 3]; a[must(k) as usize] = 7; a[must(k) as usize] += 1; let mut g = [[0u8; 2]; 2]; g[must(k) as usize % 2][(k % 2) as usize] = 9; a[0] + a[1] + a[2] + g[1][1] as u32 } for [(1), (0), (2), (5)]
    fn slices(i: usize, j: usize) -> u32 { let mut a = [1u32, 2, 3, 4, 5]; slice_fill(&mut a[i..j], 10); let b = &a[..]; slice_sum(b) + slice_sum(&a[i..]) * 3 + slice_sum(&a[..j]) * 7 + slice_len(&a) } for [(0, 5), (1, 3), (2, 2), (5, 5), (3, 2), (6, 7), (2, 6), (7, 1)]
    fn sub_slices(k: usize) -> u32 { let mut a = [5u32; 4]; let r = sub(&mut a[1..], k); let s = &mut a[..2]; s[0] = 9; r + a[0] + a[1] * 10 + a[3] * 100 } for [(0), (2), (3), (4)]
    fn slice_index(k: usize) -> u32 { let a = [1u32, 2, 3]; let s = &a[1..]; s[k] + slice_first(&a[k..]) } for [(0), (1), (2), (3)]
    fn slice_structs(k: usize) -> u32 { let mut cs = [Counter::new(0); 3]; let s = &mut cs[k..]; for i in 0..s.len() { s[i].bump_by(i as u32 + 1); } cs[0].get() + cs[1].get() * 100 + cs[2].get() * 10000 } for [(0), (2), (3), (4)]
    fn method_panics(i: usize) -> u32 { let g = Grid { rows: [[1u8; 2]; 2], cnt: Counter::new(0) }; g.at(i) as u32 + 1 } for [(0), (1), (2), (9)]
    fn for_iter(a: u32, b: u32) -> u32 { let mut arr = [a, b, 3, 4]; let mut s = 0u32; for x in arr.iter() { s = s.wrapping_mul(31).wrapping_add(*x); } for x in &arr { s ^= x; } for x in arr.iter_mut() { *x = x.wrapping_mul(2); } for x in &mut arr { *x += 1; } for x in arr { s = s.wrapping_add(x); arr[0] = 9; } for (i, x) in arr.iter().enumerate() { s = s.wrapping_add(i as u32 * x); } s } for [(0, 0), (u32::MAX, 1), (7, 12345)]
    fn for_struct_field(a: u32) -> u32 { let mut p = Pair { x: a, y: [a, 2] }; for v in p.y.iter_mut().rev() { *v = v.wrapping_add(p.x); } let mut s = 0; for (i, &v) in p.y.iter().enumerate() { s += v * (i as u32 + 1); } s } for [(1), (u32::MAX)]
    fn for_zip(a: i64, n: usize) -> i64 { let p = [a, 2, 3]; let q = [10i64, 20, 30, 40]; let mut s = 0; for (x, y) in p.iter().zip(q.iter()) { s += x * y; } for (x, i) in q.iter().rev().zip(0..n) { s = s * 3 + x + i as i64; } for (k, x) in q.iter().step_by(2).enumerate() { s += k as i64 * x; } 'o: for x in &q { for y in p { if y == 3 { continue 'o; } if *x == 40 { break 'o; } s += y; } } s } for [(0, 0), (i64::MAX, 2), (-5, 9)]
    fn for_step0(k: usize) -> u32 { let v = [1u32, 2, 3]; let mut s = 0; for x in v.iter().step_by(k) { s += x; } s } for [(1), (2), (0), (usize::MAX)]
    fn it_sum(a: u32, b: u32) -> u32 { let v = [a, b, a ^ b, 7]; v.iter().sum::<u32>().wrapping_add(v.iter().map(|x| x * 2).sum::<u32>()) } for [(0, 0), (u32::MAX, 1), (5, 9)]
    fn it_product(a: i64, b: i64) -> i64 { let v = [a, b, -1]; v.iter().product::<i64>().wrapping_add((1..=5i64).product::<i64>()) } for [(i64::MIN, 1), (3, 4), (i64::MAX, 2)]
    fn it_fsum(a: f64, b: f64, n: usize) -> f64 { let e = [a, b, a * b]; e.iter().take(n).sum() } for [(1.5, -0.0, 0), (-0.0, -0.0, 2), (f64::NAN, 1.0, 3), (1e308, 1e308, 2), (0.1, 0.2, 3)]
    fn it_fproduct(a: f32, n: usize) -> f32 { (0..n).map(|i| a + i as f32).product() } for [(1.5, 0), (-2.0, 4), (f32::MAX, 3)]
    fn it_count(n: u32, k: usize) -> usize { (0..n).filter(|x| x % 3 == 0).skip(k).count() } for [(0, 0), (10, 1), (100, 50), (u32::MAX / 1000000, 2)]
    fn it_minmax(a: i32, b: i32, c: i32) -> i64 { let v = [a, b, c]; let mn = *v.iter().min().unwrap(); let mx = v.iter().max().copied().unwrap_or(0); let e = (0..0i32).max().unwrap_or(-7); mn as i64 * 1000000 + mx as i64 + e as i64 } for [(1, 2, 3), (i32::MIN, i32::MAX, 0), (5, 5, 5)]
    fn it_min_empty(n: u32) -> u32 { (0..n).map(|x| x * 3).min().unwrap() } for [(0), (5)]
    fn it_by_key(a: i32, b: i32, c: i32) -> usize { let v = [a, b, c, a]; let (i, _) = v.iter().enumerate().max_by_key(|&(_, x)| *x).unwrap(); let (j, _) = v.iter().enumerate().min_by_key(|(_, x)| x.abs()).unwrap(); let k = (0..10u32).max_by_key(|x| x % 4).unwrap(); i * 100 + j * 10 + k as usize } for [(1, 2, 3), (3, -2, 2), (0, 0, 0), (i32::MIN, 5, -5)]
    fn it_any_all(a: u32, b: u32) -> u32 { let v = [a, b, 3]; v.iter().any(|&x| x > 10) as u32 + 2 * v.iter().all(|x| *x % 2 == 1) as u32 + 4 * (0..a).any(|x| x == 5) as u32 + 8 * (0..0).all(|x: u32| x == 1) as u32 } for [(0, 0), (11, 1), (5, 7), (6, 3)]
    fn it_position(a: u32, b: u32) -> u64 { let v = [a, b, a.wrapping_add(b)]; v.iter().position(|&x| x == b).unwrap_or(9) as u64 * 1000 + (0..20u32).step_by(3).position(|x| x > a).unwrap_or(99) as u64 } for [(0, 0), (5, 3), (100, 100), (1, u32::MAX)]
    fn it_find(a: i32) -> i32 { let v = [3, a, -a]; match v.iter().find(|x| **x < 0) { Some(x) => x + 1, None => 0 } } for [(0), (5), (-5), (i32::MIN)]
    fn it_chain(n: u32, k: usize) -> u64 { (1..=n).map(|x| x as u64 * x as u64).filter(|x| x % 2 == 1).take(k).skip(1).sum() } for [(0, 0), (10, 3), (1000, 1000), (5, 0), (9, usize::MAX)]
    fn it_step_mid(n: u32, k: usize) -> u32 { (0..n).map(|x| x + 1).step_by(k).fold(0u32, |a, x| a.wrapping_mul(7) ^ x) } for [(10, 3), (10, 0), (0, 2), (100, 1), (7, 7)]
    fn it_fold_rev(a: u8) -> u32 { let v = [a, 1, 2, 3]; v.iter().rev().enumerate().fold(0u32, |acc, (i, &x)| acc * 5 + i as u32 * x as u32) } for [(0), (255)]
    fn it_for_each(a: u32) -> u32 { let mut s = 0; let v = [a, 2]; v.iter().for_each(|x| s += x); (0..3).zip(v.iter()).for_each(|(i, x)| s = s.wrapping_mul(i + 2) + x); s } for [(0), (u32::MAX)]
    fn it_take_calls(n: u32) -> u32 { let mut calls = 0u32; let t: u32 = (0..n).map(|x| { calls += 1; x }).take(3).sum(); calls * 100 + t } for [(0), (2), (10)]
    fn it_skip_calls(n: u32) -> u32 { let mut calls = 0u32; let c = (0..n).map(|x| { calls += 1; x }).skip(2).filter(|x| x % 2 == 0).count() as u32; calls * 100 + c } for [(0), (1), (9)]
    fn it_zip_calls(n: u32) -> u32 { let mut calls = 0u32; let b = [1u32, 2]; let mut s = 0; for (x, y) in (0..n).map(|x| { calls += 1; x }).zip(b.iter()) { s += x * y; } let a = (0..n).map(|x| { calls += 10; x }).zip(0..2u32).any(|(x, y)| x + y > 100); for (x, y) in (0..n).rev().map(|x| { calls += 1000; x }).zip(b) { s += x * y; } let _ = (0..n).map(|x| { calls += 10000; x }).filter(|x| *x < 9).zip(b.iter()).count(); calls * 100 + s + a as u32 } for [(0), (1), (5)]
    fn it_incl_rev(a: i8, b: i8) -> i32 { (a..=b).rev().map(|x| x as i32).enumerate().map(|(i, x)| i as i32 * x).sum() } for [(-128, 127), (5, 5), (3, 1), (126, 127)]
    fn it_chunks(a: u32, k: usize) -> u32 { let v = [a, 1, 2, 3, 4, 5, 6]; let mut s = 0u32; for c in v.chunks(k) { s = s.wrapping_mul(7).wrapping_add(c.len() as u32 * 100 + c[0] + c.iter().sum::<u32>()); for &x in c { s ^= x; } } s.wrapping_add(v.chunks(k).map(|c| c[c.len() - 1]).max().unwrap_or(0)) } for [(0, 1), (u32::MAX, 3), (5, 7), (9, 100), (1, 0)]
    fn closures(x: i32) -> i32 { let mut acc = 0; let mut bump = |d: i32| { acc += d; acc }; bump(x); bump(2); let mut m = 5; let g = move |a: i32| a + m; m = 100; let y = 1000; let early = |a: i32| -> i32 { if a < 0 { return -1; } for i in 0..a { if i == 3 { return i * y; } } a + y }; g(1) + m + early(x) + acc } for [(-4), (0), (2), (7)]
    fn closure_shadow(x: u32) -> u32 { let k = 3; let f = |v: u32| v * k; let k = 100; let twice = |v: u32| f(f(v)); twice(x) + k } for [(0), (5), (u32::MAX)]
    fn g_max(a: u8, b: i64, c: f64) -> f64 { gmax(a, 3) as f64 + gmax(b, b.wrapping_neg()) as f64 + gmax(c, 0.5) + gmax::<u64>(7, a as u64) as f64 } for [(0, 0, 0.0), (255, i64::MIN, f64::NAN), (4, -3, 9.5)]
    fn g_sum(a: u32, b: i16) -> i64 { gsum3(a, a, 1) as i64 + gsum3(b, b, b) as i64 + gsum3([a; 2][0] as u8, 1, 2) as i64 } for [(0, 0), (u32::MAX, i16::MAX), (7, -3)]
    fn rec_fib(n: u32) -> u64 { fib(n) } for [(0), (1), (10), (25)]
    fn rec_gcd(a: u64, b: u64) -> u64 { gcd(a, b) } for [(0, 0), (12, 18), (u64::MAX, 3), (1071, 462)]
    fn rec_even(n: u32) -> bool { even(n) && !odd(n) } for [(0), (7), (200), (255)]
    fn rec_generic(a: i32, k: u32) -> u32 { gdepth(a, 5, k) * 1000 + gdepth(a as u8, 200u8, k) } for [(0, 3), (9, 4), (-1, 255)]
    fn rec_method(k: usize) -> u32 { let mut b = Board::new(0); b.cells[k % 4] = 1; b.count_free(0) * 10 + b.count_free(k % 4) } for [(0), (3), (6)]
    fn rec_panics(n: u32) -> u32 { fact(n) } for [(0), (5), (12), (13), (30)]
    fn rec_deep(n: u32) -> u32 { down(n) } for [(0), (255), (256), (1000)]
    fn it_filter_map(a: u32, b: u32) -> u32 { let v = [a, b, a ^ b, 7]; v.iter().filter_map(|&x| if x % 3 == 0 { None } else { Some(x / 3) }).sum::<u32>().wrapping_add((0..a % 50).filter_map(half).count() as u32 * 1000) } for [(0, 0), (9, 4), (u32::MAX, 1), (31, 62)]
    fn it_flat_map(n: u32, k: usize) -> u64 { (0..n).flat_map(|i| (0..i).map(move |j| (i, j))).take(k).map(|(i, j)| (i * 100 + j) as u64).fold(0u64, |a, x| a.wrapping_mul(31) ^ x) } for [(0, 5), (5, 3), (6, 100), (10, 7), (3, 0)]
    fn it_flat_arr(a: u8) -> u32 { let g = [[a, 1, 2], [3, a, 5]]; let s: u32 = g.iter().flatten().map(|&x| x as u32).sum(); let t = [a, 2].iter().flat_map(|&x| [x, x.wrapping_add(1)]).filter(|v| v % 2 == 0).count() as u32; let o = [half(a as u32), None, Some(5)].iter().flatten().sum::<u32>(); s * 100 + t + o * 100000 } for [(0), (7), (255)]
    fn it_flat_break(n: u32) -> u32 { let mut calls = 0u32; let f = (0..n).map(|x| { calls += 1; x }).flat_map(|x| x..x + 3).skip(2).take(5).fold(0u32, |h, v| h * 7 + v); let a = (1..n).flat_map(|x| (0..x).filter(move |y| (x + y) % 3 == 0)).any(|v| v > 4); let mut s = 0u32; 'o: for (i, j) in (0..n).flat_map(|i| (i..n).map(move |j| (i, j))) { if j == i + 2 { continue; } if i * j > 20 { break 'o; } s = s * 3 + i + j; } calls * 1000000 + f + a as u32 * 100 + s } for [(0), (1), (4), (9)]
    fn it_take_while(n: u32, lim: u32) -> u32 { let mut calls = 0u32; let s = (0..n).map(|x| { calls += 1; x * x }).take_while(|&x| x < lim).sum::<u32>(); let c = (0..n).skip_while(|x| x * 3 < lim).count() as u32; let mut p = 0u32; let d = (0..n).skip_while(|x| { p += 1; *x < 2 }).filter(|x| x % 2 == 0).count() as u32; s.wrapping_mul(7) + c * 1000 + calls * 100000 + p * 10000000 + d } for [(0, 5), (10, 30), (10, 1000), (5, 0)]
    fn it_chained(a: u8, b: u8) -> u64 { let x = [a, 1, 2]; let s = (a..b).chain(b..=b.saturating_add(2)).fold(0u64, |h, v| h.wrapping_mul(7) + v as u64); let t = x.iter().chain([b, 9].iter()).map(|&v| v as u64).rev().fold(0u64, |h, v| h * 11 + v); let u = (0..3u32).chain(x.iter().map(|&v| v as u32).filter(|v| v % 2 == 0)).enumerate().map(|(i, v)| i as u64 * v as u64).sum::<u64>(); let w = (0..2u8).chain(5..7).chain(a..a.saturating_add(2)).skip(1).map(|v| v as u64).product::<u64>(); s ^ t << 20 ^ u << 40 ^ w << 50 } for [(0, 0), (3, 9), (250, 255), (9, 3), (255, 255)]
    fn it_chain_signed(a: i8, b: i8) -> i64 { (a..=b).chain(-3..a).rev().map(|v| v as i64).enumerate().fold(0i64, |h, (i, v)| h.wrapping_mul(5) + i as i64 * v) } for [(-128, 127), (5, 5), (3, 1), (126, 127), (-128, -128)]
    fn it_last_by(a: i32, b: i32, c: i32) -> i64 { let v = [a, b, c, a]; let l = v.iter().map(|x| x.wrapping_mul(2)).last().unwrap_or(0); let mx = v.iter().enumerate().max_by(|x, y| x.1.cmp(y.1)).map(|(i, _)| i).unwrap_or(9); let mn = v.iter().enumerate().min_by(|x, y| x.1.abs().cmp(&y.1.abs())).map(|(i, _)| i).unwrap_or(9); let e = (0..0).last().unwrap_or(-1); let m = *v.iter().max_by(|x, y| (*x % 3).cmp(&(*y % 3))).unwrap(); l as i64 * 10000 + mx as i64 * 100 + mn as i64 + e as i64 + m as i64 * 7 } for [(1, 2, 3), (3, -2, 2), (0, 0, 0), (i32::MIN, 5, -5), (4, 7, 4)]
    fn it_fmax_by(a: f64, b: f64) -> f64 { let v = [a, b, 1.5]; let m = *v.iter().max_by(|x, y| x.total_cmp(y)).unwrap(); let n = v.iter().copied().min_by(|x, y| x.partial_cmp(y).unwrap_or(Ordering::Equal)).unwrap(); m * 3.0 + n } for [(0.0, -0.0), (f64::NAN, 1.0), (-5.0, 2.0), (-f64::NAN, 0.5)]
    fn it_rev_more(a: u32, n: u32) -> u64 { let v = [a, 3, 5, 7]; let h = v.iter().map(|x| x.wrapping_add(1)).filter(|x| x % 3 != 0).rev().fold(0u64, |h, x| h * 13 + x as u64); let e = v.iter().enumerate().rev().fold(0u64, |h, (i, &x)| h.wrapping_mul(17) + i as u64 * 100 + x as u64); let r = (2..n).enumerate().rev().map(|(i, x)| i as u64 * x as u64).fold(0u64, |h, x| h.wrapping_mul(3) + x); let f = v.iter().filter_map(|&x| if x > 4 { Some(x) } else { None }).rev().fold(0u64, |h, x| h.wrapping_mul(19) + x as u64); let mut calls = 0u32; let s = (0..n).map(|x| { calls = calls.wrapping_mul(3) + x; x }).rev().sum::<u32>(); h ^ e << 16 ^ r << 32 ^ f << 48 ^ (calls as u64).wrapping_add(s as u64) } for [(0, 0), (9, 5), (u32::MAX, 40), (4, 2)]
    fn it_slice_recv(k: usize, j: usize) -> u32 { let a = [5u32, 1, 4, 2, 3]; a[..k].iter().sum::<u32>() * 1000 + a[k..].len() as u32 * 100 + a[j..k].iter().rev().fold(0, |h, x| h * 7 + x) } for [(0, 0), (3, 1), (5, 2), (2, 3), (6, 0)]
    fn sl_swap(i: usize, j: usize) -> u32 { let mut a = [1u32, 2, 3, 4]; a.swap(i, j); let mut b = [7u8, 8, 9]; b[1..].swap(0, 1); a[0] * 1000 + a[1] * 100 + a[2] * 10 + a[3] + b[2] as u32 * 100000 } for [(0, 3), (1, 1), (4, 0), (0, 9)]
    fn sl_fill_rev(k: usize, v: u8) -> u64 { let mut a = [1u8, 2, 3, 4, 5]; a[k..].fill(v); a[..k].reverse(); let mut b = [(1u8, true), (2, false)]; b.reverse(); a.iter().fold(0u64, |h, &x| h * 256 + x as u64) + b[0].0 as u64 } for [(0, 9), (2, 7), (5, 1), (6, 0), (4, 0)]
    fn sl_contains(x: i32) -> u32 { let a = [3, -1, 7]; a.contains(&x) as u32 + [1.5f64, f64::NAN].contains(&(x as f64)) as u32 * 2 + a[1..].contains(&x) as u32 * 4 } for [(3), (-1), (7), (0)]
    fn sl_copy(k: usize) -> u64 { let mut a = [0u16; 4]; let b = [9u16, 8, 7, 6, 5]; a[..k].copy_from_slice(&b[1..k + 1]); a[k..].copy_from_slice(&b[..4 - k]); a.iter().fold(0, |h, &x| h * 16 + x as u64) } for [(0), (2), (4), (5)]
    fn sl_copy_bad(k: usize) -> u32 { let mut a = [0u8; 3]; let b = [1u8, 2, 3, 4]; a.copy_from_slice(&b[..k]); a[2] as u32 } for [(3), (2), (4)]
    fn sl_bsearch(x: u32) -> i64 { let v = [1u32, 2, 2, 2, 2, 3, 3, 5, 5, 5, 5, 5, 9]; let r = match v.binary_search(&x) { Ok(i) => i as i64, Err(i) => -(i as i64) - 100 }; let k = v.binary_search_by_key(&(x * 2), |&a| a * 2).unwrap_or_else(|i| i + 50); let b = v.binary_search_by(|p| p.cmp(&x).reverse()).is_ok(); let e = match v[..0].binary_search(&x) { Ok(_) => 5, Err(i) => i }; let o = match v[1..2].binary_search(&x) { Ok(i) => i + 10, Err(i) => i + 20 }; r * 1000 + k as i64 * 10 + b as i64 + e as i64 * 1000000 + o as i64 * 100000000 } for [(0), (1), (2), (3), (4), (5), (6), (9), (10)]
    fn sl_sort(a: u32, b: u32, c: u32) -> u64 { let mut v = [a, b, c, a ^ b, 7, 7, 0]; v.sort_unstable(); let mut w = [(a % 3, 1u8), (b % 3, 2), (c % 3, 3), (a % 3, 4)]; w.sort_unstable(); let mut calls = 0u32; let mut x = [a, b, c, 9, 1, a, b]; x.sort_unstable_by_key(|&e| { calls += 1; e % 5 }); let mut y = [a as i32, -(b as i32), 3]; y.sort_by(|p, q| q.cmp(p)); let mut z = [b, a, c]; z[..2].sort(); z.sort_by_key(|e| e % 4); let mut f = [1.5f64, -0.0, 0.0, -2.0]; f.sort_unstable_by(|p, q| p.total_cmp(q)); let h = v.iter().chain(x.iter()).chain(z.iter()).fold(0u64, |h, &e| h.wrapping_mul(31).wrapping_add(e as u64)); h ^ (w.iter().fold(0u64, |h, &(p, q)| h * 7 + p as u64 * 10 + q as u64) << 20) ^ (y[0] as u64) << 40 ^ (calls as u64) << 50 ^ f[1].to_bits() } for [(0, 0, 0), (5, 3, 9), (u32::MAX, 1, 2), (12, 12, 7)]
    fn sl_sort_calls(n: usize, s: u32) -> u64 { let mut a = [0u32; 20]; for (i, e) in a.iter_mut().enumerate() { *e = (i as u32).wrapping_mul(s) % 7; } let mut calls = 0u64; a[..n].sort_unstable_by_key(|&e| { calls += 1; e / 2 }); let mut b = [(0u32, 0u8); 20]; for i in 0..20 { b[i] = ((i as u32 * s) % 5, i as u8); } b[..n].sort_unstable_by(|p, q| { calls += 1000; p.0.cmp(&q.0) }); a.iter().chain(b.iter().map(|p| &p.0)).fold(0u64, |h, &e| h.wrapping_mul(7) + e as u64) ^ b.iter().fold(0u64, |h, p| h.wrapping_mul(3) + p.1 as u64) << 16 ^ calls << 40 } for [(0, 3), (1, 3), (5, 11), (20, 13), (20, 2), (21, 1)]
    fn sl_first_last(k: usize) -> u32 { let a = [4u32, 5, 6]; a[k..].first().copied().unwrap_or(99) * 100 + a[..k].last().copied().unwrap_or(98) + a[k..].is_empty() as u32 * 10000 } for [(0), (1), (3), (4)]
    fn ord_ops(a: i64, b: i64) -> i32 { let o = a.cmp(&b); let p = (a as f64).partial_cmp(&(b as f64)); let r = match o { Ordering::Less => 1, Ordering::Equal => 2, Ordering::Greater => 3 }; r * 100 + o.reverse() as i32 * 10 + o.then(Ordering::Greater) as i32 + (p == Some(o)) as i32 * 1000 + o.is_le() as i32 * 10000 + a.cmp(&0).then_with(|| b.cmp(&0)) as i32 * 100000 + matches!(o, Ordering::Less | Ordering::Equal) as i32 * 1000000 + (o < Ordering::Greater) as i32 * 10000000 } for [(1, 2), (2, 2), (3, -1), (0, 5), (0, -5), (i64::MIN, i64::MAX)]
    fn ord_float(a: f64, b: f64) -> i32 { a.total_cmp(&b) as i32 * 10 + a.partial_cmp(&b).map_or(5, |o| o as i32) + (a as f32).total_cmp(&(b as f32)) as i32 * 100 } for [(0.0, -0.0), (f64::NAN, 1.0), (1.0, f64::NAN), (-f64::NAN, f64::NAN), (-1.0, 2.0), (f64::INFINITY, f64::NAN)]
    fn res_methods(x: u32) -> u32 { let v = [2u32, 4, 6]; let r = v.binary_search(&x); r.is_ok() as u32 + r.is_err() as u32 * 2 + r.ok().unwrap_or(7) as u32 * 10 + r.err().unwrap_or(8) as u32 * 100 + r.unwrap_or(5) as u32 * 1000 + if let Ok(i) = r { i as u32 * 10000 } else { 0 } + matches!(r, Err(1)) as u32 * 100000 } for [(1), (2), (3), (4), (7)]
    fn res_unwrap(x: u32) -> usize { [1u32, 3].binary_search(&x).unwrap() + [1u32, 3].binary_search(&x).expect("present") } for [(1), (3), (2)]
    fn tr_static(a: u32, b: u32) -> u32 { let s = Sq { s: a % 1000 }; let r = Rt { w: a, h: b }; s.scaled(b).wrapping_add(r.scaled(a)) ^ total(&[s, s.grow(2)]) ^ bigger(r, r.grow(b % 7)).w.wrapping_mul(3) ^ coded(&s) ^ coded(&r) << 1 ^ Area::area(&r) ^ <Sq as Describe>::code(&s) ^ (Sq::SIDES + Rt::SCALE + Sq::SCALE) << 24 ^ total(&[r; 3][1..]) } for [(0, 0), (3, 4), (u32::MAX, 7), (999, 1000)]
    fn g_apply(x: u32, k: u32) -> u32 { let add = |v: u32| v.wrapping_add(k); apply(add, x).wrapping_add(apply(|v| v.wrapping_mul(3), x)).wrapping_add(apply_t(move |v: u64| v ^ k as u64, x as u64) as u32).wrapping_add(first_over(|i| i * i > x, 100)) } for [(0, 0), (50, 7), (u32::MAX, u32::MAX)]
}

// Used by `structs` above on the Rust side; the C side gets the same declarations.
#[derive(Clone, Copy)]
struct Pair {
    x: u32,
    y: [u32; 2],
}
fn id(p: Pair) -> Pair {
    p
}
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
enum Color {
    Red,
    Green = 5,
    Blue,
}
fn swap(a: i64, b: i64) -> (i64, i64) {
    (b, a)
}
// Helpers that may panic (they take the panic flag on the C side).
fn must(x: u32) -> u32 {
    if x == 0 {
        panic!()
    }
    x
}
fn check(x: u32) {
    assert!(x != 13, "unlucky");
}
const N: usize = 3;
const LIMIT: u32 = u32::MAX - 5 + N as u32;
const TABLE: [u32; N] = [1, 2, 3];
const EXTRA: &str = "struct Pair { x: u32, y: [u32; 2] } fn id(p: Pair) -> Pair { p } \
    enum Color { Red, Green = 5, Blue } fn swap(a: i64, b: i64) -> (i64, i64) { (b, a) } \
    const N: usize = 3; const LIMIT: u32 = u32::MAX - 5 + N as u32; const TABLE: [u32; N] = [1, 2, 3]; \
    fn must(x: u32) -> u32 { if x == 0 { panic!() } x } fn check(x: u32) { assert!(x != 13, \"unlucky\"); }";

/// Items compiled here for the Rust side whose source also goes to the macro, for the C side
/// (Rust needs `Clone, Copy`, which the macro adds itself).
macro_rules! shared {
    ($($item:item)*) => {
        $( #[allow(dead_code, clippy::all)] $item )*
        fn shared_source() -> String {
            stringify!($($item)*).replace("#[derive(Clone, Copy)]", "")
        }
    };
}

// Generic helpers, helpers taking closures; methods (`self`, `&self`, `&mut self`),
// associated functions and consts, references.
shared! {
    fn gmax<T: Copy + PartialOrd>(a: T, b: T) -> T { if a > b { a } else { b } }
    fn gsum3<T: Copy + std::ops::Add<Output = T>>(a: T, b: T, c: T) -> T { let s: T = a + b; s + c }
    fn apply<F: Fn(u32) -> u32>(f: F, x: u32) -> u32 { f(f(x)) }
    fn apply_t<T: Copy + PartialEq, F: Fn(T) -> T>(f: F, x: T) -> T { let y = f(x); if y != x { return f(y); } y }
    fn first_over<F>(f: F, lim: u32) -> u32 where F: Fn(u32) -> bool { for i in 0..lim { if f(i) { return i; } } lim }

    #[derive(Clone, Copy)]
    struct Board { cells: [u8; 4], n: u32 }
    impl Board {
        const N: usize = 4;
        fn new(n: u32) -> Self { Self { cells: [0; Self::N], n } }
        fn place(&mut self, i: usize, v: u8) -> bool { if !self.free(i) { return false; } self.cells[i] = v; self.n += 1; true }
        fn free(&self, i: usize) -> bool { self.cells[i] == 0 }
        fn total(&self) -> u32 { let mut s = 0u32; for i in 0..Board::N { s += self.cells[i] as u32; } s }
        fn reset_n(&mut self, to: u32) { set_to(&mut self.n, to); }
    }
    #[derive(Clone, Copy)]
    struct Counter { v: u32 }
    impl Counter {
        const START: u32 = 10;
        fn new(v: u32) -> Counter { Counter { v: v.wrapping_add(Self::START) } }
        fn add(mut self, k: u32) -> Self { self.v = self.v.wrapping_mul(3).wrapping_add(k); self }
        fn get(self) -> u32 { self.v }
        fn bump_by(&mut self, k: u32) { bump(&mut self.v, k); }
    }
    #[derive(Clone, Copy)]
    struct Grid { rows: [[u8; 2]; 2], cnt: Counter }
    impl Grid {
        fn set(&mut self, r: usize, c: usize, v: u8) { self.rows[r][c] = v; self.cnt.bump_by(1); }
        fn total(&self) -> u32 { self.cnt.get() + self.rows[0][0] as u32 + self.rows[1][1] as u32 }
        fn at(&self, i: usize) -> u8 { assert!(i < 4, "cell {} of 4", i); self.rows[i / 2][i % 2] }
    }
    #[derive(Clone, Copy)]
    enum Dir { Up, Down }
    impl Dir {
        fn flip(self) -> Dir { match self { Dir::Up => Dir::Down, Dir::Down => Dir::Up } }
        fn code(&self) -> u32 { *self as u32 + 1 }
    }
    fn bump(x: &mut u32, by: u32) { *x = x.wrapping_add(by); }
    fn capped(x: &u32, cap: &u32) -> u32 { assert!(*x <= *cap, "{} over {cap}", x); assert_eq!(x, x); *x }
    fn set_to(x: &mut u32, v: u32) { *x = v; }
    fn swap_refs(a: &mut u32, b: &mut u32) { let t = *a; *a = *b; *b = t; }
    fn sum3(a: &[u32; 3]) -> u32 { a[0].wrapping_add(a[1]).wrapping_add(a[2]) }
    fn first_of(a: &[u32; 3]) -> u32 { a[0] + a.len() as u32 }
    fn slice_sum(s: &[u32]) -> u32 { let mut t = 0u32; for i in 0..s.len() { t = t.wrapping_add(s[i]); } t }
    fn slice_fill(s: &mut [u32], v: u32) { for i in 0..s.len() { s[i] = v + i as u32; } }
    fn slice_len(s: &[u32]) -> u32 { s.len() as u32 }
    fn slice_first(s: &[u32]) -> u32 { s[0] }
    fn sub(s: &mut [u32], k: usize) -> u32 { slice_fill(&mut s[k..], 1); slice_sum(s) + slice_sum(&s[..k]) * 1000 }

    // Options as values, enums with data, tuples and options in struct fields.
    #[derive(Clone, Copy)]
    enum Shape { Circle(f32), Rect { w: u32, h: u32 }, Empty, Duo(u8, Option<u16>) }
    impl Shape {
        fn area(&self) -> u32 {
            match *self {
                Shape::Circle(r) => (r * r * 3.0) as u32,
                Shape::Rect { w, h } => w.wrapping_mul(h),
                Shape::Empty => 0,
                Shape::Duo(a, Some(b)) => a as u32 + b as u32,
                Shape::Duo(a, None) => a as u32,
            }
        }
    }
    #[derive(Clone, Copy)]
    struct Slot { best: Option<u32>, at: (u8, i64), shape: Shape }
    fn find_first(a: &[u32; 4], x: u32) -> Option<usize> { for i in 0..4 { if a[i] == x { return Some(i); } } None }
    fn half(x: u32) -> Option<u32> { if x % 2 == 0 { Some(x / 2) } else { None } }
    fn quarter(x: u32) -> Option<u32> { let h = half(x)?; half(h) }
    fn chain(x: u32) -> Option<u32> { let a = half(x)?; let b = half(a)?; Some(a.wrapping_add(b)) }
    fn mk_shape(k: u32) -> Shape {
        match k % 4 {
            0 => Shape::Circle(k as f32),
            1 => Shape::Rect { w: k, h: k + 1 },
            2 => Shape::Empty,
            _ => Shape::Duo(k as u8, half(k + 1).map(|v| v as u16)),
        }
    }

    // Traits: methods with and without defaults, associated consts with and without
    // defaults, a blanket impl, generic helpers bounded by them.
    trait Area {
        const SIDES: u32;
        const SCALE: u32 = 1;
        fn area(&self) -> u32;
        fn scaled(&self, k: u32) -> u32 { self.area().wrapping_mul(k).wrapping_mul(Self::SCALE) + Self::SIDES }
        fn grow(self, by: u32) -> Self;
    }
    #[derive(Clone, Copy)]
    struct Sq { s: u32 }
    #[derive(Clone, Copy)]
    struct Rt { w: u32, h: u32 }
    impl Area for Sq {
        const SIDES: u32 = 4;
        fn area(&self) -> u32 { self.s.wrapping_mul(self.s) }
        fn grow(self, by: u32) -> Sq { Sq { s: self.s.wrapping_add(by) } }
    }
    impl Area for Rt {
        const SIDES: u32 = 4;
        const SCALE: u32 = 3;
        fn area(&self) -> u32 { self.w.wrapping_mul(self.h) }
        fn scaled(&self, k: u32) -> u32 { self.w.wrapping_add(k) }
        fn grow(self, by: u32) -> Self { Rt { w: self.w.wrapping_add(by), h: self.h } }
    }
    trait Describe { fn code(&self) -> u32; }
    impl<T: Area + Copy> Describe for T {
        fn code(&self) -> u32 { self.area() ^ T::SIDES << 8 ^ self.grow(1).area() << 16 }
    }
    fn total<A: Area>(xs: &[A]) -> u32 { xs.iter().map(|x| x.area()).fold(0u32, |s, a| s.wrapping_add(a)) }
    fn bigger<A: Area + Copy>(a: A, b: A) -> A { if a.area() >= b.area() { a } else { b } }
    fn coded<D: Describe>(d: &D) -> u32 { d.code() }

    // Recursion: direct, mutual, generic, a method, and a panic leaving every level; all
    // within the default limit (256 active calls), which `down` below goes past.
    fn fib(n: u32) -> u64 { if n < 2 { n as u64 } else { fib(n - 1) + fib(n - 2) } }
    fn gcd(a: u64, b: u64) -> u64 { if b == 0 { a } else { gcd(b, a % b) } }
    fn even(n: u32) -> bool { if n == 0 { true } else { odd(n - 1) } }
    fn odd(n: u32) -> bool { if n == 0 { false } else { even(n - 1) } }
    fn gdepth<T: Copy + PartialOrd>(a: T, b: T, k: u32) -> u32 { if k == 0 || a > b { k } else { gdepth(a, b, k - 1) } }
    fn rfind(a: &[u32; 6], i: usize, x: u32) -> Option<usize> { if i == 6 { return None; } if a[i] == x { return Some(i); } rfind(a, i + 1, x) }
    fn depth_opt(n: u32) -> Option<u32> { if n == 0 { return Some(0); } if n == 13 { return None; } Some(depth_opt(n - 1)? + 1) }
    fn fact(n: u32) -> u32 { if n == 0 { 1 } else { n.checked_mul(fact(n - 1)).expect("fits") } }
    impl Board {
        fn count_free(&self, i: usize) -> u32 { if i == Board::N { 0 } else { self.free(i) as u32 + self.count_free(i + 1) } }
    }
}

// A recursion past the default limit: the C side panics at the 257th active call, and so
// does this Rust side through the same count (the macro's guard, written out).
const DOWN: &str = "fn down(n: u32) -> u32 { if n == 0 { 0 } else { down(n - 1) + 1 } }";
fn down(n: u32) -> u32 {
    thread_local!(static DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) });
    struct Active;
    impl Drop for Active {
        fn drop(&mut self) {
            DEPTH.with(|d| d.set(d.get() - 1));
        }
    }
    assert!(DEPTH.with(|d| d.get()) < crate::parse::schedule::DEFAULT_RECURSION_LIMIT, "recursion too deep");
    DEPTH.with(|d| d.set(d.get() + 1));
    let _active = Active;
    if n == 0 { 0 } else { down(n - 1) + 1 }
}

#[test]
fn generated_c_matches_rust_on_edge_values() {
    if Command::new("cc").arg("--version").output().is_err() {
        println!("skipping host differential test: no `cc` on PATH");
        return;
    }
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let cases = cases();
    assert!(cases.len() >= 100, "{} cases", cases.len());
    std::panic::set_hook(hook);

    let items: TokenStream = format!("{} {EXTRA} {DOWN} {}", source(), shared_source()).parse().unwrap();
    let c = cuda(program(items));
    let header = concat!(env!("CARGO_MANIFEST_DIR"), "/../wsdsl-runtime/cuda/core/rust_semantics.cuh");
    let mut src = format!("#include \"{header}\"\n#include <stdio.h>\n#include <unistd.h>\n");
    src.push_str("static int g_faults = 0;\nstatic bool g_panicked = false;\n");
    src.push_str("void wsdsl_fault(ws_u32 site, ws_u64 a0, ws_u64 a1, ws_u64 a2, ws_u64 a3) { (void)site; (void)a0; (void)a1; (void)a2; (void)a3; g_faults++; }\n");
    src.push_str(&c.types);
    src.push_str("struct wsdsl_ctx { wsdsl_params p; wsdsl_counters c; };\n");
    src.push_str("const wsdsl_params* wsdsl_ctx_params(wsdsl_ctx* x) { return &x->p; }\n");
    src.push_str("wsdsl_counters* wsdsl_ctx_counters(wsdsl_ctx* x) { return &x->c; }\n");
    src.push_str("void wsdsl_ctx_spawn(wsdsl_ctx* x, const wsdsl_task* t) { (void)x; (void)t; }\n");
    // The handlers of a build like this test's: with debug assertions or without.
    let handlers = if cfg!(debug_assertions) { c.handlers_debug.as_ref().expect("a debug variant") } else { &c.handlers };
    src.push_str(handlers);
    src.push_str(
        "static void show(ws_u64 v) { printf(\"%llu\", v); }\n\
         static void show(ws_u32 v) { printf(\"%llu\", (ws_u64)v); }\n\
         static void show(ws_u16 v) { printf(\"%llu\", (ws_u64)v); }\n\
         static void show(ws_u8 v) { printf(\"%llu\", (ws_u64)v); }\n\
         static void show(ws_i64 v) { printf(\"%lld\", v); }\n\
         static void show(ws_i32 v) { printf(\"%lld\", (ws_i64)v); }\n\
         static void show(ws_i16 v) { printf(\"%lld\", (ws_i64)v); }\n\
         static void show(ws_i8 v) { printf(\"%lld\", (ws_i64)v); }\n\
         static void show(bool v) { printf(\"%d\", v ? 1 : 0); }\n\
         static void show(ws_f32 v) { if (v != v) printf(\"nan\"); else { union { ws_f32 f; ws_u32 u; } x; x.f = v; printf(\"%u\", x.u); } }\n\
         static void show(ws_f64 v) { if (v != v) printf(\"nan\"); else { union { ws_f64 f; ws_u64 u; } x; x.f = v; printf(\"%llu\", x.u); } }\n\
         int main() {\n\
         \x20   alarm(60); /* code that went on after a panic could loop for good */\n",
    );
    for (call, _) in &cases {
        // A helper that may panic takes the panic flag last.
        let name = &call[..call.find('(').expect("a call")];
        let call = if helper_takes_flag(handlers, name) {
            format!("{}{}&g_panicked)", &call[..call.len() - 1], if call.ends_with("()") { "" } else { ", " })
        } else {
            call.clone()
        };
        src.push_str(&format!(
            "    {{ g_faults = 0; g_panicked = false; auto r = {call}; if (g_faults) printf(\"P\"); else show(r); printf(\"\\n\"); }}\n"
        ));
    }
    src.push_str("    return 0;\n}\n");

    let dir = std::env::temp_dir().join(format!("wsdsl-host-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cpp = dir.join("diff.cpp");
    let exe = dir.join("diff");
    std::fs::write(&cpp, &src).unwrap();
    // UBSan traps on any signed overflow or bad shift the generated code might still contain.
    let out = Command::new("cc")
        .args(["-x", "c++", "-std=c++14", "-O2", "-fno-exceptions", "-fno-rtti", "-Wall", "-Wno-unused"])
        .args(["-fsanitize=undefined", "-fsanitize-undefined-trap-on-error"])
        .arg(&cpp)
        .arg("-o")
        .arg(&exe)
        .arg("-lm")
        .output()
        .unwrap();
    assert!(out.status.success(), "host compile failed:\n{}\n{}", String::from_utf8_lossy(&out.stderr), cpp.display());
    let run = Command::new(&exe).output().unwrap();
    assert!(run.status.success(), "harness crashed (UB trap?): {:?}", run.status);
    let got = String::from_utf8(run.stdout).unwrap();
    let got: Vec<&str> = got.lines().collect();
    assert_eq!(got.len(), cases.len());
    let mut bad = Vec::new();
    for ((call, want), got) in cases.iter().zip(got) {
        if want != got {
            bad.push(format!("{call}: rust {want}, C {got}"));
        }
    }
    assert!(bad.is_empty(), "C differs from Rust:\n{}", bad.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether the prototype of helper `name` (`f_<name>`) ends with the panic flag.
fn helper_takes_flag(handlers: &str, name: &str) -> bool {
    let head = format!(" {name}(");
    handlers.lines().any(|l| l.contains(&head) && l.ends_with("bool* ws_panicking);"))
}
