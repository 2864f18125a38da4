//! The hand-written CUDA baseline of the PageRank rows: the pulled power iteration of
//! `baseline_pagerank.cu`, one launch per iteration, driven from the host the plain way.
//! Timed with CUDA events around the first shares' kernel and every iteration, as the wsdsl
//! row's kernel time covers the same work; the graph is uploaded before the first event.
//! It shows what the same arrays allow on the same GPU without a scheduler: a ceiling for
//! the task-parallel sweep, not a competitor a user would pick over GAPBS.

use super::baseline_cuda::{driver, Compiled};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};

/// The CUDA source of the kernels.
pub const SOURCE: &str = include_str!("baseline_pagerank.cu");

/// How the kernel maps vertices to threads.
#[derive(Clone, Copy, Debug)]
pub enum Mapping {
    /// One thread per vertex.
    Thread,
    /// One warp per vertex.
    Warp,
}

impl Mapping {
    pub fn name(self) -> &'static str {
        match self {
            Mapping::Thread => "thread per vertex",
            Mapping::Warp => "warp per vertex",
        }
    }
}

/// The compiled kernels on GPU 0.
pub struct CudaPageRank {
    gpu: Compiled,
    init: CudaFunction,
    thread: CudaFunction,
    warp: CudaFunction,
}

/// The transposed graph and out-degrees on the device, with the shares and ranks.
pub struct DeviceGraph {
    vertices: u32,
    in_offsets: CudaSlice<u32>,
    sources: CudaSlice<u32>,
    out_degree: CudaSlice<u32>,
    here: CudaSlice<f32>,
    next: CudaSlice<f32>,
    rank: CudaSlice<f64>,
}

impl CudaPageRank {
    /// Opens GPU 0 and compiles the kernels for its architecture.
    pub fn new() -> Result<CudaPageRank, String> {
        let gpu = Compiled::new("baseline_pagerank", SOURCE)?;
        let load = |name: &'static str| gpu.module.load_function(name).map_err(driver(name));
        Ok(CudaPageRank { init: load("pr_init")?, thread: load("pr_thread")?, warp: load("pr_warp")?, gpu })
    }

    /// Uploads the pulled sweep's arrays (those of `pagerank::PullGraph`).
    pub fn upload(&self, in_offsets: &[u32], sources: &[u32], out_degree: &[u32]) -> Result<DeviceGraph, String> {
        let n = out_degree.len();
        if n == 0 || in_offsets.len() != n + 1 {
            return Err(format!("PageRank needs one vertex and n + 1 offsets ({n} vertices, {} offsets)", in_offsets.len()));
        }
        let s = &self.gpu.stream;
        Ok(DeviceGraph {
            vertices: n as u32,
            in_offsets: s.clone_htod(in_offsets).map_err(driver("uploading the in-edge offsets"))?,
            // A graph without edges still gets a (1-entry) array: allocations must not be empty.
            sources: if sources.is_empty() { s.alloc_zeros(1) } else { s.clone_htod(sources) }.map_err(driver("uploading the sources"))?,
            out_degree: s.clone_htod(out_degree).map_err(driver("uploading the out-degrees"))?,
            here: s.alloc_zeros(n).map_err(driver("allocating the shares"))?,
            next: s.alloc_zeros(n).map_err(driver("allocating the shares"))?,
            rank: s.alloc_zeros(n).map_err(driver("allocating the ranks"))?,
        })
    }

    /// Runs `iterations` sweeps from 1/n (timed, CUDA events): milliseconds.
    pub fn run(&self, g: &mut DeviceGraph, iterations: u32, damping: f64, mapping: Mapping) -> Result<f64, String> {
        let s = &self.gpu.stream;
        let n = g.vertices;
        let start = self.gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(driver("creating an event"))?;
        let end = self.gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(driver("creating an event"))?;
        start.record(s).map_err(driver("recording an event"))?;
        let mut b = s.launch_builder(&self.init);
        b.arg(&g.out_degree).arg(&n).arg(&damping).arg(&mut g.here);
        // SAFETY: pr_init(out_degree, n, damping, share): both hold n entries.
        unsafe { b.launch(self.gpu.grid(n as u64)) }.map_err(driver("launching pr_init"))?;
        let (kernel, threads) = match mapping {
            Mapping::Thread => (&self.thread, n as u64),
            Mapping::Warp => (&self.warp, n as u64 * 32),
        };
        for i in 0..iterations {
            let last = (i + 1 == iterations) as i32;
            let mut b = s.launch_builder(kernel);
            b.arg(&g.in_offsets).arg(&g.sources).arg(&g.out_degree).arg(&n).arg(&damping).arg(&g.here).arg(&mut g.next).arg(&mut g.rank).arg(&last);
            // SAFETY: pr_thread / pr_warp(in_offsets, sources, out_degree, n, damping, here, next,
            // rank, last): in_offsets holds n + 1 entries bounding `sources`, whose entries are
            // vertices below n (the upload's graph); the other arrays hold n entries.
            unsafe { b.launch(self.gpu.grid(threads)) }.map_err(driver("launching a PageRank sweep"))?;
            std::mem::swap(&mut g.here, &mut g.next);
        }
        end.record(s).map_err(driver("recording an event"))?;
        end.synchronize().map_err(driver("waiting for the sweeps"))?;
        Ok(start.elapsed_ms(&end).map_err(driver("timing the sweeps"))? as f64)
    }

    /// The ranks the last run's final iteration wrote.
    pub fn ranks(&self, g: &DeviceGraph) -> Result<Vec<f64>, String> {
        let rank = self.gpu.stream.clone_dtoh(&g.rank).map_err(driver("downloading the ranks"))?;
        self.gpu.stream.synchronize().map_err(driver("downloading the ranks"))?;
        Ok(rank)
    }
}
