// context.cuh — what a handler's `ctx` is on the device.
//
// Each lane of a worker warp runs one task with its own context. Counters are private to
// the lane (registers) and folded into the device slots once, when the worker exits, so a
// `ctx.counters.x.add(1)` costs an add, not an atomic. Spawned tasks go straight into the
// owner's deque above its tail: a shared-memory counter hands out slots, and the worker
// publishes them all with one release store after the batch (deque.cuh).
#pragma once

struct wsdsl_ctx {
    const wsdsl_params* params;
    const wsdsl_buffers* buffers;
    wsdsl_counters counters;
    wsdsl_task* slots;      // the worker's deque slots
    unsigned base;          // first free slot (the deque's tail after the batch was popped)
    unsigned capacity;      // number of slots
    unsigned* spawned;      // shared memory: tasks spawned by this warp's current batch
};

static __device__ __forceinline__ const wsdsl_params* wsdsl_ctx_params(wsdsl_ctx* ctx) { return ctx->params; }
static __device__ __forceinline__ const wsdsl_buffers* wsdsl_ctx_buffers(wsdsl_ctx* ctx) { return ctx->buffers; }
static __device__ __forceinline__ wsdsl_counters* wsdsl_ctx_counters(wsdsl_ctx* ctx) { return &ctx->counters; }

// Writes the task into the next free slot. A slot past the capacity is not written; the
// worker sees the count exceed the capacity after the batch and reports the overflow.
static __device__ void wsdsl_ctx_spawn(wsdsl_ctx* ctx, const wsdsl_task* task) {
    unsigned i = atomicAdd(ctx->spawned, 1u);
    unsigned long long slot = (unsigned long long)ctx->base + i;
    if (slot < ctx->capacity) ctx->slots[slot] = *task;
}
