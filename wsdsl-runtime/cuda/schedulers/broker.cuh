// schedulers/broker.cuh — the persistent kernel over the Broker Queue family (queues/broker_queue.cuh):
// BQ (one linearizable queue for the grid), BWD (the same queue, the broker's word taken at
// face value) and BSQ (one BQ per block, an empty block robs the others in turn; paper 6.2).
//
// Needs core/launch.cuh (worker granularity WS_GROUP, ws_group_sync, the statistics layout) and
// queues/broker_queue.cuh, whose last section holds the configuration (WSDSL_BROKER_KIND: 0 BQ,
// 1 BWD, 2 BSQ; WSDSL_BROKER_SLOTS) and the constants the broker kernels share.
//
// Every worker (a thread, a warp or a block) of a grid sized to be fully resident loops:
//   1. its first thread reserves up to one task per thread with one broker grant and one Head
//      atomic (multi-element dequeue), BSQ: from the block's queue, else the other queues;
//   2. each thread takes its slot and runs its task; `wsdsl_ctx_spawn` writes children to the
//      worker's staging area in global memory (a shared-memory counter hands out entries);
//   3. the first thread adds (children - tasks run) to the global count of outstanding tasks,
//      then reserves positions for all children at once (retrying partial grants) and the
//      threads fill them side by side (multi-element enqueue).
// Termination without an atomic per task: `pending` counts tasks that are in a queue, being
// run, or being enqueued. It changes once per batch, by (children - tasks run), *before* the
// children are enqueued, so it cannot reach zero while a task exists anywhere, and once it is
// zero nothing can create a task: a worker that finds no work and reads zero stops.
// `pending` is moved and read relaxed: the increment is ordered before the children become
// visible by the release store of their slots' tickets, and whoever runs a child acquires
// that ticket before its own decrement, so increments precede decrements in `pending`'s
// order; nothing else is read through it. (An acquire per idle poll would invalidate the
// SM's L1 under the busy warps each time.)
// Failures: a staging area or a queue too small is reported through ws_report(OVERFLOW) and
// the run ends (never a lost task nor a hang: positions already reserved are always filled
// and emptied, so no ticket wait can block forever). Workers stop on ws_failed(); the host's
// stop flag is read by worker 0 only (PCIe; see schedulers/deque.cuh) and turned into the error word.
// Overflow arg0: the worker id for its staging area, WS_BROKER_QUEUE_TAG | queue for a queue.
#pragma once

// The queue element: a task padded to whole 32-bit words (the queue copies words).
union ws_broker_box {
    wsdsl_task task;
    unsigned words[(sizeof(wsdsl_task) + 3u) / 4u];
};
typedef ws_broker_queue<ws_broker_box, WSDSL_BROKER_SLOTS, WS_BROKER_MAX_THREADS> ws_task_queue;
#if defined(WS_HOST_EMULATION) && !defined(__CUDACC_RTC__)
// The layout `clear_bytes` names, checked where there is an offsetof (the host builds CI runs).
static_assert(__builtin_offsetof(ws_task_queue, ring) == ws_task_queue::clear_bytes, "the ring follows the words and tickets");
#endif

// Read by the host to size the queue array (queue i starts at i * this many bytes).
__device__ unsigned long long wsdsl_broker_queue_bytes = sizeof(ws_task_queue);
// Read by the host to clear them (gpu/device/target.rs, `zeroed_queues`): each queue's size, what
// of it must be zero (its words and tickets), and the queues in `wsdsl_broker_queue_bytes`.
__device__ unsigned long long wsdsl_broker_queue_clear[3] = {sizeof(ws_task_queue), ws_task_queue::clear_bytes, 1ull};

// Everything a launch needs (host mirror: `gpu/schedulers/broker.rs`, struct BrokerRecord).
struct ws_broker_launch {
    unsigned char* queues;              // queue_count queues, all-zero = empty
    wsdsl_task* staging;                // workers * staging_cap children
    const wsdsl_task* roots;            // initial tasks; worker w enqueues a contiguous share
    const wsdsl_params* params;
    const wsdsl_buffers* buffers;
    unsigned long long* counter_slots;
    unsigned long long* stats;          // workers * WS_STAT_WORDS
    ws_atom_u32* pending;               // outstanding tasks, set to root_count by the host
    const ws_atom_u32* stop;            // host-mapped: nonzero asks the kernel to stop
    ws_atom_u64* progress;              // host-mapped, per worker: tasks run (null: unwatched)
    unsigned workers;
    unsigned queue_count;               // 1 (BQ, BWD) or the number of blocks (BSQ)
    unsigned staging_cap;               // children per worker and batch
    unsigned root_count;
};

