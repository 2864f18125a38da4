// features/victims.cuh — whom an idle worker tries to rob.
//
// Policies (WSDSL_VICTIM):
//   0 random       uniform over all other workers (Cederman & Tsigas; the default).
//   1 round-robin  the next worker after the last one tried.
//   2 PWS          probabilistic work stealing (Quintin & Wagner): a random candidate is
//                  accepted with a probability that falls with its distance — same block 1,
//                  same SM 1/2, another SM 1/8 — so most steals stay on the SM.
//   3 HWS          hierarchical work stealing (Quintin & Wagner): one leader per SM robs
//                  workers on other SMs, taking half of the victim's deque for its SM; the
//                  others rob only workers of their own SM.
//   4 small-world  a sparse Kleinberg graph (Fontenaille et al.): each worker may rob only
//                  its ring neighbours and O(log n) shortcuts drawn with probability ~ 1/d.
// SM placement is learnt at start: each worker writes its SM id into `sm_of`, and the first
// worker of each SM claims `sm_leader[sm]`. Ids not yet written read as "far".
//
// Across GPUs (features/pe.cuh) a victim is a global id, `pe * workers + w`, and each policy goes one
// level up the hierarchy: random and round-robin range over every GPU's workers; PWS accepts
// a worker of another GPU with probability 1/64; HWS makes worker 0 of each GPU its leader,
// which robs only other GPUs and takes half (the SM leaders rob other SMs of their own GPU);
// the small-world graph is drawn over all workers of all GPUs. On one GPU, ids are local.
//
// Across hosts (WSDSL_PES_ONE_SIDED, features/pe.cuh: another host's GPUs are the unmapped ones), hosts
// are one more level: PWS accepts another host's worker with an eighth of the chance of
// another GPU's (1/512), and under HWS only the leader of the host's first GPU robs other
// hosts; the other GPUs' leaders rob GPUs of their own host.
//
// WSDSL_VICTIM and WSDSL_STEAL_HALF are tested with `if`, not `#if`: on the GPU they are
// literals and the compiler keeps only the chosen branch; the host build of the templates
// makes them variables set at launch, so one build serves every victim and steal choice.
#pragma once

#ifndef WSDSL_VICTIM
#define WSDSL_VICTIM 0
#endif

// The policies' codes, as the host builds WSDSL_VICTIM (`Victim::code`, wsdsl-abi).
#define WS_VICTIM_RANDOM 0u
#define WS_VICTIM_ROUND_ROBIN 1u
#define WS_VICTIM_PWS 2u
#define WS_VICTIM_HWS 3u
#define WS_VICTIM_SMALL_WORLD 4u

#define WS_NO_SM 0xffffffffu

static __device__ __forceinline__ unsigned ws_smid() {
#ifdef WS_HOST_EMULATION
    return blockIdx.x / 2u;   // the host emulation places two blocks on each "SM"
#else
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
#endif
}

// A stateless 32-bit mix (for the fixed small-world graph).
static __device__ __forceinline__ unsigned ws_mix(unsigned x) {
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}

struct ws_victim_state {
    unsigned rng;        // xorshift state
    unsigned next;       // round-robin cursor
    unsigned my_sm;
    bool sm_leader;      // HWS: this worker robs other SMs for its SM
    bool gpu_leader;     // HWS across GPUs: this worker robs other GPUs for its GPU
#if WSDSL_PES_ONE_SIDED
    bool host_leader;    // HWS across hosts: this GPU leader also robs other hosts
#endif
#if WSDSL_PES
    unsigned remote_rest;     // probes left before this thief tries another GPU again
    unsigned remote_backoff;  // the rest after its last empty probe of another GPU
#endif
};

static __device__ __forceinline__ unsigned ws_random_other(unsigned self, unsigned workers, unsigned* rng) {
    unsigned v = ws_xorshift(rng) % (workers - 1);
    return v >= self ? v + 1 : v;
}

static __device__ __forceinline__ unsigned ws_sm_of(const unsigned* sm_of, unsigned w) {
    return ws_load_relaxed_u32(sm_of + w);
}

