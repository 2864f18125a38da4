// features/parallel.cuh — data-parallel work inside a task: the building blocks a handler asks for as
// it asks for children (`ctx.copy`, `ctx.merge`, `ctx.sort`, `ctx.partition`,
// `ctx.exclusive_scan`, `ctx.reduce_sum/min/max`).
//
// A handler's call records a *job*: a task record with tag WS_TAG_JOB whose `u.job` names the
// buffers (by index in `wsdsl_buffers`), the ranges and the arguments. The job is a child of
// the task (it counts in the join counter but takes no value slot: features/join.cuh), so the task's
// complete handler runs when it is done, and reads what it gave with `ctx.result(k)`.
//
// How a job runs. The deque megakernel gives each worker of a warp or more a short list in
// shared memory: a job the handler records goes there (up to WS_JOB_BUDGET per batch), and so
// does a job record a thread pops; right after the batch the worker's threads run the list's
// jobs one after the other, all of them together on each (coalesced loads into a shared tile,
// one thread's share of the output each). A job longer than a piece (WS_JOB_PIECE_BYTES) is
// split instead: it takes a frame and spawns up to WS_JOB_FANOUT children covering its range
// (pieces, or again split jobs), which any worker may steal; the frame's continuation finishes
// it. A merge splits along its merge path (each child a merge of two sub-runs, found by a
// binary search per child, the worker's threads searching side by side). A partition or a
// scan needs each piece's place: its children first count (below and equal to the pivot; a
// sum), the counts go to the job's frame (`job_scratch`), and its continuation scans them and
// spawns each piece again to write its keys where they belong; a child that is itself split
// reports its total and waits (its frame parked) until its parent hands it its base. A
// reduction combines its children's partial results. Other schedulers (static, broker, thread
// workers) run a job record on the thread that takes it, with the same code (a group of one
// thread and a small tile in local memory).
//
// Contracts (the Rust methods' docs, docs/guide/4-jobs.md; element types u32, i32, u64, i64):
//   copy(src, a0..a1, dst, at)             dst[at + k] = src[a0 + k]
//   merge(src, a0..a1, b0..b1, dst, at)    the stable merge of the sorted runs (ties: a first)
//   sort(src, a0..a1, dst, at)             the keys in ascending order; at most WS_JOB_SORT_MAX
//   partition(src, a0..a1, pivot, dst, at) keys < pivot, then == pivot, then > pivot, each in
//                                          order; results: (below, equal)
//   exclusive_scan(src, a0..a1, init, dst, at)  dst[at + k] = init + src[a0] + .. (wrapping);
//                                          result: the total, as a 64-bit sum of the words
//   reduce_sum/min/max(src, a0..a1)        result: the sum (of the keys' sign-extended words,
//                                          modulo 2^64), least or greatest key (the identity
//                                          of an empty range)
// Destinations never overlap sources, except that a sort or a scan may write its source
// range itself. Every output is a function of the input alone: the same on every backend.
#pragma once

#if WSDSL_JOBS

#ifndef WS_TAG_JOB
#define WS_TAG_JOB 0xfffffff1u   // (the types fragment defines it: its join tables need it)
#endif

// `u.job.op`: kind (4 bits), role (2 bits), element type (4 bits from bit 8), source buffer
// (bits 16-23), destination buffer (bits 24-31, 0xff: none). The kinds are the runtime's
// `parallel::JobKind`.
#define WS_JOB_COPY 1u
#define WS_JOB_MERGE 2u
#define WS_JOB_SORT 3u
#define WS_JOB_PARTITION 4u
#define WS_JOB_SCAN 5u
#define WS_JOB_SUM 6u
#define WS_JOB_MIN 7u
#define WS_JOB_MAX 8u
// Roles: a job as a handler recorded it (or a piece of a merge or copy, which is one); an
// inner node of a split partition, scan or reduction; a piece that counts (sums, reduces)
// its range; a piece that writes its range from the base its parent computed.
#define WS_JOB_ROOT 0u
#define WS_JOB_INNER 1u
#define WS_JOB_COUNT 2u
#define WS_JOB_APPLY 3u
#define WS_JOB_KIND(op) ((op) & 0xfu)
#define WS_JOB_ROLE(op) (((op) >> 4) & 0x3u)
#define WS_JOB_ELEM(op) (((op) >> 8) & 0xfu)
#define WS_JOB_SRC(op) (((op) >> 16) & 0xffu)
#define WS_JOB_DST(op) ((op) >> 24)
#define WS_JOB_AS(op, role) (((op) & ~0x30u) | ((role) << 4))
#define WS_JOB_NO_RESULT 0xffffffffu
// Result words one round's jobs give at most (`ctx.result(0..8)`).
#define WS_JOB_RESULT_WORDS 8u

