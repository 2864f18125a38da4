//! The on-disk cache of compiled kernels: NVRTC's CUBINs (`gpu/build/compile.rs`, the NVSHMEM path
//! too), the host emulation's shared libraries and its precompiled headers (`gpu/emulate/`, in
//! `emulation/`); and, in `graphs/`, the binary form of parsed graph files (`graph/cached.rs`).
//!
//! It lives in `$WSDSL_CACHE_DIR`, else `$XDG_CACHE_HOME/wsdsl`, else `~/.cache/wsdsl`, a
//! directory created private (0700) and used only while it belongs to this user and nobody
//! else may write to it (`dir.rs`): nothing there can have been planted by someone else. Where
//! it is not such a directory, one warning says why, and the kernels are not cached (the
//! emulation's libraries, which must be files to be loaded, go to a fresh private directory of
//! the process).
//!
//! Every file of the cache is an entry that carries its length and a digest of its bytes,
//! checked before it is used (`entry.rs`): a truncated, damaged or foreign file, or anything
//! but a regular file, is a miss that rebuilds the kernel with a one-line warning, never a
//! hit, and a library is loaded only once its bytes are checked. Entries are read without
//! following links or waiting on FIFOs, and no further than their check says. They are written
//! beside their name and renamed into place, so processes building the same kernel at once
//! never see half of one; a write that fails (a full disk, a file size limit) is reported, and
//! the kernel runs uncached. Keys and digests are the stable hash of `hash.rs`. The cache
//! imports nothing of the runtime: its users, the GPU's build, the emulation and the binary
//! form of parsed graphs (`graph/cached.rs`), import it.

mod dir;
mod entry;
mod hash;

pub(crate) use dir::{private_dir, process_dir};
pub(crate) use entry::{open_regular, put_with, read_checked, remove_entry, write_checked, Checked};
pub(crate) use hash::{stable_hash, stable_hash_bytes, wide_hash_bytes};

use std::path::PathBuf;

/// Where the cache should live, by the variables above; `None` when none of them is set.
pub(crate) fn root() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("WSDSL_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("wsdsl"));
    }
    std::env::var_os("HOME").filter(|d| !d.is_empty()).map(|h| PathBuf::from(h).join(".cache").join("wsdsl"))
}

/// Says `message` on standard error once per process (the cache's warnings repeat for every
/// kernel otherwise).
pub(crate) fn warn_once(message: String) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if !said.contains(&message) {
        eprintln!("wsdsl: {message}");
        said.push(message);
    }
}

/// Makes a write past the file size limit (`ulimit -f`) fail with EFBIG, which the cache
/// reports like a full disk, instead of killing the process with SIGXFSZ: SIGXFSZ is ignored
/// from the first write on (the compilers the emulation starts inherit that), unless the
/// program has a handler of its own for it.
pub(crate) fn writes_report_file_size_limits() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: sigaction with valid structures; the old action is put back unless it was
        // the default.
        unsafe {
            let mut ignore: libc::sigaction = std::mem::zeroed();
            ignore.sa_sigaction = libc::SIG_IGN;
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGXFSZ, &ignore, &mut old) == 0 && old.sa_sigaction != libc::SIG_DFL {
                libc::sigaction(libc::SIGXFSZ, &old, std::ptr::null_mut());
            }
        }
    });
}
