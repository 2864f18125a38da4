//! The device side of complete handlers, as the host sees it: the frame pool and the roots'
//! values, reached by the kernel through the module global `wsdsl_join` (`cuda/join.cuh`).

use super::device::GpuDevice;
use super::inputs::ptr;
use crate::error::Error;
use crate::program::Program;
use crate::value::TaskValue;
use cudarc::driver::{CudaModule, CudaSlice, CudaStream};
use std::sync::Arc;

/// Largest default frame pool; free device memory may lower it.
const DEFAULT_MAX_FRAMES: u64 = 1 << 24;
/// `WS_JOIN_NONE`: an empty free-chain stack.
const NO_FRAME: u64 = 0xffff_fffd;

/// Host mirror of `struct ws_join_state` (same order, C layout).
#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct JoinRecord {
    pub frames: u64,
    pub root_values: u64,
    pub free_chains: u64,
    pub bump: u32,
    pub capacity: u32,
}

impl JoinRecord {
    /// A fresh pool of `capacity` frames at `frames`, roots' values at `root_values`.
    pub fn new(frames: u64, root_values: u64, capacity: u32) -> JoinRecord {
        JoinRecord { frames, root_values, free_chains: NO_FRAME, bump: 0, capacity }
    }

    pub fn to_bytes(self) -> Vec<u8> {
        let mut b = Vec::with_capacity(32);
        b.extend_from_slice(&self.frames.to_le_bytes());
        b.extend_from_slice(&self.root_values.to_le_bytes());
        b.extend_from_slice(&self.free_chains.to_le_bytes());
        b.extend_from_slice(&self.bump.to_le_bytes());
        b.extend_from_slice(&self.capacity.to_le_bytes());
        b
    }

    pub fn from_bytes(b: &[u8]) -> JoinRecord {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        JoinRecord { frames: u64_at(0), root_values: u64_at(8), free_chains: u64_at(16), bump: u32_at(24), capacity: u32_at(28) }
    }

    /// Frames ever handed out: an upper bound on the frames in use at once.
    pub fn high_water(&self) -> u64 {
        self.bump.min(self.capacity) as u64
    }
}

/// Bytes reserved per root for its value (any scalar fits).
pub(crate) const ROOT_VALUE_BYTES: usize = 8;

/// The roots' values from their device image (`value_bytes` apart).
pub(crate) fn decode_root_values<P: Program>(bytes: &[u8], roots: usize) -> Vec<P::Value> {
    let stride = P::JOIN.map_or(0, |j| j.value_bytes);
    if stride == 0 {
        return vec![P::Value::default(); roots];
    }
    bytes.chunks_exact(stride).take(roots).map(P::Value::from_device_bytes).collect()
}

/// The frame pool size: the requested one, or as many frames as fit in a quarter of free
/// device memory, up to 16 M.
pub(crate) fn choose_frames(frame_bytes: usize, free: usize, requested: Option<u32>) -> Result<u32, Error> {
    let n = match requested {
        Some(n) => n as u64,
        None => ((free as u64 / 4) / frame_bytes.max(1) as u64).min(DEFAULT_MAX_FRAMES),
    };
    if n == 0 || n * frame_bytes as u64 > free as u64 || n >= NO_FRAME {
        return Err(Error::InvalidConfig(format!(
            "a pool of {n} join frames of {frame_bytes} bytes does not fit in {} MiB of free device memory",
            free >> 20
        )));
    }
    Ok(n as u32)
}

/// Frames and root values in device memory.
pub(crate) struct JoinPool {
    /// Owned so that the frames live as long as the kernel may use them.
    #[allow(dead_code)]
    frames: CudaSlice<u8>,
    root_values: CudaSlice<u8>,
    roots: usize,
}

impl JoinPool {
    /// For a program with joins: allocates the pool and the roots' values and points the
    /// module's `wsdsl_join` at them. `None` for programs without.
    pub fn prepare<P: Program>(
        dev: &GpuDevice,
        module: &Arc<CudaModule>,
        roots: usize,
        requested: Option<u32>,
    ) -> Result<Option<JoinPool>, Error> {
        let Some(layout) = P::JOIN else { return Ok(None) };
        let stream = &dev.stream;
        let (free, _) = dev.ctx.mem_get_info().map_err(Error::driver("reading free memory"))?;
        let capacity = choose_frames(layout.frame_bytes, free, requested)?;
        // SAFETY: frames are initialised by the kernel before use (free lists, then the task).
        let frames = unsafe { stream.alloc::<u8>(capacity as usize * layout.frame_bytes) }
            .map_err(Error::driver("allocating the join frames"))?;
        let root_values =
            stream.alloc_zeros::<u8>(roots.max(1) * ROOT_VALUE_BYTES).map_err(Error::driver("allocating the roots' values"))?;
        let record = JoinRecord::new(ptr(&frames, stream), ptr(&root_values, stream), capacity);
        let mut global = module.get_global("wsdsl_join", stream).map_err(Error::driver("finding the join state"))?;
        stream.memcpy_htod(&record.to_bytes(), &mut global).map_err(Error::driver("writing the join state"))?;
        Ok(Some(JoinPool { frames, root_values, roots }))
    }

    /// After the run: the roots' values and the pool's high-water mark.
    pub fn results<P: Program>(
        pool: &Option<JoinPool>,
        module: &Arc<CudaModule>,
        stream: &Arc<CudaStream>,
        roots: usize,
    ) -> Result<(Vec<P::Value>, u64), Error> {
        let Some(pool) = pool else { return Ok((vec![P::Value::default(); roots], 0)) };
        let global = module.get_global("wsdsl_join", stream).map_err(Error::driver("reading the join state"))?;
        let record = JoinRecord::from_bytes(&stream.clone_dtoh(&global).map_err(Error::driver("reading the join state"))?);
        let bytes = stream.clone_dtoh(&pool.root_values).map_err(Error::driver("reading the roots' values"))?;
        Ok((decode_root_values::<P>(&bytes, pool.roots), record.high_water()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_join_record_round_trips_in_c_layout() {
        let r = JoinRecord { frames: 1, root_values: 2, free_chains: NO_FRAME, bump: 48, capacity: 40 };
        let b = r.to_bytes();
        assert_eq!(b.len(), 32, "sizeof(ws_join_state)");
        let back = JoinRecord::from_bytes(&b);
        assert_eq!((back.frames, back.root_values, back.free_chains, back.bump, back.capacity), (1, 2, NO_FRAME, 48, 40));
        assert_eq!(back.high_water(), 40, "the bump runs past the capacity only when the pool is exhausted");
    }

    #[test]
    fn the_frame_pool_fits_free_memory() {
        assert_eq!(choose_frames(100, 4_000, None).unwrap(), 10);
        assert_eq!(choose_frames(100, usize::MAX / 2, None).unwrap(), 1 << 24);
        assert!(choose_frames(100, 1_000, Some(11)).is_err());
    }
}
