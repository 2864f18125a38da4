// schedulers/bands.cuh — priority scheduling (`#[megakernel(order = priority)]`) on the Broker Queue
// family: the persistent kernel of schedulers/broker.cuh, with its one queue replaced by a
// window of priority bands (delta-stepping's buckets, Galois's OBIM) and a far queue
// (Near-Far). Included instead of schedulers/broker.cuh; host side `gpu/schedulers/bands.rs`.
//
// Needs core/launch.cuh and queues/broker_queue.cuh, and WSDSL_ORDERED set before core/context.cuh (the
// context then keeps each thread's task priority and the priorities of what it spawns).
// Configuration:
//   WSDSL_BROKER_KIND   0 BQ, 1 BWD (the bands' queues; BSQ is refused by the host)
//   WSDSL_BROKER_SLOTS  slots of each band and of the far queue (a power of two)
//   WSDSL_BANDS         bands in the window (W), default 32
//   WSDSL_BAND_LOOKAHEAD  how many bands above the lowest live one workers may take from
//                       (the program's `lookahead`, set by gpu/build/assemble.rs; 1 by default)
//   WSDSL_BAND_KEEP     children a worker may keep for its next batch (0: none; at most
//                       the worker's threads; default: all of them)
//   WSDSL_BAND_KEEP_BELOW  keep only while fewer tasks than this many per thread of the
//                       grid are outstanding (default 1)
//
// Queues: W band queues and one far queue, one element type: a task and its priority p.
// Band i holds tasks with p % W == i for `low <= p < low + W` (a ring); the far queue holds
// those with p >= low + W. `low` only grows. Beside each band, a count of its tasks being
// run (taken, children not yet enqueued): a band is live while it holds or runs tasks, since
// a running task's children usually land in its own band.
//   * Taking (a worker's first thread): read `low`, probe the W bands from low upward with a
//     relaxed load of the broker's count (an empty band costs one load, never an atomic; the
//     lowest empty ones also a load of their running count), and reserve up to one task per
//     thread of the first band that holds any, if it is at most WSDSL_BAND_LOOKAHEAD bands
//     above the lowest live band. Otherwise the worker waits: taking from far above a band
//     whose tasks still run is what makes the window race ahead (a delta-stepping SSSP on a
//     grid scans each edge 61 times when any band of the window may be taken from; A*
//     expands as many positions as an unordered run). Tasks taken above the lowest live band
//     are counted as run out of order.
//   * `low` moves (compare-and-swap, one winner counts it) to the lowest live band once the
//     bands below it are neither holding nor running tasks. A task taken between a reservation
//     and its running count may see `low` pass its band: its children of a band below `low`
//     are placed in band `low`, so a child runs at most one band late.
//   * With the whole window empty and the far queue not: `low` jumps to the least priority
//     pushed to the far queue since the last jump (`far_min`, swapped out), and idle workers
//     move far tasks back into the window (re-banding), or to the far queue again.
//   * Children: staged as the broker kernel stages them (with their priorities beside). A
//     worker keeps up to WSDSL_BAND_KEEP of them for its next batch, without a queue: those of
//     the lowest band among them, if a taker could take from that band (at most
//     WSDSL_BAND_LOOKAHEAD above `low`) and it is not below the batch's own band (which the
//     batch keeps live until the kept ones count); and only while fewer tasks are outstanding
//     than the grid has threads (WSDSL_BAND_KEEP_BELOW per thread, `pending` read as the
//     batch starts, so the load waits beside the tasks). Why: a long-diameter graph's search
//     is a chain of thousands of levels, and a child that goes through a queue waits an
//     enqueue, a poll and a dequeue before it runs (BFS on a 2048 x 2048 grid, H200: 9.5 µs a
//     level, 39.1 ms; keeping, 29.7 ms). Why only then: with fewer tasks than threads a queued
//     task is taken at once anyway and the queue adds only latency; with more, the queues'
//     first-in first-out order is what keeps delta-stepping work-efficient (SSSP on R-MAT 22:
//     keeping whatever the load scanned each edge 3.57 times against 2.35, 17.7 ms against
//     12.2). A keeper does not look for a lower band that holds tasks, as a taker would:
//     that probe costs more than it saves (SSSP on the grid 54.0 against 48.5 ms).
//     The others are grouped by destination queue: one broker reservation per band a batch
//     touches, the worker's threads filling the positions side by side. The kept tasks join
//     their band's running count before the batch leaves its own, so the window never reads
//     both idle.
// Termination: `pending` as in schedulers/broker.cuh (tasks in any queue, being run or being
// enqueued), but a batch raises it by its children before they are visible and lowers it by
// its own tasks only once their band's running count has dropped, so that all outstanding
// tasks seen in the far queue means no band is running; moving a task from the far queue to
// a band leaves it unchanged.
// Overflow (a band, the far queue, a staging area): ws_report(OVERFLOW) naming the queue
// (arg0 WS_BROKER_QUEUE_TAG | queue, queue W the far queue) and the slots that would have
// sufficed; the run ends.
#pragma once

