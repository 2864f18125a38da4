//! NVSHMEM's host API, loaded at run time from `libnvshmem_host.so.3` (single-GPU runs never
//! load it), and a [`Pe`]: this process's membership of an NVSHMEM job, initialised with a
//! unique id and finalised on drop.
//!
//! Initialisation is by unique id: PE 0 makes a [`UniqueId`], every PE receives it (the
//! caller's business: a pipe, a file, a rendezvous address) and calls [`Pe::init`] with its
//! rank and the number of PEs. `nvshmem_init` and `nvshmemx_init_attr` are inline functions
//! over a static library the pip wheel does not ship, so this goes through the exported
//! `nvshmemx_hostlib_init_attr`, filling the attribute struct as the header's initialiser
//! does. The struct layouts below are NVSHMEM 3.8's (`bootstrap_device_host/nvshmem_uniqueid.h`,
//! `device_host/nvshmem_types.h`); their sizes are asserted at compile time.

use super::locate::{self, Nvshmem, Overrides};
use crate::error::Error;
use crate::gpu::build::libs;
use cudarc::driver::{sys as cu, CudaContext, CudaFunction, CudaStream};
use libloading::Library;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// `nvshmemx_uniqueid_v1`: 128 bytes, opaque but for its version.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct UniqueId {
    version: c_int,
    internal: [u8; 124],
}

/// `nvshmemx_uniqueid_args_v1`.
#[repr(C)]
struct UniqueIdArgs {
    version: c_int,
    id: *mut UniqueId,
    myrank: c_int,
    nranks: c_int,
}

/// `nvshmemx_init_args_v2` (the header's `nvshmemx_init_args_t`).
#[repr(C)]
struct InitArgs {
    version: c_int,
    uid_args: UniqueIdArgs,
    cuda_device_id: c_int,
    content: [u8; 92],
}

/// `nvshmemx_init_attr_v2` (the header's `nvshmemx_init_attr_t`).
#[repr(C)]
struct InitAttr {
    version: c_int,
    mpi_comm: *mut c_void,
    args: InitArgs,
}

// The header's static_asserts, restated: a layout drift is a build error, not a crash.
const _: () = assert!(std::mem::size_of::<UniqueId>() == 128);
const _: () = assert!(std::mem::size_of::<UniqueIdArgs>() == 24);
const _: () = assert!(std::mem::size_of::<InitArgs>() == 128);
const _: () = assert!(std::mem::size_of::<InitAttr>() == 144);

/// `INIT_ARGS_SCALAR_INVALID`, `UNIQUEID_ARGS_INVALID`: "not set" (the current device).
const UNSET: c_int = -1;
/// `NVSHMEMX_INIT_WITH_UNIQUEID`.
const INIT_WITH_UNIQUEID: c_uint = 1 << 3;

/// Version words as the header's initialisers write them: (major << 16) + size.
const fn version(major: c_int, size: usize) -> c_int {
    (major << 16) + size as c_int
}

impl UniqueId {
    /// `NVSHMEMX_UNIQUEID_INITIALIZER`.
    fn empty() -> UniqueId {
        UniqueId { version: version(1, std::mem::size_of::<UniqueId>()), internal: [0; 124] }
    }

    /// A new unique id (made once, by PE 0, and handed to every PE). Needs no GPU: it
    /// names this host's bootstrap address.
    pub fn new() -> Result<UniqueId, Error> {
        let api = api()?;
        let mut id = UniqueId::empty();
        // SAFETY: `id` is a valid, initialised nvshmemx_uniqueid_t.
        let status = unsafe { (api.get_uniqueid)(&mut id) };
        check("making a unique id (nvshmemx_get_uniqueid)", status)?;
        Ok(id)
    }

    /// The id's bytes, to send to the other PEs.
    pub fn to_bytes(&self) -> [u8; 128] {
        let mut out = [0u8; 128];
        out[..4].copy_from_slice(&self.version.to_ne_bytes());
        out[4..].copy_from_slice(&self.internal);
        out
    }

    /// An id received from PE 0.
    pub fn from_bytes(bytes: &[u8; 128]) -> UniqueId {
        let mut internal = [0u8; 124];
        internal.copy_from_slice(&bytes[4..]);
        UniqueId { version: c_int::from_ne_bytes(bytes[..4].try_into().unwrap()), internal }
    }
}

