//! The system headers of the host shims, precompiled once per cache directory, compiler and
//! options: a kernel library builds in half the time with them. Both files are cache entries
//! (`cache/entry.rs`), checked before every use like a kernel: whatever is in a `.gch` is
//! compiled into every kernel library built with it, and that library is then cached as it
//! came out.

use super::compiler::Scratch;
use crate::cache::{self, stable_hash, Checked};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// `cuda/host/std_headers.h`: the system headers of the host shims, precompiled.
const STD_HEADERS: &str = include_str!("../../../cuda/host/std_headers.h");

/// `std-<key>.h` in `dir` with its precompiled `.gch` beside it, both checked, built on first
/// use with the compiler's `flags`. The entries' tag holds the headers, the options and the
/// compiler's version, since GCC takes a `.gch` only from the same compiler with the same
/// options (and otherwise reads the header itself: slower, never wrong). None where they
/// cannot be built or cached: every build then parses the headers.
pub(super) fn precompiled_headers(dir: &Path, flags: &[&str]) -> Option<PathBuf> {
    static BUILT: OnceLock<Mutex<HashMap<PathBuf, Option<PathBuf>>>> = OnceLock::new();
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    built.entry(dir.to_path_buf()).or_insert_with(|| checked_or_built(dir, flags)).clone()
}

fn checked_or_built(dir: &Path, flags: &[&str]) -> Option<PathBuf> {
    let version = Command::new("c++").arg("--version").output().ok()?;
    let tag = format!(
        "the host emulation's precompiled headers\nflags: {}\ncompiler: {}\n{STD_HEADERS}",
        flags.join(" "),
        String::from_utf8_lossy(&version.stdout)
    );
    let header = dir.join(format!("std-{:016x}.h", stable_hash(&[&tag])));
    let gch = gch_path(&header);
    match (cache::read_checked(&header, tag.as_bytes()), cache::read_checked(&gch, tag.as_bytes())) {
        (Checked::Hit(text), Checked::Hit(_)) if text == STD_HEADERS.as_bytes() => return Some(header),
        (Checked::Bad(why), _) | (_, Checked::Bad(why)) => {
            eprintln!("wsdsl: the cached precompiled headers {} are not used ({why}); building them again", header.display())
        }
        (Checked::Hit(_), Checked::Hit(_)) => {
            eprintln!("wsdsl: the cached precompiled headers {} are not used (they hold other headers); building them again", header.display())
        }
        // A process writing them now, or none yet.
        _ => {}
    }
    let precompiled = build(flags)?;
    let cached = cache::write_checked(&header, tag.as_bytes(), STD_HEADERS.as_bytes()).and_then(|()| cache::write_checked(&gch, tag.as_bytes(), &precompiled));
    if let Err(e) = cached {
        // Neither is left without the other.
        cache::remove_entry(&gch);
        cache::remove_entry(&header);
        cache::warn_once(format!("the host kernels' precompiled headers are not cached ({}): {e}", header.display()));
        return None;
    }
    Some(header)
}

/// The headers precompiled with `flags`, in a directory of this process; None if the compiler
/// cannot make them.
fn build(flags: &[&str]) -> Option<Vec<u8>> {
    let scratch = Scratch::new().ok()?;
    let header = scratch.path().join("std.h");
    std::fs::write(&header, STD_HEADERS).ok()?;
    let gch = gch_path(&header);
    let ok = Command::new("c++")
        .args(flags)
        .args(["-x", "c++-header"])
        .arg(&header)
        .arg("-o")
        .arg(&gch)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return None;
    }
    std::fs::read(&gch).ok()
}

pub(super) fn gch_path(header: &Path) -> PathBuf {
    let mut name = header.as_os_str().to_owned();
    name.push(".gch");
    PathBuf::from(name)
}
