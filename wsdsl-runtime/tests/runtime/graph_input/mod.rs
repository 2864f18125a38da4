//! Graph input: every format, gzip, options, transpose, every malformed input (by file, line
//! and problem), R-MAT determinism, the real SNAP graph in `data/graphs`, and writing graphs
//! back; what the reader bounds is in `bounds`.

mod bounds;

use flate2::write::GzEncoder;
use flate2::Compression;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use wsdsl_runtime::graph::{self, Graph, GraphError, GraphOptions, Rmat, Weights};

const GNUTELLA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/graphs/p2p-Gnutella31.txt.gz");

/// A file in a directory of its own, removed with the directory when dropped.
struct TempFile(PathBuf);

impl AsRef<Path> for TempFile {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some(dir) = self.0.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Writes `contents` to a fresh file called `name`.
fn file(name: &str, contents: &[u8]) -> TempFile {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "wsdsl-graph-input-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    TempFile(path)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut z = GzEncoder::new(Vec::new(), Compression::default());
    z.write_all(bytes).unwrap();
    z.finish().unwrap()
}

fn quiet() -> GraphOptions {
    GraphOptions { quiet: true, ..GraphOptions::default() }
}

fn rows(g: &Graph) -> Vec<Vec<u32>> {
    (0..g.vertices() as u32).map(|v| g.neighbours(v).to_vec()).collect()
}

fn int_rows(g: &Graph) -> Vec<Vec<(u32, u32)>> {
    let w = g.int_weights().expect("integer weights");
    (0..g.vertices())
        .map(|v| (g.offsets[v]..g.offsets[v + 1]).map(|k| (g.targets[k as usize], w[k as usize])).collect())
        .collect()
}

fn read(name: &str, contents: &str) -> Result<Graph, GraphError> {
    graph::read(file(name, contents.as_bytes()), &quiet())
}

fn read_err(name: &str, contents: &[u8]) -> GraphError {
    match graph::read(file(name, contents), &quiet()) {
        Ok(g) => panic!("{name} should not read, but gave {} vertices {:?}", g.vertices(), rows(&g)),
        Err(e) => e,
    }
}

/// The error names the file `name`, the line `line` (or none), and says every one of `words`.
fn check(e: &GraphError, name: &str, line: Option<u64>, words: &[&str]) {
    let shown = e.to_string();
    assert_eq!(e.path().and_then(Path::file_name).and_then(|n| n.to_str()), Some(name), "{shown}");
    assert_eq!(e.line(), line, "{shown}");
    let prefix = match line {
        Some(l) => format!("{}:{l}: ", e.path().unwrap().display()),
        None => format!("{}: ", e.path().unwrap().display()),
    };
    assert!(shown.starts_with(&prefix), "`{shown}` should start with `{prefix}`");
    assert_eq!(&shown[prefix.len()..], e.problem());
    for w in words {
        assert!(e.problem().contains(w), "`{shown}` should say `{w}`");
    }
}

// ---- formats ------------------------------------------------------------------------

const SNAP: &str = "# Directed graph: test\n% another comment\n\n0 1\n0\t2\n  2   1 \r\n5 0\n";

#[test]
fn snap_edge_list_skips_comments_and_blank_lines() {
    let g = read("small.txt", SNAP).unwrap();
    assert_eq!(g.vertices(), 6, "max id + 1");
    assert_eq!(g.edges(), 4);
    assert_eq!(rows(&g), vec![vec![1, 2], vec![], vec![1], vec![], vec![], vec![0]]);
    assert_eq!(g.weights, Weights::None);
    assert_eq!((g.degree(0), g.degree(1), g.max_degree()), (2, 0, 2));
}

#[test]
fn gzip_is_recognised_by_its_bytes_not_its_name() {
    let plain = read("plain.txt", SNAP).unwrap();
    let zipped = gzip(SNAP.as_bytes());
    for (name, bytes) in [("a.txt.gz", zipped.as_slice()), ("b.txt", zipped.as_slice()), ("c.txt.gz", SNAP.as_bytes())]
    {
        assert_eq!(graph::read(file(name, bytes), &quiet()).unwrap(), plain, "{name}");
    }
    // Two gzip members back to back (`cat a.gz b.gz`) are one file.
    let mut two = gzip(b"0 1\n");
    two.extend(gzip(b"1 2\n"));
    assert_eq!(rows(&graph::read(file("two.txt.gz", &two), &quiet()).unwrap()), vec![vec![1], vec![2], vec![]]);
}

#[test]
fn snap_third_column_is_an_integer_weight() {
    let g = read("w.txt", "0 1 5\n1 2 7\n# c\n2 0 0\n").unwrap();
    assert_eq!(int_rows(&g), vec![vec![(1, 5)], vec![(2, 7)], vec![(0, 0)]]);
    let e = read("half.txt", "0 1 5\n1 2\n").unwrap_err();
    check(&e, "half.txt", Some(2), &["weight", "line 1"]);
    let e = read("half2.txt", "0 1\n1 2 3\n").unwrap_err();
    check(&e, "half2.txt", Some(2), &["third column", "line 1"]);
    let e = read("four.txt", "0 1 2 3\n").unwrap_err();
    check(&e, "four.txt", Some(1), &["`3`", "unexpected"]);
}

#[test]
fn matrix_market_general_integer_is_one_based_with_weights() {
    let text = "%%MatrixMarket MATRIX Coordinate INTEGER General\n% comment\n\n3 3 3\n1 2 10\n3 1 30\n2 2 20\n";
    let g = read("m.mtx", text).unwrap();
    assert_eq!(int_rows(&g), vec![vec![(1, 10)], vec![(1, 20)], vec![(0, 30)]]);
    let z = graph::read(file("m.mtx.gz", &gzip(text.as_bytes())), &quiet()).unwrap();
    assert_eq!(z, g);
}

#[test]
fn matrix_market_symmetric_mirrors_off_diagonal_entries() {
    let text = "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 0.5\n3 3 2e0\n3 1 -1.5\n";
    let g = read("s.mtx", text).unwrap();
    assert_eq!(g.edges(), 5, "two mirrored entries, the diagonal once");
    assert_eq!(rows(&g), vec![vec![1, 2], vec![0], vec![2, 0]]);
    assert_eq!(g.weights, Weights::Real(vec![0.5, -1.5, 0.5, 2.0, -1.5]));
    assert_eq!(g.int_weights(), None);
}

#[test]
fn matrix_market_pattern_has_no_weights_and_may_be_rectangular() {
    let g = graph::read(
        file("p.mtx.gz", &gzip(b"%%matrixmarket matrix coordinate pattern general\n2 4 2\n1 4\n2 1\n")),
        &quiet(),
    )
    .unwrap();
    assert_eq!(g.vertices(), 4, "max(rows, columns)");
    assert_eq!(rows(&g), vec![vec![3], vec![0], vec![], vec![]]);
    assert_eq!(g.weights, Weights::None);
}

#[test]
fn dimacs_arcs_are_one_based_and_weighted() {
    let text = "c 9th DIMACS challenge\np sp 4 3\nc arcs\na 1 2 7\n\na 2 3 1\na 4 1 0\n";
    let g = read("road.gr", text).unwrap();
    assert_eq!(int_rows(&g), vec![vec![(1, 7)], vec![(2, 1)], vec![], vec![(0, 0)]]);
    assert_eq!(graph::read(file("road.gr.gz", &gzip(text.as_bytes())), &quiet()).unwrap(), g);
    assert_eq!(graph::read_dimacs(file("road.anything", text.as_bytes()), &quiet()).unwrap(), g);
}

#[test]
fn read_picks_the_format_by_extension() {
    // The same bytes mean different things under different names.
    let as_snap = "1 2 3\n";
    assert_eq!(int_rows(&read("x.el", as_snap).unwrap()), vec![vec![], vec![(2, 3)], vec![]]);
    assert_eq!(int_rows(&read("x.edges", as_snap).unwrap()), vec![vec![], vec![(2, 3)], vec![]]);
    check(&read("x.GR", as_snap).unwrap_err(), "x.GR", Some(1), &["unknown line type", "`1`"]);
    check(&read("x.mtx", as_snap).unwrap_err(), "x.mtx", Some(1), &["header"]);
    let mtx = "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n";
    assert_eq!(
        rows(&graph::read_matrix_market(file("x.txt", mtx.as_bytes()), &quiet()).unwrap()),
        vec![vec![1], vec![]]
    );
    assert!(
        graph::read_snap(file("y.txt", mtx.as_bytes()), &quiet()).is_err(),
        "`%%` is a comment, `2 2 1` a weighted edge, `1 2` lacks a weight"
    );
}

// ---- options, from_edges, transpose -------------------------------------------------

/// (0,3,9) (0,1,5) (0,1,2) (1,0,4) (2,2,1) (0,2,6) (0,1,7)
fn sample() -> Vec<(u32, u32, u32)> {
    vec![(0, 3, 9), (0, 1, 5), (0, 1, 2), (1, 0, 4), (2, 2, 1), (0, 2, 6), (0, 1, 7)]
}

#[test]
fn without_options_rows_keep_the_input_order() {
    let g = Graph::from_edges(4, sample(), true, &GraphOptions::default()).unwrap();
    assert_eq!(int_rows(&g), vec![vec![(3, 9), (1, 5), (1, 2), (2, 6), (1, 7)], vec![(0, 4)], vec![(2, 1)], vec![]]);
    let g = Graph::from_edges(4, sample(), false, &GraphOptions::default()).unwrap();
    assert_eq!(g.weights, Weights::None);
    assert_eq!(g.offsets, vec![0, 5, 6, 7, 7]);
}

#[test]
fn remove_duplicates_keeps_the_smallest_weight_and_sorts_rows() {
    let opts = GraphOptions { remove_duplicates: true, ..GraphOptions::default() };
    let g = Graph::from_edges(4, sample(), true, &opts).unwrap();
    assert_eq!(int_rows(&g), vec![vec![(1, 2), (2, 6), (3, 9)], vec![(0, 4)], vec![(2, 1)], vec![]]);
}

#[test]
fn remove_self_loops_drops_only_loops() {
    let opts = GraphOptions { remove_self_loops: true, ..GraphOptions::default() };
    let g = Graph::from_edges(4, sample(), true, &opts).unwrap();
    assert_eq!(int_rows(&g), vec![vec![(3, 9), (1, 5), (1, 2), (2, 6), (1, 7)], vec![(0, 4)], vec![], vec![]]);
}

#[test]
fn symmetrize_adds_reverses_in_input_order() {
    let opts = GraphOptions { symmetrize: true, ..GraphOptions::default() };
    let g = Graph::from_edges(4, vec![(0, 3, 9), (1, 0, 4), (2, 2, 1)], true, &opts).unwrap();
    assert_eq!(int_rows(&g), vec![vec![(3, 9), (1, 4)], vec![(0, 4)], vec![(2, 1)], vec![(0, 9)]]);
    let all = GraphOptions { symmetrize: true, remove_self_loops: true, remove_duplicates: true, quiet: true };
    let g = Graph::from_edges(4, sample(), true, &all).unwrap();
    assert_eq!(int_rows(&g), vec![vec![(1, 2), (2, 6), (3, 9)], vec![(0, 2)], vec![(0, 6)], vec![(0, 9)]]);
    // The options apply to files just the same.
    let g = graph::read(file("sym.txt", b"0 1\n1 1\n1 0\n"), &all).unwrap();
    assert_eq!(rows(&g), vec![vec![1], vec![0]]);
}

#[test]
fn from_edges_refuses_ids_outside_the_graph() {
    let e = Graph::from_edges(3, vec![(0, 1, 0), (1, 3, 0)], false, &GraphOptions::default()).unwrap_err();
    assert_eq!(e.path(), None);
    assert!(e.to_string().starts_with("edge list: "), "{e}");
    assert!(e.problem().contains("edge 1 (1, 3)") && e.problem().contains("3 vertices"), "{e}");
    let empty = Graph::from_edges(0, vec![], false, &GraphOptions::default()).unwrap();
    assert_eq!((empty.vertices(), empty.edges(), empty.max_degree()), (0, 0, 0));
}

/// The same CSR built the obvious way, to compare the parallel builder with.
fn reference(vertices: usize, edges: &[(u32, u32, u32)], opts: &GraphOptions) -> Vec<Vec<(u32, u32)>> {
    let mut rows = vec![Vec::new(); vertices];
    for &(u, v, w) in edges {
        if u != v || !opts.remove_self_loops {
            rows[u as usize].push((v, w));
        }
        if opts.symmetrize && u != v {
            rows[v as usize].push((u, w));
        }
    }
    if opts.remove_duplicates {
        for r in &mut rows {
            r.sort();
            r.dedup_by_key(|e| e.0);
        }
    }
    rows
}

#[test]
fn the_parallel_builder_matches_a_plain_one_on_every_option() {
    // Enough edges for many chunks and buckets, few enough vertices for many duplicates.
    let vertices = 10_000;
    let mut x = 12345u64;
    let mut next = || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) as u32
    };
    let edges: Vec<_> = (0..300_000).map(|_| (next() % vertices, next() % (vertices / 10), next() % 100)).collect();
    for bits in 0..8 {
        let opts = GraphOptions {
            symmetrize: bits & 1 != 0,
            remove_self_loops: bits & 2 != 0,
            remove_duplicates: bits & 4 != 0,
            quiet: true,
        };
        let g = Graph::from_edges(vertices as usize, edges.clone(), true, &opts).unwrap();
        assert_eq!(int_rows(&g), reference(vertices as usize, &edges, &opts), "{opts:?}");
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        assert_eq!(
            one.install(|| Graph::from_edges(vertices as usize, edges.clone(), true, &opts)).unwrap(),
            g,
            "one thread, {opts:?}"
        );
    }
}