#ifndef WSDSL_BANDS
#define WSDSL_BANDS 32u
#endif
#define WS_BAND_FAR WSDSL_BANDS          // the far queue's index
#define WS_BAND_NONE 0xffffffffu
#define WS_BAND_PLACED 0xffffffffu       // a staged child already enqueued

// The queue element: a task and its priority, padded to whole 32-bit words.
struct ws_band_task {
    wsdsl_task task;
    unsigned prio;
};
union ws_band_box {
    ws_band_task item;
    unsigned words[(sizeof(ws_band_task) + 3u) / 4u];
};
typedef ws_broker_queue<ws_band_box, WSDSL_BROKER_SLOTS, WS_BROKER_MAX_THREADS> ws_band_queue;
#if defined(WS_HOST_EMULATION) && !defined(__CUDACC_RTC__)
// The layout `clear_bytes` names, checked where there is an offsetof (the host builds CI runs).
static_assert(__builtin_offsetof(ws_band_queue, ring) == ws_band_queue::clear_bytes, "the ring follows the words and tickets");
#endif

#ifndef WSDSL_BAND_LOOKAHEAD
#define WSDSL_BAND_LOOKAHEAD 1u
#endif
#ifndef WSDSL_BAND_KEEP
#define WSDSL_BAND_KEEP WS_GROUP
#endif
#ifndef WSDSL_BAND_KEEP_BELOW
#define WSDSL_BAND_KEEP_BELOW 1ull
#endif
#if WSDSL_BAND_KEEP > WS_GROUP
#error "WSDSL_BAND_KEEP: a worker keeps at most one child per thread"
#endif

// Read by the host to size the queues: the bands and the far queue together, then each
// band's running count (zero at the start: the host clears them whole).
__device__ unsigned long long wsdsl_broker_queue_bytes = sizeof(ws_band_queue) * (WSDSL_BANDS + 1ull) + 4ull * WSDSL_BANDS;
// Read by the host to clear the area (gpu/device/target.rs, `zeroed_queues`): each queue's size,
// what of it must be zero (its words and tickets), and the queues in the area; what follows
// them (the running counts) is cleared whole.
__device__ unsigned long long wsdsl_broker_queue_clear[3] = {sizeof(ws_band_queue), ws_band_queue::clear_bytes, WSDSL_BANDS + 1ull};

// Run-wide words (host: `gpu/schedulers/bands.rs`; zero but far_min at the start), then run-wide
// totals (64-bit, added once per worker at the end).
enum {
    WS_BANDS_LOW = 0,        // the window's lowest priority
    WS_BANDS_FAR_MIN = 1,    // least priority pushed to the far queue since `low` last jumped to it
    WS_BANDS_HIGHEST = 2,    // highest priority run
    WS_BANDS_WORDS = 4
};
enum {
    WS_BANDS_MOVES = 0,      // times `low` moved
    WS_BANDS_AHEAD = 1,      // tasks run from a band above `low` (out of order)
    WS_BANDS_REBANDED = 2,   // far tasks moved back into the window
    WS_BANDS_KEPT = 3,       // children run by the worker that spawned them, without a queue
    WS_BANDS_TOTALS = 4
};