// The k-th neighbour of `self` in the small-world graph: k = 0, 1 the ring, k >= 2 a
// shortcut at distance d drawn with P(d) ~ 1/d over [1, workers/2] (d = (n/2)^u, u uniform).
static __device__ unsigned ws_small_world_neighbour(unsigned self, unsigned workers, unsigned k) {
    if (k == 0) return (self + 1) % workers;
    if (k == 1) return (self + workers - 1) % workers;
    unsigned h = ws_mix(self * 0x9E3779B9u ^ (k * 0x85EBCA6Bu));
    float u = (float)(h >> 8) * (1.0f / 16777216.0f);
    float half = (float)(workers / 2 > 1 ? workers / 2 : 1);
    unsigned d = (unsigned)__powf(half, u);
    if (d < 1) d = 1;
    return (h & 1u) ? (self + d) % workers : (self + workers - (d % workers)) % workers;
}

// Picks the next victim for local worker `self`: a global id, never self's own (requires
// more than one worker in the run).
static __device__ unsigned ws_pick_victim(const ws_launch* L, unsigned self, ws_victim_state* st) {
    const unsigned w = L->workers;
    const unsigned n = w * L->n_pes;
    const unsigned base = L->pe * w;   // this GPU's first global id
    const unsigned me = base + self;
    if (WSDSL_VICTIM == WS_VICTIM_ROUND_ROBIN) {
        return (me + 1u + (st->next++ % (n - 1u))) % n;
    } else if (WSDSL_VICTIM == WS_VICTIM_PWS) {
        unsigned v = ws_random_other(me, n, &st->rng);
        for (int tries = 0; tries < 16; tries++) {
            unsigned r = ws_xorshift(&st->rng) & 63u;      // acceptance draw in 0..63
            bool same_gpu = v - base < w;
            bool same_block = same_gpu && (v - base) / WS_GROUPS_PER_BLOCK == self / WS_GROUPS_PER_BLOCK;
            bool same_sm = same_gpu && ws_sm_of(L->sm_of, v - base) == st->my_sm;
#if WSDSL_PES_ONE_SIDED
            // Another host's worker: a further 1-in-8 draw on top of another GPU's 1 in 64.
            const bool far = !ws_pe_mapped(L, v / w) && (ws_xorshift(&st->rng) & 7u) != 0u;
#else
            const bool far = false;
#endif
            if (same_block || (same_sm && r < 32u) || (same_gpu && r < 8u) || (r == 0u && !far)) return v;
            v = ws_random_other(me, n, &st->rng);
        }
        return v;
    } else if (WSDSL_VICTIM == WS_VICTIM_HWS) {
        if (st->gpu_leader) {
            // A worker of another GPU, uniformly.
            unsigned pe = ws_xorshift(&st->rng) % (L->n_pes - 1u);
            if (pe >= L->pe) pe++;
#if WSDSL_PES_ONE_SIDED
            // Only the host leader leaves the host; the others redraw for a GPU of their own.
            for (int tries = 0; tries < 16 && !st->host_leader && !ws_pe_mapped(L, pe); tries++) {
                pe = ws_xorshift(&st->rng) % (L->n_pes - 1u);
                if (pe >= L->pe) pe++;
            }
#endif
            return pe * w + ws_xorshift(&st->rng) % w;
        }
        if (w < 2u) return (me + 1u) % n;   // alone on its GPU: only the leader can find work
        // SM leaders look for a worker on another SM of this GPU; the rest for one on their own SM.
        unsigned v = ws_random_other(self, w, &st->rng);
        for (int tries = 0; tries < 16; tries++) {
            bool same_sm = ws_sm_of(L->sm_of, v) == st->my_sm;
            if (same_sm != st->sm_leader) return base + v;
            v = ws_random_other(self, w, &st->rng);
        }
        return base + v;
    } else if (WSDSL_VICTIM == WS_VICTIM_SMALL_WORLD) {
        unsigned degree = 2u + (32u - __clz(n));          // ring + about log2(n) shortcuts
        unsigned v = ws_small_world_neighbour(me, n, ws_xorshift(&st->rng) % degree);
        return v == me ? (me + 1u) % n : v;
    }
    return ws_random_other(me, n, &st->rng);
}