// The most keys `ctx.sort` sorts (one tile of a warp worker).
#define WS_JOB_SORT_MAX 256u
// A range longer than this (in bytes of keys) is split into pieces; a piece is one worker's.
#ifndef WS_JOB_PIECE_BYTES
#define WS_JOB_PIECE_BYTES 16384u
#endif
// Jobs a worker runs right after one batch; more wait in its deque, where thieves see them.
#ifndef WS_JOB_BUDGET
#define WS_JOB_BUDGET 4u
#endif
// Job records a cooperative worker pops for one batch (schedulers/deque.cuh): the others stay in its
// deque and are offered to thieves, so that the pieces of a split job spread.
#ifndef WS_JOB_POP
#define WS_JOB_POP 2u
#endif
// Workers of a warp or more run jobs together, after the batch (`ws_jobs_after_batch`).
#define WS_JOB_COOPERATIVE (WSDSL_WORKER_THREADS >= 32 && !WSDSL_COOPERATIVE)
// Bytes of keys a cooperative worker holds in shared memory at a time: 2 KiB a warp (so that
// a block of eight warp workers stays well inside 48 KiB with its frame stashes), 16 KiB for
// a block worker.
#define WS_JOB_TILE_BYTES (WSDSL_WORKER_THREADS >= 256 ? 16384u : 2048u * (WSDSL_WORKER_THREADS / 32u))
// The per-worker shared memory of the cooperative path, in 64-bit words: the list's count,
// its records, the tile, a word per thread for scans.
#define WS_JOB_TASK_WORDS ((unsigned)(sizeof(wsdsl_task) / 8u))
#define WS_JOB_MEM_WORDS (1u + WS_JOB_BUDGET * WS_JOB_TASK_WORDS + WS_JOB_TILE_BYTES / 8u + WSDSL_WORKER_THREADS)
// A thread running a job alone keeps this tile in local memory.
#define WS_JOB_LOCAL_WORDS 8u

static_assert(WS_JOB_FANOUT * 3u <= WSDSL_JOB_SCRATCH || WSDSL_JOB_SCRATCH == 0u, "wsdsl: a split job's frame keeps three words per child");
static_assert(sizeof(wsdsl_task) % 8u == 0u, "wsdsl: job lists hold whole task records");

// ---- element types ----

template <class T> struct ws_job_elem;
template <> struct ws_job_elem<ws_u32> {
    static __device__ __forceinline__ ws_u32 lowest() { return 0u; }
    static __device__ __forceinline__ ws_u32 highest() { return 0xffffffffu; }
    static __device__ __forceinline__ ws_u64 word(ws_u32 v) { return v; }
};
template <> struct ws_job_elem<ws_i32> {
    static __device__ __forceinline__ ws_i32 lowest() { return (ws_i32)0x80000000u; }
    static __device__ __forceinline__ ws_i32 highest() { return 0x7fffffff; }
    static __device__ __forceinline__ ws_u64 word(ws_i32 v) { return (ws_u64)(ws_i64)v; }
};
template <> struct ws_job_elem<ws_u64> {
    static __device__ __forceinline__ ws_u64 lowest() { return 0ull; }
    static __device__ __forceinline__ ws_u64 highest() { return 0xffffffffffffffffull; }
    static __device__ __forceinline__ ws_u64 word(ws_u64 v) { return v; }
};
template <> struct ws_job_elem<ws_i64> {
    static __device__ __forceinline__ ws_i64 lowest() { return (ws_i64)0x8000000000000000ull; }
    static __device__ __forceinline__ ws_i64 highest() { return (ws_i64)0x7fffffffffffffffull; }
    static __device__ __forceinline__ ws_u64 word(ws_i64 v) { return (ws_u64)v; }
};