impl InitAttr {
    /// `NVSHMEMX_INIT_ATTR_INITIALIZER` of NVSHMEM 3.8 (version 2 of the struct).
    fn new() -> InitAttr {
        InitAttr {
            version: version(2, std::mem::size_of::<InitAttr>()),
            mpi_comm: std::ptr::null_mut(),
            args: InitArgs {
                version: version(2, std::mem::size_of::<InitArgs>()),
                uid_args: UniqueIdArgs {
                    version: version(1, std::mem::size_of::<UniqueIdArgs>()),
                    id: std::ptr::null_mut(),
                    myrank: UNSET,
                    nranks: UNSET,
                },
                cuda_device_id: UNSET,
                content: [0; 92],
            },
        }
    }
}

/// The host functions used (all exported by `libnvshmem_host.so.3`).
struct Api {
    get_uniqueid: unsafe extern "C" fn(*mut UniqueId) -> c_int,
    set_attr_uniqueid_args: unsafe extern "C" fn(c_int, c_int, *const UniqueId, *mut InitAttr) -> c_int,
    hostlib_init_attr: unsafe extern "C" fn(c_uint, *mut InitAttr) -> c_int,
    hostlib_finalize: unsafe extern "C" fn(),
    my_pe: unsafe extern "C" fn() -> c_int,
    n_pes: unsafe extern "C" fn() -> c_int,
    malloc: unsafe extern "C" fn(usize) -> *mut c_void,
    free: unsafe extern "C" fn(*mut c_void),
    barrier_all: unsafe extern "C" fn(),
    barrier_all_on_stream: unsafe extern "C" fn(cu::CUstream),
    cumodule_init: unsafe extern "C" fn(cu::CUmodule) -> c_int,
    ptr: unsafe extern "C" fn(*const c_void, c_int) -> *mut c_void,
    _lib: Library,
}

impl Api {
    fn load(install: &Nvshmem) -> Result<Api, Vec<String>> {
        let host = install.host_lib();
        let plugin = install.uid_plugin();
        // NVSHMEM opens its bootstrap plugin by soname (unless NVSHMEM_BOOTSTRAP_UID_PLUGIN
        // names it); loading it globally from beside the host library first makes that
        // soname resolve to this install's plugin even when its directory is not on the
        // loader path.
        if std::env::var_os("NVSHMEM_BOOTSTRAP_UID_PLUGIN").is_none() {
            libs::open_global(&plugin).map_err(|e| vec![format!("{}: {e}", plugin.display())])?;
        }
        // SAFETY: loading NVSHMEM's host library runs only its initialisers.
        let lib = unsafe { Library::new(&host) }.map_err(|e| vec![format!("{}: {e}", host.display())])?;
        let shown = host.display().to_string();
        macro_rules! sym {
            // SAFETY: each field's type is the signature NVSHMEM's headers declare for its name.
            ($name:literal) => {
                unsafe { libs::symbol(&lib, $name, &shown)? }
            };
        }
        Ok(Api {
            get_uniqueid: sym!("nvshmemx_get_uniqueid"),
            set_attr_uniqueid_args: sym!("nvshmemx_set_attr_uniqueid_args"),
            hostlib_init_attr: sym!("nvshmemx_hostlib_init_attr"),
            hostlib_finalize: sym!("nvshmemx_hostlib_finalize"),
            my_pe: sym!("nvshmem_my_pe"),
            n_pes: sym!("nvshmem_n_pes"),
            malloc: sym!("nvshmem_malloc"),
            free: sym!("nvshmem_free"),
            barrier_all: sym!("nvshmem_barrier_all"),
            barrier_all_on_stream: sym!("nvshmemx_barrier_all_on_stream"),
            cumodule_init: sym!("nvshmemx_cumodule_init"),
            ptr: sym!("nvshmem_ptr"),
            _lib: lib,
        })
    }
}

/// NVSHMEM's host library for this process, opened on first use.
fn api() -> Result<&'static Api, Error> {
    static API: OnceLock<Result<Api, Vec<String>>> = OnceLock::new();
    if API.get().is_none() {
        let install = locate::nvshmem(&Overrides::from_env())?;
        // A racing thread may have set it first: both loaded the same files.
        let _ = API.set(Api::load(&install));
    }
    API.get().expect("set above").as_ref().map_err(|searched| locate::nvshmem_missing(searched.clone()))
}

/// Checks that NVSHMEM's host library (and its unique-id plugin) can be found, opened and
/// bound; initialises nothing.
pub fn probe() -> Result<(), Error> {
    api().map(|_| ())
}

fn check(during: &'static str, status: c_int) -> Result<(), Error> {
    if status == 0 {
        Ok(())
    } else {
        Err(Error::Nvshmem { during, status })
    }
}

/// NVSHMEM is process-wide state: one PE per process at a time.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// This process as PE `rank` of an NVSHMEM job; NVSHMEM is finalised when it is dropped.
/// Symmetric memory and kernels registered through it must not outlive it.
pub struct Pe {
    api: &'static Api,
    ctx: Arc<CudaContext>,
}

