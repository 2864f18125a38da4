//! Private directories: created 0700, and used only while they belong to this user and no
//! one else may write to them.

use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// `dir`, created if missing (0700, parents too), if it is this user's and nobody else may
/// write to it; otherwise why not.
pub(crate) fn private_dir(dir: &Path) -> Result<PathBuf, String> {
    if let Err(e) = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir) {
        return Err(format!("cannot create {}: {e}", dir.display()));
    }
    check(dir)?;
    Ok(dir.to_path_buf())
}

/// Whether `dir` is a directory of this user that nobody else may write to.
fn check(dir: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    // SAFETY: always callable.
    let me = unsafe { libc::geteuid() };
    if !meta.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    if meta.uid() != me {
        return Err(format!("{} belongs to user {}, not to this user ({me})", dir.display(), meta.uid()));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(format!("{} may be written by other users (mode {:o}); `chmod go-w` it", dir.display(), meta.mode() & 0o777));
    }
    Ok(())
}

/// A fresh private directory of this process under the system's temporary directory, named
/// `wsdsl-<what>-<pid>-<random>`: created here (never one that existed, so never one planted),
/// 0700. The random part keeps anyone from taking the names in advance to deny the directory.
pub(crate) fn process_dir(what: &str) -> Result<PathBuf, String> {
    let base = std::env::temp_dir();
    for _ in 0..100 {
        let dir = base.join(format!("wsdsl-{what}-{}-{:016x}", std::process::id(), unpredictable()));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return check(&dir).map(|()| dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
        }
    }
    Err(format!("cannot create a private directory under {}: 100 random names were all taken", base.display()))
}

/// A number nobody can guess: std's randomly keyed hasher (fresh keys for every
/// `RandomState`) over the time, the process and a count.
fn unpredictable() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or_default();
    hasher.write_u128(now);
    hasher.write_u32(std::process::id());
    hasher.write_u64(COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("wsdsl-dir-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_new_directory_is_private() {
        let dir = scratch("new").join("cache");
        private_dir(&dir).expect("created");
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_directory_others_may_write_is_refused() {
        let dir = scratch("shared");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let why = private_dir(&dir).unwrap_err();
        assert!(why.contains("may be written by other users") && why.contains("777"), "{why}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn another_users_directory_is_refused() {
        // SAFETY: always callable.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: only root can give a directory to another user");
            return;
        }
        let dir = scratch("theirs");
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::chown(&dir, Some(65534), None).unwrap();
        let why = private_dir(&dir).unwrap_err();
        assert!(why.contains("belongs to user 65534"), "{why}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn process_directories_are_fresh_and_private() {
        let (a, b) = (process_dir("test").unwrap(), process_dir("test").unwrap());
        assert_ne!(a, b);
        assert_eq!(std::fs::metadata(&a).unwrap().mode() & 0o777, 0o700);
        std::fs::remove_dir(a).unwrap();
        std::fs::remove_dir(b).unwrap();
    }

    /// Directories made in advance under the names a process would try (`wsdsl-<what>-<pid>-<n>`
    /// once) do not deny it one.
    #[test]
    fn process_directories_made_in_advance_deny_nothing() {
        let base = std::env::temp_dir();
        let made: Vec<PathBuf> = (0..100).map(|n| base.join(format!("wsdsl-test-taken-{}-{n}", std::process::id()))).collect();
        for dir in &made {
            std::fs::create_dir_all(dir).unwrap();
        }
        let fresh = process_dir("test-taken");
        for dir in &made {
            std::fs::remove_dir(dir).unwrap();
        }
        let fresh = fresh.expect("a fresh directory");
        assert!(!made.contains(&fresh), "{}", fresh.display());
        std::fs::remove_dir(fresh).unwrap();
    }
}