// Everything a launch needs (host mirror: `gpu/schedulers/bands.rs`, struct BandsRecord).
struct ws_bands_launch {
    unsigned char* queues;              // WSDSL_BANDS bands, then the far queue; all-zero = empty
    wsdsl_task* staging;                // workers * staging_cap children
    unsigned* staging_prio;             // their priorities
    const wsdsl_task* roots;            // initial tasks (band 0); worker w enqueues a share
    const wsdsl_params* params;
    const wsdsl_buffers* buffers;
    unsigned long long* counter_slots;
    unsigned long long* stats;          // workers * WS_STAT_WORDS
    ws_atom_u32* pending;               // outstanding tasks, set to root_count by the host
    ws_atom_u32* words;                 // WS_BANDS_WORDS run-wide words
    unsigned long long* totals;         // WS_BANDS_TOTALS run-wide statistics
    const ws_atom_u32* stop;            // host-mapped: nonzero asks the kernel to stop
    ws_atom_u64* progress;              // host-mapped, per worker: tasks run (null: unwatched)
    unsigned workers;
    unsigned staging_cap;               // children per worker and batch
    unsigned root_count;
    unsigned pad;
};

static __device__ __forceinline__ ws_band_queue* ws_band_queue_at(const ws_bands_launch* L, unsigned i) {
    return (ws_band_queue*)(L->queues + (unsigned long long)i * sizeof(ws_band_queue));
}

// Tasks of band `i` being run: taken, their children not yet enqueued.
static __device__ __forceinline__ ws_atom_u32* ws_band_running(const ws_bands_launch* L, unsigned i) {
    return (ws_atom_u32*)(L->queues + sizeof(ws_band_queue) * (WSDSL_BANDS + 1ull)) + i;
}

// The queue a task of priority `p` goes to while the window starts at `low`: its band (one
// below the window goes to band `low`), or the far queue.
static __device__ __forceinline__ unsigned ws_band_of(unsigned p, unsigned low) {
    if (p < low) p = low;
    return p - low < WSDSL_BANDS ? p % WSDSL_BANDS : WS_BAND_FAR;
}

static __device__ void ws_band_overflow(const ws_bands_launch* L, unsigned qi, unsigned more) {
    int held = (int)ws_load_relaxed_u32(&ws_band_queue_at(L, qi)->count);
    unsigned long long needed = (unsigned long long)(held > 0 ? held : 0) + more;
    if (needed <= WSDSL_BROKER_SLOTS) needed = WSDSL_BROKER_SLOTS + 1ull;
    ws_report(WS_STATUS_OVERFLOW, WS_BROKER_QUEUE_TAG | qi, needed, WSDSL_BROKER_SLOTS);
}

// One thread: enqueues one task of priority p (a spilled child, a re-banded far task).
static __device__ bool ws_band_put_one(const ws_bands_launch* L, const wsdsl_task* task, unsigned p) {
    const unsigned low = ws_load_relaxed_u32(&L->words[WS_BANDS_LOW]);
    const unsigned qi = ws_band_of(p, low);
    ws_band_queue* q = ws_band_queue_at(L, qi);
    unsigned pos = 0u;
    if (ws_bq_enqueue_reserve<WS_BROKER_LIN>(q, 1u, &pos) == 0u) {
        ws_band_overflow(L, qi, 1u);
        return false;
    }
    if (qi == WS_BAND_FAR) atomicMin((unsigned*)&L->words[WS_BANDS_FAR_MIN], p);
    ws_band_box b;
    b.item.task = *task;
    b.item.prio = p;
    ws_bq_put_slot(q, pos, b);
    return true;
}

// A child past the staging area goes straight to its queue, counted in `pending` first (as
// in schedulers/broker.cuh).
static __device__ void ws_spawn_spill(wsdsl_ctx* ctx, const wsdsl_task* task) {
    const ws_bands_launch* L = (const ws_bands_launch*)ctx->sched;
    ws_add_relaxed_u32(L->pending, 1u);
    ws_band_put_one(L, task, ctx->spawn_prio);
}

// Shared state of one worker's enqueue (one entry per worker of the block).
struct ws_band_group {
    unsigned key, count, claimed, got, pos, next, least, busy;
};

