//! Finding what the NVSHMEM path needs, each with a clear error listing what was searched:
//! NVSHMEM itself (headers, `libnvshmem_device.a`, `libnvshmem_host.so.3`, the unique-id
//! bootstrap plugin), the CUDA runtime headers and CCCL (`cuda/std/...`) that NVSHMEM's
//! device headers include, and nvJitLink.
//!
//! Each is looked for in an explicit override first (used alone when set, so a wrong
//! override is an error rather than a silent fall-back to another install), then in a CUDA
//! toolkit (`$CUDA_PATH`, `$CUDA_HOME`, `/usr/local/cuda`), then in the pip wheels of the
//! `python3` on PATH (`site-packages/nvidia/...`), as `gpu/build/libs.rs` finds NVRTC.

use crate::error::Error;
use crate::gpu::build::libs::{cuda_roots, pip_dirs, toolkit_lib_dirs};
use std::path::{Path, PathBuf};

/// The pip packages README's test command installs (the versions CI checks).
pub const PIP_PACKAGES: &str = "nvidia-nvjitlink==13.0.88 nvidia-nvshmem-cu13==3.8.0 nvidia-cuda-cccl==13.0.85 nvidia-cuda-runtime==13.0.96";

const NVSHMEM_HINT: &str = "Install NVSHMEM with `pip install nvidia-nvshmem-cu13==3.8.0` (no GPU needed to compile), \
or set WSDSL_NVSHMEM (or NVSHMEM_HOME) to an NVSHMEM install holding include/nvshmem.h and lib/.";
const NVJITLINK_HINT: &str = "Install nvJitLink with `pip install nvidia-nvjitlink==13.0.88` (no GPU needed), \
or set WSDSL_NVJITLINK to the full path of libnvJitLink.so.13, or CUDA_PATH to a CUDA toolkit.";
const CUDA_HEADERS_HINT: &str = "NVSHMEM's device headers include cuda_runtime.h and cuda_fp16.h: \
`pip install nvidia-cuda-runtime==13.0.96`, or set CUDA_PATH to a CUDA toolkit.";
const CCCL_HINT: &str = "NVSHMEM's device headers include cuda/std/...: `pip install nvidia-cuda-cccl==13.0.85`, \
or set CUDA_PATH to a CUDA toolkit (include/cccl).";

/// Explicit locations that replace the search. Read from the environment by
/// [`Overrides::from_env`]; tests build their own rather than changing the process's
/// environment under other threads.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// `WSDSL_NVSHMEM`: an NVSHMEM install root (`include/`, `lib/`).
    pub nvshmem: Option<PathBuf>,
    /// `WSDSL_NVJITLINK`: the full path of `libnvJitLink.so*`.
    pub nvjitlink: Option<PathBuf>,
}

impl Overrides {
    /// The overrides the variables `WSDSL_NVSHMEM` and `WSDSL_NVJITLINK` set.
    pub fn from_env() -> Overrides {
        Overrides {
            nvshmem: std::env::var_os("WSDSL_NVSHMEM").map(PathBuf::from),
            nvjitlink: std::env::var_os("WSDSL_NVJITLINK").map(PathBuf::from),
        }
    }
}

/// An NVSHMEM install: its headers and its libraries.
#[derive(Clone, Debug)]
pub struct Nvshmem {
    /// Holds `nvshmem.h`.
    pub include: PathBuf,
    /// Holds the device library, the host library and the bootstrap plugins.
    pub lib: PathBuf,
}

impl Nvshmem {
    /// The device library nvJitLink links kernels with.
    pub fn device_lib(&self) -> PathBuf {
        self.lib.join("libnvshmem_device.a")
    }
    /// The host library (loaded only by multi-GPU runs).
    pub fn host_lib(&self) -> PathBuf {
        self.lib.join("libnvshmem_host.so.3")
    }
    /// The bootstrap plugin that the unique-id initialisation opens.
    pub fn uid_plugin(&self) -> PathBuf {
        self.lib.join("nvshmem_bootstrap_uid.so.3")
    }
}

