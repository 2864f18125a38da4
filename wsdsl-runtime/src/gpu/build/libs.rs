//! Finding libcuda and libnvrtc before cudarc tries (cudarc panics when a library is missing).
//!
//! cudarc loads libraries by soname through the dynamic loader. Where the loader cannot find
//! NVRTC by itself (a pip-installed `nvidia-cuda-nvrtc`, a toolkit outside the loader path),
//! we load it by full path first: the loader then hands cudarc that same library for the
//! soname. Every location tried is reported if nothing is found. `WSDSL_NVRTC`, set, is the only
//! place looked at: what the user named is used or is the error.

use crate::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const NVRTC_HINT: &str = "Install NVRTC with `pip install nvidia-cuda-nvrtc==13.0.88` (no GPU needed), \
or set WSDSL_NVRTC to the full path of libnvrtc.so, or CUDA_PATH to a CUDA toolkit.";
const DRIVER_HINT: &str = "The CUDA driver (libcuda.so.1) comes with the NVIDIA GPU driver; \
without it only the CPU backend can run (WSDSL_BACKEND=cpu).";

const NAMED_NVRTC_HINT: &str = "WSDSL_NVRTC names the NVRTC to use, so no other is looked for: set it to the full path of \
NVRTC's libnvrtc.so.13 (pip's nvidia-cuda-nvrtc puts it in site-packages/nvidia/cu13/lib), or unset it to search the \
loader path, CUDA_PATH and pip's packages.";

/// Why NVRTC was not loaded.
#[derive(Clone)]
enum NotLoaded {
    /// Not found: every place searched.
    Searched(Vec<String>),
    /// `WSDSL_NVRTC`'s path is not an NVRTC that can be used, and why.
    Named { path: String, why: String },
}

/// Makes sure cudarc can load libnvrtc; loads it by full path if the loader cannot find it.
pub fn ensure_nvrtc() -> Result<(), Error> {
    static RESULT: OnceLock<Result<(), NotLoaded>> = OnceLock::new();
    let library = "libnvrtc (NVRTC, the CUDA runtime compiler)";
    RESULT.get_or_init(locate_nvrtc).clone().map_err(|not| match not {
        NotLoaded::Searched(searched) => Error::LibraryMissing { library, searched, hint: NVRTC_HINT },
        NotLoaded::Named { path, why } => Error::LibraryMissing { library, searched: vec![format!("WSDSL_NVRTC={path}: {why}")], hint: NAMED_NVRTC_HINT },
    })
}

/// Makes sure cudarc can load the CUDA driver library.
pub fn ensure_driver() -> Result<(), Error> {
    // SAFETY: probing only opens the library; no symbol is called.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        return Ok(());
    }
    Err(Error::LibraryMissing {
        library: "libcuda (the CUDA driver)",
        searched: {
            let names = cudarc::get_lib_name_candidates("cuda");
            let mut unique: Vec<String> = Vec::new();
            for n in names {
                if !unique.contains(&n) {
                    unique.push(n);
                }
            }
            vec![format!("{} on the dynamic loader path", unique.join(", "))]
        },
        hint: DRIVER_HINT,
    })
}

fn locate_nvrtc() -> Result<(), NotLoaded> {
    // Set, it is what the user asked for: another NVRTC found instead would be used without
    // a word.
    if let Some(path) = std::env::var_os("WSDSL_NVRTC").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        return load_named(&path).map_err(|why| NotLoaded::Named { path: path.display().to_string(), why });
    }
    let mut searched = Vec::new();
    // SAFETY: probing only opens the library; no symbol is called.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Ok(());
    }
    searched.push("libnvrtc.so* on the dynamic loader path (LD_LIBRARY_PATH, ldconfig)".into());
    for dir in candidate_dirs() {
        for name in ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"] {
            let path = dir.join(name);
            if path.exists() && preload(&path) {
                return Ok(());
            }
        }
        searched.push(dir.display().to_string());
    }
    Err(NotLoaded::Searched(searched))
}