impl Pe {
    /// Joins the job of `nranks` PEs identified by `uid` as PE `rank`, on `ctx`'s GPU. A
    /// collective: every PE must call it; with more than one PE it waits for the others.
    pub fn init(ctx: &Arc<CudaContext>, rank: u32, nranks: u32, uid: &UniqueId) -> Result<Pe, Error> {
        if rank >= nranks {
            return Err(Error::InvalidConfig(format!("NVSHMEM rank {rank} is not below the number of PEs {nranks}")));
        }
        let api = api()?;
        if ACTIVE.swap(true, Ordering::SeqCst) {
            return Err(Error::InvalidConfig("NVSHMEM is already initialised in this process (one Pe at a time)".into()));
        }
        let undo = |e: Error| {
            ACTIVE.store(false, Ordering::SeqCst);
            e
        };
        // NVSHMEM works on the calling thread's current context.
        ctx.bind_to_thread().map_err(Error::driver("making the context current for NVSHMEM")).map_err(undo)?;
        let mut attr = InitAttr::new();
        // SAFETY: `uid` and `attr` are valid for the calls; NVSHMEM copies what it keeps.
        unsafe {
            check("setting the unique-id arguments", (api.set_attr_uniqueid_args)(rank as c_int, nranks as c_int, uid, &mut attr))
                .map_err(undo)?;
            check("initialising (nvshmemx_hostlib_init_attr)", (api.hostlib_init_attr)(INIT_WITH_UNIQUEID, &mut attr)).map_err(undo)?;
        }
        Ok(Pe { api, ctx: ctx.clone() })
    }

    /// This PE's number.
    pub fn my_pe(&self) -> u32 {
        // SAFETY: NVSHMEM is initialised while `self` lives.
        unsafe { (self.api.my_pe)() as u32 }
    }

    /// The number of PEs.
    pub fn n_pes(&self) -> u32 {
        // SAFETY: as above.
        unsafe { (self.api.n_pes)() as u32 }
    }

    /// Waits for every PE (host side; orders memory updates too).
    pub fn barrier_all(&self) {
        // SAFETY: as above.
        unsafe { (self.api.barrier_all)() }
    }

    /// A barrier across PEs enqueued on `stream`.
    pub fn barrier_all_on_stream(&self, stream: &CudaStream) {
        // SAFETY: as above; the stream belongs to this PE's context.
        unsafe { (self.api.barrier_all_on_stream)(stream.cu_stream()) }
    }

    /// Binds NVSHMEM's device state into the module holding `kernel` (needed before any
    /// kernel of a module loaded by the driver API calls NVSHMEM).
    pub fn init_module(&self, kernel: &CudaFunction) -> Result<(), Error> {
        let mut module: cu::CUmodule = std::ptr::null_mut();
        // SAFETY: `kernel` is a live function; cuFuncGetModule only reads its module.
        unsafe { cu::cuFuncGetModule(&mut module, kernel.cu_function()) }
            .result()
            .map_err(Error::driver("finding the kernel's module"))?;
        // SAFETY: the module is live (the caller holds its function).
        check("binding NVSHMEM into the module (nvshmemx_cumodule_init)", unsafe { (self.api.cumodule_init)(module) })
    }

    /// Where symmetric memory at `address` of PE `pe` is mapped for this GPU's loads and
    /// stores (NVLink or PCIe peer access, `nvshmem_ptr`); `None` when it is not reachable so.
    pub fn peer_address(&self, address: u64, pe: u32) -> Option<u64> {
        // SAFETY: NVSHMEM is initialised; nvshmem_ptr only looks the address up.
        let p = unsafe { (self.api.ptr)(address as *const c_void, pe as c_int) };
        (!p.is_null()).then_some(p as u64)
    }

