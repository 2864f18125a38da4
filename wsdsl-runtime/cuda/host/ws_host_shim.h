// ws_host_shim.h — lets the queue headers of the template library compile with the host C++
// compiler (g++/clang++, C++17), so they can be hammered from host threads without a GPU.
//
// It replaces core/atomics.cuh (include this INSTEAD of it, before any queue header): every
// `ws_*` wrapper has the same name, signature and memory order, spelled with GCC `__atomic`
// builtins:
//   ld.acquire.gpu   -> __atomic_load_n(ACQUIRE)       st.release.gpu -> __atomic_store_n(RELEASE)
//   ld/st.relaxed.gpu-> __atomic_*_n(RELAXED)           atom.acq_rel   -> __atomic_*(ACQ_REL)
//   atom.release     -> __atomic_*(RELEASE)
//   fence.sc.gpu     -> __atomic_thread_fence(SEQ_CST)  fence.acq_rel  -> __atomic_thread_fence(ACQ_REL)
//   fence.acquire    -> __atomic_thread_fence(ACQUIRE)  fence.release  -> __atomic_thread_fence(RELEASE)
// plus the CUDA qualifiers and intrinsics the headers use (`__device__`, `__forceinline__`,
// `atomicAdd`, `atomicCAS`, `__nanosleep`, `__threadfence`, ...). The C++ memory model is
// at least as weak as the PTX one for these operations except that relaxed accesses here are
// single-copy atomic like PTX's strong ones, so a bug in the ordering of a header shows up
// here too (on a weak CPU; on x86 only the store-load order is relaxed, which is what
// fence.sc exists for) — and ThreadSanitizer checks the happens-before edges exactly.
#pragma once

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>

#define __device__
#define __host__
#define __global__
#define __shared__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))

typedef unsigned int ws_atom_u32;
typedef unsigned long long ws_atom_u64;

// Schedule noise: with `ws_host_chaos_per_256` > 0, every wrapper below first yields the core
// with that probability (out of 256), so a thread can be descheduled between any two steps
// of a queue operation. That makes the interleavings of a few threads on a busy 2-core
// machine as varied as those of many truly parallel ones. Harnesses set it per thread.
static thread_local unsigned ws_host_chaos_per_256 = 0;
static thread_local unsigned ws_host_chaos_rng = 0x1234567u;
static inline void ws_host_chaos() {
    if (ws_host_chaos_per_256 == 0) return;
    unsigned x = ws_host_chaos_rng;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    ws_host_chaos_rng = x;
    if ((x & 255u) < ws_host_chaos_per_256) sched_yield();
}

// The GPU's wrappers (core/atomics.cuh) name the .global state space: given a shared-memory
// address they fault there, though here, with one address space, they would run fine. The
// emulation (emulation.h) sets this check of the running block's shared arena, so that such a
// call fails in CI instead of on the GPU.
static bool (*ws_host_in_shared)(const void*) = nullptr;
static inline void ws_host_global(const void* p) {
    if (ws_host_in_shared != nullptr && ws_host_in_shared(p)) {
        fprintf(stderr, "wsdsl template bug: a global-memory atomic wrapper (core/atomics.cuh) was given a shared-memory address; on the GPU it faults with CUDA_ERROR_INVALID_ADDRESS_SPACE. Use atomicAdd/atomicMin/... on shared words.\n");
        abort();
    }
    ws_host_chaos();
}

