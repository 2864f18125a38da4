//! Cache entries that are checked before they are used. An entry is its file (a CUBIN, a
//! shared library: loadable as it is) and beside it `<file>.check`: a header, the file's
//! length and digest, and the *tag* the entry was built for (the kernel's source), in full,
//! so that a hash collision of the entry's name can never hand back another kernel. The
//! digest guards against accidents (a truncated, emptied or damaged file, a file copied from
//! another entry); the private directory (`dir.rs`) guards against other users.

use super::hash::stable_hash_bytes;
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 16] = b"wsdsl-entry-v2\n\0";

/// What a look in the cache found.
#[derive(Debug)]
pub(crate) enum Checked {
    /// The entry, checked.
    Hit(Vec<u8>),
    /// No entry.
    Absent,
    /// An entry that is not what it says (why): rebuild it.
    Bad(String),
}

/// The entry `file` if it was built for `tag` and is intact.
pub(crate) fn read_checked(file: &Path, tag: &[u8]) -> Checked {
    let check = match std::fs::read(check_path(file)) {
        Ok(check) => check,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return if file.exists() { Checked::Bad("it has no .check file beside it".into()) } else { Checked::Absent };
        }
        Err(e) => return Checked::Bad(format!("its .check file cannot be read: {e}")),
    };
    let Some((length, digest, stored_tag)) = parse(&check) else {
        return Checked::Bad("its .check file is malformed".into());
    };
    if stored_tag != tag {
        return Checked::Bad("it was built from another source".into());
    }
    let bytes = match std::fs::read(file) {
        Ok(bytes) => bytes,
        Err(e) => return Checked::Bad(format!("it cannot be read: {e}")),
    };
    if bytes.len() as u64 != length {
        return Checked::Bad(format!("it holds {} bytes, not the {length} it was written with", bytes.len()));
    }
    if digest_of(&bytes) != digest {
        return Checked::Bad("its bytes do not match their digest".into());
    }
    Checked::Hit(bytes)
}

/// Writes the entry `file` (and its check) for `tag`, each beside its name and renamed into
/// place.
pub(crate) fn write_checked(file: &Path, tag: &[u8], bytes: &[u8]) -> std::io::Result<()> {
    let mut check = Vec::with_capacity(MAGIC.len() + 24 + tag.len());
    check.extend_from_slice(MAGIC);
    check.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    check.extend_from_slice(&digest_of(bytes).to_le_bytes());
    check.extend_from_slice(&(tag.len() as u64).to_le_bytes());
    check.extend_from_slice(tag);
    put(file, bytes)?;
    put(&check_path(file), &check)
}

/// Writes `bytes` beside `path` and renames them into place.
fn put(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut partial = path.as_os_str().to_owned();
    partial.push(format!(".{}-{n}.partial", std::process::id()));
    let partial = PathBuf::from(partial);
    let written = std::fs::File::create(&partial).and_then(|mut f| f.write_all(bytes)).and_then(|()| std::fs::rename(&partial, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}

fn check_path(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".check");
    PathBuf::from(name)
}

fn digest_of(bytes: &[u8]) -> u64 {
    stable_hash_bytes(&[bytes])
}

/// (length, digest, tag) of a check file.
fn parse(check: &[u8]) -> Option<(u64, u64, &[u8])> {
    let rest = check.strip_prefix(MAGIC)?;
    let word = |at: usize| rest.get(at..at + 8).map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")));
    let (length, digest, tag_len) = (word(0)?, word(8)?, word(16)?);
    let tag = rest.get(24..)?;
    (tag.len() as u64 == tag_len).then_some((length, digest, tag))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("wsdsl-entry-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn image() -> Vec<u8> {
        (0..5000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect()
    }

    #[test]
    fn an_intact_entry_is_a_hit_and_a_missing_one_absent() {
        let dir = scratch("intact");
        let file = dir.join("k-1-sm_90.cubin");
        assert!(matches!(read_checked(&file, b"source"), Checked::Absent));
        write_checked(&file, b"source", &image()).unwrap();
        assert!(matches!(read_checked(&file, b"source"), Checked::Hit(bytes) if bytes == image()));
        assert!(matches!(read_checked(&file, b"another source"), Checked::Bad(why) if why.contains("another source")));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn truncated_emptied_random_and_foreign_entries_are_misses() {
        let dir = scratch("damaged");
        let file = dir.join("k-1-sm_90.cubin");
        let bad = |why: &str| match read_checked(&file, b"source") {
            Checked::Bad(reason) => assert!(reason.contains(why), "{reason}"),
            other => panic!("expected a bad entry ({why}), got {other:?}"),
        };
        write_checked(&file, b"source", &image()).unwrap();
        std::fs::write(&file, &image()[..1000]).unwrap();
        bad("holds 1000 bytes");
        std::fs::write(&file, b"").unwrap();
        bad("holds 0 bytes");
        let mut random = image();
        random.reverse();
        std::fs::write(&file, &random).unwrap();
        bad("digest");
        // Another entry's file (with its own check) copied under this name.
        let other = dir.join("other.cubin");
        write_checked(&other, b"other source", b"another kernel").unwrap();
        std::fs::copy(&other, &file).unwrap();
        bad("holds 14 bytes");
        std::fs::copy(check_path(&other), check_path(&file)).unwrap();
        bad("another source");
        std::fs::remove_file(check_path(&file)).unwrap();
        bad("no .check file");
        std::fs::write(check_path(&file), b"wsdsl-entry-v1\n\0\xff\xff").unwrap();
        bad("malformed");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
