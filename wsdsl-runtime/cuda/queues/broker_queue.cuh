// queues/broker_queue.cuh — the Broker Queue (BQ), the Broker Work Distributor (BWD) and the Broker
// Stealing Queue (BSQ) of Kerbl, Kenzel, Mueller, Schmalstieg and Steinberger, "The Broker
// Queue: A Fast, Linearizable FIFO Queue for Fine-Granular Work Distribution on the GPU",
// ICS 2018 (../shared/papers/004_*): Algorithm 1 (BQ), section 6.1 (BWD), section 6.2 (BSQ).
//
// Needs core/atomics.cuh (or, on the host, cuda/host/ws_host_shim.h) included first. No libc.
//
// Layout (Algorithm 1, lines 1-4), one `ws_broker_queue<T, N, MaxThreads>` in global memory:
//   * `ring[N]`      elements stored directly (N = 2^n);
//   * `tickets[N]`   one ticket per slot: 2*(Pos/N) lets the writer of position Pos in,
//                    2*(Pos/N)+1 lets its reader in (section 4.2);
//   * `head_tail`    Head (low 32 bits) and Tail (high 32 bits) in one 64-bit word, so one
//                    64-bit load reads both at once (section 4.3). Each half is moved
//                    by a 32-bit fetch-and-add on its own address, so each wraps at 2^32
//                    without carrying into the other;
//   * `count`        the broker: a signed count of granted enqueues minus granted dequeues.
// All-zero memory is a valid empty queue (Head = Tail = 0, every ticket 0).
//
// Invariants:
//   * Only a thread the broker granted (`Count` moved without overshooting [0, N]) moves
//     Head or Tail, so every Tail position is eventually written and every Head position is
//     eventually read: putData/readData may block on their ticket (lines 20-25, 40-46).
//   * The operations on one slot are totally ordered by its ticket: enqueue of Pos waits for
//     2*(Pos/N), publishes 2*(Pos/N)+1; dequeue of Pos waits for 2*(Pos/N)+1, publishes
//     2*((Pos+N)/N) (all in u32 arithmetic, consistent across the 2^32 wrap of Pos). Tickets
//     stay unique while fewer than 2^32/N threads work on the queue at once (section 5.1).
//   * Full is returned only when the packed pair shows N <= Tail-Head < N + MaxThreads/2,
//     Empty only when N + MaxThreads/2 <= Tail-Head-1 (u32): Head may overtake Tail or run
//     N ahead of it by up to MaxThreads/2 (section 5.2). Requires N + MaxThreads/2 < 2^32.
//
// Memory ordering (the paper states none; its published code reads the slot after seeing
// the ticket without an acquire, which lets the read be served from a stale L1 line or be
// reordered before the ticket load). Here:
//   * a waiter loads the ticket with ld.acquire, so the element written by the previous
//     owner of the slot (and that owner's read of it) happens-before its own access;
//   * the slot is written and read as 32-bit words with GPU-scope relaxed (strong) accesses,
//     never plain ones, then handed on with a st.release of the next ticket;
//   * Count, Head and Tail are moved by relaxed fetch-and-add and read by relaxed loads.
//     They hand out permissions and positions, never data: whoever gets a position waits
//     on its ticket, and the tickets alone carry the elements' ordering. An acquire there
//     would cost an invalidation of the SM's whole L1 per poll (CCTL.IVALL on sm_70+): idle
//     workers polling an empty queue would wipe the L1 of the busy warps beside them (a
//     pulled PageRank would lose its in-edge streams' lines).
//
// Variants:
//   * BQ  (`Lin = true`):  when the broker refuses, read Head/Tail and return Full/Empty only
//                          if the pair shows it; otherwise ask the broker again (lines 6-9,
//                          27-30), with exponential back-off. Linearizable.
//   * BWD (`Lin = false`): the broker's first refusal is the answer (section 6.1). Not
//                          linearizable; never waits on Full/Empty.
//   * BSQ: one BQ per block; a dequeue that finds its own queue empty dequeues from the other
//     queues in turn until one yields or all were tried (section 6.2).
//
// Multi-element operations (section 4.3: "dequeue multiple elements at once"): the
// `*_reserve` functions ask the broker for up to k operations at once (one Count atomic),
// take the granted g positions with one Head/Tail atomic, and return the first position;
// positions pos, pos+1, ..., pos+g-1 are then filled/emptied by `ws_bq_put_slot` /
// `ws_bq_take_slot`, typically one per lane of a warp. A grant of g is g single operations
// linearized back to back. A partial grant (0 < g < k) is not a Full/Empty answer for the
// remaining k-g: the caller simply did not get them.
#pragma once