// Whole worker: enqueues the staged children src[0, n) with priorities prio[0, n) (marked
// WS_BAND_PLACED as they go), one reservation per destination queue (more if a queue grants
// part). Returns false after reporting an overflow.
static __device__ bool ws_band_group_enqueue(const ws_bands_launch* L, const wsdsl_task* src, unsigned* prio, unsigned n,
                                             unsigned low, unsigned rank, ws_band_group* g, unsigned long long* peak) {
    if (rank == 0u) g->next = 0u;
    for (;;) {
        if (rank == 0u) {
            unsigned i = g->next;
            while (i < n && prio[i] == WS_BAND_PLACED) i++;
            g->next = i;
            g->key = i < n ? ws_band_of(prio[i], low) : WS_BAND_NONE;
            g->count = 0u;
            g->claimed = 0u;
            g->least = 0xffffffffu;
        }
        ws_group_sync();
        const unsigned key = g->key;
        if (key == WS_BAND_NONE) break;
        for (unsigned i = rank; i < n; i += WS_GROUP) {
            const unsigned p = prio[i];
            if (p != WS_BAND_PLACED && ws_band_of(p, low) == key) {
                atomicAdd(&g->count, 1u);
                if (key == WS_BAND_FAR) atomicMin(&g->least, p);
            }
        }
        ws_group_sync();
        if (rank == 0u) {
            ws_band_queue* q = ws_band_queue_at(L, key);
            unsigned pos = 0u;
            const unsigned got = ws_bq_enqueue_reserve<WS_BROKER_LIN>(q, g->count, &pos);
            if (got == 0u) {
                ws_band_overflow(L, key, g->count);
            } else {
                int held = (int)ws_load_relaxed_u32(&q->count);
                if (held > 0 && (unsigned long long)held > *peak) *peak = (unsigned long long)held;
                if (key == WS_BAND_FAR) atomicMin((unsigned*)&L->words[WS_BANDS_FAR_MIN], g->least);
            }
            g->got = got;
            g->pos = pos;
        }
        ws_group_sync();
        const unsigned got = g->got, pos = g->pos;
        if (got == 0u) return false;
        ws_band_queue* q = ws_band_queue_at(L, key);
        for (unsigned i = rank; i < n; i += WS_GROUP) {
            const unsigned p = prio[i];
            if (p == WS_BAND_PLACED || ws_band_of(p, low) != key) continue;
            const unsigned at = atomicAdd(&g->claimed, 1u);
            if (at >= got) continue;   // the next reservation takes it
            ws_band_box b;
            b.item.task = src[i];
            b.item.prio = p;
            ws_bq_put_slot(q, pos + at, b);
            prio[i] = WS_BAND_PLACED;
        }
        ws_group_sync();   // every claim is made and every child marked before the next round
    }
    ws_group_sync();       // everyone has read the last key before the first thread writes again
    return true;
}

struct ws_band_stats {
    unsigned long long tasks, peak, moves, ahead, rebanded, kept;
    unsigned highest;
};

// First thread of an idle worker: reserve up to WS_GROUP tasks from the lowest band of the
// window that has any, if it is within WSDSL_BAND_LOOKAHEAD bands of the lowest live band.
// Returns the grant (0: nothing to take yet), with the band in *which (its priority in
// *level); the band's running count includes the grant.
static __device__ unsigned ws_band_reserve(const ws_bands_launch* L, unsigned* which, unsigned* level, unsigned* pos, ws_band_stats* st) {
    const unsigned low = ws_load_relaxed_u32(&L->words[WS_BANDS_LOW]);
    unsigned live = WS_BAND_NONE;   // offset from `low` of the lowest band holding or running tasks
    for (unsigned k = 0; k < WSDSL_BANDS; k++) {
        if (live != WS_BAND_NONE && k > live + WSDSL_BAND_LOOKAHEAD) return 0u;   // wait for the lower bands
        const unsigned b = (low + k) % WSDSL_BANDS;
        ws_band_queue* q = ws_band_queue_at(L, b);
        bool holds = (int)ws_load_relaxed_u32(&q->count) > 0;   // one relaxed load
        if (live == WS_BAND_NONE && !holds && ws_load_relaxed_u32(ws_band_running(L, b)) == 0u) {
            // Idle, unless a batch that just finished put children here: it enqueued them,
            // fenced, then lowered the running count, so reading that count, fencing and
            // reading the queue's count again sees them.
            __threadfence();
            holds = (int)ws_load_relaxed_u32(&q->count) > 0;
            if (!holds) continue;   // neither holds nor runs tasks
        }
        if (live == WS_BAND_NONE) {
            live = k;
            // The bands below hold and run nothing: the window moves up to this one.
            if (k > 0u && atomicCAS((unsigned*)&L->words[WS_BANDS_LOW], low, low + k) == low) st->moves++;
        }
        if (!holds) continue;
        const unsigned got = ws_bq_dequeue_reserve<WS_BROKER_LIN>(q, WS_GROUP, pos);
        if (got > 0u) {
            ws_add_relaxed_u32(ws_band_running(L, b), got);
            *which = b;
            *level = low + k;
            if (k > live) st->ahead += got;
            return got;
        }
    }
    return 0u;
}

