//! NVRTC: megakernel source -> CUBIN for one exact architecture, with an on-disk cache.
//!
//! The cache lives in `$WSDSL_CACHE_DIR`, else `$XDG_CACHE_HOME/wsdsl`, else
//! `~/.cache/wsdsl`. An entry is `<program>-<hash>-<arch>.cubin` plus the `.cu` it was built
//! from; a hit requires the stored source to equal the new one, so a hash collision can
//! never load the wrong kernel. A cache that cannot be written only costs a recompile.

use super::assemble::{dump_if_requested, stable_hash};
use super::libs;
use crate::error::Error;
use cudarc::nvrtc::{result as nvrtc, sys as nvrtc_sys};
use std::ffi::CString;
use std::path::PathBuf;

/// Compiler options. `--fmad=false` keeps float arithmetic exactly as Rust computes it
/// (no fused multiply-add contraction); the others are NVRTC's defaults, stated. `arch` is a
/// real architecture (`sm_90`) for a CUBIN, a virtual one (`compute_90`) for PTX.
pub(crate) fn options(arch: &str) -> Vec<String> {
    vec![
        format!("--gpu-architecture={arch}"),
        "--std=c++17".into(),
        "--fmad=false".into(),
        "--prec-div=true".into(),
        "--prec-sqrt=true".into(),
        "--ftz=false".into(),
        "-lineinfo".into(),
    ]
}

/// A compiled kernel image.
pub struct Cubin {
    pub image: Vec<u8>,
    pub from_cache: bool,
}

/// What NVRTC hands back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Output {
    /// A loadable CUBIN (the single-GPU path).
    Cubin,
    /// PTX, for a linker to finish (the NVSHMEM path: `-rdc=true` code that nvJitLink links
    /// with NVSHMEM's device library).
    Ptx,
}

/// Compiles (or fetches from the disk cache) `source` for `arch` (e.g. `sm_90`).
pub fn compile_cached(program: &'static str, source: &str, arch: &str) -> Result<Cubin, Error> {
    let opts = options(arch);
    let key = stable_hash(&[source, arch, &opts.join(" ")]);
    cached(program, source, arch, key, || compile(program, source, &opts, Output::Cubin))
}

/// The disk cache around `build`: the image stored for (`program`, `key`, `arch`) if its
/// stored source equals `source`, else `build()`'s, stored for next time. `key` must hash
/// everything the image depends on besides the source (options, libraries linked in).
pub(crate) fn cached(
    program: &'static str,
    source: &str,
    arch: &str,
    key: u64,
    build: impl FnOnce() -> Result<Vec<u8>, Error>,
) -> Result<Cubin, Error> {
    dump_if_requested(program, key, source);
    let entry = cache_dir().map(|d| d.join(format!("{program}-{key:016x}-{arch}")));
    if let Some(entry) = &entry {
        if let (Ok(stored), Ok(image)) =
            (std::fs::read_to_string(entry.with_extension("cu")), std::fs::read(entry.with_extension("cubin")))
        {
            if stored == source && !image.is_empty() {
                return Ok(Cubin { image, from_cache: true });
            }
        }
    }
    let image = build()?;
    if let Some(entry) = &entry {
        // Each file is written beside its name and renamed into place, so processes compiling
        // the same kernel at once (one per GPU) never read a half-written entry.
        let put = |ext: &str, bytes: &[u8]| {
            let partial = entry.with_extension(format!("{ext}.{}", std::process::id()));
            std::fs::write(&partial, bytes).and_then(|_| std::fs::rename(&partial, entry.with_extension(ext)))
        };
        let written = entry
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|_| put("cubin", &image))
            .and_then(|_| put("cu", source.as_bytes()));
        if let Err(e) = written {
            eprintln!("wsdsl: kernel cache not written ({}): {e}", entry.display());
        }
    }
    Ok(Cubin { image, from_cache: false })
}

/// Compiles `source` with NVRTC without touching the cache.
pub fn compile_uncached(program: &'static str, source: &str, arch: &str) -> Result<Vec<u8>, Error> {
    compile(program, source, &options(arch), Output::Cubin)
}

/// The PTX NVRTC makes of `source` for the virtual architecture `arch` (`compute_90`), with
/// the options of a CUBIN build: for tests that look at what the CUDA compiler kept.
pub fn ptx_uncached(program: &'static str, source: &str, arch: &str) -> Result<String, Error> {
    let ptx = compile(program, source, &options(arch), Output::Ptx)?;
    Ok(String::from_utf8_lossy(&ptx).trim_end_matches('\0').to_string())
}

