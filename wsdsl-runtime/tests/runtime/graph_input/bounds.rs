//! What the reader bounds or refuses: files that claim more than they hold, memory while
//! reading (a test allocator that fails large allocations on one thread), and real weights
//! taken only when the file's number is whole and in range.

use super::*;

// ---- files that claim more than they hold -----------------------------------------------

/// A tiny file naming a huge vertex id, or a header declaring billions of vertices, is
/// refused with what it claims before the 16 GiB of row offsets are allocated (reading it
/// as it claims would allocate them, or abort under a memory limit).
#[test]
fn a_tiny_file_claiming_billions_of_vertices_is_refused_before_allocating() {
    let started = Instant::now();
    let snap = b"1 2\n0 4294967294\n";
    assert_eq!(snap.len(), 17);
    let e = read_err("huge.txt", snap);
    check(&e, "huge.txt", Some(2), &["names vertex 4294967294", "4294967295 vertices", "16.0 GiB", "2 edges", "sparse"]);
    let e = read_err("huge.gr", b"p sp 4294967295 0\n");
    check(&e, "huge.gr", Some(1), &["problem line declares 4294967295 vertices", "0 edges", "sparse"]);
    let mtx = b"%%MatrixMarket matrix coordinate pattern general\n4294967295 4294967295 1\n1 1\n";
    let e = read_err("huge.mtx", mtx);
    check(&e, "huge.mtx", Some(2), &["4294967295 x 4294967295 matrix", "1 edge,", "sparse"]);
    assert!(started.elapsed().as_secs() < 5, "refused at once, not after touching gigabytes: {:?}", started.elapsed());
}

#[test]
fn sparse_ids_below_the_limit_still_read() {
    // 16 M vertices for one edge is a lot of empty rows, but only 64 MiB: not refused.
    let g = read("sparse.txt", "0 16777215\n").unwrap();
    assert_eq!((g.vertices(), g.edges()), (1 << 24, 1));
    // Above 16 M vertices, 16 per edge still reads (a graph with many isolated vertices).
    let g = read("sparse.gr", "p sp 32 2\na 1 32 5\na 32 1 5\n").unwrap();
    assert_eq!((g.vertices(), g.edges()), (32, 2));
}

// ---- memory while reading ------------------------------------------------------------

/// The allocator of this test binary: the system's, except that an allocation larger than
/// the calling thread's `ALLOCATION_LIMIT` fails, as it would on a machine short of memory.
/// Per thread, so that the other tests running meanwhile are not limited; the parser fills
/// the edge list on the thread that called the reader.
struct Limited;

std::thread_local! {
    static ALLOCATION_LIMIT: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
}

fn allowed(size: usize) -> bool {
    size <= ALLOCATION_LIMIT.try_with(std::cell::Cell::get).unwrap_or(usize::MAX)
}