/// Finds an NVSHMEM install with headers and the device library: `WSDSL_NVSHMEM` alone if
/// set, else `$NVSHMEM_HOME`, the pip wheel, then the layout expected of NVIDIA's Debian/Ubuntu
/// packages (`/usr/include/nvshmem_13`, `/usr/lib/<triple>/nvshmem/13`).
pub fn nvshmem(overrides: &Overrides) -> Result<Nvshmem, Error> {
    // (install, how it is named in the error)
    let mut candidates: Vec<(Nvshmem, String)> = Vec::new();
    let root = |r: &Path, why: &str| (Nvshmem { include: r.join("include"), lib: r.join("lib") }, format!("{} ({why})", r.display()));
    if let Some(r) = &overrides.nvshmem {
        candidates.push(root(r, "WSDSL_NVSHMEM"));
    } else {
        if let Some(r) = std::env::var_os("NVSHMEM_HOME") {
            candidates.push(root(Path::new(&r), "NVSHMEM_HOME"));
        }
        for r in pip_dirs(&["nvidia/nvshmem"]) {
            candidates.push(root(&r, "pip nvidia-nvshmem-cu13"));
        }
        let triple = format!("{}-linux-gnu", std::env::consts::ARCH);
        let system = Nvshmem { include: PathBuf::from("/usr/include/nvshmem_13"), lib: Path::new("/usr/lib").join(triple).join("nvshmem/13") };
        let label = format!("{} and {} (system package)", system.include.display(), system.lib.display());
        candidates.push((system, label));
    }
    let mut searched = Vec::new();
    for (install, label) in candidates {
        let missing: Vec<String> = [install.include.join("nvshmem.h"), install.device_lib()]
            .into_iter()
            .filter(|p| !p.is_file())
            .map(|p| p.display().to_string())
            .collect();
        if missing.is_empty() {
            return Ok(install);
        }
        searched.push(format!("{label}: no {}", missing.join(", ")));
    }
    Err(Error::LibraryMissing { library: "NVSHMEM (headers and libnvshmem_device.a)", searched, hint: NVSHMEM_HINT })
}

/// The include directory holding `cuda_runtime.h` and `cuda_fp16.h`.
pub fn cuda_headers() -> Result<PathBuf, Error> {
    let mut dirs: Vec<PathBuf> = cuda_roots().iter().map(|r| r.join("include")).collect();
    dirs.extend(pip_dirs(&["nvidia/cu13/include", "nvidia/cuda_runtime/include"]));
    first_holding(dirs, &["cuda_runtime.h", "cuda_fp16.h"])
        .map_err(|searched| Error::LibraryMissing { library: "the CUDA runtime headers", searched, hint: CUDA_HEADERS_HINT })
}

/// The include directory holding CCCL's `cuda/std/type_traits` (a toolkit's `include/cccl`;
/// toolkits before 13 kept it directly in `include`).
pub fn cccl_headers() -> Result<PathBuf, Error> {
    let mut dirs = Vec::new();
    for r in cuda_roots() {
        dirs.push(r.join("include/cccl"));
        dirs.push(r.join("include"));
    }
    dirs.extend(pip_dirs(&["nvidia/cu13/include/cccl", "nvidia/cuda_cccl/include"]));
    first_holding(dirs, &["cuda/std/type_traits"])
        .map_err(|searched| Error::LibraryMissing { library: "CCCL (libcu++ headers, cuda/std/...)", searched, hint: CCCL_HINT })
}

/// Where to load nvJitLink from: `WSDSL_NVJITLINK` alone if set, else the soname on the
/// dynamic loader path (`None` here: the loader finds it), else a toolkit or pip directory.
/// The error lists every place tried.
pub fn nvjitlink(overrides: &Overrides) -> Result<Option<PathBuf>, Vec<String>> {
    if let Some(p) = &overrides.nvjitlink {
        return if p.is_file() { Ok(Some(p.clone())) } else { Err(vec![format!("{} (WSDSL_NVJITLINK): no such file", p.display())]) };
    }
    if loader_finds(NVJITLINK_SONAME) {
        return Ok(None);
    }
    let mut searched = vec![format!("{NVJITLINK_SONAME} on the dynamic loader path (LD_LIBRARY_PATH, ldconfig)")];
    let mut dirs = toolkit_lib_dirs();
    dirs.extend(pip_dirs(&["nvidia/cu13/lib", "nvidia/nvjitlink/lib"]));
    match first_holding(dirs, &[NVJITLINK_SONAME]) {
        Ok(dir) => Ok(Some(dir.join(NVJITLINK_SONAME))),
        Err(dirs) => {
            searched.extend(dirs);
            Err(searched)
        }
    }
}

/// nvJitLink's soname for CUDA 13 (its API is versioned within the major release).
pub const NVJITLINK_SONAME: &str = "libnvJitLink.so.13";

/// The error for an nvJitLink that could not be found or opened.
pub fn nvjitlink_missing(searched: Vec<String>) -> Error {
    Error::LibraryMissing { library: "libnvJitLink (nvJitLink, the CUDA device linker)", searched, hint: NVJITLINK_HINT }
}

/// The error for an NVSHMEM host library or plugin that could not be opened.
pub fn nvshmem_missing(searched: Vec<String>) -> Error {
    Error::LibraryMissing { library: "NVSHMEM's host library (libnvshmem_host.so.3)", searched, hint: NVSHMEM_HINT }
}

fn loader_finds(soname: &str) -> bool {
    // SAFETY: probing only opens (and closes) the library; no symbol is called.
    unsafe { libloading::Library::new(soname) }.is_ok()
}

/// The first of `dirs` that holds every one of `files`; else each directory, as searched.
fn first_holding(dirs: Vec<PathBuf>, files: &[&str]) -> Result<PathBuf, Vec<String>> {
    let mut searched = Vec::new();
    for dir in dirs {
        if files.iter().all(|f| dir.join(f).is_file()) {
            return Ok(dir);
        }
        searched.push(format!("{} (for {})", dir.display(), files.join(", ")));
    }
    Err(searched)
}
