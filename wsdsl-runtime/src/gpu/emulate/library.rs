//! A compiled host kernel: the shared library the host compiler made of a program's
//! assembled source (`compiler.rs`), loaded once per process and kept loaded, with the entry
//! points the host source exports (`source.rs`).

use super::compiler::{compile, emulation_dir, Scratch};
use super::stack::{decode, encode, fiber_stack, frames_of, Frames};
use crate::cache::{self, stable_hash, Checked};
use crate::contract::Program;
use crate::error::Error;
use crate::gpu::run::join::{JoinRecord, JOIN_RECORD_BYTES};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

pub(super) type Gate = unsafe extern "C" fn(*mut std::ffi::c_void);
pub(super) type Launch = unsafe extern "C" fn(*const u8, u32, u32, u32, u32, u32, u64, Option<Gate>, *mut std::ffi::c_void) -> i32;
pub(super) type StatusAddress = unsafe extern "C" fn() -> *mut u64;
pub(super) type QueueBytes = unsafe extern "C" fn() -> u64;
pub(super) type JoinAddress = unsafe extern "C" fn() -> *mut u8;
pub(super) type SetHeaps = unsafe extern "C" fn(*const u64, u32, u32);

/// A compiled host kernel: its library stays loaded for the life of the process.
pub(crate) struct HostKernel {
    /// The program, as a watchdog error names it.
    pub(crate) program: &'static str,
    pub(crate) launch: Launch,
    /// Bytes of each fiber's stack (`stack.rs`).
    pub(crate) stack_bytes: usize,
    pub(crate) status: StatusAddress,
    /// Bytes of one broker queue (broker schedulers only).
    pub(crate) queue_bytes: Option<QueueBytes>,
    /// The address of `wsdsl_join` (programs with joins only).
    pub(crate) join: Option<JoinAddress>,
    /// Names every emulated GPU's heap for the one-sided calls (libraries built to reach
    /// other emulated hosts only: `host_pe_kernel_source`).
    set_heaps: Option<SetHeaps>,
    /// Whether a run holds the library ([`Turn`]).
    busy: std::sync::atomic::AtomicBool,
}

/// A run's hold on a host kernel: its statics (the status record, the join record, the
/// emulated grid, the victim policy of the launch) are one run's at a time, so runs of the
/// same library from several threads of a process take turns.
pub(crate) struct Turn(Arc<HostKernel>);

impl Turn {
    pub(crate) fn take(kernel: Arc<HostKernel>) -> Turn {
        use std::sync::atomic::Ordering;
        while kernel.busy.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
            std::thread::sleep(Duration::from_millis(1));
        }
        Turn(kernel)
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        self.0.busy.store(false, std::sync::atomic::Ordering::Release);
    }
}

impl HostKernel {
    /// Points the library's `wsdsl_join` at a pool; false if the program has no joins.
    pub(crate) fn write_join(&self, record: JoinRecord) -> bool {
        let Some(address) = self.join else { return false };
        // SAFETY: `wsdsl_join` is a record of this size in the loaded library; no kernel of
        // this library runs now (the caller's run owns it).
        unsafe { std::ptr::copy_nonoverlapping(record.to_bytes().as_ptr(), address(), JOIN_RECORD_BYTES) };
        true
    }

    /// Tells the library, emulated GPU `pe`, where every emulated GPU's heap is (before a
    /// launch across emulated hosts).
    pub(crate) fn set_heaps(&self, heaps: &[u64], pe: u32) -> Result<(), Error> {
        let set = self.set_heaps.ok_or_else(|| Error::InvalidConfig(format!("the host build of `{}` does not reach other hosts", self.program)))?;
        // SAFETY: `ws_host_set_heaps` copies `heaps.len()` words; no kernel of this library runs.
        unsafe { set(heaps.as_ptr(), heaps.len() as u32, pe) };
        Ok(())
    }

    /// The library's `wsdsl_join` after a run (programs with joins).
    pub(crate) fn read_join(&self) -> Option<JoinRecord> {
        let address = self.join?;
        // SAFETY: as above; the kernel has returned.
        Some(JoinRecord::from_bytes(unsafe { std::slice::from_raw_parts(address(), JOIN_RECORD_BYTES) }))
    }
}

