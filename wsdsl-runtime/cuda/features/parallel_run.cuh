// features/parallel_run.cuh — how a job record runs (features/parallel.cuh has the building
// blocks it runs and the contracts): a job's end (its results for the complete handler, its
// count for a split parent), splitting a long range into pieces, running a record by its
// element type, the worker's list of jobs after a batch, the handler's call that records a
// job, and a split job's continuation.
#pragma once

#if WSDSL_JOBS

// ---- a job's end ----

// Result words of the job `j` (recorded by the task whose frame `rec->join_frame` is) for
// its complete handler.
static __device__ void ws_job_give(const wsdsl_task* rec, ws_u64 w0, ws_u64 w1) {
#if WSDSL_JOB_RESULTS
    const ws_job& j = rec->u.job;
    if (j.slot == WS_JOB_NO_RESULT || rec->join_frame >= WS_JOIN_NONE) return;
    ws_frame* f = ws_frame_at(rec->join_frame);
    if (WS_JOB_KIND(j.op) == WS_JOB_PARTITION) {
        f->results[j.slot] = w0;
        f->results[j.slot + 1u] = w1;
    } else {
        // Sums (a reduction's, a scan's total) are of the keys' sign-extended words modulo
        // 2^64, kept whole: 32-bit keys sum as 64-bit integers, as `Iterator::sum` into the
        // wider type would. Least and greatest keys are already their own words.
        f->results[j.slot] = w0;
    }
#else
    (void)rec; (void)w0; (void)w1;
#endif
}

// A piece's counts (or sum, or partial result) into its split parent's frame.
static __device__ void ws_job_report(const wsdsl_task* rec, ws_u64 w0, ws_u64 w1, ws_u64 w2) {
#if WSDSL_JOB_SCRATCH
    if (rec->join_frame >= WS_JOIN_NONE) return;
    ws_u64* s = &ws_frame_at(rec->join_frame)->job_scratch[3u * rec->u.job.slot];
    s[0] = w0;
    s[1] = w1;
    s[2] = w2;
#else
    (void)rec; (void)w0; (void)w1; (void)w2;
#endif
}

// The job `rec`, run by group `g`, is done: its threads' writes are made visible, and the
// first thread (with the context `ctx`, whose handler has returned) hands it to whoever waits.
static __device__ void ws_job_done(wsdsl_ctx* ctx, const ws_job_group* g, const wsdsl_task* rec) {
    __threadfence();
    ws_job_sync(g);
    if (g->rank != 0u) return;
    ws_join_begin(ctx, rec);
    ws_join_end(ctx, rec, wsdsl_value());
}

// ---- splitting ----

// Child `i` of the split job `rec` of `n` keys cut into `k` children of at most about a
// piece each (`src`: a merge's keys, whose merge path it searches along its diagonals).
template <class T> static __device__ wsdsl_task ws_job_child(const wsdsl_task* rec, const T* src, ws_u64 n, ws_u32 k, ws_u32 i, ws_u64 piece) {
    const ws_job j = rec->u.job;
    const ws_u32 kind = WS_JOB_KIND(j.op);
    wsdsl_task c = *rec;
    c.u.job.slot = i;
    if (kind == WS_JOB_MERGE) {
        const ws_u64 na = j.a1 - j.a0, nb = j.b1 - j.b0;
        const ws_u64 d0 = (n / k) * i + (i < n % k ? i : n % k);
        const ws_u64 d1 = d0 + n / k + (i < n % k ? 1u : 0u);
        const ws_u64 x0 = i == 0u ? 0u : ws_job_path(src + j.a0, na, src + j.b0, nb, d0);
        const ws_u64 x1 = i + 1u == k ? na : ws_job_path(src + j.a0, na, src + j.b0, nb, d1);
        c.u.job.slot = WS_JOB_NO_RESULT;   // a merge of two sub-runs, as a handler records one
        c.u.job.a0 = j.a0 + x0;
        c.u.job.a1 = j.a0 + x1;
        c.u.job.b0 = j.b0 + (d0 - x0);
        c.u.job.b1 = j.b0 + (d1 - x1);
        c.u.job.c0 = j.c0 + d0;
        return c;
    }
    ws_u64 s, e;
    ws_job_part(j.a0, j.a1, k, i, &s, &e);
    c.u.job.a0 = s;
    c.u.job.a1 = e;
    c.u.job.c0 = j.c0 + (s - j.a0);   // its output's start (a copy's, a scan's)
    if (kind == WS_JOB_COPY) c.u.job.slot = WS_JOB_NO_RESULT;
    else c.u.job.op = WS_JOB_AS(j.op, e - s > piece ? WS_JOB_INNER : WS_JOB_COUNT);
    return c;
}

