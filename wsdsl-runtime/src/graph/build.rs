//! Building compressed sparse rows from a stream of edges, in parallel and deterministically.
//!
//! Sorting all `(u, v)` pairs would cost `O(E log E)` and lose the input order within a
//! row; a plain counting sort (degrees, prefix sum, scatter) keeps it but is sequential.
//! This does a two-level counting sort instead:
//!
//! 1. The edges are produced in chunks (slices of an edge list, blocks of R-MAT edges, row
//!    ranges of a graph being transposed), in parallel; each chunk appends its edges to
//!    one list per *bucket*, a fixed range of `2^shift` source vertices.
//! 2. Each bucket is then sorted by source on its own, in parallel: it reads its lists in
//!    chunk order, so every row keeps the order in which the edges were produced, and the
//!    result is the same for any number of threads (chunks only decide who produces what).
//! 3. The buckets' rows are copied into the final arrays at their prefix-sum offsets.
//!
//! Weights travel as a `u32` per edge: the integer itself, or for real weights the index of
//! the edge's value in a list of `f64`s beside the edges ([`Kind::Real`]), so that every
//! edge stays 12 bytes however its weight is written.

use super::error::GraphError;
use super::{Graph, GraphOptions, Weights};
use rayon::prelude::*;

/// One edge on its way into the graph: source, target, weight slot.
pub(crate) type Edge = (u32, u32, u32);

/// What the weight slot of an [`Edge`] holds.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind<'a> {
    None,
    Int,
    /// The index of the edge's weight in these values.
    Real(&'a [f64]),
}

impl Kind<'_> {
    fn weighted(self) -> bool {
        !matches!(self, Kind::None)
    }
}

/// At most `2^BUCKET_BITS` buckets: several per thread for balance, but few, since every
/// edge produced goes to a random bucket's list and more lists than the TLB and caches
/// hold make each append a miss (4096 buckets made R-MAT generation twice as slow as 256).
const BUCKET_BITS: u32 = 8;
/// Edge lists are cut into chunks of at least this many edges.
const MIN_CHUNK: usize = 1 << 16;

/// Where a chunk puts the edges it produces.
pub(crate) struct Emit {
    shift: u32,
    buckets: Vec<Vec<Edge>>,
}

impl Emit {
    #[inline]
    pub(crate) fn push(&mut self, u: u32, v: u32, w: u32) {
        self.buckets[(u >> self.shift) as usize].push((u, v, w));
    }
}

/// Refuses more edges than `u32` offsets can index.
pub(crate) fn check_edge_count(edges: u64) -> Result<(), GraphError> {
    if edges > u64::from(u32::MAX) {
        return Err(GraphError::edge_list(format!(
            "the graph would have {edges} edges, but at most {} fit: CSR offsets are 32-bit",
            u32::MAX
        )));
    }
    Ok(())
}

/// Refuses more vertices than `u32` ids can name (ids go up to `u32::MAX - 1` so that the
/// vertex count itself is a `u32`).
pub(crate) fn check_vertex_count(vertices: usize) -> Result<(), GraphError> {
    if vertices > u32::MAX as usize {
        return Err(GraphError::edge_list(format!(
            "{vertices} vertices is too many: ids are 32-bit, so at most {} vertices",
            u32::MAX
        )));
    }
    Ok(())
}

/// Above this many vertices a file's vertex count is checked against its edges.
const SPARSE_FROM: u64 = 1 << 24;
/// More vertices per edge than this, above [`SPARSE_FROM`], is refused.
const SPARSE_RATIO: u64 = 16;

