// emulation.h — runs an assembled wsdsl kernel on the host, so CI (no GPU) exercises the very
// template code the GPU runs: the same deque, termination, victim and worker-loop source,
// compiled by the host C++ compiler.
//
// Model: every emulated GPU thread is a fiber with its own stack (entered once through
// ucontext, then switched with _setjmp/_longjmp: swapcontext saves and restores the signal
// mask, a system call per switch, and switches are the emulation's inner loop). The fibers of a
// block share one OS thread and a shared-memory arena, and switch only at barriers
// (`__syncthreads`, `__syncwarp`) and sleeps (`__nanosleep`), so a block's barriers cost a few
// context switches, not OS scheduling. Blocks are dealt to several OS threads, which run truly
// in parallel: the queues' cross-worker atomics race for real (ws_host_shim.h gives every
// `ws_*` operation its memory order with GCC atomics). Warp-synchronous code must use the
// explicit barriers, which the templates do.
//
// Include after ws_host_shim.h and before core/rust_semantics.cuh (WS_HOST_EMULATION makes that
// header take its device branch: real atomics, CUDA math names).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <thread>
#include <ucontext.h>
#include <unistd.h>
#include <vector>

#define WS_HOST_EMULATION 1
#define __launch_bounds__(...)
#define WS_SHARED(T, name, n) T* name = ws_emu_shared<T>(n)

struct ws_emu_dim3 { unsigned x, y, z; };

// Each emulated GPU thread's stack (a fiber's) is sized per kernel by `gpu/emulate/stack.rs`
// (its non-recursive code's share and `recursion_limit` frames of each recursive cycle, from the
// compiler's frame sizes) and passed to `ws_emu_run`. Below each stack lies a guard region
// that nothing may touch: a fiber that overflows all the same faults there (the host build
// probes every page of a large frame, -fstack-clash-protection, so no frame jumps past it),
// and the fault handler below says which program's thread overflowed before the process dies,
// instead of a bare SIGSEGV. Mapped, not allocated: only the pages a fiber touches are memory.
#define WS_EMU_GUARD_BYTES (64u * 1024u)

struct ws_emu_block;
struct ws_emu_fiber {
    ucontext_t context;     // the first entry
    jmp_buf resume;         // where it yielded
    bool started;
    ws_emu_block* block;
    ws_emu_dim3 thread_idx;
    size_t shared_cursor;
    bool done;
    // The lowest byte of its stack, above its guard, in the launch's mapping (`ws_emu_stacks`).
    char* stack = nullptr;
};