// Buffer `index` of the program: `wsdsl_buffers` holds a pointer and a length per buffer.
template <class T> static __device__ __forceinline__ T* ws_job_buffer(const wsdsl_ctx* ctx, ws_u32 index) {
    return (T*)(((const ws_u64*)ctx->buffers)[2u * index]);
}

static __device__ __forceinline__ ws_u32 ws_job_result_words(ws_u32 kind) {
    return kind == WS_JOB_PARTITION ? 2u : kind >= WS_JOB_SCAN ? 1u : 0u;
}

// ---- the threads that run a job together ----

// A worker's threads (or one thread): this one's rank, their number, a tile of shared (or
// local) memory, and a word per thread for scans.
struct ws_job_group {
    unsigned rank;
    unsigned size;
    ws_u64* tile;
    unsigned tile_words;
    ws_u64* scan;
};

static __device__ __forceinline__ void ws_job_sync(const ws_job_group* g) {
    if (g->size == 1u) return;
#if WSDSL_WORKER_THREADS == 32
    __syncwarp();
#else
    __syncthreads();
#endif
}

// The exclusive prefix sum of the threads' `v` (in rank order), and their total in `*total`.
static __device__ ws_u64 ws_job_scan(const ws_job_group* g, ws_u64 v, ws_u64* total) {
    if (g->size == 1u) {
        *total = v;
        return 0ull;
    }
    g->scan[g->rank] = v;
    ws_job_sync(g);
    for (unsigned d = 1u; d < g->size; d <<= 1) {   // Hillis-Steele
        const ws_u64 before = g->rank >= d ? g->scan[g->rank - d] : 0ull;
        ws_job_sync(g);
        g->scan[g->rank] += before;
        ws_job_sync(g);
    }
    const ws_u64 inclusive = g->scan[g->rank];
    *total = g->scan[g->size - 1u];
    ws_job_sync(g);   // read before the area is used again
    return inclusive - v;
}

// The threads' `v` combined by `op` (an associative and commutative one), seen by all.
template <class T, class Op> static __device__ T ws_job_fold(const ws_job_group* g, T v, Op op) {
    if (g->size == 1u) return v;
    g->scan[g->rank] = (ws_u64)v;
    ws_job_sync(g);
    T all = (T)g->scan[0];
    for (unsigned r = 1u; r < g->size; r++) all = op(all, (T)g->scan[r]);
    ws_job_sync(g);
    return all;
}

// Thread `rank`'s share `[*lo, *hi)` of `n` items cut into `size` contiguous runs.
static __device__ __forceinline__ void ws_job_share(const ws_job_group* g, ws_u64 n, ws_u64* lo, ws_u64* hi) {
    const ws_u64 q = (n + g->size - 1u) / g->size;
    *lo = q * g->rank < n ? q * g->rank : n;
    *hi = *lo + q < n ? *lo + q : n;
}

// Child `i` of `k` equal parts of `lo..hi`: `[*s, *e)`.
static __device__ __forceinline__ void ws_job_part(ws_u64 lo, ws_u64 hi, ws_u32 k, ws_u32 i, ws_u64* s, ws_u64* e) {
    const ws_u64 n = hi - lo, base = n / k, rem = n % k;
    *s = lo + i * base + (i < rem ? i : rem);
    *e = *s + base + (i < rem ? 1u : 0u);
}

// ---- leaves: a range of at most a piece, run by a group ----

// Keys a thread loads before it uses any: a global load takes hundreds of cycles, and the
// compiler cannot move a load above an earlier store that might alias it, so loops read
// WS_JOB_BATCH keys into registers first (each thread keys rank, rank + size, ...).
#define WS_JOB_BATCH 16u

