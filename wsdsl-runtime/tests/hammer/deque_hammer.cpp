// deque_hammer.cpp — hammers queues/deque.cuh (Cederman & Tsigas work-stealing deque, split into a
// private and a public part) from host threads: per deque one owner that pushes batches into
// its private part, exposes random shares of it (ws_deque_expose, after a release fence as
// the megakernel's threads do), pops batches from it (ws_deque_pop_private) and, when it is
// empty, reclaims from the public part (ws_deque_reclaim); against thieves calling
// ws_deque_steal on random deques. Small capacities force the owner's reset of head to slot 0
// (and the ABA counter) all the time. Thieves claim one task per CAS (the published deque)
// or several (the WS_STEAL_CLAIM variant, here a variable so one build runs both). Every
// pushed task carries a unique id; every id must be taken exactly once.
//
// Built with WSDSL_PES (deque_hammer_shared.cpp), the deque is the multi-GPU one whose scope
// follows sharing: odd thieves play thieves of another GPU, which steal only from a shared
// deque and otherwise ask (the asked bit in the head); owners share when they see the ask in
// the head they read after each step; the flags ride through resets of the head. The host
// has one memory scope, so this checks the bits' logic, not the choice of scopes (checked on
// GPUs), nor the megakernel's threshold for asking (WS_REMOTE_ASK: here every probe asks).
//
// Note for ThreadSanitizer: ws_deque_steal copies the slot with a plain read before its CAS
// validates it (Listing 35.3); when the CAS fails the copy may have raced with the owner
// rewriting the slot and is discarded. That race is by design and suppressed (race:ws_deque_steal).
#include "common.h"

struct wsdsl_task {
    unsigned id;
    unsigned check;
};
static unsigned ws_hammer_claim = 1;   // tasks a thief may claim with one CAS
static std::atomic<unsigned long long> ws_hammer_remote_stolen{0};   // by another GPU's thieves (WSDSL_PES)
#define WS_STEAL_CLAIM ws_hammer_claim
#include "../../cuda/queues/deque.cuh"

struct Config {
    unsigned deques, thieves, capacity, pushes_per_owner, max_batch;
    unsigned chaos;   // yields per 256 atomic steps (see ws_host_shim.h)
    unsigned claim;   // WS_STEAL_CLAIM
};

