//! The host build of a program's kernel: the assembled source (`gpu/build/assemble.rs`) with
//! the host shims in place of the PTX atomics (`cuda/host/`), and the entry points the
//! emulation's library exports (`ws_host_launch`, the status record's address, ...).

use crate::contract::schedule::{KernelConfig, Order, Scheduler, Steal};
use crate::contract::Program;
use crate::gpu::build::assemble::{assemble, experiment_define_pairs, part};

const HOST_SHIM: &str = include_str!("../../../cuda/host/ws_host_shim.h");
const HOST_EMULATION: &str = include_str!("../../../cuda/host/emulation.h");

/// What the host build has before the templates: the shims.
fn prelude() -> String {
    let mut src = String::new();
    part(&mut src, "host/ws_host_shim.h", HOST_SHIM);
    part(&mut src, "host/emulation.h", HOST_EMULATION);
    src
}

/// The victim policy and steal amount a host build of `config` is launched with
/// (`ws_host_launch`'s `victim` and `steal_half`; only the deque scheduler reads them).
pub(crate) fn host_steal_policy(config: &KernelConfig) -> (u32, u32) {
    (config.victim_code(), (config.steal == Steal::Half) as u32)
}

/// The source of `P`'s kernel for the host emulation (`gpu::emulate`): the same templates
/// and handlers, plus an exported launcher
/// `ws_host_launch(record, grid, block, os_threads, victim, steal_half, stack_bytes, gate, gate_arg)`
/// (`stack_bytes`: each fiber's stack, `stack.rs`; the gate: called by each OS thread before
/// its fibers run), which answers 0, or 1 when the fibers' stacks could not be mapped,
/// and `ws_host_status()`, the address of the device status record.
pub fn host_kernel_source<P: Program>(config: &KernelConfig) -> String {
    host_source::<P>(config, false)
}

/// [`host_kernel_source`] for one emulated GPU of a multi-GPU run (the launch record names
/// every emulated GPU's heap in host memory). With `across_hosts`, GPUs of other emulated
/// hosts are reached only by NVSHMEM's one-sided calls (`WSDSL_PES_ONE_SIDED`, `cuda/features/pe.cuh`),
/// which the library serves from the heaps `ws_host_set_heaps(heaps, n, pe)` names.
/// `remote_ask`: the offer at which another GPU's thief asks to share a deque.
pub fn host_pe_kernel_source<P: Program>(config: &KernelConfig, across_hosts: bool, remote_ask: u32) -> String {
    // The offer that makes another GPU's thief ask to share a deque (`cuda/queues/deque.cuh`),
    // unless WSDSL_DEFINES sets it.
    let asked_for = experiment_define_pairs().0.iter().any(|(name, _)| name == "WS_REMOTE_ASK");
    let ask = if asked_for { String::new() } else { format!("#define WS_REMOTE_ASK {remote_ask}u\n") };
    let src = format!("{ask}{}", host_source::<P>(config, true));
    if !across_hosts {
        return src;
    }
    format!(
        "#define WSDSL_PES_ONE_SIDED 1\n{src}\
         extern \"C\" void ws_host_set_heaps(const unsigned long long* heaps, unsigned n, unsigned pe) {{\n\
         \x20   for (unsigned i = 0; i < n && i < 64u; i++) ws_emu_heaps[i] = heaps[i];\n\
         \x20   ws_emu_my_heap = pe < n && pe < 64u ? heaps[pe] : 0ull;\n}}\n"
    )
}

fn host_source<P: Program>(config: &KernelConfig, pes: bool) -> String {
    let mut src = assemble::<P>(config, Some(&prelude()), pes);
    let record = match config.scheduler {
        Scheduler::Deque => "ws_launch",
        Scheduler::Static => "ws_static_launch",
        Scheduler::Bq | Scheduler::Bwd | Scheduler::Bsq => {
            src.push_str("extern \"C\" unsigned long long ws_host_broker_queue_bytes() { return wsdsl_broker_queue_bytes; }\n");
            if config.order == Order::Priority { "ws_bands_launch" } else { "ws_broker_launch" }
        }
    };
    // The deque scheduler's victim policy and steal amount are set for each launch (`assemble`).
    let policy = if config.scheduler == Scheduler::Deque {
        "ws_host_victim = victim; ws_host_steal_half = steal_half;"
    } else {
        "(void)victim; (void)steal_half;"
    };
    src.push_str(&format!(
        "\n// ---- host emulation entry points ----\n\
         extern \"C\" int ws_host_launch(const void* record, unsigned grid, unsigned block, unsigned os_threads, unsigned victim, unsigned steal_half,\n\
         \x20                             unsigned long long stack_bytes, void (*gate)(void*), void* gate_arg) {{\n\
         \x20   {policy}\n\
         \x20   ws_emu_gate = gate;\n\
         \x20   ws_emu_gate_arg = gate_arg;\n\
         \x20   return ws_emu_run(grid, block, os_threads, 65536, (size_t)stack_bytes, {program:?}, [record]() {{ {}((const {record}*)record); }}) ? 0 : 1;\n}}\n\
         extern \"C\" void* ws_host_status() {{ return (void*)&wsdsl_status; }}\n",
        config.entry_point(),
        program = P::NAME,
    ));
    if P::JOIN.is_some() {
        src.push_str("extern \"C\" void* ws_host_join() { return (void*)&wsdsl_join; }\n");
    }
    src
}
