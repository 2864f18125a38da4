//! User-declared device buffers: arrays that handlers read, write and update atomically.
//!
//! A program declares them in a `#[buffers]` struct whose fields are `Buffer<T>`; the host
//! fills them before a run and reads them after. On the CPU backend every worker thread
//! works on the same storage, so elements are kept as atomics (relaxed ordering, like plain
//! device loads and stores; atomic updates are single read-modify-write operations). On the
//! GPU the runtime copies them to device memory and back.
//!
//! Handlers see (for `T` one of u32, i32, u64, i64, f32, f64):
//! `len()`, `get(i)`, `set(i, v)`, `atomic_add(i, v)`, `atomic_min(i, v)`, `atomic_max(i, v)`
//! (each returns the previous value) and `atomic_cas(i, current, new)` (returns the value
//! found; the store happened if it equals `current`). An index past the end panics on the
//! CPU and is a device fault on the GPU, as Rust would have it; either error names the
//! handler's line (the accessors are `#[track_caller]`).
//!
//! A buffer also keeps, per tile of `TILE_BYTES` (1 MB) of its image, the 32-bit word the tile is
//! known to repeat, if one is known without reading it: every tile of `zeroed` and `scratch`
//! (zero), and of `filled` with a value whose image repeats one word; every write through the
//! buffer's methods (`set`, the atomic updates, `read_le` after a GPU run) forgets its tile.
//! The GPU upload sets tiles that repeat one word on the device instead of copying them, and
//! asks `DeviceBuffer::repeated_word` per tile: answered from the map, it reads no element,
//! so a launch does not fault in (and clear) the pages of a zeroed buffer, which only the
//! copy back needs (reading PageRank's zeroed 33 MB buffer cost its launch 3.4 ms).
//!
//! The tiles of `zeroed`, `scratch` and `filled` are *owed*: known to repeat their word, their
//! memory taken from the allocator and not written yet (uninitialised: no fresh page is
//! faulted in, no reused block is cleared). The first access to an element writes its tile
//! (every accessor asks: one load, while nothing is owed); a GPU run writes what is still owed
//! on the host's cores while the kernel runs (`DeviceBuffer::before_copy_back`). So a BFS's
//! 4 M unreached depths and its scratch queue cost the call no host pass before the launch:
//! their tiles are set on the device from the map, and their memory is written under the
//! kernel. (Clearing a reused 16.8 MB block took `calloc` 0.65 ms per buffer on an H200
//! machine.)

// One idea a file; what the module exports is re-exported here, so every path
// `contract::buffer::X` names it wherever it lives.
mod built; // how long each buffer's constructor took, for the first run's statistics
mod device; // moving buffers to the device and back: `DeviceBuffer`, `Residency`, images
mod elem; // the element types: `BufferElem`
mod fresh; // fresh memory for the constructors, filled on every core
mod job_view; // how a data-parallel job sees a buffer: `JobBuffer`, `Src`, `Source`
pub(crate) mod pages; // huge pages for large buffers
mod read_only; // `ReadOnly<T>`, the arrays handlers only read
mod set; // a program's buffers: `BufferSet`
mod tiles; // the map of values a buffer's tiles are known to repeat (owed tiles)
mod writable; // `Buffer<T>`: its storage, constructors and accessors

pub use device::{DeviceBuffer, Residency};
pub use elem::BufferElem;
pub use job_view::{AsJobBuffer, JobBuffer, Source, Src};
pub use read_only::ReadOnly;
pub use set::BufferSet;
pub(crate) use tiles::TILE_BYTES;
pub use writable::Buffer;
