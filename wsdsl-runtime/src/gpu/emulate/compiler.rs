//! The host C++ compiler as the emulation drives it: where its libraries are built and
//! cached, with which options, and how a build is made and checked.

use super::pch::{gch_path, precompiled_headers};
use crate::cache;
use crate::error::Error;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where the host kernels are cached: `emulation/` in the private cache directory
/// (`cache/`); none (said once) where there is no such directory.
pub(super) fn emulation_dir() -> Option<PathBuf> {
    let root = crate::gpu::build::compile::kernel_dir()?;
    match cache::private_dir(&root.join("emulation")) {
        Ok(dir) => Some(dir),
        Err(why) => {
            cache::warn_once(format!("host kernels are not cached: {why}"));
            None
        }
    }
}

/// A fresh private directory of this process (`cache::process_dir`), removed with what it
/// holds when dropped: the compiler writes there, never in the cache, so a cache that takes
/// no files (a full disk) costs the cache and not the build.
pub(super) struct Scratch(PathBuf);

impl Scratch {
    pub(super) fn new() -> Result<Scratch, Error> {
        cache::process_dir("emulation")
            .map(Scratch)
            .map_err(|why| Error::InvalidConfig(format!("the host emulation needs a directory of its own to build and load its kernels in: {why}")))
    }

    pub(super) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The host compiler's options for a kernel library. -O1: the kernels are a test instrument
/// run on small inputs, and -O1 compiles a third faster than -O2 (most tests spend more time
/// compiling their kernels than running them).
const HOST_FLAGS: [&str; 5] = ["-std=c++17", "-O1", "-U_FORTIFY_SOURCE", "-fPIC", "-pthread"];

/// Compiles `source` with the host C++ compiler; the shared library's bytes. With a cache
/// directory the shims' system headers come precompiled from it ([`precompiled_headers`]),
/// which halves the build; should that build fail, it is tried once more without them.
pub(super) fn compile(source: &str, cache_dir: Option<&Path>, program: &'static str) -> Result<Vec<u8>, Error> {
    // The compiler inherits it: past a file size limit its writes fail and it says so.
    cache::writes_report_file_size_limits();
    let scratch = Scratch::new()?;
    let pch = cache_dir.and_then(|dir| precompiled_headers(dir, &HOST_FLAGS));
    match (compile_with(source, scratch.path(), pch.as_deref(), program), &pch) {
        (Err(e), Some(header)) => {
            let plain = compile_with(source, scratch.path(), None, program).map_err(|_| e)?;
            // The source was sound, so the precompiled headers were not: the next process
            // builds them again.
            cache::remove_entry(&gch_path(header));
            cache::remove_entry(header);
            Ok(plain)
        }
        (result, _) => result,
    }
}

fn compile_with(source: &str, dir: &Path, pch: Option<&Path>, program: &'static str) -> Result<Vec<u8>, Error> {
    let output = dir.join(format!("{program}-{}.so", next_build()));
    let mut command = Command::new("c++");
    command.args(HOST_FLAGS);
    if let Some(header) = pch {
        command.arg("-include").arg(header);
    }
    let mut child = command
        .args(["-shared", "-w", "-x", "c++", "-", "-o"])
        .arg(&output)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::InvalidConfig(format!("the host emulation needs a C++ compiler (`c++`): {e}")))?;
    child.stdin.take().expect("piped").write_all(source.as_bytes()).map_err(|e| Error::InvalidConfig(e.to_string()))?;
    let result = child.wait_with_output().map_err(|e| Error::InvalidConfig(e.to_string()))?;
    if !result.status.success() {
        let mut log = String::from_utf8_lossy(&result.stderr).lines().take(40).collect::<Vec<_>>().join("\n");
        if log.contains("No space left on device") || log.contains("File too large") {
            log.push_str(&format!(
                "\n(the compiler could not write its files: free space in {}, or raise the file size limit, `ulimit -f`)",
                std::env::temp_dir().display()
            ));
        }
        return Err(Error::Compile { program, compiler: "the host C++ compiler", log, source: None, excerpt: String::new() });
    }
    let image = std::fs::read(&output).map_err(|e| Error::InvalidConfig(format!("cannot read the host kernel {}: {e}", output.display())));
    let _ = std::fs::remove_file(&output);
    image
}

/// A number for a file name, unique in this process.
fn next_build() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}
