// core/launch.cuh — the scheduler configuration baked into a kernel, and the launch record.
//
// Configuration (defined by the runtime at the top of the assembled source):
//   WSDSL_BLOCK_THREADS   threads per block
//   WSDSL_WORKER_THREADS  threads per worker: 1 (thread), 32 (warp) or WSDSL_BLOCK_THREADS
//                         (block). A worker owns one deque and runs up to this many tasks
//                         at a time, one per thread; its first thread manages the deque.
//   WSDSL_VICTIM          victim policy (features/victims.cuh)
//   WSDSL_STEAL_HALF      1: a thief takes half of the victim's tasks, 0: one
#pragma once

#ifndef WSDSL_BLOCK_THREADS
#define WSDSL_BLOCK_THREADS 256
#endif
#ifndef WSDSL_WORKER_THREADS
#define WSDSL_WORKER_THREADS 32
#endif
#ifndef WSDSL_STEAL_HALF
#define WSDSL_STEAL_HALF 0
#endif
#define WS_GROUP WSDSL_WORKER_THREADS
#define WS_GROUPS_PER_BLOCK (WSDSL_BLOCK_THREADS / WS_GROUP)


// Everything a launch needs, written by the host into device memory (host mirror:
// `gpu/device/launch.rs`, struct LaunchRecord; keep the two in the same order).
struct ws_launch {
    wsdsl_task* slots;                  // workers * capacity task slots
    ws_deque* deques;                   // one control block per worker
    const wsdsl_task* roots;            // initial tasks, dealt round-robin to workers
    const wsdsl_params* params;
    const wsdsl_buffers* buffers;       // element pointers and lengths of the user's buffers
    unsigned long long* counter_slots;  // one per counter, pre-set to the reduction identity
    unsigned long long* stats;          // workers * WS_STAT_WORDS
    ws_pe_state* state;                 // this GPU's idle workers and run-wide flags (core/termination.cuh)
    const ws_atom_u32* stop;            // host-mapped: nonzero asks the kernel to stop
    ws_atom_u64* progress;              // host-mapped, per worker: tasks run (null: unwatched)
    unsigned* sm_of;                    // per worker: its SM id (features/victims.cuh), 0xff.. = unknown
    unsigned* sm_leader;                // per SM: the worker that robs other SMs (HWS)
    unsigned workers;
    unsigned capacity;
    unsigned root_count;
    unsigned seed;
    const unsigned long long* pe_heaps; // multi-GPU runs: every GPU's state (features/pe.cuh), as mapped here
    unsigned pe;                        // this GPU's index in a multi-GPU run (features/pe.cuh); 0 alone
    unsigned n_pes;                     // GPUs in the run; 1 alone
};

static __device__ __forceinline__ unsigned ws_xorshift(unsigned* s) {
    unsigned x = *s;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    return *s = x;
}

// Where a worker may lose its processor. On the GPU warps interleave anyway; the host
// emulation runs a block's threads as fibers, which switch only when told, so without this a
// busy worker would starve the others of its emulated SM.
#ifdef WS_HOST_EMULATION
#define ws_preempt() ws_emu_yield()
#else
#define ws_preempt() ((void)0)
#endif

// Barrier over the threads of one worker.
static __device__ __forceinline__ void ws_group_sync() {
#if WS_GROUP == 1
#elif WS_GROUP == 32
    __syncwarp();
#else
    __syncthreads();
#endif
}
