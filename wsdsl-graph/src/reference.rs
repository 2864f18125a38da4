//! Plain sequential algorithms the graph functions and examples are checked against, and the
//! weights a graph without any gets. Used by the graph examples, the tests, `bench` and
//! `gpu-check`; the sequential BFS and power iteration are beside their kernels
//! ([`crate::kernels::bfs::reference`], [`crate::kernels::pagerank::reference`]).
//!
//! [`file_distances`] reads a graph file itself, with a parser of its own, so that a check
//! against it does not inherit a bug of the runtime's reader: the `sssp` example's Dijkstra
//! on the graph the reader built, with the weights the reader gave, would agree with any
//! weights the reader got wrong.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use wsdsl::graph::Graph;

/// The distance of a vertex with no path from the source.
pub const UNREACHED: u32 = u32::MAX;

/// The parent [`crate::bfs`] gives every vertex, from the depths of a search from `source`,
/// one edge at a time: for a vertex at depth d > 0, its in-neighbour of depth d - 1 with the
/// smallest id; the source's is the source; [`UNREACHED`] for a vertex not reached.
pub fn bfs_parents(g: &Graph, depth: &[u32], source: u32) -> Vec<u32> {
    let mut parent = vec![UNREACHED; g.vertices()];
    for u in 0..g.vertices() as u32 {
        for &v in g.neighbours(u) {
            let (du, dv) = (depth[u as usize], depth[v as usize]);
            if du != UNREACHED && dv == du + 1 && u < parent[v as usize] {
                parent[v as usize] = u;
            }
        }
    }
    parent[source as usize] = source;
    parent
}

/// Weights 1..=255 from a hash of each edge's ends: the same for the same graph, whatever
/// order its file lists the edges in.
pub fn hashed_weights(g: &Graph) -> Vec<u32> {
    let mut w = Vec::with_capacity(g.edges());
    for v in 0..g.vertices() as u32 {
        for &u in g.neighbours(v) {
            w.push(hashed_weight(v, u));
        }
    }
    w
}

