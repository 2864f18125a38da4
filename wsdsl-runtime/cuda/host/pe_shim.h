// pe_shim.h — NVSHMEM's peer mapping for the host emulation of a multi-GPU run (pe.cuh).
//
// Each emulated GPU is its own copy of the kernel library (so its statics — the status
// record, the emulated grid — are its own), running on its own host threads. Its symmetric
// objects (deques, slots, its `ws_pe_state`) lie in one heap of host memory, at the same
// offsets in every GPU's heap, as NVSHMEM's symmetric heap places them on real GPUs; the
// runtime hands each copy the table of heaps before the launch. `ws_pe_ptr` then maps an
// address in this GPU's heap to the same offset in another's, like `nvshmem_ptr`, and the
// deque's atomics (ws_host_shim.h) act on it across threads exactly as they do at home.
#pragma once

static unsigned char* ws_emu_pe_heaps[64];
static unsigned ws_emu_pe_self;

template <class T> static inline T* ws_pe_ptr(T* p, unsigned pe) {
    const size_t offset = (size_t)((const unsigned char*)p - ws_emu_pe_heaps[ws_emu_pe_self]);
    return (T*)(ws_emu_pe_heaps[pe] + offset);
}

extern "C" void ws_host_pe_attach(unsigned self, unsigned n, unsigned char* const* heaps) {
    ws_emu_pe_self = self;
    for (unsigned pe = 0; pe < n && pe < 64u; pe++) ws_emu_pe_heaps[pe] = heaps[pe];
}