static unsigned long long run(const Config& c, unsigned long long seed) {
    ws_hammer_claim = c.claim;
    std::vector<ws_deque> deques(c.deques);
    for (auto& d : deques) { d.head = 0; d.split = 0; }
    std::vector<wsdsl_task> slots((size_t)c.deques * c.capacity);
    const unsigned stride = c.pushes_per_owner;
    Ledger ledger((size_t)c.deques * stride);
    std::atomic<unsigned> owners_done{0};
    std::atomic<unsigned long long> stolen{0}, popped{0}, aborts{0};
    std::vector<unsigned> pushed(c.deques, 0);

    run_threads(c.deques + c.thieves, [&](unsigned t) {
        Rng rng(seed * 7919 + t);
        ws_host_chaos_per_256 = c.chaos;
        ws_host_chaos_rng = (unsigned)(seed * 2654435761u + t) | 1u;
        if (t < c.deques) {
            // Owner of deque t.
            ws_deque* d = &deques[t];
            wsdsl_task* my = &slots[(size_t)t * c.capacity];
            ws_deque_owner own{};   // split = top = 0 (and not shared, across GPUs)
            unsigned next = 0, base = t * stride;
            unsigned long long mine = 0;
            auto take = [&](unsigned first, unsigned n) {
                for (unsigned i = 0; i < n; i++) ledger.take(Item{my[first + i].id, my[first + i].check});
                mine += n;
            };
            while (next < c.pushes_per_owner) {
                const unsigned roll = rng.below(100);
                if (roll < 50) {
                    unsigned b = 1 + rng.below(c.max_batch);
                    if (b > c.pushes_per_owner - next) b = c.pushes_per_owner - next;
                    if (own.top + b > c.capacity) b = c.capacity - own.top;
                    for (unsigned i = 0; i < b; i++) {
                        unsigned id = base + next++;
                        my[own.top + i] = wsdsl_task{id, item_check(id)};
                    }
                    own.top += b;
                    if (b == 0) goto pop;   // full: pop instead
                } else if (roll < 65) {
                    // Expose some of the private part (the megakernel exposes half when
                    // thieves have drained the public part; here any share, any time).
                    const unsigned left = own.top - own.split;
                    if (left > 0) {
                        ws_fence_acq_rel();
                        ws_deque_expose(d, &own, 1 + rng.below(left));
                    }
                } else {
                pop:
                    unsigned first, want = 1 + rng.below(32);
                    unsigned n = ws_deque_pop_private(&own, want, &first);
                    if (n == 0) {
                        n = ws_deque_reclaim(d, my, &own, want, &first);
                        // An emptied deque starts again at slot 0 on both sides.
                        if (own.split == 0) CHECK(ws_head_index(ws_load_relaxed_u64(&d->head)) == 0 && ws_load_relaxed_u32(&d->split) == 0, "emptied deque not reset");
                    }
                    CHECK(n <= want, "reclaim returned more than asked");
                    take(first, n);
                }
#if WSDSL_PES
                const bool was_shared = own.shared;
                const ws_atom_u64 head = ws_load_relaxed_u64(&d->head);
                if (ws_deque_was_asked(&own, head)) ws_deque_share(d, &own, head);
                CHECK(!was_shared || own.shared, "a shared deque became private");
                CHECK(!own.shared || (ws_load_relaxed_u64(&d->head) & WS_HEAD_SHARED) != 0, "the shared bit was lost");
#endif
            }
            // Drain the rest: the private part, then the public part.
            for (;;) {
                unsigned first, n = ws_deque_pop_private(&own, 32, &first);
                if (n == 0) n = ws_deque_reclaim(d, my, &own, 32, &first);
                if (n == 0) break;
                take(first, n);
            }
            pushed[t] = next;
            popped += mine;
            owners_done.fetch_add(1);
        } else {
            // Thief.
            unsigned long long mine = 0, ab = 0;
            for (;;) {
                bool done = owners_done.load() == c.deques;
                unsigned v = rng.below(c.deques);
                wsdsl_task got[64];
                unsigned from = 0, want = 1 + rng.below(2 * c.claim);
#if WSDSL_PES
                const bool remote = t % 2 == 1;
                if (remote) {
                    const ws_atom_u64 head = ws_load_relaxed_u64(&deques[v].head);
                    if ((head & (WS_HEAD_SHARED | WS_HEAD_ASKED)) == 0) ws_sys_or_relaxed_u64(&deques[v].head, WS_HEAD_ASKED);
                }
#else
                const bool remote = false;
#endif
                unsigned n = ws_deque_steal(&deques[v], &slots[(size_t)v * c.capacity], want, got, &from, remote);
                for (unsigned i = 0; i < n; i++) ledger.take(Item{got[i].id, got[i].check});
                mine += n;
                if (remote) ws_hammer_remote_stolen += n;
                if (n > 0) continue;
                if (done) break;   // owners drained their deques before finishing
                ab++;
            }
            stolen += mine;
            aborts += ab;
        }
    });
    for (unsigned t = 0; t < c.deques; t++) ledger.expect_all(t * stride, pushed[t], "deque");
    for (auto& d : deques) CHECK(ws_head_index(d.head) >= d.split || d.split == 0, "deque not empty at the end");
    if (std::getenv("HAMMER_VERBOSE"))
        std::printf("  deques=%u thieves=%u capacity=%u: %llu popped by owners, %llu stolen, %llu steals that took nothing\n",
                    c.deques, c.thieves, c.capacity, popped.load(), stolen.load(), aborts.load());
    return popped.load() + stolen.load();
}

int main(int argc, char** argv) {
    const unsigned scale = scale_arg(argc, argv);
    const unsigned pushes = 1500000u * scale / 100u + 100u;
    unsigned long long total = 0, seed = 3;
    Config configs[] = {
        {1, 3, 4, pushes, 3, 0, 1},
        {1, 3, 4, pushes / 4, 3, 8, 1},
        {1, 3, 64, pushes, 32, 0, 1},
        {2, 3, 16, pushes, 8, 0, 1},
        {2, 3, 16, pushes / 4, 8, 8, 1},
        {3, 2, 256, pushes, 32, 0, 1},
        {1, 3, 4, pushes, 3, 0, 2},
        {1, 3, 64, pushes, 32, 0, 32},
        {2, 3, 16, pushes / 4, 8, 8, 4},
        {3, 2, 256, pushes, 32, 0, 8},
        {3, 2, 256, pushes / 4, 32, 8, 32},
    };
    for (const Config& c : configs) total += run(c, seed++);
#if WSDSL_PES
    CHECK(ws_hammer_remote_stolen.load() > 0, "no thief of another GPU ever stole: deques were never shared");
    std::printf("shared deques: %llu tasks stolen by thieves of another GPU after their asks\n", ws_hammer_remote_stolen.load());
#endif
    std::printf("deque hammer: %llu tasks pushed and taken (owner's private pushes, pops, exposures and reclaims vs thieves' steals, capacities 4..256, claims of 1..32 tasks per CAS, some with schedule noise): "
                "0 lost, 0 duplicated\n", total);
    return 0;
}