#ifndef WS_BQ_BACKOFF_MIN_NS
#define WS_BQ_BACKOFF_MIN_NS 16u
#endif
#ifndef WS_BQ_BACKOFF_MAX_NS
#define WS_BQ_BACKOFF_MAX_NS 1024u
#endif

enum { WS_BQ_OK = 0, WS_BQ_FULL = 1, WS_BQ_EMPTY = 2 };

template <typename T, unsigned N, unsigned MaxThreads>
struct alignas(128) ws_broker_queue {
    static_assert(N >= 2u && (N & (N - 1u)) == 0u, "broker queue capacity must be a power of two >= 2");
    static_assert(sizeof(T) % 4u == 0u, "broker queue elements are copied as 32-bit words");
    static_assert((unsigned long long)N + MaxThreads / 2u < 0x100000000ull, "N + MaxThreads/2 must stay below 2^32");
    static constexpr unsigned capacity = N;
    static constexpr unsigned max_threads = MaxThreads;
    // Bytes from the start that an empty queue needs zeroed: the words (256 bytes, above) and
    // the tickets; the ring follows at once (an element's alignment, at most 8, divides
    // 256 + 4N). The ring is read only at a position whose ticket says it was written, so it
    // may hold anything, and a launch leaves it as it was (gpu/device/workspace.rs, `zeroed_rows`).
    // The host builds check the offset (schedulers/bands.cuh, schedulers/broker.cuh).
    static constexpr unsigned long long clear_bytes = 256ull + 4ull * N;
    typedef T element;

    ws_atom_u64 head_tail;          // Head (low 32) | Tail (high 32)
    ws_atom_u32 pad0[30];           // Count on its own 128-byte line
    ws_atom_u32 count;              // int, two's complement
    ws_atom_u32 pad1[31];
    ws_atom_u32 tickets[N];
    T ring[N];
};

// Byte copy between an element and its 32-bit words (char access may alias anything; the
// compiler turns it into register moves). NVRTC has no memcpy without headers.
static __device__ __forceinline__ void ws_bq_copy_bytes(void* dst, const void* src, unsigned n) {
    unsigned char* d = (unsigned char*)dst;
    const unsigned char* s = (const unsigned char*)src;
    for (unsigned i = 0; i < n; i++) d[i] = s[i];
}

// Exponential back-off between unsuccessful polls.
static __device__ __forceinline__ void ws_bq_backoff(unsigned* ns) {
    __nanosleep(*ns);
    *ns = *ns >= WS_BQ_BACKOFF_MAX_NS / 2u ? WS_BQ_BACKOFF_MAX_NS : *ns * 2u;
}

template <class Q> static __device__ __forceinline__ ws_atom_u32* ws_bq_head_ptr(Q* q) {
    return (ws_atom_u32*)&q->head_tail;          // little-endian: low half
}
template <class Q> static __device__ __forceinline__ ws_atom_u32* ws_bq_tail_ptr(Q* q) {
    return (ws_atom_u32*)&q->head_tail + 1;      // high half
}

// Puts an empty queue whose first position is `start` (tests use a start just below 2^32 to
// force the wrap-around of Head, Tail and the tickets). Not concurrent with any operation.
template <class Q> static __device__ void ws_bq_init(Q* q, unsigned start) {
    const unsigned n = Q::capacity;
    for (unsigned p = 0; p < n; p++) {
        unsigned pos = start + ((p - start) & (n - 1u));   // first position >= start on slot p
        ws_store_release_u32(&q->tickets[p], 2u * (pos / n));
    }
    ws_store_release_u32(&q->count, 0u);
    ws_store_release_u64(&q->head_tail, ((ws_atom_u64)start << 32) | start);
}

