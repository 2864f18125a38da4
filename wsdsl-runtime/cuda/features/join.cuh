// features/join.cuh — complete handlers on the device: frames, join counters, continuations, and
// the frame pool.
//
// A task that spawns its first child takes a frame and copies itself into it; each child
// carries (frame, slot) in its record. When the spawn handler returns, the frame's counter
// is set to the number of children. A child that is done stores its value in its slot and
// decrements the counter (a release: no acquire, no L1 invalidation, for every child but the
// last). The thread that brings the counter to zero does not run the complete handler: it
// pushes a *continuation*, a task record with tag WS_TAG_RESUME naming the frame, into its
// worker's queue like any child. The continuation runs in a later batch, side by side with
// other tasks, and runs the complete handler on the frame's copy of the task and the values.
// A complete handler may spawn too: its children link to the same frame, and when they are
// done the complete handler runs again (`ctx.round()` counts its runs). A task whose handler
// (spawn or complete) spawned nothing is done: its frame goes back to the pool and its value
// to its own parent's frame. There is no lock, and nothing global per task.
//
// When the counter is set. In the deque and static schedulers a child can only run after the
// batch that spawned it (its worker's barrier, or a launch boundary, comes first), so the
// parent simply stores the count after its handler. The broker schedulers may enqueue a child
// at once (a spill past the staging area); there the counter starts at a bias (2^30), so that
// children finishing early cannot bring it to zero while the parent still spawns, and the
// parent then adds (children - bias) (WS_JOIN_EARLY_CHILDREN).
//
// The pool. Each worker keeps a stash of free frame ids in shared memory (`ctx->stash`):
// before a batch its leader makes sure it holds at least one per task the batch may run;
// during the batch a thread takes one with a shared-memory atomic and returns one into a
// separate area (a task takes at most one frame and frees at most its own), which the leader
// folds back before the next batch. A worker both takes and frees frames, so its stash mostly
// recycles its own; only the surplus or shortfall moves, WS_FRAME_BATCH ids at a time,
// through WS_FRAME_STACKS lock-free stacks (tagged against ABA; a batch travels inside one of
// its free frames) and a bump counter of fresh frames. When no frame can be found the run
// stops with WS_STATUS_FRAMES, like a queue overflow. The static scheduler launches once per
// generation: there a worker parks its stash in its own slot of `parked` at exit, and the
// worker with the same index takes it up in the next launch.
//
// Across GPUs (`features/pe.cuh`, WSDSL_PES). Each GPU's pool, roots' values and inbox lie in its
// symmetric heap, at the same offsets on every GPU, and a frame id names its GPU: `pe <<
// id_shift | index`, the shift making room for `capacity` indices (a division by the
// capacity, on every delivery and join, would cost fib(42)'s multi-GPU kernel 2.6% on one
// GPU: 139.6 against 136.0 ms).
// A child stolen by another GPU delivers its value to its parent's frame
// through the peer mapping. A continuation runs only on its frame's GPU (its home), so the
// frames, the pool and the values stay that GPU's memory, and every ordering but a remote
// delivery's stays at GPU scope: a home child releases at GPU scope; a remote one releases
// at system scope and marks the counter (WS_JOIN_REMOTE), so the home thread that finds the
// count at zero acquires at system scope when it sees a mark (every decrement is a
// system-scope read-modify-write, so all of them are ordered with each other). When the last
// value comes from another GPU, that thread sends the frame home, into the inbox of the home
// worker `index % workers` (a ring of frame indices, with a slot for every frame that maps to
// that worker, so it never overflows: a frame waits in an inbox at most once), which that
// worker drains into its resume stack every few batches and whenever it looks for work. An
// inbox entry is work no deque holds: GPU 0's detector declares the end only when every
// GPU has taken as many as were sent to it (features/pe.cuh). A root's slot is its index
// among all roots; it was dealt to GPU `slot % n_pes`, whose `root_values` hold its value at
// `slot / n_pes`. On one GPU the id is the index and the slot the root's.
#pragma once

// Defined by the program's handlers fragment, which comes after this header.
__device__ void wsdsl_execute(const wsdsl_task* task, wsdsl_ctx* ctx);

#if WSDSL_JOIN

#define WS_JOIN_ROOT 0xffffffffu       // join_frame of a root: its value goes to the host
#define WS_JOIN_DETACHED 0xfffffffeu   // join_frame of a task nobody waits for
#define WS_JOIN_NONE 0xfffffffdu       // no frame (empty stack, no frame taken yet)
#define WS_JOIN_NO_SLOT 0xffffffffu    // join_slot when the parent's handler takes no values
#define WS_JOIN_BIAS 0x40000000u
// Across GPUs a counter holds the children still to come in its low half and the values
// delivered from other GPUs in its high half, so a round may have at most WS_JOIN_COUNT
// children there (handlers that take values have `max_children` <= 1024 anyway; those that
// do not are otherwise unbounded).
#define WS_JOIN_COUNT 0xffffu
#define WS_JOIN_REMOTE 0x10000u
#if WSDSL_PES
#define WS_JOIN_MAX_CHILDREN WS_JOIN_COUNT
#else
#define WS_JOIN_MAX_CHILDREN (WS_JOIN_BIAS - 1u)
#endif
#define WS_FRAME_STACKS 128u
// Tag of a continuation record: run the complete handler of frame `join_frame`.
#define WS_TAG_RESUME 0xfffffff0u