/// A file decides how many vertices its graph has (its largest id, or its header), and every
/// vertex costs a 4-byte row offset whether or not it has an edge: a 17-byte edge list naming
/// vertex 4294967294 would take 16 GiB. So a file whose `vertices` are over 16 M and over 16
/// per edge (`edges` as the file counts them) is refused before anything is allocated: almost
/// every vertex would be isolated, which a wrong column or a corrupt header makes far more
/// often than a real graph does. `claim` leads the message: what in the file claims them.
pub(crate) fn check_sparse(vertices: u64, edges: u64, claim: impl FnOnce() -> String) -> Result<(), String> {
    if vertices <= SPARSE_FROM || vertices <= SPARSE_RATIO.saturating_mul(edges) {
        return Ok(());
    }
    let gib = (vertices + 1) as f64 * 4.0 / (1u64 << 30) as f64;
    Err(format!(
        "{} {vertices} vertices ({gib:.1} GiB of row offsets) for {edges} edge{}, more than {SPARSE_RATIO} per edge: \
         ids this sparse are refused before allocating (number the vertices from 0 without gaps)",
        claim(),
        if edges == 1 { "" } else { "s" }
    ))
}

/// The CSR of `edges` over `vertices` vertices: with the reverse of every non-loop edge
/// added when `symmetrize` (the option, or a symmetric Matrix Market file), self-loops
/// and duplicates dropped as `opts` says.
pub(crate) fn from_triples(
    vertices: usize,
    edges: Vec<Edge>,
    kind: Kind<'_>,
    symmetrize: bool,
    opts: &GraphOptions,
) -> Result<Graph, GraphError> {
    check_vertex_count(vertices)?;
    check_edge_count(edges.len() as u64)?;
    let outside = |&(u, v, _): &Edge| u as usize >= vertices || v as usize >= vertices;
    if let Some(i) = edges.par_iter().position_first(outside) {
        let (u, v, _) = edges[i];
        let bad = if u as usize >= vertices { u } else { v };
        return Err(GraphError::edge_list(format!(
            "edge {i} ({u}, {v}) names vertex {bad}, but the graph has {vertices} vertices (ids 0 to {})",
            vertices as i64 - 1
        )));
    }
    let chunks = (edges.len() / MIN_CHUNK).clamp(1, rayon::current_num_threads() * 2);
    let drop_loops = opts.remove_self_loops;
    let weighted = kind.weighted();
    // `move`: the edge list belongs to the producer, which `assemble` drops as soon as
    // the edges are sorted into buckets, so the list and the CSR never coexist.
    let produce = move |chunk: usize, emit: &mut Emit| {
        let (from, to) = (edges.len() * chunk / chunks, edges.len() * (chunk + 1) / chunks);
        for &(u, v, w) in &edges[from..to] {
            let w = if weighted { w } else { 0 };
            if u != v || !drop_loops {
                emit.push(u, v, w);
            }
            if symmetrize && u != v {
                emit.push(v, u, w);
            }
        }
    };
    assemble(vertices, chunks, produce, kind, opts.remove_duplicates)
}

/// `graph` with every edge reversed.
pub(crate) fn transpose(graph: &Graph) -> Graph {
    // A real weight's slot is its edge's index in `graph`, which `Kind::Real` looks up.
    let (kind, slots): (Kind, Option<&[u32]>) = match &graph.weights {
        Weights::None => (Kind::None, None),
        Weights::Int(w) => (Kind::Int, Some(w)),
        Weights::Real(w) => (Kind::Real(w), None),
    };
    let real = matches!(kind, Kind::Real(_));
    let vertices = graph.vertices();
    let edges = graph.edges();
    let chunks = (edges / MIN_CHUNK).clamp(1, rayon::current_num_threads() * 2);
    // Chunk c takes the rows holding edges c*E/chunks.. onwards: balanced by edges, not rows.
    let row_of = |chunk: usize| graph.offsets.partition_point(|&o| (o as usize) < edges * chunk / chunks).min(vertices);
    let produce = |chunk: usize, emit: &mut Emit| {
        let rows =
            if chunk == 0 { 0 } else { row_of(chunk) }..if chunk + 1 == chunks { vertices } else { row_of(chunk + 1) };
        for u in rows {
            for k in graph.offsets[u] as usize..graph.offsets[u + 1] as usize {
                let slot = if real { k as u32 } else { slots.map_or(0, |s| s[k]) };
                emit.push(graph.targets[k], u as u32, slot);
            }
        }
    };
    // A transpose has as many edges and vertices as a graph that already exists: no limit to hit.
    assemble(vertices, chunks, produce, kind, false).expect("a transpose is no larger than its graph")
}

