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
// The pool. Each thread keeps up to WS_FRAME_BATCH free frame ids of its own in an array
// (ctx->frame_cache): taking and returning a frame is a register operation. A thread whose
// cache is empty takes a batch of ids from a lock-free stack (tagged against ABA), or else
// WS_FRAME_BATCH fresh frames with one add on a bump counter; a full cache writes its ids
// into one of its free frames (the batch's carrier) and pushes that frame. There are
// WS_FRAME_STACKS stacks, a block using the one of its index, so the global words are touched
// about once per WS_FRAME_BATCH frames and by few threads each. When no stack has a batch
// and the bump counter has run past the pool, the run stops with WS_STATUS_FRAMES, like a
// queue overflow. A thread that stops parks its cache in its own slot of `parked` (plain
// stores: a shared stack would see every thread of the grid at once), and the thread with
// the same index takes it up in the next launch (the static scheduler launches once per
// generation).
#pragma once
#if WSDSL_JOIN

#define WS_JOIN_ROOT 0xffffffffu       // join_frame of a root: its value goes to the host
#define WS_JOIN_DETACHED 0xfffffffeu   // join_frame of a task nobody waits for
#define WS_JOIN_NONE 0xfffffffdu       // no frame (empty stack, no frame taken yet)
#define WS_JOIN_NO_SLOT 0xffffffffu    // join_slot when the parent's handler takes no values
#define WS_JOIN_BIAS 0x40000000u
#define WS_FRAME_STACKS 128u

// Host mirror: `gpu/join.rs`, struct JoinRecord (same order).
struct ws_join_state {
    ws_frame* frames;
    wsdsl_value* root_values;
    ws_u32* parked;            // per thread of the largest grid: count, then WS_FRAME_BATCH ids
    ws_atom_u64* stacks;       // WS_FRAME_STACKS x ((ABA tag << 32) | carrier frame)
    ws_atom_u32 bump;          // fresh frames handed out so far (may run past capacity)
    ws_u32 capacity;
    ws_u32 parked_slots;
    ws_u32 reserved;
};
__device__ ws_join_state wsdsl_join;

__device__ wsdsl_value wsdsl_complete(const wsdsl_task* task, const wsdsl_value* values, ws_u32 n, wsdsl_ctx* ctx);

static __device__ __forceinline__ ws_u32* ws_carrier_ids(ws_u32 carrier) {
    return (ws_u32*)&wsdsl_join.frames[carrier].task;
}

// Pushes the thread's full cache as one batch, carried by its first frame.
static __device__ void ws_frame_push_batch(wsdsl_ctx* ctx) {
    ws_frame* frames = wsdsl_join.frames;
    const ws_u32 carrier = ctx->frame_cache[0];
    ws_u32* ids = ws_carrier_ids(carrier);
    for (ws_u32 k = 0; k < ctx->frames_cached; k++) ids[k] = ctx->frame_cache[k];
    frames[carrier].chain_len = ctx->frames_cached;
    ws_atom_u64* stack = &wsdsl_join.stacks[blockIdx.x % WS_FRAME_STACKS];
    ws_atom_u64 top = ws_load_relaxed_u64(stack);
    for (;;) {
        ws_store_relaxed_u32(&frames[carrier].chain_next, (ws_u32)top);
        const ws_atom_u64 next = ((((top >> 32) + 1ull) & 0xffffffffull) << 32) | carrier;
        const ws_atom_u64 seen = ws_cas_acq_rel_u64(stack, top, next);   // release: the batch
        if (seen == top) break;
        top = seen;
    }
    ctx->frames_cached = 0u;
}