// Calls `use(k, v)` for this thread's keys `v = src[k]`, k in [0, n).
template <class T, class Use> static __device__ __forceinline__ void ws_job_each(const ws_job_group* g, const T* src, ws_u64 n, Use use) {
    for (ws_u64 k0 = g->rank; k0 < n; k0 += WS_JOB_BATCH * g->size) {
        T v[WS_JOB_BATCH];
        WS_UNROLL for (unsigned u = 0; u < WS_JOB_BATCH; u++) {
            const ws_u64 k = k0 + u * g->size;
            if (k < n) v[u] = src[k];
        }
        WS_UNROLL for (unsigned u = 0; u < WS_JOB_BATCH; u++) {
            const ws_u64 k = k0 + u * g->size;
            if (k < n) use(k, v[u]);
        }
    }
}

template <class T> static __device__ void ws_job_copy(const ws_job_group* g, const T* src, ws_u64 lo, ws_u64 hi, T* dst, ws_u64 at) {
    ws_job_each(g, src + lo, hi - lo, [&](ws_u64 k, T v) { dst[at + k] = v; });
}

// How many of the first `d` keys of the stable merge of `a[0, na)` and `b[0, nb)` come from `a`.
template <class T> static __device__ ws_u64 ws_job_path(const T* a, ws_u64 na, const T* b, ws_u64 nb, ws_u64 d) {
    ws_u64 lo = d > nb ? d - nb : 0ull, hi = d < na ? d : na;
    while (lo < hi) {
        const ws_u64 mid = lo + (hi - lo) / 2u;
        if (a[mid] <= b[d - 1u - mid]) lo = mid + 1u; else hi = mid;
    }
    return lo;
}

// The merge a step of half a tile at a time: each step loads the next keys of both runs into
// the tile, each thread merges its share of the step's output from there (its start found by
// a search along its diagonal), and the runs advance by what the step took of each.
template <class T> static __device__ void ws_job_merge(const ws_job_group* g, const T* src, ws_u64 a0, ws_u64 a1, ws_u64 b0, ws_u64 b1, T* dst, ws_u64 at) {
    const ws_u64 half = (ws_u64)g->tile_words * 8u / sizeof(T) / 2u;
    T* wa = (T*)g->tile;
    T* wb = wa + half;
    const ws_u64 n = (a1 - a0) + (b1 - b0);
    ws_u64 i = a0, j = b0;
    for (ws_u64 done = 0; done < n;) {
        const ws_u64 step = n - done < half ? n - done : half;
        const ws_u64 na = a1 - i < step ? a1 - i : step;
        const ws_u64 nb = b1 - j < step ? b1 - j : step;
        // Both windows with one batch of loads in flight: key k of their concatenation.
        for (ws_u64 k0 = g->rank; k0 < na + nb; k0 += WS_JOB_BATCH * g->size) {
            T v[WS_JOB_BATCH];
            WS_UNROLL for (unsigned u = 0; u < WS_JOB_BATCH; u++) {
                const ws_u64 k = k0 + u * g->size;
                if (k < na + nb) v[u] = k < na ? src[i + k] : src[j + (k - na)];
            }
            WS_UNROLL for (unsigned u = 0; u < WS_JOB_BATCH; u++) {
                const ws_u64 k = k0 + u * g->size;
                if (k < na) wa[k] = v[u];
                else if (k < na + nb) wb[k - na] = v[u];
            }
        }
        ws_job_sync(g);
        ws_u64 d0, d1;
        ws_job_share(g, step, &d0, &d1);
        ws_u64 x = ws_job_path(wa, na, wb, nb, d0), y = d0 - x;
        for (ws_u64 d = d0; d < d1; d++) {
            const bool from_a = y >= nb || (x < na && wa[x] <= wb[y]);
            dst[at + done + d] = from_a ? wa[x++] : wb[y++];
        }
        const ws_u64 took = ws_job_path(wa, na, wb, nb, step);
        ws_job_sync(g);   // the tile is read before the next step loads it
        i += took;
        j += step - took;
        done += step;
    }
}