#ifdef WSDSL_BROKER_KIND
#define WS_JOIN_EARLY_CHILDREN 1
#else
#define WS_JOIN_EARLY_CHILDREN 0
#endif

// The stash of a worker: a ring of free frame ids in shared memory, u32 words [0] `head`
// (where takes read), [1] `tail` (where returns write), [2] `limit` (the tail when the batch
// began: no take may pass it), then WS_STASH_RING ids. A take and a return never touch the
// same word while a batch runs: takes read below `limit`, returns write from it on, and the
// ring is longer than the most ids it holds plus a batch's returns. Between batches the
// leader keeps the count (tail - head) between WS_STASH_BATCH (a batch's takes never run dry)
// and WS_STASH_HIGH, and when it crosses either it moves ids to or from the pool until it is
// back at WS_STASH_MID: a wide band, so that a worker whose takes and returns roughly balance
// touches the pool rarely (the random walk of its count needs ~(band/step)^2 batches to
// cross it).
#define WS_STASH_BATCH ((unsigned)WSDSL_JOIN_WORKER_THREADS)
// (A thread worker, the static scheduler's, gets a narrow band: its stash is per thread.)
#define WS_STASH_UNIT (WS_STASH_BATCH == 1u ? 2u : WS_STASH_BATCH > WS_FRAME_BATCH ? WS_STASH_BATCH : WS_FRAME_BATCH)
// (The band is capped so that a stash of the largest blocks still fits shared memory.)
#define WS_STASH_BAND (8u * WS_STASH_UNIT < 4096u ? 8u * WS_STASH_UNIT : 4096u)
#define WS_STASH_MID (WS_STASH_BATCH + WS_STASH_BAND / 2u)
#define WS_STASH_HIGH (WS_STASH_BATCH + WS_STASH_BAND)
// The ring's length: a power of two above WS_STASH_HIGH + WS_STASH_BATCH.
#define WS_STASH_RING_FIT(n) ((WS_STASH_HIGH + WS_STASH_BATCH) <= (n))
#define WS_STASH_RING                                                                                \
    (WS_STASH_RING_FIT(16u) ? 16u : WS_STASH_RING_FIT(32u) ? 32u : WS_STASH_RING_FIT(64u) ? 64u        \
     : WS_STASH_RING_FIT(128u) ? 128u : WS_STASH_RING_FIT(256u) ? 256u : WS_STASH_RING_FIT(512u) ? 512u \
     : WS_STASH_RING_FIT(1024u) ? 1024u : WS_STASH_RING_FIT(2048u) ? 2048u : WS_STASH_RING_FIT(4096u) ? 4096u : 8192u)
#define WS_STASH_WORDS (3u + WS_STASH_RING)
// The most ids a stash parks between launches (and a parking slot's length, less one).
#define WS_STASH_CAP WS_STASH_RING

// A GPU's inboxes of continuations sent home by other GPUs (see the top): how many were
// sent to it and how many its workers took, each on a line of its own, then every worker's
// ticket `tails[w]` (taken by senders; the worker keeps its own head), then every worker's
// ring of `inbox_capacity` slots (a power of two). A slot holds (sequence << 32) | frame
// index, its sequence 2r when free for the r-th round of tickets over the ring and 2r + 1
// when full (zeroed memory: all free for round 0).
struct ws_join_inbox {
    ws_atom_u64 sent;
    ws_atom_u64 pad0[15];
    ws_atom_u64 taken;
    ws_atom_u64 pad1[15];
    ws_atom_u64 tails[1];   // [workers], then the rings
};

// Host mirror: `gpu/run/join.rs`, struct JoinRecord (same order).
struct ws_join_state {
    ws_frame* frames;
    wsdsl_value* root_values;
    ws_u32* parked;            // per worker slot: count, then WS_STASH_CAP ids
    ws_atom_u64* stacks;       // WS_FRAME_STACKS x ((ABA tag << 32) | carrier frame)
    ws_atom_u32 bump;          // fresh frames handed out so far (may run past capacity)
    ws_u32 capacity;
    ws_u32 parked_slots;       // 0: workers do not park (persistent kernels)
    ws_u32 workers;            // workers holding a stash (the end-of-pool rule; across GPUs, a
                               // frame's inbox is worker `index % workers`'s: one per worker)
    ws_atom_u64 completions;   // complete handlers run (added by each thread as it stops)
    // Multi-GPU runs (see the top): this GPU's symmetric heap, every GPU's as mapped here,
    // this GPU's inboxes, this GPU's index, the number of GPUs and the slots of a worker's
    // inbox (0, 0, 0, 0, 1, 0 on one GPU).
    unsigned long long heap;
    const unsigned long long* pe_heaps;
    ws_join_inbox* inbox;
    ws_u32 pe;
    ws_u32 n_pes;
    ws_u32 inbox_capacity;
    ws_u32 id_shift;           // frame ids across GPUs (see the top; 0 for the one-GPU
                               // kernel; with one GPU an id is its index whatever the shift)
};
// The host writes this record from `gpu/run/join.rs` (JoinRecord::to_bytes): 96 bytes.
static_assert(sizeof(ws_join_state) == 96, "ws_join_state must match JoinRecord::to_bytes");
__device__ ws_join_state wsdsl_join;