// Splits the job `rec` of `n` keys into up to WS_JOB_FANOUT children of at most about a piece
// each (`ws_job_child`): the group's threads make them side by side (a merge's searches are
// the work), the first links them to a new frame, spawns them and waits for them.
template <class T> static __device__ void ws_job_split(wsdsl_ctx* ctx, const ws_job_group* g, const wsdsl_task* rec, ws_u64 n, ws_u64 piece) {
    const ws_u64 want = (n + piece - 1u) / piece;
    const ws_u32 k = (ws_u32)(want < WS_JOB_FANOUT ? want : WS_JOB_FANOUT);
    const T* src = ws_job_buffer<T>(ctx, WS_JOB_SRC(rec->u.job.op));
    if (g->size == 1u) {
        ws_join_begin(ctx, rec);
        for (ws_u32 i = 0; i < k; i++) {
            wsdsl_task c = ws_job_child<T>(rec, src, n, k, i, piece);
            ws_join_link_child(ctx, &c);
            ws_spawn_record(ctx, &c);
        }
        ws_join_end(ctx, rec, wsdsl_value());
        return;
    }
    static_assert(!WS_JOB_COOPERATIVE || WS_JOB_FANOUT * sizeof(wsdsl_task) <= WS_JOB_TILE_BYTES, "wsdsl: a split job's children fit the tile");
    wsdsl_task* children = (wsdsl_task*)g->tile;
    for (ws_u32 i = g->rank; i < k; i += g->size) children[i] = ws_job_child<T>(rec, src, n, k, i, piece);
    ws_job_sync(g);
    if (g->rank == 0u) {
        ws_join_begin(ctx, rec);
        for (ws_u32 i = 0; i < k; i++) {
            wsdsl_task c = children[i];
            ws_join_link_child(ctx, &c);
            ws_spawn_record(ctx, &c);
        }
        ws_join_end(ctx, rec, wsdsl_value());
    }
    ws_job_sync(g);   // the tile is read before the next job uses it
}

// ---- running a job record ----

