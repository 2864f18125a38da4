// join.cuh — complete handlers on the device: join counters and the frame pool.
//
// A task that spawns its first child takes a frame from the pool and copies itself into it;
// each child carries (frame, slot) in its record. The frame's counter starts at a bias (2^30)
// so that children finishing early cannot bring it to zero while the parent still spawns;
// the parent then adds (children - bias). A child stores its value in its slot and decrements
// the counter; whoever brings it to zero (the last child, or the parent if every child was
// already done) runs the complete handler, frees the frame and hands the result to the
// frame's own parent — in a loop, not by recursion. The only atomics are on the frame: no
// lock, nothing global per task.
//
// The pool. Each thread keeps a private free list (intrusive, through `next`). When it is
// empty the thread pops a chain of free frames from a global lock-free stack (tagged against
// ABA) or, failing that, takes WS_FRAME_BATCH fresh frames with one add on a bump counter; a
// private list grown to two batches pushes one batch back as a chain. So the global words
// are touched about once per WS_FRAME_BATCH frames. When neither has a frame left the run
// stops with WS_STATUS_FRAMES, like a queue overflow.
#pragma once
#if WSDSL_JOIN

#define WS_JOIN_ROOT 0xffffffffu       // join_frame of a root: its value goes to the host
#define WS_JOIN_DETACHED 0xfffffffeu   // join_frame of a task nobody waits for
#define WS_JOIN_NONE 0xfffffffdu       // no frame (end of a free list, no frame taken yet)
#define WS_JOIN_NO_SLOT 0xffffffffu    // join_slot when the parent's handler takes no values
#define WS_JOIN_BIAS 0x40000000u
#define WS_FRAME_BATCH 16u

// Host mirror: `gpu/join.rs`, struct JoinRecord (same order).
struct ws_join_state {
    ws_frame* frames;
    wsdsl_value* root_values;
    ws_atom_u64 free_chains;   // (ABA tag << 32) | first frame of the top chain
    ws_atom_u32 bump;          // fresh frames handed out so far (may run past capacity)
    ws_u32 capacity;
};
__device__ ws_join_state wsdsl_join;

__device__ wsdsl_value wsdsl_complete(const wsdsl_task* task, const wsdsl_value* values, ws_u32 n, wsdsl_ctx* ctx);

static __device__ void ws_frame_push_chain(ws_u32 first, ws_u32 len) {
    ws_frame* frames = wsdsl_join.frames;
    frames[first].chain_len = len;
    ws_atom_u64 top = ws_load_relaxed_u64(&wsdsl_join.free_chains);
    for (;;) {
        ws_store_relaxed_u32(&frames[first].chain_next, (ws_u32)top);
        const ws_atom_u64 next = ((((top >> 32) + 1ull) & 0xffffffffull) << 32) | first;
        const ws_atom_u64 seen = ws_cas_acq_rel_u64(&wsdsl_join.free_chains, top, next);
        if (seen == top) return;
        top = seen;
    }
}

// Fills the thread's empty free list: a returned chain, else a batch of fresh frames.
static __device__ void ws_frame_refill(wsdsl_ctx* ctx) {
    ws_frame* frames = wsdsl_join.frames;
    ws_atom_u64 top = ws_load_acquire_u64(&wsdsl_join.free_chains);
    while ((ws_u32)top != WS_JOIN_NONE) {
        const ws_u32 first = (ws_u32)top;
        // Possibly stale if the chain was taken meanwhile; then the tag changed and the CAS fails.
        const ws_u32 below = ws_load_relaxed_u32(&frames[first].chain_next);
        const ws_atom_u64 next = ((((top >> 32) + 1ull) & 0xffffffffull) << 32) | below;
        const ws_atom_u64 seen = ws_cas_acq_rel_u64(&wsdsl_join.free_chains, top, next);
        if (seen == top) {
            ctx->free_head = first;
            ctx->free_len = frames[first].chain_len;
            return;
        }
        top = seen;
    }
    const ws_u32 base = atomicAdd(&wsdsl_join.bump, WS_FRAME_BATCH);
    if (base >= wsdsl_join.capacity) {
        ws_report(WS_STATUS_FRAMES, 0, wsdsl_join.capacity, 0);
        return;
    }
    const ws_u32 end = base + WS_FRAME_BATCH < wsdsl_join.capacity ? base + WS_FRAME_BATCH : wsdsl_join.capacity;
    for (ws_u32 i = base; i < end; i++) frames[i].next = i + 1u < end ? i + 1u : WS_JOIN_NONE;
    ctx->free_head = base;
    ctx->free_len = end - base;
}

static __device__ ws_u32 ws_frame_alloc(wsdsl_ctx* ctx) {
    if (ctx->free_head == WS_JOIN_NONE) ws_frame_refill(ctx);
    const ws_u32 id = ctx->free_head;
    if (id != WS_JOIN_NONE) {
        ctx->free_head = wsdsl_join.frames[id].next;
        ctx->free_len--;
    }
    return id;
}

