//! Compressed sparse rows handed in as arrays, checked before anything indexes them.
//!
//! [`Graph`]'s fields are public, so a graph may come from anywhere: another library's
//! arrays, a file of the caller's own, a graph built by hand. Every algorithm indexes
//! `targets` by the offsets and its per-vertex arrays by the targets, so one bad number would
//! be a panic on the host or a stopped run on the GPU, far from the array that caused it.
//! [`Graph::validate`] names the first problem instead: where the offsets go wrong, which
//! edge names which vertex, how many weights there are for how many edges. The scans run on
//! every core, a block of elements per task (rayon's `position_first` over single elements
//! took 0.9 s for R-MAT 22's 65 M targets on 2 cores; over blocks the scan is a few tens of
//! milliseconds).

use super::error::GraphError;
use super::{Graph, Weights};
use rayon::prelude::*;

/// Elements a task of the scans checks.
const BLOCK: usize = 1 << 16;

impl Graph {
    /// A graph from its compressed sparse rows, validated ([`Graph::validate`]): the
    /// out-neighbours of `v` are `targets[offsets[v]..offsets[v + 1]]`, with `weights`
    /// parallel to `targets` (or [`Weights::None`]). The arrays are taken as they are,
    /// duplicate edges and self-loops included.
    ///
    /// ```
    /// use wsdsl_runtime::graph::{Graph, Weights};
    /// // 0 -> 1, 0 -> 2, 2 -> 0
    /// let g = Graph::from_csr(vec![0, 2, 2, 3], vec![1, 2, 0], Weights::None)?;
    /// assert_eq!(g.neighbours(0), &[1, 2]);
    /// let bad = Graph::from_csr(vec![0, 2, 1, 3], vec![1, 2, 0], Weights::None).unwrap_err();
    /// assert!(bad.to_string().contains("the offsets decrease at vertex 1"), "{bad}");
    /// # Ok::<(), wsdsl_runtime::graph::GraphError>(())
    /// ```
    pub fn from_csr(offsets: Vec<u32>, targets: Vec<u32>, weights: Weights) -> Result<Graph, GraphError> {
        let graph = Graph { offsets, targets, weights };
        graph.validate()?;
        Ok(graph)
    }

    /// Whether the arrays are compressed sparse rows that every algorithm may index: at
    /// least one offset, the first 0, never decreasing, the last the number of targets;
    /// every target below the number of vertices; as many weights as targets (or none).
    /// The error names the first problem found and where.
    pub fn validate(&self) -> Result<(), GraphError> {
        let offsets = &self.offsets;
        let Some(&last) = offsets.last() else {
            return Err(GraphError::csr(
                "there are no offsets: a graph of n vertices has n + 1 offsets, starting at 0 (a graph without vertices has one, 0)",
            ));
        };
        if offsets[0] != 0 {
            return Err(GraphError::csr(format!("offsets[0] is {}, not 0: vertex 0's edges start at the first target", offsets[0])));
        }
        // Each block's windows reach one element into the next block, so no pair is missed.
        let blocks = offsets.len().div_ceil(BLOCK);
        let falls = (0..blocks).into_par_iter().position_first(|b| offsets[b * BLOCK..((b + 1) * BLOCK + 1).min(offsets.len())].windows(2).any(|w| w[1] < w[0]));
        if let Some(v) = falls.and_then(|b| offsets[b * BLOCK..].windows(2).position(|w| w[1] < w[0]).map(|k| b * BLOCK + k)) {
            return Err(GraphError::csr(format!(
                "the offsets decrease at vertex {v}: offsets[{v}] = {}, offsets[{}] = {} (a vertex's edges end where the next one's begin)",
                offsets[v],
                v + 1,
                offsets[v + 1]
            )));
        }
        if last as usize != self.targets.len() {
            return Err(GraphError::csr(format!(
                "the last offset, offsets[{}], is {last}, but there are {} targets: it must be the number of edges",
                offsets.len() - 1,
                self.targets.len()
            )));
        }
        let vertices = self.vertices();
        if vertices > u32::MAX as usize {
            return Err(GraphError::csr(format!("{vertices} vertices is too many: ids are 32-bit, so at most {} vertices", u32::MAX)));
        }
        let outside = self.targets.par_chunks(BLOCK).position_first(|block| block.iter().any(|&t| t as usize >= vertices));
        if let Some(k) = outside.and_then(|b| self.targets[b * BLOCK..].iter().position(|&t| t as usize >= vertices).map(|k| b * BLOCK + k)) {
            // The offsets are sound by now: the row holding edge k is the last one starting at or before it.
            let source = offsets.partition_point(|&o| o as usize <= k) - 1;
            return Err(GraphError::csr(format!(
                "edge {k}, from vertex {source}, goes to vertex {}, but the graph has {vertices} vertices (ids 0 to {})",
                self.targets[k],
                vertices as i64 - 1
            )));
        }
        let (count, what) = match &self.weights {
            Weights::None => return Ok(()),
            Weights::Int(w) => (w.len(), "integer"),
            Weights::Real(w) => (w.len(), "real"),
        };
        if count != self.targets.len() {
            return Err(GraphError::csr(format!(
                "{count} {what} weights for {} edges: one weight per target, or Weights::None",
                self.targets.len()
            )));
        }
        Ok(())
    }
}