__device__ wsdsl_value wsdsl_complete(const wsdsl_task* task, const wsdsl_value* values, ws_u32 n, wsdsl_ctx* ctx);

#if WSDSL_JOBS
// Defined by features/parallel.cuh, which comes after this header: a job record a thread took, and
// the continuation of a split job.
static __device__ void ws_job_take(wsdsl_ctx* ctx, const wsdsl_task* rec);
static __device__ void ws_job_resume(wsdsl_ctx* ctx, ws_u32 id, const wsdsl_task* task);
#endif

// ---- frame ids across GPUs (see the top) ----

// GPU `pe`'s copy of this GPU's symmetric object `p` (the pool's memory).
template <class T> static __device__ __forceinline__ T* ws_join_on(T* p, ws_u32 pe) {
#if WSDSL_PES
    return pe == wsdsl_join.pe ? p : (T*)((const char*)p - wsdsl_join.heap + wsdsl_join.pe_heaps[pe]);
#else
    (void)pe;
    return p;
#endif
}

// Whether GPU `pe`'s pool is mapped here. Another host's GPU (WSDSL_PES_ONE_SIDED) is not:
// it is reached by NVSHMEM's one-sided calls on this GPU's own, symmetric, address of the
// same object, never through `ws_join_on`.
static __device__ __forceinline__ bool ws_join_mapped(ws_u32 pe) {
#if WSDSL_PES_ONE_SIDED
    return wsdsl_join.pe_heaps[pe] != 0ull;
#else
    (void)pe;
    return true;
#endif
}

// This GPU's index in the run (0 on one GPU).
static __device__ __forceinline__ ws_u32 ws_join_self() {
#if WSDSL_PES
    return wsdsl_join.pe;
#else
    return 0u;
#endif
}

// Which GPU frame `id` lies on (0 on one GPU).
static __device__ __forceinline__ ws_u32 ws_frame_pe(ws_u32 id) {
#if WSDSL_PES
    return id >> wsdsl_join.id_shift;
#else
    (void)id;
    return 0u;
#endif
}

// The frame named `id`, wherever it lies.
static __device__ __forceinline__ ws_frame* ws_frame_at(ws_u32 id) {
    const ws_u32 pe = ws_frame_pe(id);
    return ws_join_on(&wsdsl_join.frames[id - (pe << wsdsl_join.id_shift)], pe);
}

// The id of this GPU's frame `index`.
static __device__ __forceinline__ ws_u32 ws_frame_id(ws_u32 index) {
    return (ws_join_self() << wsdsl_join.id_shift) | index;
}

// ---- the global pool: batches of WS_FRAME_BATCH ids on lock-free stacks, fresh frames ----

static __device__ __forceinline__ ws_u32* ws_carrier_ids(ws_u32 carrier) {
    return (ws_u32*)&wsdsl_join.frames[carrier].task;
}

// Pushes ids[0, n) (1 <= n <= WS_FRAME_BATCH) as one batch, carried by ids[0].
static __device__ void ws_frame_push_batch(const ws_u32* ids, ws_u32 n) {
    ws_frame* frames = wsdsl_join.frames;
    const ws_u32 carrier = ids[0];
    ws_u32* room = ws_carrier_ids(carrier);
    for (ws_u32 k = 0; k < n; k++) room[k] = ids[k];
    frames[carrier].chain_len = n;
    ws_atom_u64* stack = &wsdsl_join.stacks[blockIdx.x % WS_FRAME_STACKS];
    ws_atom_u64 top = ws_gpu_load_relaxed_u64(stack);
    for (;;) {
        ws_gpu_store_relaxed_u32(&frames[carrier].chain_next, (ws_u32)top);
        const ws_atom_u64 next = ((((top >> 32) + 1ull) & 0xffffffffull) << 32) | carrier;
        const ws_atom_u64 seen = ws_gpu_cas_acq_rel_u64(stack, top, next);   // release: the batch
        if (seen == top) break;
        top = seen;
    }
}

// Pops a batch from `stack` into ids[0, ...); returns how many (0: the stack was empty).
static __device__ ws_u32 ws_frame_pop_batch(ws_atom_u64* stack, ws_u32* ids) {
    ws_frame* frames = wsdsl_join.frames;
    ws_atom_u64 top = ws_gpu_load_acquire_u64(stack);
    while ((ws_u32)top != WS_JOIN_NONE) {
        const ws_u32 carrier = (ws_u32)top;
        // Possibly stale if the batch was taken meanwhile; then the tag changed and the CAS fails.
        const ws_u32 below = ws_gpu_load_relaxed_u32(&frames[carrier].chain_next);
        const ws_atom_u64 next = ((((top >> 32) + 1ull) & 0xffffffffull) << 32) | below;
        const ws_atom_u64 seen = ws_gpu_cas_acq_rel_u64(stack, top, next);
        if (seen == top) {
            // Strong loads: this SM's L1 may hold the frame's lines from an earlier use.
            const ws_u32 n = ws_gpu_load_relaxed_u32(&frames[carrier].chain_len);
            const ws_u32* room = ws_carrier_ids(carrier);
            for (ws_u32 k = 0; k < n; k++) ids[k] = ws_gpu_load_relaxed_u32(&room[k]);
            return n;
        }
        top = seen;
    }
    return 0;
}

