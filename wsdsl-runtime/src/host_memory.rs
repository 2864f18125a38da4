//! How large host arrays get their pages.
//!
//! A buffer's zeroed memory is the system's untouched pages: the first write of each one
//! (filling an input, or the GPU backend reading results back into it) faults it in. At 4 KB
//! a page that is 8,192 faults for PageRank's 33.5 MB of ranks at R-MAT 22, and the copy back
//! of those ranks took 16-21 ms on an H100 machine where the same bytes into touched pages
//! take 2 (BENCHMARKS.md, "The whole call"). Asking for transparent huge pages (2 MB) makes
//! that 17 faults where the system grants them (`madvise` mode, the usual setting); where it
//! does not, nothing changes.

/// The huge page size of x86-64 and the common aarch64 configuration.
const HUGE_PAGE: usize = 2 << 20;

/// Allocations from this size on get memory of their own from the system (`mmap`).
const OWN_PAGES_FROM: usize = 2 * HUGE_PAGE;

/// Makes allocations of [`OWN_PAGES_FROM`] bytes or more always take fresh pages from the
/// system and give them back when freed (glibc's `M_MMAP_THRESHOLD`, once per process).
///
/// By default glibc raises that threshold to the size of each large block freed, so that the
/// next buffer of that size reuses the block from its heap, and `calloc` must then clear it
/// on one core: 0.5 ms for a 16.8 MB `Buffer::scratch` on a 2-core machine, and 3.3 ms for a
/// `Buffer::filled` of the same size, which cleared the block and then wrote it (a BFS's
/// depths at R-MAT 22, `BENCHMARKS.md`). Fresh pages are zero already: a scratch buffer costs
/// nothing, and a filled one is faulted in by the cores that write it.
///
/// The price: a zeroed buffer is faulted in by whatever first writes it, often the copy back
/// of a GPU run. Where the system grants huge pages that is cheap (an H100 machine: PageRank's
/// 33.5 MB of ranks came back in 3.9-4.3 ms, 4.2-4.9 before); where it does not, each 4 KB
/// fault counts (a 2-core sandbox without huge pages: 436 MB read back in 464 ms, 155 before).
pub(crate) fn fresh_pages_for_large_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // A threshold the user set (glibc's environment settings) is theirs to keep.
            let tunables = std::env::var("GLIBC_TUNABLES").unwrap_or_default();
            if std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_some() || tunables.contains("mmap_threshold") {
                return;
            }
            // SAFETY: sets an allocator option (glibc takes its main arena's lock to change
            // it, so other threads may allocate meanwhile); blocks allocated before keep
            // working as they were.
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, OWN_PAGES_FROM as libc::c_int);
            }
        });
    }
}

/// Asks the system to back the whole 2 MB pages inside `bytes` bytes at `start` with huge
/// pages (Linux `MADV_HUGEPAGE`). Smaller ranges, and other systems, are left alone; a
/// refusal is harmless (the pages stay small), so it is not reported.
pub(crate) fn advise_huge_pages(start: *const u8, bytes: usize) {
    if bytes < OWN_PAGES_FROM {
        return;
    }
    let first = (start as usize).next_multiple_of(HUGE_PAGE);
    let end = (start as usize + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end <= first {
        return;
    }
    #[cfg(target_os = "linux")]
    // SAFETY: the range lies inside one live allocation of ours; the advice changes how its
    // pages are backed, never their contents (untouched pages still read as zero).
    unsafe {
        libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
    }
}
