//! How a data-parallel job sees a buffer (`contract/jobs`, `ctx.copy` and the rest): the
//! elements it reads (`Source`), and a program's buffer by element type (`JobBuffer`, `Src`,
//! which `BufferSet::job_buffer` returns). `contract::jobs` re-exports them under the same
//! names, which generated code uses (`wsdsl::__private::parallel::JobBuffer`, ...).

use super::elem::BufferElem;
use super::read_only::ReadOnly;
use super::writable::Buffer;

/// What a data-parallel job reads (the `src` of `ctx.copy`, `ctx.merge`, ...): a [`Buffer`]
/// or a [`ReadOnly`] array.
pub trait Source: Sync {
    /// The element type.
    type Elem: BufferElem;
    /// Element `i`.
    fn at(&self, i: usize) -> Self::Elem;
    /// The number of elements.
    fn elements(&self) -> usize;
}

impl<T: BufferElem> Source for Buffer<T> {
    type Elem = T;
    #[inline]
    fn at(&self, i: usize) -> T {
        self.get(i)
    }
    fn elements(&self) -> usize {
        self.len()
    }
}

impl<T: BufferElem> Source for ReadOnly<T> {
    type Elem = T;
    #[inline]
    fn at(&self, i: usize) -> T {
        self.get(i)
    }
    fn elements(&self) -> usize {
        self.len()
    }
}

/// One buffer of a program as a job sees it, by element type (`BufferSet::job_buffer`).
pub enum JobBuffer<'a> {
    /// A buffer of `u32`.
    U32(Src<'a, u32>),
    /// A buffer of `i32`.
    I32(Src<'a, i32>),
    /// A buffer of `u64`.
    U64(Src<'a, u64>),
    /// A buffer of `i64`.
    I64(Src<'a, i64>),
    /// A float buffer, or no buffer at that index: jobs never name one (the macro refuses).
    Other,
}

/// A buffer or a read-only array of `T`.
pub enum Src<'a, T: BufferElem> {
    /// A [`Buffer`].
    Buffer(&'a Buffer<T>),
    /// A [`ReadOnly`] array.
    ReadOnly(&'a ReadOnly<T>),
}

/// Element types that can name their [`JobBuffer`] variant (floats name none).
pub trait AsJobBuffer: BufferElem {
    /// `src` as the [`JobBuffer`] variant of its element type ([`JobBuffer::Other`] for
    /// floats).
    fn job_buffer(src: Src<'_, Self>) -> JobBuffer<'_>;
}

macro_rules! as_job_buffer {
    ($($t:ty => $v:ident),*) => {$(
        impl AsJobBuffer for $t {
            fn job_buffer(src: Src<'_, Self>) -> JobBuffer<'_> { JobBuffer::$v(src) }
        }
    )*};
}
as_job_buffer!(u32 => U32, i32 => I32, u64 => U64, i64 => I64);

impl AsJobBuffer for f32 {
    fn job_buffer(_: Src<'_, Self>) -> JobBuffer<'_> {
        JobBuffer::Other
    }
}

impl AsJobBuffer for f64 {
    fn job_buffer(_: Src<'_, Self>) -> JobBuffer<'_> {
        JobBuffer::Other
    }
}
