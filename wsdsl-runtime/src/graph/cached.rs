//! The binary form of a parsed graph file, so that reading the same file again is a copy
//! from disk rather than a parse.
//!
//! Parsing text is most of the time it takes to load a large graph; its CSR reads back far
//! faster than the text parses (on 2 cores, R-MAT 22's 1.0 GB edge list parses in 4-5 s and
//! its 278 MB of CSR loads in 0.1-0.2 s: the guide's chapter 9 has the figures and the
//! command). So the first read parses and keeps the CSR in `graphs/` under the kernel
//! cache's directory (`$WSDSL_CACHE_DIR`, else `$XDG_CACHE_HOME/wsdsl`, else
//! `~/.cache/wsdsl`: the same private directory, the same rules), and later reads load it.
//!
//! **Keys.** An entry's name is a hash of the source's canonical path, the options that shape
//! the CSR (symmetrize, self-loops, duplicates) and the reader's own source text; its header
//! holds all of these in full, and the source's size, modification and change times, device
//! and inode. A source that has changed since is parsed again and its entry replaced, without
//! a warning (editing a graph is ordinary), so there is one entry per file and options; a
//! reader whose code has changed never serves a parse of the old one. File times come from a
//! coarse clock (a tick of milliseconds), so two versions of a file written in one tick with
//! one size look the same: an entry written less than [`SETTLED`] after its source last
//! changed is not trusted (the next read parses again and writes it anew), so the version it
//! holds is the only one that can have had its times.
//!
//! **Checks.** As for the kernel cache's entries (`cache/entry.rs`): an entry is opened only
//! as a regular file (no link followed, no FIFO waited on); its length must be what its
//! header says, and its bytes must match their digest, a hash of each 4 MiB piece taken as
//! the pieces are read, on every core (`wide_hash_bytes`: four words at a time, since the
//! hash was 40% of a load one word at a time); then the CSR is validated ([`Graph::validate`]). A
//! damaged entry is parsed again with a one-line warning, and written anew: never a wrong
//! graph. Entries are written beside their name and renamed into place, so two processes
//! caching the same graph never see half of one. A cache that cannot be used or written
//! costs the cache, not the read: the graph is parsed and returned, and a warning says why.
//!
//! The entry is the arrays' memory, little-endian: a machine of the other byte order keeps
//! no binary form and parses every time.

use super::error::GraphError;
use super::{Graph, GraphOptions, Weights};
use crate::cache::{open_regular, private_dir, put_with, root, stable_hash, stable_hash_bytes, warn_once, wide_hash_bytes};
use rayon::prelude::*;
use std::io::Write;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

/// The first bytes of every entry; the number is the layout's.
const MAGIC: &[u8; 16] = b"wsdsl-graph-v1\n\0";
/// The magic and seven words: the two texts' lengths, vertices, edges, the weights' kind, the
/// time the entry was written and the payload's digest.
const FIXED: usize = MAGIC.len() + 7 * 8;
/// How long after its source last changed an entry must have been written to be trusted:
/// well over a tick of the file times' clock, and over the skew of a file server's clock.
const SETTLED: std::time::Duration = std::time::Duration::from_secs(1);
/// The digest of the payload is a hash of the hashes of pieces this long, each read and
/// hashed by one task.
const PIECE: usize = 4 << 20;
/// A longer key or identity text is a damaged header, not a path.
const MAX_TEXT: u64 = 1 << 16;

/// The reader's sources, and the entries' own and their hash's: a change to any of them may
/// change what a file parses to or how its entry reads, so it makes every entry written
/// before it a miss (rather than a warning of damage).
const READER: [&str; 11] = [
    include_str!("mod.rs"),
    include_str!("build.rs"),
    include_str!("source.rs"),
    include_str!("edges.rs"),
    include_str!("snap.rs"),
    include_str!("matrix_market.rs"),
    include_str!("dimacs.rs"),
    include_str!("weights.rs"),
    include_str!("csr.rs"),
    include_str!("cached.rs"),
    include_str!("../cache/hash.rs"),
];

