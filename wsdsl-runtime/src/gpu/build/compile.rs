//! NVRTC: megakernel source -> CUBIN for one exact architecture, with an on-disk cache.
//!
//! The cache (`cache/`) lives in `$WSDSL_CACHE_DIR`, else `$XDG_CACHE_HOME/wsdsl`, else
//! `~/.cache/wsdsl`, a private directory. An entry is `<program>-<hash>-<arch>.cubin`,
//! checked against its length and digest and the source it was built from before it is used
//! (a hash collision can never load the wrong kernel, a damaged file is compiled again). A
//! cache that cannot be used or written only costs a recompile.

use crate::cache::{self, stable_hash, Checked};
use crate::gpu::build::assemble::dump_if_requested;
use crate::gpu::build::libs;
use crate::error::Error;
use cudarc::nvrtc::{result as nvrtc, sys as nvrtc_sys};
use std::ffi::CString;
use std::path::{Path, PathBuf};

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
    /// The CUBIN's bytes (an ELF image the driver loads).
    pub image: Vec<u8>,
    /// Whether it came from the disk cache rather than from NVRTC.
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
    /// Nothing: the C++ front end only (`-fdevice-syntax-only`), for checks.
    FrontEnd,
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
    cached_in(kernel_dir().as_deref(), program, source, arch, key, build)
}

/// [`cached`] in the cache directory `dir` (none: no cache).
pub(crate) fn cached_in(
    dir: Option<&Path>,
    program: &'static str,
    source: &str,
    arch: &str,
    key: u64,
    build: impl FnOnce() -> Result<Vec<u8>, Error>,
) -> Result<Cubin, Error> {
    let entry = dir.map(|d| d.join(format!("{program}-{key:016x}-{arch}.cubin")));
    if let Some(entry) = &entry {
        match cache::read_checked(entry, source.as_bytes()) {
            Checked::Hit(image) => return Ok(Cubin { image, from_cache: true }),
            Checked::Absent => {}
            Checked::Bad(why) => eprintln!("wsdsl: the cached kernel {} is not used ({why}); compiling it again", entry.display()),
        }
    }
    let image = build()?;
    if let Some(entry) = &entry {
        if let Err(e) = cache::write_checked(entry, source.as_bytes(), &image) {
            eprintln!("wsdsl: kernel cache not written ({}): {e}", entry.display());
        }
    }
    Ok(Cubin { image, from_cache: false })
}