// The broker, enqueue side (lines 12-19), for up to k operations: returns how many it
// granted (0 = refused). With k = 1 it is exactly Algorithm 1's ensureEnqueue.
template <class Q> static __device__ unsigned ws_bq_ensure_enqueue(Q* q, unsigned k) {
    const int n = (int)Q::capacity;
    int num = (int)ws_load_relaxed_u32(&q->count);                      // line 13
    for (;;) {
        if (num >= n) return 0u;                                        // line 15
        unsigned want = (unsigned)(n - num) < k ? (unsigned)(n - num) : k;
        int old = (int)ws_add_relaxed_u32(&q->count, want);             // line 17
        int room = n - old;
        unsigned got = room <= 0 ? 0u : ((unsigned)room < want ? (unsigned)room : want);
        if (got == want) return got;
        unsigned back = want - got;                                     // line 19: roll back
        num = (int)ws_add_relaxed_u32(&q->count, 0u - back) - (int)back;
        if (got > 0u) return got;
    }
}

// The broker, dequeue side (lines 32-39), for up to k operations.
template <class Q> static __device__ unsigned ws_bq_ensure_dequeue(Q* q, unsigned k) {
    int num = (int)ws_load_relaxed_u32(&q->count);                      // line 33
    for (;;) {
        if (num <= 0) return 0u;                                        // line 35
        unsigned want = (unsigned)num < k ? (unsigned)num : k;
        int old = (int)ws_add_relaxed_u32(&q->count, 0u - want);        // line 37
        unsigned got = old <= 0 ? 0u : ((unsigned)old < want ? (unsigned)old : want);
        if (got == want) return got;
        unsigned back = want - got;                                     // line 39: roll back
        num = (int)ws_add_relaxed_u32(&q->count, back) + (int)back;
        if (got > 0u) return got;
    }
}

// Enqueue side of up to k elements: on return g > 0, positions [*pos, *pos + g) are this
// caller's to fill with ws_bq_put_slot. Returns 0 for Full (BQ: observed on Head/Tail; BWD:
// the broker's word).
template <bool Lin, class Q> static __device__ unsigned ws_bq_enqueue_reserve(Q* q, unsigned k, unsigned* pos) {
    unsigned ns = WS_BQ_BACKOFF_MIN_NS;
    for (;;) {
        unsigned got = ws_bq_ensure_enqueue(q, k);                      // line 6
        if (got > 0u) {
            *pos = ws_add_relaxed_u32(ws_bq_tail_ptr(q), got);          // line 21
            return got;
        }
        if (!Lin) return 0u;                                            // BWD (section 6.1)
        ws_atom_u64 ht = ws_load_relaxed_u64(&q->head_tail);            // line 7
        unsigned dist = (unsigned)(ht >> 32) - (unsigned)ht;
        if (dist >= Q::capacity && dist < Q::capacity + Q::max_threads / 2u) return 0u;   // line 8
        ws_bq_backoff(&ns);
    }
}

// Dequeue side of up to k elements: on return g > 0, positions [*pos, *pos + g) are this
// caller's to read with ws_bq_take_slot. Returns 0 for Empty.
template <bool Lin, class Q> static __device__ unsigned ws_bq_dequeue_reserve(Q* q, unsigned k, unsigned* pos) {
    unsigned ns = WS_BQ_BACKOFF_MIN_NS;
    for (;;) {
        unsigned got = ws_bq_ensure_dequeue(q, k);                      // line 27
        if (got > 0u) {
            *pos = ws_add_relaxed_u32(ws_bq_head_ptr(q), got);          // line 41
            return got;
        }
        if (!Lin) return 0u;
        ws_atom_u64 ht = ws_load_relaxed_u64(&q->head_tail);            // line 28
        unsigned dist1 = (unsigned)(ht >> 32) - (unsigned)ht - 1u;
        if (dist1 >= Q::capacity + Q::max_threads / 2u) return 0u;      // line 29
        ws_bq_backoff(&ns);
    }
}

// waitForTicket (lines 47-51): acquire-spin until the slot's ticket is `expected`.
static __device__ __forceinline__ void ws_bq_wait_ticket(const ws_atom_u32* ticket, unsigned expected) {
    if (ws_load_acquire_u32(ticket) == expected) return;
    // Spin with relaxed loads (an acquire per spin would invalidate the SM's L1 each time),
    // then acquire once: nobody else can move the ticket past `expected`.
    unsigned ns = WS_BQ_BACKOFF_MIN_NS;
    do { ws_bq_backoff(&ns); } while (ws_load_relaxed_u32(ticket) != expected);
    (void)ws_load_acquire_u32(ticket);
}

