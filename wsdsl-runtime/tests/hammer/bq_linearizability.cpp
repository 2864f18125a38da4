// bq_linearizability.cpp — checks that histories of the Broker Queue are linearizable.
//
// Many short runs (3-4 threads x 6-8 random operations on a queue of capacity 2 or 4, some
// starting just below the 2^32 wrap) record every operation as (thread, op, argument,
// result, invocation and response stamps from one global counter). A Wing & Gong style
// backtracking search (memoised on (set of operations done, queue contents)) then looks for
// a sequential order that respects real time (A before B when A responded before B was
// invoked) and the specification of section 5: a FIFO queue of capacity N where enqueue
// returns Full exactly when it holds N elements and dequeue Empty exactly when it holds none.
//
// The checker itself is tested first on hand-made histories, linearizable and not. The BWD,
// which is not linearizable (section 6.1), is run through the same checker for information.
#include "common.h"
#include "../../cuda/queues/broker_queue.cuh"

#include <set>
#include <string>

enum OpKind { ENQ, DEQ };
enum Result { OK = WS_BQ_OK, FULL = WS_BQ_FULL, EMPTY = WS_BQ_EMPTY };

struct Op {
    unsigned thread;
    OpKind kind;
    unsigned value;   // enqueued value, or the value dequeued (result OK)
    int result;
    unsigned long long inv, resp;
};

struct Checker {
    const std::vector<Op>& ops;
    unsigned capacity;
    std::set<std::pair<unsigned long long, std::vector<unsigned>>> seen;
    unsigned long long nodes = 0;

    bool search(unsigned long long done, std::vector<unsigned>& q) {
        const unsigned n = (unsigned)ops.size();
        if (done == (1ull << n) - 1) return true;
        if (!seen.insert({done, q}).second) return false;
        nodes++;
        // The earliest response among pending operations bounds which may go next.
        unsigned long long min_resp = ~0ull;
        for (unsigned i = 0; i < n; i++)
            if (!(done >> i & 1) && ops[i].resp < min_resp) min_resp = ops[i].resp;
        for (unsigned i = 0; i < n; i++) {
            if (done >> i & 1) continue;
            const Op& o = ops[i];
            if (o.inv > min_resp) continue;   // some pending op finished before this one began
            std::vector<unsigned> next = q;
            bool legal;
            if (o.kind == ENQ) {
                if (o.result == OK) { legal = next.size() < capacity; next.push_back(o.value); }
                else legal = next.size() == capacity;
            } else {
                if (o.result == OK) { legal = !next.empty() && next.front() == o.value; if (legal) next.erase(next.begin()); }
                else legal = next.empty();
            }
            if (legal && search(done | 1ull << i, next)) return true;
        }
        return false;
    }
};

static bool linearizable(const std::vector<Op>& ops, unsigned capacity) {
    Checker c{ops, capacity, {}, 0};
    std::vector<unsigned> q;
    return c.search(0, q);
}

static std::string describe(const std::vector<Op>& ops) {
    std::string s;
    char line[160];
    for (const Op& o : ops) {
        const char* r = o.result == OK ? "ok" : o.result == FULL ? "FULL" : "EMPTY";
        if (o.kind == ENQ) std::snprintf(line, sizeof line, "  t%u enq(%u) -> %s   [%llu, %llu]\n", o.thread, o.value, r, o.inv, o.resp);
        else if (o.result == OK) std::snprintf(line, sizeof line, "  t%u deq() -> %u   [%llu, %llu]\n", o.thread, o.value, o.inv, o.resp);
        else std::snprintf(line, sizeof line, "  t%u deq() -> %s   [%llu, %llu]\n", o.thread, r, o.inv, o.resp);
        s += line;
    }
    return s;
}

static void checker_self_test() {
    // Sequential, legal.
    std::vector<Op> h = {{0, ENQ, 1, OK, 0, 1}, {0, ENQ, 2, OK, 2, 3}, {1, DEQ, 1, OK, 4, 5}, {1, DEQ, 2, OK, 6, 7}, {1, DEQ, 0, EMPTY, 8, 9}};
    CHECK(linearizable(h, 2), "checker rejects a legal sequential history");
    // FIFO violated without overlap.
    h = {{0, ENQ, 1, OK, 0, 1}, {0, ENQ, 2, OK, 2, 3}, {1, DEQ, 2, OK, 4, 5}};
    CHECK(!linearizable(h, 2), "checker accepts LIFO order");
    // The same, overlapping enqueues: now legal.
    h = {{0, ENQ, 1, OK, 0, 3}, {2, ENQ, 2, OK, 1, 2}, {1, DEQ, 2, OK, 4, 5}};
    CHECK(linearizable(h, 2), "checker rejects a reorder of overlapping enqueues");
    // Empty while an element is certainly in the queue.
    h = {{0, ENQ, 1, OK, 0, 1}, {1, DEQ, 0, EMPTY, 2, 3}};
    CHECK(!linearizable(h, 2), "checker accepts a false Empty");
    // Full below capacity, and an enqueue beyond capacity.
    h = {{0, ENQ, 1, OK, 0, 1}, {1, ENQ, 2, FULL, 2, 3}};
    CHECK(!linearizable(h, 2), "checker accepts a false Full");
    h = {{0, ENQ, 1, OK, 0, 1}, {1, ENQ, 2, OK, 2, 3}, {1, ENQ, 3, OK, 4, 5}};
    CHECK(!linearizable(h, 2), "checker accepts an overfull queue");
    // Empty overlapping the only enqueue: legal.
    h = {{0, ENQ, 1, OK, 0, 3}, {1, DEQ, 0, EMPTY, 1, 2}, {1, DEQ, 1, OK, 4, 5}};
    CHECK(linearizable(h, 2), "checker rejects an Empty that overlaps the enqueue");
    // A dequeue of a value never enqueued.
    h = {{1, DEQ, 7, OK, 0, 1}};
    CHECK(!linearizable(h, 2), "checker accepts a value from nowhere");
    std::printf("checker self-test: 8 hand-made histories classified correctly\n");
}

