//! nvJitLink, the CUDA device linker, loaded at run time (cudarc 0.19 has no bindings).
//!
//! NVSHMEM's device API is inline code that calls into `libnvshmem_device.a`, so a kernel
//! using it is compiled relocatable (`-rdc=true`) to PTX and linked with that archive into a
//! CUBIN here. Only the handful of entry points this needs are bound; each call's result is
//! checked and a failure carries the linker's error log.

use super::locate::{self, Overrides};
use crate::error::Error;
use crate::gpu::build::libs;
use libloading::Library;
use std::ffi::{c_char, c_int, c_void, CString};
use std::path::Path;
use std::sync::OnceLock;

type Handle = *mut c_void;

/// `nvJitLinkInputType` (nvJitLink.h).
const INPUT_PTX: c_int = 2;
const INPUT_LIBRARY: c_int = 6;

/// The bound entry points. The plain names are exported by every libnvJitLink.so.13 (the
/// header's inline wrappers call versioned aliases of the same functions).
struct Api {
    create: unsafe extern "C" fn(*mut Handle, u32, *const *const c_char) -> c_int,
    destroy: unsafe extern "C" fn(*mut Handle) -> c_int,
    add_data: unsafe extern "C" fn(Handle, c_int, *const c_void, usize, *const c_char) -> c_int,
    add_file: unsafe extern "C" fn(Handle, c_int, *const c_char) -> c_int,
    complete: unsafe extern "C" fn(Handle) -> c_int,
    cubin_size: unsafe extern "C" fn(Handle, *mut usize) -> c_int,
    cubin: unsafe extern "C" fn(Handle, *mut c_void) -> c_int,
    error_log_size: unsafe extern "C" fn(Handle, *mut usize) -> c_int,
    error_log: unsafe extern "C" fn(Handle, *mut c_char) -> c_int,
    info_log_size: unsafe extern "C" fn(Handle, *mut usize) -> c_int,
    info_log: unsafe extern "C" fn(Handle, *mut c_char) -> c_int,
    _lib: Library,
}

impl Api {
    /// Finds and opens nvJitLink and binds its functions; the error lists what was searched.
    fn load(overrides: &Overrides) -> Result<Api, Vec<String>> {
        let path = locate::nvjitlink(overrides)?;
        let shown = path.as_deref().map_or(locate::NVJITLINK_SONAME.into(), |p| p.display().to_string());
        // SAFETY: loading nvJitLink runs only its initialisers.
        let lib = unsafe {
            match &path {
                Some(p) => Library::new(p),
                None => Library::new(locate::NVJITLINK_SONAME),
            }
        }
        .map_err(|e| vec![format!("{shown}: {e}")])?;
        macro_rules! sym {
            // SAFETY: each field's type is the signature nvJitLink.h declares for its name.
            ($name:literal) => {
                unsafe { libs::symbol(&lib, $name, &shown)? }
            };
        }
        Ok(Api {
            create: sym!("nvJitLinkCreate"),
            destroy: sym!("nvJitLinkDestroy"),
            add_data: sym!("nvJitLinkAddData"),
            add_file: sym!("nvJitLinkAddFile"),
            complete: sym!("nvJitLinkComplete"),
            cubin_size: sym!("nvJitLinkGetLinkedCubinSize"),
            cubin: sym!("nvJitLinkGetLinkedCubin"),
            error_log_size: sym!("nvJitLinkGetErrorLogSize"),
            error_log: sym!("nvJitLinkGetErrorLog"),
            info_log_size: sym!("nvJitLinkGetInfoLogSize"),
            info_log: sym!("nvJitLinkGetInfoLog"),
            _lib: lib,
        })
    }
}

/// nvJitLink for this process, opened on first use (single-GPU runs never get here).
fn api() -> Result<&'static Api, Error> {
    static API: OnceLock<Result<Api, Vec<String>>> = OnceLock::new();
    API.get_or_init(|| Api::load(&Overrides::from_env())).as_ref().map_err(|searched| locate::nvjitlink_missing(searched.clone()))
}

/// Checks that nvJitLink can be found and opened under `overrides` (without keeping it).
pub fn probe(overrides: &Overrides) -> Result<(), Error> {
    Api::load(overrides).map(|_| ()).map_err(locate::nvjitlink_missing)
}

/// One input of a link.
pub enum Input<'a> {
    /// PTX text from NVRTC (compiled with `-rdc=true`).
    Ptx {
        /// Its name in the linker's messages.
        name: &'a str,
        /// The PTX.
        text: &'a [u8],
    },
    /// A static library of device code (`libnvshmem_device.a`).
    Library(&'a Path),
}

