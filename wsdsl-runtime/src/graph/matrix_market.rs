//! Matrix Market coordinate files (`.mtx`): the sparse matrices of the SuiteSparse
//! collection, read as graphs with an edge `i -> j` for every entry `(i, j)`.
//!
//! ```text
//! %%MatrixMarket matrix coordinate real symmetric
//! % comments
//! 3 3 2          <- rows, columns, entries
//! 2 1 0.5        <- 1-based row, column, value
//! 3 1 1.5
//! ```
//!
//! Supported: `coordinate` with `pattern` (no values), `integer` (non-negative: weights)
//! or `real` values, and `general` or `symmetric` symmetry; a symmetric file stores one
//! triangle, so every off-diagonal entry also gets its mirror. Dense (`array`), `complex`,
//! `hermitian` and `skew-symmetric` matrices have no graph reading here and are refused
//! with a message saying what is supported. Exactly as many entries as the size line
//! declares must follow: a file cut short is an error, not a smaller graph. A size line
//! declaring many more vertices than entries is refused (`build::check_sparse`).

use super::build::{self, Kind};
use super::edges::EdgeList;
use super::error::{quote, GraphError};
use super::source::{first_byte, int_weight, no_more, parse_u64, real_weight, unsigned_fields, vertex, Fields, Source};
use super::{Graph, GraphOptions};
use std::path::Path;

const SUPPORTED: &str = "supported: `%%MatrixMarket matrix coordinate <pattern|integer|real> <general|symmetric>`";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Pattern,
    Integer,
    Real,
}

/// Reads a Matrix Market coordinate file (gzipped or not).
pub fn read_matrix_market(path: impl AsRef<Path>, opts: &GraphOptions) -> Result<Graph, GraphError> {
    let path = path.as_ref();
    let mut src = Source::open(path, opts.quiet)?;

    let Some(banner) = src.next_line()? else {
        return Err(src.at_end(format!("the file is empty: expected the header line ({SUPPORTED})")));
    };
    let header = parse_banner(banner).map_err(|problem| src.here(problem))?;
    let (field, symmetric) = header;

    // The size line: the first line that is neither a comment nor blank.
    let (rows, cols, entries) = loop {
        let Some(line) = src.next_line()? else {
            return Err(src.at_end("the file ends before the size line `rows columns entries`"));
        };
        if matches!(first_byte(line), None | Some(b'%')) {
            continue;
        }
        break parse_size(line).map_err(|problem| src.here(problem))?;
    };
    if symmetric && rows != cols {
        return Err(src.here(format!("a symmetric matrix must be square, but this one is {rows} x {cols}")));
    }
    build::check_edge_count(entries).map_err(|e| e.attributed_to(path))?;
    build::check_sparse(rows.max(cols), entries, || format!("the size line's {rows} x {cols} matrix has"))
        .map_err(|p| src.here(p))?;
    let size_line = src.line();
    let vertices = rows.max(cols);

    let mut edges = EdgeList::new(&src, entries, field == Field::Real, opts)?;
    // Entry lines read (the list may hold fewer, once duplicates are dropped).
    let mut read = 0u64;
    while let Some(line) = src.next_line()? {
        if matches!(first_byte(line), None | Some(b'%')) {
            continue;
        }
        if read == entries {
            return Err(
                src.here(format!("more entries than the {entries} declared by the size line (line {size_line})"))
            );
        }
        let mut numbers = [0u64; 3];
        let expected = if field == Field::Pattern { 2 } else { 3 };
        let parsed = match unsigned_fields(line, &mut numbers) {
            Some(n)
                if n == expected
                    && field != Field::Real
                    && (1..=rows).contains(&numbers[0])
                    && (1..=cols).contains(&numbers[1])
                    && numbers[2] <= u64::from(u32::MAX) =>
            {
                Ok(((numbers[0] - 1) as u32, (numbers[1] - 1) as u32, Value::Int(numbers[2] as u32)))
            }
            // Real values, and anything unusual: field by field, to say what is wrong.
            _ => parse_entry(line, field, rows, cols),
        };
        let (i, j, value) = parsed.map_err(|problem| src.here(problem))?;
        read += 1;
        match value {
            Value::Int(w) => edges.push(&src, (i, j, w), vertices)?,
            Value::Real(w) => edges.push_real(&src, i, j, w, vertices)?,
        }
    }
    if read < entries {
        return Err(src.at_end(format!(
            "the file ends after {read} of the {entries} entries declared by the size line (line {size_line})"
        )));
    }
    drop(src); // closes the progress bar before the CSR is built
    let (edges, reals) = edges.into_parts();
    let kind = match field {
        Field::Pattern => Kind::None,
        Field::Integer => Kind::Int,
        Field::Real => Kind::Real(&reals),
    };
    build::from_triples(vertices as usize, edges, kind, opts.symmetrize || symmetric, opts)
        .map_err(|e| e.attributed_to(path))
}

