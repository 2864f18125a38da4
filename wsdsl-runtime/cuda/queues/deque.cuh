// queues/deque.cuh — the work-stealing deque of Cederman & Tsigas (GPU Computing Gems, ch. 35,
// Listings 35.1–35.4), after Arora, Blumofe and Plaxton, split into a private and a public
// part.
//
// One deque per worker, slots [0, capacity). Three indices cut it into two parts:
//
//     0 ... head ........ split ........ top ... capacity
//           [ public part )[ private part )
//
//   * The private part [split, top) is the owner's alone: it pushes children at `top` and
//     pops batches from `top` with plain register arithmetic (`top` lives in the owner's
//     registers). No fence, no atomic, nothing another worker reads: a chain of tasks that
//     stays on one worker pays no memory-ordering cost at all.
//   * The public part [head, split) is what thieves may take: a claim of one or more tasks
//     at `head`, with a CAS (Listing 35.3). `split` is the old algorithm's tail: only the owner writes
//     it, and thieves read it.
//   * The owner *exposes* tasks by moving `split` up over the bottom (oldest) end of its
//     private part, after a fence that makes their slots visible (ws_deque_expose). It does so
//     only when thieves have drained the public part and it holds more than it runs in one
//     batch, so an owner with one batch of work never races thieves for it.
//   * When its private part is empty, the owner *reclaims* a batch from the top of the public
//     part: exactly the Cederman–Tsigas pop (Listing 35.4) applied to `split` (ws_deque_reclaim).
//
// Invariants of the public part (as in the published deque):
//   * `head` packs the head index (low 32 bits) with an ABA counter (high 32 bits; in builds
//     for several GPUs the counter's top 2 bits are the sharing flags below and the counter
//     has 30) that the owner bumps each time it moves head back to slot 0, so a thief
//     delayed across a reset cannot succeed with a stale CAS (section 35.3.3.4).
//   * A thief claims up to WS_STEAL_CLAIM tasks at the head with one CAS (32 by default; 1
//     is the published deque, one CAS per task). A steal is a chain of dependent round trips
//     to L2 (head, fence, split, slots, CAS), about 2 us under load on the H100: per task,
//     a stolen task of UTS T3 would wait 63 us from its spawn to its start, against 11 us
//     with claims.
//   * A reclaim of k tasks from split s takes [s-k, s) when s-k >= head.index +
//     WS_STEAL_CLAIM (no thief can reach those slots: a steal CAS moves head by at most
//     WS_STEAL_CLAIM from a value it read before the reclaim published the lower split).
//     Otherwise the deque is emptied: the slots from head.index on may be contested and are
//     settled by a CAS that moves head back to slot 0 (step 5), retried while thieves move
//     head first (with one-task claims it cannot fail twice: step 6; across GPUs an ask or
//     the owner's own switch to sharing may add one more failure each).
//   * Reclaim and steal each put a sequentially consistent fence between their store/load of
//     split and head (the store-load order the algorithm assumes; Chase-Lev's C11 version
//     does the same).
//   * An emptied deque has head.index = split = 0 (and top = 0, or the remainder a contested
//     reclaim moved down, below).
// Capacity: slots are a fixed array; a push past the end is reported by the caller as a
// queue overflow naming the capacity needed, never written.
//
// Scope follows sharing (builds for several GPUs, WSDSL_PES). The PTX memory model orders
// two threads only through operations whose scope holds both, so a deque that a thief of
// another GPU may rob needs system-scope fences on its owner's side too, and those sit on
// the critical path of a deep tree with little parallelism (UTS T3L would run 55% slower on the
// multi-GPU kernel with nothing stolen across GPUs). So a deque starts *private to its
// GPU*: every access to head and split is a system-scope relaxed operation (morally strong
// with any GPU's), but the owner and its GPU's thieves order them with GPU-scope fences.
// A thief of another GPU that finds a private deque offering WS_REMOTE_ASK tasks or more
// takes nothing: it sets WS_HEAD_ASKED in the head. The owner sees the bit in the head it
// reads during each batch and acts after the batch: it issues a system-scope fence (which
// orders everything that happens before it, the slots its worker's threads wrote included,
// cumulatively) and sets WS_HEAD_SHARED with a CAS; from then on its fences are at system
// scope. Thieves of other GPUs steal only from a head that shows
// WS_HEAD_SHARED, read at system scope and followed by system-scope fences, so they
// synchronise with the owner's switch and everything after it. Thieves of the owner's GPU
// use GPU-scope fences always (their partner, the owner, is on their GPU), and
// system-scope atomics on the head, so that their CAS and a thief's of another GPU are
// atomic with each other. A deque stays shared once shared. The two bits live in the
// head's ABA counter's top (the counter has 30 bits there). An ask may be lost (the owner's
// store of an emptied head can overwrite it): the thief asks again on a later probe. The
// host hammer (tests/hammer/deque_hammer_shared.cpp) checks the bits' logic; the host has
// one memory scope, so the choice of scopes is checked on GPUs only.
#pragma once