static unsigned long long g_ops = 0, g_overlapping = 0;

template <bool Lin, unsigned N> static bool one_run(unsigned threads, unsigned ops_per_thread, unsigned enq_percent,
                                                   unsigned start, unsigned long long seed, std::string* why) {
    typedef ws_broker_queue<Item, N, 8> Q;
    Q* q = new Q;
    ws_bq_init(q, start);
    // Pre-fill a random number of elements so Full is reachable in a short run.
    Rng pre(seed ^ 0xABCDEFull);
    std::vector<Op> history;
    std::atomic<unsigned long long> clock{0};
    unsigned prefill = pre.below(N + 1);
    for (unsigned i = 0; i < prefill; i++) {
        unsigned long long inv = clock.fetch_add(1);
        ws_bq_enqueue<true>(q, make_item(1000 + i));
        history.push_back({99, ENQ, 1000 + i, OK, inv, clock.fetch_add(1)});
    }
    std::vector<std::vector<Op>> logs(threads);
    run_threads(threads, [&](unsigned t) {
        Rng rng(seed * 977 + t);
        ws_host_chaos_per_256 = 32;                 // yield between steps of an operation
        ws_host_chaos_rng = (unsigned)(seed * 2654435761u + t) | 1u;
        for (unsigned i = 0; i < ops_per_thread; i++) {
            // A random pause, so that the threads' operations interleave in many ways.
            for (unsigned spin = rng.below(64); spin > 0; spin--) __atomic_signal_fence(__ATOMIC_SEQ_CST);
            Op o{t, ENQ, 0, OK, 0, 0};
            if (rng.chance(enq_percent)) {
                o.value = t * 100 + i;
                o.inv = clock.fetch_add(1);
                o.result = ws_bq_enqueue<Lin>(q, make_item(o.value));
                o.resp = clock.fetch_add(1);
            } else {
                o.kind = DEQ;
                Item it{};
                o.inv = clock.fetch_add(1);
                o.result = ws_bq_dequeue<Lin>(q, &it);
                o.resp = clock.fetch_add(1);
                if (o.result == OK) o.value = it.id;
            }
            logs[t].push_back(o);
        }
    });
    for (auto& l : logs) history.insert(history.end(), l.begin(), l.end());
    delete q;
    for (size_t i = 0; i < history.size(); i++)
        for (size_t j = 0; j < history.size(); j++)
            if (i != j && history[i].inv < history[j].inv && history[j].inv < history[i].resp) { g_overlapping++; j = history.size(); }
    g_ops += history.size();
    bool ok = linearizable(history, N);
    if (!ok && why) *why = describe(history);
    return ok;
}

int main(int argc, char** argv) {
    const unsigned scale = scale_arg(argc, argv);
    checker_self_test();
    const unsigned runs = 10000u * scale / 100u + 20u;
    unsigned long long seed = 7;
    unsigned checked = 0;
    for (unsigned r = 0; r < runs; r++) {
        unsigned threads = 3 + (r & 1);
        unsigned per = 6 + (r % 3);
        unsigned enq = 35 + 10 * (r % 4);
        unsigned start = (r % 5 == 0) ? 0xFFFFFFFDu : 0u;
        std::string why;
        bool ok = (r % 2) ? one_run<true, 2>(threads, per, enq, start, seed++, &why)
                          : one_run<true, 4>(threads, per, enq, start, seed++, &why);
        CHECK(ok, "BQ history %u is not linearizable (capacity %u):\n%s", r, (r % 2) ? 2u : 4u, why.c_str());
        checked++;
    }
    std::printf("BQ: %u concurrent histories (3-4 threads x 6-8 ops, capacity 2 and 4, some across the 2^32 wrap): all linearizable "
                "(%.0f%% of %llu operations overlapped another)\n", checked, 100.0 * g_overlapping / g_ops, g_ops);
    unsigned bwd_bad = 0, bwd_runs = runs / 2;
    std::string example;
    for (unsigned r = 0; r < bwd_runs; r++) {
        std::string why;
        if (!one_run<false, 2>(4, 8, 40 + 10 * (r % 3), 0, seed++, &why)) { if (!bwd_bad) example = why; bwd_bad++; }
    }
    std::printf("BWD (not linearizable by design, for information): %u of %u histories not linearizable\n", bwd_bad, bwd_runs);
    if (bwd_bad && std::getenv("HAMMER_VERBOSE")) std::printf("%s", example.c_str());
    return 0;
}
