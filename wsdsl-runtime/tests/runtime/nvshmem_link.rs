//! The NVSHMEM pipeline without a GPU: NVRTC (`-rdc`) + nvJitLink link the smoke kernels
//! with NVSHMEM's device library into a CUBIN holding them, a link failure carries the
//! linker's log, the host library loads and makes a unique id, and missing libraries are
//! `LibraryMissing` errors listing what was searched.
//! README's test command installs the pip packages; without them the linking tests say
//! SKIPPED on the terminal (not only in captured output) and name what is missing.

use std::io::Write;
use wsdsl_runtime::gpu::elf::function_symbols;
use wsdsl_runtime::gpu::nvshmem::{compile_linked_with, host, jitlink, link_uncached, locate, smoke, Overrides, Toolchain, UniqueId};
use wsdsl_runtime::Error;

/// The toolchain and nvJitLink, or `None` after saying loudly what is missing.
fn toolchain_or_skip(test: &str) -> Option<Toolchain> {
    let overrides = Overrides::from_env();
    let found = Toolchain::locate(&overrides).and_then(|tc| jitlink::probe(&overrides).map(|_| tc));
    match found {
        Ok(tc) => Some(tc),
        Err(e) => {
            // Straight to the stderr handle: the test harness captures eprintln! of passing tests.
            let message = format!("SKIPPED {test}: {e}\n(README's test command installs them: pip install {})\n", locate::PIP_PACKAGES);
            let _ = std::io::stderr().write_all(message.as_bytes());
            None
        }
    }
}

#[test]
fn smoke_kernels_link_with_nvshmem_into_a_cubin() {
    let Some(tc) = toolchain_or_skip("NVSHMEM link of the smoke kernels") else { return };
    let image = link_uncached(&tc, smoke::PROGRAM, smoke::SOURCE, "sm_90").unwrap_or_else(|e| panic!("{e}"));
    assert!(image.starts_with(b"\x7fELF"), "not an ELF image: {:?}", &image[..image.len().min(8)]);
    assert!(image.len() > 10_000, "a CUBIN of {} bytes cannot hold NVSHMEM's device code", image.len());
    let symbols = function_symbols(&image).expect("a symbol table");
    for kernel in [smoke::PUT_ADD, smoke::BARRIER_GET] {
        assert!(symbols.iter().any(|s| s == kernel), "{kernel} not among the CUBIN's functions: {symbols:?}");
    }
}

#[test]
fn a_linked_kernel_comes_back_from_the_disk_cache() {
    let Some(tc) = toolchain_or_skip("NVSHMEM kernel cache") else { return };
    let first = compile_linked_with(&tc, smoke::PROGRAM, smoke::SOURCE, "sm_90").unwrap_or_else(|e| panic!("{e}"));
    let second = compile_linked_with(&tc, smoke::PROGRAM, smoke::SOURCE, "sm_90").unwrap_or_else(|e| panic!("{e}"));
    assert!(second.from_cache, "the second build should come from the cache (unless it cannot be written: see stderr)");
    assert_eq!(first.image, second.image);
}

#[test]
fn the_host_library_loads_and_makes_a_unique_id_without_a_gpu() {
    if toolchain_or_skip("NVSHMEM host library").is_none() {
        return;
    }
    host::probe().unwrap_or_else(|e| panic!("NVSHMEM's headers are there but its host library is not usable: {e}"));
    match UniqueId::new() {
        // NVSHMEMX_UNIQUEID_INITIALIZER's version word, kept by nvshmemx_get_uniqueid.
        Ok(uid) => assert_eq!(&uid.to_bytes()[..4], &((1i32 << 16) + 128).to_ne_bytes()),
        // The bootstrap needs a network interface; a machine without one is not a load failure.
        Err(e @ Error::Nvshmem { .. }) => {
            let _ = std::io::stderr().write_all(format!("NOTE: the host library loaded but made no unique id here: {e}\n").as_bytes());
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn an_unresolved_device_symbol_is_a_link_error_with_the_log() {
    let Some(tc) = toolchain_or_skip("NVSHMEM link error path") else { return };
    let source = "extern \"C\" __device__ int wsdsl_never_defined(int);\n\
                  extern \"C\" __global__ void k(int *p) { *p = wsdsl_never_defined(*p); }\n";
    match link_uncached(&tc, "unresolved", source, "sm_90") {
        Err(Error::Link { program, log }) => {
            assert_eq!(program, "unresolved");
            assert!(log.contains("wsdsl_never_defined"), "the log should name the symbol:\n{log}");
        }
        Err(e) => panic!("expected a link error, got: {e}"),
        Ok(image) => panic!("linked {} bytes despite an undefined function", image.len()),
    }
}

#[test]
fn a_missing_nvjitlink_is_library_missing_listing_the_search() {
    let overrides = Overrides { nvjitlink: Some("/nonexistent/wsdsl/libnvJitLink.so.13".into()), ..Overrides::default() };
    match jitlink::probe(&overrides) {
        Err(e @ Error::LibraryMissing { .. }) => {
            let Error::LibraryMissing { searched, .. } = &e else { unreachable!() };
            assert!(searched.iter().any(|s| s.contains("/nonexistent/wsdsl/libnvJitLink.so.13") && s.contains("WSDSL_NVJITLINK")), "{searched:?}");
            let text = e.to_string();
            assert!(text.contains("nvJitLink") && text.contains("pip install nvidia-nvjitlink"), "{text}");
        }
        other => panic!("expected LibraryMissing, got {other:?}"),
    }
}

#[test]
fn a_missing_nvshmem_is_library_missing_listing_the_search() {
    let overrides = Overrides { nvshmem: Some("/nonexistent/wsdsl/nvshmem".into()), ..Overrides::default() };
    match Toolchain::locate(&overrides) {
        Err(Error::LibraryMissing { searched, hint, .. }) => {
            assert_eq!(searched.len(), 1, "an override is the only place looked at: {searched:?}");
            assert!(searched[0].contains("/nonexistent/wsdsl/nvshmem (WSDSL_NVSHMEM)"), "{searched:?}");
            assert!(searched[0].contains("nvshmem.h") && searched[0].contains("libnvshmem_device.a"), "{searched:?}");
            assert!(hint.contains("nvidia-nvshmem-cu13"), "{hint}");
        }
        other => panic!("expected LibraryMissing, got {other:?}"),
    }
}

#[test]
fn the_hint_names_the_packages_readme_installs() {
    let readme = include_str!("../../../README.md");
    assert!(readme.contains(locate::PIP_PACKAGES), "README's test command must install: {}", locate::PIP_PACKAGES);
}
