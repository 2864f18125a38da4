// deque.cuh — the work-stealing deque of Cederman & Tsigas (GPU Computing Gems, ch. 35,
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
//   * `head` packs the head index (low 32 bits) with an ABA counter (high 32 bits) that the
//     owner bumps each time it moves head back to slot 0, so a thief delayed across a reset
//     cannot succeed with a stale CAS (section 35.3.3.4).
//   * A thief claims up to WS_STEAL_CLAIM tasks at the head with one CAS (32 by default; 1
//     is the published deque, one CAS per task). A steal is a chain of dependent round trips
//     to L2 (head, fence, split, slots, CAS), about 2 us under load on the H100: per task,
//     that made a stolen task of UTS T3 wait 63 us from its spawn to its start, against 11
//     us with claims (BENCHMARKS.md, "Steals of several tasks with one CAS").
//   * A reclaim of k tasks from split s takes [s-k, s) when s-k >= head.index +
//     WS_STEAL_CLAIM (no thief can reach those slots: a steal CAS moves head by at most
//     WS_STEAL_CLAIM from a value it read before the reclaim published the lower split).
//     Otherwise the deque is emptied: the slots from head.index on may be contested and are
//     settled by a CAS that moves head back to slot 0 (step 5), retried while thieves move
//     head first (with one-task claims it cannot fail twice: step 6).
//   * Reclaim and steal each put a sequentially consistent fence between their store/load of
//     split and head (the store-load order the algorithm assumes; Chase-Lev's C11 version
//     does the same).
//   * An emptied deque has head.index = split = 0 (and top = 0, or the remainder a contested
//     reclaim moved down, below).
// Capacity: slots are a fixed array; a push past the end is reported by the caller as a
// queue overflow naming the capacity needed, never written.
#pragma once

// Per-worker control block, padded to a 128-byte line so that owners' split stores and
// thieves' CASes on different deques never share a line.
struct ws_deque {
    ws_atom_u64 head;   // public part's first slot (low 32) | ABA counter (high 32)
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
};

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
    ws_store_relaxed_u32(&d->split, new_split);
    ws_fence_sc();
    const ws_atom_u64 old_head = ws_load_relaxed_u64(&d->head);
    const unsigned head_index = ws_head_index(old_head);
    if (new_split >= head_index + WS_STEAL_CLAIM) {                // step 3: uncontested
        o->split = o->top = new_split;
        *first = new_split;
        return take;
    }
    // Steps 4-6: the batch reaches the head; empty the deque and move head back to slot 0
    // with a new ABA counter.
    o->split = o->top = 0;
    ws_store_relaxed_u32(&d->split, 0u);
    ws_atom_u64 seen = old_head;
    unsigned at = head_index;
    for (;;) {
        const ws_atom_u64 reset = ((seen >> 32) + 1ull) << 32;
        if (at >= old_split) {
            ws_store_release_u64(&d->head, reset);                 // everything was stolen
            return 0;
        }
        // The slots from `at` on may be under a concurrent steal: settle them (step 5).
        const ws_atom_u64 was = ws_cas_acq_rel_u64(&d->head, seen, reset);
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
// one of those slots must have fenced (ws_fence_acq_rel) since, and the worker's barrier
// must order those fences before this call.
static __device__ __forceinline__ void ws_deque_expose(ws_deque* d, ws_deque_owner* o, unsigned count) {
    o->split += count;
    ws_store_release_u32(&d->split, o->split);
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
static __device__ unsigned ws_deque_steal(ws_deque* d, const wsdsl_task* slots, unsigned want, wsdsl_task* out, unsigned* from) {
    const ws_atom_u64 old_head = ws_thief_load_acquire_u64(&d->head);    // step 1
    ws_thief_fence_sc();
    const unsigned split = ws_thief_load_acquire_u32(&d->split);
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
    if (ws_thief_cas_acq_rel_u64(&d->head, old_head, old_head + n) != old_head) return 0;   // step 3
    *from = index;
    return n;
}
