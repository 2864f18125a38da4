//! SNAP edge lists (`.txt`, `.el`, `.edges`, ...): one edge per line.
//!
//! ```text
//! # Directed graph (each unordered pair of nodes is saved once): p2p-Gnutella31.txt
//! # FromNodeId    ToNodeId      (tab-separated in the file)
//! 0    1
//! 0    2
//! ```
//!
//! `#` and `%` start comment lines; blank lines are skipped; every other line is two
//! whitespace-separated unsigned ids, counted from 0 and used as given (the graph has
//! `max id + 1` vertices; ids so sparse that almost every vertex would be isolated
//! are refused, see `build::check_sparse`). A third column is an integer weight; it must
//! then be on every line, since a graph where only some edges are weighted has no sensible
//! meaning, and a fourth column is refused rather than silently dropped.

use super::build::{self, Kind};
use super::edges::EdgeList;
use super::error::GraphError;
use super::source::{first_byte, int_weight, no_more, unsigned_fields, vertex, Fields, Source, MAX_ID};
use super::{Graph, GraphOptions};
use std::path::Path;

/// Reads a SNAP edge list (gzipped or not).
pub fn read_snap(path: impl AsRef<Path>, opts: &GraphOptions) -> Result<Graph, GraphError> {
    let path = path.as_ref();
    let mut src = Source::open(path, opts.quiet)?;
    let mut edges = EdgeList::new(&src, 0, false, opts)?;
    // Lines with an edge (the list may hold fewer, once duplicates are dropped).
    let mut entries = 0u64;
    let mut max_id = 0u32;
    // Whether the edges have weights, and the line that decided it.
    let mut weighted: Option<(bool, u64)> = None;
    while let Some(line) = src.next_line()? {
        if matches!(first_byte(line), None | Some(b'#' | b'%')) {
            continue;
        }
        let mut numbers = [0u64; 3];
        let parsed = match unsigned_fields(line, &mut numbers) {
            Some(2) if numbers[0] <= MAX_ID && numbers[1] <= MAX_ID => Ok((numbers[0] as u32, numbers[1] as u32, None)),
            Some(3) if numbers[0] <= MAX_ID && numbers[1] <= MAX_ID && numbers[2] <= u64::from(u32::MAX) => {
                Ok((numbers[0] as u32, numbers[1] as u32, Some(numbers[2] as u32)))
            }
            // Anything unusual: field by field, to say what is wrong.
            _ => parse_line(line),
        };
        let (u, v, w) = parsed.map_err(|problem| src.here(problem))?;
        match weighted {
            None => weighted = Some((w.is_some(), src.line())),
            Some((true, first)) if w.is_none() => {
                return Err(src.here(format!(
                "the line ends before the weight: line {first} has a weight (a third column), so every edge needs one"
            )))
            }
            Some((false, first)) if w.is_some() => {
                return Err(src.here(format!(
                    "unexpected third column (a weight): line {first} has none, so no edge may have one"
                )))
            }
            _ => {}
        }
        max_id = max_id.max(u).max(v);
        entries += 1;
        edges.push(&src, (u, v, w.unwrap_or(0)), u64::from(max_id) + 1)?;
    }
    let Some((weighted, _)) = weighted else {
        return Err(src.at_end(match src.line() {
            0 => "the file is empty: no edges (expected lines `source target`)",
            _ => "no edges: the file has only comments and blank lines (expected lines `source target`)",
        }));
    };
    let vertices = u64::from(max_id) + 1;
    build::check_sparse(vertices, entries, || format!("the file names vertex {max_id}, so the graph would have"))
        .map_err(|problem| src.at_end(problem))?;
    drop(src); // closes the progress bar before the CSR is built
    let kind = if weighted { Kind::Int } else { Kind::None };
    let (edges, _) = edges.into_parts();
    build::from_triples(max_id as usize + 1, edges, kind, opts.symmetrize, opts).map_err(|e| e.attributed_to(path))
}

/// `source target [weight]`, field by field.
fn parse_line(line: &[u8]) -> Result<(u32, u32, Option<u32>), String> {
    let mut fields = Fields::new(line);
    let u = vertex(fields.next(), "source id", 0, MAX_ID)?;
    let v = vertex(fields.next(), "target id", 0, MAX_ID)?;
    let w = match fields.next() {
        Some(token) => Some(int_weight(Some(token))?),
        None => None,
    };
    no_more(fields, "the source, target and weight")?;
    Ok((u, v, w))
}