/// The host build of `source`; `copy` > 0 loads a separate copy of the library, whose
/// statics (the status record, the emulated grid) are its own: one per emulated GPU of a
/// multi-GPU run, which run at the same time in this process.
pub(crate) fn host_kernel_copy<P: Program>(source: &str, copy: u32) -> Result<Arc<HostKernel>, Error> {
    static LOADED: OnceLock<Mutex<HashMap<(u64, u32), Arc<HostKernel>>>> = OnceLock::new();
    let key = stable_hash(&[source, "host-emulation"]);
    let mut loaded = LOADED.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = loaded.get(&(key, copy)) {
        return Ok(k.clone());
    }
    let cache_dir = emulation_dir();
    let entry = cache_dir.as_ref().map(|dir| dir.join(format!("{}-{key:016x}-host.so", P::NAME)));
    // The frames of a program's recursive functions are kept beside its library.
    let frames_file = cache_dir.as_ref().map(|dir| dir.join(format!("{}-{key:016x}-host.frames", P::NAME)));
    let cached_frames = || match P::RECURSION {
        None => Some(None),
        Some(_) => match frames_file.as_ref().map(|file| cache::read_checked(file, source.as_bytes())) {
            Some(Checked::Hit(text)) => decode(&String::from_utf8_lossy(&text)).map(Some),
            _ => None,
        },
    };
    // Loaded only once its bytes are checked (`cache/`): a truncated library would kill the
    // process as it is mapped, a foreign one would run its initialisers here.
    let found: Option<(Vec<u8>, Option<Frames>)> = match &entry {
        Some(entry) => match (cache::read_checked(entry, source.as_bytes()), cached_frames()) {
            (Checked::Hit(image), Some(frames)) => Some((image, frames)),
            (Checked::Bad(why), _) => {
                eprintln!("wsdsl: the cached host kernel {} is not used ({why}); compiling it again", entry.display());
                None
            }
            _ => None,
        },
        None => None,
    };
    let (image, frames, cached) = match found {
        Some((image, frames)) => (image, frames, true),
        None => {
            let built = compile(source, cache_dir.as_deref(), P::NAME, P::RECURSION.is_some())?;
            // No `.su` files (a compiler without -fstack-usage): no frame recorded, each assumed.
            let frames = P::RECURSION.map(|r| built.stack_usage.as_deref().map(|su| frames_of(su, &r)).unwrap_or_default());
            let cached = entry.as_ref().is_some_and(|entry| {
                let written = cache::write_checked(entry, source.as_bytes(), &built.image).and_then(|()| match (&frames, &frames_file) {
                    (Some(f), Some(file)) => cache::write_checked(file, source.as_bytes(), encode(f).as_bytes()),
                    _ => Ok(()),
                });
                match written {
                    Ok(()) => true,
                    Err(e) => {
                        eprintln!("wsdsl: the host kernel {} is not cached ({e}); it is loaded from a directory of this process", entry.display());
                        false
                    }
                }
            });
            (built.image, frames, cached)
        }
    };
    let stack_bytes = fiber_stack(P::NAME, P::RECURSION.as_ref(), frames.as_ref())?;
    // A copy (the loader keeps one instance per path: a copy under another name is another
    // instance) or a kernel the cache does not hold is written from the checked bytes to a
    // directory of this process, removed once loaded: the mapping outlives the file.
    let scratch;
    let lib = match &entry {
        Some(entry) if copy == 0 && cached => entry.clone(),
        _ => {
            scratch = Scratch::new()?;
            let lib = scratch.path().join(format!("{}-{key:016x}-host-{copy}.so", P::NAME));
            std::fs::write(&lib, &image).map_err(|e| {
                Error::InvalidConfig(format!(
                    "cannot write the host kernel {} to load it: {e} (free space in {}, or raise the file size limit, `ulimit -f`)",
                    lib.display(),
                    std::env::temp_dir().display()
                ))
            })?;
            lib
        }
    };
    // SAFETY: the library is our own kernel build; its initialisers only set up statics.
    // RTLD_NOW: an unresolved symbol is a load error here, not a crash in the middle of a run.
    let library = unsafe { libloading::os::unix::Library::open(Some(&lib), libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL) }
        .map_err(|e| Error::InvalidConfig(format!("cannot load the host kernel {}: {e}", lib.display())))?;
    // SAFETY: both symbols are defined by `host_kernel_source` with these signatures.
    let kernel = unsafe {
        let launch = *library.get::<Launch>(b"ws_host_launch\0").map_err(|e| Error::InvalidConfig(e.to_string()))?;
        let status = *library.get::<StatusAddress>(b"ws_host_status\0").map_err(|e| Error::InvalidConfig(e.to_string()))?;
        let queue_bytes = library.get::<QueueBytes>(b"ws_host_broker_queue_bytes\0").ok().map(|f| *f);
        let join = library.get::<JoinAddress>(b"ws_host_join\0").ok().map(|f| *f);
        let set_heaps = library.get::<SetHeaps>(b"ws_host_set_heaps\0").ok().map(|f| *f);
        HostKernel { program: P::NAME, launch, stack_bytes, status, queue_bytes, join, set_heaps, busy: false.into() }
    };
    std::mem::forget(library);
    let kernel = Arc::new(kernel);
    loaded.insert((key, copy), kernel.clone());
    Ok(kernel)
}