// First thread of an idle worker that found the window empty: once every outstanding task
// is in the far queue (none is being run, so none can still add to the window), let the
// window jump to the far queue's least priority, then move up to WS_GROUP far tasks back.
// Returns how many it took (0: nothing to do yet); their positions are [*pos, *pos + n) of
// the far queue.
static __device__ unsigned ws_band_reserve_far(const ws_bands_launch* L, unsigned* pos, ws_band_stats* st) {
    ws_band_queue* far = ws_band_queue_at(L, WS_BAND_FAR);
    const int in_far = (int)ws_load_relaxed_u32(&far->count);
    if (in_far <= 0 || ws_load_relaxed_u32(L->pending) > (unsigned)in_far) return 0u;
    if (ws_load_relaxed_u32(&L->words[WS_BANDS_FAR_MIN]) != 0xffffffffu) {
        const unsigned least = atomicExch((unsigned*)&L->words[WS_BANDS_FAR_MIN], 0xffffffffu);
        if (least != 0xffffffffu && atomicMax((unsigned*)&L->words[WS_BANDS_LOW], least) < least) st->moves++;
    }
    const unsigned got = ws_bq_dequeue_reserve<WS_BROKER_LIN>(far, WS_GROUP, pos);
    st->rebanded += got;
    return got;
}

// Whole worker, after a batch of band `level` (a priority) staged children with priorities
// prio[0, n): picks the children it keeps for its next batch (at the top: those of their
// lowest band, if a taker could take from it and it is not below `level`, unless `pending`,
// the first thread's reading of the outstanding tasks, says the GPU is busy), marks them
// WS_BAND_PLACED, and writes their staging positions and priorities to at[0, kept) and
// pr[0, kept). Returns how many it kept, their band in *keep_level.
static __device__ unsigned ws_band_keep(const ws_bands_launch* L, unsigned* prio, unsigned n, unsigned low, unsigned level, unsigned pending,
                                        unsigned rank, ws_band_group* g, unsigned* at, unsigned* pr, unsigned* keep_level) {
#if WSDSL_BAND_KEEP == 0
    return 0u;
#else
    if (rank == 0u) {
        g->least = 0xffffffffu;
        g->claimed = 0u;
        g->busy = pending >= (unsigned long long)L->workers * WS_GROUP * WSDSL_BAND_KEEP_BELOW;
    }
    ws_group_sync();
    if (g->busy) {
        ws_group_sync();   // everyone has read it before the first thread writes it again
        return 0u;
    }
    for (unsigned i = rank; i < n; i += WS_GROUP) {
        const unsigned p = prio[i] < low ? low : prio[i];
        if (p >= level && p - low <= WSDSL_BAND_LOOKAHEAD && p - low < WSDSL_BANDS) atomicMin(&g->least, p);
    }
    ws_group_sync();
    const unsigned least = g->least;
    if (least != 0xffffffffu) {
        for (unsigned i = rank; i < n; i += WS_GROUP) {
            const unsigned p = prio[i] < low ? low : prio[i];
            if (p != least) continue;
            const unsigned k = atomicAdd(&g->claimed, 1u);
            if (k >= WSDSL_BAND_KEEP) continue;   // the queue takes it
            at[k] = i;
            pr[k] = prio[i];
            prio[i] = WS_BAND_PLACED;
        }
    }
    ws_group_sync();
    const unsigned kept = least == 0xffffffffu ? 0u : (g->claimed < WSDSL_BAND_KEEP ? g->claimed : WSDSL_BAND_KEEP);
    *keep_level = least;
    ws_group_sync();   // everyone has read the group's words before the enqueue writes them
    return kept;
#endif
}

