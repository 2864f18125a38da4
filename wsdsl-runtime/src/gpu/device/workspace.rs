//! Device memory kept between runs. The persistent kernel's deques, statistics, SM tables,
//! join frames and stop flag are allocated on a device's first run and reused by every later
//! run that fits in them (a run that needs more grows the buffer), so a warm run pays for
//! its launch and a few small copies, not for allocations of gigabytes.
//!
//! Buffers are named by their role. A buffer is handed out as a device address; what the
//! kernel reads must be initialised by the run (`zeroed`, `upload`), what it only writes
//! need not be. A kernel that ignored its stop request may still use every buffer: then the
//! workspace is abandoned (its memory never freed) rather than reused.
//!
//! The workspace also keeps the device copies of the program's read-only arrays
//! (`ReadOnly<T>`), one per array, until the array's last clone is dropped on the host;
//! the device copies of the program's other buffers, by position, reused by the next run;
//! and the pinned memory their images travel through (`staging.rs`).

use crate::gpu::device::mapped::HostMapped;
use crate::gpu::device::staging::{Pace, Staging, PIECE};
use crate::gpu::device::watchdog::StopFlag;
use crate::contract::buffer::{DeviceBuffer, Residency};
use crate::error::Error;
use crate::stats::Transfers;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr};
use std::collections::HashMap;
use std::sync::{Arc, Weak};

#[derive(Default)]
pub(crate) struct Workspace {
    buffers: HashMap<&'static str, CudaSlice<u8>>,
    /// Device copies of read-only arrays by array id, each with the handle that dies with
    /// the array.
    resident: HashMap<u64, (Weak<()>, CudaSlice<u8>)>,
    /// Device copies of the program's writable buffers, by their position in its buffer set.
    copies: Vec<Option<CudaSlice<u8>>>,
    staging: Option<Staging>,
    stop: Option<StopFlag>,
    progress: Option<HostMapped<u64>>,
    /// What the run holding the workspace has moved so far (reset when a run takes it).
    pub moved: Transfers,
}

impl Workspace {
    /// The buffer for `role`, at least `bytes` long, contents undefined; its device address.
    pub fn buffer(&mut self, stream: &Arc<CudaStream>, role: &'static str, bytes: usize) -> Result<u64, Error> {
        let mut slot = self.buffers.remove(role);
        // Every caller initialises what the kernel reads before launching it.
        let address = at_least(&mut slot, stream, bytes, "allocating device memory for a run")?;
        self.buffers.insert(role, slot.expect("allocated by at_least"));
        Ok(address)
    }

    /// Device memory a run may size `roles` by: what is free, plus what the workspace holds
    /// for those roles already (the run reuses it), so that warm runs size them as cold ones.
    pub fn free_for(&self, ctx: &Arc<CudaContext>, roles: &[&str]) -> Result<usize, Error> {
        let (free, _) = ctx.mem_get_info().map_err(Error::driver("reading free memory"))?;
        Ok(free + roles.iter().map(|r| self.buffers.get(r).map_or(0, |b| b.len())).sum::<usize>())
    }

    /// The buffer for `role`, its first `bytes` zeroed (asynchronously, before the launch).
    pub fn zeroed(&mut self, stream: &Arc<CudaStream>, role: &'static str, bytes: usize) -> Result<u64, Error> {
        let address = self.buffer(stream, role, bytes)?;
        let b = self.buffers.get_mut(role).expect("allocated above");
        let mut head = b.slice_mut(..bytes.max(1));
        stream.memset_zeros(&mut head).map_err(Error::driver("clearing device memory for a run"))?;
        Ok(address)
    }

