// schedulers/deque.cuh — the persistent kernel: workers with work-stealing deques.
//
// Every worker (a thread, a warp or a block: core/launch.cuh) of a grid sized to be fully resident
// (occupancy x SMs, launched cooperatively) loops over batches: its first thread (the leader)
// pops up to one task per thread from the private part of the worker's deque (queues/deque.cuh),
// the threads run them, and their children go on top of the private part. Nothing of this
// touches memory another worker reads, so a busy worker pays no fence and no atomic for its
// own tasks. Thieves see only what the leader exposes: when they have drained the public
// part and the worker holds more than one batch, the surplus (all of it if it fits in a
// batch, else half) becomes public. With an empty deque, the leader reclaims public tasks,
// else steals from a victim (features/victims.cuh): half of what it offers, or all of it if that fits
// in a batch, up to 32 tasks per CAS (queues/deque.cuh).
// The run ends when every worker is idle (core/termination.cuh; across GPUs, every worker of every
// GPU: features/pe.cuh), when a worker reports an error (core/status.cuh), when the host's watchdog raises
// the stop flag, or when another GPU of the run failed.
//
// Continuations (features/join.cuh): a task whose children are all done comes back as a task of its
// own, pushed by the thread that finished its last child onto its worker's resume stack
// (shared memory). Complete handlers thus run in batches like spawn handlers, instead of
// serially on one thread, and in batches of their own: a batch's threads either all run
// spawn handlers or all run complete handlers (GTaP's execution-path-aware queueing, for the
// two paths every fork-join program has). A full batch of continuations goes first; fewer
// wait one batch of spawns at most (a continuation may be the run's critical path: a
// partition's next round, a merge's parent). Across GPUs, continuations whose last child
// finished on another GPU arrive in the worker's inbox (features/join.cuh) and join the same stack.
#pragma once

// Consecutive failed steal attempts before a worker declares itself idle.
#define WS_IDLE_AFTER 8
#ifndef WS_IDLE_SLEEP_NS
#define WS_IDLE_SLEEP_NS 800u
#endif
// How often (in batches) a busy worker polls the error word and the host's stop flag.
#define WS_POLL_EVERY 256
// Tasks a worker takes at a time: one per thread, or one for all (cooperative).
#if WSDSL_COOPERATIVE
#define WS_BATCH 1u
#else
#define WS_BATCH WS_GROUP
#endif
// The resume stack: a count, then frame ids. Before each batch it holds fewer than WS_BATCH
// (a full batch of them runs first), and a batch adds at most one per thread.
#if WSDSL_JOIN
#define WS_RESUME_WORDS (1u + 2u * WS_BATCH)
#else
#define WS_RESUME_WORDS 1u
#endif
// `s_first` of a batch of continuations: the threads take frame ids from the resume stack.
#define WS_FROM_RESUMES 0xffffffffu

