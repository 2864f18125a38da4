//! Readying the host memory a run's copy back will write, while the kernel runs: the owed
//! tiles of its large buffers written and the rest of their pages faulted in
//! (`DeviceBuffer::before_copy_back`, `contract/buffer/`), on the host's cores that would otherwise
//! wait for the GPU; and the crew of threads that does it, which also converts the copy
//! back's parts as they land (`staging.rs`).

use crate::contract::buffer::DeviceBuffer;

/// Buffers below this size are readied by the copy back itself: a thread to ready them would
/// cost more than their faults.
const READY_FROM_BYTES: usize = 4 << 20;

/// Runs `execute` (the kernel) while other threads ready the host memory the copy back will
/// write (`DeviceBuffer::before_copy_back`: owed tiles written, pages faulted in). The GPU
/// needs neither, so the host's cores do it under the kernel instead of after it: after it,
/// 16.8 MB of BFS depths would cost the call 2-4 ms on the host (on an H200).
///
/// The work goes to a small pool of the runtime's own, started once: spawning threads per run
/// would delay the launch (10-20 us each), and rayon's global pool may be the very pool whose
/// threads are all waiting in runs like this one.
pub(crate) fn ready_for_copy_back_while<R>(buffers: Vec<&dyn DeviceBuffer>, execute: impl FnOnce() -> R) -> R {
    let large: Vec<&dyn DeviceBuffer> = buffers
        .into_iter()
        .filter(|b| !b.scratch() && b.residency().is_none() && b.len() * b.elem_bytes() >= READY_FROM_BYTES)
        .collect();
    let Some(pool) = (!large.is_empty()).then(crew).flatten() else {
        return execute();
    };
    let parts = pool.current_num_threads();
    let large = &large;
    pool.in_place_scope(|s| {
        for part in 0..parts {
            s.spawn(move |_| large.iter().for_each(|b| b.before_copy_back(part, parts)));
        }
        execute()
    })
}

/// The copy-back crew: the threads that ready the copy back's memory under the kernel and
/// convert its parts as they land (`staging.rs`). As many as the host's cores, at most
/// [`MAX_READY_THREADS`] (faults of one process contend beyond a few). `None` if the system
/// would not start them: the copy back then faults its pages and converts on its own thread
/// and rayon's.
pub(crate) fn crew() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_READY_THREADS);
        rayon::ThreadPoolBuilder::new().num_threads(threads).thread_name(|k| format!("wsdsl-crew-{k}")).build().ok()
    })
    .as_ref()
}

/// At most this many threads ready the copy back's memory.
const MAX_READY_THREADS: usize = 8;
