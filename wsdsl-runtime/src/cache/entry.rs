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
    let check_length = (MAGIC.len() + 24 + tag.len()) as u64;
    let check = match read_regular(&check_path(file), check_length) {
        Ok(Some(check)) => check,
        Ok(None) => {
            return match std::fs::symlink_metadata(file) {
                Ok(_) => Checked::Bad("it has no .check file beside it".into()),
                Err(_) => Checked::Absent,
            };
        }
        Err(why) => return Checked::Bad(format!("its .check file {why}")),
    };
    // Read no further than this tag's check: a longer tag is another source's.
    let Some((length, digest, tag_length, stored_tag)) = parse(&check) else {
        return Checked::Bad("its .check file is malformed".into());
    };
    if tag_length != tag.len() as u64 {
        return Checked::Bad("it was built from another source".into());
    }
    if check.len() as u64 != check_length {
        return Checked::Bad("its .check file is malformed".into());
    }
    if stored_tag != tag {
        return Checked::Bad("it was built from another source".into());
    }
    let bytes = match read_regular(file, length) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Checked::Bad("it is missing beside its .check file".into()),
        Err(why) => return Checked::Bad(format!("it {why}")),
    };
    if bytes.len() as u64 > length {
        return Checked::Bad(format!("it holds more than the {length} bytes it was written with"));
    }
    if bytes.len() as u64 != length {
        return Checked::Bad(format!("it holds {} bytes, not the {length} it was written with", bytes.len()));
    }
    if digest_of(&bytes) != digest {
        return Checked::Bad("its bytes do not match their digest".into());
    }
    Checked::Hit(bytes)
}

/// The bytes of `path` if it is a regular file, at most `expected` + 1 of them (one more says
/// it is longer than it should be); `None` if there is nothing there. Anything else there is
/// refused without being read, why as the rest of a sentence ("is a FIFO, not a regular
/// file"): a FIFO would block the open for ever, a link to `/dev/zero` fill memory, and a
/// device may act on being opened. The link is never followed (`O_NOFOLLOW`), nor a FIFO
/// waited on (`O_NONBLOCK`) should one take the file's place between the look and the open.
fn read_regular(path: &Path, expected: u64) -> Result<Option<Vec<u8>>, String> {
    use std::io::Read;
    let Some(file) = open_regular(path)? else { return Ok(None) };
    let length = file.metadata().map_err(|e| format!("cannot be read: {e}"))?.len();
    let mut bytes = Vec::with_capacity(length.min(expected.saturating_add(1)) as usize);
    file.take(expected.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| format!("cannot be read: {e}"))?;
    Ok(Some(bytes))
}

/// `path` opened for reading if it is a regular file; `None` if there is nothing there; why
/// not otherwise, as `read_regular` says it.
pub(crate) fn open_regular(path: &Path) -> Result<Option<std::fs::File>, String> {
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::symlink_metadata(path) {
        Ok(meta) if !meta.file_type().is_file() => return Err(not_regular(&meta.file_type())),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot be read: {e}")),
    }
    let opened = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path);
    let file = match opened {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err("is a symbolic link, not a regular file".into()),
        Err(e) => return Err(format!("cannot be read: {e}")),
    };
    let meta = file.metadata().map_err(|e| format!("cannot be read: {e}"))?;
    if !meta.file_type().is_file() {
        return Err(not_regular(&meta.file_type()));
    }
    Ok(Some(file))
}

fn not_regular(kind: &std::fs::FileType) -> String {
    use std::os::unix::fs::FileTypeExt;
    let what = if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "something else"
    };
    format!("is {what}, not a regular file")
}

/// Writes the entry `file` (and its check) for `tag`, each beside its name and renamed into
/// place (over anything but a directory that was there).
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

/// Removes the entry `file` and its check, so that the next look finds nothing (no warning).
pub(crate) fn remove_entry(file: &Path) {
    let _ = std::fs::remove_file(check_path(file));
    let _ = std::fs::remove_file(file);
}

/// Writes `bytes` beside `path` (a new file: never one that was there) and renames them into
/// place; what was written is removed if that fails.
fn put(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    put_with(path, |f| f.write_all(bytes))
}

/// [`put`] of what `write` writes to the new file (an entry too large to assemble in memory
/// first).
pub(crate) fn put_with(path: &Path, write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>) -> std::io::Result<()> {
    super::writes_report_file_size_limits();
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut partial = path.as_os_str().to_owned();
    partial.push(format!(".{}-{n}.partial", std::process::id()));
    let partial = PathBuf::from(partial);
    let created = std::fs::OpenOptions::new().write(true).create_new(true).open(&partial);
    let written = created.and_then(|mut f| write(&mut f)).and_then(|()| std::fs::rename(&partial, path));
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

/// (length, digest, the tag's length, the tag's bytes read) of a check file.
fn parse(check: &[u8]) -> Option<(u64, u64, u64, &[u8])> {
    let rest = check.strip_prefix(MAGIC)?;
    let word = |at: usize| rest.get(at..at + 8).map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")));
    Some((word(0)?, word(8)?, word(16)?, rest.get(24..)?))
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

    /// `read_checked` in a thread of its own, given ten seconds: a look that blocks fails the
    /// test instead of hanging it.
    fn read_within(file: &Path, tag: &'static [u8]) -> Checked {
        let (sent, got) = std::sync::mpsc::channel();
        let file = file.to_path_buf();
        std::thread::spawn(move || sent.send(read_checked(&file, tag)));
        got.recv_timeout(std::time::Duration::from_secs(10)).expect("the look in the cache returns within 10 s")
    }

    /// Puts what `make` makes in place of the entry's file and then of its check: each is a
    /// miss that says why, and the entry, written again, replaces it.
    fn replaced_by(name: &str, make: impl Fn(&Path)) {
        let dir = scratch(name);
        let file = dir.join("k-1-sm_90.cubin");
        for victim in [check_path(&file), file.clone()] {
            write_checked(&file, b"source", &image()).unwrap();
            std::fs::remove_file(&victim).unwrap();
            make(&victim);
            match read_within(&file, b"source") {
                Checked::Bad(why) => assert!(why.contains("not a regular file"), "{}: {why}", victim.display()),
                other => panic!("{}: expected a miss, got {other:?}", victim.display()),
            }
            write_checked(&file, b"source", &image()).unwrap();
            assert!(matches!(read_checked(&file, b"source"), Checked::Hit(bytes) if bytes == image()), "{}: written again", victim.display());
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_fifo_in_place_of_an_entry_is_a_miss_not_a_hang() {
        replaced_by("fifo", |path| {
            let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: a NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
        });
    }

    #[test]
    fn a_link_to_a_device_in_place_of_an_entry_is_a_miss_not_read() {
        replaced_by("link", |path| std::os::unix::fs::symlink("/dev/zero", path).unwrap());
    }

    #[test]
    fn an_entry_longer_than_its_check_says_is_read_no_further() {
        let dir = scratch("long");
        let file = dir.join("k-1-sm_90.cubin");
        write_checked(&file, b"source", &image()).unwrap();
        let mut longer = image();
        longer.extend(std::iter::repeat_n(7u8, 1 << 20));
        std::fs::write(&file, &longer).unwrap();
        assert!(matches!(read_checked(&file, b"source"), Checked::Bad(why) if why.contains("more than the 5000 bytes")));
        let mut check = std::fs::read(check_path(&file)).unwrap();
        check.extend_from_slice(&[0; 100]);
        std::fs::write(check_path(&file), &check).unwrap();
        assert!(matches!(read_checked(&file, b"source"), Checked::Bad(why) if why.contains("malformed")));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
