// core/termination.cuh — quiescence detection by counting idle workers.
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
// across GPUs (features/pe.cuh) the wake-ups let a detector tell that no GPU woke up between two
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

// Across GPUs the idle words are read by GPU 0's detector, so every access to them is a
// system-scope relaxed read-modify-write, ordered by the fences below. On one GPU the idle
// count is one word, whose read-modify-writes the GPU's L2 orders anyway.
//
// Entering: the fence first makes whatever this worker did or saw before happen before its
// entry, so that the detector, if it sees the entry, sees that too (features/pe.cuh): a thief's steal
// of its last task (read relaxed) with the thief's wake-up, and in programs with joins or
// jobs the continuations it sent home to other GPUs (features/join.cuh, the inbox's `sent`). Those
// cross GPUs, so the fence is at system scope when this worker's deque is shared (`sys`:
// another GPU's thief may have robbed it; queues/deque.cuh, "scope follows sharing") and always in
// programs that send continuations home. Otherwise every party is on this GPU: a thief of
// this GPU left the idle state on this very word, before its claim and with GPU-scope
// fences, so that leave happens before this entry and the detector sees both. Once per idle
// entry, after WS_IDLE_AFTER failed probes.
static __device__ __forceinline__ void ws_enter_idle(ws_pe_state* s, bool sys) {
#if WSDSL_PES
    ws_fence_acq_rel_at(sys || WSDSL_JOIN || WSDSL_JOBS);
#if WS_X_IDLE_GPU
    ws_gpu_add_relaxed_u64(&s->idle_wakes, 1ull);
#else
    ws_sys_add_relaxed_u64(&s->idle_wakes, 1ull);
#endif
#else
    (void)sys;
    ws_add_acq_rel_u64(&s->idle_wakes, 1ull);
#endif
}
// Leaving: before the worker takes anything. A steal's own fences order the leave before its
// claim (system scope in a steal from another GPU); taking continuations sent home has no
// such fence before the inbox's `taken` that the detector reads, so programs with joins or
// jobs fence at system scope here.
static __device__ __forceinline__ void ws_leave_idle(ws_pe_state* s) {
#if WSDSL_PES
#if WS_X_IDLE_GPU
    ws_gpu_add_relaxed_u64(&s->idle_wakes, 0xffffffffull);
#else
    ws_sys_add_relaxed_u64(&s->idle_wakes, 0xffffffffull);
#endif
    ws_fence_acq_rel_at(WSDSL_JOIN || WSDSL_JOBS);
#else
    ws_add_acq_rel_u64(&s->idle_wakes, 0xffffffffull);
#endif
}
// Relaxed: the answer decides only whether to stop, after which nothing is read. An acquire
// here, polled by every idle worker, would invalidate its SM's L1 under the busy warps.
static __device__ __forceinline__ bool ws_all_idle(ws_pe_state* s, unsigned workers) {
    return ws_idle_count(ws_load_relaxed_u64(&s->idle_wakes)) == workers;
}