/// Loads the NVRTC at `path` if it is one (it has NVRTC's functions) and it is the one cudarc
/// then gets (cudarc opens NVRTC by its sonames); otherwise why not, as the rest of a sentence.
fn load_named(path: &Path) -> Result<(), String> {
    type Version = unsafe extern "C" fn(*mut i32, *mut i32) -> i32;
    let version = |lib: &libloading::Library| {
        // SAFETY: only the address is taken; `nvrtcVersion` has this signature in NVRTC.
        unsafe { lib.get::<Version>(b"nvrtcVersion\0") }.ok().map(|f| *f as usize)
    };
    // Looked at before it is loaded for all (RTLD_GLOBAL): another library's symbols would then
    // resolve every later library's.
    // SAFETY: opening runs the library's initialisers; the user named it as NVRTC.
    let lib = unsafe { libloading::Library::new(path) }.map_err(|e| format!("cannot be loaded: {e}"))?;
    for name in ["nvrtcVersion", "nvrtcCreateProgram", "nvrtcCompileProgram", "nvrtcGetCUBIN", "nvrtcGetProgramLog"] {
        // SAFETY: only looked up, never called.
        if unsafe { lib.get::<unsafe extern "C" fn()>(name.as_bytes()) }.is_err() {
            return Err(format!("is not NVRTC: it has no {name}"));
        }
    }
    if !preload(path) {
        return Err("has NVRTC's functions, but cudarc does not find it by the names it loads NVRTC by (libnvrtc.so.13, libnvrtc.so)".into());
    }
    for name in cudarc::get_lib_name_candidates("nvrtc") {
        // SAFETY: as cudarc itself opens it; no symbol is called.
        if let Ok(theirs) = unsafe { libloading::Library::new(&name) } {
            return if version(&theirs) == version(&lib) {
                Ok(())
            } else {
                Err(format!("is loaded, but cudarc loads NVRTC as `{name}`, which the loader finds elsewhere (put this directory first on LD_LIBRARY_PATH)"))
            };
        }
    }
    Err("has NVRTC's functions, but cudarc does not find it by the names it loads NVRTC by (libnvrtc.so.13, libnvrtc.so)".into())
}

/// Toolkit and pip locations, most specific first.
fn candidate_dirs() -> Vec<PathBuf> {
    let mut dirs = toolkit_lib_dirs();
    dirs.extend(pip_dirs(&["nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"]));
    dirs
}

/// The library directories of every CUDA toolkit root (`lib64`, then `lib`).
pub(crate) fn toolkit_lib_dirs() -> Vec<PathBuf> {
    cuda_roots().iter().flat_map(|root| [root.join("lib64"), root.join("lib")]).collect()
}

/// The function `name` of `lib` (opened from `shown`), as the function pointer type `F`;
/// a missing one is a line for the error's list of what was searched.
///
/// # Safety
/// `F` must be the signature the library's header declares for `name`.
pub(crate) unsafe fn symbol<F: Copy>(lib: &libloading::Library, name: &str, shown: &str) -> Result<F, Vec<String>> {
    // SAFETY: the caller's promise about `F`.
    unsafe { lib.get::<F>(name.as_bytes()) }.map(|s| *s).map_err(|e| vec![format!("{shown}: no {name}: {e}")])
}

/// CUDA toolkit roots: `$CUDA_PATH`, `$CUDA_HOME`, then the default `/usr/local/cuda`.
pub(crate) fn cuda_roots() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["CUDA_PATH", "CUDA_HOME"].iter().filter_map(std::env::var_os).map(PathBuf::from).collect();
    roots.push(PathBuf::from("/usr/local/cuda"));
    roots
}

/// `relative` under every pip site directory (pip wheels of the CUDA components install
/// under `site-packages/nvidia/...`), site by site.
pub(crate) fn pip_dirs(relative: &[&str]) -> Vec<PathBuf> {
    python_site_dirs().iter().flat_map(|site| relative.iter().map(move |r| site.join(r))).collect()
}

/// Where pip puts packages for the `python3` on PATH (system, user and virtualenv sites).
/// Asked once per process: starting Python costs tens of milliseconds.
fn python_site_dirs() -> &'static [PathBuf] {
    static SITES: OnceLock<Vec<PathBuf>> = OnceLock::new();
    SITES.get_or_init(|| {
        let script = "import site, sys\nfor p in site.getsitepackages() + [site.getusersitepackages()]: print(p)";
        match Command::new("python3").args(["-c", script]).output() {
            Ok(out) if out.status.success() => {
                String::from_utf8_lossy(&out.stdout).lines().map(PathBuf::from).collect()
            }
            _ => Vec::new(),
        }
    })
}

/// Opens a library globally (RTLD_GLOBAL) and keeps it loaded for the life of the process,
/// so that a later `dlopen` of its soname (by cudarc, or by a library's own plugin loader)
/// gets this very file.
pub(crate) fn open_global(path: &Path) -> Result<(), String> {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    // SAFETY: loading a CUDA component runs only its initialisers.
    let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }.map_err(|e| e.to_string())?;
    std::mem::forget(lib);
    Ok(())
}

/// Loads a library globally and keeps it loaded for the life of the process, together with
/// NVRTC's builtins library that sits beside it (NVRTC opens it by soname at compile time).
fn preload(path: &Path) -> bool {
    if let Some(dir) = path.parent() {
        if let Ok(entries) = std::fs::read_dir(dir) {
            let mut builtins: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("libnvrtc-builtins.so")))
                .collect();
            builtins.sort();
            for b in builtins {
                if open_global(&b).is_ok() {
                    break;
                }
            }
        }
    }
    // SAFETY: probing only opens the library; confirms the loader now resolves the soname
    // cudarc asks for.
    open_global(path).is_ok() && unsafe { cudarc::nvrtc::sys::is_culib_present() }
}
