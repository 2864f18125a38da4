//! DIMACS shortest-path graphs (`.gr`), as in the 9th DIMACS Implementation Challenge
//! (the USA road networks):
//!
//! ```text
//! c comments
//! p sp 3 2        <- problem line: vertices, arcs
//! a 1 2 7         <- 1-based arc source, target, non-negative integer weight
//! a 2 3 1
//! ```
//!
//! The problem line comes once, before any arc, and exactly as many arcs as it declares
//! must follow. Every graph read from this format has integer weights. A problem line
//! declaring many more vertices than arcs is refused (`build::check_sparse`).

use super::build::{self, Kind};
use super::edges::EdgeList;
use super::error::{quote, GraphError};
use super::source::{int_weight, no_more, parse_u64, unsigned_fields, vertex, Fields, Source};
use super::{Graph, GraphOptions};
use std::path::Path;

/// Reads a DIMACS `.gr` file (gzipped or not).
pub fn read_dimacs(path: impl AsRef<Path>, opts: &GraphOptions) -> Result<Graph, GraphError> {
    let path = path.as_ref();
    let mut src = Source::open(path, opts.quiet)?;
    // (vertices, arcs, the line declaring them)
    let mut problem: Option<(u64, u64, u64)> = None;
    // Created by the problem line; `arcs` counts the arc lines (the list may hold fewer,
    // once duplicates are dropped).
    let mut edges: Option<EdgeList> = None;
    let mut arcs = 0u64;
    while let Some(line) = src.next_line()? {
        let mut fields = Fields::new(line);
        let Some(kind) = fields.next() else { continue };
        match kind {
            b"c" => continue,
            b"p" => {
                if let Some((_, _, at)) = problem {
                    return Err(src.here(format!("a second problem line: the first is on line {at}")));
                }
                let (n, m) = parse_problem(fields).map_err(|p| src.here(p))?;
                build::check_edge_count(m).map_err(|e| e.attributed_to(path))?;
                build::check_sparse(n, m, || "the problem line declares".into()).map_err(|p| src.here(p))?;
                problem = Some((n, m, src.line()));
                edges = Some(EdgeList::new(&src, m, false, opts)?);
            }
            b"a" => {
                let (Some((n, m, at)), Some(list)) = (problem, edges.as_mut()) else {
                    return Err(src.here("an arc before the problem line `p sp <vertices> <arcs>`"));
                };
                if arcs == m {
                    return Err(src.here(format!("more arcs than the {m} declared by the problem line (line {at})")));
                }
                let mut numbers = [0u64; 3];
                let parsed = match unsigned_fields(fields.rest(), &mut numbers) {
                    Some(3)
                        if (1..=n).contains(&numbers[0])
                            && (1..=n).contains(&numbers[1])
                            && numbers[2] <= u64::from(u32::MAX) =>
                    {
                        Ok(((numbers[0] - 1) as u32, (numbers[1] - 1) as u32, numbers[2] as u32))
                    }
                    // Anything unusual: field by field, to say what is wrong.
                    _ => parse_arc(fields, n),
                };
                let arc = parsed.map_err(|p| src.here(p))?;
                arcs += 1;
                list.push(&src, arc, n)?;
            }
            other => {
                let problem = format!(
                    "unknown line type {}: DIMACS .gr lines start with `c` (comment), `p` (problem) or `a` (arc)",
                    quote(other)
                );
                return Err(src.here(problem));
            }
        }
    }
    let Some((n, m, at)) = problem else {
        return Err(src.at_end("no problem line `p sp <vertices> <arcs>`: is this a DIMACS .gr file?"));
    };
    if arcs < m {
        return Err(src.at_end(format!("the file ends after {arcs} of the {m} arcs declared by the problem line (line {at})")));
    }
    drop(src); // closes the progress bar before the CSR is built
    let (edges, _) = edges.map(EdgeList::into_parts).unwrap_or_default();
    build::from_triples(n as usize, edges, Kind::Int, opts.symmetrize, opts).map_err(|e| e.attributed_to(path))
}

/// The rest of `a <source> <target> <weight>`, field by field; the ids come back 0-based.
fn parse_arc(mut fields: Fields<'_>, n: u64) -> Result<(u32, u32, u32), String> {
    let u = vertex(fields.next(), "arc source", 1, n)?;
    let v = vertex(fields.next(), "arc target", 1, n)?;
    let w = int_weight(fields.next())?;
    no_more(fields, "the arc's source, target and weight")?;
    Ok((u, v, w))
}

/// The rest of `p sp <vertices> <arcs>`.
fn parse_problem(mut fields: Fields<'_>) -> Result<(u64, u64), String> {
    match fields.next() {
        Some(b"sp") => {}
        Some(other) => {
            return Err(format!("the problem type is {}, not `sp`: expected `p sp <vertices> <arcs>`", quote(other)))
        }
        None => return Err("the problem line ends early: expected `p sp <vertices> <arcs>`".into()),
    }
    let mut number = |what: &str| {
        let token = fields
            .next()
            .ok_or_else(|| format!("the problem line ends before the {what}: expected `p sp <vertices> <arcs>`"))?;
        parse_u64(token).ok_or_else(|| format!("the {what} {} is not an unsigned integer", quote(token)))
    };
    let (n, m) = (number("vertex count")?, number("arc count")?);
    no_more(fields, "`p sp <vertices> <arcs>`")?;
    if n > u64::from(u32::MAX) {
        return Err(format!("{n} vertices is too many: graphs have at most {} (32-bit ids)", u32::MAX));
    }
    Ok((n, m))
}