/// The private cache directory, or none (said once) when there is no usable one.
pub(crate) fn kernel_dir() -> Option<PathBuf> {
    // Every write into the cache comes after this look.
    cache::writes_report_file_size_limits();
    let Some(root) = cache::root() else {
        cache::warn_once("compiled kernels are not cached: set WSDSL_CACHE_DIR (or HOME) to say where".into());
        return None;
    };
    match cache::private_dir(&root) {
        Ok(dir) => Some(dir),
        Err(why) => {
            cache::warn_once(format!("compiled kernels are not cached: {why}"));
            None
        }
    }
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

/// NVRTC's C++ front end alone on `source` for `arch` (`sm_90` or `compute_90`): the CUDA is
/// parsed and type-checked, with every template it uses instantiated, and no code is made.
/// It takes milliseconds where a CUBIN of an example's kernel takes one to sixteen seconds,
/// so tests that go through matrices of programs and configurations use it. What it cannot
/// see is what NVVM and ptxas do: the inline PTX of the templates and the kernel's resources.
pub fn front_end_uncached(program: &'static str, source: &str, arch: &str) -> Result<(), Error> {
    let mut opts = options(&arch.replace("sm_", "compute_"));
    opts.push("-fdevice-syntax-only".into());
    compile(program, source, &opts, Output::FrontEnd).map(drop)
}

/// Runs NVRTC on `source` with `opts`; returns the CUBIN or the PTX (with its trailing NUL),
/// or nothing for the front end alone.
pub(crate) fn compile(program: &'static str, source: &str, opts: &[String], output: Output) -> Result<Vec<u8>, Error> {
    libs::ensure_nvrtc()?;
    let nvrtc_err = |during: &'static str| move |e: nvrtc::NvrtcError| Error::Driver { during, message: format!("{e:?}") };
    let c_src = CString::new(source).map_err(|_| Error::InvalidConfig("kernel source contains a NUL byte".into()))?;
    let name = CString::new(format!("{program}.cu")).expect("program names have no NUL");
    let prog = nvrtc::create_program(&c_src, Some(&name)).map_err(nvrtc_err("creating the NVRTC program"))?;
    // SAFETY: `prog` is a live program until destroy_program below; buffers are sized by NVRTC.
    let outcome = unsafe {
        match nvrtc::compile_program(prog, opts) {
            Ok(()) if output == Output::FrontEnd => Ok(Vec::new()),
            Ok(()) => {
                let (get_size, get): (unsafe fn(_, *mut usize) -> _, unsafe fn(_, *mut _) -> _) =
                    match output {
                        Output::Cubin => (nvrtc_sys::nvrtcGetCUBINSize, nvrtc_sys::nvrtcGetCUBIN),
                        Output::Ptx => (nvrtc_sys::nvrtcGetPTXSize, nvrtc_sys::nvrtcGetPTX),
                        Output::FrontEnd => unreachable!("the front end's success is answered above"),
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
    // Kept in the private cache directory (a predictable name in a shared one could be a
    // link planted to make this write elsewhere).
    let saved = dump_if_requested(program, key, source).or_else(|| {
        let path = kernel_dir()?.join(format!("{program}-{key:016x}.failed.cu"));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvrtc_locations_are_parsed() {
        assert_eq!(parse_location("examples/fib.rs(12): error: identifier x"), Some(("examples/fib.rs", 12)));
        assert_eq!(parse_location("no location here"), None);
    }

    /// A CUBIN entry of the cache damaged in each way the review found is compiled again, with
    /// the same image, and the entry is whole afterwards.
    #[test]
    fn damaged_cache_entries_are_compiled_again() {
        let dir = std::env::temp_dir().join(format!("wsdsl-nvrtc-cache-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let dir = cache::private_dir(&dir).unwrap();
        let image: Vec<u8> = (0..20_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let builds = std::cell::Cell::new(0);
        let build = || {
            builds.set(builds.get() + 1);
            Ok(image.clone())
        };
        let get = || cached_in(Some(&dir), "k", "source", "sm_90", 1, build).unwrap();
        assert!(!get().from_cache);
        assert!(get().from_cache && get().image == image);
        let entry = dir.join("k-0000000000000001-sm_90.cubin");
        let foreign = dir.join("other.cubin");
        cache::write_checked(&foreign, b"source", b"another kernel's image").unwrap();
        let damage: [(&str, Box<dyn Fn()>); 4] = [
            ("truncated to 1000 bytes", Box::new(|| std::fs::write(&entry, &image[..1000]).unwrap())),
            ("random bytes", Box::new(|| std::fs::write(&entry, image.iter().map(|b| b.wrapping_mul(31) ^ 0x5a).collect::<Vec<u8>>()).unwrap())),
            ("emptied", Box::new(|| std::fs::write(&entry, b"").unwrap())),
            ("foreign", Box::new(|| std::fs::copy(&foreign, &entry).map(|_| ()).unwrap())),
        ];
        for (how, damage) in damage {
            let before = builds.get();
            damage();
            let again = get();
            assert!(!again.from_cache && again.image == image && builds.get() == before + 1, "{how}: not compiled again");
            assert!(get().from_cache, "{how}: the entry is whole again");
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn excerpt_shows_the_generated_lines_of_the_rust_line() {
        let src = "a\nb\n#line 7 \"k.rs\"\nbad;\nc\n";
        let ex = excerpt_for(src, "k.rs(7): error: bad things");
        assert!(ex.contains("     3 | #line 7 \"k.rs\""), "{ex}");
        assert!(ex.contains("     4 | bad;"), "{ex}");
    }
}