// Up to `want` fresh frames, ids [*first, *first + n), or one at a time near the end of the
// pool (a full stash per worker would strand the last frames in stashes that do not need them).
static __device__ ws_u32 ws_frame_fresh(ws_u32 want, ws_u32* first) {
    const ws_u32 seen = ws_gpu_load_relaxed_u32(&wsdsl_join.bump);
    if (seen >= wsdsl_join.capacity) return 0;
    const ws_u32 left = wsdsl_join.capacity - seen;
    const ws_u32 take = left / WS_STASH_CAP > wsdsl_join.workers ? want : 1u;
    const ws_u32 base = atomicAdd(&wsdsl_join.bump, take);
    if (base >= wsdsl_join.capacity) return 0;
    *first = base;
    return wsdsl_join.capacity - base > take ? take : wsdsl_join.capacity - base;
}

static __device__ __forceinline__ bool ws_frame_pool_spent() {
    return ws_gpu_load_relaxed_u32(&wsdsl_join.bump) >= wsdsl_join.capacity;
}

// ---- the worker's stash ----

static __device__ __forceinline__ ws_u32* ws_stash_ids(ws_u32* s) { return s + 3; }
static __device__ __forceinline__ ws_u32 ws_stash_at(ws_u32 i) { return i & (WS_STASH_RING - 1u); }

// Leader, between batches: sends a surplus to the stacks, tops a short stash up (from this
// block's stack, fresh frames, then any stack), and opens the next batch's takes. Falling
// short is not an error here: a take that finds nothing reports the exhausted pool.
static __device__ void ws_join_prepare(wsdsl_ctx* ctx) {
    WS_PROF(const unsigned long long t0 = ws_clock());
    ws_u32* s = ctx->stash;
    ws_u32* ring = ws_stash_ids(s);
    ws_u32 head = s[0], tail = s[1];
    ws_u32 n = tail - head;
    // (Whether the pool is spent is a global load: asked only above the middle of the band,
    // and there one batch in 64.)
    if (n > WS_STASH_HIGH || (n > WS_STASH_MID && (++ctx->prepares & 63u) == 0u && ws_frame_pool_spent())) {
        // Once the pool is spent, keep one batch's worth, so that others find the rest.
        const ws_u32 keep = ws_frame_pool_spent() ? WS_STASH_BATCH : WS_STASH_MID;
        ws_u32 batch[WS_FRAME_BATCH];
        while (n > keep) {
            const ws_u32 k = n - keep < WS_FRAME_BATCH ? n - keep : WS_FRAME_BATCH;
            for (ws_u32 i = 0; i < k; i++) batch[i] = ring[ws_stash_at(head + i)];
            ws_frame_push_batch(batch, k);
            head += k;
            n -= k;
        }
    } else if (n < WS_STASH_BATCH) {
        const ws_u32 home = blockIdx.x % WS_FRAME_STACKS;
        ws_u32 batch[WS_FRAME_BATCH];
        while (n < WS_STASH_MID) {
            ws_u32 got = ws_frame_pop_batch(&wsdsl_join.stacks[home], batch);
            if (got == 0) {
                ws_u32 first = 0;
                got = ws_frame_fresh(WS_STASH_MID - n, &first);
                for (ws_u32 i = 0; i < got; i++) ring[ws_stash_at(tail + i)] = first + i;
            } else {
                for (ws_u32 i = 0; i < got; i++) ring[ws_stash_at(tail + i)] = batch[i];
            }
            for (ws_u32 k = 1; got == 0 && n < WS_STASH_BATCH && k < WS_FRAME_STACKS; k++) {
                got = ws_frame_pop_batch(&wsdsl_join.stacks[(home + k) % WS_FRAME_STACKS], batch);
                for (ws_u32 i = 0; i < got; i++) ring[ws_stash_at(tail + i)] = batch[i];
            }
            if (got == 0) break;
            tail += got;
            n += got;
        }
    }
    s[0] = head;
    s[1] = tail;
    s[2] = tail;   // this batch's takes stop here; its returns go from here on
    WS_PROF(ctx->prof_frames += ws_clock() - t0);
}

// Any thread of the batch: a free frame (WS_JOIN_NONE after reporting an exhausted pool).
static __device__ ws_u32 ws_frame_take(wsdsl_ctx* ctx) {
    ws_u32* s = ctx->stash;
    const ws_u32 at = atomicAdd(&s[0], 1u);
    if ((int)(s[2] - at) <= 0) {
        atomicSub(&s[0], 1u);
        ws_report(WS_STATUS_FRAMES, 0, wsdsl_join.capacity, 0);
        return WS_JOIN_NONE;
    }
    return ws_stash_ids(s)[ws_stash_at(at)];
}

// Any thread of the batch: returns its task's frame `id` (at most one per task; always one
// of this GPU's: a task finishes where its continuations run, its frame's home).
static __device__ void ws_frame_give(wsdsl_ctx* ctx, ws_u32 id) {
    ws_u32* s = ctx->stash;
    const ws_u32 at = atomicAdd(&s[1], 1u);
    ws_stash_ids(s)[ws_stash_at(at)] = id - ws_frame_id(0u);
}