/// The weight `hashed_weights` gives the edge from `v` to `u`.
pub fn hashed_weight(v: u32, u: u32) -> u32 {
    let mut x = (v as u64) << 32 | u as u64;
    x = (x ^ (x >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    x = (x ^ (x >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    1 + ((x ^ (x >> 33)) % 255) as u32
}

/// Distances by Dijkstra's algorithm with a binary heap: the independent reference.
pub fn dijkstra(g: &Graph, weights: &[u32], source: u32) -> Vec<u32> {
    let mut dist = vec![UNREACHED; g.vertices()];
    let mut heap = BinaryHeap::new();
    dist[source as usize] = 0;
    heap.push(Reverse((0u32, source)));
    while let Some(Reverse((d, v))) = heap.pop() {
        if d > dist[v as usize] {
            continue;
        }
        let start = g.offsets[v as usize] as usize;
        for (k, &u) in g.neighbours(v).iter().enumerate() {
            let nd = d + weights[start + k];
            if nd < dist[u as usize] {
                dist[u as usize] = nd;
                heap.push(Reverse((nd, u)));
            }
        }
    }
    dist
}

/// Shortest distances from `source` over the edges of the graph file at `path`, as the file
/// writes them: read here line by line with `str` splitting, sharing nothing with the
/// runtime's reader (gzip apart), so that comparing with it catches a reader that gets an
/// edge or a weight wrong. The format is picked by the name as the runtime picks it
/// (`.mtx`, `.gr`, anything else a SNAP edge list; `.gz` gzipped). A weight is the whole
/// number its decimal text is (`2.50e1` is 25), worked out from the digits; an edge without
/// one (a SNAP edge list with two columns, a pattern matrix) weighs `hashed_weight` of its
/// ends. `symmetrize`: every edge also counts reversed (a symmetric matrix always does).
/// Distances are summed in 64 bits; `vertices` is the graph's vertex count. Errors: a
/// weight that is not a whole non-negative number, an id outside the graph, a distance
/// beyond what 32-bit distances hold, a file that cannot be read.
pub fn file_distances(path: &Path, symmetrize: bool, vertices: usize, source: u32) -> Result<Vec<u32>, String> {
    let edges = file_edges(path, symmetrize).map_err(|e| format!("the reference's reading of {}: {e}", path.display()))?;
    let mut start = vec![0usize; vertices + 1];
    for &(u, v, _) in &edges {
        for id in [u, v] {
            if id as usize >= vertices {
                return Err(format!("{} names vertex {id}, but the graph has {vertices} vertices", path.display()));
            }
        }
        start[u as usize + 1] += 1;
    }
    for v in 0..vertices {
        start[v + 1] += start[v];
    }
    let mut next = start.clone();
    let mut adjacent = vec![(0u32, 0u64); edges.len()];
    for (u, v, w) in edges {
        adjacent[next[u as usize]] = (v, w);
        next[u as usize] += 1;
    }
    let mut dist = vec![u64::MAX; vertices];
    let mut heap = BinaryHeap::new();
    if (source as usize) < vertices {
        dist[source as usize] = 0;
        heap.push(Reverse((0u64, source)));
    }
    while let Some(Reverse((d, v))) = heap.pop() {
        if d > dist[v as usize] {
            continue;
        }
        for &(u, w) in &adjacent[start[v as usize]..start[v as usize + 1]] {
            let nd = d + w;
            if nd < dist[u as usize] {
                dist[u as usize] = nd;
                heap.push(Reverse((nd, u)));
            }
        }
    }
    dist.iter()
        .enumerate()
        .map(|(v, &d)| match d {
            u64::MAX => Ok(UNREACHED),
            d if d < u64::from(UNREACHED) => Ok(d as u32),
            d => Err(format!(
                "the shortest distance to vertex {v} is {d}, but 32-bit distances hold at most {} ({UNREACHED} means unreached)",
                UNREACHED - 1
            )),
        })
        .collect()
}

/// `(source, target, weight)` of every edge of a graph file, ids from 0, with the reverse of
/// each when `symmetrize` or the file is a symmetric matrix; one per pair, the lightest (which
/// is all a shortest path uses), so that the list stays the size of the distinct edges
/// however often a file repeats one.
fn file_edges(path: &Path, symmetrize: bool) -> Result<Vec<(u32, u32, u64)>, String> {
    let mut file = BufReader::new(std::fs::File::open(path).map_err(|e| e.to_string())?);
    let gzip = file.fill_buf().map_err(|e| e.to_string())?.starts_with(&[0x1f, 0x8b]);
    let mut text: Box<dyn BufRead> = if gzip { Box::new(BufReader::new(flate2::bufread::MultiGzDecoder::new(file))) } else { Box::new(file) };
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    let (matrix, dimacs) = (name.ends_with(".mtx"), name.ends_with(".gr"));
    let mut mirrored = symmetrize;
    let mut edges: Vec<(u32, u32, u64)> = Vec::new();
    let lightest = |edges: &mut Vec<(u32, u32, u64)>| {
        edges.sort_unstable();
        edges.dedup_by_key(|e| (e.0, e.1));
    };
    let mut size_line_seen = false;
    let mut line = String::new();
    for number in 1.. {
        line.clear();
        if text.read_line(&mut line).map_err(|e| format!("line {number}: {e}"))? == 0 {
            break;
        }
        let at = |problem: String| format!("line {number}: {problem}");
        let mut words = [""; 4];
        let mut count = 0;
        for word in line.split_whitespace() {
            if count < words.len() {
                words[count] = word;
            }
            count += 1;
        }
        let id = |word: &str, base: u64| -> Result<u32, String> {
            let bad = || at(format!("`{word}` is not a vertex id"));
            let n: u64 = word.parse().map_err(|_| bad())?;
            n.checked_sub(base).and_then(|n| u32::try_from(n).ok()).ok_or_else(bad)
        };
        let weight = |word: &str| whole_number(word).map_err(|problem| at(format!("the weight `{word}` {problem}")));
        let (u, v, w) = if matrix {
            if number == 1 {
                mirrored |= line.to_ascii_lowercase().split_whitespace().nth(4) == Some("symmetric");
                continue;
            }
            if count == 0 || words[0].starts_with('%') {
                continue;
            }
            if !size_line_seen {
                size_line_seen = true;
                continue;
            }
            (id(words[0], 1)?, id(words[1], 1)?, if count > 2 { Some(weight(words[2])?) } else { None })
        } else if dimacs {
            if words[0] != "a" || count != 4 {
                continue;
            }
            (id(words[1], 1)?, id(words[2], 1)?, Some(weight(words[3])?))
        } else {
            if count == 0 || words[0].starts_with('#') || words[0].starts_with('%') {
                continue;
            }
            (id(words[0], 0)?, id(words[1], 0)?, if count > 2 { Some(weight(words[2])?) } else { None })
        };
        if edges.len() == edges.capacity() && edges.len() >= 1 << 20 {
            lightest(&mut edges);
            edges.reserve(edges.len());
        }
        edges.push((u, v, w.unwrap_or_else(|| u64::from(hashed_weight(u, v)))));
        if mirrored && u != v {
            edges.push((v, u, w.unwrap_or_else(|| u64::from(hashed_weight(v, u)))));
        }
    }
    lightest(&mut edges);
    Ok(edges)
}

/// The non-negative whole number a decimal text (`7`, `2.0`, `2.50e1`, `+3`) is, from its
/// digits: the digits without the point, then the exponent less the digits after the point
/// as zeros appended (or, when negative, as zeros that must end the digits and are dropped).
fn whole_number(text: &str) -> Result<u64, String> {
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = unsigned.split_once(['e', 'E']).unwrap_or((unsigned, "0"));
    let exponent: i64 = exponent.parse().map_err(|_| "is not a number".to_string())?;
    let (integer, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: String = format!("{integer}{fraction}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err("is not a number".into());
    }
    let shift = exponent - fraction.len() as i64;
    if shift >= 0 {
        if digits.trim_start_matches('0').len() as i64 + shift > 20 {
            return Err("is too large".into());
        }
        digits.extend(std::iter::repeat_n('0', shift as usize));
    } else {
        let dropped = (-shift).min(digits.len() as i64) as usize;
        if !digits[digits.len() - dropped..].bytes().all(|b| b == b'0') {
            return Err("is not a whole number".into());
        }
        digits.truncate(digits.len() - dropped);
    }
    let value: u64 = if digits.is_empty() { 0 } else { digits.parse().map_err(|_| "is too large".to_string())? };
    if negative && value != 0 {
        return Err("is negative".into());
    }
    Ok(value)
}

/// Components and the size of the largest, from labels.
pub fn component_summary(labels: &[u32]) -> (usize, usize) {
    let mut size = vec![0usize; labels.len()];
    for &l in labels {
        size[l as usize] += 1;
    }
    (size.iter().filter(|&&s| s > 0).count(), size.iter().copied().max().unwrap_or(0))
}

/// Each vertex labelled with the smallest vertex of its component: a BFS from every vertex
/// not yet labelled, in increasing order (so the first vertex of a component is its smallest).
pub fn components(g: &Graph) -> Vec<u32> {
    let mut label = vec![u32::MAX; g.vertices()];
    for s in 0..g.vertices() as u32 {
        if label[s as usize] != u32::MAX {
            continue;
        }
        label[s as usize] = s;
        let mut stack = vec![s];
        while let Some(v) = stack.pop() {
            for &u in g.neighbours(v) {
                if label[u as usize] == u32::MAX {
                    label[u as usize] = s;
                    stack.push(u);
                }
            }
        }
    }
    label
}