/// How [`GraphCache::read`] got its graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Loaded {
    /// From the binary form in the cache: no parse.
    Cached,
    /// Parsed (the first read of this file and options, or the file changed since, or so
    /// shortly before the entry was written that its times could not tell versions apart),
    /// and its binary form written for the next read.
    Parsed,
    /// The binary form was damaged or could not be read (why): parsed again and written anew.
    Reparsed(String),
    /// Parsed, and not cached (why): the cache's directory cannot be used, the source is not
    /// a regular file, or the entry could not be written.
    Uncached(String),
}

/// Where parsed graphs are kept between reads (the module's documentation says how).
///
/// ```no_run
/// use wsdsl_runtime::graph::{GraphCache, GraphOptions, Loaded};
/// let cache = GraphCache::from_env();
/// let (g, loaded) = cache.read("roads.gr.gz", &GraphOptions::default())?;
/// // The second read of a file unchanged since (and for a second before the first read)
/// // loads the CSR the first one wrote.
/// let (again, loaded_again) = cache.read("roads.gr.gz", &GraphOptions::default())?;
/// assert_eq!((g, loaded_again), (again, Loaded::Cached));
/// # Ok::<(), wsdsl_runtime::graph::GraphError>(())
/// ```
#[derive(Clone, Debug)]
pub struct GraphCache {
    /// The directory, or why there is none.
    dir: Result<PathBuf, String>,
}

/// [`GraphCache::read`] in the cache of the environment ([`GraphCache::from_env`]), for a
/// caller that needs only the graph. The warnings of a cache that could not be used are
/// printed once each.
pub fn read_cached(path: impl AsRef<Path>, opts: &GraphOptions) -> Result<Graph, GraphError> {
    GraphCache::from_env().read(path, opts).map(|(graph, _)| graph)
}

/// An entry found for a source, with what it should say of it.
struct Key {
    file: PathBuf,
    /// Which file and options and which reader: what names the entry.
    name: Vec<u8>,
    /// Which version of the file: what makes an entry stale.
    identity: Vec<u8>,
    /// When the source last changed (its modification or change time, the later), in
    /// nanoseconds since 1970.
    changed: u64,
}

/// What a look at an entry found.
enum Found {
    Hit(Graph),
    Absent,
    /// Written for an earlier version of the source.
    Stale,
    Bad(String),
}

impl GraphCache {
    /// The cache in `graphs/` of the kernel cache's directory: `$WSDSL_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/wsdsl`, else `~/.cache/wsdsl`. With none of them set, reads parse
    /// every time ([`Loaded::Uncached`] says why).
    pub fn from_env() -> GraphCache {
        let dir = root().map(|r| r.join("graphs")).ok_or_else(|| "no cache directory: none of WSDSL_CACHE_DIR, XDG_CACHE_HOME or HOME is set".to_string());
        GraphCache { dir }
    }

    /// The cache in `dir`, created private (0700) if missing, and used only while it belongs
    /// to this user and nobody else may write to it.
    pub fn in_dir(dir: impl Into<PathBuf>) -> GraphCache {
        GraphCache { dir: Ok(dir.into()) }
    }

    /// Reads the graph file `path` as [`super::read`] does, from its binary form when the
    /// cache holds one for this version of the file and these options, else by parsing it
    /// and writing the binary form for next time. The graph is the same either way; the
    /// [`Loaded`] says which happened. A problem of the cache's is printed once (`wsdsl:
    /// ...` on standard error) and costs only the parse; a problem of the file's is the error.
    pub fn read(&self, path: impl AsRef<Path>, opts: &GraphOptions) -> Result<(Graph, Loaded), GraphError> {
        let path = path.as_ref();
        let key = match self.key(path, opts) {
            Ok(key) => key,
            Err(why) => {
                let graph = super::read(path, opts)?;
                warn_once(format!("graph cache: {why}; {} was parsed and not cached", path.display()));
                return Ok((graph, Loaded::Uncached(why)));
            }
        };
        let damaged = match look(&key) {
            Found::Hit(graph) => return Ok((graph, Loaded::Cached)),
            Found::Absent | Found::Stale => None,
            Found::Bad(why) => {
                warn_once(format!("the cached graph {} {why}: parsing {} again", key.file.display(), path.display()));
                Some(why)
            }
        };
        let graph = super::read(path, opts)?;
        let loaded = match (write(&key, &graph), damaged) {
            (Ok(()), None) => Loaded::Parsed,
            (Ok(()), Some(why)) => Loaded::Reparsed(why),
            (Err(e), damaged) => {
                let why = format!("cannot write {}: {e}", key.file.display());
                warn_once(format!("graph cache: {why}; {} is not cached", path.display()));
                match damaged {
                    Some(bad) => Loaded::Reparsed(format!("{bad}; and then {why}")),
                    None => Loaded::Uncached(why),
                }
            }
        };
        Ok((graph, loaded))
    }

