// bq_hammer.cpp — hammers queues/broker_queue.cuh (BQ, BWD, BSQ) from host threads.
//
// Every configuration: P threads, each a random mix of enqueue / dequeue (single-element and
// multi-element reserve of up to K), on queues of small capacity N so that Full, Empty and
// the ticket rounds happen constantly, starting Head/Tail just below 2^32 in half the runs
// so the pointers and tickets wrap. Each enqueued element carries a unique id; after the
// threads join, the queues are drained and every id must have been dequeued exactly once.
#include "common.h"
#include "../../cuda/queues/broker_queue.cuh"

static const unsigned kMaxThreads = 64;   // >= every thread count used here

// Sequential semantics: FIFO, Full at exactly N, Empty at 0, across the 2^32 wrap.
template <unsigned N> static void sequential(unsigned start) {
    typedef ws_broker_queue<Item, N, kMaxThreads> Q;
    Q* q = new Q;
    ws_bq_init(q, start);
    for (unsigned round = 0; round < 5; round++) {
        for (unsigned i = 0; i < N; i++) CHECK(ws_bq_enqueue<true>(q, make_item(round * N + i)) == WS_BQ_OK, "enqueue %u of %u", i, N);
        CHECK(ws_bq_enqueue<true>(q, make_item(999)) == WS_BQ_FULL, "enqueue into a full queue (N=%u)", N);
        CHECK(ws_bwd_enqueue(q, make_item(999)) == WS_BQ_FULL, "BWD enqueue into a full queue");
        for (unsigned i = 0; i < N; i++) {
            Item it{};
            CHECK(ws_bq_dequeue<true>(q, &it) == WS_BQ_OK, "dequeue %u", i);
            CHECK(it.id == round * N + i && it.check == item_check(it.id), "FIFO order: got %u want %u", it.id, round * N + i);
        }
        Item it{};
        CHECK(ws_bq_dequeue<true>(q, &it) == WS_BQ_EMPTY, "dequeue from an empty queue");
        CHECK(ws_bwd_dequeue(q, &it) == WS_BQ_EMPTY, "BWD dequeue from an empty queue");
    }
    // Multi-element: partial grants.
    unsigned pos;
    CHECK(ws_bq_enqueue_reserve<true>(q, N + 3, &pos) == N, "multi-enqueue grants at most N");
    for (unsigned i = 0; i < N; i++) ws_bq_put_slot(q, pos + i, make_item(i));
    CHECK(ws_bq_dequeue_reserve<true>(q, N + 3, &pos) == N, "multi-dequeue grants at most what is there");
    for (unsigned i = 0; i < N; i++) { Item it; ws_bq_take_slot(q, pos + i, &it); CHECK(it.id == i, "multi FIFO"); }
    CHECK(ws_bq_dequeue_reserve<false>(q, 4, &pos) == 0, "empty after multi");
    delete q;
}

struct Config {
    const char* variant;   // "BQ", "BWD", "BSQ"
    unsigned threads, ops_per_thread, enq_percent, max_k, queues;
    bool wrap;
    unsigned chaos;   // yields per 256 atomic steps (see ws_host_shim.h)
};

