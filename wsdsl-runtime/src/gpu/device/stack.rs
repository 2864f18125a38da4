//! The per-thread stack of programs with recursive helpers (`Program::RECURSION`).
//!
//! CUDA gives each thread 1 KiB of stack by default, enough for the call chains of
//! non-recursive code (ptxas sizes those itself) but not for a recursion `recursion_limit`
//! calls deep. The size needed comes from the compiled code: ptxas describes each function's
//! frame (`elf::function_frames`, its call frame information), and a call chain holds at most the kernel's own frames once
//! plus, in each cycle of recursive functions, `limit` frames of that cycle (a chain that left
//! a cycle cannot come back into it). The bound takes every frame once and `limit` of the
//! largest of each cycle's functions (found by their CUDA names), with slack per call
//! (`SLACK_PER_CALL`).
//!
//! What a thread may have is bounded twice. The driver refuses a per-thread stack beyond
//! `DRIVER_MAX` (`cuCtxSetLimit` answers `CUDA_ERROR_INVALID_VALUE`), and it reserves the
//! stack for every thread the GPU can hold at once as the limit is set (270,336 threads on an
//! H200: 511 KiB a thread took 132 of its 139 GiB), so the runtime asks for at most half the
//! free memory, which on an H200 is the tighter bound (about 270 KiB a thread). A program
//! whose limit needs more is refused before its launch with an error naming the helper, the
//! limit and its frame, never a fault at run time. Programs without recursion leave the stack
//! alone.

use crate::contract::recursion::Recursion;
use crate::error::Error;
use crate::gpu::device::GpuDevice;
use cudarc::driver::sys::{CUdevice_attribute as Attr, CUlimit};

/// CUDA's default per-thread stack, kept as the base for the non-recursive code.
const BASE: u64 = 1024;
/// Bytes per recursive call beyond its recorded frame: a margin for what a call may take
/// besides the frame ptxas describes (the return address and saved registers are in it: 32
/// bytes for a helper of two `u32`, 28 of them its spilled registers); 64 bytes are the return
/// address and 14 registers. `tests/integration/recursion.rs` recurses to the limit on a GPU.
const SLACK_PER_CALL: u64 = 64;
/// The frame assumed when the CUBIN describes none (or cannot be read): generous for the small
/// helpers recursion is written with.
const UNKNOWN_FRAME: u64 = 256;
/// The per-thread stack the driver accepts at most: on an H200 with driver 580 it set
/// 523,712 bytes (512 KiB less 576) and refused one byte more, within the CUDA guide's 512 KiB
/// of local memory per thread. A driver that refuses less is still asked, and its refusal
/// named.
const DRIVER_MAX: u64 = 523_712;

/// The stack a program's recursion needs per thread, and what a refusal of it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Need {
    /// Bytes of stack per thread.
    pub per_thread: u64,
    /// The program's `recursion_limit`.
    pub limit: u32,
    /// The recursive helper of the cycle with the largest frames (its Rust path), and its
    /// bytes a call: its recorded frame and `SLACK_PER_CALL`.
    pub helper: (&'static str, u64),
    /// Cycles of recursive functions, each `limit` deep.
    pub cycles: u32,
    /// The stack without the recursions' calls, and the bytes of one call of each cycle: the
    /// largest limit a stack of `s` bytes holds is `(s - fixed) / per_call`.
    pub fixed: u64,
    pub per_call: u64,
}

/// Whether `symbol`, a function of a CUBIN, is the CUDA function `name`: the name itself, or
/// its C++ mangling, which NVRTC gives a `static` function in a namespace of its file
/// (`_ZN48_INTERNAL_..._cu_2062320e7f_solveEjjPb`) and ptxas may prefix with the kernel that
/// holds it (`$wsdsl_megakernel$...`).
pub(crate) fn is_function(symbol: &str, name: &str) -> bool {
    symbol == name || demangled_name(symbol) == Some(name)
}

