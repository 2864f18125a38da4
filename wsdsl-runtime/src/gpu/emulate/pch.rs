//! The system headers of the host shims, precompiled once per cache directory, compiler and
//! options: a kernel library builds in half the time with them.

use crate::cache::stable_hash;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// `cuda/host/std_headers.h`: the system headers of the host shims, precompiled.
const STD_HEADERS: &str = include_str!("../../../cuda/host/std_headers.h");

/// `std-<key>.h` in `dir` with its precompiled `.gch` beside it, built on first use with the
/// compiler's `flags`; the key covers the headers, the options and the compiler, since GCC takes a `.gch` only from the
/// same compiler with the same options (and otherwise reads the header itself: slower, never
/// wrong). None where it cannot be built: every build then parses the headers.
pub(super) fn precompiled_headers(dir: &std::path::Path, flags: &[&str]) -> Option<PathBuf> {
    static BUILT: OnceLock<Mutex<HashMap<PathBuf, Option<PathBuf>>>> = OnceLock::new();
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    built.entry(dir.to_path_buf()).or_insert_with(|| build_precompiled_headers(dir, flags)).clone()
}

fn build_precompiled_headers(dir: &std::path::Path, flags: &[&str]) -> Option<PathBuf> {
    let version = Command::new("c++").arg("--version").output().ok()?;
    let key = stable_hash(&[STD_HEADERS, &flags.join(" "), &String::from_utf8_lossy(&version.stdout)]);
    let header = dir.join(format!("std-{key:016x}.h"));
    let gch = gch_path(&header);
    if header.is_file() && gch.is_file() {
        return Some(header);
    }
    // Both written under temporary names and renamed into place: processes building the
    // same file at once each see a whole one.
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let tmp_header = dir.join(format!("std-{key:016x}-{}-{n}.h", std::process::id()));
    std::fs::write(&tmp_header, STD_HEADERS).ok()?;
    let tmp_gch = gch_path(&tmp_header);
    let ok = Command::new("c++")
        .args(flags)
        .args(["-x", "c++-header"])
        .arg(&tmp_header)
        .arg("-o")
        .arg(&tmp_gch)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let placed = ok && std::fs::rename(&tmp_gch, &gch).is_ok() && std::fs::rename(&tmp_header, &header).is_ok();
    let _ = std::fs::remove_file(&tmp_header);
    let _ = std::fs::remove_file(&tmp_gch);
    placed.then_some(header)
}

pub(super) fn gch_path(header: &std::path::Path) -> PathBuf {
    let mut name = header.as_os_str().to_owned();
    name.push(".gch");
    PathBuf::from(name)
}
