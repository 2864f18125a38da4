// queue-bench kernels: the experiments of section 7 of the Broker Queue paper on the queue
// templates of wsdsl-runtime/cuda (atomics.cuh, deque.cuh, broker_queue.cuh are pasted in
// front of this file by the host).
//
// One kernel per variant; every thread runs `iters` iterations (7.1: a fixed number of
// enqueue-dequeue pairs; 7.2/7.3: 1..10 iterations, each an enqueue with probability p_enq
// and a dequeue with probability p_deq, `fma` FMAs after each successful dequeue). With
// per_warp = 1 only lane 0 of each warp touches the queue. Every kernel adds its successful
// enqueues/dequeues and the sums of the values moved to `ctr` (one atomic per warp at the
// end), and a drain kernel empties the queues afterwards, so the host can check in == out.

#define BQ_N (1u << 22)        // slots of the single BQ/BWD queue
#define BSQ_N 16384u           // slots of each BSQ queue (one per block): 4 blocks hold the 65536 pre-filled
#define Q_MAX_THREADS (1u << 21)
#define DQ_CAP 4096u           // slots of each warp's deque
#define FULL_MASK 0xffffffffu

typedef ws_broker_queue<unsigned, BQ_N, Q_MAX_THREADS> bq_t;
typedef ws_broker_queue<unsigned, BSQ_N, Q_MAX_THREADS> bsq_t;

enum { C_ENQ, C_DEQ, C_SUM_ENQ, C_SUM_DEQ, C_FULL, C_EMPTY, C_SINK, C_STEALS, C_COUNT };

static __device__ __forceinline__ unsigned hash32(unsigned x) {
    x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
    return x;
}
static __device__ __forceinline__ unsigned next_rand(unsigned* s) {
    unsigned x = *s; x ^= x << 13; x ^= x >> 17; x ^= x << 5; return *s = x;
}
// p in [0, 1] as a 2^24 fixed-point threshold.
static __device__ __forceinline__ bool chance(unsigned* s, unsigned p24) { return (next_rand(s) >> 8) < p24; }

// The simulated task: `n` dependent FMAs (section 7.2: 128; figure 4b: 320).
static __device__ __forceinline__ float work(unsigned v, unsigned n) {
    float a = (float)(v & 1023u) * 1e-3f;
    for (unsigned i = 0; i < n; i++) a = fmaf(a, 0.999f, 0.001f);
    return a;
}

static __device__ void flush(unsigned long long* ctr, unsigned long long* local) {
    for (int c = 0; c < C_COUNT; c++) {
        unsigned long long v = local[c];
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL_MASK, v, o);
        if ((threadIdx.x & 31u) == 0u && v != 0ull) atomicAdd(&ctr[c], v);
    }
}

enum { V_BQ = 0, V_BQ_WARP = 1, V_BWD = 2, V_BWD_WARP = 3, V_BSQ = 4, V_DEQUE = 5 };

struct bench_params {
    void* queue;               // bq_t*, or bsq_t[nq], or ws_deque[warps]
    unsigned* dq_slots;        // deque slots, DQ_CAP per warp
    unsigned long long* ctr;   // C_COUNT counters
    unsigned nq;               // BSQ: queues (= blocks); deque: warps
    unsigned mode;             // 0: alternating pairs (7.1), 1: random mix (7.2, 7.3)
    unsigned per_warp;         // 1: only lane 0 of each warp uses the queue
    unsigned pairs;            // mode 0: pairs per thread
    unsigned p_enq, p_deq;     // mode 1: probabilities, 2^24 fixed point
    unsigned min_iter, max_iter;
    unsigned fma;
    unsigned seed;
};