template <unsigned N> static unsigned long long hammer(const Config& c, unsigned long long seed) {
    typedef ws_broker_queue<Item, N, kMaxThreads> Q;
    const bool lin = std::strcmp(c.variant, "BWD") != 0;
    const bool bsq = std::strcmp(c.variant, "BSQ") == 0;
    const unsigned nq = bsq ? c.queues : 1u;
    std::vector<Q*> storage;
    Q* queues = new Q[nq];
    const unsigned start = c.wrap ? 0u - 3u * N - 5u : 0u;
    for (unsigned i = 0; i < nq; i++) ws_bq_init(&queues[i], start + 7u * i);
    const unsigned id_stride = c.ops_per_thread * (c.max_k + 1);
    Ledger ledger((size_t)c.threads * id_stride);
    std::vector<unsigned> enqueued(c.threads, 0);
    std::atomic<unsigned long long> ops{0}, fulls{0}, empties{0};

    run_threads(c.threads, [&](unsigned t) {
        Rng rng(seed * 131 + t);
        ws_host_chaos_per_256 = c.chaos;
        ws_host_chaos_rng = (unsigned)(seed * 2654435761u + t) | 1u;
        unsigned next_id = t * id_stride;
        unsigned long long my_ops = 0, my_full = 0, my_empty = 0;
        const unsigned own = t % nq;
        for (unsigned op = 0; op < c.ops_per_thread; op++) {
            Q* q = &queues[own];
            unsigned k = c.max_k > 1 && rng.chance(30) ? 1 + rng.below(c.max_k) : 1;
            if (rng.chance(c.enq_percent)) {
                unsigned pos, got;
                got = lin ? ws_bq_enqueue_reserve<true>(q, k, &pos) : ws_bq_enqueue_reserve<false>(q, k, &pos);
                for (unsigned i = 0; i < got; i++) ws_bq_put_slot(q, pos + i, make_item(next_id++));
                if (got == 0) my_full++;
                my_ops += got ? got : 1;
            } else {
                unsigned pos, got, which = own;
                if (bsq) got = ws_bsq_dequeue_reserve(queues, nq, own, k, &which, &pos);
                else got = lin ? ws_bq_dequeue_reserve<true>(q, k, &pos) : ws_bq_dequeue_reserve<false>(q, k, &pos);
                for (unsigned i = 0; i < got; i++) {
                    Item it;
                    ws_bq_take_slot(&queues[which], pos + i, &it);
                    ledger.take(it);
                }
                if (got == 0) my_empty++;
                my_ops += got ? got : 1;
            }
        }
        enqueued[t] = next_id - t * id_stride;
        ops += my_ops; fulls += my_full; empties += my_empty;
    });

    // Quiescent: Count must equal Tail - Head, and draining must give back the rest.
    unsigned long long drained = 0;
    for (unsigned i = 0; i < nq; i++) {
        Q* q = &queues[i];
        ws_atom_u64 ht = ws_load_acquire_u64(&q->head_tail);
        unsigned size = (unsigned)(ht >> 32) - (unsigned)ht;
        CHECK((int)ws_load_acquire_u32(&q->count) == (int)size, "%s queue %u: Count %d != Tail-Head %u at rest",
              c.variant, i, (int)q->count, size);
        CHECK(size <= N, "%s queue %u holds %u > N=%u", c.variant, i, size, N);
        Item it;
        while (ws_bq_dequeue<true>(q, &it) == WS_BQ_OK) { ledger.take(it); drained++; }
    }
    for (unsigned t = 0; t < c.threads; t++) ledger.expect_all(t * id_stride, enqueued[t], c.variant);
    if (std::getenv("HAMMER_VERBOSE")) std::printf("  %-3s N=%-5u threads=%u P(enq)=%u%% k<=%u queues=%u start=%-10u: %llu ops, %llu Full, %llu Empty, %llu left at end, 0 lost, 0 duplicated\n",
                c.variant, N, c.threads, c.enq_percent, c.max_k, nq, start, ops.load(), fulls.load(), empties.load(), drained);
    delete[] queues;
    return ops.load();
}

int main(int argc, char** argv) {
    const unsigned scale = scale_arg(argc, argv);
    for (unsigned start : {0u, 0xFFFFFFF0u, 0xFFFFFFFFu}) {
        sequential<2>(start); sequential<4>(start); sequential<64>(start);
    }
    std::printf("sequential semantics (FIFO, Full at N, Empty at 0, wrap at 2^32): ok\n");

    unsigned long long total = 0;
    unsigned long long seed = 1;
    const unsigned ops = 60000u * scale / 100u + 100u;
    for (const char* v : {"BQ", "BWD", "BSQ"}) {
        unsigned long long before = total;
        for (unsigned enq : {35u, 50u, 65u}) {
            for (bool wrap : {false, true}) {
                Config c{v, 4, ops, enq, 1, 3, wrap, wrap ? 6u : 0u};
                total += hammer<2>(c, seed++);
                c.max_k = 5;
                total += hammer<4>(c, seed++);
                c.threads = 6; c.max_k = 1;
                total += hammer<64>(c, seed++);
            }
        }
        std::printf("%s: %llu operations over 18 runs (N = 2, 4, 64; P(enq) 35/50/65%%; k <= 1 and 5; "
                    "start 0 and just below 2^32, half with schedule noise): 0 lost, 0 duplicated, Count == Tail-Head at rest\n",
                    v, total - before);
    }
    std::printf("broker queue hammer: %llu operations, every element dequeued exactly once\n", total);
    return 0;
}
