// The hand-written baseline of the PageRank rows: synchronous pulled power iteration as a
// competent CUDA programmer writes it, computing exactly what `pagerank_pull` does (32-bit
// shares, 64-bit sums and ranks, no redistribution of dangling rank). One launch per
// iteration; the shares alternate between two halves of one array, as the tasks' do.
// Two mappings of vertices to threads:
//   pr_thread  one thread per vertex (grid-stride), its in-edges in a loop: coalesced
//              offsets, but a warp waits for its longest in-edge list;
//   pr_warp    one warp per vertex, its lanes striding the in-edges (coalesced sources) and
//              summing with shuffles: no waiting on long lists, idle lanes on short ones.

// Iteration 0's shares: damping / n / out-degree (0 where there is none).
extern "C" __global__ void pr_init(const unsigned *__restrict__ out_degree, unsigned n, double damping, float *share) {
    for (unsigned v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        unsigned d = out_degree[v];
        share[v] = d > 0 ? (float)(damping / (double)n / (double)d) : 0.0f;
    }
}

// Vertex u's new rank from the sum of its in-neighbours' shares: kept by the last iteration,
// passed on as the next share by the others.
__device__ __forceinline__ void pr_finish(unsigned u, double sum, unsigned n, double damping, const unsigned *__restrict__ out_degree,
                                          float *next, double *rank, int last) {
    double r = (1.0 - damping) / (double)n + sum;
    if (last) {
        rank[u] = r;
    } else {
        unsigned d = out_degree[u];
        next[u] = d > 0 ? (float)(damping * r / (double)d) : 0.0f;
    }
}

extern "C" __global__ void pr_thread(const unsigned *__restrict__ in_offsets, const unsigned *__restrict__ sources,
                                     const unsigned *__restrict__ out_degree, unsigned n, double damping,
                                     const float *__restrict__ here, float *next, double *rank, int last) {
    for (unsigned u = blockIdx.x * blockDim.x + threadIdx.x; u < n; u += gridDim.x * blockDim.x) {
        double sum = 0.0;
        for (unsigned e = in_offsets[u], end = in_offsets[u + 1]; e < end; ++e) sum += (double)here[sources[e]];
        pr_finish(u, sum, n, damping, out_degree, next, rank, last);
    }
}

extern "C" __global__ void pr_warp(const unsigned *__restrict__ in_offsets, const unsigned *__restrict__ sources,
                                   const unsigned *__restrict__ out_degree, unsigned n, double damping,
                                   const float *__restrict__ here, float *next, double *rank, int last) {
    const unsigned lane = threadIdx.x % 32u;
    const unsigned warps = gridDim.x * blockDim.x / 32u;
    for (unsigned u = (blockIdx.x * blockDim.x + threadIdx.x) / 32u; u < n; u += warps) {
        double sum = 0.0;
        for (unsigned e = in_offsets[u] + lane, end = in_offsets[u + 1]; e < end; e += 32u) sum += (double)here[sources[e]];
        for (unsigned k = 16u; k > 0u; k /= 2u) sum += __shfl_down_sync(0xffffffffu, sum, k);
        if (lane == 0u) pr_finish(u, sum, n, damping, out_degree, next, rank, last);
    }
}
