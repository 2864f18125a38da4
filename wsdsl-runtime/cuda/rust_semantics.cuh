/* rust_semantics.cuh: scalar types and helpers that give C the semantics of Rust
 * (release build) for the code #[megakernel] generates. No #include: NVRTC has no libc.
 * The same header compiles as host C++ (gcc/clang) for differential tests. */
#ifndef WSDSL_RUST_SEMANTICS_CUH
#define WSDSL_RUST_SEMANTICS_CUH

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WS_DEVICE_BUILD 1
#define WS_FN static __device__ __forceinline__
#else
#define WS_FN static inline
#ifndef __device__
#define __device__
#endif
#endif

typedef unsigned char ws_u8;
typedef unsigned short ws_u16;
typedef unsigned int ws_u32;
typedef unsigned long long ws_u64;
typedef unsigned long long ws_usize;
typedef signed char ws_i8;
typedef short ws_i16;
typedef int ws_i32;
typedef long long ws_i64;
typedef long long ws_isize;
typedef float ws_f32;
typedef double ws_f64;

/* Records a run-time fault (Rust would panic); `site` indexes Program::FAULT_SITES. */
#ifndef WSDSL_NO_FAULT_DECL
__device__ void wsdsl_fault(ws_u32 site);
#endif

/* Host stand-ins for the CUDA intrinsics used below (host builds are single-threaded). */
#ifndef WS_DEVICE_BUILD
#ifndef __popc
#define __popc(x) __builtin_popcount(x)
#endif
#ifndef __popcll
#define __popcll(x) __builtin_popcountll(x)
#endif
WS_FN int ws_host_clz(ws_u32 x) { return x == 0 ? 32 : __builtin_clz(x); }
WS_FN int ws_host_clzll(ws_u64 x) { return x == 0 ? 64 : __builtin_clzll(x); }
WS_FN int ws_host_ffs(ws_u32 x) { return __builtin_ffs((int)x); }
WS_FN int ws_host_ffsll(ws_u64 x) { return __builtin_ffsll((long long)x); }
#ifndef __clz
#define __clz(x) ws_host_clz((ws_u32)(x))
#endif
#ifndef __clzll
#define __clzll(x) ws_host_clzll((ws_u64)(x))
#endif
#ifndef __ffs
#define __ffs(x) ws_host_ffs((ws_u32)(x))
#endif
#ifndef __ffsll
#define __ffsll(x) ws_host_ffsll((ws_u64)(x))
#endif
WS_FN unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { unsigned long long o = *p; *p = o + v; return o; }
WS_FN unsigned long long atomicMax(unsigned long long* p, unsigned long long v) { unsigned long long o = *p; if (v > o) *p = v; return o; }
WS_FN unsigned long long atomicMin(unsigned long long* p, unsigned long long v) { unsigned long long o = *p; if (v < o) *p = v; return o; }
WS_FN long long atomicMax(long long* p, long long v) { long long o = *p; if (v > o) *p = v; return o; }
WS_FN long long atomicMin(long long* p, long long v) { long long o = *p; if (v < o) *p = v; return o; }
#define WS_MATH(f) __builtin_##f
#else
#define WS_MATH(f) f
#endif

/* Bit casts: f32::from_bits / f64::from_bits (used for inf and NaN literals). */
WS_FN ws_f32 ws_f32_from_bits(ws_u32 b) { union { ws_u32 u; ws_f32 f; } x; x.u = b; return x.f; }
WS_FN ws_f64 ws_f64_from_bits(ws_u64 b) { union { ws_u64 u; ws_f64 f; } x; x.u = b; return x.f; }

/* arr[i]: index out of bounds panics in Rust; here it faults and reads element 0. */
WS_FN ws_usize ws_index(ws_usize i, ws_usize n, ws_u32 site) {
    if (i >= n) { wsdsl_fault(site); return 0; }
    return i;
}

/* Unsigned `/` and `%`: division by zero panics in Rust (fault, result 0). */
#define WS_UDIV(T) \
    WS_FN ws_##T ws_div_##T(ws_##T a, ws_##T b, ws_u32 site) { if (b == 0) { wsdsl_fault(site); return 0; } return (ws_##T)(a / b); } \
    WS_FN ws_##T ws_rem_##T(ws_##T a, ws_##T b, ws_u32 site) { if (b == 0) { wsdsl_fault(site); return 0; } return (ws_##T)(a % b); }