    /// Where the binary form of `path` read with `opts` is kept (whether or not it is there
    /// yet): to remove it, or to see what a read left. Why there is none, if so.
    pub fn entry_path(&self, path: impl AsRef<Path>, opts: &GraphOptions) -> Result<PathBuf, String> {
        self.key(path.as_ref(), opts).map(|key| key.file)
    }

    /// The entry for `path` with `opts`, its directory made ready; why there can be none.
    fn key(&self, path: &Path, opts: &GraphOptions) -> Result<Key, String> {
        if cfg!(target_endian = "big") {
            return Err("the binary form is little-endian, and this machine is not".into());
        }
        let dir = self.dir.clone()?;
        let meta = std::fs::metadata(path).map_err(|e| format!("cannot look at {}: {e}", path.display()))?;
        if !meta.is_file() {
            return Err(format!("{} is not a regular file", path.display()));
        }
        let canonical = std::fs::canonicalize(path).map_err(|e| format!("cannot resolve {}: {e}", path.display()))?;
        let dir = private_dir(&dir)?;
        let mut name = format!("wsdsl graph cache\nreader {:016x}\nsource ", stable_hash(&READER)).into_bytes();
        name.extend_from_slice(canonical.as_os_str().as_encoded_bytes());
        name.extend_from_slice(
            format!(
                "\noptions symmetrize={} remove_self_loops={} remove_duplicates={}\n",
                opts.symmetrize, opts.remove_self_loops, opts.remove_duplicates
            )
            .as_bytes(),
        );
        let identity = format!(
            "size {}\nmodified {}.{:09}\nchanged {}.{:09}\nfile {}:{}\n",
            meta.len(),
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ctime(),
            meta.ctime_nsec(),
            meta.dev(),
            meta.ino()
        )
        .into_bytes();
        let file = dir.join(format!("{:016x}.csr", stable_hash_bytes(&[&name])));
        let nanos = |seconds: i64, nanoseconds: i64| (seconds.max(0) as u64).saturating_mul(1_000_000_000).saturating_add(nanoseconds.max(0) as u64);
        let changed = nanos(meta.mtime(), meta.mtime_nsec()).max(nanos(meta.ctime(), meta.ctime_nsec()));
        Ok(Key { file, name, identity, changed })
    }
}

/// The words of an entry's header after the magic, in order.
struct Header {
    name_length: u64,
    identity_length: u64,
    vertices: u64,
    edges: u64,
    /// 0: no weights, 1: integers, 2: reals.
    kind: u64,
    /// When the entry was written, in nanoseconds since 1970.
    written: u64,
    digest: u64,
}

/// The entry of `key`, if it is there, intact and of this version of the source.
fn look(key: &Key) -> Found {
    let file = match open_regular(&key.file) {
        Ok(Some(file)) => file,
        Ok(None) => return Found::Absent,
        Err(why) => return Found::Bad(format!("{why}")),
    };
    match load(&file, key) {
        Ok(found) => found,
        Err(e) => Found::Bad(format!("cannot be read: {e}")),
    }
}

