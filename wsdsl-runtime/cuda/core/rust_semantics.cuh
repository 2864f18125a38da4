/* core/rust_semantics.cuh: scalar types and helpers that give C the semantics of Rust
 * (release build) for the code #[megakernel] generates. No #include: NVRTC has no libc.
 * The same header compiles as host C++ (gcc/clang) for differential tests. */
#ifndef WSDSL_RUST_SEMANTICS_CUH
#define WSDSL_RUST_SEMANTICS_CUH

#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(WS_HOST_EMULATION)
/* The GPU, or the host emulating it with real threads (cuda/host/emulation.h). */
#define WS_DEVICE_BUILD 1
#define WS_FN static __device__ __forceinline__
#else
#define WS_FN static inline
#ifndef __device__
#define __device__
#endif
#endif

/* `for` loops over a short range with literal bounds are unrolled on the GPU: arrays indexed
 * by the loop variable then live in registers instead of local memory (SHA-1's 80-word
 * message schedule, for one: 320 bytes of stack frame without it, none with it). */
#if (defined(__CUDACC__) || defined(__CUDACC_RTC__)) && !defined(WS_HOST_EMULATION)
#define WS_UNROLL _Pragma("unroll")
#else
#define WS_UNROLL
#endif

/* Called where every `loop` and `while` of a handler goes round again (the loop's increment).
 * C++ lets a compiler assume that a loop without side effects ends (the forward-progress
 * rule: NVRTC, and GCC's -ffinite-loops at -O2) and delete it, so `loop { if i == 0 { return
 * 7; } i += 2; }` with an odd `i` would return 7; Rust promises no such thing.
 * On the host an empty volatile asm statement is a side effect GCC keeps. On the GPU it is
 * not enough: it becomes a PTX comment, and the PTX assembler, which sees no side effect in
 * the loop, deletes it (on an H100 the helper above returns 7 in 0.6 ms, and so it does with
 * a volatile local variable or `#pragma unroll 1`). A volatile store to shared memory is an
 * instruction the assembler must keep: with it the endless loop runs until stopped, and a loop
 * of 10^8 trips that does end takes 3.5 ns a trip on one thread (one STS a trip; a volatile
 * global load instead costs 33 ns a trip). In N-Queens' `while free != 0 { .. ctx.spawn(..) }`
 * it would cost 6% (H100, N-Queens 17: 126.9 ms against 119.1 ms), so a loop whose body
 * performs an atomic operation (a spawn does) goes without it: no compiler may assume such a
 * loop ends (`lower/stmt.rs`). A loop whose body always leaves never reaches its increment,
 * so this costs nothing there either. */
#if (defined(__CUDACC__) || defined(__CUDACC_RTC__)) && !defined(WS_HOST_EMULATION) && defined(WS_LOOP_PROGRESS_COMMENT)
/* Experiment only (WSDSL_DEFINES=WS_LOOP_PROGRESS_COMMENT): the empty marker, which lets
 * side-effect-free loops be deleted; for measuring what the store costs. */
static __device__ __forceinline__ void ws_loop_progress() { asm volatile("// wsdsl loop"); }
#elif (defined(__CUDACC__) || defined(__CUDACC_RTC__)) && !defined(WS_HOST_EMULATION)
static __device__ __forceinline__ void ws_loop_progress() {
    __shared__ unsigned ws_loop_sink;
    *(volatile unsigned*)&ws_loop_sink = 0u;  /* st.volatile.shared */
}
#else
static inline void ws_loop_progress() { __asm__ __volatile__(""); }
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

/* Integer negation (wrapping), and min/max of 32-bit integers. On the GPU they are inline
 * PTX, which the CUDA compiler cannot fold into other instructions: CUDA 13.0 miscompiles
 * chains like `m = max(m, -x)` for sm_90 (its fused three-input min/max drops the negation
 * of some operands; 42% of a plain CUDA test came out wrong, and negamax minimax with it).
 * Either opaque form prevents the fusion; tests/integration/joins.rs and gpu-check keep a negamax case. */