// When a worker starts: its stash, with what its predecessor in this slot parked.
static __device__ void ws_join_attach(wsdsl_ctx* ctx, ws_u32* stash, unsigned worker, bool leader) {
    ctx->stash = stash;
    if (!leader) return;
    stash[0] = stash[1] = stash[2] = 0u;
    if (worker >= wsdsl_join.parked_slots) return;
    const ws_u32* parked = wsdsl_join.parked + (unsigned long long)worker * (WS_STASH_CAP + 1u);
    const ws_u32 n = parked[0] < WS_STASH_CAP ? parked[0] : WS_STASH_CAP;
    for (ws_u32 k = 0; k < n; k++) ws_stash_ids(stash)[k] = parked[1 + k];
    stash[1] = stash[2] = n;
}

// When a worker stops (after its last batch's barrier; every thread calls it): counts the
// complete handlers its threads ran, and parks its stash, or (persistent kernels, whose pool
// ends with the run) drops it.
static __device__ void ws_join_detach(wsdsl_ctx* ctx, unsigned worker, bool leader) {
    if (ctx->completions > 0u) atomicAdd(&wsdsl_join.completions, (unsigned long long)ctx->completions);
    ctx->completions = 0u;
    if (!leader || worker >= wsdsl_join.parked_slots) return;
    ws_u32* s = ctx->stash;
    const ws_u32 head = s[0];
    ws_u32 n = s[1] - head;
    if (n > WS_STASH_CAP) n = WS_STASH_CAP;   // (cannot happen: the ring holds no more)
    ws_u32* parked = wsdsl_join.parked + (unsigned long long)worker * (WS_STASH_CAP + 1u);
    parked[0] = n;
    for (ws_u32 k = 0; k < n; k++) parked[1 + k] = ws_stash_ids(s)[ws_stash_at(head + k)];
}

// ---- joins ----

// Called by wsdsl_execute before the spawn handler.
static __device__ __forceinline__ void ws_join_begin(wsdsl_ctx* ctx, const wsdsl_task* task) {
    ctx->cur = task;
    ctx->child_frame = WS_JOIN_NONE;
    ctx->child_count = 0u;
    ctx->round = 0u;
#if WSDSL_JOBS
    ctx->job_children = 0u;
    ctx->job_words = 0u;
#endif
}

// Children of this run of the handler that are jobs (features/parallel.cuh): they count, but hand no
// value, so the values' slots skip them.
#if WSDSL_JOBS
#define WS_JOIN_JOB_CHILDREN(ctx) ((ctx)->job_children)
#else
#define WS_JOIN_JOB_CHILDREN(ctx) 0u
#endif

// Counts one more child of the running task, whose value (if it hands one) goes to slot
// `value_slot`: the frame the child reports to when the task waits for it (the first child
// takes the frame), WS_JOIN_DETACHED when it does not, WS_JOIN_NONE after a failure it
// reported (the run stops).
static __device__ ws_u32 ws_join_count_child(wsdsl_ctx* ctx, ws_u32 value_slot) {
    const ws_u32 tag = ctx->cur->tag;
    const ws_u32 n = ctx->child_count++;
    if (!wsdsl_has_complete(tag)) return WS_JOIN_DETACHED;
    // (The bound also keeps the counter's bias out of reach for handlers without values.)
    if (value_slot >= wsdsl_max_children(tag) || n >= WS_JOIN_MAX_CHILDREN) {
        // The last argument says which bound it was: 1 the multi-GPU one, 0 the handler's.
        const bool handlers = wsdsl_max_children(tag) < WS_JOIN_MAX_CHILDREN;
        ws_report(WS_STATUS_CHILDREN, tag, handlers ? wsdsl_max_children(tag) : WS_JOIN_MAX_CHILDREN, handlers ? 0u : (ws_u32)WSDSL_PES);
        return WS_JOIN_NONE;
    }
    if (ctx->child_frame == WS_JOIN_NONE) {
        const ws_u32 index = ws_frame_take(ctx);
        if (index == WS_JOIN_NONE) return WS_JOIN_NONE;   // reported; the run stops
        wsdsl_join.frames[index].task = *ctx->cur;
#if WSDSL_JOBS && WSDSL_JOB_RESULTS
        // What the first round's jobs give is read after it (ws_join_resume): the words
        // they do not give read 0.
        for (ws_u32 k = 0; k < WSDSL_JOB_RESULTS; k++) wsdsl_join.frames[index].results[k] = 0ull;
#endif
        ctx->child_frame = ws_frame_id(index);
    }
#if WS_JOIN_EARLY_CHILDREN
    if (n == 0u) {
        // The counter must hold the bias before any child of this round can be seen.
        ws_store_relaxed_u32(&ws_frame_at(ctx->child_frame)->pending, WS_JOIN_BIAS);
        __threadfence();
    }
#endif
    return ctx->child_frame;
}

// Called by wsdsl_ctx_spawn: where the child's value goes.
static __device__ void ws_join_link_child(wsdsl_ctx* ctx, wsdsl_task* child) {
    const ws_u32 slot = ctx->child_count - WS_JOIN_JOB_CHILDREN(ctx);
    const ws_u32 frame = ws_join_count_child(ctx, slot);
    child->join_frame = frame == WS_JOIN_NONE ? WS_JOIN_DETACHED : frame;
    child->join_slot = frame >= WS_JOIN_DETACHED ? 0u : wsdsl_takes_values(ctx->cur->tag) ? slot : WS_JOIN_NO_SLOT;
}

