// core/status.cuh — how the device tells the host that a run went wrong.
//
// One record per module, zeroed by the host before each launch and read after it. The first
// error wins (CAS on `code`); every worker polls `code` and stops soon after it is set, so an
// overflow or a fault ends the run with an error instead of a wrong answer or a hang.
#pragma once

enum {
    WS_STATUS_OK = 0,
    WS_STATUS_OVERFLOW = 1,   // arg0 = worker, arg1 = slots needed, arg2 = capacity
    WS_STATUS_FAULT = 2,      // a panic: arg0 = its site (Program::FAULT_SITES), arg1..arg4 = the values its message shows
    WS_STATUS_STOPPED = 3,    // the host's watchdog asked the kernel to stop
    WS_STATUS_FRAMES = 4,     // the join frame pool ran out: arg1 = its capacity
    WS_STATUS_CHILDREN = 5,   // arg0 = task tag, arg1 = its complete handler's max_children
    WS_STATUS_PEER = 6,       // another GPU of a multi-GPU run failed (features/pe.cuh); its host says why
};

struct ws_status_record {
    ws_atom_u64 code;
    ws_atom_u64 arg0;
    ws_atom_u64 arg1;
    ws_atom_u64 arg2;
    ws_atom_u64 arg3;
    ws_atom_u64 arg4;
};

__device__ ws_status_record wsdsl_status;

static __device__ void ws_report(ws_atom_u64 code, ws_atom_u64 arg0, ws_atom_u64 arg1, ws_atom_u64 arg2,
                                 ws_atom_u64 arg3 = 0, ws_atom_u64 arg4 = 0) {
    if (atomicCAS(&wsdsl_status.code, 0ull, code) == 0ull) {
        wsdsl_status.arg0 = arg0;
        wsdsl_status.arg1 = arg1;
        wsdsl_status.arg2 = arg2;
        wsdsl_status.arg3 = arg3;
        wsdsl_status.arg4 = arg4;
        ws_fence_acq_rel();
    }
}

// Called by lowered handler code where Rust would panic; the host formats the site's message
// with the values (declared in core/rust_semantics.cuh). After an index out of bounds or a division
// by zero the handler goes on with a harmless value; after an explicit panic (`panic!`,
// `assert!`, `unwrap()`, ...) it returns. Either way the run ends with the first fault reported.
__device__ void wsdsl_fault(ws_u32 site, ws_u64 a0, ws_u64 a1, ws_u64 a2, ws_u64 a3) {
    ws_report(WS_STATUS_FAULT, site, a0, a1, a2, a3);
}

static __device__ __forceinline__ bool ws_failed() { return ws_load_relaxed_u64(&wsdsl_status.code) != 0ull; }
