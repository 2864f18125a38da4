// deque.cuh — the work-stealing deque of Cederman & Tsigas (GPU Computing Gems, ch. 35,
// Listings 35.1–35.4), after Arora, Blumofe and Plaxton.
//
// One deque per worker. The owner pushes and pops at the tail without atomics; thieves take
// one task at the head with a CAS. `head` packs the head index (low 32 bits) with an ABA
// counter (high 32 bits) that the owner bumps each time it moves head back to slot 0, so a
// thief delayed across a reset cannot succeed with a stale CAS (section 35.3.3.4).
//
// Generalisation: a worker is a warp, so the owner pops up to a warp's worth of tasks at
// once and pushes the children of a whole batch at once. Invariants:
//   * Only the owner writes `tail`; it publishes pushed slots with a release store of tail.
//   * Slots [head.index, tail) are the deque's tasks. Thieves only read slot head.index and
//     only keep it if their CAS of head succeeds.
//   * A batch pop of k tasks from tail t takes [t-k, t) when t-k > head.index (no thief can
//     reach those slots: a steal CAS moves head by one from a value it read before the pop
//     published the lower tail). Otherwise the deque is emptied: the one slot head.index may be
//     contested and is settled by a CAS exactly as in Listing 35.4, step 5.
//   * Pop and steal each put a sequentially consistent fence between their store/load of
//     tail and head (the store-load order the algorithm assumes; Chase-Lev's C11 version
//     does the same).
// Capacity: slots are a fixed array; a push past the end is reported by the caller as a
// queue overflow naming the capacity needed, never written.
#pragma once

// Per-worker control block, padded to a 128-byte line so that owners' tail stores and
// thieves' CASes on different deques never share a line.
struct ws_deque {
    ws_atom_u64 head;   // index (low 32) | ABA counter (high 32)
    ws_atom_u32 tail;   // first free slot; written only by the owner
    ws_atom_u32 pad[29];
};

enum { WS_STEAL_EMPTY = 0, WS_STEAL_OK = 1, WS_STEAL_ABORT = 2 };

static __device__ __forceinline__ unsigned ws_head_index(ws_atom_u64 head) { return (unsigned)head; }

// Owner: pops up to `want` tasks from the tail (Listing 35.4, for a batch). `*tail` is the
// owner's private copy of the tail. Returns how many tasks were taken; they occupy slots
// [*first, *first + n). The caller must copy them out before it pushes again.
static __device__ unsigned ws_deque_pop_batch(ws_deque* d, unsigned* tail, unsigned want, unsigned* first) {
    unsigned old_tail = *tail;
    if (old_tail == 0) return 0;                                   // step 1: empty
    unsigned take = old_tail < want ? old_tail : want;
    unsigned new_tail = old_tail - take;                           // step 2
    ws_store_relaxed_u32(&d->tail, new_tail);
    ws_fence_sc();
    ws_atom_u64 old_head = ws_load_relaxed_u64(&d->head);
    unsigned head_index = ws_head_index(old_head);
    if (new_tail > head_index) {                                   // step 3: uncontested
        *tail = new_tail;
        *first = new_tail;
        return take;
    }
    // Steps 4-6: the batch reaches the head; empty the deque and move head back to slot 0
    // with a new ABA counter.
    ws_atom_u64 new_head = ((old_head >> 32) + 1ull) << 32;
    *tail = 0;
    ws_store_relaxed_u32(&d->tail, 0u);
    if (head_index < old_tail) {
        // Slot head_index may be under a concurrent steal: settle it with the CAS (step 5).
        if (ws_cas_acq_rel_u64(&d->head, old_head, new_head) == old_head) {
            *first = head_index;
            return old_tail - head_index;
        }
        // A thief took slot head_index; the slots above it are still ours (step 6).
        ws_store_release_u64(&d->head, new_head);
        *first = head_index + 1;
        return old_tail - head_index - 1;
    }
    ws_store_release_u64(&d->head, new_head);                      // everything was stolen
    return 0;
}

// Owner: publishes the slots written at [old tail, new_tail) (Listing 35.2, for a batch).
// The writers of those slots must have been ordered before this call (warp barrier).
static __device__ __forceinline__ void ws_deque_publish(ws_deque* d, unsigned new_tail) {
    ws_store_release_u32(&d->tail, new_tail);
}

// Thief: a cheap look at whether a deque has anything to steal (no ordering implied).
static __device__ __forceinline__ bool ws_deque_looks_nonempty(ws_deque* d) {
    return ws_load_relaxed_u32(&d->tail) > ws_head_index(ws_load_relaxed_u64(&d->head));
}

// Thief: steals the task at the head (Listing 35.3).
static __device__ int ws_deque_steal(ws_deque* d, const wsdsl_task* slots, wsdsl_task* out) {
    ws_atom_u64 old_head = ws_load_acquire_u64(&d->head);          // step 1
    ws_fence_sc();
    unsigned tail = ws_load_acquire_u32(&d->tail);
    unsigned index = ws_head_index(old_head);
    if (tail <= index) return WS_STEAL_EMPTY;
    *out = slots[index];                                           // step 2
    if (ws_cas_acq_rel_u64(&d->head, old_head, old_head + 1ull) == old_head)   // step 3
        return WS_STEAL_OK;
    return WS_STEAL_ABORT;
}
