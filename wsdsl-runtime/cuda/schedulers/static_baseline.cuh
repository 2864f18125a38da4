// schedulers/static_baseline.cuh — the static two-array scheme of Cederman & Tsigas (section 35.3.1),
// the baseline every dynamic scheduler is measured against.
//
// One launch per generation: each thread takes tasks of the input array (grid-stride), runs
// them, and every spawned child takes the next slot of the output array with a fetch-and-add
// on one global counter (the handler's `wsdsl_ctx_spawn`, with `spawned` pointing to global
// memory). The host swaps the arrays and launches again until a generation creates nothing.
// A child past the output capacity is not written; the host sees the count exceed the
// capacity and reports the overflow with the size that was needed. In a cooperative schedule
// (WSDSL_COOPERATIVE) a worker — a warp or a block — takes the tasks instead of a thread,
// and all its threads run each one (the loop bound is the same for all of them, so every
// thread reaches every `ctx.sync()`).
#pragma once

#ifndef WSDSL_BLOCK_THREADS
#define WSDSL_BLOCK_THREADS 256
#endif

struct ws_static_launch {
    const wsdsl_task* in;
    wsdsl_task* out;
    unsigned* out_count;                // children created so far in this generation
    const wsdsl_params* params;
    const wsdsl_buffers* buffers;
    unsigned long long* counter_slots;
    const ws_atom_u32* stop;            // host-mapped: nonzero asks the kernel to stop
    unsigned n_in;
    unsigned capacity;                  // slots of the output array
};

extern "C" __global__ void __launch_bounds__(WSDSL_BLOCK_THREADS, WSDSL_MIN_BLOCKS) wsdsl_static_generation(const ws_static_launch* launch) {
    WS_SHARED(ws_u32, s_stash, WSDSL_BLOCK_THREADS * WS_STASH_WORDS);
    const ws_static_launch L = *launch;
    wsdsl_ctx ctx;
    wsdsl_ctx_init(&ctx, L.params, L.buffers, L.out, L.capacity, L.out_count);
    // Each thread is a worker with a frame stash of its own, parked between generations.
    const unsigned worker = blockIdx.x * blockDim.x + threadIdx.x;
    ws_join_attach(&ctx, &s_stash[threadIdx.x * WS_STASH_WORDS], worker, true);
#if WSDSL_COOPERATIVE
    const unsigned per_block = WSDSL_BLOCK_THREADS / WSDSL_WORKER_THREADS;
    const unsigned stride = gridDim.x * per_block;
    const unsigned first = blockIdx.x * per_block + threadIdx.x / WSDSL_WORKER_THREADS;
#else
    const unsigned stride = gridDim.x * blockDim.x;
    const unsigned first = blockIdx.x * blockDim.x + threadIdx.x;
#endif
    const bool poller = blockIdx.x == 0 && threadIdx.x == 0;   // the one reader of the host flag
    unsigned done = 0;
    for (unsigned i = first; i < L.n_in; i += stride) {
        // A cooperative worker must leave the loop together (its threads meet at barriers),
        // and the error word can change between their reads: it runs the generation out, and
        // the host, which checks the status after every generation, stops there.
        if (!WSDSL_COOPERATIVE && (++done & 255u) == 0u) {
            if (ws_failed()) break;
            if (poller && ws_load_volatile_sys_u32(L.stop) != 0u) { ws_report(WS_STATUS_STOPPED, 0, 0, 0); break; }
        }
        wsdsl_task task = L.in[i];
        ws_join_prepare(&ctx);
        ws_run_task(&task, &ctx);
    }
    ws_join_detach(&ctx, worker, true);
    wsdsl_counters_flush(&ctx.counters, L.counter_slots);
}
