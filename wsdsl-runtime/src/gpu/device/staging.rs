//! Moving a run's buffers between host and device through pinned memory.
//!
//! A buffer's little-endian image travels in pieces through two pinned halves: while the
//! copy engine moves one piece, the host's cores convert the next one into (or the previous
//! one out of) the other half. Pageable copies, with a fresh vector per buffer and the
//! driver's own staging behind them, move the octree's 540 MB each way at about 1 GB/s (on
//! an H100); pinned pieces move at the link's speed and never touch fresh pages. The halves
//! are allocated once per device (they live in its workspace).

use crate::contract::buffer::DeviceBuffer;
use crate::error::Error;
use crate::stats::Transfers;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{result, CudaContext, CudaEvent, CudaStream, PinnedHostSlice};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Bytes per piece: a multiple of every element width; large enough that a piece's copy
/// (a third of a millisecond at 50 GB/s) dwarfs the cost of starting it. Smaller pieces of a
/// download overlap more of the conversion with the copy, but each costs a wait on its event
/// and a round of the host's cores: BFS's 16.8 MB of depths come back in 0.72 ms in pieces of
/// 16 MB, 1.05 in 4 and 1.44 in 2 (on an H200).
pub(crate) const PIECE: usize = 16 << 20;

/// Bytes per tile of an upload that is looked at for one repeated word: small enough that an
/// array of one value with a few elements set is mostly set on the device, large enough that
/// looking costs little beside copying (a multiple of every element width). A `Buffer`'s map
/// of known tiles uses the same tiles, so it answers for each tile asked about without
/// reading the buffer (`contract/buffer/`, module notes).
const TILE: usize = crate::contract::buffer::TILE_BYTES;

pub(crate) struct Staging {
    halves: [Half; 2],
    /// The half the next upload piece goes through.
    next: usize,
    /// Where the copies' time went since it was last taken.
    pace: Pace,
    /// One event per part of a download round (both halves, `PART` bytes each).
    landed: Vec<CudaEvent>,
}