    /// The buffer for `role`, `bytes` long: `rows` rows of `pitch` bytes whose first `width`
    /// bytes are zeroed (one two-dimensional memset), then the rest after the rows zeroed
    /// whole. The broker queues' rings need no clearing (`Target::zeroed_queues`), and
    /// a ring is several times its tickets (a slot holds a task, a ticket 4 bytes): so the
    /// priority bands' launch on R-MAT 22 takes 0.8 ms, against 1.8 ms with the rings cleared
    /// too (on an H100).
    /// Where the driver refuses the rows (a pitch it does not take), the whole buffer is
    /// zeroed instead.
    pub fn zeroed_rows(&mut self, stream: &Arc<CudaStream>, role: &'static str, bytes: usize, rows: usize, pitch: usize, width: usize) -> Result<u64, Error> {
        let Some(rest) = rows_rest(bytes, rows, pitch, width) else {
            return self.zeroed(stream, role, bytes);
        };
        let address = self.buffer(stream, role, bytes)?;
        // SAFETY: the rows lie inside the buffer just taken for `role` (rows * pitch <= bytes),
        // on the stream every use of it is ordered by.
        let rows_cleared = unsafe { cudarc::driver::sys::cuMemsetD2D8Async(address, pitch, 0, width, rows, stream.cu_stream()) };
        if rows_cleared != cudarc::driver::sys::CUresult::CUDA_SUCCESS {
            return self.zeroed(stream, role, bytes);
        }
        if rest > 0 {
            // SAFETY: as above; the tail [rows * pitch, bytes) is inside the buffer.
            unsafe { cudarc::driver::result::memset_d8_async(address + (rows * pitch) as u64, 0, rest, stream.cu_stream()) }
                .map_err(Error::driver("clearing device memory for a run"))?;
        }
        Ok(address)
    }