// The keys of `src[lo, hi)` in ascending order to `dst[at, ..)`: a bitonic network in the tile
// (the tail padded with the type's largest key), or, when they do not fit it, an insertion sort
// in `dst` by the group's first thread.
template <class T> static __device__ void ws_job_sort(const ws_job_group* g, const T* src, ws_u64 lo, ws_u64 hi, T* dst, ws_u64 at) {
    const ws_u64 n = hi - lo;
    ws_u64 p = 1u;
    while (p < n) p <<= 1;
    if (p <= (ws_u64)g->tile_words * 8u / sizeof(T)) {
        T* t = (T*)g->tile;
        ws_job_each(g, src + lo, n, [&](ws_u64 k, T v) { t[k] = v; });
        for (ws_u64 k = n + g->rank; k < p; k += g->size) t[k] = ws_job_elem<T>::highest();
        ws_job_sync(g);
        for (ws_u64 size = 2u; size <= p; size <<= 1) {
            for (ws_u64 stride = size / 2u; stride > 0u; stride >>= 1) {
                for (ws_u64 c = g->rank; c < p / 2u; c += g->size) {
                    const ws_u64 x = 2u * stride * (c / stride) + c % stride, y = x + stride;
                    const bool up = (x & size) == 0u;
                    if ((t[x] > t[y]) == up) {
                        const T v = t[x];
                        t[x] = t[y];
                        t[y] = v;
                    }
                }
                ws_job_sync(g);
            }
        }
        for (ws_u64 k = g->rank; k < n; k += g->size) dst[at + k] = t[k];
        ws_job_sync(g);
        return;
    }
    if (g->rank == 0u) {
        if (dst + at != src + lo)
            for (ws_u64 k = 0; k < n; k++) dst[at + k] = src[lo + k];
        for (ws_u64 k = 1; k < n; k++) {
            const T v = dst[at + k];
            ws_u64 m = k;
            for (; m > 0u && dst[at + m - 1u] > v; m--) dst[at + m] = dst[at + m - 1u];
            dst[at + m] = v;
        }
    }
    ws_job_sync(g);
}

// The keys of `src[lo, hi)` below and equal to `pivot`, seen by all threads.
template <class T> static __device__ void ws_job_count(const ws_job_group* g, const T* src, ws_u64 lo, ws_u64 hi, T pivot, ws_u64* below, ws_u64* equal) {
    ws_u64 b = 0, e = 0;
    ws_job_each(g, src + lo, hi - lo, [&](ws_u64, T v) {
        b += v < pivot;
        e += v == pivot;
    });
    // Both counts in one word: a piece has fewer than 2^32 keys.
    ws_u64 total;
    ws_job_scan(g, (b << 32) | e, &total);
    *below = total >> 32;
    *equal = total & 0xffffffffull;
}

// Writes the keys of `src[lo, hi)` below, equal to and above `pivot` from `pb`, `pe` and `pa`
// of `dst`, in order: a tile at a time, each thread its run of the tile, placed after the
// runs of the threads before it (a scan of the threads' counts).
template <class T> static __device__ void ws_job_scatter(const ws_job_group* g, const T* src, ws_u64 lo, ws_u64 hi, T pivot, T* dst, ws_u64 pb, ws_u64 pe, ws_u64 pa) {
    const ws_u64 cap = (ws_u64)g->tile_words * 8u / sizeof(T);
    T* t = (T*)g->tile;
    for (ws_u64 t0 = lo; t0 < hi; t0 += cap) {
        const ws_u64 m = hi - t0 < cap ? hi - t0 : cap;
        ws_job_each(g, src + t0, m, [&](ws_u64 k, T v) { t[k] = v; });
        ws_job_sync(g);
        ws_u64 s, e;
        ws_job_share(g, m, &s, &e);
        ws_u64 b = 0, q = 0;
        for (ws_u64 k = s; k < e; k++) {
            b += t[k] < pivot;
            q += t[k] == pivot;
        }
        ws_u64 total;
        const ws_u64 before = ws_job_scan(g, (b << 32) | q, &total);
        ws_u64 xb = pb + (before >> 32), xe = pe + (before & 0xffffffffull);
        ws_u64 xa = pa + (s - (before >> 32) - (before & 0xffffffffull));
        for (ws_u64 k = s; k < e; k++) {
            const T v = t[k];
            if (v < pivot) dst[xb++] = v;
            else if (v == pivot) dst[xe++] = v;
            else dst[xa++] = v;
        }
        const ws_u64 tb = total >> 32, te = total & 0xffffffffull;
        pb += tb;
        pe += te;
        pa += m - tb - te;
        ws_job_sync(g);   // the tile is read before the next one loads
    }
}