    /// `len` zeroed `T`s of symmetric memory (a collective: every PE allocates the same).
    pub fn alloc_zeros<T: Copy>(&self, len: usize) -> Result<Symmetric<'_, T>, Error> {
        let bytes = len * std::mem::size_of::<T>();
        // SAFETY: NVSHMEM is initialised; a null result is handled below.
        let ptr = unsafe { (self.api.malloc)(bytes.max(1)) };
        if ptr.is_null() {
            return Err(Error::Nvshmem { during: "allocating symmetric memory (nvshmem_malloc; NVSHMEM_SYMMETRIC_SIZE sets the heap)", status: -1 });
        }
        let buf = Symmetric { pe: self, ptr: ptr as cu::CUdeviceptr, len, outside: false, _t: std::marker::PhantomData };
        buf.clear(bytes)?;
        Ok(buf)
    }

    /// `len` zeroed `T`s of ordinary device memory standing in for this PE's symmetric heap:
    /// no other PE can reach it, so only a job of one GPU may use it. A measurement
    /// (`WSDSL_MULTI_ON_ONE=2`): the multi-GPU kernel's state and deques outside NVSHMEM's
    /// heap, to tell the heap's memory from the kernel's code.
    pub fn alloc_zeros_outside_heap<T: Copy>(&self, len: usize) -> Result<Symmetric<'_, T>, Error> {
        if self.n_pes() != 1 {
            return Err(Error::InvalidConfig(format!(
                "a heap in ordinary device memory (WSDSL_MULTI_ON_ONE=2) serves a run on one GPU only, not {}",
                self.n_pes()
            )));
        }
        let bytes = len * std::mem::size_of::<T>();
        self.ctx.bind_to_thread().map_err(Error::driver("making the context current"))?;
        // SAFETY: the context is current; the memory is freed by the drop below.
        let ptr = unsafe { cudarc::driver::result::malloc_sync(bytes.max(1)) }.map_err(Error::driver("allocating device memory"))?;
        let buf = Symmetric { pe: self, ptr, len, outside: true, _t: std::marker::PhantomData };
        buf.clear(bytes)?;
        Ok(buf)
    }
}

impl Drop for Pe {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: every Symmetric borrowed `self`, so none is left; nothing of NVSHMEM's is
        // used after this.
        unsafe { (self.api.hostlib_finalize)() };
        ACTIVE.store(false, Ordering::SeqCst);
    }
}

/// Symmetric memory: `len` `T`s at the same offset of every PE's symmetric heap.
pub struct Symmetric<'pe, T> {
    pe: &'pe Pe,
    ptr: cu::CUdeviceptr,
    len: usize,
    /// Ordinary device memory in its place (`Pe::alloc_zeros_outside_heap`).
    outside: bool,
    _t: std::marker::PhantomData<T>,
}

impl<T> Symmetric<'_, T> {
    /// Zeroes the allocation's first `bytes` bytes.
    fn clear(&self, bytes: usize) -> Result<(), Error> {
        self.pe.ctx.bind_to_thread().map_err(Error::driver("making the context current"))?;
        // SAFETY: `bytes` bytes of device memory at `ptr` were allocated for this value.
        unsafe { cudarc::driver::result::memset_d8_sync(self.ptr, 0, bytes) }.map_err(Error::driver("clearing symmetric memory"))
    }
}

impl<T: Copy + Default> Symmetric<'_, T> {
    /// The device address (a kernel argument).
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// This PE's copy, read back (synchronously; launch work first and synchronise).
    pub fn read(&self) -> Result<Vec<T>, Error> {
        let mut out = vec![T::default(); self.len];
        self.pe.ctx.bind_to_thread().map_err(Error::driver("making the context current"))?;
        // SAFETY: `out` holds exactly the allocation's bytes; `T` is plain data.
        unsafe { cudarc::driver::result::memcpy_dtoh_sync(&mut out, self.ptr) }.map_err(Error::driver("reading symmetric memory"))?;
        Ok(out)
    }
}

impl<T> Drop for Symmetric<'_, T> {
    fn drop(&mut self) {
        if self.outside {
            let _ = self.pe.ctx.bind_to_thread();
            // SAFETY: allocated by cuMemAlloc in this context; nothing uses it any more.
            let _ = unsafe { cudarc::driver::result::free_sync(self.ptr) };
            return;
        }
        // SAFETY: allocated by nvshmem_malloc of this still-initialised PE.
        unsafe { (self.pe.api.free)(self.ptr as *mut c_void) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unique_id_survives_its_bytes() {
        let mut id = UniqueId::empty();
        id.internal[7] = 42;
        id.internal[123] = 9;
        let back = UniqueId::from_bytes(&id.to_bytes());
        assert_eq!((back.version, back.internal), (id.version, id.internal));
        assert_eq!(id.version, (1 << 16) + 128, "NVSHMEMX_UNIQUEID_INITIALIZER's version");
    }

    #[test]
    fn the_init_attr_is_the_headers_initializer() {
        let attr = InitAttr::new();
        assert_eq!(attr.version, (2 << 16) + 144);
        assert_eq!(attr.args.version, (2 << 16) + 128);
        assert_eq!(attr.args.uid_args.version, (1 << 16) + 24);
        assert_eq!((attr.args.uid_args.myrank, attr.args.uid_args.nranks, attr.args.cuda_device_id), (-1, -1, -1));
        assert_eq!(std::mem::offset_of!(InitArgs, cuda_device_id), 32);
        assert_eq!(std::mem::offset_of!(InitAttr, args), 16);
    }
}
