//! Assembling the megakernel source: template library + the program's generated fragments.
//!
//! The result depends only on the program and the configuration, byte for byte, so its hash
//! can key the kernel cache. `WSDSL_DUMP_DIR=<dir>` writes every assembled kernel there.

use crate::program::Program;
use std::path::PathBuf;

/// Template headers, in the order they are needed (see `program.rs` for the full order).
const RUST_SEMANTICS: &str = include_str!("../../cuda/rust_semantics.cuh");
const ATOMICS: &str = include_str!("../../cuda/atomics.cuh");
const STATUS: &str = include_str!("../../cuda/status.cuh");
const CONTEXT: &str = include_str!("../../cuda/context.cuh");
const DEQUE: &str = include_str!("../../cuda/deque.cuh");
const TERMINATION: &str = include_str!("../../cuda/termination.cuh");
const MEGAKERNEL: &str = include_str!("../../cuda/megakernel.cuh");

/// Scheduler settings baked into the kernel source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KernelConfig {
    /// Threads per block (a multiple of 32); each warp is one worker.
    pub block_threads: u32,
}

impl Default for KernelConfig {
    fn default() -> Self {
        KernelConfig { block_threads: 256 }
    }
}

/// The complete CUDA source of `P`'s megakernel.
pub fn megakernel_source<P: Program>(config: &KernelConfig) -> String {
    let mut src = String::with_capacity(64 * 1024);
    src.push_str(&format!(
        "// wsdsl megakernel for program `{}` (generated; do not edit)\n#define WSDSL_BLOCK_THREADS {}\n",
        P::NAME,
        config.block_threads
    ));
    let mut part = |file: &str, text: &str| {
        src.push_str(&format!("#line 1 \"wsdsl-runtime/cuda/{file}\"\n"));
        src.push_str(text);
        if !text.ends_with('\n') {
            src.push('\n');
        }
    };
    part("rust_semantics.cuh", RUST_SEMANTICS);
    part("atomics.cuh", ATOMICS);
    part("status.cuh", STATUS);
    src.push_str("// ---- program types (generated from Rust) ----\n");
    src.push_str(P::CUDA_TYPES);
    src.push('\n');
    let mut part = |file: &str, text: &str| {
        src.push_str(&format!("#line 1 \"wsdsl-runtime/cuda/{file}\"\n"));
        src.push_str(text);
        src.push('\n');
    };
    part("context.cuh", CONTEXT);
    src.push_str("// ---- program handlers (generated from Rust) ----\n");
    src.push_str(P::CUDA_HANDLERS);
    src.push('\n');
    let mut part = |file: &str, text: &str| {
        src.push_str(&format!("#line 1 \"wsdsl-runtime/cuda/{file}\"\n"));
        src.push_str(text);
        src.push('\n');
    };
    part("deque.cuh", DEQUE);
    part("termination.cuh", TERMINATION);
    part("megakernel.cuh", MEGAKERNEL);
    src
}

/// Writes `source` to `$WSDSL_DUMP_DIR/<name>.cu` when that variable is set.
pub fn dump_if_requested(name: &str, key: u64, source: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("WSDSL_DUMP_DIR")?);
    let path = dir.join(format!("{name}-{key:016x}.cu"));
    match std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, source)) {
        Ok(()) => Some(path),
        Err(e) => {
            eprintln!("wsdsl: could not dump the kernel to {}: {e}", path.display());
            None
        }
    }
}

/// FNV-1a, 64 bits: a stable hash (unlike std's hasher) for cache keys. Collisions are
/// harmless because a cache entry also stores the full source and is checked against it.
pub fn stable_hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0xff)) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}