#if WSDSL_JOBS
// Called by ws_job_record: a job of the running task, which hands no value.
static __device__ void ws_join_link_job(wsdsl_ctx* ctx, wsdsl_task* job) {
    const ws_u32 frame = ws_join_count_child(ctx, 0u);
    ctx->job_children++;
    job->join_frame = frame == WS_JOIN_NONE ? WS_JOIN_DETACHED : frame;
    job->join_slot = WS_JOIN_NO_SLOT;
}
#endif

// Frame `id` has no child left: its task continues, as a task of its own. The deque
// scheduler keeps continuations apart, on a stack of the worker's (`ctx->resumes`, shared
// memory), and runs them in batches of their own, so that a batch's threads run one kind of
// code (its leader makes room before every batch: schedulers/deque.cuh); the others queue a
// continuation record like any child.
static __device__ __forceinline__ void ws_join_continue(wsdsl_ctx* ctx, ws_u32 id) {
    if (ctx->resumes != 0) {
        const ws_u32 at = atomicAdd(&ctx->resumes[0], 1u);
        ctx->resumes[1 + at] = id;
        return;
    }
    wsdsl_task resume;
    resume.tag = WS_TAG_RESUME;
    resume.join_frame = id;
    resume.join_slot = 0u;
    ws_spawn_record(ctx, &resume);
}

#if WSDSL_PES
// ---- continuations sent home across GPUs (see the top) ----

// Worker `w`'s ring in `box`.
static __device__ __forceinline__ ws_atom_u64* ws_join_ring(ws_join_inbox* box, ws_u32 w) {
    return &box->tails[wsdsl_join.workers] + (unsigned long long)w * wsdsl_join.inbox_capacity;
}

// GPU `home`'s inbox as this thread reaches it: through the peer mapping on this host; for
// another host's GPU, this GPU's own (symmetric) address of it, which the calls below hand to
// NVSHMEM's one-sided calls with `home`. Their fetching add returns only once done;
// publishing orders this thread's earlier deliveries to `home` before the entry.
static __device__ __forceinline__ ws_join_inbox* ws_join_inbox_of(ws_u32 home) {
    return ws_join_mapped(home) ? ws_join_on(wsdsl_join.inbox, home) : wsdsl_join.inbox;
}
static __device__ __forceinline__ ws_atom_u64 ws_join_inbox_add(ws_atom_u64* word, ws_u32 home, ws_atom_u64 v) {
#if WSDSL_PES_ONE_SIDED
    if (!ws_join_mapped(home)) return ws_far_fetch_add_u64(word, v, home);
#endif
    return ws_sys_add_relaxed_u64(word, v);
}
static __device__ __forceinline__ ws_atom_u64 ws_join_inbox_load(ws_atom_u64* word, ws_u32 home) {
#if WSDSL_PES_ONE_SIDED
    if (!ws_join_mapped(home)) return ws_far_fetch_u64(word, home);
#endif
    return ws_sys_load_acquire_u64(word);
}
static __device__ __forceinline__ void ws_join_inbox_publish(ws_atom_u64* word, ws_u32 home, ws_atom_u64 v) {
#if WSDSL_PES_ONE_SIDED
    if (!ws_join_mapped(home)) {
        ws_far_publish_u64(word, v, home);
        return;
    }
#endif
    ws_sys_store_release_u64(word, v);
}

// Another GPU's thread delivered the last value of `home`'s frame `index`: queue it there.
WS_COLD void ws_join_send_home(ws_u32 home, ws_u32 index) {
    const ws_u32 w = index % wsdsl_join.workers;
    ws_join_inbox* box = ws_join_inbox_of(home);
    ws_join_inbox_add(&box->sent, home, 1ull);   // before this thread can go idle (features/pe.cuh)
    const ws_atom_u64 ticket = ws_join_inbox_add(&box->tails[w], home, 1ull);
    const ws_u32 free_seq = (ws_u32)(2ull * (ticket / wsdsl_join.inbox_capacity));
    ws_atom_u64* slot = &ws_join_ring(box, w)[ticket & (wsdsl_join.inbox_capacity - 1u)];
    // Already free: the entry `inbox_capacity` tickets earlier was taken and cleared before
    // this ticket could be issued (entries not yet taken name different frames, a frame waits
    // in an inbox at most once, and the ring has a slot for every frame that maps to it). The
    // loop only waits for the clearing store to be seen, and gives up if the run failed.
    while ((ws_u32)(ws_join_inbox_load(slot, home) >> 32) != free_seq) {
        if (ws_failed()) return;
        __nanosleep(32);
    }
    ws_join_inbox_publish(slot, home, ((ws_atom_u64)(free_seq + 1u) << 32) | index);
}

// Whether GPU `pe` has continuations sent to it that no worker took yet (GPU 0's detector).
static __device__ __forceinline__ bool ws_join_inbox_waiting(ws_u32 pe) {
    ws_join_inbox* box = ws_join_inbox_of(pe);
    const ws_atom_u64 taken = ws_join_inbox_load(&box->taken, pe);
    return ws_join_inbox_load(&box->sent, pe) != taken;
}

// Worker `self`'s inbox ticket: its inbox holds something when this differs from its head.
static __device__ __forceinline__ ws_atom_u64 ws_join_inbox_tail(ws_u32 self) {
    return ws_sys_load_relaxed_u64(&wsdsl_join.inbox->tails[self]);
}