// Pops a batch from `stack` into the empty cache; false if the stack is empty.
static __device__ bool ws_frame_pop_batch(wsdsl_ctx* ctx, ws_atom_u64* stack) {
    ws_frame* frames = wsdsl_join.frames;
    ws_atom_u64 top = ws_load_acquire_u64(stack);
    while ((ws_u32)top != WS_JOIN_NONE) {
        const ws_u32 carrier = (ws_u32)top;
        // Possibly stale if the batch was taken meanwhile; then the tag changed and the CAS fails.
        const ws_u32 below = ws_load_relaxed_u32(&frames[carrier].chain_next);
        const ws_atom_u64 next = ((((top >> 32) + 1ull) & 0xffffffffull) << 32) | below;
        const ws_atom_u64 seen = ws_cas_acq_rel_u64(stack, top, next);
        if (seen == top) {
            // Strong loads: this SM's L1 may hold the frame's lines from an earlier use.
            const ws_u32 n = ws_load_relaxed_u32(&frames[carrier].chain_len);
            const ws_u32* ids = ws_carrier_ids(carrier);
            for (ws_u32 k = 0; k < n; k++) ctx->frame_cache[k] = ws_load_relaxed_u32(&ids[k]);
            ctx->frames_cached = n;
            return true;
        }
        top = seen;
    }
    return false;
}

// Fills the empty cache: a batch from this block's stack, else fresh frames, else a batch
// from any stack; reports an exhausted pool only after waiting a while for frames that other
// threads still hold to come back.
static __device__ void ws_frame_refill(wsdsl_ctx* ctx) {
    const ws_u32 home = blockIdx.x % WS_FRAME_STACKS;
    if (ws_frame_pop_batch(ctx, &wsdsl_join.stacks[home])) return;
    const ws_u32 seen = ws_load_relaxed_u32(&wsdsl_join.bump);
    if (seen < wsdsl_join.capacity) {
        // Near the end of the pool, take one frame at a time: a full batch per thread would
        // strand the last frames in the caches of threads that do not need them.
        const ws_u32 left = wsdsl_join.capacity - seen;
        const ws_u32 take = left / WS_FRAME_BATCH > wsdsl_join.parked_slots ? WS_FRAME_BATCH : 1u;
        const ws_u32 base = atomicAdd(&wsdsl_join.bump, take);
        if (base < wsdsl_join.capacity) {
            const ws_u32 end = wsdsl_join.capacity - base > take ? base + take : wsdsl_join.capacity;
            for (ws_u32 i = base; i < end; i++) ctx->frame_cache[i - base] = i;
            ctx->frames_cached = end - base;
            return;
        }
    }
    // Fresh frames are gone: threads that free frames hand back partial batches now (see
    // ws_frame_free), so look through every stack a few times before giving up.
    for (ws_u32 round = 0; round < 64u; round++) {
        for (ws_u32 k = 0; k < WS_FRAME_STACKS; k++) {
            if (ws_frame_pop_batch(ctx, &wsdsl_join.stacks[(home + k) % WS_FRAME_STACKS])) return;
        }
        if (ws_failed()) return;
#ifdef WS_HOST_EMULATION
        ws_emu_yield();   // let this emulated SM's other threads run and free their frames
#else
        __nanosleep(1000u);
#endif
    }
    ws_report(WS_STATUS_FRAMES, 0, wsdsl_join.capacity, 0);
}

static __device__ ws_u32 ws_frame_alloc(wsdsl_ctx* ctx) {
    if (ctx->frames_cached == 0u) ws_frame_refill(ctx);
    if (ctx->frames_cached == 0u) return WS_JOIN_NONE;
    return ctx->frame_cache[--ctx->frames_cached];
}

static __device__ void ws_frame_free(wsdsl_ctx* ctx, ws_u32 id) {
    if (ctx->frames_cached == WS_FRAME_BATCH) ws_frame_push_batch(ctx);
    ctx->frame_cache[ctx->frames_cached++] = id;
    // Once no fresh frames are left, spare frames go back in small batches, so that a thread
    // that runs dry finds them (checked at one cache size only, to keep frees cheap).
    if (ctx->frames_cached == 4u && ws_load_relaxed_u32(&wsdsl_join.bump) >= wsdsl_join.capacity) ws_frame_push_batch(ctx);
}

static __device__ __forceinline__ unsigned long long ws_join_thread_slot() {
    return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}