    /// The buffer for `role`, holding `data` (copied before the launch).
    pub fn upload<T: cudarc::driver::DeviceRepr>(&mut self, stream: &Arc<CudaStream>, role: &'static str, data: &[T]) -> Result<u64, Error> {
        let bytes = std::mem::size_of_val(data);
        let address = self.buffer(stream, role, bytes)?;
        let b = self.buffers.get_mut(role).expect("allocated above");
        // SAFETY: the bytes of plain-old-data values (`DeviceRepr`).
        let raw = unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, bytes) };
        let mut head = b.slice_mut(..bytes.max(1));
        if bytes > 0 {
            stream.memcpy_htod(raw, &mut head).map_err(Error::driver("copying a run's inputs to the device"))?;
        }
        self.moved.uploaded += bytes as u64;
        Ok(address)
    }

    /// The buffer for `role`, holding the images of `items` items of `width` bytes that
    /// `encode(first, piece)` writes into zeroed pieces (copied before the launch). Images of
    /// a piece or more are encoded straight into the pinned pieces on every core while the
    /// previous piece is copied; smaller ones take one plain copy (no pinned memory needed).
    pub fn upload_encoded(
        &mut self,
        stream: &Arc<CudaStream>,
        role: &'static str,
        items: usize,
        width: usize,
        encode: &(dyn Fn(usize, &mut [u8]) + Sync),
    ) -> Result<u64, Error> {
        let bytes = items * width;
        if bytes < PIECE {
            let mut image = vec![0u8; bytes];
            encode(0, &mut image);
            return self.upload(stream, role, &image);
        }
        let address = self.buffer(stream, role, bytes)?;
        self.traced(|| format!("{role} encoded and uploaded"), bytes, |ws| ws.staging(stream)?.upload_encoded(stream, items, width, encode, address))?;
        self.moved.uploaded += bytes as u64;
        Ok(address)
    }

    /// Whether the device copy of a read-only array is here already.
    pub fn holds(&self, array: &Residency) -> bool {
        self.resident.get(&array.id).is_some_and(|(alive, _)| alive.strong_count() > 0)
    }

    /// The device copy of a read-only array, uploaded on first use; its address. Copies of
    /// arrays dropped since are freed first.
    pub fn resident(&mut self, stream: &Arc<CudaStream>, array: &Residency, buffer: &dyn DeviceBuffer) -> Result<u64, Error> {
        self.resident.retain(|_, (alive, _)| alive.strong_count() > 0);
        if !self.resident.contains_key(&array.id) {
            let bytes = (buffer.len() * buffer.elem_bytes()).max(1);
            // SAFETY: the upload below writes every byte the kernel may read (its length).
            let copy = unsafe { stream.alloc::<u8>(bytes) }.map_err(Error::driver("allocating device memory for a read-only array"))?;
            let moved = self.staging(stream)?.upload(stream, buffer, crate::gpu::device::inputs::ptr(&copy, stream))?;
            self.count(moved);
            self.resident.insert(array.id, (array.alive.clone(), copy));
        }
        Ok(crate::gpu::device::inputs::ptr(&self.resident[&array.id].1, stream))
    }

    /// The device copy of the writable buffer at `position` in the program's buffer set,
    /// holding `buffer`'s contents (copied before the launch); its address.
    pub fn copy_in(&mut self, stream: &Arc<CudaStream>, position: usize, buffer: &dyn DeviceBuffer) -> Result<u64, Error> {
        // The upload below writes every byte the kernel may read (the buffer's length).
        let bytes = buffer.len() * buffer.elem_bytes();
        let address = self.copy_at(stream, position, bytes)?;
        let moved = self.staging(stream)?.upload(stream, buffer, address)?;
        self.count(moved);
        Ok(address)
    }

    /// The device copy of the scratch buffer at `position` (`bytes` long), cleared: it is
    /// neither uploaded nor copied back.
    pub fn scratch(&mut self, stream: &Arc<CudaStream>, position: usize, bytes: usize) -> Result<u64, Error> {
        let address = self.copy_at(stream, position, bytes)?;
        let slot = self.copies[position].as_mut().expect("allocated by copy_at");
        let mut head = slot.slice_mut(..bytes.max(1));
        stream.memset_zeros(&mut head).map_err(Error::driver("clearing a scratch buffer on the device"))?;
        self.moved.cleared += bytes as u64;
        Ok(address)
    }

    /// The device copy of the buffer at `position`, at least `bytes` long, contents undefined;
    /// its address.
    fn copy_at(&mut self, stream: &Arc<CudaStream>, position: usize, bytes: usize) -> Result<u64, Error> {
        if self.copies.len() <= position {
            self.copies.resize_with(position + 1, || None);
        }
        at_least(&mut self.copies[position], stream, bytes, "allocating device memory for a buffer")
    }

    /// Refreshes `buffer` from its device copy at `position` (after the run).
    pub fn copy_out(&mut self, stream: &Arc<CudaStream>, position: usize, buffer: &dyn DeviceBuffer) -> Result<(), Error> {
        let address = crate::gpu::device::inputs::ptr(self.copies.get(position).and_then(Option::as_ref).expect("a buffer the run uploaded"), stream);
        self.staging(stream)?.download(stream, address, buffer)?;
        self.moved.downloaded += (buffer.len() * buffer.elem_bytes()) as u64;
        Ok(())
    }

    /// Adds a buffer's upload to what the run has moved.
    fn count(&mut self, moved: Transfers) {
        self.moved.uploaded += moved.uploaded;
        self.moved.cleared += moved.cleared;
    }

    fn staging(&mut self, stream: &Arc<CudaStream>) -> Result<&mut Staging, Error> {
        if self.staging.is_none() {
            self.staging = Some(Staging::new(stream.context())?);
        }
        Ok(self.staging.as_mut().expect("created above"))
    }

    /// The stop flag, lowered.
    pub fn stop_flag(&mut self, ctx: &Arc<CudaContext>) -> Result<&StopFlag, Error> {
        if self.stop.is_none() {
            self.stop = Some(StopFlag::new(ctx)?);
        }
        let stop = self.stop.as_ref().expect("created above");
        stop.lower();
        Ok(stop)
    }

    /// One host-mapped progress word per worker, zeroed (`progress.rs`); its device address.
    pub fn progress_words(&mut self, ctx: &Arc<CudaContext>, workers: usize) -> Result<u64, Error> {
        if !self.progress.as_ref().is_some_and(|p| p.len() >= workers) {
            self.progress = None;
            self.progress = Some(HostMapped::new(ctx, workers, "allocating the progress words")?);
        }
        let words = self.progress.as_ref().expect("allocated above");
        words.fill(0);
        Ok(words.device)
    }

    /// Tasks the first `workers` workers have published so far (while the kernel runs).
    pub fn progress_published(&self, workers: usize) -> u64 {
        self.progress.as_ref().map_or(0, |p| p.sum(workers))
    }

    /// The stop flag of the run in progress (`stop_flag` made it).
    pub fn stop(&self) -> &StopFlag {
        self.stop.as_ref().expect("stop_flag() was called for this run")
    }

    /// Runs `copy` on the workspace, and with `WSDSL_TRACE_COPIES=1` reports on standard
    /// error what it moved and where the host's time went: waiting for the copy engine, or
    /// making and reading images (an upload returns once its last piece is on its way). Where
    /// a run's launch and copy-back phases went, buffer by buffer.
    pub fn traced<R>(&mut self, what: impl FnOnce() -> String, bytes: usize, copy: impl FnOnce(&mut Self) -> Result<R, Error>) -> Result<R, Error> {
        static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        if !*TRACE.get_or_init(|| std::env::var("WSDSL_TRACE_COPIES").is_ok_and(|v| v.trim() == "1")) {
            return copy(self);
        }
        // What earlier copies left is not this one's.
        if let Some(staging) = self.staging.as_mut() {
            staging.take_pace();
        }
        let started = std::time::Instant::now();
        let result = copy(self);
        let took = started.elapsed();
        let Pace { waited, host } = self.staging.as_mut().map(Staging::take_pace).unwrap_or_default();
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        eprintln!(
            "wsdsl: {} ({:.1} MB) in {:.2} ms ({:.2} ms waiting for the copy engine, {:.2} ms making or reading images)",
            what(),
            bytes as f64 / 1e6,
            ms(took),
            ms(waited),
            ms(host)
        );
        result
    }

    /// `look` at the first `count` bytes of the buffer for `role` (after the run).
    pub fn read_bytes_with<R>(&mut self, stream: &Arc<CudaStream>, role: &'static str, count: usize, look: impl FnOnce(&[u8]) -> R) -> Result<R, Error> {
        let address = crate::gpu::device::inputs::ptr(self.buffers.get(role).expect("a buffer the run used"), stream);
        // Through the pinned pieces, as the buffers come back: not a pageable copy, which the
        // driver stages through memory of its own (a persistent kernel's worker statistics
        // are half a megabyte and more).
        let seen = self.staging(stream)?.read_with(stream, address, count, look)?;
        self.moved.downloaded += count as u64;
        Ok(seen)
    }

    /// The kernel still runs and may touch every buffer: keep them allocated forever.
    pub fn abandon(&mut self) {
        for (_, b) in self.buffers.drain() {
            std::mem::forget(b);
        }
        for (_, b) in self.resident.drain() {
            std::mem::forget(b);
        }
        for b in self.copies.drain(..) {
            std::mem::forget(b);
        }
        if let Some(stop) = self.stop.take() {
            std::mem::forget(stop);
        }
        if let Some(progress) = self.progress.take() {
            std::mem::forget(progress);
        }
    }
}