// Per-worker control block, padded to a 128-byte line so that owners' split stores and
// thieves' CASes on different deques never share a line.
struct ws_deque {
    ws_atom_u64 head;   // public part's first slot (low 32) | ABA counter (high 32; flags across GPUs)
    ws_atom_u32 split;  // public part's end = private part's start; written only by the owner
    ws_atom_u32 pad[29];
};

#ifndef WS_STEAL_CLAIM
#define WS_STEAL_CLAIM 32u
#endif

static __device__ __forceinline__ unsigned ws_head_index(ws_atom_u64 head) { return (unsigned)head; }

// The owner's view of its deque: kept in the owner's registers.
struct ws_deque_owner {
    unsigned split;   // its copy of `split` (it is the only writer)
    unsigned top;     // end of the private part: the next free slot
#if WSDSL_PES
    bool shared;      // other GPUs' thieves may rob it (scope follows sharing, above)
#endif
};

// The owner's and its GPU's thieves' orderings (scope follows sharing, above); on one GPU
// the plain GPU-scope operations.
#if WSDSL_PES
#define WS_HEAD_SHARED (1ull << 63)   // set once, by the owner: other GPUs' thieves may steal
#define WS_HEAD_ASKED (1ull << 62)    // set by another GPU's thief that found work here
// The owner tells its worker's threads the deque's scope in the top bit of the batch's
// exposure count (schedulers/deque.cuh), which never reaches it: the count is the surplus when it
// fits a batch, else half of it, and the surplus is a 32-bit count.
#define WS_EXPOSE_SHARED 0x80000000u
#ifndef WS_DEQUES_START_SHARED
#define WS_DEQUES_START_SHARED 0
#endif
// The offer that makes another GPU's thief ask. Measured on two H100s: at 32 UTS T3L
// crosses GPUs 248,000 times and runs 0.77x of one GPU, at 128 it crosses 800 times
// (0.92x) while T1XL, N-Queens 18 and fib(42) still spread (1.89x, 1.91x, 1.80x); at 256
// fib(42)'s deques never ask (0.93x).
#ifndef WS_REMOTE_ASK
#define WS_REMOTE_ASK 128u
#endif
// Whether the owner orders its deque at system scope (a builds-alike spelling of `shared`).
static __device__ __forceinline__ bool ws_own_sys(const ws_deque_owner* o) { return o->shared; }
// The owner's plain accesses to head and split: system-scope relaxed (morally strong with
// another GPU's thief).
static __device__ __forceinline__ void ws_own_store_relaxed_u32(ws_atom_u32* p, ws_atom_u32 v) { ws_sys_store_relaxed_u32(p, v); }
static __device__ __forceinline__ ws_atom_u64 ws_own_load_relaxed_u64(const ws_atom_u64* p) { return ws_sys_load_relaxed_u64(p); }
// The head after an emptying: the flags kept, the ABA counter (30 bits) bumped, index 0.
static __device__ __forceinline__ ws_atom_u64 ws_head_reset(ws_atom_u64 seen) {
    return (seen & (WS_HEAD_SHARED | WS_HEAD_ASKED)) | ((((seen >> 32) + 1ull) & 0x3fffffffull) << 32);
}
static __device__ __forceinline__ void ws_own_fence_sc(const ws_deque_owner* o) { ws_fence_sc_at(o->shared); }
// Owner, having read (relaxed) a head that thieves moved past everything public: their reads
// of those slots happen before this worker rewrites them.
static __device__ __forceinline__ void ws_own_fence_acquire(const ws_deque_owner* o) { ws_fence_acquire_at(o->shared); }
static __device__ __forceinline__ void ws_own_store_release_u32(const ws_deque_owner* o, ws_atom_u32* p, ws_atom_u32 v) {
    ws_fence_release_at(o->shared);
    ws_sys_store_relaxed_u32(p, v);
}
static __device__ __forceinline__ void ws_own_store_release_u64(const ws_deque_owner* o, ws_atom_u64* p, ws_atom_u64 v) {
    ws_fence_release_at(o->shared);
    ws_sys_store_relaxed_u64(p, v);
}
static __device__ __forceinline__ ws_atom_u64 ws_own_cas_acq_rel_u64(const ws_deque_owner* o, ws_atom_u64* p, ws_atom_u64 expected, ws_atom_u64 desired) {
    ws_fence_release_at(o->shared);
    const ws_atom_u64 was = ws_sys_cas_relaxed_u64(p, expected, desired);
    ws_fence_acquire_at(o->shared);
    return was;
}
// A thief's steps; `sys`: the thief is on another GPU than the deque (system-scope fences),
// else GPU-scope fences. Measured on two H100s: a same-GPU thief with system-scope acquire
// loads and an acq_rel CAS runs UTS T3L 12% slower and N-Queens 18 no faster; one with
// GPU-scope acquire loads and CAS (outside the PTX model once another GPU's thief CASes the
// head) runs both as these steps do. So system-scope relaxed accesses under GPU-scope
// fences cost a same-GPU thief nothing, and these fences are not what is left of T3L's
// two-GPU gap.
static __device__ __forceinline__ ws_atom_u64 ws_steal_load_head(ws_deque* d, bool sys) {
    return sys ? ws_sys_load_acquire_u64(&d->head) : ws_sys_load_relaxed_u64(&d->head);
}
static __device__ __forceinline__ void ws_steal_fence_sc(bool sys) { ws_fence_sc_at(sys); }
static __device__ __forceinline__ unsigned ws_steal_load_split(ws_deque* d, bool sys) {
    const unsigned split = ws_sys_load_relaxed_u32(&d->split);
    ws_fence_acquire_at(sys);
    return split;
}
static __device__ __forceinline__ ws_atom_u64 ws_steal_cas(ws_deque* d, ws_atom_u64 expected, ws_atom_u64 desired, bool sys) {
    ws_fence_release_at(sys);
    const ws_atom_u64 was = ws_sys_cas_relaxed_u64(&d->head, expected, desired);
    ws_fence_acquire_at(sys);
    return was;
}
// Owner, after a batch, with the head it read: whether another GPU's thief asked to steal
// from this private deque: one test on every batch, the switch itself (below) only then.
// (Per-instruction counts on an H100: the flag stored for the worker's threads every batch
// would make N-Queens' batch loop 16 instructions longer. Keeping the switch out of line
// with __noinline__ is far worse: the call makes N-Queens 18 54% slower on one GPU.)
static __device__ __forceinline__ bool ws_deque_was_asked(const ws_deque_owner* o, ws_atom_u64 head_seen) {
    return (head_seen & WS_HEAD_ASKED) != 0ull && !o->shared;
}
// Owner, once asked: the deque becomes shared (above).
static __device__ __forceinline__ void ws_deque_share(ws_deque* d, ws_deque_owner* o, ws_atom_u64 head_seen) {
    ws_fence_sc_at(true);   // everything before, of this worker and what it saw, first
    ws_atom_u64 seen = head_seen;
    for (;;) {
        const ws_atom_u64 was = ws_sys_cas_relaxed_u64(&d->head, seen, seen | WS_HEAD_SHARED);
        if (was == seen) break;
        seen = was;   // a thief of this GPU moved the head first
    }
    o->shared = true;
}
#else
#define WS_HEAD_SHARED 0ull
static __device__ __forceinline__ bool ws_own_sys(const ws_deque_owner*) { return false; }
static __device__ __forceinline__ void ws_own_store_relaxed_u32(ws_atom_u32* p, ws_atom_u32 v) { ws_store_relaxed_u32(p, v); }
static __device__ __forceinline__ ws_atom_u64 ws_own_load_relaxed_u64(const ws_atom_u64* p) { return ws_load_relaxed_u64(p); }
static __device__ __forceinline__ ws_atom_u64 ws_head_reset(ws_atom_u64 seen) { return ((seen >> 32) + 1ull) << 32; }
static __device__ __forceinline__ void ws_own_fence_sc(const ws_deque_owner*) { ws_fence_sc(); }
// (One GPU: nothing. Within the PTX model an acquire belongs here too; in the
// hardware the thief's atom.acq_rel waits for its slot loads before its claim is
// seen. WSDSL_DEFINES=WS_X_RESET_ACQUIRE adds it: on one H200 it costs nothing the
// runs can tell. It is to become the default once gpu-check has passed with it
// on a GPU.)
static __device__ __forceinline__ void ws_own_fence_acquire(const ws_deque_owner*) {
#if WS_X_RESET_ACQUIRE
    ws_fence_acquire_at(false);
#endif
}
static __device__ __forceinline__ void ws_own_store_release_u32(const ws_deque_owner*, ws_atom_u32* p, ws_atom_u32 v) { ws_store_release_u32(p, v); }
static __device__ __forceinline__ void ws_own_store_release_u64(const ws_deque_owner*, ws_atom_u64* p, ws_atom_u64 v) { ws_store_release_u64(p, v); }
static __device__ __forceinline__ ws_atom_u64 ws_own_cas_acq_rel_u64(const ws_deque_owner*, ws_atom_u64* p, ws_atom_u64 expected, ws_atom_u64 desired) {
    return ws_cas_acq_rel_u64(p, expected, desired);
}
// The head is read relaxed: the sequentially consistent fence right after it orders it, as
// an acquire would, whose own L1 invalidation would be a second one in a row on every probe.
// Read so, and with the join's acquire-only fence (features/join.cuh), one H200 runs fib(42)
// in 117.1 ms against 132.0 with neither, UTS T3L in 56.5 against 57.6 ms, N-Queens 18 and
// T1XL alike; the multi-GPU kernel's thieves read it so too (fib(42) 8% faster on one GPU
// than with an acquire).
static __device__ __forceinline__ ws_atom_u64 ws_steal_load_head(ws_deque* d, bool) { return ws_thief_load_relaxed_u64(&d->head); }
static __device__ __forceinline__ void ws_steal_fence_sc(bool) { ws_thief_fence_sc(); }
static __device__ __forceinline__ unsigned ws_steal_load_split(ws_deque* d, bool) { return ws_thief_load_acquire_u32(&d->split); }
static __device__ __forceinline__ ws_atom_u64 ws_steal_cas(ws_deque* d, ws_atom_u64 expected, ws_atom_u64 desired, bool) {
    return ws_thief_cas_acq_rel_u64(&d->head, expected, desired);
}
#endif