/// Whether `graph` equals its transpose, weights included: row `v` of both holds the same
/// `(neighbour, weight)` pairs, compared after sorting each (the transpose's rows are in
/// source order, the graph's in whatever order it was built).
pub(crate) fn is_symmetric(graph: &Graph) -> bool {
    let reversed = transpose(graph);
    if reversed.offsets != graph.offsets {
        return false;
    }
    let slot = |g: &Graph, k: usize| match &g.weights {
        Weights::None => 0,
        Weights::Int(w) => u64::from(w[k]),
        Weights::Real(w) => w[k].to_bits(),
    };
    let row = |g: &Graph, v: usize| {
        let mut pairs: Vec<(u32, u64)> =
            (g.offsets[v] as usize..g.offsets[v + 1] as usize).map(|k| (g.targets[k], slot(g, k))).collect();
        pairs.sort_unstable();
        pairs
    };
    (0..graph.vertices()).into_par_iter().all(|v| row(graph, v) == row(&reversed, v))
}

/// Runs `produce` for chunks `0..chunks` and sorts what they emit into CSR (the module
/// comment says how). `dedup` keeps one edge per `(u, v)`, the smallest weight, and sorts rows.
pub(crate) fn assemble<P>(
    vertices: usize,
    chunks: usize,
    produce: P,
    kind: Kind<'_>,
    dedup: bool,
) -> Result<Graph, GraphError>
where
    P: Fn(usize, &mut Emit) + Sync,
{
    assemble_then(vertices, chunks, produce, kind, dedup, || {})
}

/// [`assemble`], calling `produced_all` once every chunk has been produced (a progress bar
/// says so).
pub(crate) fn assemble_then<P>(
    vertices: usize,
    chunks: usize,
    produce: P,
    kind: Kind<'_>,
    dedup: bool,
    produced_all: impl FnOnce(),
) -> Result<Graph, GraphError>
where
    P: Fn(usize, &mut Emit) + Sync,
{
    check_vertex_count(vertices)?;
    let id_bits = usize::BITS - vertices.saturating_sub(1).leading_zeros();
    let shift = id_bits.saturating_sub(BUCKET_BITS);
    let width = 1usize << shift;
    let buckets = vertices.div_ceil(width).max(1);

    // 1. Produce, one list per (chunk, bucket).
    let produced: Vec<Vec<Vec<Edge>>> = (0..chunks)
        .into_par_iter()
        .map(|chunk| {
            let mut emit = Emit { shift, buckets: vec![Vec::new(); buckets] };
            produce(chunk, &mut emit);
            emit.buckets
        })
        .collect();
    drop(produce);
    produced_all();
    let total: u64 = produced.iter().flatten().map(|list| list.len() as u64).sum();
    check_edge_count(total)?;
    let mut by_bucket: Vec<Vec<Vec<Edge>>> = (0..buckets).map(|_| Vec::with_capacity(chunks)).collect();
    for lists in produced {
        for (bucket, list) in lists.into_iter().enumerate() {
            by_bucket[bucket].push(list);
        }
    }

    // 2. Sort each bucket by source.
    let rows: Vec<Rows> = by_bucket
        .into_par_iter()
        .enumerate()
        .map(|(bucket, lists)| {
            let first = bucket * width;
            let count = width.min(vertices.saturating_sub(first));
            if dedup {
                Rows::deduplicated(first, count, lists, kind)
            } else {
                Rows::in_order(first, count, lists, kind)
            }
        })
        .collect();

    // 3. Copy the buckets' rows into place.
    let mut bases = Vec::with_capacity(rows.len());
    let mut edges = 0usize;
    for r in &rows {
        bases.push(edges);
        edges += r.targets.len();
    }
    let mut offsets = vec![0u32; vertices + 1];
    offsets[..vertices].par_chunks_mut(width).zip(&rows).zip(&bases).for_each(|((out, r), &base)| {
        let mut at = base as u32;
        for (o, &d) in out.iter_mut().zip(&r.degrees) {
            *o = at;
            at += d;
        }
    });
    offsets[vertices] = edges as u32;
    let targets = gather(&rows, edges, |r| &r.targets);
    let weights = match kind {
        Kind::None => Weights::None,
        Kind::Int => Weights::Int(gather(&rows, edges, |r| &r.weights)),
        Kind::Real(values) => {
            Weights::Real(gather(&rows, edges, |r| &r.weights).into_iter().map(|k| values[k as usize]).collect())
        }
    };
    Ok(Graph { offsets, targets, weights })
}