#if (defined(__CUDACC__) || defined(__CUDACC_RTC__)) && !defined(WS_HOST_EMULATION)
static __device__ __forceinline__ ws_u32 ws_neg_u32(ws_u32 x) { ws_u32 r; asm volatile("neg.s32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
static __device__ __forceinline__ ws_u64 ws_neg_u64(ws_u64 x) { ws_u64 r; asm volatile("neg.s64 %0, %1;" : "=l"(r) : "l"(x)); return r; }
#define WS_SELECT32(T, NAME, CMP) \
    static __device__ __forceinline__ T NAME(T a, T b) { \
        T r; asm volatile("{ .reg .pred p; setp." CMP " p, %2, %1; selp.b32 %0, %2, %1, p; }" : "=r"(r) : "r"(a), "r"(b)); return r; }
WS_SELECT32(ws_i32, ws_max_i32, "gt.s32") WS_SELECT32(ws_i32, ws_min_i32, "lt.s32")
WS_SELECT32(ws_u32, ws_max_u32, "gt.u32") WS_SELECT32(ws_u32, ws_min_u32, "lt.u32")
#define WS_MINMAX32_DONE 1
#else
static inline ws_u32 ws_neg_u32(ws_u32 x) { return 0u - x; }
static inline ws_u64 ws_neg_u64(ws_u64 x) { return 0ull - x; }
#endif

/* Records a run-time fault (Rust would panic): `site` indexes Program::FAULT_SITES, whose
 * message shows up to four values `a0..a3` (integers sign- or zero-extended to 64 bits, bools
 * 0/1, floats as their bits). */
__device__ void wsdsl_fault(ws_u32 site, ws_u64 a0 = 0, ws_u64 a1 = 0, ws_u64 a2 = 0, ws_u64 a3 = 0);

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

/* arr[i]: index out of bounds panics in Rust; here it faults (the site's message shows the
 * length and the index, as Rust's does) and reads element 0. */
WS_FN ws_usize ws_index(ws_usize i, ws_usize n, ws_u32 site) {
    if (i >= n) { wsdsl_fault(site, n, i); return 0; }
    return i;
}

/* The bounds of `&x[start..end]` of `len` elements, checked in Rust's order with its
 * messages (sites `site`: the start past the end, `site + 1`: the end past the end,
 * `site + 2`: the start after the end); after a panic the empty range at 0. */
WS_FN void ws_range(ws_usize* start, ws_usize* end, ws_usize len, ws_u32 site) {
    if (*start > len) wsdsl_fault(site, *start, len);
    else if (*end > len) wsdsl_fault(site + 1u, *end, len);
    else if (*start > *end) wsdsl_fault(site + 2u, *start, *end);
    else return;
    *start = 0;
    *end = 0;
}

/* Unsigned `/` and `%`: division by zero panics in Rust (fault, result 0). */
#define WS_UDIV(T) \
    WS_FN ws_##T ws_div_##T(ws_##T a, ws_##T b, ws_u32 site) { if (b == 0) { wsdsl_fault(site); return 0; } return (ws_##T)(a / b); } \
    WS_FN ws_##T ws_rem_##T(ws_##T a, ws_##T b, ws_u32 site) { if (b == 0) { wsdsl_fault(site); return 0; } return (ws_##T)(a % b); }
WS_UDIV(u8) WS_UDIV(u16) WS_UDIV(u32) WS_UDIV(u64) WS_UDIV(usize)

/* Signed `/` and `%`: zero and MIN / -1 panic in Rust even in release (fault, result 0);
 * otherwise C's truncating division and remainder sign match Rust. Each operator has two
 * sites, Rust's two messages: `site` for a zero divisor, `site + 1` for the overflow. */
#define WS_SDIV(T, MIN) \
    WS_FN ws_##T ws_div_##T(ws_##T a, ws_##T b, ws_u32 site) { if (b == 0) { wsdsl_fault(site); return 0; } \
        if (a == (MIN) && b == -1) { wsdsl_fault(site + 1u); return 0; } return (ws_##T)(a / b); } \
    WS_FN ws_##T ws_rem_##T(ws_##T a, ws_##T b, ws_u32 site) { if (b == 0) { wsdsl_fault(site); return 0; } \
        if (a == (MIN) && b == -1) { wsdsl_fault(site + 1u); return 0; } return (ws_##T)(a % b); }
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
WS_MINMAX(u8) WS_MINMAX(u16) WS_MINMAX(u64) WS_MINMAX(usize)
WS_MINMAX(i8) WS_MINMAX(i16) WS_MINMAX(i64) WS_MINMAX(isize)
#ifndef WS_MINMAX32_DONE
WS_MINMAX(u32) WS_MINMAX(i32)
#endif

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

/* ---- Option<int> (the result of checked_*): `some` and the value `v`. ---- */
#define WS_OPT(T) struct ws_opt_##T { bool some; ws_##T v; }; \
    WS_FN ws_opt_##T ws_some_##T(ws_##T v) { ws_opt_##T o; o.some = true; o.v = v; return o; } \
    WS_FN ws_opt_##T ws_none_##T(void) { ws_opt_##T o; o.some = false; o.v = 0; return o; }
WS_OPT(u8) WS_OPT(u16) WS_OPT(u32) WS_OPT(u64) WS_OPT(usize)
WS_OPT(i8) WS_OPT(i16) WS_OPT(i32) WS_OPT(i64) WS_OPT(isize)

/* checked_* / saturating_* / pow / abs. U is the unsigned type arithmetic wraps in (at least
 * 32 bits, so no promotion to int), B the width. Overflow tests never overflow themselves. */
#define WS_INT_COMMON(T, U, B) \
    WS_FN ws_##T ws_wadd_##T(ws_##T a, ws_##T b) { return (ws_##T)((U)a + (U)b); } \
    WS_FN ws_##T ws_wsub_##T(ws_##T a, ws_##T b) { return (ws_##T)((U)a - (U)b); } \
    WS_FN ws_opt_##T ws_checked_shl_##T(ws_##T a, ws_u32 n) { if (n >= (B)) return ws_none_##T(); return ws_some_##T((ws_##T)((U)a << n)); } \
    WS_FN ws_opt_##T ws_checked_shr_##T(ws_##T a, ws_u32 n) { if (n >= (B)) return ws_none_##T(); return ws_some_##T((ws_##T)(a >> n)); } \
    WS_FN ws_##T ws_pow_##T(ws_##T x, ws_u32 e) { U base = (U)x; U r = 1; while (e) { if (e & 1u) r *= base; e >>= 1; base *= base; } return (ws_##T)r; }

#define WS_UINT_OPS(T, U, B, MAX) \
    WS_INT_COMMON(T, U, B) \
    WS_FN ws_opt_##T ws_checked_add_##T(ws_##T a, ws_##T b) { ws_##T r = ws_wadd_##T(a, b); if (r < a) return ws_none_##T(); return ws_some_##T(r); } \
    WS_FN ws_opt_##T ws_checked_sub_##T(ws_##T a, ws_##T b) { if (a < b) return ws_none_##T(); return ws_some_##T(ws_wsub_##T(a, b)); } \
    WS_FN ws_opt_##T ws_checked_mul_##T(ws_##T a, ws_##T b) { ws_##T r = (ws_##T)((U)a * (U)b); if (a != 0 && (ws_##T)(r / a) != b) return ws_none_##T(); \
        if ((B) < 32 && (ws_u64)a * (ws_u64)b > (ws_u64)(MAX)) return ws_none_##T(); return ws_some_##T(r); } \
    WS_FN ws_opt_##T ws_checked_div_##T(ws_##T a, ws_##T b) { if (b == 0) return ws_none_##T(); return ws_some_##T((ws_##T)(a / b)); } \
    WS_FN ws_opt_##T ws_checked_rem_##T(ws_##T a, ws_##T b) { if (b == 0) return ws_none_##T(); return ws_some_##T((ws_##T)(a % b)); } \
    WS_FN ws_opt_##T ws_checked_neg_##T(ws_##T a) { if (a != 0) return ws_none_##T(); return ws_some_##T(a); } \
    WS_FN ws_##T ws_saturating_add_##T(ws_##T a, ws_##T b) { ws_opt_##T r = ws_checked_add_##T(a, b); return r.some ? r.v : (ws_##T)(MAX); } \
    WS_FN ws_##T ws_saturating_sub_##T(ws_##T a, ws_##T b) { return a < b ? (ws_##T)0 : ws_wsub_##T(a, b); } \
    WS_FN ws_##T ws_saturating_mul_##T(ws_##T a, ws_##T b) { ws_opt_##T r = ws_checked_mul_##T(a, b); return r.some ? r.v : (ws_##T)(MAX); }

/* Signed: W is a signed type wide enough for the exact product of two narrow values. */
#define WS_SINT_OPS(T, U, B, MIN, MAX) \
    WS_INT_COMMON(T, U, B) \
    WS_FN ws_opt_##T ws_checked_add_##T(ws_##T a, ws_##T b) { ws_##T r = ws_wadd_##T(a, b); if (((a ^ r) & (b ^ r)) < 0) return ws_none_##T(); return ws_some_##T(r); } \
    WS_FN ws_opt_##T ws_checked_sub_##T(ws_##T a, ws_##T b) { ws_##T r = ws_wsub_##T(a, b); if (((a ^ b) & (a ^ r)) < 0) return ws_none_##T(); return ws_some_##T(r); } \
    WS_FN ws_opt_##T ws_checked_mul_##T(ws_##T a, ws_##T b) { \
        if ((B) < 64) { ws_i64 p = (ws_i64)a * (ws_i64)b; if (p < (ws_i64)(MIN) || p > (ws_i64)(MAX)) return ws_none_##T(); return ws_some_##T((ws_##T)p); } \
        if (a == 0 || b == 0) return ws_some_##T(0); \
        if ((a == -1 && b == (MIN)) || (b == -1 && a == (MIN))) return ws_none_##T(); \
        ws_##T r = (ws_##T)((U)a * (U)b); if (r / b != a) return ws_none_##T(); return ws_some_##T(r); } \
    WS_FN ws_opt_##T ws_checked_div_##T(ws_##T a, ws_##T b) { if (b == 0 || (a == (MIN) && b == -1)) return ws_none_##T(); return ws_some_##T((ws_##T)(a / b)); } \
    WS_FN ws_opt_##T ws_checked_rem_##T(ws_##T a, ws_##T b) { if (b == 0 || (a == (MIN) && b == -1)) return ws_none_##T(); return ws_some_##T((ws_##T)(a % b)); } \
    WS_FN ws_opt_##T ws_checked_neg_##T(ws_##T a) { if (a == (MIN)) return ws_none_##T(); return ws_some_##T((ws_##T)-a); } \
    WS_FN ws_##T ws_saturating_add_##T(ws_##T a, ws_##T b) { ws_opt_##T r = ws_checked_add_##T(a, b); return r.some ? r.v : (b < 0 ? (ws_##T)(MIN) : (ws_##T)(MAX)); } \
    WS_FN ws_##T ws_saturating_sub_##T(ws_##T a, ws_##T b) { ws_opt_##T r = ws_checked_sub_##T(a, b); return r.some ? r.v : (b < 0 ? (ws_##T)(MAX) : (ws_##T)(MIN)); } \
    WS_FN ws_##T ws_saturating_mul_##T(ws_##T a, ws_##T b) { ws_opt_##T r = ws_checked_mul_##T(a, b); return r.some ? r.v : (((a < 0) != (b < 0)) ? (ws_##T)(MIN) : (ws_##T)(MAX)); } \
    WS_FN ws_##T ws_abs_##T(ws_##T a) { return a < 0 ? (ws_##T)((U)0 - (U)a) : a; }

WS_UINT_OPS(u8, ws_u32, 8, 255u) WS_UINT_OPS(u16, ws_u32, 16, 65535u) WS_UINT_OPS(u32, ws_u32, 32, 4294967295u)
WS_UINT_OPS(u64, ws_u64, 64, 18446744073709551615ull) WS_UINT_OPS(usize, ws_u64, 64, 18446744073709551615ull)
WS_SINT_OPS(i8, ws_u32, 8, (ws_i8)-128, (ws_i8)127) WS_SINT_OPS(i16, ws_u32, 16, (ws_i16)-32768, (ws_i16)32767)
WS_SINT_OPS(i32, ws_u32, 32, (ws_i32)(-2147483647 - 1), (ws_i32)2147483647)
WS_SINT_OPS(i64, ws_u64, 64, (ws_i64)(-9223372036854775807LL - 1), (ws_i64)9223372036854775807LL)
WS_SINT_OPS(isize, ws_u64, 64, (ws_isize)(-9223372036854775807LL - 1), (ws_isize)9223372036854775807LL)

/* abs_diff (into the unsigned type of the same width) and is_multiple_of (of 0: only 0). */
#define WS_ABS_DIFF(T, UT) \
    WS_FN ws_##UT ws_abs_diff_##T(ws_##T a, ws_##T b) { return a > b ? (ws_##UT)((ws_##UT)a - (ws_##UT)b) : (ws_##UT)((ws_##UT)b - (ws_##UT)a); }
WS_ABS_DIFF(u8, u8) WS_ABS_DIFF(u16, u16) WS_ABS_DIFF(u32, u32) WS_ABS_DIFF(u64, u64) WS_ABS_DIFF(usize, usize)
WS_ABS_DIFF(i8, u8) WS_ABS_DIFF(i16, u16) WS_ABS_DIFF(i32, u32) WS_ABS_DIFF(i64, u64) WS_ABS_DIFF(isize, usize)
#define WS_IS_MULTIPLE_OF(T) WS_FN bool ws_is_multiple_of_##T(ws_##T a, ws_##T b) { return b == 0 ? a == 0 : a % b == 0; }
WS_IS_MULTIPLE_OF(u8) WS_IS_MULTIPLE_OF(u16) WS_IS_MULTIPLE_OF(u32) WS_IS_MULTIPLE_OF(u64) WS_IS_MULTIPLE_OF(usize)

/* swap_bytes (to_be / from_be on these little-endian machines) and is_power_of_two. */
WS_FN ws_u8 ws_swap_bytes_u8(ws_u8 x) { return x; }
WS_FN ws_u16 ws_swap_bytes_u16(ws_u16 x) { return (ws_u16)((x >> 8) | (x << 8)); }
WS_FN ws_u32 ws_swap_bytes_u32(ws_u32 x) { return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24); }
WS_FN ws_u64 ws_swap_bytes_u64(ws_u64 x) { return ((ws_u64)ws_swap_bytes_u32((ws_u32)x) << 32) | (ws_u64)ws_swap_bytes_u32((ws_u32)(x >> 32)); }
WS_FN bool ws_is_power_of_two_u8(ws_u8 x) { return x != 0 && (x & (x - 1)) == 0; }
WS_FN bool ws_is_power_of_two_u16(ws_u16 x) { return x != 0 && (x & (x - 1)) == 0; }
WS_FN bool ws_is_power_of_two_u32(ws_u32 x) { return x != 0 && (x & (x - 1u)) == 0; }
WS_FN bool ws_is_power_of_two_u64(ws_u64 x) { return x != 0 && (x & (x - 1ull)) == 0; }

/* More float methods. min/max ignore a NaN operand (fmin/fmax, as Rust); mul_add is fused;
 * powi multiplies by repeated squaring like compiler-rt's __powidf2, which Rust calls. */
WS_FN ws_f64 ws_log2_f64(ws_f64 x) { return WS_MATH(log2)(x); }
WS_FN ws_f64 ws_log10_f64(ws_f64 x) { return WS_MATH(log10)(x); }
WS_FN ws_f64 ws_ceil_f64(ws_f64 x) { return WS_MATH(ceil)(x); }
WS_FN ws_f64 ws_trunc_f64(ws_f64 x) { return WS_MATH(trunc)(x); }
WS_FN ws_f64 ws_round_f64(ws_f64 x) { return WS_MATH(round)(x); }
WS_FN ws_f64 ws_tan_f64(ws_f64 x) { return WS_MATH(tan)(x); }
WS_FN ws_f64 ws_min_f64(ws_f64 a, ws_f64 b) { return WS_MATH(fmin)(a, b); }
WS_FN ws_f64 ws_max_f64(ws_f64 a, ws_f64 b) { return WS_MATH(fmax)(a, b); }
WS_FN ws_f64 ws_mul_add_f64(ws_f64 a, ws_f64 b, ws_f64 c) { return WS_MATH(fma)(a, b, c); }
WS_FN bool ws_is_nan_f64(ws_f64 x) { return x != x; }
WS_FN ws_u64 ws_to_bits_f64(ws_f64 f) { union { ws_u64 u; ws_f64 f; } x; x.f = f; return x.u; }
WS_FN ws_f64 ws_powi_f64(ws_f64 a, ws_i32 b) { bool recip = b < 0; ws_f64 r = 1; for (;;) { if (b & 1) r *= a; b /= 2; if (b == 0) break; a *= a; } return recip ? 1 / r : r; }
WS_FN ws_f32 ws_log2_f32(ws_f32 x) { return WS_MATH(log2f)(x); }
WS_FN ws_f32 ws_log10_f32(ws_f32 x) { return WS_MATH(log10f)(x); }
WS_FN ws_f32 ws_ceil_f32(ws_f32 x) { return WS_MATH(ceilf)(x); }
WS_FN ws_f32 ws_trunc_f32(ws_f32 x) { return WS_MATH(truncf)(x); }
WS_FN ws_f32 ws_round_f32(ws_f32 x) { return WS_MATH(roundf)(x); }
WS_FN ws_f32 ws_tan_f32(ws_f32 x) { return WS_MATH(tanf)(x); }
WS_FN ws_f32 ws_min_f32(ws_f32 a, ws_f32 b) { return WS_MATH(fminf)(a, b); }
WS_FN ws_f32 ws_max_f32(ws_f32 a, ws_f32 b) { return WS_MATH(fmaxf)(a, b); }
WS_FN ws_f32 ws_mul_add_f32(ws_f32 a, ws_f32 b, ws_f32 c) { return WS_MATH(fmaf)(a, b, c); }
WS_FN bool ws_is_nan_f32(ws_f32 x) { return x != x; }
WS_FN ws_u32 ws_to_bits_f32(ws_f32 f) { union { ws_u32 u; ws_f32 f; } x; x.f = f; return x.u; }
WS_FN ws_f32 ws_powi_f32(ws_f32 a, ws_i32 b) { bool recip = b < 0; ws_f32 r = 1; for (;;) { if (b & 1) r *= a; b /= 2; if (b == 0) break; a *= a; } return recip ? 1 / r : r; }
/* And more: libm's where Rust calls libm (hypot, atan2, exp2, cbrt, the inverse and
 * hyperbolic functions: CUDA's accuracy on the device); Rust's own definitions for the rest
 * (`signum` keeps NaN; `to_radians`/`to_degrees` multiply by Rust's constants). */
#define WS_FLOAT_MORE(T, S, TOP) \
    WS_FN ws_##T ws_signum_##T(ws_##T x) { return x != x ? x : WS_MATH(copysign##S)((ws_##T)1, x); } \
    WS_FN ws_##T ws_hypot_##T(ws_##T x, ws_##T y) { return WS_MATH(hypot##S)(x, y); } \
    WS_FN ws_##T ws_atan2_##T(ws_##T y, ws_##T x) { return WS_MATH(atan2##S)(y, x); } \
    WS_FN ws_##T ws_exp2_##T(ws_##T x) { return WS_MATH(exp2##S)(x); } \
    WS_FN ws_##T ws_cbrt_##T(ws_##T x) { return WS_MATH(cbrt##S)(x); } \
    WS_FN ws_##T ws_asin_##T(ws_##T x) { return WS_MATH(asin##S)(x); } \
    WS_FN ws_##T ws_acos_##T(ws_##T x) { return WS_MATH(acos##S)(x); } \
    WS_FN ws_##T ws_atan_##T(ws_##T x) { return WS_MATH(atan##S)(x); } \
    WS_FN ws_##T ws_sinh_##T(ws_##T x) { return WS_MATH(sinh##S)(x); } \
    WS_FN ws_##T ws_cosh_##T(ws_##T x) { return WS_MATH(cosh##S)(x); } \
    WS_FN ws_##T ws_tanh_##T(ws_##T x) { return WS_MATH(tanh##S)(x); } \
    WS_FN ws_##T ws_recip_##T(ws_##T x) { return (ws_##T)1 / x; } \
    WS_FN ws_##T ws_fract_##T(ws_##T x) { return x - WS_MATH(trunc##S)(x); } \
    WS_FN ws_##T ws_copysign_##T(ws_##T x, ws_##T s) { return WS_MATH(copysign##S)(x, s); } \
    WS_FN bool ws_is_finite_##T(ws_##T x) { return x - x == x - x; } \
    WS_FN bool ws_is_infinite_##T(ws_##T x) { return x == x && x - x != x - x; } \
    WS_FN bool ws_is_sign_negative_##T(ws_##T x) { return (ws_to_bits_##T(x) >> TOP) != 0; } \
    WS_FN bool ws_is_sign_positive_##T(ws_##T x) { return (ws_to_bits_##T(x) >> TOP) == 0; }
WS_FLOAT_MORE(f64, , 63)
WS_FLOAT_MORE(f32, f, 31)
/* Rust: f64 `self * (PI / 180.0)` and `self * (180.0 / PI)`; f32 `self * (PI / 180.0)` and
 * `self * 57.2957795130823208767981548141051703`. */
WS_FN ws_f64 ws_to_radians_f64(ws_f64 x) { return x * (3.14159265358979323846264338327950288 / 180.0); }
WS_FN ws_f64 ws_to_degrees_f64(ws_f64 x) { return x * (180.0 / 3.14159265358979323846264338327950288); }
WS_FN ws_f32 ws_to_radians_f32(ws_f32 x) { return x * (3.14159265358979323846264338327950288f / 180.0f); }
WS_FN ws_f32 ws_to_degrees_f32(ws_f32 x) { return x * 57.2957795130823208767981548141051703f; }

/* total_cmp: Rust's `Ordering` (-1, 0, 1) of the bit patterns made comparable as signed
 * integers (negative values' magnitude bits flipped), so -0 < +0 and NaNs order by sign. */
WS_FN ws_i8 ws_total_cmp_f64(ws_f64 a, ws_f64 b) {
    ws_i64 x = (ws_i64)ws_to_bits_f64(a), y = (ws_i64)ws_to_bits_f64(b);
    x ^= (ws_i64)(((ws_u64)(x >> 63)) >> 1); y ^= (ws_i64)(((ws_u64)(y >> 63)) >> 1);
    return (ws_i8)((x > y) - (x < y));
}
WS_FN ws_i8 ws_total_cmp_f32(ws_f32 a, ws_f32 b) {
    ws_i32 x = (ws_i32)ws_to_bits_f32(a), y = (ws_i32)ws_to_bits_f32(b);
    x ^= (ws_i32)(((ws_u32)(x >> 31)) >> 1); y ^= (ws_i32)(((ws_u32)(y >> 31)) >> 1);
    return (ws_i8)((x > y) - (x < y));
}

/* ---- #[buffers] elements: ctx.buffers.<name>.get/set/atomic_* ----
 * An index past the end faults (Rust panics; the message shows the length and the index)
 * and the access is skipped (reads give 0).
 * Plain reads and writes are volatile: other tasks update elements concurrently (relaxed,
 * like the CPU backend's atomics), so a loop must not keep a stale copy in a register. */
#define WS_BUF_PLAIN(T) \
    WS_FN ws_##T ws_buf_get_##T(ws_##T* p, ws_u64 n, ws_usize i, ws_u32 site) { if (i >= n) { wsdsl_fault(site, n, i); return 0; } return ((volatile ws_##T*)p)[i]; } \
    WS_FN void ws_buf_set_##T(ws_##T* p, ws_u64 n, ws_usize i, ws_##T v, ws_u32 site) { if (i >= n) { wsdsl_fault(site, n, i); return; } ((volatile ws_##T*)p)[i] = v; }
WS_BUF_PLAIN(u32) WS_BUF_PLAIN(i32) WS_BUF_PLAIN(u64) WS_BUF_PLAIN(i64) WS_BUF_PLAIN(f32) WS_BUF_PLAIN(f64)

/* ---- ReadOnly<T> arrays: ctx.buffers.<name>.get(i) ----
 * Nobody writes them during a run, so reads go through the read-only data cache (__ldg)
 * and may be kept in registers and reordered. */
#ifdef __CUDA_ARCH__
#define WS_LDG(p) __ldg(p)
#else
#define WS_LDG(p) (*(p))
#endif
#define WS_BUF_READ_ONLY(T) \
    WS_FN ws_##T ws_buf_ro_get_##T(const ws_##T* __restrict__ p, ws_u64 n, ws_usize i, ws_u32 site) { if (i >= n) { wsdsl_fault(site, n, i); return 0; } return WS_LDG(p + i); }
WS_BUF_READ_ONLY(u32) WS_BUF_READ_ONLY(i32) WS_BUF_READ_ONLY(u64) WS_BUF_READ_ONLY(i64) WS_BUF_READ_ONLY(f32) WS_BUF_READ_ONLY(f64)

#ifdef WS_DEVICE_BUILD
/* Bits <-> value for the CAS-based operations. A is the atomic word type. */
#define WS_BUF_BITS(T, A) \
    WS_FN A ws_bits_##T(ws_##T v) { union { A a; ws_##T t; } x; x.t = v; return x.a; } \
    WS_FN ws_##T ws_from_bits_##T(A a) { union { A a; ws_##T t; } x; x.a = a; return x.t; } \
    WS_FN ws_##T ws_buf_atomic_cas_##T(ws_##T* p, ws_u64 n, ws_usize i, ws_##T cur, ws_##T nv, ws_u32 site) { \
        if (i >= n) { wsdsl_fault(site, n, i); return 0; } \
        return ws_from_bits_##T(atomicCAS((A*)&p[i], ws_bits_##T(cur), ws_bits_##T(nv))); }
WS_BUF_BITS(u32, unsigned int) WS_BUF_BITS(i32, unsigned int) WS_BUF_BITS(f32, unsigned int)
WS_BUF_BITS(u64, unsigned long long) WS_BUF_BITS(i64, unsigned long long) WS_BUF_BITS(f64, unsigned long long)
/* add / min / max with the hardware atomic of the right signedness (C is the pointer type). */
#define WS_BUF_RMW(T, OP, FN, C) \
    WS_FN ws_##T ws_buf_atomic_##OP##_##T(ws_##T* p, ws_u64 n, ws_usize i, ws_##T v, ws_u32 site) { \
        if (i >= n) { wsdsl_fault(site, n, i); return 0; } return (ws_##T)FN((C*)&p[i], (C)v); }
WS_BUF_RMW(u32, add, atomicAdd, unsigned int) WS_BUF_RMW(i32, add, atomicAdd, int)
WS_BUF_RMW(u64, add, atomicAdd, unsigned long long) WS_BUF_RMW(i64, add, atomicAdd, unsigned long long)
WS_BUF_RMW(f32, add, atomicAdd, float) WS_BUF_RMW(f64, add, atomicAdd, double)
WS_BUF_RMW(u32, min, atomicMin, unsigned int) WS_BUF_RMW(i32, min, atomicMin, int)
WS_BUF_RMW(u64, min, atomicMin, unsigned long long) WS_BUF_RMW(i64, min, atomicMin, long long)
WS_BUF_RMW(u32, max, atomicMax, unsigned int) WS_BUF_RMW(i32, max, atomicMax, int)
WS_BUF_RMW(u64, max, atomicMax, unsigned long long) WS_BUF_RMW(i64, max, atomicMax, long long)
/* Float min / max: a CAS loop on the bit pattern, keeping the old value unless `v` is
 * strictly smaller (larger), exactly the CPU backend's rule (NaN never replaces). */
#define WS_BUF_FMINMAX(T, A, OP, CMP) \
    WS_FN ws_##T ws_buf_atomic_##OP##_##T(ws_##T* p, ws_u64 n, ws_usize i, ws_##T v, ws_u32 site) { \
        if (i >= n) { wsdsl_fault(site, n, i); return 0; } \
        A* w = (A*)&p[i]; A old = *(volatile A*)w; \
        for (;;) { ws_##T o = ws_from_bits_##T(old); if (!(v CMP o)) return o; \
            A prev = atomicCAS(w, old, ws_bits_##T(v)); if (prev == old) return o; old = prev; } }
WS_BUF_FMINMAX(f32, unsigned int, min, <) WS_BUF_FMINMAX(f32, unsigned int, max, >)
WS_BUF_FMINMAX(f64, unsigned long long, min, <) WS_BUF_FMINMAX(f64, unsigned long long, max, >)
#else
/* Host builds (differential tests) are single-threaded: plain read-modify-write. */
#define WS_BUF_HOST(T, ADD) \
    WS_FN ws_##T ws_buf_atomic_add_##T(ws_##T* p, ws_u64 n, ws_usize i, ws_##T v, ws_u32 site) { if (i >= n) { wsdsl_fault(site, n, i); return 0; } ws_##T o = p[i]; p[i] = ADD; return o; } \
    WS_FN ws_##T ws_buf_atomic_min_##T(ws_##T* p, ws_u64 n, ws_usize i, ws_##T v, ws_u32 site) { if (i >= n) { wsdsl_fault(site, n, i); return 0; } ws_##T o = p[i]; if (v < o) p[i] = v; return o; } \
    WS_FN ws_##T ws_buf_atomic_max_##T(ws_##T* p, ws_u64 n, ws_usize i, ws_##T v, ws_u32 site) { if (i >= n) { wsdsl_fault(site, n, i); return 0; } ws_##T o = p[i]; if (v > o) p[i] = v; return o; } \
    WS_FN ws_##T ws_buf_atomic_cas_##T(ws_##T* p, ws_u64 n, ws_usize i, ws_##T c, ws_##T nv, ws_u32 site) { \
        if (i >= n) { wsdsl_fault(site, n, i); return 0; } ws_##T o = p[i]; \
        union { ws_##T t; unsigned char b[sizeof(ws_##T)]; } x, y; x.t = o; y.t = c; bool eq = true; \
        for (unsigned k = 0; k < sizeof(ws_##T); ++k) eq = eq && x.b[k] == y.b[k]; if (eq) p[i] = nv; return o; }
WS_BUF_HOST(u32, (ws_u32)(o + v)) WS_BUF_HOST(i32, (ws_i32)((ws_u32)o + (ws_u32)v))
WS_BUF_HOST(u64, o + v) WS_BUF_HOST(i64, (ws_i64)((ws_u64)o + (ws_u64)v))
WS_BUF_HOST(f32, o + v) WS_BUF_HOST(f64, o + v)
#endif

#endif /* WSDSL_RUST_SEMANTICS_CUH */