template <int V> static __device__ void bench(const bench_params P) {
    const unsigned lane = threadIdx.x & 31u;
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned warp = tid >> 5;
    unsigned rng = hash32(tid * 0x9E3779B9u ^ P.seed) | 1u;
    unsigned long long local[C_COUNT] = {0, 0, 0, 0, 0, 0, 0, 0};
    const bool active = !P.per_warp || lane == 0u;

    unsigned iters = P.mode == 0 ? P.pairs : P.min_iter + next_rand(&rng) % (P.max_iter - P.min_iter + 1u);
    if (!active) iters = 0;
    const unsigned warp_iters = __reduce_max_sync(FULL_MASK, iters);

    // Deque state: lane 0 keeps the owner's indices. Every push is exposed at once and every
    // pop reclaims from the public part: this measures the deque's shared protocol (the
    // megakernel's private fast path touches no shared word at all).
    ws_deque* dq = (ws_deque*)P.queue + warp;
    unsigned* my_slots = P.dq_slots + (unsigned long long)warp * DQ_CAP;
    ws_deque_owner own = {0u, 0u};
    if (V == V_DEQUE && lane == 0u) own.split = own.top = ws_load_relaxed_u32(&dq->split);   // pre-filled

    for (unsigned i = 0; i < warp_iters; i++) {
        bool do_enq = false, do_deq = false;
        if (i < iters) {
            if (P.mode == 0) { do_enq = true; do_deq = true; }
            else { do_enq = chance(&rng, P.p_enq); do_deq = chance(&rng, P.p_deq); }
        }
        const unsigned value = tid * 64u + i;   // unique: i < 64
        // ---- enqueue
        int r = WS_BQ_OK;
        bool enq_tried = do_enq;
        if (V == V_BQ) { if (do_enq) r = ws_bq_enqueue<true>((bq_t*)P.queue, value); }
        else if (V == V_BWD) { if (do_enq) r = ws_bq_enqueue<false>((bq_t*)P.queue, value); }
        else if (V == V_BQ_WARP || V == V_BWD_WARP) {
            unsigned m = __ballot_sync(FULL_MASK, do_enq);
            if (do_enq) r = V == V_BQ_WARP ? ws_bq_warp_enqueue<true>((bq_t*)P.queue, value, m)
                                           : ws_bq_warp_enqueue<false>((bq_t*)P.queue, value, m);
        } else if (V == V_BSQ) { if (do_enq) r = ws_bsq_enqueue((bsq_t*)P.queue, blockIdx.x, value); }
        else if (V == V_DEQUE) {
            // The warp pushes its lanes' elements as one batch (the megakernel's pattern).
            unsigned m = __ballot_sync(FULL_MASK, do_enq);
            unsigned cnt = __popc(m), rank = __popc(m & ((1u << lane) - 1u));
            unsigned t = __shfl_sync(FULL_MASK, own.top, 0);
            unsigned room = DQ_CAP - t;
            if (do_enq) {
                if (rank < room) { my_slots[t + rank] = value; __threadfence(); }
                else r = WS_BQ_FULL;
            }
            __syncwarp();
            if (lane == 0u && cnt > 0u) {
                const unsigned pushed = cnt < room ? cnt : room;
                own.top += pushed;
                ws_deque_expose(dq, &own, pushed);
            }
        }
        if (enq_tried) {
            if (r == WS_BQ_OK) { local[C_ENQ]++; local[C_SUM_ENQ] += value; }
            else local[C_FULL]++;
        }
        // ---- dequeue
        unsigned got_v = 0;
        r = WS_BQ_EMPTY;
        if (V == V_BQ) { if (do_deq) r = ws_bq_dequeue<true>((bq_t*)P.queue, &got_v); }
        else if (V == V_BWD) { if (do_deq) r = ws_bq_dequeue<false>((bq_t*)P.queue, &got_v); }
        else if (V == V_BQ_WARP || V == V_BWD_WARP) {
            unsigned m = __ballot_sync(FULL_MASK, do_deq);
            if (do_deq) r = V == V_BQ_WARP ? ws_bq_warp_dequeue<true>((bq_t*)P.queue, &got_v, m)
                                           : ws_bq_warp_dequeue<false>((bq_t*)P.queue, &got_v, m);
        } else if (V == V_BSQ) { if (do_deq) r = ws_bsq_dequeue((bsq_t*)P.queue, P.nq, blockIdx.x, &got_v); }
        else if (V == V_DEQUE) {
            unsigned m = __ballot_sync(FULL_MASK, do_deq);
            unsigned cnt = __popc(m), rank = __popc(m & ((1u << lane) - 1u));
            unsigned n = 0, first = 0, stolen = 0, have_stolen = 0;
            if (lane == 0u && cnt > 0u) {
                n = ws_deque_reclaim(dq, (wsdsl_task*)my_slots, &own, cnt, &first);
                if (own.top > own.split) {
                    // A contested reclaim moved what it did not return down to the private
                    // part (deque.cuh); here every element is public, so offer them again.
                    __threadfence();
                    ws_deque_expose(dq, &own, own.top - own.split);
                }
                if (n < cnt && P.nq > 1u) {
                    // Own deque ran dry: lane 0 tries to steal one task from random victims.
                    for (int attempt = 0; attempt < 4 && !have_stolen; attempt++) {
                        unsigned victim = next_rand(&rng) % (P.nq - 1u);
                        if (victim >= warp) victim++;
                        ws_deque* vd = (ws_deque*)P.queue + victim;
                        if ((int)ws_deque_public_count(vd) <= 0) continue;
                        unsigned task, from;
                        if (ws_deque_steal(vd, (const wsdsl_task*)(P.dq_slots + (unsigned long long)victim * DQ_CAP), 1u,
                                           (wsdsl_task*)&task, &from, false) == 1u) {
                            stolen = task; have_stolen = 1;
                        }
                    }
                }
            }
            n = __shfl_sync(FULL_MASK, n, 0);
            first = __shfl_sync(FULL_MASK, first, 0);
            stolen = __shfl_sync(FULL_MASK, stolen, 0);
            have_stolen = __shfl_sync(FULL_MASK, have_stolen, 0);
            if (do_deq) {
                if (rank < n) { got_v = my_slots[first + rank]; r = WS_BQ_OK; }
                else if (rank == n && have_stolen) { got_v = stolen; r = WS_BQ_OK; }
            }
            if (lane == 0u) local[C_STEALS] += have_stolen;
            __syncwarp();   // slots read before the next push may overwrite them
        }
        if (do_deq) {
            if (r == WS_BQ_OK) {
                local[C_DEQ]++; local[C_SUM_DEQ] += got_v;
                if (P.fma) local[C_SINK] += work(got_v, P.fma) > 1e30f ? 1u : 0u;
            } else local[C_EMPTY]++;
        }
    }
    flush(P.ctr, local);
}