/// The host's time in copies: waiting for the copy engine to free a half (or to bring a
/// piece back), and making or reading images.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Pace {
    pub waited: Duration,
    pub host: Duration,
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
        let landed = (0..2 * PIECE / PART)
            .map(|_| ctx.new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING)).map_err(Error::driver("creating a copy event")))
            .collect::<Result<_, _>>()?;
        Ok(Staging { halves: [Half::new(ctx)?, Half::new(ctx)?], next: 0, pace: Pace::default(), landed })
    }

    /// Copies `buffer`'s image to device address `dst` (asynchronously on `stream`: the
    /// copies are in order before anything enqueued on it afterwards); what it moved.
    ///
    /// Tile by tile (`TILE`): a run of tiles that repeat one 32-bit word (zeros, or a fill
    /// value such as BFS's unvisited depth) is set on the device, which costs no conversion
    /// and no transfer (the octree's leaf arrays, 240 MB at 15 M particles); the tiles between
    /// are copied in pieces of up to `PIECE`. So an array of one value with a few elements set
    /// (a search's source) crosses PCIe as the tiles that hold those few.
    pub fn upload(&mut self, stream: &Arc<CudaStream>, buffer: &dyn DeviceBuffer, dst: u64) -> Result<Transfers, Error> {
        let width = buffer.elem_bytes();
        let total = buffer.len() * width;
        let mut moved = Transfers::default();
        let looking = Instant::now();
        let runs = upload_runs(total, TILE, PIECE, |at, len| buffer.repeated_word(at / width, len / width));
        self.pace.host += looking.elapsed();
        for (bytes, word) in runs {
            let (at, len) = (bytes.start, bytes.len());
            if let Some(word) = word {
                // SAFETY: `dst + at .. + len` lies in the buffer's device copy; every element
                // is 4 or 8 bytes wide, so `len` is whole words.
                unsafe { cudarc::driver::sys::cuMemsetD32Async(dst + at as u64, word, len / 4, stream.cu_stream()) }
                    .result()
                    .map_err(Error::driver("setting a buffer on the device"))?;
                moved.cleared += len as u64;
            } else {
                self.send(stream, dst + at as u64, len, |piece| buffer.write_le(at / width, piece))?;
                moved.uploaded += len as u64;
            }
        }
        Ok(moved)
    }

    /// Copies the images of `items` items of `width` bytes to device address `dst`,
    /// `encode(first, piece)` writing those of items `first..` into each zeroed piece.
    pub fn upload_encoded(
        &mut self,
        stream: &Arc<CudaStream>,
        items: usize,
        width: usize,
        encode: &(dyn Fn(usize, &mut [u8]) + Sync),
        dst: u64,
    ) -> Result<(), Error> {
        for bytes in item_pieces(items, width, PIECE)? {
            self.send(stream, dst + bytes.start as u64, bytes.len(), |piece| {
                zero(piece);
                encode(bytes.start / width, piece)
            })?;
        }
        Ok(())
    }

    /// Where the copies' time went since the last call.
    pub fn take_pace(&mut self) -> Pace {
        std::mem::take(&mut self.pace)
    }

    /// Copies `len` bytes that `fill` writes into the next pinned half to device address
    /// `dst`, once the half's last copy has finished.
    fn send(&mut self, stream: &Arc<CudaStream>, dst: u64, len: usize, fill: impl FnOnce(&mut [u8])) -> Result<(), Error> {
        let half = &mut self.halves[self.next];
        self.next ^= 1;
        let waiting = Instant::now();
        let piece = &mut half.ready()?[..len];
        let filling = Instant::now();
        self.pace.waited += filling - waiting;
        fill(piece);
        self.pace.host += filling.elapsed();
        // SAFETY: the piece is pinned and stays untouched until `copied` has passed (the
        // next use waits for it); `dst .. dst + len` lies in device memory of the run.
        unsafe { result::memcpy_htod_async(dst, piece, stream.cu_stream()) }.map_err(Error::driver("copying a buffer to the device"))?;
        half.copied.record(stream).map_err(Error::driver("recording a copy event"))
    }

    /// `look` at the `count` bytes at device address `src` (waits for the copies, and with
    /// them for everything enqueued on `stream` before): in the pinned half they came back
    /// to, if one holds them; else gathered into a vector.
    pub fn read_with<R>(&mut self, stream: &Arc<CudaStream>, src: u64, count: usize, look: impl FnOnce(&[u8]) -> R) -> Result<R, Error> {
        let mut gathered = Vec::new();
        for offset in (0..count).step_by(PIECE) {
            let half = &mut self.halves[0];
            let piece = &mut half.ready()?[..PIECE.min(count - offset)];
            // SAFETY: as in `upload`; the host reads the piece only after `copied` has passed.
            unsafe { result::memcpy_dtoh_async(piece, src + offset as u64, stream.cu_stream()) }.map_err(Error::driver("reading a run's results"))?;
            half.copied.record(stream).map_err(Error::driver("recording a copy event"))?;
            let piece = &half.ready()?[..PIECE.min(count - offset)];
            if count <= PIECE {
                return Ok(look(piece));
            }
            gathered.extend_from_slice(piece);
        }
        Ok(look(&gathered))
    }

    /// Overwrites `buffer` with the image at device address `src` (waits for the copies,
    /// and with them for everything enqueued on `stream` before).
    ///
    /// In rounds of both halves: every part of a round (`PART` bytes, one copy and one event
    /// each) is enqueued at once, and the copy-back crew (`ready.rs`) converts each part into
    /// the buffer as soon as it lands, while the copy engine moves the next. The round ends
    /// a fraction of a part's conversion after its last copy. Converted a whole piece after
    /// its copy (waking the host's cores for it), BFS's 16.8 MB of depths would be in place
    /// 0.4-0.7 ms behind their 0.31-ms copy; part by part they are 0.08-0.18 ms after it (on
    /// an H200).
    pub fn download(&mut self, stream: &Arc<CudaStream>, src: u64, buffer: &dyn DeviceBuffer) -> Result<(), Error> {
        let width = buffer.elem_bytes();
        let total = buffer.len() * width;
        for round in (0..total).step_by(2 * PIECE) {
            let len = (2 * PIECE).min(total - round);
            let waiting = Instant::now();
            // Both halves free: their last copies (an upload's, a read's) have finished.
            let halves = [self.halves[0].ready()?.as_mut_ptr(), self.halves[1].ready()?.as_mut_ptr()];
            let parts: Vec<Landing> = (0..len)
                .step_by(PART)
                .zip(&self.landed)
                .map(|(at, landed)| Landing { at: round + at, host: Pinned(halves[at / PIECE].wrapping_add(at % PIECE)), len: PART.min(len - at), landed })
                .collect();
            let enqueued = parts.iter().try_for_each(|part| {
                // SAFETY: the part lies in a pinned half that no copy uses now; the host reads it
                // only after `landed` has passed.
                let piece = unsafe { std::slice::from_raw_parts_mut(part.host.0, part.len) };
                unsafe { result::memcpy_dtoh_async(piece, src + part.at as u64, stream.cu_stream()) }.map_err(Error::driver("reading a buffer back"))?;
                part.landed.record(stream).map_err(Error::driver("recording a copy event"))
            });
            // The halves' next users wait for these copies too, whether or not all of them
            // were enqueued and converted.
            for half in &mut self.halves {
                half.copied.record(stream).map_err(Error::driver("recording a copy event"))?;
            }
            enqueued?;
            let (copied, converted) = convert_as_they_land(stream.context(), &parts, buffer)?;
            self.pace.waited += copied.saturating_duration_since(waiting);
            self.pace.host += converted.saturating_duration_since(copied);
        }
        Ok(())
    }
}

