//! The binary cache of parsed graph files (`wsdsl::graph::GraphCache`): a second read loads
//! the CSR the first one parsed, the same graph; a damaged entry, whatever the damage, is
//! parsed again with a warning, never used; a changed file is parsed again without one; and a
//! cache that cannot be used costs the cache, not the read.

use std::path::{Path, PathBuf};
use wsdsl::graph::{self, Geometric, Graph, GraphCache, GraphOptions, Loaded, Pairs, Rmat};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wsdsl-graph-cache-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Waits until files written before are older than the cache trusts (a second): their
/// entries are then cached at once.
fn settle() {
    std::thread::sleep(std::time::Duration::from_millis(1100));
}

fn opts(symmetrize: bool) -> GraphOptions {
    GraphOptions { symmetrize, remove_self_loops: true, remove_duplicates: true, quiet: true }
}

const GNUTELLA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/graphs/p2p-Gnutella31.txt.gz");

/// Graph files of every format and weight kind, written into `dir`.
fn files(dir: &Path) -> Vec<PathBuf> {
    let road = Geometric { vertices: 3_000, degree: 5.0, seed: 2, weighted: true }.generate().unwrap();
    let skewed = Rmat { scale: 10, edge_factor: 8, seed: 2, weighted: true }.generate(&opts(false)).unwrap();
    let (gr, wel) = (dir.join("road.gr"), dir.join("skewed.wel"));
    graph::write(&road, &gr, Pairs::All).unwrap();
    graph::write(&skewed, &wel, Pairs::All).unwrap();
    // Real weights, a symmetric matrix.
    let mtx = dir.join("real.mtx");
    std::fs::write(&mtx, "%%MatrixMarket matrix coordinate real symmetric\n4 4 3\n2 1 1.5\n3 2 0.25\n4 1 7e-1\n").unwrap();
    vec![PathBuf::from(GNUTELLA), gr, wel, mtx]
}

#[test]
fn a_second_read_loads_the_binary_form_of_the_same_graph() {
    let dir = scratch("hit");
    let cache = GraphCache::in_dir(dir.join("cache"));
    let files = files(&dir);
    settle();
    for file in files {
        for symmetrize in [false, true] {
            let parsed = graph::read(&file, &opts(symmetrize)).unwrap();
            let (first, loaded) = cache.read(&file, &opts(symmetrize)).unwrap();
            assert_eq!((first == parsed, loaded), (true, Loaded::Parsed), "{}, symmetrize {symmetrize}", file.display());
            let (second, loaded) = cache.read(&file, &opts(symmetrize)).unwrap();
            assert_eq!((second == parsed, loaded), (true, Loaded::Cached), "{}, symmetrize {symmetrize}", file.display());
        }
        // The options shape the graph, so each has an entry of its own.
        assert_ne!(cache.entry_path(&file, &opts(false)).unwrap(), cache.entry_path(&file, &opts(true)).unwrap());
    }
    assert!(matches!(graph::read(dir.join("real.mtx"), &opts(false)).unwrap().weights, graph::Weights::Real(_)));
    std::fs::remove_dir_all(dir).unwrap();
}

/// Damages the entry of `file` with `damage` (in a cache of its own, named `name`), then
/// reads: the graph is parsed again (the same as the reader's), the reason names the damage,
/// and the entry is written anew.
fn damaged(file: &Path, name: &str, damage: impl Fn(&Path), says: &str) {
    let cache = GraphCache::in_dir(file.with_file_name(format!("cache-{name}")));
    let parsed = graph::read(file, &opts(false)).unwrap();
    assert_eq!(cache.read(file, &opts(false)).unwrap().1, Loaded::Parsed, "{name}");
    let entry = cache.entry_path(file, &opts(false)).unwrap();
    damage(&entry);
    let (again, loaded) = cache.read(file, &opts(false)).unwrap();
    assert!(again == parsed, "{name}: the graph parsed again is the file's");
    match loaded {
        Loaded::Reparsed(why) => assert!(why.contains(says), "{name}: {why} (want {says:?})"),
        other => panic!("{name}: expected a parse after damage, got {other:?}"),
    }
    let (third, loaded) = cache.read(file, &opts(false)).unwrap();
    assert_eq!((third == parsed, loaded), (true, Loaded::Cached), "{name}: written anew");
}

