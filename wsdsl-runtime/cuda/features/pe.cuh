// features/pe.cuh — the deque scheduler across GPUs: one processing element (PE) per GPU, over NVSHMEM.
//
// Each GPU runs the same persistent megakernel over its own deques. Each GPU's
// `ws_pe_state`, deques and slots are one allocation in NVSHMEM's symmetric heap (state
// first), laid out alike on every GPU; the host hands the kernel `pe_heaps`, where that
// allocation of every GPU is mapped in this GPU's address space (`nvshmem_ptr` on the host:
// NVLink or PCIe peer mappings). A worker reaches a deque of GPU `pe` at the same offset in
// `pe_heaps[pe]` (`ws_pe_ptr`) and steals from it with the very operations it uses at home
// (queues/deque.cuh): system-scope accesses, fenced at system scope, from a deque its owner has
// shared ("scope follows sharing" there). On one
// host the kernel calls no NVSHMEM function, so it is compiled like every other kernel (no
// `-rdc`, no device library); the host emulation hands in its own heaps the same way. GPUs
// of other hosts are the exception (below).
// Victims are global worker ids, `pe * workers + w` (features/victims.cuh: the policies extended by
// one level of the hierarchy, thread < warp < block < SM < GPU).
//
// Termination across GPUs, without a remote atomic per task. A GPU's idle workers hold its
// idle count and wake-ups in one word (core/termination.cuh). GPU 0's worker 0, when it and all
// of its GPU are idle, reads every GPU's word twice, in two waves: if every GPU was all idle
// in the first wave and no GPU's word changed by the second, then at an instant between
// the waves every worker of every GPU was idle at once (no wake-up happened on any GPU in
// between, and all were idle at their first look), so no task existed anywhere, and none
// can appear: it writes `done` to every GPU. A task being stolen across GPUs is never
// missed: a thief leaves the idle state before it takes anything, and an owner goes idle
// only with an empty deque. Nor is a continuation sent home across GPUs (features/join.cuh): the
// detector also finds every GPU's inbox empty between the waves, and a worker leaves the
// idle state before it takes from its inbox.
//
// Failure: a GPU that stops with an error (a fault, an overflow, its watchdog) writes
// `stop` to every other GPU; a GPU that sees `stop` ends with WS_STATUS_PEER, so every
// process returns and the host names the GPU that failed.
//
// GPUs of other hosts (WSDSL_PES_ONE_SIDED): their entry in `pe_heaps` is 0, since nothing
// maps them here. Every access to them goes through NVSHMEM's one-sided calls on the
// *symmetric* address (this GPU's own address of the same object) and the GPU's index, each
// call made out of line (features/far.cuh):
// `nvshmem_uint64_atomic_fetch` / `_compare_swap` on a deque's head, `nvshmem_uint32_atomic_fetch`
// on its split, `nvshmem_getmem` of its slots, and the same fetches and sets on the
// termination words. The steal is the same algorithm (queues/deque.cuh, Listing 35.3) with those
// calls in place of the loads and the CAS. CI runs it on the host emulation, whose shims
// serve the calls from the emulated heaps (cuda/host/emulation.h), with GPUs split into
// emulated hosts; GPU builds include <nvshmem.h> and link its device library
// (gpu/multi/run.rs); they run exact on GPUs of one machine split into hosts, where
// NVSHMEM carries the calls over NVLink. Fork-join across hosts goes the same way (features/join.cuh).
// Open on real networks (InfiniBand, RoCE): NVSHMEM's atomics are atomic with one another,
// not necessarily with the GPU's own atomics on the same word, and these builds mix them on a
// deque's head (the owner's and local thieves' CAS), on a frame's `pending` count (home and
// same-host children), on an inbox's `sent` and `tails` (same-host senders), and in the ask to
// share a deque (an NVSHMEM OR on a head its owner writes with plain stores): each may
// need to become an NVSHMEM atomic on every side. And `nvshmem_fence` orders the delivery of
// a far child's value before its count, not the home GPU's reads: a home thread that learns
// the count through its own atomic may need NVSHMEM's wait or signal calls to see the value.
#pragma once

#ifndef WSDSL_PES
#define WSDSL_PES 0
#endif
#ifndef WSDSL_PES_ONE_SIDED
#define WSDSL_PES_ONE_SIDED 0
#endif
// GPUs a run may span (the detector keeps one word per GPU in registers/local memory).
#define WS_MAX_PES 64u