enum { WS_BANDS_FOUND = 0, WS_BANDS_DONE = 1, WS_BANDS_ABORTED = 2, WS_BANDS_FAR_FOUND = 3, WS_BANDS_OWN = 4 };

// How long an idle worker's first thread sleeps after its `round`-th empty poll of the
// window (rounds count from 1): 100 ns for the first 63, then WS_BROKER_IDLE_SLEEP_NS
// doubling every 16 polls up to WS_BANDS_IDLE_SLEEP_MAX_NS. When a band is narrower than
// the workers (a BFS level on a grid is a few hundred vertices, for 4,095 levels), thousands
// of idle workers would otherwise poll the same band counts every 800 ns and slow the L2 slice that serves the few busy
// workers' enqueues. Measured on an H100, BFS on a 2048 x 2048 grid: 48.8 ms at a flat
// 800 ns, 45.0 at 3 µs, 41.8 at 8 µs, 39.7 at 20 µs. Long-idle workers wake
// late, but among thousands one is always near its next poll; the last one notices the end
// of the run up to one sleep late.
#ifndef WS_BANDS_IDLE_SLEEP_MAX_NS
#define WS_BANDS_IDLE_SLEEP_MAX_NS 20000u
#endif
static __device__ __forceinline__ unsigned ws_bands_idle_sleep(unsigned round) {
    if (round < 64u) return 100u;
    const unsigned doublings = (round - 64u) / 16u;
    // 64-bit, so that a large WS_BROKER_IDLE_SLEEP_NS cannot wrap below the cap.
    const unsigned long long ns = doublings >= 8u ? WS_BANDS_IDLE_SLEEP_MAX_NS : (unsigned long long)WS_BROKER_IDLE_SLEEP_NS << doublings;
    return ns < WS_BANDS_IDLE_SLEEP_MAX_NS ? (unsigned)ns : WS_BANDS_IDLE_SLEEP_MAX_NS;
}

static __device__ __forceinline__ bool ws_bands_must_stop(const ws_bands_launch* L, unsigned self, unsigned round) {
    if (ws_failed()) return true;
    if (self == 0u && (round & WS_BROKER_HOST_POLL_MASK) == 0u && ws_load_volatile_sys_u32(L->stop) != 0u) {
        ws_report(WS_STATUS_STOPPED, 0, 0, 0);
        return true;
    }
    return false;
}