// Runs the job record `rec` with group `g` (`ctx`: the first thread's context, free now).
template <class T> static __device__ void ws_job_run_t(wsdsl_ctx* ctx, const ws_job_group* g, const wsdsl_task* rec) {
    const ws_job j = rec->u.job;
    const ws_u32 kind = WS_JOB_KIND(j.op), role = WS_JOB_ROLE(j.op);
    const ws_u64 n = (j.a1 - j.a0) + (kind == WS_JOB_MERGE ? j.b1 - j.b0 : 0ull);
    const ws_u64 piece = WS_JOB_PIECE_BYTES / sizeof(T);
    if ((role == WS_JOB_ROOT || role == WS_JOB_INNER) && kind != WS_JOB_SORT && n > piece) {
        ws_job_split<T>(ctx, g, rec, n, piece);
        return;
    }
    const T* src = ws_job_buffer<T>(ctx, WS_JOB_SRC(j.op));
    T* dst = WS_JOB_DST(j.op) == 0xffu ? (T*)0 : ws_job_buffer<T>(ctx, WS_JOB_DST(j.op));
    ws_u64 w0 = 0, w1 = 0;
    switch (kind) {
    case WS_JOB_COPY: ws_job_copy(g, src, j.a0, j.a1, dst, j.c0); break;
    case WS_JOB_MERGE: ws_job_merge(g, src, j.a0, j.a1, j.b0, j.b1, dst, j.c0); break;
    case WS_JOB_SORT: ws_job_sort(g, src, j.a0, j.a1, dst, j.c0); break;
    case WS_JOB_PARTITION: {
        const T pivot = (T)j.b0;
        if (role == WS_JOB_APPLY) {
            ws_job_scatter(g, src, j.a0, j.a1, pivot, dst, j.c0, j.c1, j.b1);
            break;
        }
        ws_job_count(g, src, j.a0, j.a1, pivot, &w0, &w1);
        if (role == WS_JOB_ROOT) ws_job_scatter(g, src, j.a0, j.a1, pivot, dst, j.c0, j.c0 + w0, j.c0 + w0 + w1);
        break;
    }
    case WS_JOB_SCAN:
        if (role == WS_JOB_COUNT) w0 = ws_job_sum(g, src, j.a0, j.a1);
        else w0 = ws_job_prefix(g, src, j.a0, j.a1, j.b0, dst, j.c0);   // a root's total
        break;
    default:   // the reductions
        w0 = kind == WS_JOB_SUM ? ws_job_sum(g, src, j.a0, j.a1) : ws_job_extreme(g, src, j.a0, j.a1, kind);
        break;
    }
    if (g->rank == 0u) {
        if (role == WS_JOB_ROOT) ws_job_give(rec, w0, w1);
        else if (role == WS_JOB_COUNT) ws_job_report(rec, w0, w1, 0u);
    }
    ws_job_done(ctx, g, rec);
}

static __device__ void ws_job_run(wsdsl_ctx* ctx, const ws_job_group* g, const wsdsl_task* rec) {
    switch (WS_JOB_ELEM(rec->u.job.op)) {
#ifdef WSDSL_JOB_ELEM_U32
    case 0u: ws_job_run_t<ws_u32>(ctx, g, rec); break;
#endif
#ifdef WSDSL_JOB_ELEM_I32
    case 1u: ws_job_run_t<ws_i32>(ctx, g, rec); break;
#endif
#ifdef WSDSL_JOB_ELEM_U64
    case 2u: ws_job_run_t<ws_u64>(ctx, g, rec); break;
#endif
#ifdef WSDSL_JOB_ELEM_I64
    case 3u: ws_job_run_t<ws_i64>(ctx, g, rec); break;
#endif
    default: break;
    }
}

// A job record on a thread that runs it alone (schedulers without a cooperative worker).
static __device__ void ws_job_run_alone(wsdsl_ctx* ctx, const wsdsl_task* rec) {
    ws_u64 tile[WS_JOB_LOCAL_WORDS];
    ws_u64 scan[1];
    const ws_job_group g = {0u, 1u, tile, WS_JOB_LOCAL_WORDS, scan};
    const wsdsl_task copy = *rec;   // (`rec` may be a slot a child overwrites)
    ws_job_run(ctx, &g, &copy);
}

// ---- the worker's list (cooperative workers) ----

// Queues job record `rec` to run right after this batch, or (the list full, or no list) in
// the deque like any child, where thieves see it.
static __device__ void ws_job_enqueue(wsdsl_ctx* ctx, const wsdsl_task* rec) {
    if (ctx->jobs != 0) {
        const unsigned at = atomicAdd((unsigned*)ctx->jobs, 1u);
        if (at < WS_JOB_BUDGET) {
            ((wsdsl_task*)(ctx->jobs + 1))[at] = *rec;
            return;
        }
    }
    ws_spawn_record(ctx, rec);
}