extern "C" __global__ void __launch_bounds__(256) bench_bq(const bench_params P) { bench<V_BQ>(P); }
extern "C" __global__ void __launch_bounds__(256) bench_bq_warp(const bench_params P) { bench<V_BQ_WARP>(P); }
extern "C" __global__ void __launch_bounds__(256) bench_bwd(const bench_params P) { bench<V_BWD>(P); }
extern "C" __global__ void __launch_bounds__(256) bench_bwd_warp(const bench_params P) { bench<V_BWD_WARP>(P); }
extern "C" __global__ void __launch_bounds__(256) bench_bsq(const bench_params P) { bench<V_BSQ>(P); }
extern "C" __global__ void __launch_bounds__(256) bench_deque(const bench_params P) { bench<V_DEQUE>(P); }

// Pre-fill: `count` elements with values 0x80000000 + k, spread over the grid; BSQ puts each
// block's share in its own queue, the deque each warp's share in its own deque.
extern "C" __global__ void prefill(const bench_params P, unsigned variant, unsigned count) {
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned threads = gridDim.x * blockDim.x;
    unsigned long long local[C_COUNT] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (variant == V_DEQUE) {
        // Lane 0 of each warp fills its own deque with its warp's share.
        const unsigned warp = tid >> 5, warps = threads >> 5;
        if ((threadIdx.x & 31u) == 0u) {
            unsigned* slots = P.dq_slots + (unsigned long long)warp * DQ_CAP;
            unsigned n = 0;
            for (unsigned k = warp; k < count && n < DQ_CAP; k += warps) {
                slots[n++] = 0x80000000u + k;
                local[C_ENQ]++; local[C_SUM_ENQ] += 0x80000000u + k;
            }
            __threadfence();
            ws_deque_owner filled = {0u, n};
            ws_deque_expose((ws_deque*)P.queue + warp, &filled, n);
        }
    } else {
        for (unsigned k = tid; k < count; k += threads) {
            int r = variant == V_BSQ ? ws_bsq_enqueue((bsq_t*)P.queue, blockIdx.x, 0x80000000u + k)
                                     : ws_bq_enqueue<false>((bq_t*)P.queue, 0x80000000u + k);
            if (r == WS_BQ_OK) { local[C_ENQ]++; local[C_SUM_ENQ] += 0x80000000u + k; }
        }
    }
    flush(P.ctr, local);
}

