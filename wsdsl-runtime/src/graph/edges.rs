//! The edge list a graph file is read into, in bounded memory.
//!
//! A file can hold far more entries than its graph has edges: a gzip of a few hundred
//! kilobytes can repeat one edge hundreds of millions of times, which as a list is gigabytes.
//! So when duplicates are to be removed anyway ([`GraphOptions::remove_duplicates`]), the
//! list is sorted and deduplicated whenever it fills, and only grows when that frees less
//! than half of it: it holds at most about twice the distinct edges. Below
//! [`COMPACT_PER_VERTEX`] entries per vertex it is not compacted at all, since few files
//! that sparse repeat enough to pay for the sort, so typical graphs read at full speed. The
//! result is the same as deduplicating at the end: the smallest weight of every pair is
//! kept, and rows come out sorted either way.
//!
//! Without deduplication every entry is an edge of the graph, and the list is as large as
//! the graph needs. Either way the list grows with `try_reserve`: memory that cannot be had
//! is an error naming the file and line ([`GraphError::out_of_memory`] says so; it converts into
//! [`crate::Error::OutOfMemory`]), not an abort.
//!
//! Real weights are kept beside the list as `f64`s, each edge's weight slot holding its
//! value's index (`build::Kind::Real`); compaction keeps the two in step.

use super::build::{self, Edge, Kind};
use super::error::GraphError;
use super::source::Source;
use super::GraphOptions;
use std::path::Path;

/// The list's first capacity, at most: a file's header can claim billions of entries, and
/// a corrupt one must not reserve gigabytes up front.
const FIRST: u64 = 1 << 20;
/// The first capacity when the file does not say how many entries it has.
const UNDECLARED: usize = 1 << 16;
/// A full list of at least this many entries per vertex, and at least [`COMPACT_FROM`], is
/// compacted (with `remove_duplicates`) before it grows.
const COMPACT_PER_VERTEX: u64 = 32;
/// Smaller lists are not worth a sort: they take under a megabyte.
const COMPACT_FROM: u64 = 1 << 16;
/// Lists this long are sorted on the rayon pool when compacted.
const PARALLEL_FROM: usize = 1 << 20;

/// Edges as they are read, and the real weights they index.
pub(crate) struct EdgeList {
    edges: Vec<Edge>,
    reals: Vec<f64>,
    real: bool,
    dedup: bool,
}

impl EdgeList {
    /// An empty list for a file that declares `declared` entries (0 when it does not say);
    /// `real`: the entries carry real weights ([`EdgeList::push_real`]).
    pub(crate) fn new(src: &Source, declared: u64, real: bool, opts: &GraphOptions) -> Result<EdgeList, GraphError> {
        let mut list = EdgeList { edges: Vec::new(), reals: Vec::new(), real, dedup: opts.remove_duplicates };
        let first = if declared == 0 { UNDECLARED } else { declared.min(FIRST) as usize };
        list.reserve(src, first)?;
        Ok(list)
    }

    /// Appends `(u, v, w)`; `vertices` is the graph's vertex count as far as it is known
    /// (declared by the header, or the largest id so far plus one).
    #[inline]
    pub(crate) fn push(&mut self, src: &Source, edge: Edge, vertices: u64) -> Result<(), GraphError> {
        if self.edges.len() == self.edges.capacity() {
            self.make_room(src, vertices)?;
        }
        self.edges.push(edge);
        Ok(())
    }

    /// Appends `(u, v)` with the real weight `w`.
    pub(crate) fn push_real(&mut self, src: &Source, u: u32, v: u32, w: f64, vertices: u64) -> Result<(), GraphError> {
        if self.edges.len() == self.edges.capacity() || self.reals.len() == self.reals.capacity() {
            self.make_room(src, vertices)?;
        }
        self.edges.push((u, v, self.reals.len() as u32));
        self.reals.push(w);
        Ok(())
    }

    /// The edges and the real weights their slots index (empty without real weights).
    pub(crate) fn into_parts(self) -> (Vec<Edge>, Vec<f64>) {
        (self.edges, self.reals)
    }

    /// The list is full: compact it if that pays, else grow it.
    #[cold]
    fn make_room(&mut self, src: &Source, vertices: u64) -> Result<(), GraphError> {
        let len = self.edges.len();
        if self.dedup && len as u64 >= COMPACT_PER_VERTEX.saturating_mul(vertices).max(COMPACT_FROM) {
            self.compact(src)?;
            if self.edges.len() <= len / 2 {
                return Ok(());
            }
        }
        // Every entry left is an edge of the graph: refuse as soon as there are more than
        // 32-bit offsets can index (which also keeps real weights' indices in a `u32`),
        // rather than after filling memory.
        build::check_edge_count(len as u64 + 1).map_err(|e| src.at_end(e.problem().to_string()))?;
        self.reserve(src, len.max(1).min(u32::MAX as usize - len))
    }

    /// Sorts and deduplicates the list in place (renumbering the real weights to match).
    fn compact(&mut self, src: &Source) -> Result<(), GraphError> {
        let kind = if self.real { Kind::Real(&self.reals) } else { Kind::Int };
        let parallel = self.edges.len() >= PARALLEL_FROM;
        build::sort_and_dedup(&mut self.edges, kind, parallel);
        if self.real {
            let held = self.edges.len();
            let mut kept = Vec::new();
            try_reserve(&mut kept, held, src, held)?;
            for (k, e) in self.edges.iter_mut().enumerate() {
                kept.push(self.reals[e.2 as usize]);
                e.2 = k as u32;
            }
            self.reals = kept;
            // As much room as the edges have, so that the values never grow on their own.
            try_reserve(&mut self.reals, self.edges.capacity() - held, src, held)?;
        }
        Ok(())
    }

    /// Room for `more` entries, or the error saying memory ran out.
    fn reserve(&mut self, src: &Source, more: usize) -> Result<(), GraphError> {
        let held = self.edges.len();
        try_reserve(&mut self.edges, more, src, held)?;
        if self.real {
            let more = self.edges.capacity() - self.reals.len();
            try_reserve(&mut self.reals, more, src, held)?;
        }
        Ok(())
    }
}

/// `list.try_reserve_exact(more)` (room for `more` beyond its length), or
/// [`GraphError::out_of_memory`] at the line being read.
fn try_reserve<T>(list: &mut Vec<T>, more: usize, src: &Source, held: usize) -> Result<(), GraphError> {
    list.try_reserve_exact(more).map_err(|_| {
        let bytes = (more as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        out_of_memory(src.path(), src.line(), bytes, held)
    })
}

fn out_of_memory(path: &Path, line: u64, bytes: u64, held: usize) -> GraphError {
    GraphError::no_memory(
        path,
        line.max(1),
        bytes,
        format!(
            "out of memory: could not allocate {bytes} more bytes for the edge list, which holds {held} edges \
             so far; the graph is larger than the memory left (free memory, or remove duplicate edges \
             while reading: GraphOptions::remove_duplicates keeps the list to about the distinct edges)"
        ),
    )
}