// A job record a thread of a batch took (features/join.cuh, `ws_run_task`).
static __device__ void ws_job_take(wsdsl_ctx* ctx, const wsdsl_task* rec) {
    if (ctx->jobs != 0) ws_job_enqueue(ctx, rec);
    else ws_job_run_alone(ctx, rec);
}

// After a batch, every thread of a cooperative worker (`mem`: its shared words, `rank`): runs
// the jobs its threads queued, together. The leader has topped up the frame stash (a split
// job takes a frame).
static __device__ void ws_jobs_after_batch(wsdsl_ctx* ctx, ws_u64* mem, unsigned rank) {
    const unsigned queued = *(volatile unsigned*)mem;
    const unsigned n = queued < WS_JOB_BUDGET ? queued : WS_JOB_BUDGET;
    const ws_job_group g = {rank, WSDSL_WORKER_THREADS, mem + 1u + WS_JOB_BUDGET * WS_JOB_TASK_WORDS, WS_JOB_TILE_BYTES / 8u,
                            mem + 1u + WS_JOB_BUDGET * WS_JOB_TASK_WORDS + WS_JOB_TILE_BYTES / 8u};
    const wsdsl_task* list = (const wsdsl_task*)(mem + 1u);
    // A job that ends may continue the task that waited for it: that continuation goes to the
    // deque, since the resume stack has room for one per thread of the batch only.
    ws_u32* resumes = ctx->resumes;
    ctx->resumes = 0;
    for (unsigned e = 0; e < n; e++) ws_job_run(ctx, &g, &list[e]);
    ctx->resumes = resumes;
    ws_job_sync(&g);
    if (rank == 0u) *(unsigned*)mem = 0u;
}

// Whether this worker's threads queued jobs in this batch (read after its barrier).
static __device__ __forceinline__ bool ws_jobs_queued(const ws_u64* mem) {
    return *(const volatile unsigned*)mem != 0u;
}

// ---- a handler's call ----

// `&s[start..end]`'s checks on `len` keys, with Rust's messages at `site` and `site + 1`.
static __device__ __forceinline__ bool ws_job_range(ws_u64 start, ws_u64 end, ws_u64 len, ws_u32 site) {
    if (start > end) { wsdsl_fault(site, start, end); return false; }
    if (end > len) { wsdsl_fault(site + 1u, end, len); return false; }
    return true;
}

// `ctx.<job>(..)` (lower/jobs.rs): checks the call as every backend does, in this order, at
// the call's sites (check/jobs.rs): the ranges `a`, `b` (a merge's right run, else empty) and
// the destination as Rust's slicing; a destination overlapping the source range(s) in the
// same buffer (but a sort or scan may write its source range itself); a sort of more than
// WS_JOB_SORT_MAX keys; more than WS_JOB_RESULT_WORDS result words in this run of the
// handler. Then records the job as a child of the running task and queues it.
static __device__ void ws_job_record(wsdsl_ctx* ctx, ws_u32 op, ws_u64 a0, ws_u64 a1, ws_u64 b0, ws_u64 b1, ws_u64 at, ws_u64 arg,
                                     ws_u64 src_len, ws_u64 dst_len, ws_u32 site) {
    const ws_u32 kind = WS_JOB_KIND(op);
    if (!ws_job_range(a0, a1, src_len, site) || !ws_job_range(b0, b1, src_len, site + 2u)) return;
    const ws_u64 n = (a1 - a0) + (b1 - b0), end = at + n;
    if (WS_JOB_DST(op) != 0xffu) {
        if (!ws_job_range(at, end, dst_len, site + 4u)) return;
        const bool in_place = (kind == WS_JOB_SORT || kind == WS_JOB_SCAN) && at == a0 && end == a1;
        const bool over_a = a0 < a1 && at < a1 && a0 < end, over_b = b0 < b1 && at < b1 && b0 < end;
        if (WS_JOB_DST(op) == WS_JOB_SRC(op) && !in_place && (over_a || over_b)) { wsdsl_fault(site + 6u, at, end); return; }
    }
    if (kind == WS_JOB_SORT && n > WS_JOB_SORT_MAX) { wsdsl_fault(site + 7u, n); return; }
    const ws_u32 words = ws_job_result_words(kind);
    if (ctx->job_words + words > WS_JOB_RESULT_WORDS) { wsdsl_fault(site + 8u); return; }
    wsdsl_task rec;
    rec.tag = WS_TAG_JOB;
    ws_job* j = &rec.u.job;
    j->op = op;
    j->slot = words > 0u ? ctx->job_words : WS_JOB_NO_RESULT;
    ctx->job_words += words;
    j->a0 = a0;
    j->a1 = a1;
    // A merge's right run, else the pivot or the initial value (b1: a piece's base).
    j->b0 = kind == WS_JOB_MERGE ? b0 : arg;
    j->b1 = kind == WS_JOB_MERGE ? b1 : 0ull;
    j->c0 = at;
    j->c1 = 0ull;
    ws_join_link_job(ctx, &rec);
    ws_job_enqueue(ctx, &rec);
}

