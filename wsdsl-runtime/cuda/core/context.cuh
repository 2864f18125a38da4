// core/context.cuh — what a handler's `ctx` is on the device.
//
// Each lane of a worker warp runs one task with its own context. Counters are private to
// the lane (registers) and folded into the device slots once, when the worker exits, so a
// `ctx.counters.x.add(1)` costs an add, not an atomic. Spawned tasks go straight into the
// owner's deque above its tail: a shared-memory counter hands out slots, and the worker
// publishes them all with one release store after the batch (queues/deque.cuh).
#pragma once

// Blocks per SM the compiler must fit (registers): 1 lets it choose (KernelConfig::min_blocks).
#ifndef WSDSL_MIN_BLOCKS
#define WSDSL_MIN_BLOCKS 1
#endif

// Shared memory, declared through a macro so the host emulation can give each emulated
// block its own arena (cuda/host/emulation.h).
#ifndef WS_SHARED
#define WS_SHARED(T, name, n) __shared__ T name[n]
#endif

// Programs with complete handlers or task values define WSDSL_JOIN in their types fragment,
// and programs with data-parallel jobs WSDSL_JOBS (features/parallel.cuh).
#ifndef WSDSL_JOIN
#define WSDSL_JOIN 0
#endif
#ifndef WSDSL_ORDERED
#define WSDSL_ORDERED 0
#endif
#ifndef WSDSL_JOBS
#define WSDSL_JOBS 0
#endif
#if WSDSL_JOIN
// Free frame ids that travel together between a worker's stash and the pool (features/join.cuh): a
// batch of them must fit in one free frame, from its task field on (at least 16 bytes).
#define WS_FRAME_ROOM ((unsigned)((sizeof(ws_frame) - 24u) / 4u))
#define WS_FRAME_BATCH (WS_FRAME_ROOM < 16u ? WS_FRAME_ROOM : 16u)
#endif
// Threads of a worker that run tasks side by side and share its frame stash (features/join.cuh).
#ifndef WSDSL_JOIN_WORKER_THREADS
#define WSDSL_JOIN_WORKER_THREADS 1
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
#if WSDSL_ORDERED
    unsigned prio;          // the running task's priority (schedulers/bands.cuh)
    unsigned spawn_prio;    // the priority of the child being spawned
    unsigned* prios;        // the priorities of the staged children, beside `slots`
#endif
#if WSDSL_JOIN
    // Complete handlers (features/join.cuh): the task being run, its frame once it spawned, its
    // children so far, which run of its handlers this is (0: the spawn handler), and the
    // worker's stash of free frames (shared memory).
    const wsdsl_task* cur;
    unsigned child_frame;
    unsigned child_count;
    unsigned round;
    ws_u32* stash;
    unsigned prepares;   // batches prepared by this worker's leader
    ws_u32* resumes;     // the worker's stack of continuations (deque scheduler), else null
    unsigned completions;   // complete handlers this thread ran
#endif
#if WSDSL_JOBS
    // Data-parallel jobs (features/parallel.cuh): the jobs among this run's children, the result
    // words they give, the worker's list of jobs to run after the batch (null: each runs on
    // the thread that takes it), and what the jobs of the round before gave.
    unsigned job_children;
    unsigned job_words;
    ws_u64* jobs;
#if WSDSL_JOB_RESULTS
    ws_u64 results[WSDSL_JOB_RESULTS];
#endif
#endif
#if WSDSL_PROFILE
    unsigned long long prof_join;     // cycles in join bookkeeping and complete handlers
    unsigned long long prof_frames;   // cycles in the frame pool's slow paths
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
#if WSDSL_ORDERED
    ctx->prio = 0u;
    ctx->spawn_prio = 0u;
    ctx->prios = 0;
#endif
#if WSDSL_JOIN
    ctx->cur = 0;
    ctx->child_frame = 0xfffffffdu;   // WS_JOIN_NONE
    ctx->child_count = 0u;
    ctx->round = 0u;
    ctx->stash = 0;
    ctx->prepares = 0u;
    ctx->resumes = 0;
    ctx->completions = 0u;
#endif
#if WSDSL_JOBS
    ctx->job_children = 0u;
    ctx->job_words = 0u;
    ctx->jobs = 0;
#endif
    WS_PROF(ctx->prof_join = 0ull);
    WS_PROF(ctx->prof_frames = 0ull);
}

#if WSDSL_PROFILE
// Adds this thread's join and frame cycles to its worker's profile words.
static __device__ void ws_prof_flush_lane(const wsdsl_ctx* ctx, unsigned long long* worker_words) {
    atomicAdd(&worker_words[WS_STAT_COUNT + WS_PROF_JOIN], ctx->prof_join);
    atomicAdd(&worker_words[WS_STAT_COUNT + WS_PROF_FRAMES], ctx->prof_frames);
}
#endif

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

// Writes a task record into the next free slot. A slot past the capacity is not written: the
// scheduler spills the task (WS_SPAWN_SPILL), or sees the count exceed the capacity after the
// batch and reports the overflow.
static __device__ void ws_spawn_record(wsdsl_ctx* ctx, const wsdsl_task* task) {
    unsigned i = atomicAdd(ctx->spawned, 1u);
    unsigned long long slot = (unsigned long long)ctx->base + i;
    if (slot < ctx->capacity) {
        ctx->slots[slot] = *task;
#if WSDSL_ORDERED
        ctx->prios[slot] = ctx->spawn_prio;
#endif
    }
#ifdef WS_SPAWN_SPILL
    else ws_spawn_spill(ctx, task);
#endif
}

// `ctx.spawn(task)`: links the child to its parent's frame when the parent waits for it.
static __device__ void wsdsl_ctx_spawn(wsdsl_ctx* ctx, const wsdsl_task* task) {
#if WSDSL_JOIN
    wsdsl_task linked = *task;
    ws_join_link_child(ctx, &linked);
    ws_spawn_record(ctx, &linked);
#else
#if WSDSL_ORDERED
    ctx->spawn_prio = ctx->prio;   // a plain spawn keeps the parent's band
#endif
    ws_spawn_record(ctx, task);
#endif
}

#if WSDSL_ORDERED
// `ctx.spawn_with_priority(p, task)` (`order = priority`): the child waits in band `p`.
// The highest priority shares band u32::MAX - 1 (the bands mark placed children with the
// all-ones word): the last of four billion bands, so nothing runs in a different order.
static __device__ void wsdsl_ctx_spawn_priority(wsdsl_ctx* ctx, const wsdsl_task* task, ws_u32 p) {
    ctx->spawn_prio = p < 0xffffffffu ? p : 0xfffffffeu;
    ws_spawn_record(ctx, task);
}
#endif

// `ctx.fence()`: this thread's earlier buffer writes and atomics are seen by every thread
// before its later ones (publish, fence, then signal).
static __device__ __forceinline__ void wsdsl_ctx_fence(wsdsl_ctx*) {
    __threadfence();
}

// `ctx.round()`: 0 in a spawn handler, k in the k-th run of a complete handler.
static __device__ __forceinline__ ws_u32 wsdsl_ctx_round(wsdsl_ctx* ctx) {
#if WSDSL_JOIN
    return ctx->round;
#else
    (void)ctx;
    return 0u;
#endif
}
