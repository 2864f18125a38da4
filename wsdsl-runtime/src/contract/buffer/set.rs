//! `BufferSet`: the buffers of a program, as the runtime and its jobs find them.

use super::device::DeviceBuffer;
use super::job_view::JobBuffer;

/// The buffers of a program: its `#[buffers]` struct, for which `#[megakernel]` implements
/// this trait, or `()` for a program without one.
///
/// Device side: `struct wsdsl_buffers` holds, for each buffer in declaration order, its
/// element pointer and its length as a `ws_u64` (16 bytes per buffer).
pub trait BufferSet: Sync + 'static {
    /// Every field, in declaration order.
    fn buffers(&self) -> Vec<&dyn DeviceBuffer>;

    /// Buffer `index` as a data-parallel job sees it (`job_view.rs`); `Other` for a float
    /// buffer or no buffer. `#[megakernel]` implements it for programs that record jobs.
    fn job_buffer(&self, _index: u32) -> JobBuffer<'_> {
        JobBuffer::Other
    }

    /// The index of the buffer at `address` (a field of this struct), which a job records.
    fn job_index(&self, _address: *const ()) -> Option<u32> {
        None
    }
}

impl BufferSet for () {
    fn buffers(&self) -> Vec<&dyn DeviceBuffer> {
        Vec::new()
    }
}