// The sum of `src[lo, hi)` as a word: the keys' sign-extended words summed modulo 2^64, so
// that 32-bit keys sum without wrapping.
template <class T> static __device__ ws_u64 ws_job_sum(const ws_job_group* g, const T* src, ws_u64 lo, ws_u64 hi) {
    ws_u64 s = 0;
    ws_job_each(g, src + lo, hi - lo, [&](ws_u64, T v) { s += ws_job_elem<T>::word(v); });
    ws_u64 total;
    ws_job_scan(g, s, &total);
    return total;
}

// `dst[at + k] = prefix + src[lo] + .. + src[lo + k - 1]` over `src[lo, hi)`, a tile at a
// time (in place when `dst + at` is `src + lo`: a tile is read before it is written). Returns
// the prefix after the range.
template <class T> static __device__ ws_u64 ws_job_prefix(const ws_job_group* g, const T* src, ws_u64 lo, ws_u64 hi, ws_u64 prefix, T* dst, ws_u64 at) {
    const ws_u64 cap = (ws_u64)g->tile_words * 8u / sizeof(T);
    T* t = (T*)g->tile;
    for (ws_u64 t0 = lo; t0 < hi; t0 += cap) {
        const ws_u64 m = hi - t0 < cap ? hi - t0 : cap;
        ws_job_each(g, src + t0, m, [&](ws_u64 k, T v) { t[k] = v; });
        ws_job_sync(g);
        ws_u64 s, e;
        ws_job_share(g, m, &s, &e);
        ws_u64 mine = 0;
        for (ws_u64 k = s; k < e; k++) mine += ws_job_elem<T>::word(t[k]);
        ws_u64 total;
        ws_u64 run = prefix + ws_job_scan(g, mine, &total);
        for (ws_u64 k = s; k < e; k++) {
            const ws_u64 v = ws_job_elem<T>::word(t[k]);
            dst[at + (t0 - lo) + k] = (T)run;
            run += v;
        }
        prefix += total;
        ws_job_sync(g);
    }
    return prefix;
}

// The least (`kind` WS_JOB_MIN) or greatest key of `src[lo, hi)`, as a word.
template <class T> static __device__ ws_u64 ws_job_extreme(const ws_job_group* g, const T* src, ws_u64 lo, ws_u64 hi, ws_u32 kind) {
    const bool least = kind == WS_JOB_MIN;
    T x = least ? ws_job_elem<T>::highest() : ws_job_elem<T>::lowest();
    ws_job_each(g, src + lo, hi - lo, [&](ws_u64, T v) { x = least ? (v < x ? v : x) : (v > x ? v : x); });
    if (least) x = ws_job_fold(g, x, [](T a, T b) { return a < b ? a : b; });
    else x = ws_job_fold(g, x, [](T a, T b) { return a > b ? a : b; });
    return ws_job_elem<T>::word(x);
}

// Two words combined by a reduction `kind`, as keys of type `T`.
template <class T> static __device__ __forceinline__ ws_u64 ws_job_combine(ws_u32 kind, ws_u64 x, ws_u64 y) {
    if (kind == WS_JOB_SUM) return x + y;
    const T a = (T)x, b = (T)y;
    return ws_job_elem<T>::word(kind == WS_JOB_MIN ? (a < b ? a : b) : (a > b ? a : b));
}

#endif
