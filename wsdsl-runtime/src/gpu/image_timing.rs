//! How long the host takes to make and read the device images a large graph run moves, with
//! no GPU: the arrays of R-MAT scale 22 (67 M edges: 268 MB of targets; PageRank's 302 MB of
//! ranks and 134 MB of arrival counts; 4.19 M roots of 24 bytes), through the same code and
//! the same 16 MB pieces as the staging copies (`staging.rs`), beside a plain copy of as
//! many bytes on as many cores (the floor). Every image is checked, so a wrong conversion
//! fails; the times are printed:
//!
//!     cargo test --release -p wsdsl-runtime --lib image_timing -- --ignored --nocapture
//!
//! (`RAYON_NUM_THREADS=1` shows one core's share.)

use super::inputs::encode_tasks_into;
use super::staging::PIECE;
use crate::buffer::{Buffer, DeviceBuffer, ReadOnly};
use crate::program::{CounterSet, CounterSlot, Program};
use crate::spawned::Spawned;
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

/// Runs `f` over an image of `bytes` bytes piece by piece, as the staging copies do; prints
/// its rate beside the plain copy's and returns it in GB/s.
fn timed(what: &str, bytes: usize, floor: f64, f: impl FnOnce()) -> f64 {
    let started = Instant::now();
    f();
    let seconds = started.elapsed().as_secs_f64();
    let rate = bytes as f64 / seconds / 1e9;
    println!("{what:<52} {:>8.1} ms {rate:>7.2} GB/s ({:.2}x the plain copy's time)", seconds * 1e3, floor / rate);
    rate
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

    // The floor: the same bytes copied piece by piece on every core.
    let source: &[u8] = bytemuck_u32(&targets);
    let floor = timed("plain copy of 268 MB (the floor)", bytes, 1.0, || {
        for (offset, len) in pieces(bytes) {
            piece[..len].par_chunks_mut(1 << 20).zip(source[offset..offset + len].par_chunks(1 << 20)).for_each(|(d, s)| d.copy_from_slice(s));
        }
    });
    let floor = timed("plain copy of 268 MB (again, warm)", bytes, floor, || {
        for (offset, len) in pieces(bytes) {
            piece[..len].par_chunks_mut(1 << 20).zip(source[offset..offset + len].par_chunks(1 << 20)).for_each(|(d, s)| d.copy_from_slice(s));
        }
    });

    // Read-only graph arrays: uploaded once per device.
    let read_only = ReadOnly::from_vec(targets.clone());
    let mut checked = 0usize;
    timed("ReadOnly<u32> targets, 268 MB up (once)", bytes, floor, || {
        for (offset, len) in pieces(bytes) {
            assert!(!read_only.is_zero(offset / 4, len / 4));
            read_only.write_le(offset / 4, &mut piece[..len]);
            checked += (piece[..len] == source[offset..offset + len]) as usize;
        }
    });
    assert_eq!(checked, bytes.div_ceil(PIECE), "every piece of the read-only image is the array's bytes");

    // A writable array of the same size, up and back down.
    let writable = Buffer::from_vec(targets.clone());
    timed("Buffer<u32>, 268 MB up", bytes, floor, || {
        for (offset, len) in pieces(bytes) {
            assert!(!writable.is_zero(offset / 4, len / 4));
            writable.write_le(offset / 4, &mut piece[..len]);
            assert_eq!(piece[..len], source[offset..offset + len]);
        }
    });
    let back = Buffer::<u32>::zeroed(EDGES);
    timed("Buffer<u32>, 268 MB back", bytes, floor, || {
        for (offset, len) in pieces(bytes) {
            piece[..len].copy_from_slice(&source[offset..offset + len]);
            back.read_le(offset / 4, &piece[..len]);
        }
    });
    assert!(back.to_vec() == targets, "the buffer read back holds the image");
    drop((writable, back, read_only));

    // PageRank's rank slots (9 x n f64, the first n set) and arrival counts (8 x n u32, zero):
    // mostly zero pieces up, all of it back.
    let mut rank = vec![0.0f64; 9 * VERTICES];
    rank[..VERTICES].fill(1.0 / VERTICES as f64);
    let rank = Buffer::from_vec(rank);
    let arrived = Buffer::<u32>::zeroed(8 * VERTICES);
    let (rank_bytes, arrived_bytes) = (9 * VERTICES * 8, 8 * VERTICES * 4);
    let mut zero_pieces = 0;
    timed("PageRank's rank + arrived, 436 MB up (zero pieces checked)", rank_bytes + arrived_bytes, floor, || {
        for (offset, len) in pieces(rank_bytes) {
            if rank.is_zero(offset / 8, len / 8) {
                zero_pieces += 1;
            } else {
                rank.write_le(offset / 8, &mut piece[..len]);
            }
        }
        for (offset, len) in pieces(arrived_bytes) {
            zero_pieces += arrived.is_zero(offset / 4, len / 4) as usize;
        }
    });
    assert_eq!(zero_pieces, (rank_bytes - VERTICES * 8) / PIECE + arrived_bytes / PIECE, "the zero pieces are cleared, not copied");
    piece.fill(0x3F);
    timed("PageRank's rank + arrived, 436 MB back", rank_bytes + arrived_bytes, floor, || {
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
    let step = PIECE / Rank::TASK_BYTES * Rank::TASK_BYTES;
    timed("4.19 M roots of 24 bytes, 101 MB encoded", root_bytes, floor, || {
        for offset in (0..root_bytes).step_by(step) {
            let len = step.min(root_bytes - offset);
            piece[..len].fill(0);
            encode_tasks_into::<Rank>(&roots[offset / Rank::TASK_BYTES..], offset / Rank::TASK_BYTES, &mut piece[..len]);
        }
    });
    let last = (root_bytes - 1) / step * step;
    let in_last = (root_bytes - last) / Rank::TASK_BYTES - 1;
    let v = (VERTICES - 1) as u32;
    assert_eq!(piece[in_last * 24 + 4..in_last * 24 + 8], v.to_le_bytes(), "the last root's image is in the last piece");
}

/// The bytes of a `u32` slice.
fn bytemuck_u32(values: &[u32]) -> &[u8] {
    // SAFETY: u32 has no padding and any byte is a valid u8.
    unsafe { std::slice::from_raw_parts(values.as_ptr() as *const u8, std::mem::size_of_val(values)) }
}