// Worker `self`'s leader: moves the continuations in its inbox (tickets `*head` to `tail`)
// onto its resume stack, up to `room`; returns how many. An entry whose sender is still
// writing it waits for the next look.
static __device__ unsigned ws_join_take_home(ws_u32 self, ws_atom_u64* head, ws_atom_u64 tail, ws_u32* resumes, unsigned room) {
    ws_join_inbox* box = wsdsl_join.inbox;
    ws_atom_u64* ring = ws_join_ring(box, self);
    unsigned got = 0;
    for (ws_atom_u64 h = *head; h != tail && got < room; h++) {
        const ws_u32 full_seq = (ws_u32)(2ull * (h / wsdsl_join.inbox_capacity)) + 1u;
        ws_atom_u64* slot = &ring[h & (wsdsl_join.inbox_capacity - 1u)];
        const ws_atom_u64 entry = ws_sys_load_acquire_u64(slot);
        if ((ws_u32)(entry >> 32) != full_seq) break;
        ws_sys_store_release_u64(slot, (ws_atom_u64)(full_seq + 1u) << 32);
        const ws_u32 index = (ws_u32)entry;
        // Read the counter's last decrement, so that the fence below orders every child's
        // delivery (home ones released at GPU scope included) before the continuation.
        (void)ws_sys_load_relaxed_u32(&wsdsl_join.frames[index].pending);
        resumes[1 + resumes[0]++] = ws_frame_id(index);
        got++;
    }
    if (got > 0) {
        *head += got;
        ws_sys_add_relaxed_u64(&box->taken, got);
        ws_sys_fence_acq_rel();
    }
    return got;
}
#endif

#if WSDSL_PES_ONE_SIDED
// Writes `value` at the symmetric address `at` of GPU `pe`, a word at a time (features/far.cuh).
static_assert(sizeof(wsdsl_value) % 4 == 0, "a value is whole 32-bit words");
static __device__ __forceinline__ void ws_join_put_value(wsdsl_value* at, wsdsl_value value, ws_u32 pe) {
    const ws_u32* words = (const ws_u32*)&value;
    ws_far_put_words((uint32_t*)at, words, sizeof(wsdsl_value) / 4u, pe);
}

// A value for a frame of another host's GPU: the steps of a remote delivery below, through
// one-sided calls on the frame's symmetric address. The value is put, and fenced before the
// decrement (NVSHMEM delivers one PE's puts and atomics to another in order across
// nvshmem_fence); the decrement carries the mark, so the home thread that finds the count at
// zero acquires at system scope, as for a delivery from a GPU of its own host.
WS_COLD void ws_join_deliver_far(ws_u32 frame, ws_u32 slot, wsdsl_value value) {
    const ws_u32 home = ws_frame_pe(frame);
    const ws_u32 index = frame - (home << wsdsl_join.id_shift);
    ws_frame* f = &wsdsl_join.frames[index];   // this GPU's address of the same frame
    ws_sys_fence_acq_rel();
    if (slot != WS_JOIN_NO_SLOT) {
        ws_join_put_value(&f->values[slot], value, home);
        ws_far_fence();
    }
    const ws_u32 before = ws_far_fetch_add_u32(&f->pending, WS_JOIN_REMOTE - 1u, home);
    if ((before & WS_JOIN_COUNT) == 1u) ws_join_send_home(home, index);
}
#endif

// Hands a finished task's `value` to slot `slot` of `frame` (or to the host for a root);
// the thread that delivers a frame's last value continues its task (across GPUs: sends it
// home, when the frame is another GPU's).
static __device__ void ws_join_deliver(wsdsl_ctx* ctx, ws_u32 frame, ws_u32 slot, wsdsl_value value) {
    if (frame == WS_JOIN_ROOT) {
#if WSDSL_PES
        const ws_u32 to = slot % wsdsl_join.n_pes;
        wsdsl_value* at = &wsdsl_join.root_values[slot / wsdsl_join.n_pes];
#if WSDSL_PES_ONE_SIDED
        if (!ws_join_mapped(to)) {
            // Delivered before this thread can go idle, so before the run can end.
            ws_join_put_value(at, value, to);
            ws_far_quiet();
            return;
        }
#endif
        *ws_join_on(at, to) = value;
#else
        wsdsl_join.root_values[slot] = value;
#endif
        return;
    }
    if (frame >= WS_JOIN_NONE) return;   // nobody waits for this task
#if WSDSL_PES_ONE_SIDED
    if (!ws_join_mapped(ws_frame_pe(frame))) {
        ws_join_deliver_far(frame, slot, value);
        return;
    }
#endif
    ws_frame* f = ws_frame_at(frame);
    if (slot != WS_JOIN_NO_SLOT) f->values[slot] = value;
#if WSDSL_PES
    const ws_u32 home = ws_frame_pe(frame);
    if (home != ws_join_self()) {
        ws_fence_release_at(true);
        if ((ws_sys_add_relaxed_u32(&f->pending, WS_JOIN_REMOTE - 1u) & WS_JOIN_COUNT) == 1u) ws_join_send_home(home, frame - (home << wsdsl_join.id_shift));
        return;
    }
    ws_fence_release_at(false);
    const ws_u32 before = ws_sys_add_relaxed_u32(&f->pending, 0xffffffffu);
    if ((before & WS_JOIN_COUNT) != 1u) return;
    ws_fence_acquire_at(before >= WS_JOIN_REMOTE);
#else
    // Release: this value (and this subtree's writes) before the decrement.
    if (ws_add_release_u32(&f->pending, 0xffffffffu) != 1u) return;
    // The last one acquires every sibling's, for the continuation that reads them (an
    // acquire fence: the L1 invalidation without a second MEMBAR).
    ws_fence_acquire_at(false);
#endif
    ws_join_continue(ctx, frame);
}

