// The NVSHMEM smoke kernels: one-sided puts and atomics to the next PE's symmetric memory
// (the calling PE's own with one PE), checked by `gpu::nvshmem::smoke` (and linked, without a
// GPU, by CI).
#include <nvshmem.h>
#include <nvshmemx.h>

// Every thread i < n puts 3i+1 into sym[i] and adds 1 to *counter of the next PE, keeping
// the old value: every PE then holds sym[i] = 3i+1, *counter = n, and the old values each PE
// got must be a permutation of 0..n.
extern "C" __global__ void wsdsl_nvshmem_put_add(int *sym, int *counter, int *old, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int next = (nvshmem_my_pe() + 1) % nvshmem_n_pes();
    if (i < n) {
        nvshmem_int_p(sym + i, 3 * i + 1, next);
        old[i] = nvshmem_int_atomic_fetch_add(counter, 1, next);
    }
    nvshmem_quiet();  // this thread's puts are complete and visible
}

// One thread, after the puts: a barrier across PEs, then everything read back through
// NVSHMEM gets. out: [sum of sym, counter, my_pe, n_pes].
extern "C" __global__ void wsdsl_nvshmem_barrier_get(const int *sym, const int *counter, long long *out, int n) {
    nvshmem_barrier_all();
    int me = nvshmem_my_pe();
    long long sum = 0;
    for (int i = 0; i < n; i++) sum += nvshmem_int_g(sym + i, me);
    out[0] = sum;
    out[1] = nvshmem_int_g(counter, me);
    out[2] = me;
    out[3] = nvshmem_n_pes();
}