// The address of this GPU's symmetric object `p` on GPU `pe`.
template <class T> static __device__ __forceinline__ T* ws_pe_ptr(const ws_launch* L, T* p, unsigned pe) {
#if WSDSL_PES
    return (T*)((const char*)p - (const char*)L->state + L->pe_heaps[pe]);
#else
    (void)L; (void)pe;
    return p;
#endif
}

// Whether GPU `pe`'s heap is mapped here; if not, it is reached by one-sided calls only.
static __device__ __forceinline__ bool ws_pe_mapped(const ws_launch* L, unsigned pe) {
#if WSDSL_PES_ONE_SIDED
    return L->pe_heaps[pe] != 0ull;
#else
    (void)L; (void)pe;
    return true;
#endif
}

// A termination word of GPU `pe` (`field` of its `ws_pe_state`), read and written as a thief.
static __device__ __forceinline__ ws_atom_u64 ws_pe_load_u64(const ws_launch* L, ws_atom_u64* field, unsigned pe) {
#if WSDSL_PES_ONE_SIDED
    if (!ws_pe_mapped(L, pe)) return ws_far_fetch_u64(field, pe);
#endif
    return ws_thief_load_acquire_u64(ws_pe_ptr(L, field, pe));
}
static __device__ __forceinline__ void ws_pe_store_u32(const ws_launch* L, ws_atom_u32* field, unsigned pe, unsigned v) {
#if WSDSL_PES_ONE_SIDED
    if (!ws_pe_mapped(L, pe)) { ws_far_set_u32(field, v, pe); return; }
#endif
    ws_thief_store_release_u32(ws_pe_ptr(L, field, pe), v);
}

// GPU 0's detector (see above). True when it declared the run over on every GPU. Rarely
// run, like the stop's forwarding below: WS_COLD (features/far.cuh).
WS_COLD bool ws_pe_detect(const ws_launch* L) {
    ws_atom_u64 first[WS_MAX_PES];
    for (unsigned pe = 0; pe < L->n_pes; pe++) {
        const ws_atom_u64 w = ws_pe_load_u64(L, &L->state->idle_wakes, pe);
        if (ws_idle_count(w) != L->workers) return false;
        first[pe] = w;
    }
#if WSDSL_JOIN && WSDSL_PES
    // A continuation sent home (features/join.cuh) is work no deque holds; its sender was busy when it
    // counted it sent, so if the sender was idle above, the count is seen here; a worker
    // leaves the idle state before it takes one.
    for (unsigned pe = 0; pe < L->n_pes; pe++) {
        if (ws_join_inbox_waiting(pe)) return false;
    }
#endif
    for (unsigned pe = 0; pe < L->n_pes; pe++) {
        if (ws_pe_load_u64(L, &L->state->idle_wakes, pe) != first[pe]) return false;
    }
    for (unsigned pe = 0; pe < L->n_pes; pe++) ws_pe_store_u32(L, &L->state->done, pe, 1u);
#if WSDSL_PES_ONE_SIDED
    ws_far_quiet();   // the one-sided sets are delivered before this GPU's kernel ends
#endif
    return true;
}

// An idle worker of an all-idle GPU: whether the whole run is over. On one GPU it is; on
// several, once GPU 0's detector says so (worker 0 of GPU 0 looks every 16th round).
static __device__ __forceinline__ bool ws_pe_finished(const ws_launch* L, unsigned self, unsigned round) {
    if (L->n_pes == 1) return true;
    if (ws_load_relaxed_u32(&L->state->done) != 0u) return true;
    return L->pe == 0 && self == 0 && (round & 15u) == 0u && ws_pe_detect(L);
}

// This GPU failed: tell the others (each worker once, on its way out).
WS_COLD void ws_pe_forward_stop(const ws_launch* L) {
    for (unsigned pe = 0; pe < L->n_pes; pe++)
        if (pe != L->pe) ws_pe_store_u32(L, &L->state->stop, pe, 1u);
#if WSDSL_PES_ONE_SIDED
    ws_far_quiet();
#endif
}

// Whether another GPU failed (a local word, polled as often as the error word).
static __device__ __forceinline__ bool ws_pe_peer_stopped(const ws_launch* L) {
    return L->n_pes > 1 && ws_load_relaxed_u32(&L->state->stop) != 0u;
}