// After a task's spawn or complete handler returned `value`: waits for the children it
// spawned, or (none) finishes the task.
static __device__ void ws_join_end(wsdsl_ctx* ctx, const wsdsl_task* task, wsdsl_value value) {
    const ws_u32 id = ctx->child_frame;
    if (ctx->child_count > 0u && id != WS_JOIN_NONE) {
        ws_frame* f = ws_frame_at(id);
        ws_gpu_store_relaxed_u32(&f->children, ctx->child_count - WS_JOIN_JOB_CHILDREN(ctx));   // the values
        ws_gpu_store_relaxed_u32(&f->round, ctx->round + 1u);
#if WS_JOIN_EARLY_CHILDREN
        const ws_u32 adjust = ctx->child_count - WS_JOIN_BIAS;
        if (ws_add_acq_rel_u32(&f->pending, adjust) + adjust == 0u) ws_join_continue(ctx, id);
#else
        ws_gpu_store_relaxed_u32(&f->pending, ctx->child_count);
#endif
        return;
    }
    const ws_u32 up = task->join_frame, up_slot = task->join_slot;
    if (id != WS_JOIN_NONE) ws_frame_give(ctx, id);
    ws_join_deliver(ctx, up, up_slot, value);
}

// A continuation: runs the complete handler of frame `id` on its copy of the task and the
// children's values, then waits again or finishes the task (ws_join_end).
static __device__ void ws_join_resume(wsdsl_ctx* ctx, ws_u32 id) {
    WS_PROF(const unsigned long long t0 = ws_clock());
    ws_frame* f = ws_frame_at(id);
    // Strong loads: this SM's L1 may still hold the frame's lines from an earlier use.
    wsdsl_task task;
    for (unsigned k = 0; k < sizeof(wsdsl_task) / 4u; k++) ((ws_u32*)&task)[k] = ws_gpu_load_relaxed_u32(&((ws_u32*)&f->task)[k]);
    const ws_u32 n = ws_gpu_load_relaxed_u32(&f->children);
    wsdsl_value values[WSDSL_MAX_CHILDREN];
    if (wsdsl_takes_values(task.tag)) {
#ifdef WSDSL_VALUE_WORDS
        // A union of value types (several, or compound ones): word by word.
        for (ws_u32 k = 0; k < n && k < WSDSL_MAX_CHILDREN; k++)
            for (ws_u32 w = 0; w < WSDSL_VALUE_WORDS; w++) values[k].words[w] = ws_gpu_load_relaxed_u32(&f->values[k].words[w]);
#else
        for (ws_u32 k = 0; k < n && k < WSDSL_MAX_CHILDREN; k++) values[k] = ((volatile wsdsl_value*)f->values)[k];
#endif
    }
    ctx->cur = &task;
    ctx->child_frame = id;
    ctx->child_count = 0u;
    ctx->round = ws_gpu_load_relaxed_u32(&f->round);
#if WSDSL_JOBS
    ctx->job_children = 0u;
    ctx->job_words = 0u;
    if (task.tag == WS_TAG_JOB) {   // a split job: its own continuation (features/parallel.cuh)
        ws_job_resume(ctx, id, &task);
        WS_PROF(ctx->prof_join += ws_clock() - t0);
        return;
    }
#if WSDSL_JOB_RESULTS
    // What the jobs of the round before gave, for `ctx.result(k)`; the frame's words are
    // cleared for this round's jobs, which write theirs only after this handler recorded them.
    for (ws_u32 k = 0; k < WSDSL_JOB_RESULTS; k++) {
        ctx->results[k] = ws_gpu_load_relaxed_u64((ws_atom_u64*)&f->results[k]);
        f->results[k] = 0ull;
    }
#endif
#endif
    ctx->completions++;
    const wsdsl_value value = wsdsl_complete(&task, values, n, ctx);
    ws_join_end(ctx, &task, value);
    WS_PROF(ctx->prof_join += ws_clock() - t0);
}

// What a kernel runs for each task record: a continuation, a job (features/parallel.cuh), or a
// task's spawn handler.
static __device__ __forceinline__ void ws_run_task(const wsdsl_task* task, wsdsl_ctx* ctx) {
    if (task->tag == WS_TAG_RESUME) {
        ws_join_resume(ctx, task->join_frame);
#if WSDSL_JOBS
    } else if (task->tag == WS_TAG_JOB) {
        ws_job_take(ctx, task);
#endif
    } else {
        wsdsl_execute(task, ctx);
    }
}

#else
#define WS_STASH_WORDS 1u
static __device__ __forceinline__ void ws_join_attach(wsdsl_ctx*, ws_u32*, unsigned, bool) {}
static __device__ __forceinline__ void ws_join_detach(wsdsl_ctx*, unsigned, bool) {}
static __device__ __forceinline__ void ws_join_prepare(wsdsl_ctx*) {}
static __device__ __forceinline__ void ws_run_task(const wsdsl_task* task, wsdsl_ctx* ctx) { wsdsl_execute(task, ctx); }
#endif