/// An entry's value: an integer (none, for a pattern entry: 0), or a real number.
enum Value {
    Int(u32),
    Real(f64),
}

/// `row column [value]`, field by field; the ids come back 0-based.
fn parse_entry(line: &[u8], field: Field, rows: u64, cols: u64) -> Result<(u32, u32, Value), String> {
    let mut fields = Fields::new(line);
    let i = vertex(fields.next(), "row index", 1, rows)?;
    let j = vertex(fields.next(), "column index", 1, cols)?;
    let w = match field {
        Field::Pattern => Value::Int(0),
        Field::Integer => Value::Int(int_weight(fields.next())?),
        Field::Real => Value::Real(real_weight(fields.next())?),
    };
    no_more(
        fields,
        if field == Field::Pattern { "the row and column of a pattern entry" } else { "the row, column and value" },
    )?;
    Ok((i, j, w))
}

/// `%%MatrixMarket matrix coordinate <field> <symmetry>`, case-insensitive.
fn parse_banner(line: &[u8]) -> Result<(Field, bool), String> {
    let words: Vec<String> = Fields::new(line).map(|w| String::from_utf8_lossy(w).to_ascii_lowercase()).collect();
    let word = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
    if word(0) != "%%matrixmarket" {
        return Err(format!("missing the Matrix Market header: the first line is {}; {SUPPORTED}", quote(line)));
    }
    if word(1) != "matrix" {
        return Err(format!("unsupported object {} in the header; {SUPPORTED}", quote(word(1).as_bytes())));
    }
    match word(2) {
        "coordinate" => {}
        "array" => return Err(format!("the `array` (dense) format is not supported; {SUPPORTED}")),
        other => return Err(format!("unsupported format {} in the header; {SUPPORTED}", quote(other.as_bytes()))),
    }
    let field = match word(3) {
        "pattern" => Field::Pattern,
        "integer" => Field::Integer,
        "real" => Field::Real,
        other => return Err(format!("unsupported value type {} in the header; {SUPPORTED}", quote(other.as_bytes()))),
    };
    let symmetric = match word(4) {
        "general" => false,
        "symmetric" => true,
        other => return Err(format!("unsupported symmetry {} in the header; {SUPPORTED}", quote(other.as_bytes()))),
    };
    if words.len() > 5 {
        return Err(format!("unexpected word {} at the end of the header; {SUPPORTED}", quote(word(5).as_bytes())));
    }
    Ok((field, symmetric))
}

/// `rows columns entries`. Row and column counts are limited to what `u32` ids can name.
fn parse_size(line: &[u8]) -> Result<(u64, u64, u64), String> {
    let mut fields = Fields::new(line);
    let mut number = |what: &str| {
        let token = fields
            .next()
            .ok_or_else(|| format!("the size line ends before the {what}: expected `rows columns entries`"))?;
        parse_u64(token)
            .ok_or_else(|| format!("the {what} {} on the size line is not an unsigned integer", quote(token)))
    };
    let (rows, cols, entries) = (number("row count")?, number("column count")?, number("entry count")?);
    no_more(fields, "`rows columns entries` on the size line")?;
    let limit = u64::from(u32::MAX);
    if rows > limit || cols > limit {
        return Err(format!("the matrix is {rows} x {cols}, but graphs have at most {limit} vertices (32-bit ids)"));
    }
    Ok((rows, cols, entries))
}