/// Reads and checks an open entry: the header, the length, the payload's digest, the CSR.
fn load(file: &std::fs::File, key: &Key) -> std::io::Result<Found> {
    let length = file.metadata()?.len();
    if length < FIXED as u64 {
        return Ok(Found::Bad(format!("holds {length} bytes, less than a header")));
    }
    let mut fixed = [0u8; FIXED];
    file.read_exact_at(&mut fixed, 0)?;
    let Some(rest) = fixed.strip_prefix(MAGIC) else {
        return Ok(Found::Bad("is not a graph entry of this layout".into()));
    };
    let word = |k: usize| u64::from_le_bytes(rest[8 * k..8 * k + 8].try_into().expect("8 bytes"));
    let h = Header { name_length: word(0), identity_length: word(1), vertices: word(2), edges: word(3), kind: word(4), written: word(5), digest: word(6) };
    if h.name_length > MAX_TEXT || h.identity_length > MAX_TEXT || h.vertices > u64::from(u32::MAX) || h.edges > u64::from(u32::MAX) || h.kind > 2 {
        return Ok(Found::Bad("has a malformed header".into()));
    }
    let texts = (h.name_length + h.identity_length) as usize;
    let header_length = FIXED + texts + 8;
    if length < header_length as u64 {
        return Ok(Found::Bad(format!("holds {length} bytes, less than its header")));
    }
    let mut tail = vec![0u8; texts + 8];
    file.read_exact_at(&mut tail, FIXED as u64)?;
    let stored = u64::from_le_bytes(tail[texts..].try_into().expect("8 bytes"));
    if stable_hash_bytes(&[&fixed, &tail[..texts]]) != stored {
        return Ok(Found::Bad("has a header that does not match its digest".into()));
    }
    let (name, identity) = tail[..texts].split_at(h.name_length as usize);
    if name != key.name.as_slice() {
        return Ok(Found::Bad("was written for another file, options or reader".into()));
    }
    if identity != key.identity.as_slice() || h.written < key.changed.saturating_add(SETTLED.as_nanos() as u64) {
        return Ok(Found::Stale);
    }
    let (n, m) = (h.vertices as usize, h.edges as usize);
    let weight_bytes = [0, 4, 8][h.kind as usize];
    let expected = header_length as u64 + 4 * (n as u64 + 1) + (4 + weight_bytes) * m as u64;
    if length != expected {
        return Ok(Found::Bad(format!("holds {length} bytes, not the {expected} its header says")));
    }
    let no_memory = || Found::Bad(format!("needs {expected} bytes of memory, which could not be had"));
    let (Some(mut offsets), Some(mut targets)) = (zeroed::<u32>(n + 1), zeroed::<u32>(m)) else { return Ok(no_memory()) };
    let mut at = header_length as u64;
    let mut digests = read_pieces(file, &mut at, &mut offsets)?;
    digests.extend(read_pieces(file, &mut at, &mut targets)?);
    let weights = match h.kind {
        0 => Weights::None,
        1 => {
            let Some(mut w) = zeroed::<u32>(m) else { return Ok(no_memory()) };
            digests.extend(read_pieces(file, &mut at, &mut w)?);
            Weights::Int(w)
        }
        _ => {
            let Some(mut w) = zeroed::<f64>(m) else { return Ok(no_memory()) };
            digests.extend(read_pieces(file, &mut at, &mut w)?);
            Weights::Real(w)
        }
    };
    if stable_hash_bytes(&[bytes(&digests)]) != h.digest {
        return Ok(Found::Bad("has bytes that do not match their digest".into()));
    }
    let graph = Graph { offsets, targets, weights };
    if let Err(e) = graph.validate() {
        return Ok(Found::Bad(format!("holds arrays that are not a graph ({e})")));
    }
    Ok(Found::Hit(graph))
}

/// Fills `out` from the entry at `*at` onwards, a piece per task, and moves `*at` past it;
/// the digest of each piece, in order.
fn read_pieces<T: Plain>(file: &std::fs::File, at: &mut u64, out: &mut [T]) -> std::io::Result<Vec<u64>> {
    let start = *at;
    let image = bytes_mut(out);
    *at += image.len() as u64;
    image
        .par_chunks_mut(PIECE)
        .enumerate()
        .map(|(k, piece)| {
            file.read_exact_at(piece, start + (k * PIECE) as u64)?;
            Ok(wide_hash_bytes(piece))
        })
        .collect()
}

