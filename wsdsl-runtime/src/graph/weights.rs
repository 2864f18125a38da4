//! A graph's weights as the non-negative integers that shortest-path lengths are sums of.
//!
//! A Matrix Market file may hold real weights, negative ones too. Shortest paths by
//! relaxation need non-negative weights (a negative one makes "shortest" undefined around a
//! cycle and breaks every label-setting algorithm), and wsdsl's are exact integer sums. So
//! a real weight is taken only when it is a whole number in `u32` range, and anything else
//! is refused with the edge it is on: a program is never handed weights other than the file's.
//!
//! Real weights are `f64`s, which hold every `u32` exactly, and the reader makes a weight's
//! float whole exactly when the file's number is (`source::real_weight`): so whether a
//! weight is whole, and whether it is in range, is what the file says, and the number a
//! refusal shows is the file's (at the precision of a 64-bit float).

use super::error::GraphError;
use super::{Graph, Weights};

pub(crate) fn integer_weights(graph: &Graph) -> Result<Option<Vec<u32>>, GraphError> {
    let reals = match &graph.weights {
        Weights::None => return Ok(None),
        Weights::Int(w) => return Ok(Some(w.clone())),
        Weights::Real(w) => w,
    };
    let mut ints = Vec::with_capacity(reals.len());
    for (k, &w) in reals.iter().enumerate() {
        if w >= 0.0 && w.fract() == 0.0 && w <= f64::from(u32::MAX) {
            ints.push(w as u32);
            continue;
        }
        let source = graph.offsets.partition_point(|&o| o as usize <= k) - 1;
        let edge = format!("the edge from vertex {source} to vertex {} (ids from 0)", graph.targets[k]);
        let problem = if w < 0.0 {
            format!("{edge} has the negative weight {w}: shortest paths need non-negative weights")
        } else if w > f64::from(u32::MAX) {
            format!("{edge} has the weight {w}, more than the largest integer weight {}", u32::MAX)
        } else {
            format!("{edge} has the weight {w}, not a whole number: path lengths are exact integer sums, so scale the weights to integers")
        };
        return Err(GraphError::named("weights", problem));
    }
    Ok(Some(ints))
}