/// The concatenation of one array of every bucket, copied in parallel.
fn gather(rows: &[Rows], total: usize, field: impl Fn(&Rows) -> &Vec<u32> + Sync) -> Vec<u32> {
    let mut out = vec![0u32; total];
    let mut pieces = Vec::with_capacity(rows.len());
    let mut rest = out.as_mut_slice();
    for r in rows {
        let (piece, tail) = rest.split_at_mut(field(r).len());
        pieces.push(piece);
        rest = tail;
    }
    pieces.into_par_iter().zip(rows).for_each(|(piece, r)| piece.copy_from_slice(field(r)));
    out
}

/// One bucket's rows: the degree of each of its vertices and their edges, row by row.
struct Rows {
    degrees: Vec<u32>,
    targets: Vec<u32>,
    /// Empty when the graph is unweighted.
    weights: Vec<u32>,
}

impl Rows {
    /// Counting sort by source: every row in the order its edges were produced.
    fn in_order(first: usize, count: usize, lists: Vec<Vec<Edge>>, kind: Kind<'_>) -> Rows {
        let mut degrees = vec![0u32; count];
        for &(u, _, _) in lists.iter().flatten() {
            degrees[u as usize - first] += 1;
        }
        let mut next = Vec::with_capacity(count);
        let mut at = 0u32;
        for &d in &degrees {
            next.push(at);
            at += d;
        }
        let mut targets = vec![0u32; at as usize];
        let mut weights = vec![0u32; if kind.weighted() { at as usize } else { 0 }];
        for list in lists {
            for (u, v, w) in list {
                let slot = &mut next[u as usize - first];
                targets[*slot as usize] = v;
                if let Some(x) = weights.get_mut(*slot as usize) {
                    *x = w;
                }
                *slot += 1;
            }
        }
        Rows { degrees, targets, weights }
    }

    /// Sorted by (source, target, weight), then one edge per (source, target): the first,
    /// which has the smallest weight.
    fn deduplicated(first: usize, count: usize, lists: Vec<Vec<Edge>>, kind: Kind<'_>) -> Rows {
        let mut all: Vec<Edge> = lists.concat();
        sort_and_dedup(&mut all, kind, false);
        let mut degrees = vec![0u32; count];
        for &(u, _, _) in &all {
            degrees[u as usize - first] += 1;
        }
        let targets = all.iter().map(|e| e.1).collect();
        let weights = if kind.weighted() { all.iter().map(|e| e.2).collect() } else { Vec::new() };
        Rows { degrees, targets, weights }
    }
}

/// Sorts `edges` by (source, target, weight), on the rayon pool when `parallel`, then keeps
/// one edge per (source, target): the first, which has the smallest weight. Real weights
/// order as numbers (IEEE 754 total order, so -0 before 0).
pub(crate) fn sort_and_dedup(edges: &mut Vec<Edge>, kind: Kind<'_>, parallel: bool) {
    match kind {
        Kind::None => {
            let pair = |e: &Edge| (e.0, e.1);
            if parallel {
                edges.par_sort_unstable_by_key(pair)
            } else {
                edges.sort_unstable_by_key(pair)
            }
        }
        Kind::Int if parallel => edges.par_sort_unstable(),
        Kind::Int => edges.sort_unstable(),
        Kind::Real(values) => {
            let order =
                |a: &Edge, b: &Edge| (a.0, a.1).cmp(&(b.0, b.1)).then(values[a.2 as usize].total_cmp(&values[b.2 as usize]));
            if parallel {
                edges.par_sort_unstable_by(order)
            } else {
                edges.sort_unstable_by(order)
            }
        }
    }
    edges.dedup_by_key(|&mut (u, v, _)| (u, v));
}
