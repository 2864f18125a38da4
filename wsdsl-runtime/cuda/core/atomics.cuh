// core/atomics.cuh — the memory-model primitives every scheduler template uses.
//
// Contract: cross-block communication never relies on plain loads or stores, which the
// non-coherent L1 may serve stale. A value another block will read is published with a
// release store (or a read-modify-write), and read with an acquire load, both at GPU scope,
// or with relaxed accesses ordered by fences (the deques across GPUs, below).
// These wrappers spell the PTX of the CUDA memory model directly, so NVRTC needs no headers.
// They are for global memory only: their PTX names the .global state space, and handed a
// shared-memory address they fault on the GPU (CUDA_ERROR_INVALID_ADDRESS_SPACE), while the
// host emulation, which has one address space, runs them fine. Shared words take the plain
// atomicAdd/atomicMin/... functions.
//
// Scope: GPU scope, unless the kernel runs on several GPUs (WSDSL_PES, `features/pe.cuh`): then a
// thief on another GPU reads and CASes this GPU's deques through NVLink, and other GPUs read
// the termination words, so every WS_SCOPE operation is at system scope, as the PTX memory
// model asks of both sides of a synchronisation. The thief's side (the ws_thief_* wrappers
// below: features/pe.cuh's looks at other GPUs) is always at system scope there. The deques and the
// idle counts go further: their accesses are system-scope relaxed operations ordered by
// fences whose scope follows whether another GPU may use the deque (queues/deque.cuh, "scope
// follows sharing"; the ws_*_at fences at the end). The join machinery across GPUs names its
// scopes itself (the ws_gpu_* and ws_sys_* wrappers at the end).
#pragma once

// Comparisons for UTS T3L's cost on several GPUs (outside the PTX memory model: for
// measurement only, through WSDSL_DEFINES): WS_X_GENERIC_GPU puts the generic wrappers at GPU
// scope, WS_X_RELAXED_GPU the deques' and idle counts' relaxed accesses (scope follows
// sharing, below), WS_X_IDLE_GPU only the idle counts' additions (core/termination.cuh). Measured
// on two H200s: none moves T3L (62.2-62.8 ms against 61.3-62.3), T1XL or N-Queens 18, so
// these scopes are not what T3L pays on several GPUs.
#ifndef WS_X_GENERIC_GPU
#define WS_X_GENERIC_GPU 0
#endif
#ifndef WS_X_RELAXED_GPU
#define WS_X_RELAXED_GPU 0
#endif
#ifndef WS_X_IDLE_GPU
#define WS_X_IDLE_GPU 0
#endif
#if WSDSL_PES && !WS_X_GENERIC_GPU
#define WS_SCOPE "sys"
#else
#define WS_SCOPE "gpu"
#endif
#if WSDSL_PES
#define WS_THIEF_SCOPE "sys"
#else
#define WS_THIEF_SCOPE "gpu"
#endif

typedef unsigned int ws_atom_u32;
typedef unsigned long long ws_atom_u64;

