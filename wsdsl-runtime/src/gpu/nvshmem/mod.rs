//! NVSHMEM in the pipeline: kernels that call NVSHMEM's device API are
//! compiled by NVRTC to relocatable PTX and linked with NVSHMEM's device library by
//! nvJitLink; the host side joins an NVSHMEM job by unique id. Everything here is loaded on
//! first use only, so single-GPU runs never need NVSHMEM or nvJitLink. `docs/multi-gpu.md`
//! describes the pipeline and what is not built yet.
//!
//! - `locate.rs`: finding the headers and libraries (clear errors listing what was searched)
//! - `jitlink.rs`: nvJitLink, loaded at run time
//! - `compile.rs`: NVRTC `-rdc` + nvJitLink -> CUBIN, through the kernel cache
//! - `host.rs`: the host API and a PE (initialise by unique id, symmetric memory, finalise)
//! - `smoke.rs`: the smoke check that `gpu-check nvshmem-smoke` runs (one PE, or one
//!   process per PE)

pub mod compile;
pub mod host;
pub mod jitlink;
pub mod locate;
pub mod smoke;

pub use compile::{compile_linked, compile_linked_with, link_uncached, Toolchain};
pub use host::{Pe, Symmetric, UniqueId};
pub use locate::Overrides;
