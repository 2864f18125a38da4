// common.h — shared pieces of the host hammer harnesses (see tests/runtime/queue_hammer.rs).
#pragma once
#include "../../cuda/host/ws_host_shim.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            std::fprintf(stderr, "FAILED %s:%d: %s\n  ", __FILE__, __LINE__, #cond); \
            std::fprintf(stderr, __VA_ARGS__);                                        \
            std::fprintf(stderr, "\n");                                               \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

// xorshift64*: per-thread, seeded.
struct Rng {
    unsigned long long s;
    explicit Rng(unsigned long long seed) : s(seed * 0x9E3779B97F4A7C15ull + 1442695040888963407ull) {}
    unsigned next() {
        s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
        return (unsigned)((s * 2685821657736338717ull) >> 32);
    }
    unsigned below(unsigned n) { return next() % n; }
    bool chance(unsigned percent) { return below(100) < percent; }
};

// An element with a unique id and a check word derived from it (catches torn copies).
struct Item {
    unsigned id;
    unsigned check;
};
static inline unsigned item_check(unsigned id) { return id * 0x9E3779B9u ^ 0xA5A5F00Du; }
static inline Item make_item(unsigned id) { return Item{id, item_check(id)}; }

// Every id handed out must be taken exactly once: one counter per id.
struct Ledger {
    std::vector<std::atomic<unsigned char>> taken;
    explicit Ledger(size_t n) : taken(n) { for (auto& t : taken) t.store(0, std::memory_order_relaxed); }
    void take(const Item& it) {
        CHECK(it.check == item_check(it.id), "torn element: id %u check %08x", it.id, it.check);
        CHECK(it.id < taken.size(), "id %u was never handed out (max %zu)", it.id, taken.size());
        unsigned char before = taken[it.id].fetch_add(1, std::memory_order_relaxed);
        CHECK(before == 0, "id %u dequeued twice (duplicated element)", it.id);
    }
    // ids [base, base + n) were enqueued; each must have been taken once.
    void expect_all(unsigned base, unsigned n, const char* what) {
        for (unsigned i = base; i < base + n; i++)
            CHECK(taken[i].load() == 1, "%s: id %u enqueued but taken %u times (lost element)", what, i, (unsigned)taken[i].load());
    }
};

// Runs f(thread_index) on n threads that start together.
template <class F> static void run_threads(unsigned n, F f) {
    std::atomic<unsigned> ready{0};
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < n; t++)
        ts.emplace_back([&, t] {
            ready.fetch_add(1);
            while (ready.load() < n) sched_yield();
            f(t);
        });
    for (auto& th : ts) th.join();
}

static unsigned scale_arg(int argc, char** argv) {
    // argv[1]: work scale in percent (100 = the CI amount; ThreadSanitizer runs use less).
    return argc > 1 ? (unsigned)std::atoi(argv[1]) : 100u;
}
