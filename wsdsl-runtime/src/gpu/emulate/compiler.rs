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
/// compiling their kernels than running them). -fstack-clash-protection: a frame larger than a
/// page touches each of its pages in turn, so a fiber whose stack overflows faults in the
/// guard below it (`cuda/host/emulation.h`) rather than writing past it.
const HOST_FLAGS: [&str; 6] = ["-std=c++17", "-O1", "-U_FORTIFY_SOURCE", "-fPIC", "-pthread", "-fstack-clash-protection"];

/// A compiled host kernel.
pub(super) struct Built {
    /// The shared library's bytes.
    pub image: Vec<u8>,
    /// The compiler's record of each function's stack frame (GCC's and Clang's
    /// `-fstack-usage` files, `stack.rs` reads them), when asked for and written.
    pub stack_usage: Option<String>,
}

/// Compiles `source` with the host C++ compiler; with `stack_usage`, also asks for the frame
/// of each function. With a cache directory the shims' system headers come precompiled from it
/// ([`precompiled_headers`]), which halves the build; should that build fail, it is tried once
/// more without them.
pub(super) fn compile(source: &str, cache_dir: Option<&Path>, program: &'static str, stack_usage: bool) -> Result<Built, Error> {
    // The compiler inherits it: past a file size limit its writes fail and it says so.
    cache::writes_report_file_size_limits();
    let scratch = Scratch::new()?;
    let pch = cache_dir.and_then(|dir| precompiled_headers(dir, &HOST_FLAGS));
    match (compile_with(source, scratch.path(), pch.as_deref(), program, stack_usage), &pch) {
        (Err(e), Some(header)) => {
            let plain = compile_with(source, scratch.path(), None, program, stack_usage).map_err(|_| e)?;
            // The source was sound, so the precompiled headers were not: the next process
            // builds them again.
            cache::remove_entry(&gch_path(header));
            cache::remove_entry(header);
            Ok(plain)
        }
        (result, _) => result,
    }
}

fn compile_with(source: &str, dir: &Path, pch: Option<&Path>, program: &'static str, stack_usage: bool) -> Result<Built, Error> {
    // A directory of its own, the compiler's working directory: whatever it writes beside the
    // library (the `.su` files, whose names differ between compilers) is this build's.
    let absolute = |p: &Path| std::path::absolute(p).map_err(|e| Error::InvalidConfig(format!("cannot place the host kernel under {}: {e}", p.display())));
    let build = absolute(&dir.join(format!("{program}-{}.building", next_build())))?;
    std::fs::create_dir(&build).map_err(|e| Error::InvalidConfig(format!("cannot make {}: {e}", build.display())))?;
    let built = compile_in(source, &build, pch.map(absolute).transpose()?.as_deref(), program, stack_usage);
    let _ = std::fs::remove_dir_all(&build);
    built
}

fn compile_in(source: &str, build: &Path, pch: Option<&Path>, program: &'static str, stack_usage: bool) -> Result<Built, Error> {
    let output = build.join("kernel.so");
    let mut command = Command::new("c++");
    command.current_dir(build).args(HOST_FLAGS);
    if stack_usage {
        command.arg("-fstack-usage");
    }
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
    let image = std::fs::read(&output).map_err(|e| Error::InvalidConfig(format!("cannot read the host kernel {}: {e}", output.display())))?;
    let stack_usage = stack_usage.then(|| read_stack_usage(build)).flatten();
    Ok(Built { image, stack_usage })
}

/// Every `.su` file the compiler wrote in `build`, one after the other; `None` if it wrote none.
fn read_stack_usage(build: &Path) -> Option<String> {
    let mut text = String::new();
    for entry in std::fs::read_dir(build).ok()?.flatten() {
        if entry.path().extension().is_some_and(|e| e == "su") {
            text.push_str(&std::fs::read_to_string(entry.path()).ok()?);
            text.push('\n');
        }
    }
    (!text.is_empty()).then_some(text)
}

/// A number for a file name, unique in this process.
fn next_build() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}
