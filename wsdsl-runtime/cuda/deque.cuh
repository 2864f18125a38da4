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
//   * The public part [head, split) is what thieves may take: one task at a time at `head`,
//     with a CAS (Listing 35.3). `split` is the old algorithm's tail: only the owner writes
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
//   * A reclaim of k tasks from split s takes [s-k, s) when s-k > head.index (no thief can
//     reach those slots: a steal CAS moves head by one from a value it read before the
//     reclaim published the lower split). Otherwise the deque is emptied: the one slot
//     head.index may be contested and is settled by a CAS exactly as in step 5.
//   * Reclaim and steal each put a sequentially consistent fence between their store/load of
//     split and head (the store-load order the algorithm assumes; Chase-Lev's C11 version
//     does the same).
//   * An emptied deque has head.index = split = top = 0.
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

enum { WS_STEAL_EMPTY = 0, WS_STEAL_OK = 1, WS_STEAL_ABORT = 2 };

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
// (Listing 35.4, for a batch). Returns how many; they occupy [*first, *first + n), and the
// private part is empty again afterwards (top = split).
static __device__ unsigned ws_deque_reclaim(ws_deque* d, ws_deque_owner* o, unsigned want, unsigned* first) {
    const unsigned old_split = o->split;
    if (old_split == 0) return 0;                                  // step 1: empty
    const unsigned take = old_split < want ? old_split : want;
    const unsigned new_split = old_split - take;                   // step 2
    ws_store_relaxed_u32(&d->split, new_split);
    ws_fence_sc();
    const ws_atom_u64 old_head = ws_load_relaxed_u64(&d->head);
    const unsigned head_index = ws_head_index(old_head);
    if (new_split > head_index) {                                  // step 3: uncontested
        o->split = o->top = new_split;
        *first = new_split;
        return take;
    }
    // Steps 4-6: the batch reaches the head; empty the deque and move head back to slot 0
    // with a new ABA counter.
    const ws_atom_u64 new_head = ((old_head >> 32) + 1ull) << 32;
    o->split = o->top = 0;
    ws_store_relaxed_u32(&d->split, 0u);
    if (head_index < old_split) {
        // Slot head_index may be under a concurrent steal: settle it with the CAS (step 5).
        if (ws_cas_acq_rel_u64(&d->head, old_head, new_head) == old_head) {
            *first = head_index;
            return old_split - head_index;
        }
        // A thief took slot head_index; the slots above it are still ours (step 6).
        ws_store_release_u64(&d->head, new_head);
        *first = head_index + 1;
        return old_split - head_index - 1;
    }
    ws_store_release_u64(&d->head, new_head);                      // everything was stolen
    return 0;
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

// Thief: steals the task at the head of the public part (Listing 35.3).
static __device__ int ws_deque_steal(ws_deque* d, const wsdsl_task* slots, wsdsl_task* out) {
    const ws_atom_u64 old_head = ws_thief_load_acquire_u64(&d->head);    // step 1
    ws_thief_fence_sc();
    const unsigned split = ws_thief_load_acquire_u32(&d->split);
    const unsigned index = ws_head_index(old_head);
    if (split <= index) return WS_STEAL_EMPTY;
    *out = slots[index];                                           // step 2
    if (ws_thief_cas_acq_rel_u64(&d->head, old_head, old_head + 1ull) == old_head)   // step 3
        return WS_STEAL_OK;
    return WS_STEAL_ABORT;
}