#[test]
fn transpose_reverses_every_edge_and_keeps_weights() {
    let g = Graph::from_edges(4, sample(), true, &GraphOptions::default()).unwrap();
    let t = g.transpose();
    assert_eq!((t.vertices(), t.edges()), (4, 7));
    assert_eq!(int_rows(&t), vec![vec![(1, 4)], vec![(0, 5), (0, 2), (0, 7)], vec![(0, 6), (2, 1)], vec![(0, 9)]]);
    let back = t.transpose();
    let sorted = |g: &Graph| {
        int_rows(g)
            .into_iter()
            .map(|mut r| {
                r.sort();
                r
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(sorted(&back), sorted(&g));
    let real = read("r.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.25\n").unwrap().transpose();
    assert_eq!((rows(&real), real.weights), (vec![vec![], vec![0]], Weights::Real(vec![0.25])));
}

// ---- malformed input ----------------------------------------------------------------

#[test]
fn snap_errors_name_the_file_line_and_token() {
    check(&read_err("bad.txt", b"0 1\n0 x1\n"), "bad.txt", Some(2), &["`x1`", "not an unsigned integer"]);
    check(&read_err("short.txt", b"# c\n0 1\n7\n"), "short.txt", Some(3), &["ends before the target id"]);
    check(&read_err("big.txt", b"0 4294967295\n"), "big.txt", Some(1), &["`4294967295`", "out of range", "4294967294"]);
    check(&read_err("huge.txt", b"0 1\n99999999999999999999999 1\n"), "huge.txt", Some(2), &["out of range"]);
    check(&read_err("neg.txt", b"-1 2\n"), "neg.txt", Some(1), &["`-1`", "negative"]);
    check(&read_err("empty.txt", b""), "empty.txt", None, &["no edges"]);
    check(&read_err("comments.txt", b"# only\n\n"), "comments.txt", Some(2), &["no edges"]);
    check(&read_err("wneg.txt", b"0 1 -4\n"), "wneg.txt", Some(1), &["`-4`", "negative"]);
}

const MTX: &str = "%%MatrixMarket matrix coordinate integer general\n";

#[test]
fn matrix_market_errors_name_the_file_line_and_problem() {
    let bad = |body: &str| read_err("m.mtx", format!("{MTX}{body}").as_bytes());
    check(&read_err("h.mtx", b"3 3 1\n1 1 1\n"), "h.mtx", Some(1), &["missing the Matrix Market header", "`3 3 1`"]);
    check(&read_err("e.mtx", b""), "e.mtx", None, &["empty", "header"]);
    for (header, word) in [
        ("%%MatrixMarket matrix array real general", "`array`"),
        ("%%MatrixMarket matrix coordinate complex general", "`complex`"),
        ("%%MatrixMarket matrix coordinate real hermitian", "`hermitian`"),
        ("%%MatrixMarket matrix coordinate real skew-symmetric", "`skew-symmetric`"),
        ("%%MatrixMarket vector coordinate real general", "`vector`"),
    ] {
        let e = read_err("u.mtx", format!("{header}\n2 2 1\n1 1 1\n").as_bytes());
        check(&e, "u.mtx", Some(1), &[word, "supported", "coordinate <pattern|integer|real> <general|symmetric>"]);
    }
    check(&bad("% c\n"), "m.mtx", Some(2), &["ends before the size line"]);
    check(&bad("3 3\n"), "m.mtx", Some(2), &["entry count"]);
    check(&bad("3 x 1\n"), "m.mtx", Some(2), &["`x`", "column count"]);
    check(&bad("3 3 2\n1 1 1\n0 2 1\n"), "m.mtx", Some(4), &["row index", "`0`", "from 1"]);
    check(&bad("3 3 2\n1 1 1\n2 4 1\n"), "m.mtx", Some(4), &["column index", "`4`", "out of range", "at most 3"]);
    check(&bad("3 3 1\n1 2 -3\n"), "m.mtx", Some(3), &["`-3`", "negative"]);
    check(&bad("3 3 1\n1 2 1.5\n"), "m.mtx", Some(3), &["`1.5`", "not a non-negative integer"]);
    check(&bad("3 3 1\n1 2\n"), "m.mtx", Some(3), &["ends before the weight"]);
    check(&bad("3 3 1\n1 2 3 4\n"), "m.mtx", Some(3), &["unexpected field `4`"]);
    check(&bad("3 3 3\n1 1 1\n% c\n2 2 2\n"), "m.mtx", Some(5), &["ends after 2 of the 3 entries", "line 2"]);
    check(&bad("3 3 1\n1 1 1\n2 2 2\n"), "m.mtx", Some(4), &["more entries than the 1", "line 2"]);
    let real = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 abc\n";
    check(&read_err("r.mtx", real.as_bytes()), "r.mtx", Some(3), &["`abc`", "not a real number"]);
    let sym = "%%MatrixMarket matrix coordinate pattern symmetric\n2 3 1\n1 2\n";
    check(&read_err("s.mtx", sym.as_bytes()), "s.mtx", Some(2), &["square", "2 x 3"]);
}

#[test]
fn dimacs_errors_name_the_file_line_and_problem() {
    let bad = |text: &str| read_err("d.gr", text.as_bytes());
    check(&bad("c x\na 1 2 3\np sp 2 1\n"), "d.gr", Some(2), &["arc before the problem line"]);
    check(&bad("c only comments\n"), "d.gr", Some(1), &["no problem line"]);
    check(&bad(""), "d.gr", None, &["no problem line"]);
    check(&bad("p max 2 1\na 1 2 3\n"), "d.gr", Some(1), &["`max`", "p sp"]);
    check(&bad("p sp 2\n"), "d.gr", Some(1), &["arc count"]);
    check(&bad("p sp 2 1\np sp 2 1\n"), "d.gr", Some(2), &["second problem line", "line 1"]);
    check(&bad("p sp 2 2\na 1 2 3\n"), "d.gr", Some(2), &["ends after 1 of the 2 arcs", "line 1"]);
    check(&bad("p sp 2 1\na 1 2 3\na 2 1 3\n"), "d.gr", Some(3), &["more arcs than the 1", "line 1"]);
    check(&bad("p sp 2 1\na 0 2 3\n"), "d.gr", Some(2), &["arc source", "`0`", "from 1"]);
    check(&bad("p sp 2 1\na 1 3 3\n"), "d.gr", Some(2), &["arc target", "`3`", "out of range"]);
    check(&bad("p sp 2 1\na 1 2 -3\n"), "d.gr", Some(2), &["`-3`", "negative"]);
    check(&bad("p sp 2 1\na 1 2\n"), "d.gr", Some(2), &["ends before the weight"]);
    check(&bad("p sp 2 1\ne 1 2\n"), "d.gr", Some(2), &["unknown line type `e`"]);
    check(&bad("p sp 2 1\na 1 2 99999999999\n"), "d.gr", Some(2), &["`99999999999`", "out of range"]);
}

#[test]
fn corrupt_or_truncated_gzip_is_an_error_not_a_smaller_graph() {
    let text: String = (0..20_000).map(|i| format!("{} {}\n", i, (i * 7919) % 20_000)).collect();
    let z = gzip(text.as_bytes());
    let truncated = &z[..z.len() / 2];
    let e = read_err("cut.txt.gz", truncated);
    assert_eq!(e.path().unwrap().file_name().unwrap(), "cut.txt.gz");
    assert!(e.line().is_some_and(|l| l > 1), "names the line being read: {e}");
    assert!(e.problem().contains("gzip"), "{e}");
    let mut corrupt = z.clone();
    for b in &mut corrupt[z.len() / 3..z.len() / 3 + 64] {
        *b ^= 0x5a;
    }
    let e = read_err("bad.txt.gz", &corrupt);
    assert!(e.problem().contains("gzip") && e.line().is_some(), "{e}");
    // A damaged checksum: every byte decodes, but the data is not what was compressed.
    let mut crc = z.clone();
    let n = crc.len();
    crc[n - 8] ^= 1;
    let e = read_err("crc.txt.gz", &crc);
    assert!(e.problem().contains("gzip"), "{e}");
    // Only the magic bytes.
    check(&read_err("magic.txt.gz", &[0x1f, 0x8b]), "magic.txt.gz", Some(1), &["gzip"]);
}

#[test]
fn a_missing_file_is_named() {
    let path = std::env::temp_dir().join("wsdsl-graph-input-no-such-dir/none.mtx");
    let e = graph::read(&path, &quiet()).unwrap_err();
    assert_eq!(e.path(), Some(path.as_path()));
    assert_eq!(e.line(), None);
    assert!(e.to_string().starts_with(&format!("{}: ", path.display())) && e.problem().contains("cannot open"), "{e}");
}

#[test]
fn graph_errors_convert_into_the_runtime_error() {
    fn load(path: &Path) -> Result<usize, wsdsl_runtime::Error> {
        Ok(graph::read(path, &quiet())?.vertices())
    }
    let path = file("bad.txt", b"0 z\n");
    let e = load(path.as_ref()).unwrap_err();
    assert!(matches!(&e, wsdsl_runtime::Error::Graph(g) if g.line() == Some(1)), "{e:?}");
    assert_eq!(e.to_string(), graph::read(&path, &quiet()).unwrap_err().to_string());
    assert_eq!(load(file("ok.txt", b"0 3\n").as_ref()).unwrap(), 4);
}

// ---- R-MAT --------------------------------------------------------------------------

fn rmat(scale: u32, seed: u64, weighted: bool) -> Rmat {
    Rmat { scale, edge_factor: 8, seed, weighted }
}

#[test]
fn rmat_is_deterministic_for_a_seed_on_any_thread_count() {
    let g = rmat(14, 1, false).generate(&quiet()).unwrap();
    assert_eq!((g.vertices(), g.edges()), (1 << 14, 8 << 14));
    assert_eq!(rmat(14, 1, false).generate(&quiet()).unwrap(), g, "same seed, same graph");
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        assert_eq!(pool.install(|| rmat(14, 1, false).generate(&quiet())).unwrap(), g, "{threads} threads");
    }
    let other = rmat(14, 2, false).generate(&quiet()).unwrap();
    assert_eq!(other.edges(), g.edges());
    let same = g.targets.iter().zip(&other.targets).filter(|(a, b)| a == b).count();
    assert!(same < g.edges() / 10, "a different seed gives a different graph ({same} targets agree)");
}

#[test]
fn rmat_is_skewed_and_weights_do_not_change_the_edges() {
    let g = rmat(14, 5, false).generate(&quiet()).unwrap();
    let w = rmat(14, 5, true).generate(&quiet()).unwrap();
    assert_eq!((&w.offsets, &w.targets), (&g.offsets, &g.targets));
    let weights = w.int_weights().unwrap();
    assert!(weights.iter().all(|&x| (1..=255).contains(&x)));
    assert_eq!((*weights.iter().min().unwrap(), *weights.iter().max().unwrap()), (1, 255));
    // Average degree 8; R-MAT's hubs are hundreds of times that, and many vertices are isolated.
    assert!(g.max_degree() > 200, "max degree {}", g.max_degree());
    let isolated = (0..g.vertices() as u32).filter(|&v| g.degree(v) == 0).count();
    assert!(isolated > g.vertices() / 10, "{isolated} isolated");
    // The scramble spreads the hubs: vertex 0 is not the biggest, as it would be unscrambled.
    let hub = (0..g.vertices() as u32).max_by_key(|&v| g.degree(v)).unwrap();
    assert_ne!(hub, 0);
}

#[test]
fn rmat_options_remove_loops_and_duplicates_and_symmetrize() {
    let raw = rmat(12, 3, true).generate(&quiet()).unwrap();
    let loops = |g: &Graph| {
        (0..g.vertices() as u32).map(|v| g.neighbours(v).iter().filter(|&&t| t == v).count()).sum::<usize>()
    };
    assert!(loops(&raw) > 0, "R-MAT makes self-loops");
    let opts = GraphOptions { symmetrize: true, remove_self_loops: true, remove_duplicates: true, quiet: true };
    let g = rmat(12, 3, true).generate(&opts).unwrap();
    assert_eq!(loops(&g), 0);
    assert!((0..g.vertices() as u32).all(|v| g.neighbours(v).windows(2).all(|p| p[0] < p[1])), "sorted, no duplicates");
    assert_eq!(g.transpose(), g, "symmetric, with the smallest weight in both directions");
    assert!(g.edges() < 2 * raw.edges());
}

#[test]
fn rmat_refuses_impossible_sizes() {
    let e = Rmat { scale: 32, edge_factor: 1, seed: 0, weighted: false }.generate(&quiet()).unwrap_err();
    assert!(e.to_string().starts_with("R-MAT: ") && e.problem().contains("scale 32"), "{e}");
    assert_eq!((e.path(), e.line()), (None, None));
    let e = Rmat { scale: 28, edge_factor: 16, seed: 0, weighted: false }.generate(&quiet()).unwrap_err();
    assert!(e.problem().contains("4294967296 edges") && e.problem().contains("32-bit"), "{e}");
    let e = Rmat { scale: 4, edge_factor: 0, seed: 0, weighted: false }.generate(&quiet()).unwrap_err();
    assert!(e.problem().contains("edge factor"), "{e}");
}

// ---- a real graph -------------------------------------------------------------------

/// Vertices reached from `root` and the largest BFS depth.
fn bfs(g: &Graph, root: u32) -> (usize, u32) {
    let mut depth = vec![u32::MAX; g.vertices()];
    depth[root as usize] = 0;
    let mut frontier = vec![root];
    let (mut reached, mut level) = (1, 0);
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for &u in &frontier {
            for &v in g.neighbours(u) {
                if depth[v as usize] == u32::MAX {
                    depth[v as usize] = level + 1;
                    next.push(v);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        reached += next.len();
        level += 1;
        frontier = next;
    }
    (reached, level)
}

#[test]
fn gnutella_has_the_published_size_and_bfs() {
    let g = graph::read(GNUTELLA, &quiet()).unwrap();
    assert_eq!((g.vertices(), g.edges()), (62_586, 147_892));
    assert_eq!(g.weights, Weights::None);
    assert_eq!(bfs(&g, 0), (60_826, 25));
    let t = g.transpose();
    assert_eq!(t.edges(), g.edges());
    assert_eq!((0..g.vertices() as u32).map(|v| t.degree(v) as usize).sum::<usize>(), 147_892);
}

/// `cargo test --release -p wsdsl-runtime --test graph_input -- --ignored --nocapture`;
/// `WSDSL_RMAT_SCALES=20,24` picks the R-MAT scales (edge factor 16, as Graph500);
/// `WSDSL_GRAPH_FILE=path` also times reading that file.
#[test]
#[ignore = "timing; run in release"]
fn time_reading_and_generating() {
    let best = |f: &dyn Fn()| {
        (0..5)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .min()
            .unwrap()
    };
    let read = best(&|| assert_eq!(graph::read(GNUTELLA, &quiet()).unwrap().edges(), 147_892));
    println!("read p2p-Gnutella31.txt.gz: {read:?} (best of 5)");
    if let Ok(path) = std::env::var("WSDSL_GRAPH_FILE") {
        let t = Instant::now();
        // Not quiet: on a terminal, large files show their progress bar.
        let g = graph::read(&path, &GraphOptions::default()).unwrap();
        println!("read {path}: {} vertices, {} edges in {:?}", g.vertices(), g.edges(), t.elapsed());
    }
    let threads = rayon::current_num_threads();
    let scales = std::env::var("WSDSL_RMAT_SCALES").unwrap_or_else(|_| "20".into());
    let dedup = GraphOptions { symmetrize: true, remove_self_loops: true, remove_duplicates: true, quiet: true };
    for scale in scales.split(',').map(|s| s.trim().parse::<u32>().expect("WSDSL_RMAT_SCALES: comma-separated scales"))
    {
        for (weighted, opts, what) in [
            (false, GraphOptions::default(), "plain"),
            (true, quiet(), "weighted"),
            (false, dedup.clone(), "symmetrized, deduplicated"),
        ] {
            let t = Instant::now();
            let g = Rmat { scale, edge_factor: 16, seed: 1, weighted }.generate(&opts).unwrap();
            println!(
                "R-MAT scale {scale}, edge factor 16, {what}: {} edges in {:?} on {threads} threads",
                g.edges(),
                t.elapsed()
            );
        }
    }
}

// ---- writing graphs for other programs -------------------------------------------------

/// Writes `g` as `name` and reads it back with `opts`.
fn round_trip(g: &Graph, name: &str, pairs: graph::Pairs, opts: &GraphOptions) -> Graph {
    let dir = file("placeholder", b"");
    let path = dir.0.with_file_name(name);
    graph::write(g, &path, pairs).unwrap_or_else(|e| panic!("{name}: {e}"));
    graph::read(&path, opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_format_reads_back_as_the_same_csr() {
    let clean = |symmetrize| GraphOptions { symmetrize, remove_self_loops: false, remove_duplicates: true, quiet: true };
    let grid = graph::Grid { rows: 30, columns: 20, delete: 0.2, seed: 3, weighted: true }.generate().unwrap();
    // The last vertex has an edge, so the id-only formats know the vertex count too.
    assert!(grid.degree(grid.vertices() as u32 - 1) > 0);
    let unweighted = Graph { weights: Weights::None, ..grid.clone() };
    for (name, pairs, symmetrize) in [
        ("g.wel", graph::Pairs::All, false),
        ("g.wel", graph::Pairs::Once, true),
        ("g.gr", graph::Pairs::All, false),
        ("g.gr", graph::Pairs::Once, true),
        ("g.mtx", graph::Pairs::All, false),
        // A symmetric .mtx file mirrors itself: no option needed.
        ("g.mtx", graph::Pairs::Once, false),
    ] {
        assert_eq!(round_trip(&grid, name, pairs, &clean(symmetrize)), grid, "{name}, {pairs:?}");
    }
    for (name, pairs, symmetrize) in [("g.el", graph::Pairs::All, false), ("g.el", graph::Pairs::Once, true), ("g.mtx", graph::Pairs::Once, false)] {
        assert_eq!(round_trip(&unweighted, name, pairs, &clean(symmetrize)), unweighted, "{name}, {pairs:?} (no weights)");
    }
    // A directed graph with self-loops and real weights, every edge as it is.
    let text = "%%MatrixMarket matrix coordinate real general\n4 4 5\n1 2 0.1\n2 2 3.5\n4 1 1e-7\n1 3 2\n3 4 -8.25\n";
    let real = read("real.mtx", text).unwrap();
    let opts = GraphOptions { quiet: true, ..GraphOptions::default() };
    assert_eq!(round_trip(&real, "r.mtx", graph::Pairs::All, &opts), real);
    let rmat = Rmat { scale: 9, edge_factor: 8, seed: 2, weighted: true }.generate(&clean(false)).unwrap();
    assert_eq!(round_trip(&rmat, "r.gr", graph::Pairs::All, &clean(false)), rmat, "directed R-MAT");
}

#[test]
fn writing_refuses_what_the_format_cannot_hold() {
    let dir = file("placeholder", b"");
    let at = |name: &str| dir.0.with_file_name(name);
    let directed = read("d.txt", "0 1 5\n1 2 6\n").unwrap();
    let e = graph::write(&directed, at("d.el"), graph::Pairs::Once).unwrap_err();
    check(&e, "d.el", None, &["not symmetric", "write them all"]);
    let unweighted = read("u.txt", "0 1\n").unwrap();
    check(&graph::write(&unweighted, at("u.wel"), graph::Pairs::All).unwrap_err(), "u.wel", None, &["needs edge weights"]);
    check(&graph::write(&unweighted, at("u.gr"), graph::Pairs::All).unwrap_err(), "u.gr", None, &["needs edge weights"]);
    let real = read("r.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.5\n").unwrap();
    check(&graph::write(&real, at("r.wel"), graph::Pairs::All).unwrap_err(), "r.wel", None, &["integer weights", "real numbers"]);
    check(&graph::write(&directed, at("d.csv"), graph::Pairs::All).unwrap_err(), "d.csv", None, &["unknown graph format", ".el, .wel, .gr or .mtx"]);
    let e = graph::write(&directed, dir.0.with_file_name("missing-dir").join("x.el"), graph::Pairs::All).unwrap_err();
    assert!(e.problem().contains("cannot write the graph file"), "{e}");
    // What was written, for a glance: `.wel` lines are `u v w`, `.gr` is 1-based with a problem line.
    graph::write(&directed, at("d.wel"), graph::Pairs::All).unwrap();
    assert_eq!(std::fs::read_to_string(at("d.wel")).unwrap(), "0 1 5\n1 2 6\n");
    graph::write(&directed, at("d.gr"), graph::Pairs::All).unwrap();
    assert_eq!(std::fs::read_to_string(at("d.gr")).unwrap(), "p sp 3 2\na 1 2 5\na 2 3 6\n");
}