/// The digests of `values`' pieces, as [`read_pieces`] takes them.
fn piece_digests<T: Plain>(values: &[T]) -> Vec<u64> {
    bytes(values).par_chunks(PIECE).map(wide_hash_bytes).collect()
}

/// Writes the entry of `key` for `graph`.
fn write(key: &Key, graph: &Graph) -> std::io::Result<()> {
    let (kind, weights): (u64, &[u8]) = match &graph.weights {
        Weights::None => (0, &[]),
        Weights::Int(w) => (1, bytes(w)),
        Weights::Real(w) => (2, bytes(w)),
    };
    let mut digests = piece_digests(&graph.offsets);
    digests.extend(piece_digests(&graph.targets));
    digests.extend(weights.par_chunks(PIECE).map(wide_hash_bytes).collect::<Vec<u64>>());
    let mut header = Vec::with_capacity(FIXED + key.name.len() + key.identity.len() + 8);
    header.extend_from_slice(MAGIC);
    let written = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let words = [key.name.len() as u64, key.identity.len() as u64, graph.vertices() as u64, graph.edges() as u64, kind, written, stable_hash_bytes(&[bytes(&digests)])];
    for w in words {
        header.extend_from_slice(&w.to_le_bytes());
    }
    header.extend_from_slice(&key.name);
    header.extend_from_slice(&key.identity);
    let digest = stable_hash_bytes(&[&header[..FIXED], &header[FIXED..]]);
    header.extend_from_slice(&digest.to_le_bytes());
    put_with(&key.file, |f| {
        f.write_all(&header)?;
        f.write_all(bytes(&graph.offsets))?;
        f.write_all(bytes(&graph.targets))?;
        f.write_all(weights)
    })
}

/// Element types whose memory is their entry's image: no padding, and every bit pattern a
/// value (so bytes read from a file are a valid element, whatever they are).
///
/// # Safety
///
/// Only for such types.
unsafe trait Plain: Copy + Send + Sync {}
// SAFETY: integers and floats have no padding and no invalid bit patterns.
unsafe impl Plain for u32 {}
// SAFETY: as above.
unsafe impl Plain for u64 {}
// SAFETY: as above.
unsafe impl Plain for f64 {}

fn bytes<T: Plain>(values: &[T]) -> &[u8] {
    // SAFETY: `T: Plain` has no padding, so all `size_of_val` bytes are initialised; u8 has
    // alignment 1; the borrow keeps `values` alive and unchanged.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast(), std::mem::size_of_val(values)) }
}

fn bytes_mut<T: Plain>(values: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `bytes`; and any bytes written through the view are a valid `T` (`Plain`).
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast(), std::mem::size_of_val(values)) }
}

/// `len` zeros, or `None` if the memory cannot be had. Zeroed by the allocator (fresh pages
/// from the system come zeroed, so a large array costs no pass before it is read into), and
/// without the abort a failed `vec!` would be. Left to small pages: asking for huge ones
/// (`MADV_HUGEPAGE`) made the first load of a 557 MB entry 3.5 s instead of 0.5, the system
/// compacting memory to grant them, for a 25% gain on later loads.
fn zeroed<T: Plain>(len: usize) -> Option<Vec<T>> {
    if len == 0 || std::mem::size_of::<T>() == 0 {
        return Some(Vec::new());
    }
    let layout = std::alloc::Layout::array::<T>(len).ok()?;
    // SAFETY: the layout has a non-zero size.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<T>();
    if ptr.is_null() {
        return None;
    }
    // SAFETY: allocated by the global allocator with the layout of `len` `T`s, all zero,
    // which is a valid `T` (`Plain`).
    Some(unsafe { Vec::from_raw_parts(ptr, len, len) })
}