// SAFETY: every call is passed on to `System` unchanged, or fails (null) without allocating.
unsafe impl std::alloc::GlobalAlloc for Limited {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if !allowed(layout.size()) {
            return std::ptr::null_mut();
        }
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        if !allowed(layout.size()) {
            return std::ptr::null_mut();
        }
        unsafe { std::alloc::System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        if !allowed(new_size) {
            return std::ptr::null_mut();
        }
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Limited = Limited;

/// Runs `f` with allocations on this thread limited to `bytes` each.
fn with_allocations_up_to<T>(bytes: usize, f: impl FnOnce() -> T) -> T {
    ALLOCATION_LIMIT.with(|l| l.set(bytes));
    let result = f();
    ALLOCATION_LIMIT.with(|l| l.set(usize::MAX));
    result
}

/// `copies` lines `0 1` after `header`, gzipped (4 bytes a line compress to almost nothing).
fn copies_of_one_edge(header: &str, line: &str, copies: usize) -> Vec<u8> {
    let mut z = GzEncoder::new(Vec::new(), Compression::fast());
    z.write_all(header.as_bytes()).unwrap();
    let block = line.repeat(1 << 16);
    for _ in 0..copies >> 16 {
        z.write_all(block.as_bytes()).unwrap();
    }
    z.finish().unwrap()
}

/// Millions of copies of one edge (a few kilobytes of gzip) are one edge once duplicates are
/// removed, and the reader keeps its edge list to about that: with no allocation over 16 MiB
/// allowed, 2 M copies (24 MiB as a list) read, in every format. Kept, they need the list,
/// and the allocation that fails is an `OutOfMemory` error naming the file, after which the
/// next read works.
#[test]
fn copies_of_one_edge_read_in_bounded_memory_and_a_list_too_large_is_out_of_memory() {
    const COPIES: usize = 2 << 20;
    const LIMIT: usize = 16 << 20;
    let dedup = GraphOptions { remove_duplicates: true, quiet: true, ..GraphOptions::default() };
    for (name, header, line) in [
        ("copies.txt.gz", String::new(), "0 1\n"),
        ("copies.mtx.gz", format!("%%MatrixMarket matrix coordinate integer general\n2 2 {COPIES}\n"), "1 2 5\n"),
        ("copies.gr.gz", format!("p sp 2 {COPIES}\n"), "a 1 2 5\n"),
    ] {
        let path = file(name, &copies_of_one_edge(&header, line, COPIES));
        let started = Instant::now();
        let g = with_allocations_up_to(LIMIT, || graph::read(&path, &dedup)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((g.vertices(), rows(&g)), (2, vec![vec![1], vec![]]), "{name}");
        let e = with_allocations_up_to(LIMIT, || graph::read(&path, &quiet())).map(|g| g.edges()).unwrap_err();
        assert!(e.problem().contains("out of memory") && e.out_of_memory().is_some_and(|b| b >= LIMIT as u64 / 2), "{e}");
        assert_eq!(e.path(), Some(path.as_ref()), "{e}");
        let shown = e.to_string();
        match wsdsl_runtime::Error::from(e) {
            wsdsl_runtime::Error::OutOfMemory { file: Some(f), .. } => assert_eq!(f, path.as_ref(), "{shown}"),
            other => panic!("{name}: not OutOfMemory naming the file: {other:?}"),
        }
        // Nothing lost: the same file reads in full without the limit.
        assert_eq!(graph::read(&path, &quiet()).unwrap().edges(), COPIES, "{name}");
        assert!(started.elapsed().as_secs() < 10, "{name}: {:?}", started.elapsed());
    }
}

/// Dropping duplicates while the list fills gives the graph that dropping them at the end
/// gives: the smallest weight of every pair (integer or real), rows sorted, with and without
/// symmetrizing. 400 K entries over 200 vertices fill the list many times over.
#[test]
fn duplicates_dropped_while_reading_give_the_graph_dropping_them_at_the_end_gives() {
    let mut x = 7u64;
    let mut next = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    let triples: Vec<(u32, u32, u32)> = (0..400_000).map(|_| (next(200) as u32, next(200) as u32, next(50) as u32)).collect();
    let snap: String = triples.iter().map(|(u, v, w)| format!("{u} {v} {w}\n")).collect();
    let mut real = format!("%%MatrixMarket matrix coordinate real general\n200 200 {}\n", triples.len());
    real.extend(triples.iter().map(|(u, v, w)| format!("{} {} {}.{}5\n", u + 1, v + 1, w / 10, w % 10)));
    for symmetrize in [false, true] {
        let opts = GraphOptions { symmetrize, remove_duplicates: true, quiet: true, ..GraphOptions::default() };
        let g = graph::read(file("dups.txt", snap.as_bytes()), &opts).unwrap();
        assert_eq!(g, Graph::from_edges(200, triples.clone(), true, &opts).unwrap(), "symmetrize {symmetrize}");
        // The real weights w / 10 + 0.05: the smallest of each pair, as a map from the entries.
        let mut least = std::collections::BTreeMap::new();
        for &(u, v, w) in &triples {
            let value: f64 = format!("{}.{}5", w / 10, w % 10).parse().unwrap();
            let mut keep = |key| {
                let at = least.entry(key).or_insert(value);
                *at = f64::min(*at, value);
            };
            keep((u, v));
            if symmetrize && u != v {
                keep((v, u));
            }
        }
        let r = graph::read(file("dups.mtx", real.as_bytes()), &opts).unwrap();
        let Weights::Real(w) = &r.weights else { panic!("real weights") };
        let got: Vec<((u32, u32), f64)> =
            (0..200u32).flat_map(|u| (r.offsets[u as usize]..r.offsets[u as usize + 1]).map(move |k| (u, k))).map(|(u, k)| ((u, r.targets[k as usize]), w[k as usize])).collect();
        assert_eq!(got, least.into_iter().collect::<Vec<_>>(), "symmetrize {symmetrize}");
    }
}

// ---- real weights for shortest paths ----------------------------------------------------

#[test]
fn real_weights_are_taken_when_whole_and_refused_with_the_edge_otherwise() {
    let mtx = |values: [&str; 2]| {
        format!("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 {}\n3 1 {}\n", values[0], values[1])
    };
    let g = read("whole.mtx", &mtx(["2.0", "7"])).unwrap();
    assert_eq!(g.integer_weights().unwrap(), Some(vec![2, 7]));
    let e = read("neg.mtx", &mtx(["2.0", "-1.5"])).unwrap().integer_weights().unwrap_err();
    assert_eq!(e.path(), None);
    assert!(e.to_string().starts_with("weights: the edge from vertex 2 to vertex 0"), "{e}");
    assert!(e.problem().contains("negative weight -1.5") && e.problem().contains("non-negative"), "{e}");
    let e = read("frac.mtx", &mtx(["0.25", "3"])).unwrap().integer_weights().unwrap_err();
    assert!(e.problem().contains("vertex 0 to vertex 1") && e.problem().contains("0.25, not a whole number"), "{e}");
    let e = read("big.mtx", &mtx(["1e12", "3"])).unwrap().integer_weights().unwrap_err();
    assert!(e.problem().contains("more than the largest integer weight"), "{e}");
    // Integer weights pass through, and a graph without weights has none to give.
    assert_eq!(read("int.gr", "p sp 2 1\na 1 2 9\n").unwrap().integer_weights().unwrap(), Some(vec![9]));
    assert_eq!(read("none.txt", "0 1\n").unwrap().integer_weights().unwrap(), None);
}

/// A real weight is whole, or in range, when the file's number is, not when a rounded copy
/// of it is: 0.99999999 is a fraction, 16777217.0 is 16777217 and 4294967295.0 the largest
/// integer weight; what is refused is named by the number the file writes.
#[test]
fn real_weights_are_judged_on_what_the_file_says() {
    let mtx = |values: &[&str]| {
        let entries: String = values.iter().enumerate().map(|(i, w)| format!("{} {} {w}\n", i + 1, i + 2)).collect();
        format!("%%MatrixMarket matrix coordinate real general\n4 4 {}\n{entries}", values.len())
    };
    let e = read("near.mtx", &mtx(&["0.99999999", "1.99999999"])).unwrap().integer_weights().unwrap_err();
    assert!(e.problem().contains("weight 0.99999999, not a whole number"), "{e}");
    let g = read("wide.mtx", &mtx(&["16777217.0", "4294967295.0", "16777216"])).unwrap();
    assert_eq!(g.integer_weights().unwrap(), Some(vec![16777217, 4294967295, 16777216]));
    let e = read("over.mtx", &mtx(&["4294967296.0"])).unwrap().integer_weights().unwrap_err();
    assert!(e.problem().contains("weight 4294967296, more than the largest integer weight 4294967295"), "{e}");
    // More digits than a 64-bit float holds, so near a whole number that the nearest float
    // is one: refused at the line, by its text, rather than read as the whole number.
    for (text, nearest) in [("0.99999999999999999", "1"), ("4294967295.0000000001", "4294967295"), ("1e-400", "0"), ("-1e-400", "0")] {
        let e = read_err("close.mtx", mtx(&[text]).as_bytes());
        check(&e, "close.mtx", Some(3), &[&format!("`{text}`"), "not a whole number", &format!("the nearest 64-bit float is {nearest}")]);
    }
    // Too large for any float, and not a number at all.
    check(&read_err("inf.mtx", mtx(&["1e400"]).as_bytes()), "inf.mtx", Some(3), &["`1e400`", "too large"]);
    check(&read_err("nan.mtx", mtx(&["nan"]).as_bytes()), "nan.mtx", Some(3), &["`nan`", "not a finite number"]);
    // Fractions that floats round are still read (as their nearest 64-bit float).
    assert_eq!(read("tenth.mtx", &mtx(&["0.1", "-0"])).unwrap().weights, Weights::Real(vec![0.1, -0.0]));
}