// Every fiber stack of a launch in one mapping, each above its guard. A fresh mapping's pages
// cost nothing until touched: a fiber touches a few KB of its stack, and zeroing all of it (a
// `std::vector`) faulted in 64 MB per launch of the default grid, over a third of the emulated
// tests' time.
struct ws_emu_stacks {
    char* base = nullptr;
    size_t each = 0, count = 0;   // bytes of a stack and its guard; stacks
    // Maps `count` stacks of `stack_bytes` (a multiple of the guard); false if they cannot be had.
    bool map(size_t n, size_t stack_bytes) {
        each = stack_bytes + WS_EMU_GUARD_BYTES;
        if (n != 0 && each > SIZE_MAX / n) return false;
        void* at = mmap(nullptr, n * each, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (at == MAP_FAILED) return false;
        base = static_cast<char*>(at);
        count = n;
        for (size_t i = 0; i < n; i++) {
            if (mprotect(base + i * each, WS_EMU_GUARD_BYTES, PROT_NONE) != 0) return false;
        }
        return true;
    }
    char* stack(size_t i) const { return base + i * each + WS_EMU_GUARD_BYTES; }
    ~ws_emu_stacks() {
        if (base != nullptr) munmap(base, count * each);
    }
};

struct ws_emu_block {
    ws_emu_dim3 block_idx;
    std::vector<ws_emu_fiber*> fibers;
    std::vector<unsigned char> shared;          // the block's shared-memory arena
    unsigned barrier_count = 0, barrier_generation = 0;
    std::vector<unsigned> warp_count, warp_generation;
};

struct ws_emu_launch_state {
    ws_emu_dim3 grid, block;
};

static ws_emu_launch_state ws_emu_launch;
// Called by each OS thread of a launch once its fibers exist, before any runs (null: none).
// The emulated GPUs of a multi-GPU run wait there for each other, so that no GPU can finish
// the work before the others' threads have even started.
static void (*ws_emu_gate)(void*) = nullptr;
static void* ws_emu_gate_arg = nullptr;
static thread_local ws_emu_fiber* ws_emu_current = nullptr;
static thread_local ucontext_t ws_emu_scheduler;
static thread_local jmp_buf ws_emu_scheduler_resume;

#define threadIdx (ws_emu_current->thread_idx)
#define blockIdx (ws_emu_current->block->block_idx)
#define blockDim (ws_emu_launch.block)
#define gridDim (ws_emu_launch.grid)

// Gives the running fiber's OS thread to the next fiber of its blocks.
static inline void ws_emu_yield() {
    if (_setjmp(ws_emu_current->resume) == 0) _longjmp(ws_emu_scheduler_resume, 1);
}

template <class T> static inline T* ws_emu_shared(size_t n) {
    ws_emu_block* b = ws_emu_current->block;
    size_t at = (ws_emu_current->shared_cursor + 15) & ~size_t(15);
    ws_emu_current->shared_cursor = at + n * sizeof(T);
    if (b->shared.size() < ws_emu_current->shared_cursor) abort();   // arena sized by the launcher
    return reinterpret_cast<T*>(b->shared.data() + at);
}

static inline void __syncthreads() {
    ws_emu_block* b = ws_emu_current->block;
    unsigned gen = b->barrier_generation;
    if (++b->barrier_count == b->fibers.size()) { b->barrier_count = 0; b->barrier_generation++; return; }
    while (b->barrier_generation == gen) ws_emu_yield();
}

static inline void __syncwarp(unsigned = 0xffffffffu) {
    ws_emu_block* b = ws_emu_current->block;
    unsigned w = ws_emu_current->thread_idx.x / 32u;
    unsigned lanes = (unsigned)b->fibers.size() - w * 32u;
    if (lanes > 32u) lanes = 32u;
    unsigned gen = b->warp_generation[w];
    if (++b->warp_count[w] == lanes) { b->warp_count[w] = 0; b->warp_generation[w]++; return; }
    while (b->warp_generation[w] == gen) ws_emu_yield();
}

// A sleeping GPU thread lets the others of its SM run: so does a fiber. Every SM of a GPU
// runs at once, so an OS thread whose fibers keep sleeping (idle workers polling for work)
// also hands its core over now and then: with more emulated blocks' threads than cores, the
// thread of a block that has not run yet would otherwise wait a whole time slice.
static thread_local unsigned ws_emu_sleeps = 0;
static inline void ws_emu_sleep() {
    if ((++ws_emu_sleeps & 255u) == 0u) sched_yield();
    ws_emu_yield();
}
#undef __nanosleep
#define __nanosleep(ns) ws_emu_sleep()

// Intrinsics the device branch of the templates uses.
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
#define __powf(a, b) powf(a, b)   // the fast device intrinsic; the host has only powf
// Atomics GCC cannot do with fetch_add/min/max on the type: CAS loops on the bits.
template <class T, class F> static inline T ws_emu_rmw(T* p, F f) {
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(p, &old, f(old), false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {}
    return old;
}
template <class T> static inline T atomicMax(T* p, T v) { return ws_emu_rmw(p, [v](T o) { return v > o ? v : o; }); }
template <class T> static inline T atomicMin(T* p, T v) { return ws_emu_rmw(p, [v](T o) { return v < o ? v : o; }); }
template <class T, class B> static inline T ws_emu_float_add(T* p, T v) {
    B* w = reinterpret_cast<B*>(p);
    B old = __atomic_load_n(w, __ATOMIC_RELAXED);
    for (;;) {
        T o; std::memcpy(&o, &old, sizeof o);
        T n = o + v; B nb; std::memcpy(&nb, &n, sizeof nb);
        if (__atomic_compare_exchange_n(w, &old, nb, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return o;
    }
}
static inline float atomicAdd(float* p, float v) { return ws_emu_float_add<float, unsigned>(p, v); }
static inline double atomicAdd(double* p, double v) { return ws_emu_float_add<double, unsigned long long>(p, v); }

#if WSDSL_PES_ONE_SIDED
// NVSHMEM's one-sided calls for GPUs of other emulated hosts (cuda/features/pe.cuh), served from the
// emulated heaps: a symmetric address is this GPU's own address of an object, and GPU pe's
// copy lies at the same offset of its heap (`ws_host_set_heaps` names them before a launch).
// Sequentially consistent, the strongest NVSHMEM's atomics are used as. Each call may first
// yield the core under schedule noise, as every wrapper of ws_host_shim.h does.
static unsigned long long ws_emu_heaps[64];
static unsigned long long ws_emu_my_heap;
template <class T> static T* ws_emu_remote(const T* sym, int pe) {
    return (T*)((const char*)sym - (const char*)ws_emu_my_heap + ws_emu_heaps[pe]);
}
static inline uint64_t nvshmem_uint64_atomic_fetch(const uint64_t* p, int pe) {
    ws_host_chaos();
    return __atomic_load_n(ws_emu_remote(p, pe), __ATOMIC_SEQ_CST);
}
static inline uint32_t nvshmem_uint32_atomic_fetch(const uint32_t* p, int pe) {
    ws_host_chaos();
    return __atomic_load_n(ws_emu_remote(p, pe), __ATOMIC_SEQ_CST);
}
static inline void nvshmem_uint32_atomic_set(uint32_t* p, uint32_t v, int pe) {
    ws_host_chaos();
    __atomic_store_n(ws_emu_remote(p, pe), v, __ATOMIC_SEQ_CST);
}
static inline uint64_t nvshmem_uint64_atomic_compare_swap(uint64_t* p, uint64_t cond, uint64_t v, int pe) {
    ws_host_chaos();
    __atomic_compare_exchange_n(ws_emu_remote(p, pe), &cond, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return cond;
}
static inline uint32_t nvshmem_uint32_atomic_fetch_add(uint32_t* p, uint32_t v, int pe) {
    ws_host_chaos();
    return __atomic_fetch_add(ws_emu_remote(p, pe), v, __ATOMIC_SEQ_CST);
}
static inline uint64_t nvshmem_uint64_atomic_fetch_add(uint64_t* p, uint64_t v, int pe) {
    ws_host_chaos();
    return __atomic_fetch_add(ws_emu_remote(p, pe), v, __ATOMIC_SEQ_CST);
}
static inline void nvshmem_uint64_atomic_or(uint64_t* p, uint64_t v, int pe) {
    ws_host_chaos();
    __atomic_fetch_or(ws_emu_remote(p, pe), v, __ATOMIC_SEQ_CST);
}
static inline void nvshmem_uint64_atomic_set(uint64_t* p, uint64_t v, int pe) {
    ws_host_chaos();
    __atomic_store_n(ws_emu_remote(p, pe), v, __ATOMIC_SEQ_CST);
}
static inline void nvshmem_uint32_p(uint32_t* p, uint32_t v, int pe) { ws_host_chaos(); __atomic_store_n(ws_emu_remote(p, pe), v, __ATOMIC_RELAXED); }
static inline void nvshmem_fence() { ws_host_chaos(); __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void nvshmem_quiet() { ws_host_chaos(); __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void nvshmem_getmem(void* dst, const void* src, size_t bytes, int pe) {
    ws_host_chaos();
    std::memcpy(dst, ws_emu_remote((const char*)src, pe), bytes);
}
#endif

// Whether `p` lies in the running block's shared arena (ws_host_shim.h's check that global
// wrappers never see a shared address).
static bool ws_emu_in_shared(const void* p) {
    if (ws_emu_current == nullptr) return false;
    const std::vector<unsigned char>& arena = ws_emu_current->block->shared;
    const unsigned char* at = static_cast<const unsigned char*>(p);
    return !arena.empty() && at >= arena.data() && at < arena.data() + arena.size();
}

// What the fault handler writes when a fiber's stack overflows into its guard (made before the
// launch: the handler may only write it), and the handlers it was installed over.
static char ws_emu_overflow_message[512];
static size_t ws_emu_overflow_length = 0;
static struct sigaction ws_emu_previous_segv, ws_emu_previous_bus;
// OS threads of this library running fibers now. Only then does the handler read the
// thread-local `ws_emu_current`, whose first read on a thread may allocate: other threads'
// faults (a Rust thread's stack overflow, which Rust's handler reports) pass untouched.
static int ws_emu_fiber_threads = 0;

// SIGSEGV and SIGBUS: a fault in the guard of the running fiber's stack is that fiber's stack
// overflowing. Reported, then the process ends as it would have (the handler is put back to
// the default and the faulting access runs again): a fiber cannot be unwound, and the other
// threads of its block would wait for it for ever. Any other fault goes to the handler that
// was there before (Rust's, which reports its own threads' overflows, or the default).
static void ws_emu_on_fault(int sig, siginfo_t* info, void* context) {
    ws_emu_fiber* f = __atomic_load_n(&ws_emu_fiber_threads, __ATOMIC_SEQ_CST) > 0 ? ws_emu_current : nullptr;
    const char* at = static_cast<const char*>(info->si_addr);
    if (f != nullptr && f->stack != nullptr && at >= f->stack - WS_EMU_GUARD_BYTES && at < f->stack) {
        ssize_t written = write(2, ws_emu_overflow_message, ws_emu_overflow_length);
        (void)written;
        signal(sig, SIG_DFL);
        return;
    }
    struct sigaction* previous = sig == SIGSEGV ? &ws_emu_previous_segv : &ws_emu_previous_bus;
    if (previous->sa_flags & SA_SIGINFO) {
        previous->sa_sigaction(sig, info, context);
    } else if (previous->sa_handler == SIG_DFL || previous->sa_handler == SIG_IGN) {
        signal(sig, SIG_DFL);
    } else {
        previous->sa_handler(sig);
    }
}

// Installs the fault handler once per library, in front of the process's.
static void ws_emu_watch_overflows(const char* program, size_t stack_bytes) {
    int n = snprintf(ws_emu_overflow_message, sizeof ws_emu_overflow_message,
                     "wsdsl: an emulated GPU thread of `%s` overflowed its stack of %zu KiB (a recursion deeper than its "
                     "frames were sized for, or a local array too large for it); the process stops here\n",
                     program, stack_bytes >> 10);
    ws_emu_overflow_length = n < 0 ? 0 : (size_t)n < sizeof ws_emu_overflow_message ? (size_t)n : sizeof ws_emu_overflow_message - 1;
    static bool installed = false;
    if (installed) return;
    installed = true;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = ws_emu_on_fault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &ws_emu_previous_segv);
    sigaction(SIGBUS, &action, &ws_emu_previous_bus);
}

// Runs `kernel` over a grid: each block's threads as fibers of `stack_bytes` of stack on one
// of `os_threads` threads; `program` names it when a fiber's stack overflows. False, having run
// nothing, if the stacks cannot be mapped.
template <class K> static bool ws_emu_run(unsigned grid, unsigned block, unsigned os_threads, size_t shared_bytes, size_t stack_bytes,
                                          const char* program, K kernel) {
    ws_host_in_shared = ws_emu_in_shared;
    stack_bytes = (stack_bytes + WS_EMU_GUARD_BYTES - 1) / WS_EMU_GUARD_BYTES * WS_EMU_GUARD_BYTES;
    ws_emu_watch_overflows(program, stack_bytes);
    ws_emu_stacks stacks;
    if (!stacks.map((size_t)grid * block, stack_bytes)) {
        // The emulated GPUs of a multi-GPU run wait for each other's OS threads at the gate.
        std::vector<std::thread> gated;
        for (unsigned i = 0; i < os_threads && i < grid && ws_emu_gate; i++) gated.emplace_back([] { ws_emu_gate(ws_emu_gate_arg); });
        for (auto& t : gated) t.join();
        return false;
    }
    ws_emu_launch.grid = {grid, 1, 1};
    ws_emu_launch.block = {block, 1, 1};
    std::vector<ws_emu_block> blocks(grid);
    static K* body;
    body = &kernel;
    for (unsigned b = 0; b < grid; b++) {
        blocks[b].block_idx = {b, 1, 1};
        blocks[b].shared.assign(shared_bytes, 0);
        blocks[b].warp_count.assign((block + 31) / 32, 0);
        blocks[b].warp_generation.assign((block + 31) / 32, 0);
    }
    auto run_blocks = [&](unsigned first) {
        // The fault handler runs on a stack of its own: the fiber's has no room left.
        const size_t alt_bytes = 64 * 1024;
        stack_t alt, previous_alt;
        alt.ss_sp = std::malloc(alt_bytes);
        alt.ss_size = alt_bytes;
        alt.ss_flags = 0;
        bool alt_set = alt.ss_sp != nullptr && sigaltstack(&alt, &previous_alt) == 0;
        ws_emu_current = nullptr;
        __atomic_fetch_add(&ws_emu_fiber_threads, 1, __ATOMIC_SEQ_CST);
        std::vector<ws_emu_fiber*> mine;
        for (unsigned b = first; b < grid; b += os_threads) {
            for (unsigned t = 0; t < block; t++) {
                auto* f = new ws_emu_fiber();
                f->block = &blocks[b];
                f->thread_idx = {t, 0, 0};
                f->shared_cursor = 0;
                f->done = false;
                f->started = false;
                f->stack = stacks.stack((size_t)b * block + t);
                getcontext(&f->context);
                f->context.uc_stack.ss_sp = f->stack;
                f->context.uc_stack.ss_size = stack_bytes;
                f->context.uc_link = nullptr;   // the body never returns: it jumps back
                makecontext(&f->context, (void (*)())+[]() {
                    (*body)();
                    ws_emu_current->done = true;
                    _longjmp(ws_emu_scheduler_resume, 1);
                }, 0);
                blocks[b].fibers.push_back(f);
                mine.push_back(f);
            }
        }
        if (ws_emu_gate) ws_emu_gate(ws_emu_gate_arg);
        for (size_t live = mine.size(); live > 0;) {
            live = 0;
            for (ws_emu_fiber* f : mine) {
                if (f->done) continue;
                ws_emu_current = f;
                if (_setjmp(ws_emu_scheduler_resume) == 0) {
                    if (f->started) _longjmp(f->resume, 1);
                    f->started = true;
                    swapcontext(&ws_emu_scheduler, &f->context);   // comes back by _longjmp
                }
                if (!f->done) live++;
            }
        }
        for (ws_emu_fiber* f : mine) delete f;
        ws_emu_current = nullptr;
        __atomic_fetch_sub(&ws_emu_fiber_threads, 1, __ATOMIC_SEQ_CST);
        if (alt_set) sigaltstack(&previous_alt, nullptr);
        std::free(alt.ss_sp);
    };
    std::vector<std::thread> threads;
    for (unsigned i = 0; i < os_threads && i < grid; i++) threads.emplace_back(run_blocks, i);
    for (auto& t : threads) t.join();
    return true;
}
