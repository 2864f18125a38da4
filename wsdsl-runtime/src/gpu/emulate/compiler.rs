//! The host C++ compiler as the emulation drives it: where its libraries go, with which
//! options, and how a build is made and checked.

use super::pch::{gch_path, precompiled_headers};
use crate::cache::{self};
use crate::error::Error;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Where the host kernels are kept: `emulation/` in the private cache directory (`cache/`);
/// where there is none, a fresh private directory of this process, emptied as each kernel is
/// loaded (false).
pub(super) fn emulation_dir() -> Result<(PathBuf, bool), Error> {
    if let Some(dir) = crate::gpu::build::compile::kernel_dir().map(|root| cache::private_dir(&root.join("emulation"))) {
        match dir {
            Ok(dir) => return Ok((dir, true)),
            Err(why) => cache::warn_once(format!("host kernels are not cached: {why}")),
        }
    }
    cache::process_dir("emulation").map(|dir| (dir, false)).map_err(Error::InvalidConfig)
}

/// The host compiler's options for a kernel library. -O1: the kernels are a test instrument
/// run on small inputs, and -O1 compiles a third faster than -O2 (most tests spend more time
/// compiling their kernels than running them).
const HOST_FLAGS: [&str; 5] = ["-std=c++17", "-O1", "-U_FORTIFY_SOURCE", "-fPIC", "-pthread"];

/// Compiles `source` with the host C++ compiler in `dir`; the shared library's bytes. With a
/// cache directory the shims' system headers come precompiled ([`precompiled_headers`]),
/// which halves the build; should that build fail, it is tried once more without them.
pub(super) fn compile(source: &str, dir: &std::path::Path, kept: bool, program: &'static str) -> Result<Vec<u8>, Error> {
    let pch = if kept { precompiled_headers(dir, &HOST_FLAGS) } else { None };
    match (compile_with(source, dir, pch.as_deref(), program), &pch) {
        (Err(e), Some(header)) => {
            let plain = compile_with(source, dir, None, program).map_err(|_| e)?;
            // The source was sound, so the precompiled file was not: the next process builds
            // it again.
            let _ = std::fs::remove_file(gch_path(header));
            Ok(plain)
        }
        (result, _) => result,
    }
}

fn compile_with(source: &str, dir: &std::path::Path, pch: Option<&std::path::Path>, program: &'static str) -> Result<Vec<u8>, Error> {
    let tmp = dir.join(format!("{program}-{}-{}.building.so", std::process::id(), next_build()));
    let mut command = Command::new("c++");
    command.args(HOST_FLAGS);
    if let Some(header) = pch {
        command.arg("-include").arg(header);
    }
    let mut child = command
        .args(["-shared", "-w", "-x", "c++", "-", "-o"])
        .arg(&tmp)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::InvalidConfig(format!("the host emulation needs a C++ compiler (`c++`): {e}")))?;
    child.stdin.take().expect("piped").write_all(source.as_bytes()).map_err(|e| Error::InvalidConfig(e.to_string()))?;
    let output = child.wait_with_output().map_err(|e| Error::InvalidConfig(e.to_string()))?;
    if !output.status.success() {
        let _ = std::fs::remove_file(&tmp);
        let log = String::from_utf8_lossy(&output.stderr).lines().take(40).collect::<Vec<_>>().join("\n");
        return Err(Error::Compile { program, compiler: "the host C++ compiler", log, source: None, excerpt: String::new() });
    }
    let image = std::fs::read(&tmp).map_err(|e| Error::InvalidConfig(format!("cannot read the host kernel {}: {e}", tmp.display())));
    let _ = std::fs::remove_file(&tmp);
    image
}

/// A number for a temporary file name, unique in this process.
fn next_build() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}