/// Runs NVRTC on `source` with `opts`; returns the CUBIN or the PTX (with its trailing NUL).
pub(crate) fn compile(program: &'static str, source: &str, opts: &[String], output: Output) -> Result<Vec<u8>, Error> {
    libs::ensure_nvrtc()?;
    let nvrtc_err = |during: &'static str| move |e: nvrtc::NvrtcError| Error::Driver { during, message: format!("{e:?}") };
    let c_src = CString::new(source).map_err(|_| Error::InvalidConfig("kernel source contains a NUL byte".into()))?;
    let name = CString::new(format!("{program}.cu")).expect("program names have no NUL");
    let prog = nvrtc::create_program(&c_src, Some(&name)).map_err(nvrtc_err("creating the NVRTC program"))?;
    // SAFETY: `prog` is a live program until destroy_program below; buffers are sized by NVRTC.
    let outcome = unsafe {
        match nvrtc::compile_program(prog, opts) {
            Ok(()) => {
                let (get_size, get): (unsafe fn(_, *mut usize) -> _, unsafe fn(_, *mut _) -> _) =
                    match output {
                        Output::Cubin => (nvrtc_sys::nvrtcGetCUBINSize, nvrtc_sys::nvrtcGetCUBIN),
                        Output::Ptx => (nvrtc_sys::nvrtcGetPTXSize, nvrtc_sys::nvrtcGetPTX),
                    };
                let mut size = 0usize;
                get_size(prog, &mut size)
                    .result()
                    .and_then(|_| {
                        let mut image = vec![0u8; size];
                        get(prog, image.as_mut_ptr() as *mut _).result().map(|_| image)
                    })
                    .map_err(nvrtc_err(if output == Output::Ptx { "reading the PTX" } else { "reading the CUBIN" }))
            }
            Err(_) => {
                let log = nvrtc::get_program_log(prog)
                    .map(|raw| raw.iter().map(|&c| c as u8 as char).collect::<String>())
                    .unwrap_or_default();
                let log = log.trim_end_matches('\0').trim().to_string();
                Err(compile_error(program, source, log))
            }
        }
    };
    // SAFETY: the program is not used after this.
    let _ = unsafe { nvrtc::destroy_program(prog) };
    outcome
}

/// Builds the error for a failed compile: the log (whose locations are Rust lines, thanks to
/// the `#line` directives), the generated source around the first error, and a saved copy.
fn compile_error(program: &'static str, source: &str, log: String) -> Error {
    let key = stable_hash(&[source]);
    let saved = dump_if_requested(program, key, source).or_else(|| {
        let path = std::env::temp_dir().join(format!("wsdsl-{program}-{key:016x}.cu"));
        std::fs::write(&path, source).ok().map(|_| path)
    });
    Error::Compile { program, compiler: "NVRTC", excerpt: excerpt_for(source, &log), log, source: saved }
}

/// The numbered generated lines near the first diagnostic of the log. NVRTC reports
/// `file(line)` after `#line` remapping, so find the generated line that carries that
/// `#line` directive and show from there.
fn excerpt_for(source: &str, log: &str) -> String {
    let first = log.lines().find(|l| l.contains("error"));
    let Some((file, line)) = first.and_then(parse_location) else { return String::new() };
    let lines: Vec<&str> = source.lines().collect();
    let directive = format!("#line {line} \"{file}\"");
    let Some(at) = lines.iter().position(|l| l.trim() == directive) else { return String::new() };
    let from = at.saturating_sub(3);
    let to = (at + 6).min(lines.len());
    (from..to).map(|i| format!("{:>6} | {}\n", i + 1, lines[i])).collect()
}

/// `path(line): error ...` -> (path, line).
fn parse_location(line: &str) -> Option<(&str, u32)> {
    let open = line.find('(')?;
    let close = open + line[open..].find(')')?;
    let number = line[open + 1..close].parse().ok()?;
    Some((&line[..open], number))
}

fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("WSDSL_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("wsdsl"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("wsdsl"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvrtc_locations_are_parsed() {
        assert_eq!(parse_location("examples/fib.rs(12): error: identifier x"), Some(("examples/fib.rs", 12)));
        assert_eq!(parse_location("no location here"), None);
    }

    #[test]
    fn excerpt_shows_the_generated_lines_of_the_rust_line() {
        let src = "a\nb\n#line 7 \"k.rs\"\nbad;\nc\n";
        let ex = excerpt_for(src, "k.rs(7): error: bad things");
        assert!(ex.contains("     3 | #line 7 \"k.rs\""), "{ex}");
        assert!(ex.contains("     4 | bad;"), "{ex}");
    }
}