static __device__ void ws_frame_free(wsdsl_ctx* ctx, ws_u32 id) {
    ws_frame* frames = wsdsl_join.frames;
    frames[id].next = ctx->free_head;
    ctx->free_head = id;
    if (++ctx->free_len < 2u * WS_FRAME_BATCH) return;
    // Too many spare frames here: give a batch back for threads that run short.
    ws_u32 last = id;
    for (ws_u32 k = 1; k < WS_FRAME_BATCH; k++) last = frames[last].next;
    ctx->free_head = frames[last].next;
    ctx->free_len -= WS_FRAME_BATCH;
    frames[last].next = WS_JOIN_NONE;
    ws_frame_push_chain(id, WS_FRAME_BATCH);
}

// When a thread stops (and between static generations): its spare frames go back.
static __device__ void ws_join_flush(wsdsl_ctx* ctx) {
    if (ctx->free_head != WS_JOIN_NONE) ws_frame_push_chain(ctx->free_head, ctx->free_len);
    ctx->free_head = WS_JOIN_NONE;
    ctx->free_len = 0u;
}

// Called by wsdsl_execute before the spawn handler.
static __device__ __forceinline__ void ws_join_begin(wsdsl_ctx* ctx, const wsdsl_task* task) {
    ctx->cur = task;
    ctx->child_frame = WS_JOIN_NONE;
    ctx->child_count = 0u;
}

// Called by wsdsl_ctx_spawn: where the child's value goes. The first child of a task with a
// complete handler takes the frame.
static __device__ void ws_join_link_child(wsdsl_ctx* ctx, wsdsl_task* child) {
    const ws_u32 tag = ctx->cur->tag;
    const ws_u32 slot = ctx->child_count++;
    child->join_frame = WS_JOIN_DETACHED;
    child->join_slot = 0u;
    if (!wsdsl_has_complete(tag)) return;
    if (slot >= wsdsl_max_children(tag)) {
        ws_report(WS_STATUS_CHILDREN, tag, wsdsl_max_children(tag), 0);
        return;
    }
    if (ctx->child_frame == WS_JOIN_NONE) {
        const ws_u32 id = ws_frame_alloc(ctx);
        if (id == WS_JOIN_NONE) return;   // reported; the run stops
        ws_frame* f = &wsdsl_join.frames[id];
        f->task = *ctx->cur;
        f->pending = WS_JOIN_BIAS;
        // The frame is complete before any child can be seen (and finish) elsewhere.
        __threadfence();
        ctx->child_frame = id;
    }
    child->join_frame = ctx->child_frame;
    child->join_slot = wsdsl_takes_values(tag) ? slot : WS_JOIN_NO_SLOT;
}

// Runs the complete handler of frame `id`, whose children are all done; frees the frame and
// returns the value, with the frame's parent link in *up, *up_slot.
static __device__ wsdsl_value ws_join_complete(wsdsl_ctx* ctx, ws_u32 id, ws_u32* up, ws_u32* up_slot) {
    ws_frame* f = &wsdsl_join.frames[id];
    const wsdsl_value value = wsdsl_complete(&f->task, f->values, f->children, ctx);
    *up = f->task.join_frame;
    *up_slot = f->task.join_slot;
    ws_frame_free(ctx, id);
    return value;
}

// Hands `value` to slot `slot` of `frame`; the thread that delivers a frame's last value runs
// its complete handler and goes on up.
static __device__ void ws_join_deliver(wsdsl_ctx* ctx, ws_u32 frame, ws_u32 slot, wsdsl_value value) {
    while (frame < WS_JOIN_NONE) {
        ws_frame* f = &wsdsl_join.frames[frame];
        if (slot != WS_JOIN_NO_SLOT) f->values[slot] = value;
        // acq_rel: publishes this value, and the last decrement sees every sibling's.
        if (ws_add_acq_rel_u32(&f->pending, 0xffffffffu) != 1u) return;
        value = ws_join_complete(ctx, frame, &frame, &slot);
    }
    if (frame == WS_JOIN_ROOT) wsdsl_join.root_values[slot] = value;
}

// Called by wsdsl_execute after the spawn handler returned `value`.
static __device__ void ws_join_end(wsdsl_ctx* ctx, const wsdsl_task* task, wsdsl_value value) {
    const ws_u32 id = ctx->child_frame;
    if (id == WS_JOIN_NONE) {
        // No children waited for: the task is done and `value` is its value.
        ws_join_deliver(ctx, task->join_frame, task->join_slot, value);
        return;
    }
    ws_frame* f = &wsdsl_join.frames[id];
    f->children = ctx->child_count;
    const ws_u32 adjust = ctx->child_count - WS_JOIN_BIAS;
    if (ws_add_acq_rel_u32(&f->pending, adjust) + adjust != 0u) return;   // children still running
    ws_u32 up, up_slot;
    const wsdsl_value result = ws_join_complete(ctx, id, &up, &up_slot);
    ws_join_deliver(ctx, up, up_slot, result);
}

#else
static __device__ __forceinline__ void ws_join_flush(wsdsl_ctx*) {}
#endif
