//! Writing a graph in the text formats other graph programs read (GAPBS among them), so that
//! they run on exactly the graph wsdsl ran on: the same edges, the same weights.
//!
//! | extension | format | weights |
//! |---|---|---|
//! | `.el` | `u v` per line, ids from 0 | none (a weighted graph's are left out) |
//! | `.wel` | `u v w` per line, ids from 0 | integer, required |
//! | `.gr` | DIMACS: `p sp n m`, then `a u v w`, ids from 1 | integer, required |
//! | `.mtx` | Matrix Market coordinate, ids from 1 | pattern, integer or real, as the graph has |
//!
//! [`Pairs::Once`] writes an undirected graph's edges once each (`u <= v`): a reader adds the
//! reverses (GAPBS with `-s`, wsdsl with `symmetrize`; a `.mtx` file says `symmetric`, which
//! every reader mirrors). Reading a file back with the options that match gives the same
//! CSR (`tests/runtime/graph_input.rs`), except that `.el` and `.wel` files hold no vertex
//! count: vertices after the last one with an edge are not in them.
//!
//! Lines are formatted in parallel, a batch of rows at a time, and written in order.

use super::error::GraphError;
use super::{Graph, Weights};
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Vertices formatted by one task.
const ROWS_PER_PIECE: usize = 1 << 14;

/// Which directed edges of the graph go into the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pairs {
    /// Every edge, as the graph holds it.
    All,
    /// Only `(u, v)` with `u <= v`, for a symmetric graph (see [`Graph::is_symmetric`]):
    /// half the file, read back by adding the reverses.
    Once,
}

/// The file formats [`write`] knows, by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    El,
    Wel,
    Gr,
    Mtx,
}

/// Writes `graph` to `path` in the format its extension names (`.el`, `.wel`, `.gr`, `.mtx`).
/// Errors: an unknown extension, a format that needs weights the graph does not have (or
/// has as reals: `.wel` and `.gr` hold integers), [`Pairs::Once`] for a graph that is not
/// symmetric, and a failed write.
pub fn write(graph: &Graph, path: impl AsRef<Path>, pairs: Pairs) -> Result<(), GraphError> {
    let path = path.as_ref();
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let format = match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("el") => Format::El,
        Some("wel") => Format::Wel,
        Some("gr") => Format::Gr,
        Some("mtx") => Format::Mtx,
        _ => {
            return Err(GraphError::in_file(
                path,
                "unknown graph format: the file name must end in .el, .wel, .gr or .mtx",
            ))
        }
    };
    let ints = match (&graph.weights, format) {
        (Weights::Int(w), _) => Some(w.as_slice()),
        (Weights::None, Format::Wel | Format::Gr) => {
            return Err(GraphError::in_file(path, "this format needs edge weights, and the graph has none: write .el or .mtx"))
        }
        (Weights::Real(_), Format::Wel | Format::Gr) => {
            return Err(GraphError::in_file(
                path,
                "this format holds integer weights, and the graph's are real numbers: write .mtx",
            ))
        }
        _ => None,
    };
    if pairs == Pairs::Once && !graph.is_symmetric() {
        return Err(GraphError::in_file(
            path,
            "the graph is not symmetric (some edge has no reverse of the same weight), so its edges cannot be written once per pair: write them all",
        ));
    }
    let edges = if pairs == Pairs::All { graph.edges() } else { written_once(graph) };
    let failed = |e: std::io::Error| GraphError::in_file(path, format!("cannot write the graph file: {e}"));
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path).map_err(failed)?);
    let n = graph.vertices();
    match format {
        Format::El | Format::Wel => {}
        Format::Gr => writeln!(out, "p sp {n} {edges}").map_err(failed)?,
        Format::Mtx => {
            let field = match graph.weights {
                Weights::None => "pattern",
                Weights::Int(_) => "integer",
                Weights::Real(_) => "real",
            };
            let symmetry = if pairs == Pairs::Once { "symmetric" } else { "general" };
            writeln!(out, "%%MatrixMarket matrix coordinate {field} {symmetry}\n{n} {n} {edges}").map_err(failed)?;
        }
    }
    let line = Line { format, ints, pairs };
    let pieces = n.div_ceil(ROWS_PER_PIECE);
    let batch = rayon::current_num_threads() * 4;
    for first in (0..pieces).step_by(batch) {
        let text: Vec<Vec<u8>> = (first..pieces.min(first + batch))
            .into_par_iter()
            .map(|piece| {
                let mut text = Vec::new();
                for u in piece * ROWS_PER_PIECE..n.min((piece + 1) * ROWS_PER_PIECE) {
                    line.row(graph, u, &mut text);
                }
                text
            })
            .collect();
        for piece in text {
            out.write_all(&piece).map_err(failed)?;
        }
    }
    out.flush().map_err(failed)
}

/// The edges `(u, v)` with `u <= v`.
fn written_once(graph: &Graph) -> usize {
    (0..graph.vertices()).into_par_iter().map(|u| graph.neighbours(u as u32).iter().filter(|&&v| u as u32 <= v).count()).sum()
}

/// How one edge becomes a line.
struct Line<'a> {
    format: Format,
    ints: Option<&'a [u32]>,
    pairs: Pairs,
}

impl Line<'_> {
    /// The lines of vertex `u`'s edges, appended to `text`.
    fn row(&self, graph: &Graph, u: usize, text: &mut Vec<u8>) {
        let mut ids = itoa::Buffer::new();
        let base = match self.format {
            Format::El | Format::Wel => 0,
            Format::Gr | Format::Mtx => 1,
        };
        for k in graph.offsets[u] as usize..graph.offsets[u + 1] as usize {
            let v = graph.targets[k];
            if self.pairs == Pairs::Once && (v as usize) < u {
                continue;
            }
            // A symmetric Matrix Market file holds the lower triangle: row >= column.
            let (from, to) = if self.format == Format::Mtx && self.pairs == Pairs::Once { (v as u64, u as u64) } else { (u as u64, v as u64) };
            if self.format == Format::Gr {
                text.extend_from_slice(b"a ");
            }
            text.extend_from_slice(ids.format(from + base).as_bytes());
            text.push(b' ');
            text.extend_from_slice(ids.format(to + base).as_bytes());
            if self.format != Format::El {
                if let Some(w) = self.ints {
                    text.push(b' ');
                    text.extend_from_slice(ids.format(w[k]).as_bytes());
                } else if let Weights::Real(w) = &graph.weights {
                    // `{}` of an f64 is the shortest text that reads back as the same f64 (never a
                    // whole number for a fraction, so the reader takes it back).
                    text.extend_from_slice(format!(" {}", w[k]).as_bytes());
                }
            }
            text.push(b'\n');
        }
    }
}