WS_UDIV(u8) WS_UDIV(u16) WS_UDIV(u32) WS_UDIV(u64) WS_UDIV(usize)

/* Signed `/` and `%`: zero and MIN / -1 panic in Rust even in release (fault, result 0);
 * otherwise C's truncating division and remainder sign match Rust. */
#define WS_SDIV(T, MIN) \
    WS_FN ws_##T ws_div_##T(ws_##T a, ws_##T b, ws_u32 site) { if (b == 0 || (a == (MIN) && b == -1)) { wsdsl_fault(site); return 0; } return (ws_##T)(a / b); } \
    WS_FN ws_##T ws_rem_##T(ws_##T a, ws_##T b, ws_u32 site) { if (b == 0 || (a == (MIN) && b == -1)) { wsdsl_fault(site); return 0; } return (ws_##T)(a % b); }
WS_SDIV(i8, (ws_i8)-128) WS_SDIV(i16, (ws_i16)-32768) WS_SDIV(i32, (ws_i32)(-2147483647 - 1))
WS_SDIV(i64, (ws_i64)(-9223372036854775807LL - 1)) WS_SDIV(isize, (ws_isize)(-9223372036854775807LL - 1))

/* Float `%` is fmod in Rust (sign of the dividend). */
WS_FN ws_f32 ws_fmod_f32(ws_f32 a, ws_f32 b) { return WS_MATH(fmodf)(a, b); }
WS_FN ws_f64 ws_fmod_f64(ws_f64 a, ws_f64 b) { return WS_MATH(fmod)(a, b); }

/* `x as T` from float: saturating, NaN -> 0 (Rust 1.45+). LO/HI are T::MIN/T::MAX; both
 * convert to powers of two (or exactly), so the comparisons are exact. */