// The error word lives in device memory and is cheap to poll. The host's stop flag is read
// over PCIe: if every spinning worker read it, the reads would saturate the bus and stall the
// busy workers that poll too. So only worker 0 reads it (every 64th time), and turns a stop
// request into the device error word that everyone else polls.
#define WS_HOST_POLL_MASK 63u
#ifndef WS_PEER_POLL_MASK
#define WS_PEER_POLL_MASK 15u
#endif
// Across GPUs, a worker leaving because of this GPU's own error tells the other GPUs.
static __device__ __forceinline__ bool ws_must_stop(const ws_launch* L, unsigned self, unsigned round) {
    bool stop = ws_failed();
    if (!stop && self == 0u && (round & WS_HOST_POLL_MASK) == 0u && ws_load_volatile_sys_u32(L->stop) != 0u) {
        ws_report(WS_STATUS_STOPPED, 0, 0, 0);
        stop = true;
    }
#if WSDSL_PES
    // Another GPU's failure is looked at every WS_PEER_POLL_MASK + 1 rounds of a search (and
    // at every poll of a busy worker, whose round is 0): looking every round would make each
    // round of a search wait for two loads in a row, the status's and then, behind the branch
    // on it, this one, a second L2 round trip per probe that the one-GPU kernel does not make
    // and no round needs. It is not what makes a steal cost 19% more cycles on two GPUs: on
    // two H100s T3L runs 0.92x one GPU against 0.91x polling every round, N-Queens 18 and
    // T1XL alike.
    if (!stop && (round & WS_PEER_POLL_MASK) == 0u && ws_pe_peer_stopped(L)) {
#else
    if (!stop && ws_pe_peer_stopped(L)) {
#endif
        ws_report(WS_STATUS_PEER, 0, 0, 0);
        return true;
    }
    if (stop && L->n_pes > 1 && ws_load_relaxed_u64(&wsdsl_status.code) != WS_STATUS_PEER) ws_pe_forward_stop(L);
    return stop;
}

enum { WS_FOUND = 0, WS_DONE = 1, WS_ABORTED = 2 };

struct ws_worker_stats {
    unsigned long long tasks, tries, steals, peak, remote_steals;
    unsigned long long rob_cycles, robs;   // profiled kernels: successful robs (core/stats.cuh)
};

#if WS_AGE_TRACE && WSDSL_PROFILE
// The age trace (core/stats.cuh): each deque slot's spawn time (globaltimer ns), for slots
// worker * capacity + slot below WS_AGE_SLOTS; a development variant, so a fixed array.
#define WS_AGE_SLOTS (1u << 24)
__device__ unsigned long long ws_born[WS_AGE_SLOTS];
static __device__ __forceinline__ unsigned long long* ws_born_at(const ws_launch* L, unsigned worker, unsigned slot) {
    const unsigned long long i = (unsigned long long)worker * L->capacity + slot;
    return i < WS_AGE_SLOTS ? &ws_born[i] : nullptr;
}
#define WS_AGE(stmt) stmt
#else
#define WS_AGE(stmt) ((void)0)
#endif

// A victim's deque, wherever it is: worker `global % workers` of GPU `global / workers`,
// reached through the peer mapping when that GPU is another (features/pe.cuh).
struct ws_victim_deque {
    ws_deque* deque;
    const wsdsl_task* slots;
    unsigned pe;
};

static __device__ __forceinline__ ws_victim_deque ws_victim_at(const ws_launch* L, unsigned global) {
#if WSDSL_PES
    const unsigned pe = global / L->workers;
    const unsigned w = global % L->workers;
#else
    const unsigned pe = 0u, w = global;   // one GPU: the id is the worker (no division per probe)
#endif
#if WSDSL_PES_ONE_SIDED
    // Another host's GPU: its deque by the symmetric address (features/pe.cuh), for one-sided calls.
    if (!ws_pe_mapped(L, pe)) return {&L->deques[w], L->slots + (unsigned long long)w * L->capacity, pe};
#endif
    return {ws_pe_ptr(L, &L->deques[w], pe), ws_pe_ptr(L, L->slots + (unsigned long long)w * L->capacity, pe), pe};
}

// What `v` offers to thieves (queues/deque.cuh), through one-sided calls for another host's GPU.
// Another GPU's deque offers nothing until its owner shares it; one that holds
// WS_REMOTE_ASK tasks or more is asked to (queues/deque.cuh, "scope follows sharing").
static __device__ __forceinline__ unsigned ws_victim_offers(const ws_launch* L, ws_victim_deque v) {
#if WSDSL_PES
    if (v.pe != L->pe) {
        ws_atom_u64 head;
        unsigned split;
#if WSDSL_PES_ONE_SIDED
        const bool mapped = ws_pe_mapped(L, v.pe);
        if (!mapped) {
            split = ws_far_fetch_u32(&v.deque->split, v.pe);
            head = ws_far_fetch_u64(&v.deque->head, v.pe);
        } else
#endif
        {
            split = ws_sys_load_relaxed_u32(&v.deque->split);
            head = ws_sys_load_relaxed_u64(&v.deque->head);
        }
        const unsigned offered = split - ws_head_index(head);
        if ((head & WS_HEAD_SHARED) != 0ull) return offered;
        if ((head & WS_HEAD_ASKED) == 0ull && (int)offered >= (int)WS_REMOTE_ASK) {
#if WSDSL_PES_ONE_SIDED
            if (!mapped) ws_far_or_u64(&v.deque->head, WS_HEAD_ASKED, v.pe);
            else
#endif
            ws_sys_or_relaxed_u64(&v.deque->head, WS_HEAD_ASKED);
        }
        return 0u;
    }
#else
    (void)L;
#endif
    return ws_deque_public_count(v.deque);
}

// ws_deque_steal on `v`; for another host's GPU the same steps as one-sided calls: fetch the
// head, then the split, get the slots, and claim them with a compare-and-swap on the head.
static __device__ __forceinline__ unsigned ws_victim_steal(const ws_launch* L, ws_victim_deque v, unsigned want, wsdsl_task* out, unsigned* from) {
#if WSDSL_PES_ONE_SIDED
    if (!ws_pe_mapped(L, v.pe)) {
        const unsigned pe = v.pe;
        const ws_atom_u64 old_head = ws_far_fetch_u64(&v.deque->head, pe);
        if ((old_head & WS_HEAD_SHARED) == 0ull) return 0;   // not shared (queues/deque.cuh)
        ws_thief_fence_sc();   // the head is read before the split, as at home
        const unsigned split = ws_far_fetch_u32(&v.deque->split, pe);
        const unsigned index = ws_head_index(old_head);
        if (split <= index) return 0;
        unsigned n = split - index;
        if (n > want) n = want;
        if (n > WS_STEAL_CLAIM) n = WS_STEAL_CLAIM;
        ws_far_get(out, v.slots + index, n * sizeof(wsdsl_task), pe);
        if (ws_far_cas_u64(&v.deque->head, old_head, old_head + n, pe) != old_head) return 0;
        *from = index;
        return n;
    }
#endif
#if WSDSL_PES
    return ws_deque_steal(v.deque, v.slots, want, out, from, v.pe != L->pe);
#else
    (void)L;
    return ws_deque_steal(v.deque, v.slots, want, out, from, false);
#endif
}

// Steals up to `want` tasks from `v` into `into[0, n)`, a claim of up to WS_STEAL_CLAIM
// tasks per CAS (queues/deque.cuh). Returns n; stops at the first claim that takes nothing.
// `victim`, `self`, `at`: the victim's global id, this worker and the first slot of `into`
// (the age trace's bookkeeping).
static __device__ unsigned ws_rob(const ws_launch* L, ws_victim_deque v, unsigned want, wsdsl_task* into, ws_worker_stats* st,
                                  unsigned victim, unsigned self, unsigned at) {
    WS_PROF(const unsigned long long t0 = ws_clock());
    unsigned got = 0;
    while (got < want) {
        st->tries++;
        unsigned from = 0;
        const unsigned n = ws_victim_steal(L, v, want - got, &into[got], &from);
        if (n == 0) break;
#if WS_AGE_TRACE && WSDSL_PROFILE
        // Stolen tasks keep their spawn times (only from this GPU's deques: another GPU's
        // trace is its own), else count from now.
        for (unsigned i = 0; i < n; i++) {
            unsigned long long* to = ws_born_at(L, self, at + got + i);
            const unsigned long long* was = v.pe == L->pe ? ws_born_at(L, victim % L->workers, from + i) : nullptr;
            if (to != nullptr) *to = was != nullptr ? *was : ws_globaltimer();
        }
#else
        (void)victim; (void)self; (void)at; (void)from;
#endif
        got += n;
    }
    // A steal is one call that took work, whatever it took: never more than the claims tried.
    if (got > 0) st->steals++;
    if (v.pe != L->pe) st->remote_steals += got;
    WS_PROF(if (got > 0) { st->rob_cycles += ws_clock() - t0; st->robs++; });
    return got;
}

// HWS across GPUs (WSDSL_VICTIM 3): a GPU's leader fetches for its whole GPU. After a first
// steal from another GPU it visits up to WS_HWS_VISITS more workers there, taking half of
// what each offers, until it holds WS_HWS_BULK tasks; its own GPU's thieves then take them
// from it. (A deque offers only what its owner exposed, so half of one victim is often a
// single batch: on its own that would starve an empty GPU.)
#define WS_HWS_VISITS 8u
#define WS_HWS_BULK (8u * WS_BATCH)
static __device__ unsigned ws_hws_gather(const ws_launch* L, unsigned self, ws_victim_state* vs, wsdsl_task* my_slots,
                                         unsigned got, ws_worker_stats* st) {
    const unsigned bulk = WS_HWS_BULK < L->capacity ? WS_HWS_BULK : L->capacity;
    for (unsigned visit = 0; visit < WS_HWS_VISITS && got < bulk; visit++) {
        const unsigned victim = ws_pick_victim(L, self, vs);
        const ws_victim_deque v = ws_victim_at(L, victim);
        const unsigned available = ws_victim_offers(L, v);
        if ((int)available <= 0) continue;
        unsigned want = (available + 1u) / 2u;
        if (want > bulk - got) want = bulk - got;
        got += ws_rob(L, v, want, &my_slots[got], st, victim, self, got);
    }
    return got;
}

// Across GPUs, continuations sent home to worker `self` by other GPUs (features/join.cuh) join its
// resume stack, up to a batch, from its inbox whose ticket is `tail`; returns how many came.
// `head`: the worker's own ticket.
static __device__ __forceinline__ unsigned ws_take_sent_home(unsigned self, unsigned long long* head, unsigned long long tail, ws_u32* resumes) {
#if WSDSL_PES && WSDSL_JOIN
    return resumes[0] < WS_BATCH && tail != *head ? ws_join_take_home(self, head, tail, resumes, WS_BATCH - resumes[0]) : 0u;
#else
    (void)self; (void)head; (void)tail; (void)resumes;
    return 0u;
#endif
}

#if WSDSL_JOBS && WS_JOB_COOPERATIVE
// Leader, after popping the `*n` tasks at [*first, *first + *n) off the top of its private
// part: keeps at most WS_JOB_POP job records (features/parallel.cuh), counting from the top, and leaves
// the tasks below the last one it keeps on top of the private part, where this batch's
// exposure offers them to thieves. A split job's pieces then spread over the GPU instead of
// bouncing on the worker that split it (a worker runs its queued jobs one after the other).
static __device__ void ws_jobs_limit_pop(const wsdsl_task* slots, ws_deque_owner* own, unsigned* first, unsigned* n) {
    unsigned keep = 0, jobs = 0;
    while (keep < *n) {
        // Tags of up to 32 tasks from the top down, loaded together.
        ws_u32 tag[32];
        const unsigned m = *n - keep < 32u ? *n - keep : 32u;
        WS_UNROLL for (unsigned i = 0; i < 32u; i++)
            if (i < m) tag[i] = slots[*first + *n - 1u - keep - i].tag;
        for (unsigned i = 0; i < m; i++) {
            if (tag[i] == WS_TAG_JOB && ++jobs > WS_JOB_POP) {
                const unsigned back = *n - keep;
                own->top += back;
                *first += back;
                *n = keep;
                return;
            }
            keep++;
        }
    }
}
#endif

// Leader of an out-of-work worker (its deque empty, head at slot 0): steals one task or
// several into its own slots [0, got), which become its private part, or (across GPUs)
// takes continuations sent home onto `resumes`, or learns that the run is over.
static __device__ int ws_find_work(const ws_launch* L, unsigned self, ws_victim_state* vs, bool* idle,
                                   ws_deque_owner* own, ws_worker_stats* st, ws_u32* resumes, unsigned long long* home_head) {
    wsdsl_task* my_slots = L->slots + (unsigned long long)self * L->capacity;
    unsigned fails = 0;
    for (unsigned round = 1;; round++) {
        if (ws_must_stop(L, self, round)) return WS_ABORTED;
#if WSDSL_PES && WSDSL_JOIN
        const unsigned long long tail = ws_join_inbox_tail(self);
        if (tail != *home_head) {
            // Leave the idle state before taking anything (core/termination.cuh invariant).
            if (*idle) { ws_leave_idle(L->state); *idle = false; }
            if (ws_take_sent_home(self, home_head, tail, resumes) > 0) return WS_FOUND;
        }
#endif
        unsigned victim = 0u;
        if (L->workers * L->n_pes > 1 && ws_draw_victim(L, self, vs, &victim)) {
            const ws_victim_deque v = ws_victim_at(L, victim);
            const unsigned available = ws_victim_offers(L, v);
            const bool worth = (int)available >= (int)ws_victim_min_offer(L, victim);
            ws_remote_outcome(L, vs, victim, worth);
            if (worth) {
                // Leave the idle state before taking anything (core/termination.cuh invariant).
                if (*idle) { ws_leave_idle(L->state); *idle = false; }
                unsigned want = ws_steal_amount(available, vs);
                if (want > L->capacity) want = L->capacity;
                unsigned got = ws_rob(L, v, want, my_slots, st, victim, self, 0u);
                if (got > 0) {
                    if (WSDSL_VICTIM == WS_VICTIM_HWS && vs->gpu_leader) got = ws_hws_gather(L, self, vs, my_slots, got, st);
                    own->split = 0;
                    own->top = got;
                    if (got > st->peak) st->peak = got;
                    return WS_FOUND;
                }
                continue;
            }
        }
        if (WS_REMOTE_SKIP_REDRAWS && victim == WS_VICTIM_REDRAW && L->workers > 1u) continue;   // features/victims.cuh
        fails++;
        if (!*idle && fails >= WS_IDLE_AFTER) { ws_enter_idle(L->state, ws_own_sys(own)); *idle = true; }
        if (*idle) {
            if (ws_all_idle(L->state, L->workers) && ws_pe_finished(L, self, round)) return WS_DONE;
            // Back off while nothing is found, so spinning thieves leave L2 to busy workers.
            __nanosleep(fails < 64u ? 100u : WS_IDLE_SLEEP_NS);
        }
    }
}

extern "C" __global__ void __launch_bounds__(WSDSL_BLOCK_THREADS, WSDSL_MIN_BLOCKS) wsdsl_megakernel(const ws_launch* launch) {
    WS_SHARED(unsigned, s_spawned, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_count, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_first, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_base, WS_GROUPS_PER_BLOCK);
    WS_SHARED(unsigned, s_expose, WS_GROUPS_PER_BLOCK);
    WS_SHARED(int, s_outcome, WS_GROUPS_PER_BLOCK);
    WS_SHARED(ws_u32, s_stash, WS_GROUPS_PER_BLOCK * WS_STASH_WORDS);
    WS_SHARED(ws_u32, s_resume, WS_GROUPS_PER_BLOCK * WS_RESUME_WORDS);
#if WSDSL_JOBS && WS_JOB_COOPERATIVE
    // Each worker's list of jobs to run after its batch, tile and scan words (features/parallel.cuh).
    WS_SHARED(ws_u64, s_jobs, WS_GROUPS_PER_BLOCK * WS_JOB_MEM_WORDS);
#endif
#if WS_AGE_TRACE && WSDSL_PROFILE
    WS_SHARED(unsigned, s_stolen, WS_GROUPS_PER_BLOCK);   // whether this batch was just stolen
    unsigned long long wait_ns[2] = {0ull, 0ull}, waits[2] = {0ull, 0ull};   // [own, stolen]
#endif
    const ws_launch L = *launch;
    const unsigned group = threadIdx.x / WS_GROUP;
    const unsigned rank = threadIdx.x % WS_GROUP;
    const bool leader = rank == 0;
    const unsigned self = blockIdx.x * WS_GROUPS_PER_BLOCK + group;
    ws_deque* dq = &L.deques[self];
    wsdsl_task* my_slots = L.slots + (unsigned long long)self * L.capacity;

    wsdsl_ctx ctx;
    wsdsl_ctx_init(&ctx, L.params, L.buffers, my_slots, L.capacity, &s_spawned[group]);
    ws_join_attach(&ctx, &s_stash[group * WS_STASH_WORDS], self, leader);
    ws_u32* resumes = &s_resume[group * WS_RESUME_WORDS];
    if (leader) resumes[0] = 0u;
#if WSDSL_JOIN
    ctx.resumes = resumes;
#endif
#if WSDSL_JOBS && WS_JOB_COOPERATIVE
    ws_u64* jobs = &s_jobs[group * WS_JOB_MEM_WORDS];
    if (leader) *(unsigned*)jobs = 0u;
    ctx.jobs = jobs;
#endif

    ws_victim_state vs;
    vs.rng = (self + 1u) * 0x9E3779B9u ^ L.seed;
    if (vs.rng == 0) vs.rng = 1;
    vs.next = 0;
    vs.my_sm = ws_smid();
    vs.sm_leader = false;
    vs.gpu_leader = WSDSL_VICTIM == WS_VICTIM_HWS && L.n_pes > 1 && self == 0;
#if WSDSL_PES
    vs.remote_rest = 0u;
    vs.remote_backoff = 0u;
#endif
#if WSDSL_PES_ONE_SIDED
    // The host leader: the GPU leader of the host's first GPU (the lowest one mapped here).
    {
        unsigned first = 0u;
        while (first < L.pe && !ws_pe_mapped(&L, first)) first++;
        vs.host_leader = vs.gpu_leader && first == L.pe;
    }
#endif
    ws_worker_stats st = {0, 0, 0, 0, 0, 0, 0};
    WS_PROF(unsigned long long prof[WS_PROF_COUNT] = {0});
    WS_PROF(const unsigned long long prof_start = ws_clock());
#if WSDSL_PES
    ws_deque_owner own = {0u, 0u, false};
#if WS_DEQUES_START_SHARED
    // A comparison (WSDSL_DEFINES=WS_DEQUES_START_SHARED): every deque shared from the start,
    // its owner's fences at system scope from the first batch on (the GPU's own thieves keep
    // theirs at GPU scope): what scope following sharing saves.
    if (leader) {
        ws_fence_sc_at(true);
        ws_sys_or_relaxed_u64(&dq->head, WS_HEAD_SHARED);
        own.shared = true;
    }
#endif
#else
    ws_deque_owner own = {0u, 0u};
#endif
    bool drained = true;   // whether thieves have taken everything public (last look)
    bool resumes_waited = false;   // continuations waited through a batch of spawns
    if (leader) {
        L.sm_of[self] = vs.my_sm;
        vs.sm_leader = !vs.gpu_leader && atomicCAS(&L.sm_leader[vs.my_sm], WS_NO_SM, self) == WS_NO_SM;
        // Deal the roots: worker w owns roots w, w + workers, ... (the host checked capacity).
        for (unsigned r = self; r < L.root_count; r += L.workers) {
            WS_AGE(if (unsigned long long* b = ws_born_at(&L, self, own.top)) *b = ws_globaltimer());
            my_slots[own.top++] = L.roots[r];
        }
        st.peak = own.top;
    }

    bool idle = false;
    unsigned polls = 0;
    unsigned long long published_at = 0;
    unsigned long long home_head = 0;   // across GPUs: this worker's inbox ticket (features/join.cuh)
    wsdsl_task task;
    for (;;) {
        ws_preempt();
        if (leader) {
            int outcome = WS_FOUND;
            unsigned n = 0, first = 0, expose = 0;
            WS_AGE(bool stolen = false);
            if (++polls == WS_POLL_EVERY) {
                polls = 0;
                if (ws_must_stop(&L, self, 0u)) outcome = WS_ABORTED;
                ws_publish_progress(L.progress, self, st.tasks, &published_at);
            }
            WS_PROF(unsigned long long t0 = ws_clock());
#if WSDSL_JOIN
#if WSDSL_PES
            if ((polls & 7u) == 0u) ws_take_sent_home(self, &home_head, ws_join_inbox_tail(self), resumes);
#endif
            const unsigned waiting = resumes[0];
            if (outcome == WS_FOUND && (waiting >= WS_BATCH || (waiting > 0 && resumes_waited))) {
                // A full batch of continuations, or those that waited a batch already.
                n = waiting < WS_BATCH ? waiting : WS_BATCH;
                first = WS_FROM_RESUMES;
            }
            resumes_waited = waiting > 0 && first != WS_FROM_RESUMES;
#endif
            if (outcome == WS_FOUND && n == 0) {
                n = ws_deque_pop_private(&own, WS_BATCH, &first);
#if WSDSL_JOBS && WS_JOB_COOPERATIVE
                ws_jobs_limit_pop(my_slots, &own, &first, &n);
#endif
                if (n == 0) n = ws_deque_reclaim(dq, my_slots, &own, WS_BATCH, &first);
#if WSDSL_JOIN
                if (n == 0 && waiting > 0) {
                    n = waiting;              // the deque is empty: the rest of them
                    first = WS_FROM_RESUMES;
                    resumes_waited = false;
                }
#endif
            }
            WS_PROF(prof[WS_PROF_OWN] += ws_clock() - t0);
            while (outcome == WS_FOUND && n == 0) {
                WS_PROF(t0 = ws_clock());
                outcome = ws_find_work(&L, self, &vs, &idle, &own, &st, resumes, &home_head);
                if (outcome == WS_FOUND) n = ws_deque_pop_private(&own, WS_BATCH, &first);
#if WSDSL_JOBS && WS_JOB_COOPERATIVE
                if (outcome == WS_FOUND) ws_jobs_limit_pop(my_slots, &own, &first, &n);
#endif
                WS_AGE(stolen = n > 0);
#if WSDSL_JOIN && WSDSL_PES
                if (outcome == WS_FOUND && n == 0 && resumes[0] > 0) {
                    n = resumes[0] < WS_BATCH ? resumes[0] : WS_BATCH;   // sent home (above)
                    first = WS_FROM_RESUMES;
                }
#endif
                WS_PROF(prof[outcome == WS_FOUND ? WS_PROF_SEARCH : WS_PROF_IDLE] += ws_clock() - t0);
            }
            // Once thieves have taken what was offered: a surplus that fits in one batch is
            // offered whole (this worker would start it only a batch from now; idle thieves
            // can start it at once), a larger one half at a time.
            const unsigned left = own.top - own.split;
            if (n > 0 && drained && left > 0u) expose = left <= WS_BATCH ? left : left / 2u;
#if WSDSL_JOIN
            // The continuations of this batch leave the stack now: new ones go on top.
            if (first == WS_FROM_RESUMES) resumes[0] -= n;
#endif
            WS_PROF(if (n > 0) { prof[WS_PROF_BATCHES]++; prof[WS_PROF_LANES] += n; });
            if (outcome == WS_FOUND) ws_join_prepare(&ctx);
            s_outcome[group] = outcome;
            s_count[group] = n;
            s_first[group] = first;
            s_base[group] = own.top;
#if WSDSL_PES
            // The deque's scope travels in the same word (one shared store a batch).
            s_expose[group] = expose | (own.shared ? WS_EXPOSE_SHARED : 0u);
#else
            s_expose[group] = expose;
#endif
            s_spawned[group] = 0u;
            WS_AGE(s_stolen[group] = stolen ? 1u : 0u);
        }
        ws_group_sync();
        if (s_outcome[group] != WS_FOUND) break;
        const unsigned n = s_count[group];
#if WSDSL_PES
        const unsigned expose_word = s_expose[group];
        const bool expose_shared = (expose_word & WS_EXPOSE_SHARED) != 0u;
        const unsigned expose = expose_word & ~WS_EXPOSE_SHARED;
#else
        const unsigned expose = s_expose[group];
#endif
        ctx.base = s_base[group];
#if WSDSL_COOPERATIVE
        const bool have = n > 0;   // the whole worker runs the one task
        if (have) task = my_slots[s_first[group]];
#else
        const bool have = rank < n;
#if WSDSL_JOIN
        if (have && s_first[group] == WS_FROM_RESUMES) {
            task.tag = WS_TAG_RESUME;
            task.join_frame = resumes[1 + resumes[0] + rank];
        } else
#endif
        if (have) {
            task = my_slots[s_first[group] + rank];
#if WS_AGE_TRACE && WSDSL_PROFILE
            // Read before any child overwrites the slot's time (children reuse popped slots).
            if (const unsigned long long* b = ws_born_at(&L, self, s_first[group] + rank)) {
                const unsigned k = s_stolen[group];
                wait_ns[k] += ws_globaltimer() - *b;
                waits[k]++;
            }
#endif
        }
#endif
        WS_PROF(const unsigned long long exec_start = ws_clock());
        ws_group_sync();   // every thread holds its task before any child overwrites a slot
        // The head, for the next exposure decision: read now, used after the batch, so its
        // latency hides behind the handlers.
        ws_atom_u64 head_seen = 0;
        if (leader) head_seen = ws_own_load_relaxed_u64(&dq->head);
        if (have) ws_run_task(&task, &ctx);
#if WSDSL_JOBS && WS_JOB_COOPERATIVE
        // The jobs the batch queued run now, by all the worker's threads (features/parallel.cuh); a
        // split one takes a frame, so the stash is topped up first. Their children join the
        // batch's in the deque.
        ws_group_sync();
        if (ws_jobs_queued(jobs)) {
            if (leader) ws_join_prepare(&ctx);
            ws_group_sync();
            ws_jobs_after_batch(&ctx, jobs, rank);
        }
#endif
        // Slots about to be exposed were written by this worker's threads, in this batch or
        // earlier: each orders its writes before the leader's release of `split`.
#if WSDSL_PES
        if (expose > 0) ws_fence_release_at(expose_shared);
#else
        if (expose > 0) ws_fence_acq_rel();
#endif
        ws_group_sync();
        WS_PROF(const unsigned long long publish_start = ws_clock());
        WS_PROF(prof[WS_PROF_EXEC] += publish_start - exec_start);
#if WS_AGE_TRACE && WSDSL_PROFILE
        {
            // The children's spawn time, one slot per thread (they sit at [base, base + spawned)).
            const unsigned long long now = ws_globaltimer();
            for (unsigned i = rank; i < s_spawned[group]; i += WS_GROUP)
                if (unsigned long long* b = ws_born_at(&L, self, s_base[group] + i)) *b = now;
        }
#endif

        if (leader) {
            st.tasks += n;
            const unsigned spawned = s_spawned[group];
            const unsigned long long needed = (unsigned long long)own.top + spawned;
            if (needed > L.capacity) {
                ws_report(WS_STATUS_OVERFLOW, self, needed, L.capacity);
            } else {
                own.top += spawned;
                if (own.top > st.peak) st.peak = own.top;
            }
            drained = ws_deque_public_drained(&own, head_seen);
            if (expose > 0) {
                ws_deque_expose(dq, &own, expose);
                drained = false;
            }
#if WSDSL_PES
            if (ws_deque_was_asked(&own, head_seen)) ws_deque_share(dq, &own, head_seen);
#endif
            WS_PROF(prof[WS_PROF_PUBLISH] += ws_clock() - publish_start);
        }
    }

    ws_join_detach(&ctx, self, leader);
    wsdsl_counters_flush(&ctx.counters, L.counter_slots);
    if (leader) {
        unsigned long long* s = L.stats + (unsigned long long)self * WS_STAT_WORDS;
        s[WS_STAT_TASKS] = st.tasks;
        s[WS_STAT_STEAL_TRIES] = st.tries;
        s[WS_STAT_STEALS] = st.steals;
        s[WS_STAT_PEAK] = st.peak;
        s[WS_STAT_REMOTE_STEALS] = st.remote_steals;
        WS_PROF(prof[WS_PROF_TOTAL] = ws_clock() - prof_start);
        WS_PROF(prof[WS_PROF_ROB] = st.rob_cycles);
        WS_PROF(prof[WS_PROF_ROBS] = st.robs);
        // Lanes add the join, frame and wait words themselves (below).
        WS_PROF(for (unsigned k = 0; k < WS_PROF_WAIT_OWN; k++) if (k != WS_PROF_JOIN && k != WS_PROF_FRAMES) s[WS_STAT_COUNT + k] = prof[k]);
    }
    WS_PROF(ws_prof_flush_lane(&ctx, L.stats + (unsigned long long)self * WS_STAT_WORDS));
#if WS_AGE_TRACE && WSDSL_PROFILE
    {
        unsigned long long* w = L.stats + (unsigned long long)self * WS_STAT_WORDS + WS_STAT_COUNT;
        atomicAdd(&w[WS_PROF_WAIT_OWN], wait_ns[0]);
        atomicAdd(&w[WS_PROF_WAITS_OWN], waits[0]);
        atomicAdd(&w[WS_PROF_WAIT_STOLEN], wait_ns[1]);
        atomicAdd(&w[WS_PROF_WAITS_STOLEN], waits[1]);
    }
#endif
}