// Acquire load: later loads of this thread observe everything the releasing writer did.
static __device__ __forceinline__ ws_atom_u32 ws_load_acquire_u32(const ws_atom_u32* p) {
    ws_atom_u32 v;
    asm volatile("ld.acquire." WS_SCOPE ".global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

static __device__ __forceinline__ ws_atom_u64 ws_load_acquire_u64(const ws_atom_u64* p) {
    ws_atom_u64 v;
    asm volatile("ld.acquire." WS_SCOPE ".global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

// Relaxed load at GPU scope: fresh (not an L1 hit of an old value) but orders nothing.
static __device__ __forceinline__ ws_atom_u32 ws_load_relaxed_u32(const ws_atom_u32* p) {
    ws_atom_u32 v;
    asm volatile("ld.relaxed." WS_SCOPE ".global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

static __device__ __forceinline__ ws_atom_u64 ws_load_relaxed_u64(const ws_atom_u64* p) {
    ws_atom_u64 v;
    asm volatile("ld.relaxed." WS_SCOPE ".global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

// Release store: everything this thread wrote before becomes visible to an acquirer of v.
static __device__ __forceinline__ void ws_store_release_u32(ws_atom_u32* p, ws_atom_u32 v) {
    asm volatile("st.release." WS_SCOPE ".global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

static __device__ __forceinline__ void ws_store_release_u64(ws_atom_u64* p, ws_atom_u64 v) {
    asm volatile("st.release." WS_SCOPE ".global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}

static __device__ __forceinline__ void ws_store_relaxed_u32(ws_atom_u32* p, ws_atom_u32 v) {
    asm volatile("st.relaxed." WS_SCOPE ".global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

// Compare-and-swap with acquire-release semantics; returns the value found.
static __device__ __forceinline__ ws_atom_u64 ws_cas_acq_rel_u64(ws_atom_u64* p, ws_atom_u64 expected,
                                                                 ws_atom_u64 desired) {
    ws_atom_u64 old;
    asm volatile("atom.acq_rel." WS_SCOPE ".global.cas.b64 %0, [%1], %2, %3;"
                 : "=l"(old) : "l"(p), "l"(expected), "l"(desired) : "memory");
    return old;
}

static __device__ __forceinline__ ws_atom_u64 ws_add_acq_rel_u64(ws_atom_u64* p, ws_atom_u64 v) {
    ws_atom_u64 old;
    asm volatile("atom.acq_rel." WS_SCOPE ".global.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(v) : "memory");
    return old;
}

static __device__ __forceinline__ ws_atom_u32 ws_add_acq_rel_u32(ws_atom_u32* p, ws_atom_u32 v) {
    ws_atom_u32 old;
    asm volatile("atom.acq_rel." WS_SCOPE ".global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
}

// Relaxed add: an atomic count that orders nothing else (no fence, no L1 invalidation).
static __device__ __forceinline__ ws_atom_u32 ws_add_relaxed_u32(ws_atom_u32* p, ws_atom_u32 v) {
    ws_atom_u32 old;
    asm volatile("atom.relaxed." WS_SCOPE ".global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
}

// Release add: this thread's earlier writes are visible to whoever acquires after reading
// the result (no acquire part: no L1 invalidation); returns the old value.
static __device__ __forceinline__ ws_atom_u32 ws_add_release_u32(ws_atom_u32* p, ws_atom_u32 v) {
    ws_atom_u32 old;
    asm volatile("atom.release." WS_SCOPE ".global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
}

// Sequentially consistent fence at GPU scope: orders a store before a later load (the
// store-load order the deque's pop and steal need, which acquire/release alone do not give).
static __device__ __forceinline__ void ws_fence_sc() {
    asm volatile("fence.sc." WS_SCOPE ";" ::: "memory");
}

// Acquire-release fence at GPU scope: this thread's earlier reads and writes are ordered
// before its later ones.
static __device__ __forceinline__ void ws_fence_acq_rel() {
    asm volatile("fence.acq_rel." WS_SCOPE ";" ::: "memory");
}

// Host-mapped flag polled by the device (the watchdog's stop request). Volatile system-scope
// read: the host writes it over PCIe while the kernel runs.
static __device__ __forceinline__ ws_atom_u32 ws_load_volatile_sys_u32(const ws_atom_u32* p) {
    ws_atom_u32 v;
    asm volatile("ld.relaxed.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// Host-mapped word written by the device for the host to read while the kernel runs (a
// worker's progress). A relaxed system-scope store: a posted write over PCIe, not waited for.
static __device__ __forceinline__ void ws_store_volatile_sys_u64(ws_atom_u64* p, ws_atom_u64 v) {
    asm volatile("st.relaxed.sys.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}

// The thief's side of a deque and the looks at other GPUs (see the scope note at the top).
static __device__ __forceinline__ ws_atom_u32 ws_thief_load_acquire_u32(const ws_atom_u32* p) {
    ws_atom_u32 v;
    asm volatile("ld.acquire." WS_THIEF_SCOPE ".global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ ws_atom_u64 ws_thief_load_acquire_u64(const ws_atom_u64* p) {
    ws_atom_u64 v;
    asm volatile("ld.acquire." WS_THIEF_SCOPE ".global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ ws_atom_u32 ws_thief_load_relaxed_u32(const ws_atom_u32* p) {
    ws_atom_u32 v;
    asm volatile("ld.relaxed." WS_THIEF_SCOPE ".global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ ws_atom_u64 ws_thief_load_relaxed_u64(const ws_atom_u64* p) {
    ws_atom_u64 v;
    asm volatile("ld.relaxed." WS_THIEF_SCOPE ".global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ void ws_thief_fence_sc() {
    asm volatile("fence.sc." WS_THIEF_SCOPE ";" ::: "memory");
}
static __device__ __forceinline__ ws_atom_u64 ws_thief_cas_acq_rel_u64(ws_atom_u64* p, ws_atom_u64 expected, ws_atom_u64 desired) {
    ws_atom_u64 old;
    asm volatile("atom.acq_rel." WS_THIEF_SCOPE ".global.cas.b64 %0, [%1], %2, %3;"
                 : "=l"(old) : "l"(p), "l"(expected), "l"(desired) : "memory");
    return old;
}
static __device__ __forceinline__ void ws_thief_store_release_u32(ws_atom_u32* p, ws_atom_u32 v) {
    asm volatile("st.release." WS_THIEF_SCOPE ".global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

// Explicit scopes, for features/join.cuh across GPUs, where a frame's counter is decremented from any
// GPU but its continuation runs only on the GPU that holds the frame: each side pays the
// scope its partner needs (GPU scope between threads of one GPU, system scope otherwise),
// and the frame pool, which no other GPU touches, stays at GPU scope. One line each:
// ws_<scope>_<op>_<semantics>_<type>.
#define WS_EXPLICIT_LOAD(name, op, T, bits, reg) \
    static __device__ __forceinline__ T name(const T* p) { T v; asm volatile(op ".global.u" #bits " %0, [%1];" : "=" reg(v) : "l"(p) : "memory"); return v; }
#define WS_EXPLICIT_STORE(name, op, T, bits, reg) \
    static __device__ __forceinline__ void name(T* p, T v) { asm volatile(op ".global.u" #bits " [%0], %1;" :: "l"(p), reg(v) : "memory"); }
#define WS_EXPLICIT_ADD(name, op, T, bits, reg) \
    static __device__ __forceinline__ T name(T* p, T v) { T old; asm volatile(op ".global.add.u" #bits " %0, [%1], %2;" : "=" reg(old) : "l"(p), reg(v) : "memory"); return old; }
#define WS_EXPLICIT_CAS_U64(name, op) \
    static __device__ __forceinline__ ws_atom_u64 name(ws_atom_u64* p, ws_atom_u64 expected, ws_atom_u64 desired) { \
        ws_atom_u64 old; \
        asm volatile(op ".global.cas.b64 %0, [%1], %2, %3;" : "=l"(old) : "l"(p), "l"(expected), "l"(desired) : "memory"); \
        return old; \
    }
WS_EXPLICIT_LOAD(ws_gpu_load_relaxed_u32, "ld.relaxed.gpu", ws_atom_u32, 32, "r")
WS_EXPLICIT_LOAD(ws_gpu_load_relaxed_u64, "ld.relaxed.gpu", ws_atom_u64, 64, "l")
WS_EXPLICIT_LOAD(ws_gpu_load_acquire_u64, "ld.acquire.gpu", ws_atom_u64, 64, "l")
WS_EXPLICIT_STORE(ws_gpu_store_relaxed_u32, "st.relaxed.gpu", ws_atom_u32, 32, "r")
#if WS_X_RELAXED_GPU
#define WS_RELAXED_SCOPE "gpu"
#else
#define WS_RELAXED_SCOPE "sys"
#endif
WS_EXPLICIT_LOAD(ws_sys_load_relaxed_u32, "ld.relaxed." WS_RELAXED_SCOPE, ws_atom_u32, 32, "r")
WS_EXPLICIT_LOAD(ws_sys_load_relaxed_u64, "ld.relaxed." WS_RELAXED_SCOPE, ws_atom_u64, 64, "l")
WS_EXPLICIT_LOAD(ws_sys_load_acquire_u64, "ld.acquire.sys", ws_atom_u64, 64, "l")
WS_EXPLICIT_STORE(ws_sys_store_release_u64, "st.release.sys", ws_atom_u64, 64, "l")
WS_EXPLICIT_ADD(ws_sys_add_relaxed_u32, "atom.relaxed.sys", ws_atom_u32, 32, "r")
WS_EXPLICIT_ADD(ws_sys_add_relaxed_u64, "atom.relaxed." WS_RELAXED_SCOPE, ws_atom_u64, 64, "l")
WS_EXPLICIT_ADD(ws_gpu_add_relaxed_u64, "atom.relaxed.gpu", ws_atom_u64, 64, "l")
WS_EXPLICIT_CAS_U64(ws_gpu_cas_acq_rel_u64, "atom.acq_rel.gpu")
static __device__ __forceinline__ void ws_gpu_fence_acq_rel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
static __device__ __forceinline__ void ws_sys_fence_acq_rel() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }

// Scope follows sharing (queues/deque.cuh, builds for several GPUs): a deque's words are accessed
// only by system-scope relaxed operations, so every access is morally strong with every
// other GPU's, and ordered by fences whose scope is chosen at run time: GPU scope while only
// this GPU's workers use the deque, system scope once another GPU's thieves may.
WS_EXPLICIT_STORE(ws_sys_store_relaxed_u32, "st.relaxed." WS_RELAXED_SCOPE, ws_atom_u32, 32, "r")
WS_EXPLICIT_STORE(ws_sys_store_relaxed_u64, "st.relaxed." WS_RELAXED_SCOPE, ws_atom_u64, 64, "l")
WS_EXPLICIT_CAS_U64(ws_sys_cas_relaxed_u64, "atom.relaxed." WS_RELAXED_SCOPE)
static __device__ __forceinline__ void ws_sys_or_relaxed_u64(ws_atom_u64* p, ws_atom_u64 v) {
    asm volatile("red.relaxed.sys.global.or.b64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
// A fence of semantics `sem` at system scope when `sys`, else at GPU scope (chosen at run
// time: scope follows sharing).
#define WS_FENCE_AT(name, sem) \
    static __device__ __forceinline__ void name(bool sys) { \
        if (sys) asm volatile("fence." sem ".sys;" ::: "memory"); \
        else asm volatile("fence." sem ".gpu;" ::: "memory"); \
    }
WS_FENCE_AT(ws_fence_sc_at, "sc")
WS_FENCE_AT(ws_fence_acq_rel_at, "acq_rel")
// One-directional fences (PTX ISA 8.6; NVIDIA's atomics ABI maps a release store to
// `fence.release; st.relaxed`, an acquire load to `ld.relaxed; fence.acquire`, and an
// acquire-release read-modify-write to the pair around a relaxed one). On sm_90 a release
// fence is the MEMBAR alone and an acquire fence the L1 invalidation (CCTL.IVALL) alone,
// where fence.acq_rel is both: the multi-GPU kernel's release stores, acquire loads and CASes
// then compile to what the one-GPU kernel's st.release, ld.acquire and atom.acq_rel do (read
// from the SASS of both with nvdisasm), instead of paying a second MEMBAR or an L1 flush.
WS_FENCE_AT(ws_fence_release_at, "release")
WS_FENCE_AT(ws_fence_acquire_at, "acquire")

// Nanoseconds of the GPU's global timer (comparable across SMs).
static __device__ __forceinline__ unsigned long long ws_globaltimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
