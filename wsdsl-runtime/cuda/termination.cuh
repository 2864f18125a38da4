// termination.cuh — quiescence detection by counting idle workers.
//
// No atomic per task: a worker touches the shared counter only when it changes state
// (busy -> idle after failing to find work, idle -> busy before it tries a steal).
// Invariant: a worker that holds a task, or whose deque holds one, is never counted idle
// (it becomes idle only with an empty deque and empty hands, and leaves the idle state
// before it takes a task from anyone). So `idle == workers` means no task exists anywhere,
// and none can appear: it is safe to stop, and it is stable.
#pragma once

static __device__ __forceinline__ void ws_enter_idle(ws_atom_u32* idle) { ws_add_acq_rel_u32(idle, 1u); }
static __device__ __forceinline__ void ws_leave_idle(ws_atom_u32* idle) { ws_add_acq_rel_u32(idle, 0xffffffffu); }
// Relaxed: the answer decides only whether to stop, after which nothing is read. An acquire
// here, polled by every idle worker, would invalidate its SM's L1 under the busy warps.
static __device__ __forceinline__ bool ws_all_idle(const ws_atom_u32* idle, unsigned workers) {
    return ws_load_relaxed_u32(idle) == workers;
}
