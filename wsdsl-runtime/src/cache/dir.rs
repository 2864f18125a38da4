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
/// `wsdsl-<what>-<pid>-<n>`: created here (never one that existed, so never one planted),
/// 0700.
pub(crate) fn process_dir(what: &str) -> Result<PathBuf, String> {
    let base = std::env::temp_dir();
    for n in 0..100u32 {
        let dir = base.join(format!("wsdsl-{what}-{}-{n}", std::process::id()));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return check(&dir).map(|()| dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
        }
    }
    Err(format!("cannot create a private directory under {}", base.display()))
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
}