// Owner: pops up to `want` tasks from the private part. They occupy [*first, *first + n);
// the caller copies them out before it pushes again (children are written from `top`).
static __device__ __forceinline__ unsigned ws_deque_pop_private(ws_deque_owner* o, unsigned want, unsigned* first) {
    const unsigned have = o->top - o->split;
    const unsigned take = have < want ? have : want;
    o->top -= take;
    *first = o->top;
    return take;
}

// Owner, private part empty: takes up to `want` tasks back from the top of the public part
// (Listing 35.4, for a batch). Returns how many; they occupy [*first, *first + n). The
// private part is empty again afterwards (top = split), except when the deque was emptied
// with more than `want` tasks left (claims of several tasks): the rest move down to the
// private part [0, top).
static __device__ unsigned ws_deque_reclaim(ws_deque* d, wsdsl_task* slots, ws_deque_owner* o, unsigned want, unsigned* first) {
    const unsigned old_split = o->split;
    if (old_split == 0) return 0;                                  // step 1: empty
    const unsigned take = old_split < want ? old_split : want;
    const unsigned new_split = old_split - take;                   // step 2
    ws_own_store_relaxed_u32(&d->split, new_split);
    ws_own_fence_sc(o);
    const ws_atom_u64 old_head = ws_own_load_relaxed_u64(&d->head);
    const unsigned head_index = ws_head_index(old_head);
    if (new_split >= head_index + WS_STEAL_CLAIM) {                // step 3: uncontested
        o->split = o->top = new_split;
        *first = new_split;
        return take;
    }
    // Steps 4-6: the batch reaches the head; empty the deque and move head back to slot 0
    // with a new ABA counter.
    o->split = o->top = 0;
    ws_own_store_relaxed_u32(&d->split, 0u);
    ws_atom_u64 seen = old_head;
    unsigned at = head_index;
    for (;;) {
        const ws_atom_u64 reset = ws_head_reset(seen);
        if (at >= old_split) {
            ws_own_fence_acquire(o);                               // everything was stolen
            ws_own_store_release_u64(o, &d->head, reset);
            return 0;
        }
        // The slots from `at` on may be under a concurrent steal: settle them (step 5).
        const ws_atom_u64 was = ws_own_cas_acq_rel_u64(o, &d->head, seen, reset);
        if (was == seen) break;
        // Thieves took [at, was.index); the slots above are still ours, unless a thief that
        // read the old split or the lowered one claims more first (step 6, retried).
        seen = was;
        at = ws_head_index(was);
    }
    unsigned n = old_split - at;
    if (n > want) {
        // Claims of several tasks can leave more than a batch here (a reclaim is uncontested
        // only with WS_STEAL_CLAIM tasks to spare above head): the batch is the top `want`,
        // and the rest move down to [0, left) as the private part (copying in ascending
        // order is safe when the ranges overlap, since the destination is lower).
        const unsigned left = n - want;
        for (unsigned i = 0; i < left; i++) slots[i] = slots[at + i];
        o->top = left;
        at += left;
        n = want;
    }
    *first = at;
    return n;
}

