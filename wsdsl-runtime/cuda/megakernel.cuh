// megakernel.cuh — the persistent kernel: workers with work-stealing deques.
//
// Every worker (a thread, a warp or a block: launch.cuh) of a grid sized to be fully resident
// (occupancy x SMs, launched cooperatively) loops: its first thread pops up to one task per
// thread from the worker's deque, the threads run them, children go to the same deque. With
// an empty deque, the first thread steals from a victim (victims.cuh). The run ends when every
// worker is idle (termination.cuh), when a worker reports an error (status.cuh), or when the
// host's watchdog raises the stop flag.
#pragma once

// Consecutive failed steal attempts before a worker declares itself idle.
#define WS_IDLE_AFTER 8
// How often (in batches) a busy worker polls the error word and the host's stop flag.
#define WS_POLL_EVERY 256
// Tasks a worker takes at a time: one per thread, or one for all (cooperative).
#if WSDSL_COOPERATIVE
#define WS_BATCH 1u
#else
#define WS_BATCH WS_GROUP
#endif
// `first` value meaning "the task was stolen and is in the leader's hands".
#define WS_IN_HAND 0xffffffffu

// The error word lives in device memory and is cheap to poll. The host's stop flag is read
// over PCIe: if every spinning worker read it, the reads would saturate the bus and stall the
// busy workers that poll too. So only worker 0 reads it (every 64th time), and turns a stop
// request into the device error word that everyone else polls.
#define WS_HOST_POLL_MASK 63u
static __device__ __forceinline__ bool ws_must_stop(const ws_launch* L, unsigned self, unsigned round) {
    if (ws_failed()) return true;
    if (self == 0u && (round & WS_HOST_POLL_MASK) == 0u && ws_load_volatile_sys_u32(L->stop) != 0u) {
        ws_report(WS_STATUS_STOPPED, 0, 0, 0);
        return true;
    }
    return false;
}

enum { WS_FOUND = 0, WS_DONE = 1, WS_ABORTED = 2, WS_DEPOSITED = 3 };

struct ws_worker_stats {
    unsigned long long tasks, tries, steals, peak;
};

// Leader of an out-of-work worker: steal into *out (one task) or into the worker's own deque
// (several: WS_DEPOSITED, published at *tail), or learn that the run is over.
static __device__ int ws_find_work(const ws_launch* L, unsigned self, ws_victim_state* vs, bool* idle,
                                   wsdsl_task* out, unsigned* tail, ws_worker_stats* st) {
    ws_deque* mine = &L->deques[self];
    wsdsl_task* my_slots = L->slots + (unsigned long long)self * L->capacity;
    unsigned fails = 0;
    for (unsigned round = 1;; round++) {
        if (ws_must_stop(L, self, round)) return WS_ABORTED;
        if (L->workers > 1) {
            unsigned victim = ws_pick_victim(L, self, vs);
            ws_deque* vd = &L->deques[victim];
            unsigned available = ws_load_relaxed_u32(&vd->tail) - ws_head_index(ws_load_relaxed_u64(&vd->head));
            if ((int)available > 0) {
                // Leave the idle state before taking anything (termination.cuh invariant).
                if (*idle) { ws_leave_idle(L->idle); *idle = false; }
                const wsdsl_task* vslots = L->slots + (unsigned long long)victim * L->capacity;
                unsigned want = ws_steal_amount(available, vs);
                if (want > L->capacity) want = L->capacity;
                if (want <= 1u) {
                    st->tries++;
                    if (ws_deque_steal(vd, vslots, out) == WS_STEAL_OK) { st->steals++; return WS_FOUND; }
                    continue;
                }
                // Steal several, one CAS each: a multi-slot CAS on head would break the pop's
                // argument that thieves move head one step at a time (deque.cuh).
                unsigned got = 0;
                while (got < want) {
                    st->tries++;
                    if (ws_deque_steal(vd, vslots, &my_slots[got]) != WS_STEAL_OK) break;
                    st->steals++;
                    got++;
                }
                if (got > 0) {
                    *tail = got;
                    ws_fence_acq_rel();
                    ws_deque_publish(mine, got);
                    if (got > st->peak) st->peak = got;
                    return WS_DEPOSITED;
                }
                continue;
            }
        }
        fails++;
        if (!*idle && fails >= WS_IDLE_AFTER) { ws_enter_idle(L->idle); *idle = true; }
        if (*idle) {
            if (ws_all_idle(L->idle, L->workers)) return WS_DONE;
            // Back off while nothing is found, so spinning thieves leave L2 to busy workers.
            __nanosleep(fails < 64u ? 100u : 800u);
        }
    }
}