// putData (lines 20-25) for a position obtained from ws_bq_enqueue_reserve.
template <class Q> static __device__ __forceinline__ void ws_bq_put_slot(Q* q, unsigned pos, const typename Q::element& e) {
    const unsigned n = Q::capacity;
    const unsigned p = pos & (n - 1u);
    const unsigned ticket = 2u * (pos / n);
    ws_bq_wait_ticket(&q->tickets[p], ticket);                          // line 23
    ws_atom_u32 words[sizeof(e) / 4u];
    ws_bq_copy_bytes(words, &e, sizeof(e));
    ws_atom_u32* dst = (ws_atom_u32*)&q->ring[p];
    for (unsigned i = 0; i < sizeof(e) / 4u; i++) ws_store_relaxed_u32(dst + i, words[i]);   // line 24
    ws_store_release_u32(&q->tickets[p], ticket + 1u);                  // line 25
}

// readData (lines 40-46) for a position obtained from ws_bq_dequeue_reserve.
template <class Q> static __device__ __forceinline__ void ws_bq_take_slot(Q* q, unsigned pos, typename Q::element* out) {
    const unsigned n = Q::capacity;
    const unsigned p = pos & (n - 1u);
    ws_bq_wait_ticket(&q->tickets[p], 2u * (pos / n) + 1u);             // line 43
    ws_atom_u32 words[sizeof(*out) / 4u];
    const ws_atom_u32* src = (const ws_atom_u32*)&q->ring[p];
    for (unsigned i = 0; i < sizeof(*out) / 4u; i++) words[i] = ws_load_relaxed_u32(src + i);   // line 44
    ws_bq_copy_bytes(out, words, sizeof(*out));
    ws_store_release_u32(&q->tickets[p], 2u * ((pos + n) / n));         // line 45
}

// Single-element interface (Algorithm 1 lines 5-11 and 26-31). Lin = true: BQ, false: BWD.
template <bool Lin, class Q> static __device__ int ws_bq_enqueue(Q* q, const typename Q::element& e) {
    unsigned pos;
    if (ws_bq_enqueue_reserve<Lin>(q, 1u, &pos) == 0u) return WS_BQ_FULL;
    ws_bq_put_slot(q, pos, e);
    return WS_BQ_OK;
}

template <bool Lin, class Q> static __device__ int ws_bq_dequeue(Q* q, typename Q::element* out) {
    unsigned pos;
    if (ws_bq_dequeue_reserve<Lin>(q, 1u, &pos) == 0u) return WS_BQ_EMPTY;
    ws_bq_take_slot(q, pos, out);
    return WS_BQ_OK;
}

// Broker Work Distributor (section 6.1): the same queue, the broker's answer taken at face value.
template <class Q> static __device__ __forceinline__ int ws_bwd_enqueue(Q* q, const typename Q::element& e) {
    return ws_bq_enqueue<false>(q, e);
}
template <class Q> static __device__ __forceinline__ int ws_bwd_dequeue(Q* q, typename Q::element* out) {
    return ws_bq_dequeue<false>(q, out);
}

// Broker Stealing Queue (section 6.2): `queues[nq]`, one per block; `own` is the caller's.
// MaxThreads of each queue must count every thread of the grid (any thread may dequeue from
// any queue). Enqueue goes to the own queue only (Full if it is full).
template <class Q> static __device__ __forceinline__ int ws_bsq_enqueue(Q* queues, unsigned own, const typename Q::element& e) {
    return ws_bq_enqueue<true>(&queues[own], e);
}

// Dequeue up to k from the own queue, else from queues own+1, own+2, ... (mod nq) in turn.
// Returns g > 0 with *which the queue that granted and [*pos, *pos+g) the positions to take
// from it; 0 when every queue answered Empty.
template <class Q> static __device__ unsigned ws_bsq_dequeue_reserve(Q* queues, unsigned nq, unsigned own, unsigned k,
                                                                   unsigned* which, unsigned* pos) {
    unsigned v = own;
    for (unsigned i = 0; i < nq; i++) {
        unsigned got = ws_bq_dequeue_reserve<true>(&queues[v], k, pos);
        if (got > 0u) { *which = v; return got; }
        v = v + 1u == nq ? 0u : v + 1u;
    }
    return 0u;
}

template <class Q> static __device__ int ws_bsq_dequeue(Q* queues, unsigned nq, unsigned own, typename Q::element* out) {
    unsigned which, pos;
    if (ws_bsq_dequeue_reserve(queues, nq, own, 1u, &which, &pos) == 0u) return WS_BQ_EMPTY;
    ws_bq_take_slot(&queues[which], pos, out);
    return WS_BQ_OK;
}