static __device__ __forceinline__ ws_task_queue* ws_broker_queue_at(const ws_broker_launch* L, unsigned i) {
    return (ws_task_queue*)(L->queues + (unsigned long long)i * sizeof(ws_task_queue));
}

static __device__ __forceinline__ bool ws_broker_must_stop(const ws_broker_launch* L, unsigned self, unsigned round) {
    if (ws_failed()) return true;
    if (self == 0u && (round & WS_BROKER_HOST_POLL_MASK) == 0u && ws_load_volatile_sys_u32(L->stop) != 0u) {
        ws_report(WS_STATUS_STOPPED, 0, 0, 0);
        return true;
    }
    return false;
}

// Whole worker: enqueues src[0, n) into queue `qi` (n the same on every thread). The first
// thread asks for all remaining elements at once; the threads fill the granted positions side
// by side. Returns false, after reporting the overflow, if the queue is full.
static __device__ bool ws_broker_group_enqueue(const ws_broker_launch* L, unsigned qi, const wsdsl_task* src, unsigned n,
                                               unsigned rank, unsigned* s_pos, unsigned* s_got,
                                               unsigned long long* peak) {
    ws_task_queue* q = ws_broker_queue_at(L, qi);
    unsigned done = 0;
    while (done < n) {
        if (rank == 0u) {
            unsigned pos = 0u;
            unsigned got = ws_bq_enqueue_reserve<WS_BROKER_LIN>(q, n - done, &pos);
            if (got == 0u) {
                int held = (int)ws_load_relaxed_u32(&q->count);
                unsigned long long needed = (unsigned long long)(held > 0 ? held : 0) + (n - done);
                if (needed <= WSDSL_BROKER_SLOTS) needed = WSDSL_BROKER_SLOTS + 1ull;
                ws_report(WS_STATUS_OVERFLOW, WS_BROKER_QUEUE_TAG | qi, needed, WSDSL_BROKER_SLOTS);
            } else {
                int held = (int)ws_load_relaxed_u32(&q->count);
                if (held > 0 && (unsigned long long)held > *peak) *peak = (unsigned long long)held;
            }
            *s_pos = pos;
            *s_got = got;
        }
        ws_group_sync();
        const unsigned pos = *s_pos, got = *s_got;
        ws_group_sync();   // everyone has read the grant before the first thread asks again
        if (got == 0u) return false;
        for (unsigned i = rank; i < got; i += WS_GROUP) {
            ws_broker_box b;
            b.task = src[done + i];
            ws_bq_put_slot(q, pos + i, b);
        }
        done += got;
    }
    return true;
}

// A child that does not fit in the worker's staging area goes straight into the worker's
// queue, one element, from the thread that spawned it. It is counted in `pending` before it
// can be seen (the termination invariant above), so the batch's own update below counts only
// the staged children.
static __device__ void ws_spawn_spill(wsdsl_ctx* ctx, const wsdsl_task* task) {
    const ws_broker_launch* L = (const ws_broker_launch*)ctx->sched;
    ws_add_relaxed_u32(L->pending, 1u);
    ws_task_queue* q = ws_broker_queue_at(L, ctx->sched_queue);
    unsigned pos = 0u;
    if (ws_bq_enqueue_reserve<WS_BROKER_LIN>(q, 1u, &pos) == 0u) {
        int held = (int)ws_load_relaxed_u32(&q->count);
        unsigned long long needed = (unsigned long long)(held > 0 ? held : 0) + 1ull;
        if (needed <= WSDSL_BROKER_SLOTS) needed = WSDSL_BROKER_SLOTS + 1ull;
        ws_report(WS_STATUS_OVERFLOW, WS_BROKER_QUEUE_TAG | ctx->sched_queue, needed, WSDSL_BROKER_SLOTS);
        return;
    }
    ws_broker_box b;
    b.task = *task;
    ws_bq_put_slot(q, pos, b);
}