extern "C" __global__ void __launch_bounds__(WSDSL_BLOCK_THREADS) wsdsl_megakernel(const ws_launch* launch) {
    WS_SHARED(unsigned, s_spawned, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_count, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_first, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_base, WS_GROUPS_PER_BLOCK);
    WS_SHARED(int, s_outcome, WS_GROUPS_PER_BLOCK);
    const ws_launch L = *launch;
    const unsigned group = threadIdx.x / WS_GROUP;
    const unsigned rank = threadIdx.x % WS_GROUP;
    const bool leader = rank == 0;
    const unsigned self = blockIdx.x * WS_GROUPS_PER_BLOCK + group;
    ws_deque* dq = &L.deques[self];
    wsdsl_task* my_slots = L.slots + (unsigned long long)self * L.capacity;

    wsdsl_ctx ctx;
    wsdsl_ctx_init(&ctx, L.params, L.buffers, my_slots, L.capacity, &s_spawned[group]);
    ws_join_attach(&ctx);

    ws_victim_state vs;
    vs.rng = (self + 1u) * 0x9E3779B9u ^ L.seed;
    if (vs.rng == 0) vs.rng = 1;
    vs.next = 0;
    vs.my_sm = ws_smid();
    vs.sm_leader = false;
    ws_worker_stats st = {0, 0, 0, 0};
    unsigned tail = 0;
    if (leader) {
        L.sm_of[self] = vs.my_sm;
        vs.sm_leader = atomicCAS(&L.sm_leader[vs.my_sm], WS_NO_SM, self) == WS_NO_SM;
        // Deal the roots: worker w owns roots w, w + workers, ... (the host checked capacity).
        for (unsigned r = self; r < L.root_count; r += L.workers) my_slots[tail++] = L.roots[r];
        if (tail > 0) { __threadfence(); ws_deque_publish(dq, tail); }
        st.peak = tail;
    }

    bool idle = false;
    unsigned polls = 0;
    wsdsl_task task;
    for (;;) {
        ws_preempt();
        if (leader) {
            int outcome = WS_FOUND;
            unsigned n = 0, first = 0;
            if (++polls == WS_POLL_EVERY) {
                polls = 0;
                if (ws_must_stop(&L, self, 0u)) outcome = WS_ABORTED;
            }
            if (outcome == WS_FOUND) n = ws_deque_pop_batch(dq, &tail, WS_BATCH, &first);
            while (outcome == WS_FOUND && n == 0) {
                outcome = ws_find_work(&L, self, &vs, &idle, &task, &tail, &st);
                if (outcome == WS_FOUND) { n = 1; first = WS_IN_HAND; }
                if (outcome == WS_DEPOSITED) { outcome = WS_FOUND; n = ws_deque_pop_batch(dq, &tail, WS_BATCH, &first); }
            }
#if WSDSL_COOPERATIVE
            // Every thread reads the one task from a slot: put a stolen one where they look.
            if (n > 0 && first == WS_IN_HAND) { my_slots[tail] = task; first = tail; }
#endif
            s_outcome[group] = outcome;
            s_count[group] = n;
            s_first[group] = first;
            s_base[group] = tail;
            s_spawned[group] = 0u;
        }
        ws_group_sync();
        if (s_outcome[group] != WS_FOUND) break;
        const unsigned n = s_count[group];
        const unsigned first = s_first[group];
        ctx.base = s_base[group];
#if WSDSL_COOPERATIVE
        const bool have = n > 0;   // the whole worker runs the one task
        if (have) task = my_slots[first];
#else
        const bool have = rank < n;
        if (have && first != WS_IN_HAND) task = my_slots[first + rank];
#endif
        ws_group_sync();   // every thread holds its task before any child overwrites a slot
        if (have) {
            wsdsl_execute(&task, &ctx);
            __threadfence();   // children written by this thread are ordered before the publish
        }
        ws_group_sync();

        if (leader) {
            st.tasks += n;
            unsigned spawned = s_spawned[group];
            unsigned long long needed = (unsigned long long)tail + spawned;
            if (needed > L.capacity) {
                ws_report(WS_STATUS_OVERFLOW, self, needed, L.capacity);
            } else if (spawned > 0) {
                tail += spawned;
                ws_deque_publish(dq, tail);
                if (tail > st.peak) st.peak = tail;
            }
        }
    }

    ws_join_flush(&ctx);
    wsdsl_counters_flush(&ctx.counters, L.counter_slots);
    if (leader) {
        unsigned long long* s = L.stats + (unsigned long long)self * WS_STAT_COUNT;
        s[WS_STAT_TASKS] = st.tasks;
        s[WS_STAT_STEAL_TRIES] = st.tries;
        s[WS_STAT_STEALS] = st.steals;
        s[WS_STAT_PEAK] = st.peak;
    }
}