static inline ws_atom_u32 ws_load_acquire_u32(const ws_atom_u32* p) { ws_host_global(p); return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline ws_atom_u64 ws_load_acquire_u64(const ws_atom_u64* p) { ws_host_global(p); return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline ws_atom_u32 ws_load_relaxed_u32(const ws_atom_u32* p) { ws_host_global(p); return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline ws_atom_u64 ws_load_relaxed_u64(const ws_atom_u64* p) { ws_host_global(p); return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void ws_store_release_u32(ws_atom_u32* p, ws_atom_u32 v) { ws_host_global(p); __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static inline void ws_store_release_u64(ws_atom_u64* p, ws_atom_u64 v) { ws_host_global(p); __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static inline void ws_store_relaxed_u32(ws_atom_u32* p, ws_atom_u32 v) { ws_host_global(p); __atomic_store_n(p, v, __ATOMIC_RELAXED); }
static inline ws_atom_u64 ws_cas_acq_rel_u64(ws_atom_u64* p, ws_atom_u64 expected, ws_atom_u64 desired) { ws_host_global(p);
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    return expected;   // the value found (== the expected one on success)
}
static inline ws_atom_u64 ws_add_acq_rel_u64(ws_atom_u64* p, ws_atom_u64 v) { ws_host_global(p); return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL); }
static inline ws_atom_u32 ws_add_acq_rel_u32(ws_atom_u32* p, ws_atom_u32 v) { ws_host_global(p); return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL); }
static inline ws_atom_u32 ws_add_relaxed_u32(ws_atom_u32* p, ws_atom_u32 v) { ws_host_global(p); return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
static inline ws_atom_u32 ws_add_release_u32(ws_atom_u32* p, ws_atom_u32 v) { ws_host_global(p); return __atomic_fetch_add(p, v, __ATOMIC_RELEASE); }
// The thief's side (core/atomics.cuh): the same operations; the host has one scope.
#define ws_thief_load_acquire_u32 ws_load_acquire_u32
#define ws_thief_load_acquire_u64 ws_load_acquire_u64
#define ws_thief_load_relaxed_u32 ws_load_relaxed_u32
#define ws_thief_load_relaxed_u64 ws_load_relaxed_u64
#define ws_thief_fence_sc ws_fence_sc
#define ws_thief_cas_acq_rel_u64 ws_cas_acq_rel_u64
#define ws_thief_store_release_u32 ws_store_release_u32
// Explicit scopes (core/atomics.cuh, for features/join.cuh across GPUs): the same operations.
#define ws_gpu_fence_acq_rel ws_fence_acq_rel
#define ws_gpu_load_relaxed_u32 ws_load_relaxed_u32
#define ws_gpu_load_relaxed_u64 ws_load_relaxed_u64
#define ws_gpu_load_acquire_u64 ws_load_acquire_u64
#define ws_gpu_store_relaxed_u32 ws_store_relaxed_u32
#define ws_gpu_cas_acq_rel_u64 ws_cas_acq_rel_u64
#define ws_sys_fence_acq_rel ws_fence_acq_rel
#define ws_sys_add_relaxed_u32 ws_add_relaxed_u32
static inline ws_atom_u64 ws_sys_add_relaxed_u64(ws_atom_u64* p, ws_atom_u64 v) { ws_host_global(p); return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
#define ws_gpu_add_relaxed_u64 ws_sys_add_relaxed_u64
#define ws_sys_load_relaxed_u32 ws_load_relaxed_u32
#define ws_sys_load_relaxed_u64 ws_load_relaxed_u64
#define ws_sys_load_acquire_u64 ws_load_acquire_u64
#define ws_sys_store_release_u64 ws_store_release_u64
#define ws_sys_store_relaxed_u32 ws_store_relaxed_u32
static inline void ws_sys_store_relaxed_u64(ws_atom_u64* p, ws_atom_u64 v) { ws_host_global(p); __atomic_store_n(p, v, __ATOMIC_RELAXED); }
static inline ws_atom_u64 ws_sys_cas_relaxed_u64(ws_atom_u64* p, ws_atom_u64 expected, ws_atom_u64 desired) { ws_host_global(p);
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return expected;
}
static inline void ws_sys_or_relaxed_u64(ws_atom_u64* p, ws_atom_u64 v) { ws_host_global(p); __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }
// Scope follows sharing: the host has one scope; the fence is the same either way.
static inline void ws_fence_sc_at(bool) { ws_host_chaos(); __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void ws_fence_acq_rel_at(bool) { ws_host_chaos(); __atomic_thread_fence(__ATOMIC_ACQ_REL); }
static inline void ws_fence_release_at(bool) { ws_host_chaos(); __atomic_thread_fence(__ATOMIC_RELEASE); }
static inline void ws_fence_acquire_at(bool) { ws_host_chaos(); __atomic_thread_fence(__ATOMIC_ACQUIRE); }
static inline void ws_fence_sc() { ws_host_chaos(); __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void ws_fence_acq_rel() { ws_host_chaos(); __atomic_thread_fence(__ATOMIC_ACQ_REL); }
static inline ws_atom_u32 ws_load_volatile_sys_u32(const ws_atom_u32* p) { ws_host_global(p); return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void ws_store_volatile_sys_u64(ws_atom_u64* p, ws_atom_u64 v) { ws_host_global(p); __atomic_store_n(p, v, __ATOMIC_RELAXED); }
static inline unsigned long long ws_globaltimer() {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

// CUDA intrinsics (device-scope atomics are relaxed in CUDA; seq_cst here is stronger, never weaker).
template <class T> static inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
template <class T> static inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }
template <class T> static inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
template <class T> static inline T atomicCAS(T* p, T expected, T desired) {
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return expected;
}
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
// A sleeping GPU thread frees issue slots for others; a host thread yields its core (the
// hammer runs more threads than cores, and a spinning waiter must let the owner of its
// ticket run).
static inline void __nanosleep(unsigned) { sched_yield(); }