// Resting from other GPUs (off by default). A probe of another GPU costs a
// round trip over NVLink, and a task taken there moves its whole subtree
// away from the GPU that holds the rest of the run. With
// WS_REMOTE_BACKOFF_MAX > 0 a thief robs another GPU's worker only when it
// offers at least WS_REMOTE_MIN tasks, and after a probe of another GPU
// that comes back short it rests from other GPUs for twice as many probes
// as last time (up to WS_REMOTE_BACKOFF_MAX), robbing its own GPU
// meanwhile; a probe of another GPU that finds enough to rob ends the rest.
// Measured on two H100s with WS_REMOTE_MIN=2 and WS_REMOTE_BACKOFF_MAX=256:
// UTS T3L 0.90x of one GPU with it, 0.92x without; T1XL 1.71x against
// 1.89x; fib(42) 1.23x against 1.80x. So it stays off;
// `WSDSL_DEFINES="WS_REMOTE_MIN=2 WS_REMOTE_BACKOFF_MAX=256"` turns it on
// for a run.
#ifndef WS_REMOTE_MIN
#define WS_REMOTE_MIN 1u
#endif
#ifndef WS_REMOTE_BACKOFF_MAX
#define WS_REMOTE_BACKOFF_MAX 0u
#endif
// Random victims across GPUs, drawn mostly at home (the default for programs without joins,
// below): with WS_REMOTE_ONE_IN = R > 1, a random (WSDSL_VICTIM 0) thief that draws another
// GPU's worker probes it only one time in R and otherwise skips the probe, a failed one
// that costs no round trip. Uniform draws send (G - 1) / G of the probes to other GPUs,
// which find nothing while those GPUs are idle. Measured on two H200s, R = 8 against
// uniform: UTS T3L 59.5 against 60.3 ms, T1XL 77.7 against 77.4, N-Queens 18 437.2 against
// 437.4, but fib(42) 70.3 against 62.6 (joins spread by remote probes). R = 10^6 with
// WS_REMOTE_ASK=1000000u: no task crosses and almost no probe does, and T3L takes 58.8 ms
// on two GPUs against 57.8 for the same kernel on one. At R = 1 the switch compiles to
// nothing (the kernels' SASS is that of a build without it).
// With WS_REMOTE_SKIP_REDRAWS=1 a skipped draw is not a failed probe: the thief goes
// straight to its next draw (no idle count, no sleep), so the busy GPU's thieves probe
// their own GPU nearly as often as on one GPU. Of the forms that turn a remote draw into a
// local probe it is the one that leaves UTS's hash alone in the SASS (34 of 4,328
// instructions move with R = 8; the other forms move 800-1,145). Measured with R = 4: T3L
// 0.97x of one GPU on two H200s and 0.93x on four (0.94x, 0.85x without), T1XL 1.97x and
// 3.82x (1.93x, 3.71x), but fib(42) 1.76x and 3.21x (1.87x, 3.53x), so programs with joins
// keep uniform draws (below). A GPU with a single worker has only remote draws: it never
// redraws, and counts skipped draws as failed probes.
//
// The default: a program without joins draws remote victims 1 in 8 and redraws the others
// at home; a program with joins draws uniformly, for its continuations spread by remote
// probes. On two H200s, R = 8 with redraws against uniform: T3L 0.98x of one GPU (0.94x),
// T1XL 1.95x (1.93x), N-Queens 18 1.96x (1.98x), fib(42) 1.69x (1.86x). A single-GPU
// kernel (WSDSL_PES 0) has no remote draws, and its source is that of a build without
// these switches.
#ifndef WS_REMOTE_ONE_IN
#if WSDSL_PES && !WSDSL_JOIN
#define WS_REMOTE_ONE_IN 8u
#ifndef WS_REMOTE_SKIP_REDRAWS
#define WS_REMOTE_SKIP_REDRAWS 1
#endif
#else
#define WS_REMOTE_ONE_IN 1u
#endif
#endif
#ifndef WS_REMOTE_SKIP_REDRAWS
#define WS_REMOTE_SKIP_REDRAWS 0
#endif
#if WS_REMOTE_SKIP_REDRAWS && WS_REMOTE_ONE_IN <= 1
#error "WS_REMOTE_SKIP_REDRAWS changes what WS_REMOTE_ONE_IN skips: set WS_REMOTE_ONE_IN above 1 too"
#endif
// A victim id no worker has: the draw was skipped and is to be drawn again at once.
#define WS_VICTIM_REDRAW 0xFFFFFFFFu
#if WS_REMOTE_MIN < 1
// An empty deque of another GPU would count as work: a thief would leave the idle state on
// every such probe, and the termination detector's two waves might never agree.
#error "WS_REMOTE_MIN must be at least 1"
#endif

