//! Moving a run's buffers between host and device through pinned memory.
//!
//! A buffer's little-endian image travels in pieces through two pinned halves: while the
//! copy engine moves one piece, the host's cores convert the next one into (or the previous
//! one out of) the other half. Pageable copies, with a fresh vector per buffer and the
//! driver's own staging behind them, moved the octree's 540 MB each way at about 1 GB/s
//! (H100, `BENCHMARKS.md`); pinned pieces move at the link's speed and never touch fresh
//! pages. The halves are allocated once per device (they live in its workspace).

use crate::buffer::DeviceBuffer;
use crate::error::Error;
use cudarc::driver::{result, CudaContext, CudaEvent, CudaStream, PinnedHostSlice};
use std::sync::Arc;

/// Bytes per piece: a multiple of every element width; large enough that a piece's copy
/// (a third of a millisecond at 50 GB/s) dwarfs the cost of starting it.
const PIECE: usize = 16 << 20;

pub(crate) struct Staging {
    halves: [Half; 2],
    /// The half the next upload piece goes through.
    next: usize,
}

/// One pinned piece and the event recorded after the last copy that used it.
struct Half {
    host: PinnedHostSlice<u8>,
    copied: CudaEvent,
}

impl Half {
    fn new(ctx: &Arc<CudaContext>) -> Result<Half, Error> {
        // Cached (not write-combined) memory: the host reads downloaded pieces back out of it.
        // SAFETY: every byte is written (by the host or by a copy) before it is read.
        let host = unsafe { ctx.alloc_pinned_with_flags::<u8>(PIECE, 0) }.map_err(Error::driver("allocating pinned host memory for copies"))?;
        let copied = ctx.new_event(None).map_err(Error::driver("creating a copy event"))?;
        Ok(Half { host, copied })
    }

    /// The half's memory, once the last copy through it has finished.
    fn ready(&mut self) -> Result<&mut [u8], Error> {
        self.copied.synchronize().map_err(Error::driver("waiting for a copy"))?;
        self.host.as_mut_slice().map_err(Error::driver("reaching pinned host memory"))
    }
}

impl Staging {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Staging, Error> {
        Ok(Staging { halves: [Half::new(ctx)?, Half::new(ctx)?], next: 0 })
    }

    /// Copies `buffer`'s image to device address `dst` (asynchronously on `stream`: the
    /// copies are in order before anything enqueued on it afterwards).
    pub fn upload(&mut self, stream: &Arc<CudaStream>, buffer: &dyn DeviceBuffer, dst: u64) -> Result<(), Error> {
        let width = buffer.elem_bytes();
        let total = buffer.len() * width;
        for offset in (0..total).step_by(PIECE) {
            let len = PIECE.min(total - offset);
            if buffer.is_zero(offset / width, len / width) {
                // Outputs start as zeros: clearing them on the device costs no conversion
                // and no transfer (the octree's leaf arrays, 240 MB at 15 M particles).
                // SAFETY: `dst + offset .. + len` lies in the buffer's device copy.
                unsafe { result::memset_d8_async(dst + offset as u64, 0, len, stream.cu_stream()) }
                    .map_err(Error::driver("clearing a buffer on the device"))?;
                continue;
            }
            let half = &mut self.halves[self.next];
            self.next ^= 1;
            let piece = &mut half.ready()?[..len];
            buffer.write_le(offset / width, piece);
            // SAFETY: the piece is pinned and stays untouched until `copied` has passed (the
            // next use waits for it); `dst + offset` lies in the buffer's device copy.
            unsafe { result::memcpy_htod_async(dst + offset as u64, piece, stream.cu_stream()) }
                .map_err(Error::driver("copying a buffer to the device"))?;
            half.copied.record(stream).map_err(Error::driver("recording a copy event"))?;
        }
        Ok(())
    }

    /// Overwrites `buffer` with the image at device address `src` (waits for the copies,
    /// and with them for everything enqueued on `stream` before).
    pub fn download(&mut self, stream: &Arc<CudaStream>, src: u64, buffer: &dyn DeviceBuffer) -> Result<(), Error> {
        let width = buffer.elem_bytes();
        let total = buffer.len() * width;
        let pieces: Vec<usize> = (0..total).step_by(PIECE).collect();
        let enqueue = |half: &mut Half, offset: usize| -> Result<(), Error> {
            let piece = &mut half.ready()?[..PIECE.min(total - offset)];
            // SAFETY: as in `upload`; the host reads the piece only after `copied` has passed.
            unsafe { result::memcpy_dtoh_async(piece, src + offset as u64, stream.cu_stream()) }
                .map_err(Error::driver("reading a buffer back"))?;
            half.copied.record(stream).map_err(Error::driver("recording a copy event"))
        };
        if let Some(&first) = pieces.first() {
            enqueue(&mut self.halves[0], first)?;
        }
        for (k, &offset) in pieces.iter().enumerate() {
            // The next piece is copied into the other half while this one is converted.
            if let Some(&following) = pieces.get(k + 1) {
                enqueue(&mut self.halves[(k + 1) % 2], following)?;
            }
            let piece = &self.halves[k % 2].ready()?[..PIECE.min(total - offset)];
            buffer.read_le(offset / width, piece);
        }
        Ok(())
    }
}