struct ws_broker_stats {
    unsigned long long tasks, tries, steals, peak;
};

// First thread of an idle worker: reserve up to WS_GROUP tasks. Returns the grant; *which is
// the queue and [*pos, *pos + grant) the positions to take from it.
static __device__ unsigned ws_broker_reserve(const ws_broker_launch* L, unsigned own, unsigned* which, unsigned* pos,
                                             ws_broker_stats* st) {
    unsigned got = ws_bq_dequeue_reserve<WS_BROKER_LIN>(ws_broker_queue_at(L, own), WS_GROUP, pos);
    *which = own;
#if WSDSL_BROKER_KIND == 2
    // BSQ (section 6.2): the block's own queue is empty; try the others in turn.
    unsigned v = own;
    for (unsigned i = 1u; got == 0u && i < L->queue_count; i++) {
        v = v + 1u == L->queue_count ? 0u : v + 1u;
        st->tries++;
        got = ws_bq_dequeue_reserve<true>(ws_broker_queue_at(L, v), WS_GROUP, pos);
        if (got > 0u) {
            *which = v;
            st->steals++;
        }
    }
#endif
    return got;
}

enum { WS_BROKER_FOUND = 0, WS_BROKER_DONE = 1, WS_BROKER_ABORTED = 2 };

extern "C" __global__ void __launch_bounds__(WSDSL_BLOCK_THREADS, WSDSL_MIN_BLOCKS) wsdsl_broker_megakernel(const ws_broker_launch* launch) {
    WS_SHARED(unsigned, s_spawned, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_count, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_which, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_pos, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_got, WS_GROUPS_PER_BLOCK);
    WS_SHARED(int, s_outcome, WS_GROUPS_PER_BLOCK);
    WS_SHARED(ws_u32, s_stash, WS_GROUPS_PER_BLOCK * WS_STASH_WORDS);
    const ws_broker_launch L = *launch;
    const unsigned group = threadIdx.x / WS_GROUP;
    const unsigned rank = threadIdx.x % WS_GROUP;
    const bool leader = rank == 0u;
    const unsigned self = blockIdx.x * WS_GROUPS_PER_BLOCK + group;
    const unsigned own = WSDSL_BROKER_KIND == 2 ? blockIdx.x : 0u;
    wsdsl_task* staging = L.staging + (unsigned long long)self * L.staging_cap;

    wsdsl_ctx ctx;
    wsdsl_ctx_init(&ctx, L.params, L.buffers, staging, L.staging_cap, &s_spawned[group]);
    ws_join_attach(&ctx, &s_stash[group * WS_STASH_WORDS], self, leader);
    ctx.sched = &L;
    ctx.sched_queue = own;

    ws_broker_stats st = {0, 0, 0, 0};
    // The profile's phases (core/stats.cuh), for the broker: `own` is a dequeue that found work,
    // `search` the empty polls before one did, `idle` those until the run ended.
    WS_PROF(unsigned long long prof[WS_PROF_COUNT] = {0});
    WS_PROF(const unsigned long long prof_start = ws_clock());

    // The roots: worker w enqueues roots [w*R/W, (w+1)*R/W) into its queue. They are already
    // counted in `pending` (the host set it to R), so nobody stops before they are run.
    {
        const unsigned long long R = L.root_count, W = L.workers;
        const unsigned first = (unsigned)(self * R / W), last = (unsigned)((self + 1ull) * R / W);
        if (last > first &&
            !ws_broker_group_enqueue(&L, own, L.roots + first, last - first, rank, &s_pos[group], &s_got[group], &st.peak)) {
            // Reported; fall through to the loop, which sees ws_failed() and stops.
        }
    }

    unsigned polls = 0;
    unsigned long long published_at = 0;
    wsdsl_task task;
    for (;;) {
        if (leader) {
            int outcome = WS_BROKER_FOUND;
            unsigned n = 0, which = own, pos = 0;
            if (++polls == WS_BROKER_POLL_EVERY) {
                polls = 0;
                if (ws_broker_must_stop(&L, self, 0u)) outcome = WS_BROKER_ABORTED;
                ws_publish_progress(L.progress, self, st.tasks, &published_at);
            }
            if (outcome == WS_BROKER_FOUND && ws_failed()) outcome = WS_BROKER_ABORTED;
            WS_PROF(unsigned long long t0 = ws_clock());
            WS_PROF(unsigned long long polled = t0);
            for (unsigned round = 1; outcome == WS_BROKER_FOUND; round++) {
                WS_PROF(polled = ws_clock());
                n = ws_broker_reserve(&L, own, &which, &pos, &st);
                if (n > 0u) break;
                if (ws_broker_must_stop(&L, self, round)) { outcome = WS_BROKER_ABORTED; break; }
                if (ws_load_relaxed_u32(L.pending) == 0u) { outcome = WS_BROKER_DONE; break; }
                // Back off while nothing is found, so idle workers leave L2 to busy ones.
                __nanosleep(round < 64u ? 100u : WS_BROKER_IDLE_SLEEP_NS);
            }
            WS_PROF(const unsigned long long t1 = ws_clock());
            WS_PROF(if (n > 0u) {
                prof[WS_PROF_OWN] += t1 - polled;
                prof[WS_PROF_SEARCH] += polled - t0;
                prof[WS_PROF_BATCHES]++;
                prof[WS_PROF_LANES] += n;
            } else {
                prof[WS_PROF_IDLE] += t1 - t0;
            });
            if (outcome == WS_BROKER_FOUND) ws_join_prepare(&ctx);
            s_outcome[group] = outcome;
            s_count[group] = n;
            s_which[group] = which;
            s_pos[group] = pos;
            s_spawned[group] = 0u;
        }
        ws_group_sync();
        if (s_outcome[group] != WS_BROKER_FOUND) break;
        const unsigned n = s_count[group];
        const bool have = rank < n;
        if (have) {
            ws_broker_box b;
            ws_bq_take_slot(ws_broker_queue_at(&L, s_which[group]), s_pos[group] + rank, &b);
            task = b.task;
        }
        ws_group_sync();   // the grant in shared memory is read before the next one is written
        WS_PROF(const unsigned long long exec_start = ws_clock());
        if (have) ws_run_task(&task, &ctx);
        ws_group_sync();   // children in staging are written before anyone enqueues them
        WS_PROF(const unsigned long long publish_start = ws_clock());
        WS_PROF(prof[WS_PROF_EXEC] += publish_start - exec_start);
        // Children past the staging area were spilled into the queue (ws_spawn_spill).
        const unsigned spawned = s_spawned[group] < L.staging_cap ? s_spawned[group] : L.staging_cap;
        ws_group_sync();   // everyone has read the count before the first thread resets it
        if (leader) {
            st.tasks += n;
            // Children counted before they can be seen, the batch uncounted after it ran.
            if (spawned != n) ws_add_relaxed_u32(L.pending, spawned - n);
        }
        if (spawned > 0u) {
            ws_group_sync();   // the count is updated before any child is visible
            if (!ws_broker_group_enqueue(&L, own, staging, spawned, rank, &s_pos[group], &s_got[group], &st.peak)) break;
        }
        WS_PROF(prof[WS_PROF_PUBLISH] += ws_clock() - publish_start);
    }

    ws_join_detach(&ctx, self, leader);
    wsdsl_counters_flush(&ctx.counters, L.counter_slots);
    if (leader) {
        unsigned long long* s = L.stats + (unsigned long long)self * WS_STAT_WORDS;
        s[WS_STAT_TASKS] = st.tasks;
        s[WS_STAT_STEAL_TRIES] = st.tries;
        s[WS_STAT_STEALS] = st.steals;
        s[WS_STAT_PEAK] = st.peak;
        WS_PROF(prof[WS_PROF_TOTAL] = ws_clock() - prof_start);
        WS_PROF(for (unsigned k = 0; k < WS_PROF_WAIT_OWN; k++) if (k != WS_PROF_JOIN && k != WS_PROF_FRAMES) s[WS_STAT_COUNT + k] = prof[k]);
    }
    WS_PROF(ws_prof_flush_lane(&ctx, L.stats + (unsigned long long)self * WS_STAT_WORDS));
}
