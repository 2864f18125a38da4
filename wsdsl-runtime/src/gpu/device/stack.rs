//! The per-thread stack of programs with recursive helpers (`Program::RECURSION`).
//!
//! CUDA gives each thread 1 KiB of stack by default, enough for the call chains of
//! non-recursive code (ptxas sizes those itself) but not for a recursion `recursion_limit`
//! calls deep. The size needed comes from the compiled code: ptxas records each function's
//! frame (`elf::frame_sizes`), and a call chain holds at most the kernel's own frames once
//! plus, in each cycle of recursive functions, `limit` frames of that cycle. Without knowing
//! which frame belongs to which function, the bound takes every frame once and `limit` of the
//! largest per cycle, with slack per call (`SLACK_PER_CALL`); conservative. The driver reserves the stack for every thread the
//! GPU can hold at once, so a limit too high for the device's memory is an error naming it,
//! never a stack overflow at run time. Programs without recursion leave the stack alone.

use crate::gpu::device::GpuDevice;
use crate::error::Error;
use crate::contract::recursion::Recursion;
use cudarc::driver::sys::{CUdevice_attribute as Attr, CUlimit};

/// CUDA's default per-thread stack, kept as the base for the non-recursive code.
const BASE: u64 = 1024;
/// Bytes per recursive call beyond its recorded frame. ptxas records 8-byte frames for small
/// recursive helpers (`fib`, N-Queens' `solve`) that keep several values across their calls,
/// so the record may leave out the registers a call saves; 64 bytes covers the return address
/// and 14 saved registers. To be confirmed on the GPU (`tests/integration/panics.rs` case 20 recurses to
/// the limit).
const SLACK_PER_CALL: u64 = 64;
/// The frame assumed when the CUBIN records none (or cannot be read): generous for the small
/// helpers recursion is written with.
const UNKNOWN_FRAME: u64 = 256;

/// The per-thread stack, in bytes, that `recursion` needs given the CUBIN's frame sizes.
pub(crate) fn needed(recursion: &Recursion, frames: Option<&[u32]>) -> u64 {
    let (all, largest) = match frames {
        Some(f) => (f.iter().map(|&b| b as u64).sum(), f.iter().copied().max().unwrap_or(0) as u64),
        None => (UNKNOWN_FRAME, UNKNOWN_FRAME),
    };
    BASE + all + recursion.limit as u64 * recursion.cycles as u64 * (largest + SLACK_PER_CALL)
}

/// Raises the context's per-thread stack to `per_thread` bytes if it is lower; `limit` is
/// the program's `recursion_limit`, which the errors name.
pub(crate) fn ensure(dev: &GpuDevice, per_thread: u64, limit: u32) -> Result<(), Error> {
    let current = dev.ctx.get_limit(CUlimit::CU_LIMIT_STACK_SIZE).map_err(Error::driver("reading the stack size"))? as u64;
    if current >= per_thread {
        return Ok(());
    }
    let per_sm = dev
        .ctx
        .attribute(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)
        .map_err(Error::driver("reading the threads per SM"))? as u64;
    let threads = per_sm * dev.sm_count as u64;
    let total = per_thread * threads;
    let (free, _) = cudarc::driver::result::mem_get_info().map_err(Error::driver("reading the free memory"))?;
    let too_big = |why: String| {
        Error::InvalidConfig(format!(
            "recursion_limit = {limit} needs {} KiB of stack per GPU thread, {:.1} GiB for the {threads} threads {} holds at once: {why}; lower #[megakernel(recursion_limit = N)] or recurse less deeply",
            per_thread.div_ceil(1024),
            total as f64 / (1u64 << 30) as f64,
            dev.name,
        ))
    };
    // Half the free memory at most: the run's queues and buffers need the rest.
    if total > free as u64 / 2 {
        return Err(too_big(format!("more than half of the {:.1} GiB free", free as f64 / (1u64 << 30) as f64)));
    }
    dev.ctx.set_limit(CUlimit::CU_LIMIT_STACK_SIZE, per_thread as usize).map_err(|e| too_big(format!("the driver refused it ({e})")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stack_holds_limit_frames_of_the_largest_per_cycle_over_every_frame_once() {
        let r = Recursion { limit: 100, cycles: 2 };
        assert_eq!(needed(&r, Some(&[8, 40, 0])), 1024 + 48 + 100 * 2 * (40 + 64));
        assert_eq!(needed(&r, None), 1024 + 256 + 100 * 2 * (256 + 64));
    }
}
