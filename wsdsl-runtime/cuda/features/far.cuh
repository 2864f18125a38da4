// features/far.cuh — the calls that reach another host's GPU (WSDSL_PES_ONE_SIDED), out of line.
//
// Each NVSHMEM device call is inline code in <nvshmem.h>: a test of whether the peer is
// reachable by loads and stores, the access itself, and otherwise a call into the device
// library's transport. Inlined at every place the templates reach another host (the deque's
// offers and steal, the detector's words, the stop flag, fork-join's deliveries and inbox),
// N-Queens' kernel would have 3,800 instructions (the one-host kernel's: 1,592) with 33 calls
// into the library, and on one GPU, where none of that code runs, take 981 ms for N-Queens 18
// against the one-host kernel's 868. So each call is made in a function of its own, and the
// rarely run paths that make them are out of line too (WS_COLD, below): 1,664 instructions,
// 10 calls, 924 ms (fib(42) 127 ms instead of 132, UTS T1XL 111 instead of 116, T3L 67
// instead of 70), and 2 "hosts" x 1 GPU run N-Queens 18 1.85x one GPU instead of 1.75x. A
// reach to another host pays a call.
//
// The host emulation serves the same NVSHMEM names from its heaps (host/emulation.h).
#pragma once

// The multi-GPU paths that run rarely and would each be inlined at several places with the
// calls below in them (the detector, the stop's forwarding, a continuation sent home, a value
// delivered to another host): out of line across hosts. In one-host kernels they stay inline.
// (WS_COLD_OUT_OF_LINE=1 in WSDSL_DEFINES moves them out there too. The kernel's copy of the
// launch record, whose address they take, then lives in local memory, and ptxas gives the
// kernel fewer registers: N-Queens' one-GPU kernel 80 instead of 96, three blocks an SM
// instead of two, N-Queens 18 in 666 ms instead of 864; UTS 128 instead of 160, T1XL 106 ms
// instead of 149 and T3L 60 instead of 57. Blocks per SM make the difference, not these
// paths: WSDSL_MIN_BLOCKS=3 gives N-Queens 18 682 ms, =2 T1XL 106.6 ms; BENCHMARKS.md.)
#ifndef WS_COLD_OUT_OF_LINE
#define WS_COLD_OUT_OF_LINE WSDSL_PES_ONE_SIDED
#endif
#if WS_COLD_OUT_OF_LINE
#define WS_COLD static __device__ __noinline__
#else
#define WS_COLD static __device__
#endif

#if WSDSL_PES_ONE_SIDED
#define WS_FAR static __device__ __noinline__

WS_FAR uint64_t ws_far_fetch_u64(const void* at, unsigned pe) { return nvshmem_uint64_atomic_fetch((const uint64_t*)at, (int)pe); }
WS_FAR uint32_t ws_far_fetch_u32(const void* at, unsigned pe) { return nvshmem_uint32_atomic_fetch((const uint32_t*)at, (int)pe); }
WS_FAR void ws_far_set_u32(void* at, uint32_t v, unsigned pe) { nvshmem_uint32_atomic_set((uint32_t*)at, v, (int)pe); }
WS_FAR void ws_far_or_u64(void* at, uint64_t v, unsigned pe) { nvshmem_uint64_atomic_or((uint64_t*)at, v, (int)pe); }
WS_FAR uint64_t ws_far_cas_u64(void* at, uint64_t expected, uint64_t v, unsigned pe) {
    return nvshmem_uint64_atomic_compare_swap((uint64_t*)at, expected, v, (int)pe);
}
WS_FAR uint32_t ws_far_fetch_add_u32(void* at, uint32_t v, unsigned pe) { return nvshmem_uint32_atomic_fetch_add((uint32_t*)at, v, (int)pe); }
WS_FAR uint64_t ws_far_fetch_add_u64(void* at, uint64_t v, unsigned pe) { return nvshmem_uint64_atomic_fetch_add((uint64_t*)at, v, (int)pe); }
// `bytes` from GPU `pe`'s `from` (a symmetric address) into this thread's `into`.
WS_FAR void ws_far_get(void* into, const void* from, size_t bytes, unsigned pe) { nvshmem_getmem(into, from, bytes, (int)pe); }
// `words` 32-bit words to GPU `pe`'s `at`, each a scalar put: a scalar carries its word in
// the call, so no source buffer needs registering with the network.
WS_FAR void ws_far_put_words(uint32_t* at, const uint32_t* words, unsigned n, unsigned pe) {
    for (unsigned k = 0; k < n; k++) nvshmem_uint32_p(at + k, words[k], (int)pe);
}
// NVSHMEM's orderings: `fence` delivers this thread's earlier puts and atomics to each GPU
// before its later ones; `quiet` waits until all of them are delivered.
WS_FAR void ws_far_fence() { nvshmem_fence(); }
WS_FAR void ws_far_quiet() { nvshmem_quiet(); }
// Sets GPU `pe`'s `at` to `v` after everything this thread sent there before, and waits
// until it is delivered (a release of `v` to that GPU).
WS_FAR void ws_far_publish_u64(void* at, uint64_t v, unsigned pe) {
    nvshmem_fence();
    nvshmem_uint64_atomic_set((uint64_t*)at, v, (int)pe);
    nvshmem_quiet();
}
#endif