// Whether `victim` (a global id) is on another GPU.
static __device__ __forceinline__ bool ws_victim_remote(const ws_launch* L, unsigned victim) {
#if WSDSL_PES
    return victim / L->workers != L->pe;
#else
    (void)L; (void)victim;
    return false;
#endif
}

// Applies the rest to a drawn victim: while resting, a victim on another GPU is replaced by a
// random worker of this one. Returns false when the probe is skipped instead (the thief has
// no other worker on its GPU, or is an HWS GPU leader, which robs only other GPUs), and for
// the remote draws WS_REMOTE_ONE_IN skips (*victim then WS_VICTIM_REDRAW).
static __device__ __forceinline__ bool ws_remote_admit(const ws_launch* L, unsigned self, ws_victim_state* st, unsigned* victim) {
#if WSDSL_PES
    if (WSDSL_VICTIM == WS_VICTIM_RANDOM && WS_REMOTE_ONE_IN > 1u && ws_victim_remote(L, *victim)
        && ws_xorshift(&st->rng) % WS_REMOTE_ONE_IN != 0u) {
        *victim = WS_VICTIM_REDRAW;
        return false;
    }
    if (WS_REMOTE_BACKOFF_MAX == 0u || st->remote_rest == 0u || !ws_victim_remote(L, *victim)) return true;
    st->remote_rest--;
    if (L->workers < 2u || (WSDSL_VICTIM == WS_VICTIM_HWS && st->gpu_leader)) return false;
    *victim = L->pe * L->workers + ws_random_other(self, L->workers, &st->rng);
    return true;
#else
    (void)L; (void)self; (void)st; (void)victim;
    return true;
#endif
}

// Draws the next victim into *victim: ws_pick_victim, then the rest from other GPUs. False
// when this probe is skipped.
static __device__ __forceinline__ bool ws_draw_victim(const ws_launch* L, unsigned self, ws_victim_state* st, unsigned* victim) {
    *victim = ws_pick_victim(L, self, st);
    return ws_remote_admit(L, self, st, victim);
}

// What another GPU's victim must offer to be robbed (one at home).
static __device__ __forceinline__ unsigned ws_victim_min_offer(const ws_launch* L, unsigned victim) {
    return ws_victim_remote(L, victim) ? WS_REMOTE_MIN : 1u;
}

// Records a probe's outcome for the rest: an empty probe of another GPU doubles it.
static __device__ __forceinline__ void ws_remote_outcome(const ws_launch* L, ws_victim_state* st, unsigned victim, bool took) {
#if WSDSL_PES
    if (WS_REMOTE_BACKOFF_MAX == 0u || !ws_victim_remote(L, victim)) return;
    if (took) {
        st->remote_backoff = 0u;
        return;
    }
    const unsigned next = st->remote_backoff == 0u ? 1u : 2u * st->remote_backoff;
    st->remote_backoff = next < WS_REMOTE_BACKOFF_MAX ? next : WS_REMOTE_BACKOFF_MAX;
    st->remote_rest = st->remote_backoff;
#else
    (void)L; (void)st; (void)victim; (void)took;
#endif
}

// How many tasks to take from a victim that holds `available`: one, or half (WSDSL_STEAL_HALF,
// and always half for an HWS leader, which steals for its whole SM). With steal-half, up to
// a worker's thread count is taken whole (WS_STEAL_FILL, the default): one batch of a thread,
// warp or block worker, so the thief runs it all in the batch it would have run half in and
// nothing waits for a second thief (a cooperative worker runs them one batch each).
#ifndef WS_STEAL_FILL
#define WS_STEAL_FILL 1
#endif
static __device__ __forceinline__ unsigned ws_steal_amount(unsigned available, const ws_victim_state* st) {
    if (WSDSL_STEAL_HALF) {
#if WS_STEAL_FILL
        // What fits in one batch is taken whole: the thief runs it all at once.
        if (available <= WS_GROUP) return available;
#endif
        return (available + 1u) / 2u;
    }
    if (WSDSL_VICTIM == WS_VICTIM_HWS && (st->sm_leader || st->gpu_leader)) return (available + 1u) / 2u;
    return 1u;
}
