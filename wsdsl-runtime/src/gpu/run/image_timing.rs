//! How long the host takes to make and read the device images a large graph run moves, with
//! no GPU: the arrays of R-MAT scale 22 (67 M edges: 268 MB of targets; PageRank's 302 MB of
//! ranks and 134 MB of arrival counts; 4.19 M roots of 24 bytes), through the same
//! conversions as the staging copies (`staging.rs`) in 16 MB pieces (an upload looks for
//! repeated words in 1 MB tiles; here whole pieces), beside a plain copy of as many bytes on
//! as many cores (the floor). Every image is checked, so a wrong conversion
//! fails; the times are printed:
//!
//!     cargo test --release -p wsdsl-runtime --lib image_timing -- --ignored --nocapture
//!
//! (`RAYON_NUM_THREADS=1` shows one core's share.)

use crate::gpu::run::images::encode_tasks_into;
use crate::gpu::device::staging::{item_pieces, PIECE};
use crate::contract::buffer::{Buffer, DeviceBuffer, ReadOnly};
use crate::contract::{CounterSet, CounterSlot, Program};
use crate::contract::spawned::Spawned;
use rayon::prelude::*;
use std::time::Instant;

/// R-MAT scale 22, edge factor 16.
const VERTICES: usize = 1 << 22;
const EDGES: usize = 16 << 22;

/// A task shaped like PageRank's (a tag and five u32 fields: 24 bytes).
#[derive(Debug, Clone, Copy)]
struct Node([u32; 5]);

#[derive(Debug, Clone, Default)]
struct NoCounters;

impl CounterSet for NoCounters {
    const SLOTS: &'static [CounterSlot] = &[];
    fn merge(&mut self, _: &Self) {}
    fn from_slots(_: &[u64]) -> Self {
        NoCounters
    }
}

struct Rank;

impl Program for Rank {
    const NAME: &'static str = "rank";
    const CUDA_TYPES: &'static str = "";
    const CUDA_HANDLERS: &'static str = "";
    const FAULT_SITES: &'static [&'static str] = &[];
    const TASK_NAMES: &'static [&'static str] = &["Node"];
    const TASK_BYTES: usize = 24;
    const PARAMS_BYTES: usize = 1;
    type Params = ();
    type Task = Node;
    type Counters = NoCounters;
    type Buffers = ();
    type Value = ();
    fn encode_task(task: &Node, out: &mut [u8]) {
        for (i, field) in task.0.iter().enumerate() {
            out[4 + 4 * i..8 + 4 * i].copy_from_slice(&field.to_le_bytes());
        }
    }
    fn encode_params(_: &(), _: &mut [u8]) {}
    fn execute(_: &Node, _: &(), _: &(), _: &mut NoCounters, _: &mut Spawned<Node>) {}
}

/// Runs `f`, which makes or reads `bytes` bytes of images, and prints its wall time and the
/// processor time of all threads (this machine may be shared: the processor time is what a
/// core spends per byte). Returns the wall-clock rate in GB/s.
fn timed(what: &str, bytes: usize, f: impl FnOnce()) -> f64 {
    let (started, cpu) = (Instant::now(), cpu_seconds());
    f();
    let (wall, cpu) = (started.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    let gb = bytes as f64 / 1e9;
    println!("{what:<46} {:>8.1} ms {:>6.2} GB/s   processor {:>7.1} ms {:>6.2} GB/s per core", wall * 1e3, gb / wall, cpu * 1e3, gb / cpu.max(1e-3));
    gb / wall
}

/// Processor time of this process so far (user and system, every thread; 10 ms ticks).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = &stat[stat.rfind(')').map_or(0, |i| i + 1)..];
    let field = |n: usize| after_name.split_whitespace().nth(n).and_then(|t| t.parse::<f64>().ok()).unwrap_or(0.0);
    // Fields 14 and 15 of the line (utime, stime), counted after the command name.
    (field(11) + field(12)) / 100.0
}

/// Each piece of `total` bytes in turn, as `(offset, length)`.
fn pieces(total: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..total).step_by(PIECE).map(move |offset| (offset, PIECE.min(total - offset)))
}

