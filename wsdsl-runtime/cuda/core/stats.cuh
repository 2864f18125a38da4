// core/stats.cuh — what every worker reports: its counters and, opt-in, where its time went.
//
// Per worker, `WS_STAT_WORDS` u64 (host mirror: `gpu/device/launch.rs`): the `WS_STAT_*` counters,
// then the `WS_PROF_*` profile words, zero unless the kernel was built with WSDSL_PROFILE.
//
// A profiled kernel times each phase of the worker loop with clock64() and adds the cycles
// to per-worker words that the host sums (stats.rs, `Profile`). The phases partition the
// leader's time from its first pop to its exit, so they add up to `total`:
//   own      popping tasks from the worker's own deque
//   search   looking for work elsewhere until some was found (steal attempts, back-off)
//   idle     looking for work until the run ended (the tail of the run)
//   exec     the batch between its barriers: the handlers, and the lanes waiting for the
//            slowest one (a batch lasts as long as its longest lane)
//   publish  making the batch's children visible
// Besides, per lane: cycles spent in complete handlers and join bookkeeping (`join`) and in
// the frame pool's slow paths (`frames`), which are parts of `exec`; batches and the lanes
// they used; the leader's cycles in successful robs (`rob`, part of `search`) and how many.
// With WS_AGE_TRACE as well (a development variant: it keeps a spawn time per deque slot in a
// static array), how long tasks waited from their spawn to the start of their batch, in ns,
// apart for tasks the worker spawned itself and tasks it stole. (Tasks that a contested
// reclaim moves down in the deque keep the times of the slots they land in.)
// Without WSDSL_PROFILE every macro here compiles to nothing.
#pragma once

#ifndef WSDSL_PROFILE
#define WSDSL_PROFILE 0
#endif
#ifndef WS_AGE_TRACE
#define WS_AGE_TRACE 0
#endif

// WS_STAT_REMOTE_STEALS: tasks this worker stole from other GPUs (features/pe.cuh); zero on one GPU.
enum { WS_STAT_TASKS, WS_STAT_STEAL_TRIES, WS_STAT_STEALS, WS_STAT_PEAK, WS_STAT_REMOTE_STEALS, WS_STAT_COUNT };
enum {
    WS_PROF_TOTAL, WS_PROF_OWN, WS_PROF_SEARCH, WS_PROF_IDLE, WS_PROF_EXEC, WS_PROF_PUBLISH,
    WS_PROF_JOIN, WS_PROF_FRAMES, WS_PROF_BATCHES, WS_PROF_LANES, WS_PROF_ROB, WS_PROF_ROBS,
    WS_PROF_WAIT_OWN, WS_PROF_WAITS_OWN, WS_PROF_WAIT_STOLEN, WS_PROF_WAITS_STOLEN, WS_PROF_COUNT
};
#define WS_STAT_WORDS (WS_STAT_COUNT + WS_PROF_COUNT)

#if WSDSL_PROFILE
#ifdef WS_HOST_EMULATION
#define ws_clock() 0ull
#else
#define ws_clock() ((unsigned long long)clock64())
#endif
#define WS_PROF(stmt) stmt
#else
#define WS_PROF(stmt) ((void)0)
#endif

// Progress for the host's progress line (`progress.rs`): at a poll, a worker's leader writes
// its task count to its word of a host-mapped array, at most once per WS_PROGRESS_NS, so a
// full GPU of workers sends a few hundred thousand small writes a second over PCIe at most.
// Null when nobody watches the run: then nothing is written.
#define WS_PROGRESS_NS (1ull << 23)   // about 8 ms
static __device__ __forceinline__ void ws_publish_progress(ws_atom_u64* progress, unsigned self, unsigned long long tasks,
                                                           unsigned long long* published_at) {
    if (progress == nullptr) return;
    const unsigned long long now = ws_globaltimer();
    if (now - *published_at < WS_PROGRESS_NS) return;
    *published_at = now;
    ws_store_volatile_sys_u64(&progress[self], tasks);
}
