// context.cuh — what a handler's `ctx` is on the device.
//
// Each lane of a worker warp runs one task with its own context. Counters are private to
// the lane (registers) and folded into the device slots once, when the worker exits, so a
// `ctx.counters.x.add(1)` costs an add, not an atomic. Spawned tasks go straight into the
// owner's deque above its tail: a shared-memory counter hands out slots, and the worker
// publishes them all with one release store after the batch (deque.cuh).
#pragma once

// Programs with complete handlers or task values define WSDSL_JOIN in their types fragment.
#ifndef WSDSL_JOIN
#define WSDSL_JOIN 0
#endif
#if WSDSL_JOIN
// Free frame ids a thread keeps (join.cuh): a batch of them must fit in one free frame, from
// its task field on (at least 16 bytes).
#define WS_FRAME_ROOM ((unsigned)((sizeof(ws_frame) - 24u) / 4u))
#define WS_FRAME_BATCH (WS_FRAME_ROOM < 16u ? WS_FRAME_ROOM : 16u)
#endif

struct wsdsl_ctx {
    const wsdsl_params* params;
    const wsdsl_buffers* buffers;
    wsdsl_counters counters;
    wsdsl_task* slots;      // the worker's deque slots
    unsigned base;          // first free slot (the deque's tail after the batch was popped)
    unsigned capacity;      // number of slots
    unsigned* spawned;      // shared memory: tasks spawned by this worker's current batch
    const void* sched;      // scheduler-specific (the broker scheduler's launch record)
    unsigned sched_queue;   // scheduler-specific (the broker scheduler's queue)
#if WSDSL_JOIN
    // Complete handlers (join.cuh): the task being run, its frame once it spawned, its
    // children so far, and this thread's free frames.
    const wsdsl_task* cur;
    unsigned child_frame;
    unsigned child_count;
    unsigned frames_cached;
    unsigned frame_cache[WS_FRAME_BATCH];
#endif
};

// A worker thread's context: counters at their identities, children written to `slots` from
// `base` 0 on (up to `capacity`), counted in `*spawned`. Kernels set `base` per batch and the
// scheduler-specific fields when they use them.
static __device__ __forceinline__ void wsdsl_ctx_init(wsdsl_ctx* ctx, const wsdsl_params* params, const wsdsl_buffers* buffers,
                                                      wsdsl_task* slots, unsigned capacity, unsigned* spawned) {
    ctx->params = params;
    ctx->buffers = buffers;
    wsdsl_counters_init(&ctx->counters);
    ctx->slots = slots;
    ctx->base = 0u;
    ctx->capacity = capacity;
    ctx->spawned = spawned;
    ctx->sched = 0;
    ctx->sched_queue = 0u;
#if WSDSL_JOIN
    ctx->cur = 0;
    ctx->child_frame = 0xfffffffdu;   // WS_JOIN_NONE
    ctx->child_count = 0u;
    ctx->frames_cached = 0u;
#endif
}

#if WSDSL_JOIN
static __device__ void ws_join_link_child(wsdsl_ctx* ctx, wsdsl_task* child);
#endif

#ifdef WS_SPAWN_SPILL
// Schedulers that can take a child another way when the slots are full define this (the
// broker scheduler enqueues it directly); the others report the overflow after the batch.
static __device__ void ws_spawn_spill(wsdsl_ctx* ctx, const wsdsl_task* task);
#endif

// Cooperative schedules (WSDSL_COOPERATIVE): every thread of a worker runs the same task, and
// the handler sees its rank among them, their number, and a barrier over them. Otherwise a
// task has one thread of its own.
#ifndef WSDSL_COOPERATIVE
#define WSDSL_COOPERATIVE 0
#endif
#ifndef WSDSL_WORKER_THREADS
#define WSDSL_WORKER_THREADS 32
#endif
static __device__ __forceinline__ ws_u32 wsdsl_ctx_thread(wsdsl_ctx*) {
    return WSDSL_COOPERATIVE ? (ws_u32)(threadIdx.x % WSDSL_WORKER_THREADS) : 0u;
}
static __device__ __forceinline__ ws_u32 wsdsl_ctx_threads(wsdsl_ctx*) { return WSDSL_COOPERATIVE ? WSDSL_WORKER_THREADS : 1u; }
static __device__ __forceinline__ void wsdsl_ctx_sync(wsdsl_ctx*) {
#if WSDSL_COOPERATIVE && WSDSL_WORKER_THREADS == 32
    __syncwarp();
#elif WSDSL_COOPERATIVE && WSDSL_WORKER_THREADS > 32
    __syncthreads();
#endif
}

static __device__ __forceinline__ const wsdsl_params* wsdsl_ctx_params(wsdsl_ctx* ctx) { return ctx->params; }
static __device__ __forceinline__ const wsdsl_buffers* wsdsl_ctx_buffers(wsdsl_ctx* ctx) { return ctx->buffers; }
static __device__ __forceinline__ wsdsl_counters* wsdsl_ctx_counters(wsdsl_ctx* ctx) { return &ctx->counters; }

// Writes the task into the next free slot. A slot past the capacity is not written: the
// scheduler spills the task (WS_SPAWN_SPILL), or sees the count exceed the capacity after the
// batch and reports the overflow.
static __device__ void wsdsl_ctx_spawn(wsdsl_ctx* ctx, const wsdsl_task* task) {
#if WSDSL_JOIN
    wsdsl_task linked = *task;
    ws_join_link_child(ctx, &linked);
    task = &linked;
#endif
    unsigned i = atomicAdd(ctx->spawned, 1u);
    unsigned long long slot = (unsigned long long)ctx->base + i;
    if (slot < ctx->capacity) ctx->slots[slot] = *task;
#ifdef WS_SPAWN_SPILL
    else ws_spawn_spill(ctx, task);
#endif
}