/// The unqualified name of a mangled C++ function (`_Z[L]<len><name>...` or
/// `_Z[L]N<len><scope>...<len><name>E...`), if it is one of those.
fn demangled_name(symbol: &str) -> Option<&str> {
    fn source_name(s: &str) -> Option<(&str, &str)> {
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        let len: usize = s[..digits].parse().ok()?;
        let rest = &s[digits..];
        Some((rest.get(..len)?, rest.get(len..)?))
    }
    let s = symbol.rsplit('$').next()?.strip_prefix("_Z")?;
    let s = s.strip_prefix('L').unwrap_or(s);
    let Some(mut rest) = s.strip_prefix('N') else { return source_name(s).map(|(id, _)| id) };
    let mut last = None;
    while !rest.starts_with('E') {
        let (id, r) = source_name(rest)?;
        (last, rest) = (Some(id), r);
    }
    last
}

/// The per-thread stack, in bytes, that `recursion` needs given the CUBIN's frames (each
/// function's name and frame; `None`: none could be read).
pub(crate) fn needed(recursion: &Recursion, frames: Option<&[(String, u32)]>) -> Need {
    let frames = frames.filter(|f| !f.is_empty());
    let (all, largest) = match frames {
        Some(f) => (f.iter().map(|(_, b)| *b as u64).sum(), f.iter().map(|(_, b)| *b as u64).max().unwrap_or(0)),
        None => (UNKNOWN_FRAME, UNKNOWN_FRAME),
    };
    // Each cycle's largest frame, and its function; a cycle none of whose functions has a
    // record of its own takes the largest frame of all.
    let cycles: Vec<(&'static str, u64)> = (0..recursion.cycles)
        .map(|cycle| {
            let frame_of = |symbol: &str| frames?.iter().filter(|(s, _)| is_function(s, symbol)).map(|(_, b)| *b as u64).max();
            let own = recursion.cycle(cycle).filter_map(|f| Some((f.name, frame_of(f.symbol)?))).max_by_key(|&(_, b)| b);
            let (name, frame) = own.unwrap_or_else(|| (recursion.cycle(cycle).next().map_or("?", |f| f.name), largest));
            (name, frame + SLACK_PER_CALL)
        })
        .collect();
    let per_call: u64 = cycles.iter().map(|&(_, b)| b).sum();
    let helper = cycles.iter().copied().max_by_key(|&(_, b)| b).unwrap_or(("?", largest + SLACK_PER_CALL));
    let fixed = BASE + all;
    Need { per_thread: fixed + recursion.limit as u64 * per_call, limit: recursion.limit, helper, cycles: recursion.cycles, fixed, per_call }
}

/// Raises the context's per-thread stack to `need.per_thread` bytes if it is lower, or says
/// why it cannot, naming the helper, the limit and the frame.
pub(crate) fn ensure(dev: &GpuDevice, need: &Need) -> Result<(), Error> {
    let current = dev.ctx.get_limit(CUlimit::CU_LIMIT_STACK_SIZE).map_err(Error::driver("reading the stack size"))? as u64;
    if current >= need.per_thread {
        return Ok(());
    }
    let per_sm = dev
        .ctx
        .attribute(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)
        .map_err(Error::driver("reading the threads per SM"))? as u64;
    let threads = per_sm * dev.sm_count as u64;
    let (free, _) = cudarc::driver::result::mem_get_info().map_err(Error::driver("reading the free memory"))?;
    // Half the free memory at most: the run's queues and buffers need the rest.
    let memory_max = free as u64 / 2 / threads.max(1);
    let too_big = |why: String| refusal(need, &dev.name, why, DRIVER_MAX.min(memory_max));
    if need.per_thread > DRIVER_MAX {
        return Err(too_big(format!("more than the {DRIVER_MAX} bytes the driver gives a thread")));
    }
    if need.per_thread > memory_max {
        return Err(too_big(format!(
            "{:.1} GiB for the {threads} threads it holds at once, more than half of the {:.1} GiB free",
            (need.per_thread * threads) as f64 / (1u64 << 30) as f64,
            free as f64 / (1u64 << 30) as f64
        )));
    }
    dev.ctx
        .set_limit(CUlimit::CU_LIMIT_STACK_SIZE, need.per_thread as usize)
        .map_err(|e| too_big(format!("the driver refused it ({e})")))?;
    // The driver may round or clamp what it was asked for.
    let given = dev.ctx.get_limit(CUlimit::CU_LIMIT_STACK_SIZE).map_err(Error::driver("reading the stack size"))? as u64;
    if given < need.per_thread {
        return Err(too_big(format!("the driver gave {given} bytes")));
    }
    Ok(())
}

/// The error for a stack `need` that a GPU called `gpu` cannot give, `why`, where a thread may
/// have at most `most` bytes.
fn refusal(need: &Need, gpu: &str, why: String, most: u64) -> Error {
    let (name, per_call) = need.helper;
    let others = match need.cycles {
        0 | 1 => String::new(),
        2 => "; as many calls of another cycle of recursive functions too".to_string(),
        n => format!("; as many calls of {} other cycles of recursive functions too", n - 1),
    };
    let fits = most.saturating_sub(need.fixed) / need.per_call.max(1);
    Error::InvalidConfig(format!(
        "recursion in `{name}` may go recursion_limit = {} calls deep, at {per_call} bytes a call (its frame and {SLACK_PER_CALL} for the call{others}): \
         each thread needs a stack of {} KiB, which {gpu} cannot give: {why}; lower #[megakernel(recursion_limit = N)] \
         (to at most {fits} here) or make the helper's frame smaller (a large array in a #[buffers] array)",
        need.limit,
        need.per_thread.div_ceil(1024),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::recursion::RecursiveFn;

    const FUNCTIONS: &[RecursiveFn] = &[
        RecursiveFn { name: "solve", symbol: "f_solve", cycle: 0 },
        RecursiveFn { name: "even", symbol: "f_even", cycle: 1 },
        RecursiveFn { name: "Walker::down", symbol: "m_6Walker_down", cycle: 1 },
    ];

    #[test]
    fn cuda_names_match_their_mangling() {
        assert!(is_function("_ZL7f_solvejjjjjj", "f_solve"));
        assert!(is_function("_Z7f_solvej", "f_solve"));
        assert!(is_function("f_solve", "f_solve"));
        assert!(!is_function("_ZL8f_solvesj", "f_solve"));
        assert!(!is_function("_ZL7f_solv", "f_solve"));
        assert!(is_function("_ZL14m_6Walker_downP8u_Walkerj", "m_6Walker_down"));
        // NVRTC's, as it named N-Queens' `solve` (`tests/integration/nvrtc_compile.rs`).
        let nvrtc = "$wsdsl_megakernel$_ZN48_INTERNAL_00000000_17_nqueens_cutoff_cu_2062320e7f_solveEjjjjjjjPb";
        assert!(is_function(nvrtc, "f_solve"));
        assert!(!is_function(nvrtc, "f_solv"));
        assert!(!is_function("_ZN3abc", "abc"));
    }

    #[test]
    fn the_stack_holds_limit_frames_of_each_cycle_over_every_frame_once() {
        let r = Recursion { limit: 100, cycles: 2, functions: FUNCTIONS };
        let frames = [("_ZL7f_solvejj".to_string(), 40), ("_ZL6f_evenj".to_string(), 8), ("_ZL14m_6Walker_downj".to_string(), 24), ("wsdsl_megakernel".to_string(), 400)];
        let need = needed(&r, Some(&frames));
        assert_eq!(need.per_thread, 1024 + 472 + 100 * ((40 + 64) + (24 + 64)));
        assert_eq!(need.helper, ("solve", 104));
        // No records: every cycle at the assumed frame.
        assert_eq!(needed(&r, None).per_thread, 1024 + 256 + 100 * 2 * (256 + 64));
        // A cycle without a record of its own: the largest frame of all.
        assert_eq!(needed(&r, Some(&frames[..1])).per_thread, 1024 + 40 + 100 * 2 * (40 + 64));
        let e = refusal(&need, "an H200", "because".into(), 16 << 10).to_string();
        for part in ["`solve`", "recursion_limit = 100", "104 bytes a call", "(its frame and 64 for the call; as many calls of another cycle of recursive functions too)", "an H200 cannot give: because", "to at most 77 here"] {
            assert!(e.contains(part), "{part:?} in {e}");
        }
    }
}