// Owner: makes the bottom `count` tasks of the private part public. Every thread that wrote
// one of those slots must have fenced since (a release fence is enough), and the worker's
// barrier must order those fences before this call.
static __device__ __forceinline__ void ws_deque_expose(ws_deque* d, ws_deque_owner* o, unsigned count) {
    o->split += count;
    ws_own_store_release_u32(o, &d->split, o->split);
}

// Owner: whether thieves have taken everything public (from a head value read earlier; a
// stale value only delays the next exposure).
static __device__ __forceinline__ bool ws_deque_public_drained(const ws_deque_owner* o, ws_atom_u64 head_seen) {
    return ws_head_index(head_seen) >= o->split;
}

// Thief: how many tasks a deque offers (a cheap, unordered look).
static __device__ __forceinline__ unsigned ws_deque_public_count(ws_deque* d) {
    return ws_thief_load_relaxed_u32(&d->split) - ws_head_index(ws_thief_load_relaxed_u64(&d->head));
}

// Thief: steals up to `want` tasks (at most WS_STEAL_CLAIM) at the head of the public part
// into out[0, n) (Listing 35.3, for a claim of n with one CAS); *from: the first one's slot.
// Returns n, or 0 when the part was empty or another thief or the owner came first.
// (No __restrict__ on `slots`: with const it would allow the non-coherent read-only cache,
// and slots are rewritten during the run.)
// `remote`: the thief is on another GPU (it steals only from a shared deque: scope follows
// sharing, above).
static __device__ unsigned ws_deque_steal(ws_deque* d, const wsdsl_task* slots, unsigned want, wsdsl_task* out, unsigned* from, bool remote) {
    const ws_atom_u64 old_head = ws_steal_load_head(d, remote);          // step 1
    if (remote && (old_head & WS_HEAD_SHARED) == 0ull) return 0;
    ws_steal_fence_sc(remote);
    const unsigned split = ws_steal_load_split(d, remote);
    const unsigned index = ws_head_index(old_head);
    if (split <= index) return 0;
    unsigned n = split - index;
    if (n > want) n = want;
    if (n > WS_STEAL_CLAIM) n = WS_STEAL_CLAIM;
    // Step 2, four loads in flight at a time.
    unsigned i = 0;
    for (; i + 4u <= n; i += 4u) {
        const wsdsl_task a = slots[index + i], b = slots[index + i + 1u], c = slots[index + i + 2u], e = slots[index + i + 3u];
        out[i] = a; out[i + 1u] = b; out[i + 2u] = c; out[i + 3u] = e;
    }
    for (; i < n; i++) out[i] = slots[index + i];
    if (ws_steal_cas(d, old_head, old_head + n, remote) != old_head) return 0;   // step 3
    *from = index;
    return n;
}