// Drain everything left (the queues are quiescent, so the BWD's answer is exact), adding to
// the dequeue counters.
extern "C" __global__ void drain(const bench_params P, unsigned variant) {
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned threads = gridDim.x * blockDim.x;
    unsigned long long local[C_COUNT] = {0, 0, 0, 0, 0, 0, 0, 0};
    unsigned v;
    if (variant == V_DEQUE) {
        for (unsigned w = tid; w < P.nq; w += threads) {
            ws_deque* d = (ws_deque*)P.queue + w;
            ws_deque_owner o;
            o.split = o.top = ws_load_relaxed_u32(&d->split);
            unsigned first, n;
            // The private part first: a contested reclaim may move elements down into it.
            while ((n = ws_deque_pop_private(&o, 32u, &first)) > 0u ||
                   (n = ws_deque_reclaim(d, (wsdsl_task*)(P.dq_slots + (unsigned long long)w * DQ_CAP), &o, 32u, &first)) > 0u)
                for (unsigned i = 0; i < n; i++) { unsigned x = P.dq_slots[(unsigned long long)w * DQ_CAP + first + i]; local[C_DEQ]++; local[C_SUM_DEQ] += x; }
        }
    } else if (variant == V_BSQ) {
        for (unsigned q = tid; q < P.nq; q += threads)
            while (ws_bq_dequeue<false>((bsq_t*)P.queue + q, &v) == WS_BQ_OK) { local[C_DEQ]++; local[C_SUM_DEQ] += v; }
    } else {
        while (ws_bq_dequeue<false>((bq_t*)P.queue, &v) == WS_BQ_OK) { local[C_DEQ]++; local[C_SUM_DEQ] += v; }
    }
    flush(P.ctr, local);
}

// The hardware's ceiling for a same-address atomic: every thread adds 1 to one word `reps`
// times (ctr[0]); and the same with one atomic per warp adding 32 (ctr[1]).
extern "C" __global__ void __launch_bounds__(256) atomic_probe(unsigned long long* ctr, unsigned reps, unsigned per_warp) {
    unsigned* word = (unsigned*)(ctr + 2);
    unsigned acc = 0;
    for (unsigned i = 0; i < reps; i++) {
        if (!per_warp) acc += ws_add_acq_rel_u32(word, 1u);
        else if ((threadIdx.x & 31u) == 0u) acc += ws_add_acq_rel_u32(word, 32u);
        __syncwarp();
    }
    if (acc == 0xFFFFFFFFu) ctr[3] = acc;   // keep the result alive
}
