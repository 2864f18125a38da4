//! The hand-written CUDA baseline of the BFS rows: a level-synchronous BFS, one kernel
//! launch per level (`baseline_bfs.cu`), compiled by the runtime's NVRTC path and driven
//! from the host the plain way: launch a level, read the next frontier's size back, repeat
//! until it is empty. Timed with CUDA events around the whole level loop; the graph is
//! uploaded (and the depths reset) before the first event, as the wsdsl rows' run phase
//! excludes their uploads.

use super::baseline_cuda::{driver, Compiled};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};
use wsdsl::graph::Graph;

/// The CUDA source of the two kernels.
pub const SOURCE: &str = include_str!("baseline_bfs.cu");

/// The compiled kernels on GPU 0.
pub struct CudaBfs {
    gpu: Compiled,
    init: CudaFunction,
    level: CudaFunction,
}

/// One graph on the device, with its depth array and two frontiers.
pub struct DeviceGraph {
    vertices: usize,
    offsets: CudaSlice<u32>,
    targets: CudaSlice<u32>,
    depth: CudaSlice<u32>,
    front: CudaSlice<u32>,
    back: CudaSlice<u32>,
    next_size: CudaSlice<u32>,
}

/// One timed search.
pub struct Searched {
    /// CUDA-event time of the whole level loop.
    pub ms: f64,
    /// Kernel launches (levels expanded, the last finding nothing new).
    pub levels: u32,
}

impl CudaBfs {
    /// Opens GPU 0 and compiles the kernels for its architecture.
    pub fn new() -> Result<CudaBfs, String> {
        let gpu = Compiled::new("baseline_bfs", SOURCE)?;
        let init = gpu.module.load_function("bfs_init").map_err(driver("kernel bfs_init"))?;
        let level = gpu.module.load_function("bfs_level").map_err(driver("kernel bfs_level"))?;
        Ok(CudaBfs { gpu, init, level })
    }

    /// Uploads the graph's CSR arrays and allocates the depths and frontiers.
    pub fn upload(&self, g: &Graph) -> Result<DeviceGraph, String> {
        let n = g.vertices();
        let s = &self.gpu.stream;
        Ok(DeviceGraph {
            vertices: n,
            offsets: s.clone_htod(&g.offsets).map_err(driver("uploading the offsets"))?,
            // A graph without edges still gets a (1-entry) array: allocations must not be empty.
            targets: if g.targets.is_empty() { s.alloc_zeros(1) } else { s.clone_htod(&g.targets) }.map_err(driver("uploading the targets"))?,
            depth: s.alloc_zeros(n.max(1)).map_err(driver("allocating the depths"))?,
            front: s.alloc_zeros(n.max(1)).map_err(driver("allocating a frontier"))?,
            back: s.alloc_zeros(n.max(1)).map_err(driver("allocating a frontier"))?,
            next_size: s.alloc_zeros(1).map_err(driver("allocating the frontier size"))?,
        })
    }

    /// Resets the depths (untimed), then searches from `source` level by level (timed).
    pub fn search(&self, g: &mut DeviceGraph, source: u32) -> Result<Searched, String> {
        if source as usize >= g.vertices {
            return Err(format!("the source vertex {source} is not in the graph (vertices 0..{})", g.vertices));
        }
        let s = &self.gpu.stream;
        let vertices = g.vertices as u32;
        let mut b = s.launch_builder(&self.init);
        b.arg(&mut g.depth).arg(&vertices).arg(&source).arg(&mut g.front);
        // SAFETY: bfs_init(unsigned *depth, unsigned vertices, unsigned source, unsigned *frontier):
        // `depth` holds `vertices` entries, `front` at least one.
        unsafe { b.launch(self.gpu.grid(vertices as u64)) }.map_err(driver("launching bfs_init"))?;

        let start = self.gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(driver("creating an event"))?;
        let end = self.gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(driver("creating an event"))?;
        start.record(s).map_err(driver("recording an event"))?;
        let (mut size, mut d, mut levels) = (1u32, 0u32, 0u32);
        while size > 0 {
            s.memset_zeros(&mut g.next_size).map_err(driver("clearing the frontier size"))?;
            let mut b = s.launch_builder(&self.level);
            b.arg(&g.offsets)
                .arg(&g.targets)
                .arg(&mut g.depth)
                .arg(&g.front)
                .arg(&size)
                .arg(&mut g.back)
                .arg(&mut g.next_size)
                .arg(&d);
            // SAFETY: bfs_level(offsets, targets, depth, frontier, size, next, next_size, d):
            // `front` holds `size` vertices of the graph; `back` has room for every vertex, and
            // each vertex is appended at most once (it wins the atomicCAS once).
            unsafe { b.launch(self.gpu.grid(size as u64)) }.map_err(driver("launching bfs_level"))?;
            let mut next = [0u32];
            s.memcpy_dtoh(&g.next_size, &mut next).map_err(driver("reading the frontier size"))?;
            // (A copy into pageable memory returns when done; cudarc promises no more, so wait.)
            s.synchronize().map_err(driver("waiting for a level"))?;
            size = next[0];
            std::mem::swap(&mut g.front, &mut g.back);
            d += 1;
            levels += 1;
        }
        end.record(s).map_err(driver("recording an event"))?;
        end.synchronize().map_err(driver("waiting for the search"))?;
        let ms = start.elapsed_ms(&end).map_err(driver("timing the search"))? as f64;
        Ok(Searched { ms, levels })
    }

    /// The depths the last search found.
    pub fn depth(&self, g: &DeviceGraph) -> Result<Vec<u32>, String> {
        let mut depth = self.gpu.stream.clone_dtoh(&g.depth).map_err(driver("downloading the depths"))?;
        self.gpu.stream.synchronize().map_err(driver("downloading the depths"))?;
        depth.truncate(g.vertices);
        Ok(depth)
    }
}