extern "C" __global__ void __launch_bounds__(WSDSL_BLOCK_THREADS, WSDSL_MIN_BLOCKS) wsdsl_bands_megakernel(const ws_bands_launch* launch) {
    WS_SHARED(unsigned, s_spawned, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_count, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_which, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_pos, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_low, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_level, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_keep_at, WSDSL_BLOCK_THREADS);     // a kept child's staging position, one per thread
    WS_SHARED(unsigned, s_keep_prio, WSDSL_BLOCK_THREADS);   // and its priority
    WS_SHARED(int, s_outcome, WS_GROUPS_PER_BLOCK);
    WS_SHARED(ws_band_group, s_group, WS_GROUPS_PER_BLOCK);
    const ws_bands_launch L = *launch;
    const unsigned group = threadIdx.x / WS_GROUP;
    const unsigned rank = threadIdx.x % WS_GROUP;
    const bool leader = rank == 0u;
    const unsigned self = blockIdx.x * WS_GROUPS_PER_BLOCK + group;
    wsdsl_task* staging = L.staging + (unsigned long long)self * L.staging_cap;
    unsigned* staging_prio = L.staging_prio + (unsigned long long)self * L.staging_cap;

    wsdsl_ctx ctx;
    wsdsl_ctx_init(&ctx, L.params, L.buffers, staging, L.staging_cap, &s_spawned[group]);
    ctx.sched = &L;
    ctx.prios = staging_prio;

    ws_band_stats st = {0, 0, 0, 0, 0, 0, 0u};

    // The roots (band 0): worker w enqueues roots [w*R/W, (w+1)*R/W). They are counted in
    // `pending` already (the host set it to R).
    {
        const unsigned long long R = L.root_count, W = L.workers;
        const unsigned first = (unsigned)(self * R / W), last = (unsigned)((self + 1ull) * R / W);
        for (unsigned at = first; at < last; at += L.staging_cap) {
            const unsigned n = last - at < L.staging_cap ? last - at : L.staging_cap;
            for (unsigned i = rank; i < n; i += WS_GROUP) staging_prio[i] = 0u;
            ws_group_sync();
            if (!ws_band_group_enqueue(&L, L.roots + at, staging_prio, n, 0u, rank, &s_group[group], &st.peak)) break;
        }
    }

    // Profile (WSDSL_PROFILE): `search` is the band logic of taking (probing the window,
    // moving it, re-banding), `idle` the polls that found nothing, `publish` the grouping and
    // enqueueing of children by band.
    WS_PROF(unsigned long long prof[WS_PROF_COUNT] = {0});
    WS_PROF(const unsigned long long prof_start = ws_clock());
    unsigned polls = 0;
    unsigned long long published_at = 0;
    ws_band_task item;
    unsigned kept = 0, keep_level = 0;   // children of the last batch this worker runs next
    unsigned pending_seen = 0;           // `pending` as the batch started (the leader's)
    unsigned* keep_at = s_keep_at + group * WS_GROUP;
    unsigned* keep_prio = s_keep_prio + group * WS_GROUP;
    for (;;) {
        if (leader) {
            int outcome = WS_BANDS_FOUND;
            unsigned n = 0, which = 0, level = 0, pos = 0;
            if (++polls == WS_BROKER_POLL_EVERY) {
                polls = 0;
                if (ws_bands_must_stop(&L, self, 0u)) outcome = WS_BANDS_ABORTED;
                ws_publish_progress(L.progress, self, st.tasks, &published_at);
            }
            if (outcome == WS_BANDS_FOUND && ws_failed()) outcome = WS_BANDS_ABORTED;
            if (outcome == WS_BANDS_FOUND && kept > 0u) {
                outcome = WS_BANDS_OWN;
                n = kept;
                level = keep_level;
                which = keep_level % WSDSL_BANDS;
            }
            WS_PROF(const unsigned long long t0 = ws_clock());
            for (unsigned round = 1; outcome == WS_BANDS_FOUND; round++) {
                n = ws_band_reserve(&L, &which, &level, &pos, &st);
                if (n > 0u) break;
                n = ws_band_reserve_far(&L, &pos, &st);
                if (n > 0u) { outcome = WS_BANDS_FAR_FOUND; which = WS_BAND_FAR; break; }
                if (ws_bands_must_stop(&L, self, round)) { outcome = WS_BANDS_ABORTED; break; }
                if (ws_load_relaxed_u32(L.pending) == 0u) { outcome = WS_BANDS_DONE; break; }
                __nanosleep(ws_bands_idle_sleep(round));
            }
            WS_PROF(prof[n > 0u ? WS_PROF_SEARCH : WS_PROF_IDLE] += ws_clock() - t0);
            WS_PROF(if ((outcome == WS_BANDS_FOUND || outcome == WS_BANDS_OWN) && n > 0u) { prof[WS_PROF_BATCHES]++; prof[WS_PROF_LANES] += n; });
            // Read now, used after the batch (whether to keep its children): the load's latency
            // hides behind the tasks.
            if (n > 0u) pending_seen = ws_load_relaxed_u32(L.pending);
            s_outcome[group] = outcome;
            s_count[group] = n;
            s_which[group] = which;
            s_level[group] = level;
            s_pos[group] = pos;
            s_spawned[group] = 0u;
        }
        ws_group_sync();
        const int outcome = s_outcome[group];
        if (outcome == WS_BANDS_DONE || outcome == WS_BANDS_ABORTED) break;
        const unsigned n = s_count[group];
        const unsigned band = s_which[group];
        const bool have = rank < n;
        if (have && outcome == WS_BANDS_OWN) {
            item.task = staging[keep_at[rank]];
            item.prio = keep_prio[rank];
        } else if (have) {
            ws_band_box b;
            ws_bq_take_slot(ws_band_queue_at(&L, s_which[group]), s_pos[group] + rank, &b);
            item = b.item;
        }
        ws_group_sync();   // the grant in shared memory is read before the next one is written
        if (outcome == WS_BANDS_FAR_FOUND) {
            // Re-banding: each thread moves its far task to its band (or the far queue again).
            if (have && !ws_band_put_one(&L, &item.task, item.prio)) {}
            ws_group_sync();
            continue;
        }
        WS_PROF(const unsigned long long exec_start = ws_clock());
        if (have) {
            ctx.prio = item.prio;
            if (item.prio > st.highest) st.highest = item.prio;
            ws_run_task(&item.task, &ctx);
        }
        ws_group_sync();   // children in staging are written before anyone enqueues them
        WS_PROF(const unsigned long long publish_start = ws_clock());
        WS_PROF(prof[WS_PROF_EXEC] += publish_start - exec_start);
        const unsigned spawned = s_spawned[group] < L.staging_cap ? s_spawned[group] : L.staging_cap;
        if (leader) s_low[group] = ws_load_relaxed_u32(&L.words[WS_BANDS_LOW]);
        ws_group_sync();   // everyone has read the count and the window before they change
        kept = spawned > 0u ? ws_band_keep(&L, staging_prio, spawned, s_low[group], s_level[group], pending_seen, rank, &s_group[group], keep_at, keep_prio, &keep_level) : 0u;
        if (leader) {
            st.tasks += n;
            // The children count before they are visible; the batch's own tasks leave
            // `pending` only after their band's running count (below), so a worker that
            // reads every outstanding task in the far queue finds no band running either.
            if (spawned > 0u) ws_add_relaxed_u32(L.pending, spawned);
        }
        if (spawned > kept) {
            ws_group_sync();   // the count is updated before any child is visible
            if (!ws_band_group_enqueue(&L, staging, staging_prio, spawned, s_low[group], rank, &s_group[group], &st.peak)) break;
        }
        if (leader) {
            // The kept children run in their band before the batch leaves its own.
            if (kept > 0u) {
                ws_add_relaxed_u32(ws_band_running(&L, keep_level % WSDSL_BANDS), kept);
                st.kept += kept;
            }
            // The batch is done: its children are in their queues before its band may read
            // idle, and its band reads idle before `pending` drops.
            __threadfence();
            ws_add_relaxed_u32(ws_band_running(&L, band), 0u - n);
            __threadfence();
            ws_add_relaxed_u32(L.pending, 0u - n);
        }
        WS_PROF(prof[WS_PROF_PUBLISH] += ws_clock() - publish_start);
    }

    wsdsl_counters_flush(&ctx.counters, L.counter_slots);
    if (leader) {
        unsigned long long* s = L.stats + (unsigned long long)self * WS_STAT_WORDS;
        s[WS_STAT_TASKS] = st.tasks;
        s[WS_STAT_PEAK] = st.peak;
        WS_PROF(prof[WS_PROF_TOTAL] = ws_clock() - prof_start);
        WS_PROF(for (unsigned k = 0; k < WS_PROF_WAIT_OWN; k++) s[WS_STAT_COUNT + k] = prof[k]);
        if (st.moves) atomicAdd(&L.totals[WS_BANDS_MOVES], st.moves);
        if (st.ahead) atomicAdd(&L.totals[WS_BANDS_AHEAD], st.ahead);
        if (st.rebanded) atomicAdd(&L.totals[WS_BANDS_REBANDED], st.rebanded);
        if (st.kept) atomicAdd(&L.totals[WS_BANDS_KEPT], st.kept);
    }
    // Every thread's highest priority (each ran tasks of its own).
    if (st.highest > 0u) atomicMax((unsigned*)&L.words[WS_BANDS_HIGHEST], st.highest);
}
