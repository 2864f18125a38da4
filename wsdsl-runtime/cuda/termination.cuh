// termination.cuh — quiescence detection by counting idle workers.
//
// No atomic per task: a worker touches the shared counter only when it changes state
// (busy -> idle after failing to find work, idle -> busy before it tries a steal).
// Invariant: a worker that holds a task, or whose deque holds one, is never counted idle
// (it becomes idle only with an empty deque and empty hands, and leaves the idle state
// before it takes a task from anyone). So `idle == workers` means no task exists anywhere,
// and none can appear: it is safe to stop, and it is stable.
//
// The count shares one 64-bit word with a count of wake-ups: idle in the low half, the
// number of times a worker left the idle state in the high half. Leaving adds 0xffffffff,
// which takes one from the idle count and, by the carry out of the low half (the idle count
// is at least one then), adds one to the wake-ups. On one GPU only the idle half matters;
// across GPUs (pe.cuh) the wake-ups let a detector tell that no GPU woke up between two
// looks at it.
#pragma once

// One per GPU: its idle workers and wake-ups, and the words other GPUs write to it when the
// run is over (`done`) or has failed elsewhere (`stop`). A 128-byte line of its own.
struct ws_pe_state {
    ws_atom_u64 idle_wakes;   // idle workers (low 32 bits) | wake-ups (high 32 bits)
    ws_atom_u32 done;         // the run is over on every GPU (written by GPU 0's detector)
    ws_atom_u32 stop;         // another GPU failed: stop too (written by that GPU)
    ws_atom_u32 pad[28];
};

static __device__ __forceinline__ unsigned ws_idle_count(ws_atom_u64 idle_wakes) { return (unsigned)idle_wakes; }

// Entering, across GPUs: the fence first makes whatever this worker saw before (a thief's
// steal of its last task, read relaxed) happen before its entry, so that GPU 0's detector,
// if it sees the entry, also sees the thief's wake-up (pe.cuh). Once per idle entry. A
// thief of another GPU can have stolen only from a shared deque (`shared`; deque.cuh), so
// the fence is at system scope only then; a thief of this GPU left the idle state on the
// same word, whose read-modify-writes are ordered with this one anyway. The words are
// read by other GPUs' detectors, so every access is at system scope (relaxed: the fences
// order them). (On one GPU the idle count is one word, whose read-modify-writes the GPU's
// L2 orders anyway.)
static __device__ __forceinline__ void ws_enter_idle(ws_pe_state* s, bool shared) {
#if WSDSL_PES
    ws_fence_acq_rel_at(shared);
    ws_sys_add_relaxed_u64(&s->idle_wakes, 1ull);
#else
    (void)shared;
    ws_add_acq_rel_u64(&s->idle_wakes, 1ull);
#endif
}
// Leaving: before the thief takes anything; its steal's own fences order this before its
// claim (system scope in a steal from another GPU).
static __device__ __forceinline__ void ws_leave_idle(ws_pe_state* s) {
#if WSDSL_PES
    ws_sys_add_relaxed_u64(&s->idle_wakes, 0xffffffffull);
    ws_gpu_fence_acq_rel();
#else
    ws_add_acq_rel_u64(&s->idle_wakes, 0xffffffffull);
#endif
}
// Relaxed: the answer decides only whether to stop, after which nothing is read. An acquire
// here, polled by every idle worker, would invalidate its SM's L1 under the busy warps.
static __device__ __forceinline__ bool ws_all_idle(ws_pe_state* s, unsigned workers) {
    return ws_idle_count(ws_load_relaxed_u64(&s->idle_wakes)) == workers;
}