#if defined(__CUDACC__)
// Warp-aggregated operations (device only): the lanes in `mask` (all of which must call, with
// the same queue; build it with __ballot_sync, not __activemask, which does not promise that
// lanes of one branch run together) enqueue/dequeue with one broker atomic and one Head/Tail
// atomic issued by the lowest lane of the mask; lanes take consecutive positions, so their
// ticket and slot accesses coalesce.
// Enqueue: the leader asks for the lanes not yet placed until all are or the queue is Full
// (BQ: observed; BWD: the broker's word); returns WS_BQ_OK or WS_BQ_FULL per lane.
template <bool Lin, class Q> static __device__ int ws_bq_warp_enqueue(Q* q, const typename Q::element& e, unsigned mask) {
    const unsigned lane = threadIdx.x & 31u;
    const unsigned leader = __ffs(mask) - 1u;
    const unsigned rank = __popc(mask & ((1u << lane) - 1u));
    const unsigned total = __popc(mask);
    unsigned done = 0u;
    int result = WS_BQ_FULL;
    while (done < total) {
        unsigned pos = 0u, got = 0u;
        if (lane == leader) got = ws_bq_enqueue_reserve<Lin>(q, total - done, &pos);
        got = __shfl_sync(mask, got, leader);
        pos = __shfl_sync(mask, pos, leader);
        if (got == 0u) break;
        if (rank >= done && rank < done + got) { ws_bq_put_slot(q, pos + (rank - done), e); result = WS_BQ_OK; }
        done += got;
    }
    return result;
}

// Dequeue: one grant of up to popc(mask) elements; lanes beyond a partial grant get
// WS_BQ_EMPTY, meaning "nothing for this lane this time" (not an observed Empty).
template <bool Lin, class Q> static __device__ int ws_bq_warp_dequeue(Q* q, typename Q::element* out, unsigned mask) {
    const unsigned lane = threadIdx.x & 31u;
    const unsigned leader = __ffs(mask) - 1u;
    const unsigned rank = __popc(mask & ((1u << lane) - 1u));
    unsigned pos = 0u, got = 0u;
    if (lane == leader) got = ws_bq_dequeue_reserve<Lin>(q, __popc(mask), &pos);
    got = __shfl_sync(mask, got, leader);
    pos = __shfl_sync(mask, pos, leader);
    if (rank >= got) return WS_BQ_EMPTY;
    ws_bq_take_slot(q, pos + rank, out);
    return WS_BQ_OK;
}
#endif

// ---- What the kernels over these queues share (schedulers/broker.cuh, schedulers/bands.cuh) ----
// Configuration, defined by the runtime before the templates:
//   WSDSL_BROKER_KIND   0 BQ, 1 BWD, 2 BSQ
//   WSDSL_BROKER_SLOTS  slots of each queue (a power of two; compile-time, as the queue's N)
#ifndef WSDSL_BROKER_KIND
#define WSDSL_BROKER_KIND 0
#endif
#ifndef WSDSL_BROKER_SLOTS
#define WSDSL_BROKER_SLOTS 4096u
#endif
// Upper bound on queue operations in flight at once (positions reserved, not yet filled or
// emptied): only used for telling Full from Empty in the packed Head/Tail.
#define WS_BROKER_MAX_THREADS (1u << 24)
#define WS_BROKER_LIN (WSDSL_BROKER_KIND != 1)
// An overflow's arg0 names a queue with this bit (without it, a worker's staging area).
#define WS_BROKER_QUEUE_TAG (1ull << 32)
// A worker's first thread publishes its progress and checks for a stop every this many polls.
#define WS_BROKER_POLL_EVERY 256
// Worker 0 reads the host's stop flag (over PCIe) only in rounds where these bits are zero.
#define WS_BROKER_HOST_POLL_MASK 63u
// An idle worker's first thread sleeps this long between polls of the queues once 64 polls
// came back empty (100 ns before that); the bands kernel (schedulers/bands.cuh) starts from it and
// doubles. Thousands of idle workers poll the same few counts, so this sets how hard they
// press on the L2 slice that also serves the busy workers' enqueues.
#ifndef WS_BROKER_IDLE_SLEEP_NS
#define WS_BROKER_IDLE_SLEEP_NS 800u
#endif
// Shared-memory declarations (a macro, so a host emulation can give each block its own arena).
#ifndef WS_SHARED
#define WS_SHARED(T, name, n) __shared__ T name[n]
#endif