/// The memory in `slot`, at least `bytes` long (at least one byte), contents undefined; its
/// device address. A slot holding less is freed before the larger block is taken.
fn at_least(slot: &mut Option<CudaSlice<u8>>, stream: &Arc<CudaStream>, bytes: usize, during: &'static str) -> Result<u64, Error> {
    let bytes = bytes.max(1);
    if !slot.as_ref().is_some_and(|b| b.len() >= bytes) {
        *slot = None;
        // SAFETY: callers write what the kernel reads before launching it (see theirs).
        *slot = Some(unsafe { stream.alloc::<u8>(bytes) }.map_err(Error::driver(during))?);
    }
    let (address, _sync) = slot.as_ref().expect("allocated above").device_ptr(stream);
    Ok(address)
}

/// The bytes after `rows` rows of `pitch` bytes in a buffer of `bytes` (cleared whole by
/// `zeroed_rows`), or `None` where rows of `width` do not describe the buffer (none, wider
/// than their pitch, or past its end): then all of it is cleared.
fn rows_rest(bytes: usize, rows: usize, pitch: usize, width: usize) -> Option<usize> {
    if rows == 0 || width > pitch {
        return None;
    }
    bytes.checked_sub(rows.checked_mul(pitch)?)
}

#[cfg(test)]
mod tests {
    use super::rows_rest;

    #[test]
    fn queue_rows_leave_only_what_follows_them_to_clear_whole() {
        // The bands: 33 queues, then 32 running counts of 4 bytes, cleared whole.
        let pitch = 256 + 4 * 1024 + 24 * 1024;
        assert_eq!(rows_rest(33 * pitch + 128, 33, pitch, 256 + 4 * 1024), Some(128));
        // Queues so small that the counts are longer than one: still cleared whole, since
        // the kernel names the number of queues (the area's size would count one row more).
        assert_eq!(rows_rest(33 * 64 + 128, 33, 64, 40), Some(128));
        // BSQ: one queue per block, nothing after them.
        assert_eq!(rows_rest(132 * pitch, 132, pitch, 256 + 4 * 1024), Some(0));
        // Layouts that do not describe the buffer: all of it is cleared.
        assert_eq!(rows_rest(4096, 0, 64, 40), None, "no rows");
        assert_eq!(rows_rest(4096, 2, 64, 65), None, "rows wider than their pitch");
        assert_eq!(rows_rest(4096, 65, 64, 40), None, "rows past the end");
        assert_eq!(rows_rest(4096, usize::MAX, 64, 40), None, "rows whose size overflows");
    }
}