/// Bytes per part of a download: its own copy and event. Whole tiles of a `Buffer`'s map and
/// a divisor of `PIECE`. Parts of 1, 2 and 4 MB bring BFS's depths back alike (its call
/// 1.37-1.42x its kernel, 4 MB at the low end; on an H200); fewer parts are fewer copies to
/// enqueue and events to poll.
const PART: usize = 4 << 20;
const _: () = assert!(PIECE % PART == 0 && PART % TILE == 0 && PART % UNIT == 0, "parts tile the halves; units tile the parts");

/// A part of a download: the bytes at `at` of the buffer's image, copied into pinned memory at
/// `host`, there once `landed` has passed.
struct Landing<'e> {
    at: usize,
    host: Pinned,
    len: usize,
    landed: &'e CudaEvent,
}

/// A pointer into a pinned half, read by the crew's threads once its part has landed.
#[derive(Clone, Copy)]
struct Pinned(*mut u8);
// SAFETY: parts are disjoint; each is written by one copy and then only read.
unsafe impl Send for Pinned {}
unsafe impl Sync for Pinned {}

/// Converts every part into `buffer` as it lands, on the copy-back crew's threads, each
/// awake and polling its part's event, so that no thread must be woken once the copies end;
/// on this thread alone if there is no crew or only one part. The threads take the parts in
/// units of `UNIT` bytes, so that the last part to land is converted by several. When the
/// last copy landed and when the last conversion ended.
fn convert_as_they_land(ctx: &Arc<CudaContext>, parts: &[Landing<'_>], buffer: &dyn DeviceBuffer) -> Result<(Instant, Instant), Error> {
    let width = buffer.elem_bytes();
    let units = units_of(parts.iter().map(|part| part.len), UNIT);
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let error: Mutex<Option<Error>> = Mutex::new(None);
    let last_landed = Mutex::new(Instant::now());
    let fail = |e| {
        failed.store(true, Relaxed);
        error.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(Error::driver("waiting for a copy")(e));
    };
    let convert = || {
        if let Err(e) = ctx.bind_to_thread() {
            return fail(e);
        }
        loop {
            let Some((k, bytes)) = units.get(next.fetch_add(1, Relaxed)) else { return };
            let part = &parts[*k];
            loop {
                match part.landed.try_is_complete() {
                    Ok(true) => break,
                    Ok(false) if failed.load(Relaxed) => return,
                    // A pause between queries: every query takes the driver's locks, which
                    // the other threads' queries share.
                    Ok(false) => (0..POLL_PAUSE).for_each(|_| std::hint::spin_loop()),
                    Err(e) => return fail(e),
                }
            }
            if k + 1 == parts.len() && bytes.start == 0 {
                *last_landed.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
            }
            // SAFETY: the part's copy has landed and nothing writes it until the next round.
            let image = unsafe { std::slice::from_raw_parts(part.host.0.wrapping_add(bytes.start) as *const u8, bytes.len()) };
            buffer.read_le((part.at + bytes.start) / width, image);
        }
    };
    match crate::gpu::run::ready::crew().filter(|_| units.len() > 1) {
        Some(crew) => crew.in_place_scope(|s| (0..crew.current_num_threads()).for_each(|_| s.spawn(|_| convert()))),
        None => convert(),
    }
    if let Some(e) = error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let landed = last_landed.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok((landed, Instant::now()))
}

/// The units the parts of `lens` bytes are converted in, in order: (part, bytes of the part),
/// `unit` bytes each but the last of a part.
fn units_of(lens: impl Iterator<Item = usize>, unit: usize) -> Vec<(usize, std::ops::Range<usize>)> {
    lens.enumerate().flat_map(|(k, len)| (0..len).step_by(unit).map(move |at| (k, at..(at + unit).min(len)))).collect()
}

/// Bytes a thread converts at a time: a sixteenth of a part, so that the part that lands
/// last is converted by every thread of the crew (a megabyte took one thread 0.1 ms).
const UNIT: usize = 256 << 10;

/// Spin-loop hints between two queries of a part's event.
const POLL_PAUSE: usize = 64;

/// How an upload of `total` bytes goes: consecutive byte ranges, each a run of tiles of
/// `tile` bytes that `word_of(at, len)` says repeat one 32-bit word (`Some`: set on the device
/// in one call), or a run of up to `piece` bytes of tiles that do not (`None`: copied).
/// `tile` divides `piece`.
pub(crate) fn upload_runs(
    total: usize,
    tile: usize,
    piece: usize,
    mut word_of: impl FnMut(usize, usize) -> Option<u32>,
) -> Vec<(std::ops::Range<usize>, Option<u32>)> {
    debug_assert!(tile > 0 && piece % tile == 0, "a copied run is whole tiles of at most a piece");
    let mut runs: Vec<(std::ops::Range<usize>, Option<u32>)> = Vec::new();
    for at in (0..total).step_by(tile) {
        let word = word_of(at, tile.min(total - at));
        let end = (at + tile).min(total);
        match runs.last_mut() {
            Some((run, w)) if *w == word && (word.is_some() || run.len() < piece) => run.end = end,
            _ => runs.push((at..end, word)),
        }
    }
    runs
}

/// The byte ranges `items` items of `width` bytes are copied in: whole items, at most
/// `piece` bytes each, in order.
pub(crate) fn item_pieces(items: usize, width: usize, piece: usize) -> Result<impl Iterator<Item = std::ops::Range<usize>>, Error> {
    if width == 0 || width > piece {
        return Err(Error::InvalidConfig(format!("an item of {width} bytes cannot be copied in pieces of {piece} bytes")));
    }
    let step = piece / width * width;
    let total = items * width;
    Ok((0..total).step_by(step).map(move |at| at..(at + step).min(total)))
}

/// Zeroes `piece` on every core (a piece is 16 MB).
fn zero(piece: &mut [u8]) {
    use rayon::prelude::*;
    piece.par_chunks_mut(1 << 20).for_each(|chunk| chunk.fill(0));
}

#[cfg(test)]
mod tests {
    use super::{item_pieces, units_of, upload_runs, PART, PIECE, TILE, UNIT};
    use crate::contract::buffer::{Buffer, DeviceBuffer};

    #[test]
    fn a_buffer_known_to_repeat_a_word_is_uploaded_without_reading_it() {
        // PageRank's zeroed 33 MB: every tile answered from the map.
        let arrived = Buffer::<u64>::zeroed((33 << 20) / 8 + 5);
        let total = arrived.len() * 8;
        let runs = upload_runs(total, TILE, PIECE, |at, len| {
            let word = arrived.known_word(at / 8, len / 8);
            assert_eq!(word, Some(0), "tile at {at} answered by the map");
            word
        });
        assert_eq!(runs, vec![(0..total, Some(0))]);
        // BFS's depths: a fill and the source's depth; only the source's tile is read.
        let width = 4;
        let depth = Buffer::filled(5 * TILE / width + 9, u32::MAX);
        depth.set(2 * TILE / width + 3, 0);
        let total = depth.len() * width;
        let mut read = Vec::new();
        let runs = upload_runs(total, TILE, PIECE, |at, len| {
            depth.known_word(at / width, len / width).or_else(|| {
                read.push(at / TILE);
                depth.repeated_word(at / width, len / width)
            })
        });
        assert_eq!(read, vec![2], "only the tile holding the source is read");
        assert_eq!(runs, vec![(0..2 * TILE, Some(u32::MAX)), (2 * TILE..3 * TILE, None), (3 * TILE..total, Some(u32::MAX))]);
        assert_eq!(upload_runs(total, TILE, PIECE, |at, len| depth.repeated_word(at / width, len / width)), runs, "what the upload asks");
    }

    #[test]
    fn uploads_set_runs_of_one_word_and_copy_the_rest_in_pieces() {
        // 10 tiles of 4 bytes: words by tile, None for a tile of mixed values.
        let tiles = [Some(0), Some(0), None, None, None, Some(7), Some(0), Some(0), Some(0), None];
        let runs = upload_runs(38, 4, 8, |at, len| {
            assert!(at % 4 == 0 && len == 4.min(38 - at), "whole tiles, the last one short");
            tiles[at / 4]
        });
        assert_eq!(
            runs,
            vec![(0..8, Some(0)), (8..16, None), (16..20, None), (20..24, Some(7)), (24..36, Some(0)), (36..38, None)],
            "alike tiles merge; copies stop at a piece"
        );
        assert!(upload_runs(0, 4, 8, |_, _| unreachable!()).is_empty());
    }

    #[test]
    fn downloaded_parts_are_converted_in_units_that_cover_each_once_in_order() {
        let units = units_of([10, 4, 0, 7].into_iter(), 4);
        assert_eq!(units, vec![(0, 0..4), (0, 4..8), (0, 8..10), (1, 0..4), (3, 0..4), (3, 4..7)]);
        // A round of BFS's depths: 16 MiB and the rest of 16.8 MB, in parts of PART.
        let lens = [PART, PART, PART, PART, 777_216];
        let units = units_of(lens.into_iter(), UNIT);
        assert_eq!(units.len(), 4 * PART / UNIT + 3);
        for (k, len) in lens.iter().enumerate() {
            let mine: Vec<_> = units.iter().filter(|(p, _)| *p == k).map(|(_, r)| r.clone()).collect();
            assert_eq!(mine.first().map(|r| r.start), Some(0));
            assert!(mine.windows(2).all(|w| w[0].end == w[1].start), "part {k} without gaps or overlaps");
            assert_eq!(mine.last().map(|r| r.end), Some(*len));
        }
    }

    #[test]
    fn items_are_copied_whole_in_pieces_that_cover_them_in_order() {
        let pieces: Vec<_> = item_pieces(100, 24, 1000).unwrap().collect();
        // 41 items (984 bytes) fit a piece of 1000: two full pieces and the 18 items left.
        assert_eq!(pieces, vec![0..984, 984..1968, 1968..2400]);
        assert_eq!(item_pieces(0, 24, 1000).unwrap().count(), 0);
        assert_eq!(item_pieces(41, 24, 984).unwrap().collect::<Vec<_>>(), vec![0..984]);
        assert!(item_pieces(1, 2000, 1000).is_err(), "an item larger than a piece is refused, not split");
        assert!(item_pieces(1, 0, 1000).is_err());
    }
}