/// Links `inputs` into a CUBIN for `arch` (e.g. `sm_90`). `program` names the kernel in errors.
pub fn link(program: &'static str, inputs: &[Input<'_>], arch: &str) -> Result<Vec<u8>, Error> {
    let api = api()?;
    let options = [CString::new(format!("-arch={arch}")).map_err(|_| Error::InvalidConfig(format!("bad architecture {arch:?}")))?];
    let option_ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
    let mut handle: Handle = std::ptr::null_mut();
    // SAFETY: the options outlive the call; `handle` receives a new linker.
    let status = unsafe { (api.create)(&mut handle, option_ptrs.len() as u32, option_ptrs.as_ptr()) };
    if status != 0 {
        return Err(Error::Link { program, log: format!("nvJitLinkCreate(-arch={arch}) returned {status}") });
    }
    let linker = Linker { api, handle };
    for input in inputs {
        let (what, status) = match input {
            Input::Ptx { name, text } => {
                let name = CString::new(*name).unwrap_or_default();
                // SAFETY: `text` and `name` outlive the call; nvJitLink copies the data.
                (format!("adding the PTX {name:?}"), unsafe {
                    (api.add_data)(handle, INPUT_PTX, text.as_ptr() as *const c_void, text.len(), name.as_ptr())
                })
            }
            Input::Library(path) => {
                let c_path = CString::new(path.as_os_str().as_encoded_bytes())
                    .map_err(|_| Error::InvalidConfig(format!("library path {} contains a NUL byte", path.display())))?;
                // SAFETY: the path outlives the call.
                (format!("adding the library {}", path.display()), unsafe { (api.add_file)(handle, INPUT_LIBRARY, c_path.as_ptr()) })
            }
        };
        linker.check(program, &what, status)?;
    }
    // SAFETY: `handle` is live; the buffer is sized by nvJitLink.
    unsafe {
        linker.check(program, "linking", (api.complete)(handle))?;
        let mut size = 0usize;
        linker.check(program, "sizing the CUBIN", (api.cubin_size)(handle, &mut size))?;
        let mut image = vec![0u8; size];
        linker.check(program, "reading the CUBIN", (api.cubin)(handle, image.as_mut_ptr() as *mut c_void))?;
        Ok(image)
    }
}

/// A live nvJitLink handle, destroyed on drop.
struct Linker {
    api: &'static Api,
    handle: Handle,
}

impl Linker {
    /// `Ok` for status 0; else the error with nvJitLink's error and info logs.
    fn check(&self, program: &'static str, what: &str, status: c_int) -> Result<(), Error> {
        if status == 0 {
            return Ok(());
        }
        let mut log = format!("{what} failed: {} (nvJitLinkResult {status})", result_name(status));
        for (name, size_fn, log_fn) in [("error log", self.api.error_log_size, self.api.error_log), ("info log", self.api.info_log_size, self.api.info_log)] {
            let text = self.read_log(size_fn, log_fn);
            if !text.is_empty() {
                log.push_str(&format!("\n{name}:\n{text}"));
            }
        }
        Err(Error::Link { program, log })
    }

    fn read_log(
        &self,
        size_fn: unsafe extern "C" fn(Handle, *mut usize) -> c_int,
        log_fn: unsafe extern "C" fn(Handle, *mut c_char) -> c_int,
    ) -> String {
        let mut size = 0usize;
        // SAFETY: `handle` is live; the buffer is sized by nvJitLink (the size counts the NUL).
        unsafe {
            if size_fn(self.handle, &mut size) != 0 || size == 0 {
                return String::new();
            }
            let mut buf = vec![0u8; size + 1];
            if log_fn(self.handle, buf.as_mut_ptr() as *mut c_char) != 0 {
                return String::new();
            }
            String::from_utf8_lossy(&buf).trim_end_matches('\0').trim().to_string()
        }
    }
}

impl Drop for Linker {
    fn drop(&mut self) {
        // SAFETY: the handle is not used after this.
        unsafe { (self.api.destroy)(&mut self.handle) };
    }
}

/// `nvJitLinkResult` names, for messages.
fn result_name(status: c_int) -> &'static str {
    const NAMES: [&str; 19] = [
        "NVJITLINK_SUCCESS",
        "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
        "NVJITLINK_ERROR_MISSING_ARCH",
        "NVJITLINK_ERROR_INVALID_INPUT",
        "NVJITLINK_ERROR_PTX_COMPILE",
        "NVJITLINK_ERROR_NVVM_COMPILE",
        "NVJITLINK_ERROR_INTERNAL",
        "NVJITLINK_ERROR_THREADPOOL",
        "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
        "NVJITLINK_ERROR_FINALIZE",
        "NVJITLINK_ERROR_NULL_INPUT",
        "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
        "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
        "NVJITLINK_ERROR_ARCH_MISMATCH",
        "NVJITLINK_ERROR_OUTDATED_LIBRARY",
        "NVJITLINK_ERROR_MISSING_FATBIN",
        "NVJITLINK_ERROR_UNRECOGNIZED_ARCH",
        "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
        "NVJITLINK_ERROR_LTO_NOT_ENABLED",
    ];
    usize::try_from(status).ok().and_then(|i| NAMES.get(i)).copied().unwrap_or("unknown result")
}