// `ctx.result(k)`: result word `k` of the jobs the round before started (0 where they gave
// fewer, and in a spawn handler).
static __device__ __forceinline__ ws_u64 wsdsl_ctx_result(wsdsl_ctx* ctx, ws_usize k, ws_u32 site) {
    if (k >= WS_JOB_RESULT_WORDS) { wsdsl_fault(site, WS_JOB_RESULT_WORDS, k); return 0ull; }
#if WSDSL_JOB_RESULTS
    return ctx->round == 0u ? 0ull : ctx->results[k];
#else
    (void)ctx;
    return 0ull;
#endif
}

// ---- a split job's continuation ----

// Resumes child frame `id` of a split partition or scan, its base now written in its task:
// it counts as a child of the running continuation, which waits for it again. Its
// continuation goes to the deque (where thieves see it), not to the worker's resume stack,
// which has room for one continuation per thread of a batch.
static __device__ void ws_job_resume_child(wsdsl_ctx* ctx, ws_u32 id) {
    if (ws_join_count_child(ctx, 0u) >= WS_JOIN_NONE) return;
    ws_u32* resumes = ctx->resumes;
    ctx->resumes = 0;
    ws_join_deliver(ctx, id, WS_JOIN_NO_SLOT, wsdsl_value());
    ctx->resumes = resumes;
}