#define WS_F2I(F, T, LO, HI) \
    WS_FN ws_##T ws_##F##_to_##T(ws_##F x) { \
        if (x != x) return 0; \
        if (x <= (ws_##F)(LO)) return (LO); \
        if (x >= (ws_##F)(HI)) return (HI); \
        return (ws_##T)x; \
    }
#define WS_F2I_ALL(F) \
    WS_F2I(F, u8, (ws_u8)0, (ws_u8)255) WS_F2I(F, u16, (ws_u16)0, (ws_u16)65535) \
    WS_F2I(F, u32, (ws_u32)0, (ws_u32)4294967295u) WS_F2I(F, u64, (ws_u64)0, (ws_u64)18446744073709551615ull) \
    WS_F2I(F, usize, (ws_usize)0, (ws_usize)18446744073709551615ull) \
    WS_F2I(F, i8, (ws_i8)-128, (ws_i8)127) WS_F2I(F, i16, (ws_i16)-32768, (ws_i16)32767) \
    WS_F2I(F, i32, (ws_i32)(-2147483647 - 1), (ws_i32)2147483647) \
    WS_F2I(F, i64, (ws_i64)(-9223372036854775807LL - 1), (ws_i64)9223372036854775807LL) \
    WS_F2I(F, isize, (ws_isize)(-9223372036854775807LL - 1), (ws_isize)9223372036854775807LL)
WS_F2I_ALL(f32)
WS_F2I_ALL(f64)

/* rotate_left / rotate_right: the count is taken modulo the width. */
#define WS_ROT(T, BITS) \
    WS_FN ws_##T ws_rotl_##T(ws_##T x, ws_u32 n) { n &= (BITS - 1); if (n == 0) return x; return (ws_##T)((x << n) | (x >> (BITS - n))); } \
    WS_FN ws_##T ws_rotr_##T(ws_##T x, ws_u32 n) { n &= (BITS - 1); if (n == 0) return x; return (ws_##T)((x >> n) | (x << (BITS - n))); }
WS_ROT(u8, 8) WS_ROT(u16, 16) WS_ROT(u32, 32) WS_ROT(u64, 64)

/* count_ones: population count. */
WS_FN ws_u32 ws_count_ones_u8(ws_u8 x) { return (ws_u32)__popc((ws_u32)x); }
WS_FN ws_u32 ws_count_ones_u16(ws_u16 x) { return (ws_u32)__popc((ws_u32)x); }
WS_FN ws_u32 ws_count_ones_u32(ws_u32 x) { return (ws_u32)__popc(x); }
WS_FN ws_u32 ws_count_ones_u64(ws_u64 x) { return (ws_u32)__popcll(x); }

/* leading_zeros: counted in the type's own width (0 -> width). */
WS_FN ws_u32 ws_leading_zeros_u32(ws_u32 x) { return x == 0 ? 32u : (ws_u32)__clz((int)x); }
WS_FN ws_u32 ws_leading_zeros_u64(ws_u64 x) { return x == 0 ? 64u : (ws_u32)__clzll((long long)x); }
WS_FN ws_u32 ws_leading_zeros_u8(ws_u8 x) { return ws_leading_zeros_u32((ws_u32)x) - 24u; }
WS_FN ws_u32 ws_leading_zeros_u16(ws_u16 x) { return ws_leading_zeros_u32((ws_u32)x) - 16u; }

/* trailing_zeros: 0 -> width. */
WS_FN ws_u32 ws_trailing_zeros_u32(ws_u32 x) { return x == 0 ? 32u : (ws_u32)(__ffs((int)x) - 1); }
WS_FN ws_u32 ws_trailing_zeros_u64(ws_u64 x) { return x == 0 ? 64u : (ws_u32)(__ffsll((long long)x) - 1); }
WS_FN ws_u32 ws_trailing_zeros_u8(ws_u8 x) { return x == 0 ? 8u : ws_trailing_zeros_u32((ws_u32)x); }
WS_FN ws_u32 ws_trailing_zeros_u16(ws_u16 x) { return x == 0 ? 16u : ws_trailing_zeros_u32((ws_u32)x); }

/* Integer min / max (Ord::min / Ord::max). */
#define WS_MINMAX(T) \
    WS_FN ws_##T ws_min_##T(ws_##T a, ws_##T b) { return b < a ? b : a; } \
    WS_FN ws_##T ws_max_##T(ws_##T a, ws_##T b) { return b < a ? a : b; }
WS_MINMAX(u8) WS_MINMAX(u16) WS_MINMAX(u32) WS_MINMAX(u64) WS_MINMAX(usize)
WS_MINMAX(i8) WS_MINMAX(i16) WS_MINMAX(i32) WS_MINMAX(i64) WS_MINMAX(isize)

/* Float methods: f64 -> libm names, f32 -> the `f` variants. sqrt/floor/abs are exact;
 * ln/sin/cos/exp/powf follow CUDA's (few-ulp) accuracy, not Rust's libm bit for bit. */
WS_FN ws_f64 ws_ln_f64(ws_f64 x) { return WS_MATH(log)(x); }
WS_FN ws_f64 ws_floor_f64(ws_f64 x) { return WS_MATH(floor)(x); }
WS_FN ws_f64 ws_powf_f64(ws_f64 x, ws_f64 y) { return WS_MATH(pow)(x, y); }
WS_FN ws_f64 ws_sin_f64(ws_f64 x) { return WS_MATH(sin)(x); }
WS_FN ws_f64 ws_sqrt_f64(ws_f64 x) { return WS_MATH(sqrt)(x); }
WS_FN ws_f64 ws_abs_f64(ws_f64 x) { return WS_MATH(fabs)(x); }
WS_FN ws_f64 ws_exp_f64(ws_f64 x) { return WS_MATH(exp)(x); }
WS_FN ws_f64 ws_cos_f64(ws_f64 x) { return WS_MATH(cos)(x); }
WS_FN ws_f32 ws_ln_f32(ws_f32 x) { return WS_MATH(logf)(x); }
WS_FN ws_f32 ws_floor_f32(ws_f32 x) { return WS_MATH(floorf)(x); }
WS_FN ws_f32 ws_powf_f32(ws_f32 x, ws_f32 y) { return WS_MATH(powf)(x, y); }
WS_FN ws_f32 ws_sin_f32(ws_f32 x) { return WS_MATH(sinf)(x); }
WS_FN ws_f32 ws_sqrt_f32(ws_f32 x) { return WS_MATH(sqrtf)(x); }
WS_FN ws_f32 ws_abs_f32(ws_f32 x) { return WS_MATH(fabsf)(x); }
WS_FN ws_f32 ws_exp_f32(ws_f32 x) { return WS_MATH(expf)(x); }
WS_FN ws_f32 ws_cos_f32(ws_f32 x) { return WS_MATH(cosf)(x); }

#endif /* WSDSL_RUST_SEMANTICS_CUH */