#[test]
#[ignore = "a measurement (about 1.5 GB of memory): run with --release --ignored --nocapture"]
fn host_images_of_a_scale_22_graph() {
    println!("host-side images, {} threads, pieces of {} MB", rayon::current_num_threads(), PIECE >> 20);
    let mut piece = vec![0u8; PIECE];
    let targets: Vec<u32> = (0..EDGES as u32).map(|e| e.wrapping_mul(2_654_435_761) % VERTICES as u32).collect();
    let bytes = EDGES * 4;
    let source: &[u8] = bytes_of(&targets);

    // The floor: the same bytes copied piece by piece on every core.
    for _ in 0..2 {
        timed("plain copy of 268 MB (the floor)", bytes, || {
            for (offset, len) in pieces(bytes) {
                let (dst, src) = (&mut piece[..len], &source[offset..offset + len]);
                dst.par_chunks_mut(1 << 20).zip(src.par_chunks(1 << 20)).for_each(|(d, s)| d.copy_from_slice(s));
            }
        });
    }

    // Read-only graph arrays: uploaded once per device. Checked after the timed pass.
    let read_only = ReadOnly::from_vec(targets.clone());
    let mut zero = 0;
    timed("ReadOnly<u32> targets, 268 MB up (once)", bytes, || {
        for (offset, len) in pieces(bytes) {
            zero += read_only.repeated_word(offset / 4, len / 4).is_some() as usize;
            read_only.write_le(offset / 4, &mut piece[..len]);
        }
    });
    assert_eq!(zero, 0);
    for (offset, len) in pieces(bytes) {
        read_only.write_le(offset / 4, &mut piece[..len]);
        assert!(piece[..len] == source[offset..offset + len], "the read-only image at {offset}");
    }

    // A writable array of the same size, up and back down.
    let writable = Buffer::from_vec(targets.clone());
    timed("Buffer<u32>, 268 MB up", bytes, || {
        for (offset, len) in pieces(bytes) {
            zero += writable.repeated_word(offset / 4, len / 4).is_some() as usize;
            writable.write_le(offset / 4, &mut piece[..len]);
        }
    });
    assert_eq!(zero, 0);
    assert!(piece[..bytes % PIECE] == source[bytes - bytes % PIECE..], "the last piece of the buffer's image");
    let back = Buffer::<u32>::zeroed(EDGES);
    let images: Vec<Vec<u8>> = pieces(bytes).map(|(offset, len)| source[offset..offset + len].to_vec()).collect();
    timed("Buffer<u32>, 268 MB back", bytes, || {
        for ((offset, _), image) in pieces(bytes).zip(&images) {
            back.read_le(offset / 4, image);
        }
    });
    assert!(back.to_vec() == targets, "the buffer read back holds the image");
    drop((writable, back, read_only, images));

    // PageRank's rank slots (9 x n f64, the first n set) and arrival counts (8 x n u32, zero):
    // mostly zero pieces up, all of it back.
    let mut rank = vec![0.0f64; 9 * VERTICES];
    rank[..VERTICES].fill(1.0 / VERTICES as f64);
    let rank = Buffer::from_vec(rank);
    let arrived = Buffer::<u32>::zeroed(8 * VERTICES);
    let (rank_bytes, arrived_bytes) = (9 * VERTICES * 8, 8 * VERTICES * 4);
    let mut zero_pieces = 0;
    timed("PageRank's rank + arrived, 436 MB up", rank_bytes + arrived_bytes, || {
        for (offset, len) in pieces(rank_bytes) {
            if rank.repeated_word(offset / 8, len / 8).is_some() {
                zero_pieces += 1;
            } else {
                rank.write_le(offset / 8, &mut piece[..len]);
            }
        }
        for (offset, len) in pieces(arrived_bytes) {
            zero_pieces += arrived.repeated_word(offset / 4, len / 4).is_some() as usize;
        }
    });
    assert_eq!(zero_pieces, (rank_bytes - VERTICES * 8) / PIECE + arrived_bytes / PIECE, "the zero pieces are cleared, not copied");
    piece.fill(0x3F);
    timed("PageRank's rank + arrived, 436 MB back", rank_bytes + arrived_bytes, || {
        for (offset, len) in pieces(rank_bytes) {
            rank.read_le(offset / 8, &piece[..len]);
        }
        for (offset, len) in pieces(arrived_bytes) {
            arrived.read_le(offset / 4, &piece[..len]);
        }
    });
    assert_eq!(rank.get(9 * VERTICES - 1).to_bits(), 0x3F3F_3F3F_3F3F_3F3F);
    assert_eq!(arrived.get(0), 0x3F3F_3F3F);
    drop((rank, arrived));

    // One root per vertex, encoded into the pieces.
    let roots: Vec<Node> = (0..VERTICES as u32).map(|v| Node([v, 0, v * 16, v * 16 + 16, 1])).collect();
    let root_bytes = VERTICES * Rank::TASK_BYTES;
    let mut last = 0..0;
    timed("4.19 M roots of 24 bytes, 101 MB encoded", root_bytes, || {
        for range in item_pieces(VERTICES, Rank::TASK_BYTES, PIECE).expect("24-byte tasks") {
            let first = range.start / Rank::TASK_BYTES;
            let piece = &mut piece[..range.len()];
            piece.fill(0);
            encode_tasks_into::<Rank>(&roots[first..], first, piece);
            last = range;
        }
    });
    let in_last = last.len() / Rank::TASK_BYTES - 1;
    assert_eq!(piece[in_last * 24 + 4..in_last * 24 + 8], ((VERTICES - 1) as u32).to_le_bytes(), "the last root's image ends the last piece");
}

/// The bytes of a `u32` slice.
fn bytes_of(values: &[u32]) -> &[u8] {
    // SAFETY: u32 has no padding and any byte is a valid u8.
    unsafe { std::slice::from_raw_parts(values.as_ptr() as *const u8, std::mem::size_of_val(values)) }
}