// When a thread starts: the frames its predecessor in this slot parked.
static __device__ void ws_join_attach(wsdsl_ctx* ctx) {
    ctx->frames_cached = 0u;
    const unsigned long long slot = ws_join_thread_slot();
    if (slot >= wsdsl_join.parked_slots) return;
    const ws_u32* parked = wsdsl_join.parked + slot * (WS_FRAME_BATCH + 1u);
    const ws_u32 n = parked[0];
    for (ws_u32 k = 0; k < n && k < WS_FRAME_BATCH; k++) ctx->frame_cache[k] = parked[1 + k];
    ctx->frames_cached = n < WS_FRAME_BATCH ? n : WS_FRAME_BATCH;
}

// When a thread stops: its cache waits in its slot (or, past the slots, goes to a stack).
static __device__ void ws_join_flush(wsdsl_ctx* ctx) {
    const unsigned long long slot = ws_join_thread_slot();
    if (slot < wsdsl_join.parked_slots) {
        ws_u32* parked = wsdsl_join.parked + slot * (WS_FRAME_BATCH + 1u);
        parked[0] = ctx->frames_cached;
        for (ws_u32 k = 0; k < ctx->frames_cached; k++) parked[1 + k] = ctx->frame_cache[k];
    } else if (ctx->frames_cached > 0u) {
        ws_frame_push_batch(ctx);
    }
    ctx->frames_cached = 0u;
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
    // (The bound also keeps the counter's bias out of reach for handlers without values.)
    if (slot >= wsdsl_max_children(tag) || slot >= WS_JOIN_BIAS - 1u) {
        ws_report(WS_STATUS_CHILDREN, tag, wsdsl_max_children(tag), 0);
        return;
    }
    if (ctx->child_frame == WS_JOIN_NONE) {
        const ws_u32 id = ws_frame_alloc(ctx);
        if (id == WS_JOIN_NONE) return;   // reported; the run stops
        ws_frame* f = &wsdsl_join.frames[id];
        f->task = *ctx->cur;
        f->pending = WS_JOIN_BIAS;
        // The frame must be written before any child can be seen (and finish) elsewhere. The
        // deque kernel fences each thread's writes before publishing a batch, and a static
        // generation is a new launch; the broker kernels may enqueue a child at once.
#ifdef WSDSL_BROKER_KIND
        __threadfence();
#endif
        ctx->child_frame = id;
    }
    child->join_frame = ctx->child_frame;
    child->join_slot = wsdsl_takes_values(tag) ? slot : WS_JOIN_NO_SLOT;
}

// Runs the complete handler of frame `id`, whose children are all done; frees the frame and
// returns the value, with the frame's parent link in *up, *up_slot.
static __device__ wsdsl_value ws_join_complete(wsdsl_ctx* ctx, ws_u32 id, ws_u32* up, ws_u32* up_slot) {
    ws_frame* f = &wsdsl_join.frames[id];
    // Strong loads (after the acquiring decrement): this SM's L1 may still hold the frame's
    // lines from an earlier use of the frame.
    wsdsl_task task;
    for (unsigned k = 0; k < sizeof(wsdsl_task) / 4u; k++) ((ws_u32*)&task)[k] = ws_load_relaxed_u32(&((ws_u32*)&f->task)[k]);
    const ws_u32 n = ws_load_relaxed_u32(&f->children);
    wsdsl_value values[WSDSL_MAX_CHILDREN];
    if (wsdsl_takes_values(task.tag)) {
        for (ws_u32 k = 0; k < n && k < WSDSL_MAX_CHILDREN; k++) values[k] = ((volatile wsdsl_value*)f->values)[k];
    }
    const wsdsl_value value = wsdsl_complete(&task, values, n, ctx);
    *up = task.join_frame;
    *up_slot = task.join_slot;
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
static __device__ __forceinline__ void ws_join_attach(wsdsl_ctx*) {}
static __device__ __forceinline__ void ws_join_flush(wsdsl_ctx*) {}
#endif