// The continuation of the split job of frame `id` (its task `task`, `ctx->round` its run):
// a merge or copy is done; a reduction combines its children's results; a partition or scan
// counted, so it hands each child its base (a split child parks until its parent does so),
// and when they have written it is done.
static __device__ void ws_job_resume(wsdsl_ctx* ctx, ws_u32 id, const wsdsl_task* task) {
#if WSDSL_JOB_SCRATCH
    const ws_job j = task->u.job;
    const ws_u32 kind = WS_JOB_KIND(j.op), role = WS_JOB_ROLE(j.op), elem = WS_JOB_ELEM(j.op);
    if (kind == WS_JOB_MERGE || kind == WS_JOB_COPY) {
        ws_join_end(ctx, task, wsdsl_value());
        return;
    }
    ws_frame* f = ws_frame_at(id);
    const ws_u64 bytes = elem >= 2u ? 8u : 4u, piece = WS_JOB_PIECE_BYTES / bytes, n = j.a1 - j.a0;
    const ws_u64 want = (n + piece - 1u) / piece;
    const ws_u32 k = (ws_u32)(want < WS_JOB_FANOUT ? want : WS_JOB_FANOUT);
    // What child `i` reported (strong loads: the children wrote from other SMs).
    auto word = [f](ws_u32 i, ws_u32 w) { return ws_gpu_load_relaxed_u64((ws_atom_u64*)&f->job_scratch[3u * i + w]); };
    ws_u64 t0 = 0, t1 = 0;
    if (kind >= WS_JOB_SUM) {
        ws_u64 v = word(0u, 0u);
        for (ws_u32 i = 1; i < k; i++) {
            const ws_u64 x = word(i, 0u);
            switch (elem) {
            case 0u: v = ws_job_combine<ws_u32>(kind, v, x); break;
            case 1u: v = ws_job_combine<ws_i32>(kind, v, x); break;
            case 2u: v = ws_job_combine<ws_u64>(kind, v, x); break;
            default: v = ws_job_combine<ws_i64>(kind, v, x); break;
            }
        }
        if (role == WS_JOB_ROOT) ws_job_give(task, v, 0u);
        else ws_job_report(task, v, 0u, 0u);
        ws_join_end(ctx, task, wsdsl_value());
        return;
    }
    for (ws_u32 i = 0; i < k; i++) {
        t0 += word(i, 0u);
        t1 += word(i, 1u);
    }
    const ws_u32 round = ctx->round;
    const bool writes = (role == WS_JOB_ROOT && round == 1u) || (role == WS_JOB_INNER && round == 2u);
    if (role == WS_JOB_INNER && round == 1u) {
        // Counted: report the total and this frame to the parent, and park until it hands
        // this job its base (its continuation delivers to this frame).
        ws_gpu_store_relaxed_u32(&f->pending, 1u);
        ws_gpu_store_relaxed_u32(&f->round, 2u);
        ws_job_report(task, t0, t1, id);
        ws_join_deliver(ctx, task->join_frame, WS_JOIN_NO_SLOT, wsdsl_value());
        return;
    }
    if (!writes) {   // the children have written: done
        if (role == WS_JOB_ROOT) ws_job_give(task, kind == WS_JOB_SCAN ? j.b0 + t0 : t0, t1);
        ws_join_end(ctx, task, wsdsl_value());
        return;
    }
    // Each child's base: a partition's three parts start at c0 (below), c1 (equal) and b1
    // (above); a scan's prefix is b0. A root computes its own from its totals.
    ws_u64 pb = j.c0, pe = j.c1, pa = j.b1, prefix = j.b0;
    if (role == WS_JOB_ROOT && kind == WS_JOB_PARTITION) {
        pe = j.c0 + t0;
        pa = j.c0 + t0 + t1;
    }
    for (ws_u32 i = 0; i < k; i++) {
        ws_u64 s, e;
        ws_job_part(j.a0, j.a1, k, i, &s, &e);
        const ws_u64 below = word(i, 0u), equal = word(i, 1u);
        if (e - s > piece) {
            const ws_u32 child = (ws_u32)word(i, 2u);
            ws_job* cj = &ws_frame_at(child)->task.u.job;
            if (kind == WS_JOB_PARTITION) {
                cj->c0 = pb;
                cj->c1 = pe;
                cj->b1 = pa;
            } else {
                cj->b0 = prefix;
            }
            ws_job_resume_child(ctx, child);
        } else {
            wsdsl_task c = *task;
            c.u.job.op = WS_JOB_AS(j.op, WS_JOB_APPLY);
            c.u.job.slot = i;
            c.u.job.a0 = s;
            c.u.job.a1 = e;
            if (kind == WS_JOB_PARTITION) {
                c.u.job.c0 = pb;
                c.u.job.c1 = pe;
                c.u.job.b1 = pa;
            } else {
                c.u.job.b0 = prefix;
                c.u.job.c0 = j.c0 + (s - j.a0);
            }
            ws_join_link_child(ctx, &c);
            ws_job_enqueue(ctx, &c);
        }
        if (kind == WS_JOB_PARTITION) {
            pb += below;
            pe += equal;
            pa += (e - s) - below - equal;
        } else {
            prefix += below;   // (a scan's piece reported its sum there)
        }
    }
    ws_join_end(ctx, task, wsdsl_value());
#else
    // Without partitions, scans and reductions a split job is a merge or a copy: done.
    (void)id;
    ws_join_end(ctx, task, wsdsl_value());
#endif
}

#endif