/// Where an entry's payload starts: after the magic, seven words, the two texts and the
/// header's digest.
fn payload(bytes: &[u8]) -> u64 {
    let word = |k: usize| u64::from_le_bytes(bytes[16 + 8 * k..24 + 8 * k].try_into().unwrap());
    16 + 7 * 8 + word(0) + word(1) + 8
}

fn flip(at: impl Fn(&[u8]) -> u64) -> impl Fn(&Path) {
    move |entry: &Path| {
        let mut bytes = std::fs::read(entry).unwrap();
        let k = at(&bytes) as usize;
        bytes[k] ^= 0x10;
        std::fs::write(entry, bytes).unwrap();
    }
}

#[test]
fn a_damaged_entry_is_parsed_again_and_never_used() {
    let dir = scratch("damaged");
    let file = files(&dir).swap_remove(2);
    settle();
    let file = &file;
    damaged(file, "magic", flip(|_| 3), "is not a graph entry of this layout");
    damaged(file, "counts", flip(|_| 40), "header");
    damaged(file, "key", flip(|_| 80), "header that does not match its digest");
    damaged(file, "offsets", flip(|b| payload(b) + 5), "do not match their digest");
    damaged(file, "targets", flip(|b| b.len() as u64 / 2), "do not match their digest");
    damaged(file, "weights", flip(|b| b.len() as u64 - 1), "do not match their digest");
    let cut = |keep: fn(u64) -> u64| move |entry: &Path| std::fs::File::options().write(true).open(entry).unwrap().set_len(keep(std::fs::metadata(entry).unwrap().len())).unwrap();
    damaged(file, "shorter", cut(|n| n - 1), "bytes, not the");
    damaged(file, "half", cut(|n| n / 2), "bytes, not the");
    damaged(file, "empty", cut(|_| 0), "holds 0 bytes, less than a header");
    let longer = |entry: &Path| {
        use std::io::Write;
        std::fs::OpenOptions::new().append(true).open(entry).unwrap().write_all(b"\0").unwrap();
    };
    damaged(file, "longer", longer, "bytes, not the");
    // Another file's entry copied over this one's: intact, but not this file's.
    let other = dir.join("other.el");
    std::fs::write(&other, "0 1\n").unwrap();
    let foreign = |entry: &Path| {
        let cache = GraphCache::in_dir(entry.parent().unwrap());
        cache.read(&other, &opts(false)).unwrap();
        std::fs::copy(cache.entry_path(&other, &opts(false)).unwrap(), entry).unwrap();
    };
    damaged(file, "foreign", foreign, "was written for another file");
    let link = |entry: &Path| {
        std::fs::remove_file(entry).unwrap();
        std::os::unix::fs::symlink("/dev/zero", entry).unwrap();
    };
    damaged(file, "link", link, "is a symbolic link, not a regular file");
    let fifo = |entry: &Path| {
        std::fs::remove_file(entry).unwrap();
        assert!(std::process::Command::new("mkfifo").arg(entry).status().unwrap().success(), "mkfifo {}", entry.display());
    };
    damaged(file, "fifo", fifo, "is a FIFO, not a regular file");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A directory where the entry should be can be neither read nor replaced: the read parses,
/// says both, and goes on doing so.
#[test]
fn an_entry_that_cannot_be_replaced_costs_a_parse_each_time() {
    let dir = scratch("directory");
    let cache = GraphCache::in_dir(dir.join("cache"));
    let file = files(&dir).swap_remove(1);
    settle();
    let parsed = graph::read(&file, &opts(false)).unwrap();
    let entry = cache.entry_path(&file, &opts(false)).unwrap();
    std::fs::create_dir_all(entry.join("inside")).unwrap();
    for _ in 0..2 {
        let (g, loaded) = cache.read(&file, &opts(false)).unwrap();
        assert!(g == parsed);
        assert!(matches!(&loaded, Loaded::Reparsed(why) if why.contains("is a directory") && why.contains("cannot write")), "{loaded:?}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_changed_file_is_parsed_again_and_its_entry_replaced() {
    let dir = scratch("changed");
    let cache = GraphCache::in_dir(dir.join("cache"));
    let file = dir.join("small.el");
    std::fs::write(&file, "0 1\n1 2\n").unwrap();
    settle();
    assert_eq!(cache.read(&file, &opts(false)).unwrap().1, Loaded::Parsed);
    assert_eq!(cache.read(&file, &opts(false)).unwrap().1, Loaded::Cached);
    // The same size, other edges: the file's times move on.
    std::fs::write(&file, "0 2\n2 1\n").unwrap();
    let (g, loaded) = cache.read(&file, &opts(false)).unwrap();
    assert_eq!((g.neighbours(0), g.neighbours(2), loaded), (&[2][..], &[1][..], Loaded::Parsed));
    assert_eq!(std::fs::read_dir(dir.join("cache")).unwrap().count(), 1, "one entry per file and options");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Versions of a file written within one tick of the file times' clock, with one size, have
/// the same times: an entry written so soon after its source changed is never trusted, so
/// each read here sees the version on disk, whichever ticks the writes fell in.
#[test]
fn versions_a_clock_tick_apart_are_never_confused() {
    let dir = scratch("racy");
    let cache = GraphCache::in_dir(dir.join("cache"));
    let file = dir.join("quick.el");
    for round in 0..20u32 {
        let (a, b) = (round % 7 + 1, round % 5 + 1);
        std::fs::write(&file, format!("0 {a}\n{a} {b}\n")).unwrap();
        let (g, loaded) = cache.read(&file, &opts(false)).unwrap();
        assert_eq!((g.neighbours(0), loaded), (&[a][..], Loaded::Parsed), "round {round}");
        assert_eq!(cache.read(&file, &opts(false)).unwrap().0.neighbours(0), &[a][..], "round {round}, read again");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_cache_that_cannot_be_used_costs_only_the_cache() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("unusable");
    let file = files(&dir).swap_remove(1);
    let parsed = graph::read(&file, &opts(false)).unwrap();
    let shared = dir.join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let not_a_dir = dir.join("a file");
    std::fs::write(&not_a_dir, "").unwrap();
    for (cache, says) in [(GraphCache::in_dir(&shared), "may be written by other users"), (GraphCache::in_dir(not_a_dir.join("cache")), "cannot create")] {
        for _ in 0..2 {
            let (g, loaded) = cache.read(&file, &opts(false)).unwrap();
            assert!(g == parsed);
            assert!(matches!(&loaded, Loaded::Uncached(why) if why.contains(says)), "{loaded:?} (want {says:?})");
        }
    }
    assert_eq!(std::fs::read_dir(&shared).unwrap().count(), 0, "nothing written to a directory others may write");
    // The file's own problems are the read's errors, with or without a cache.
    let cache = GraphCache::in_dir(dir.join("cache"));
    let missing = cache.read(dir.join("missing.el"), &opts(false)).unwrap_err();
    assert!(missing.to_string().contains("missing.el") && missing.to_string().contains("cannot open"), "{missing}");
    let bad = dir.join("bad.el");
    std::fs::write(&bad, "0 1\n1 x\n").unwrap();
    let e = cache.read(&bad, &opts(false)).unwrap_err();
    assert!(e.to_string().contains("bad.el:2") && e.to_string().contains("`x`"), "{e}");
    assert!(!cache.entry_path(&bad, &opts(false)).unwrap().exists(), "no entry for a file that did not parse");
    std::fs::remove_dir_all(dir).unwrap();
}

/// The convenience call reads the same graph as the reader, through the cache of the
/// environment (wherever that is here: it may be shared with other tests, so only the
/// graph is checked).
#[test]
fn read_cached_reads_what_read_reads() {
    let g: Graph = graph::read_cached(GNUTELLA, &opts(true)).unwrap();
    assert!(g == graph::read(GNUTELLA, &opts(true)).unwrap());
}
