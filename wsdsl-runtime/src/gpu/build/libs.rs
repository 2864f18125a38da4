//! Finding libcuda and libnvrtc before cudarc tries (cudarc panics when a library is missing).
//!
//! cudarc loads libraries by soname through the dynamic loader. Where the loader cannot find
//! NVRTC by itself (a pip-installed `nvidia-cuda-nvrtc`, a toolkit outside the loader path),
//! we load it by full path first: the loader then hands cudarc that same library for the
//! soname. Every location tried is reported if nothing is found.

use crate::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const NVRTC_HINT: &str = "Install NVRTC with `pip install nvidia-cuda-nvrtc==13.0.88` (no GPU needed), \
or set WSDSL_NVRTC to the full path of libnvrtc.so, or CUDA_PATH to a CUDA toolkit.";
const DRIVER_HINT: &str = "The CUDA driver (libcuda.so.1) comes with the NVIDIA GPU driver; \
without it only the CPU backend can run (WSDSL_BACKEND=cpu).";

/// Makes sure cudarc can load libnvrtc; loads it by full path if the loader cannot find it.
pub fn ensure_nvrtc() -> Result<(), Error> {
    static RESULT: OnceLock<Result<(), Vec<String>>> = OnceLock::new();
    RESULT.get_or_init(locate_nvrtc).clone().map_err(|searched| Error::LibraryMissing {
        library: "libnvrtc (NVRTC, the CUDA runtime compiler)",
        searched,
        hint: NVRTC_HINT,
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

fn locate_nvrtc() -> Result<(), Vec<String>> {
    let mut searched = Vec::new();
    if let Ok(path) = std::env::var("WSDSL_NVRTC") {
        if preload(Path::new(&path)) {
            return Ok(());
        }
        searched.push(format!("{path} (WSDSL_NVRTC)"));
    }
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
    Err(searched)
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
