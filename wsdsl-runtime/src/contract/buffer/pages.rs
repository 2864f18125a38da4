//! How large host arrays get their pages.
//!
//! A buffer's memory comes from the allocator unwritten (`contract/buffer/`: owed tiles): fresh
//! pages, which the first write of each faults in, or a block freed before, already mapped.
//! At 4 KB a page that is 8,192 faults for PageRank's 33.5 MB of ranks at R-MAT 22, and the
//! copy back of those ranks took 16-21 ms on an H100 machine where the same bytes into touched
//! pages take 2 (BENCHMARKS.md, "The whole call"). Asking for transparent huge pages (2 MB)
//! makes that 17 faults where the system grants them (`madvise` mode, the usual setting);
//! where it does not, nothing changes. A GPU run faults in what its copy back will write
//! while the kernel runs (`populate`).

/// The huge page size of x86-64 and the common aarch64 configuration.
const HUGE_PAGE: usize = 2 << 20;

/// Ranges smaller than this are left to the system's choice of pages.
const OWN_PAGES_FROM: usize = 2 * HUGE_PAGE;

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

/// Faults in, writable, the pages inside `bytes` bytes at `start` (Linux
/// `MADV_POPULATE_WRITE`, 5.14 on) without changing what they hold: a zeroed buffer that a GPU
/// run's copy back will write, readied while the kernel runs (`DeviceBuffer::
/// before_copy_back`, a tile per call on several threads). Older kernels and other systems
/// leave the pages to fault on first write, as before.
pub(crate) fn populate(start: *const u8, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let first = (start as usize).next_multiple_of(PAGE);
        let end = (start as usize + bytes) / PAGE * PAGE;
        if end > first {
            // SAFETY: the range lies inside one live allocation of ours; populating maps its
            // pages and never changes their contents. A refusal (an older kernel) is
            // harmless: the pages fault in on first write instead.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_POPULATE_WRITE);
            }
        }
    }
}
