// The hand-written baseline of the bench's BFS rows: a level-synchronous BFS as a competent
// CUDA programmer writes it in an afternoon. One kernel launch per level; one thread per
// frontier vertex (grid-stride), scanning that vertex's whole edge list; atomicCAS on the
// depth array is the visited test, and an atomicAdd'ed counter appends the vertices it wins
// to the next frontier. The host reads the next frontier's size back after every level.

#define UNREACHED 0xffffffffu

// Every depth unreached but the source's, and the first frontier holding the source.
extern "C" __global__ void bfs_init(unsigned *depth, unsigned vertices, unsigned source, unsigned *frontier) {
    for (unsigned v = blockIdx.x * blockDim.x + threadIdx.x; v < vertices; v += gridDim.x * blockDim.x) {
        depth[v] = v == source ? 0u : UNREACHED;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        frontier[0] = source;
    }
}

// Expands the `size` vertices of `frontier` (all at depth `d`) into `next`.
extern "C" __global__ void bfs_level(const unsigned *__restrict__ offsets, const unsigned *__restrict__ targets,
                                     unsigned *depth, const unsigned *__restrict__ frontier, unsigned size,
                                     unsigned *next, unsigned *next_size, unsigned d) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < size; i += gridDim.x * blockDim.x) {
        unsigned v = frontier[i];
        unsigned lo = offsets[v], hi = offsets[v + 1];
        for (unsigned e = lo; e < hi; ++e) {
            unsigned u = targets[e];
            // A plain read first: most neighbours of a large frontier are already reached.
            if (depth[u] == UNREACHED && atomicCAS(&depth[u], UNREACHED, d + 1) == UNREACHED) {
                next[atomicAdd(next_size, 1u)] = u;
            }
        }
    }
}
