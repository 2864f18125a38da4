// megakernel.cuh — the persistent kernel: one worker per warp, work-stealing deques.
//
// Every warp of a grid sized to be fully resident (occupancy x SMs, launched cooperatively)
// loops: pop up to 32 tasks from its own deque (one per lane) and run them; children go to
// its own deque. With an empty deque, lane 0 steals one task from a random victim. The
// run ends when every worker is idle (termination.cuh), when a worker reports an error
// (status.cuh), or when the host's watchdog raises the stop flag.
#pragma once

#ifndef WSDSL_BLOCK_THREADS
#define WSDSL_BLOCK_THREADS 256
#endif
#define WS_WARPS_PER_BLOCK (WSDSL_BLOCK_THREADS / 32)
#define WS_FULL_MASK 0xffffffffu
// Consecutive failed steal attempts before a worker declares itself idle.
#define WS_IDLE_AFTER 8
// How often (in batches) a busy worker polls the error word and the host's stop flag.
#define WS_POLL_EVERY 256

// Per-worker statistics, in this order, `WS_STAT_COUNT` u64 per worker.
enum { WS_STAT_TASKS, WS_STAT_STEAL_TRIES, WS_STAT_STEALS, WS_STAT_PEAK, WS_STAT_COUNT };

// Everything a launch needs, written by the host into device memory (host mirror:
// `gpu/launch.rs`, struct LaunchRecord; keep the two in the same order).
struct ws_launch {
    wsdsl_task* slots;                  // workers * capacity task slots
    ws_deque* deques;                   // one control block per worker
    const wsdsl_task* roots;            // initial tasks, dealt round-robin to workers
    const wsdsl_params* params;
    const wsdsl_buffers* buffers;       // element pointers and lengths of the user's buffers
    unsigned long long* counter_slots;  // one per counter, pre-set to the reduction identity
    unsigned long long* stats;          // workers * WS_STAT_COUNT
    ws_atom_u32* idle;                  // number of idle workers
    const ws_atom_u32* stop;            // host-mapped: nonzero asks the kernel to stop
    unsigned workers;
    unsigned capacity;
    unsigned root_count;
    unsigned seed;
};

static __device__ __forceinline__ unsigned ws_xorshift(unsigned* s) {
    unsigned x = *s;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    return *s = x;
}

// The error word lives in device memory and is cheap to poll. The host's stop flag is read
// over PCIe: if every spinning warp read it, the reads would saturate the bus and stall the
// busy warps that poll too. So only worker 0 reads it (every 64th time), and turns a stop
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

enum { WS_FOUND = 0, WS_DONE = 1, WS_ABORTED = 2 };

// Lane 0 of an out-of-work warp: steal one task into *out, or learn that the run is over.
static __device__ int ws_find_work(const ws_launch* L, unsigned self, unsigned* rng, bool* idle,
                                   wsdsl_task* out, unsigned long long* tries, unsigned long long* steals) {
    unsigned fails = 0;
    for (unsigned round = 1;; round++) {
        if (ws_must_stop(L, self, round)) return WS_ABORTED;
        if (L->workers > 1) {
            unsigned victim = ws_xorshift(rng) % (L->workers - 1);
            if (victim >= self) victim++;
            ws_deque* vd = &L->deques[victim];
            if (ws_deque_looks_nonempty(vd)) {
                // Leave the idle state before taking anything (termination.cuh invariant).
                if (*idle) { ws_leave_idle(L->idle); *idle = false; }
                (*tries)++;
                const wsdsl_task* vslots = L->slots + (unsigned long long)victim * L->capacity;
                if (ws_deque_steal(vd, vslots, out) == WS_STEAL_OK) { (*steals)++; return WS_FOUND; }
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
    __shared__ unsigned s_spawned[WS_WARPS_PER_BLOCK];
    const ws_launch L = *launch;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned warp = threadIdx.x >> 5;
    const unsigned self = blockIdx.x * WS_WARPS_PER_BLOCK + warp;
    ws_deque* dq = &L.deques[self];
    wsdsl_task* my_slots = L.slots + (unsigned long long)self * L.capacity;

    wsdsl_ctx ctx;
    ctx.params = L.params;
    ctx.buffers = L.buffers;
    wsdsl_counters_init(&ctx.counters);
    ctx.slots = my_slots;
    ctx.capacity = L.capacity;
    ctx.spawned = &s_spawned[warp];

    // Deal the roots: worker w owns roots w, w + workers, ... (the host checked capacity).
    unsigned tail = 0;
    for (unsigned r = self; r < L.root_count; r += L.workers) {
        if (lane == 0) my_slots[tail] = L.roots[r];
        tail++;
    }
    if (lane == 0 && tail > 0) { __threadfence(); ws_deque_publish(dq, tail); }
    __syncwarp();

    unsigned long long n_tasks = 0, n_tries = 0, n_steals = 0, peak = tail;
    unsigned rng = (self + 1u) * 0x9E3779B9u ^ L.seed;
    if (rng == 0) rng = 1;
    bool idle = false;
    unsigned polls = 0;

    for (;;) {
        unsigned n = 0, first = 0;
        int outcome = WS_FOUND;
        wsdsl_task task;
        if (lane == 0) {
            n = ws_deque_pop_batch(dq, &tail, 32u, &first);
            if (n == 0) {
                outcome = ws_find_work(&L, self, &rng, &idle, &task, &n_tries, &n_steals);
                n = outcome == WS_FOUND ? 1u : 0u;
                first = 0xffffffffu;   // the stolen task is already in lane 0's hands
            }
        }
        outcome = __shfl_sync(WS_FULL_MASK, outcome, 0);
        if (outcome != WS_FOUND) break;
        n = __shfl_sync(WS_FULL_MASK, n, 0);
        first = __shfl_sync(WS_FULL_MASK, first, 0);
        const bool have = lane < n;
        if (have && first != 0xffffffffu) task = my_slots[first + lane];

        if (lane == 0) s_spawned[warp] = 0u;
        ctx.base = __shfl_sync(WS_FULL_MASK, tail, 0);
        __syncwarp();   // every lane holds its task before any child overwrites a slot
        if (have) {
            wsdsl_execute(&task, &ctx);
            __threadfence();   // children written by this lane are ordered before the publish
        }
        __syncwarp();

        if (lane == 0) {
            n_tasks += n;
            unsigned spawned = s_spawned[warp];
            unsigned long long needed = (unsigned long long)tail + spawned;
            if (needed > L.capacity) {
                ws_report(WS_STATUS_OVERFLOW, self, needed, L.capacity);
            } else if (spawned > 0) {
                tail += spawned;
                ws_deque_publish(dq, tail);
                if (tail > peak) peak = tail;
            }
        }
        if (++polls == WS_POLL_EVERY) {
            polls = 0;
            bool stop = lane == 0 && ws_must_stop(&L, self, 0u);
            if (__any_sync(WS_FULL_MASK, stop)) break;
        }
    }

    wsdsl_counters_flush(&ctx.counters, L.counter_slots);
    if (lane == 0) {
        unsigned long long* s = L.stats + (unsigned long long)self * WS_STAT_COUNT;
        s[WS_STAT_TASKS] = n_tasks;
        s[WS_STAT_STEAL_TRIES] = n_tries;
        s[WS_STAT_STEALS] = n_steals;
        s[WS_STAT_PEAK] = peak;
    }
}
