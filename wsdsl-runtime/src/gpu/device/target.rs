//! A GPU as a run's [`Target`]: memory from the device's workspace (`workspace.rs`, kept
//! between runs), the program's inputs copied through pinned pieces (`inputs.rs`,
//! `staging.rs`), the kernel from this process's modules, the disk cache or NVRTC
//! (`module.rs`), and a launch between two events under the watchdog (`launch.rs`).

use crate::gpu::build::assemble::kernel_source_once;
use crate::gpu::device::GpuDevice;
use crate::gpu::device::inputs::Inputs;
use crate::gpu::run::status::STATUS_WORDS;
use crate::gpu::run::join::JoinRecord;
use crate::gpu::device::launch::{launch_with_record, Launch};
use crate::gpu::build::module::{load_hashed_source, load_source};
use crate::gpu::run::target::{InputAddresses, Published, Target};
use crate::gpu::device::workspace::Workspace;
use crate::gpu::GpuOptions;
use crate::error::Error;
use crate::contract::Program;
use crate::contract::schedule::KernelConfig;
use crate::stats::{Phases, Transfers};
use cudarc::driver::{result, CudaFunction, CudaModule};
use std::sync::{Arc, MutexGuard};
use std::time::{Duration, Instant};

/// One run on one GPU.
pub(crate) struct OnGpu<'a> {
    dev: &'a GpuDevice,
    opts: &'a GpuOptions,
    /// The device's workspace: this run's from the kernel's load on (one run at a time holds
    /// it; runs of other programs may compile meanwhile).
    ws: Option<MutexGuard<'a, Workspace>>,
    kernel: Option<(Arc<CudaModule>, CudaFunction)>,
    /// The loaded kernel's program, as a watchdog error names it.
    program: &'static str,
    inputs: Option<Inputs>,
}

impl<'a> OnGpu<'a> {
    pub fn new(dev: &'a GpuDevice, opts: &'a GpuOptions) -> Self {
        OnGpu { dev, opts, ws: None, kernel: None, program: "", inputs: None }
    }

    /// Loads the assembled `source` whose kernel is `entry` (a multi-GPU run's kernel is
    /// assembled for several GPUs) and takes the workspace for the run.
    pub fn load_source<P: Program>(&mut self, source: &str, entry: &str, phases: &mut Phases) -> Result<(), Error> {
        self.kernel = Some(load_source::<P>(self.dev, source, entry, phases)?);
        self.loaded::<P>();
        Ok(())
    }

    /// Takes the workspace for the run of the kernel just loaded.
    fn loaded<P: Program>(&mut self) {
        self.program = P::NAME;
        let mut ws = self.dev.workspace.lock().unwrap_or_else(|e| e.into_inner());
        ws.moved = Transfers::default();
        self.ws = Some(ws);
    }

    /// The loaded kernel's function (NVSHMEM binds its device state into its module).
    pub fn function(&self) -> &CudaFunction {
        &self.kernel.as_ref().expect("the kernel is loaded first").1
    }

    fn ws(&mut self) -> &mut Workspace {
        self.ws.as_mut().expect("the kernel is loaded before the run's memory is taken")
    }

    fn ws_ref(&self) -> &Workspace {
        self.ws.as_ref().expect("the kernel is loaded before the run's memory is taken")
    }

    fn module(&self) -> &Arc<CudaModule> {
        &self.kernel.as_ref().expect("the kernel is loaded first").0
    }

    /// The first `words` u64 of the module's global `name`.
    fn global_words(&self, name: &str, words: usize, during: &'static str) -> Result<Vec<u64>, Error> {
        let view = self.module().get_global(name, &self.dev.stream).map_err(Error::driver(during))?;
        let bytes = self.dev.stream.clone_dtoh(&view).map_err(Error::driver(during))?;
        Ok(bytes.chunks_exact(8).take(words).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect())
    }
}

impl Target for OnGpu<'_> {
    const WORKER: &'static str = "GPU worker";

    fn load<P: Program>(&mut self, prelude: &str, config: &KernelConfig, phases: &mut Phases) -> Result<(), Error> {
        let (source, hash) = kernel_source_once::<P>(prelude, config);
        self.kernel = Some(load_hashed_source::<P>(self.dev, &source, hash, config.entry_point(), phases)?);
        self.loaded::<P>();
        Ok(())
    }

    fn max_blocks(&self, block_threads: u32) -> u32 {
        // An SM holds at most 2048 threads in at most 32 blocks.
        let resident = (2048 / block_threads).clamp(1, 32);
        self.opts.blocks_per_sm.map_or(resident, |b| b.clamp(1, resident)) * self.dev.sm_count
    }

    fn blocks<P: Program>(&self, block_threads: u32, persistent: Option<&str>) -> Result<u32, Error> {
        let func = &self.kernel.as_ref().expect("the kernel is loaded first").1;
        let fit = func
            .occupancy_max_active_blocks_per_multiprocessor(block_threads, 0, None)
            .map_err(Error::driver("querying occupancy"))?;
        if let (0, Some(kernel)) = (fit, persistent) {
            return Err(Error::InvalidConfig(format!(
                "the {kernel} of `{}` does not fit one block of {block_threads} threads on an SM (too many registers); try a smaller block",
                P::NAME
            )));
        }
        // A kernel of generations runs on fewer blocks too.
        let fit = fit.max(1);
        let per_sm = self.opts.blocks_per_sm.map_or(fit, |b| b.clamp(1, fit));
        Ok((per_sm * self.dev.sm_count).min(self.max_blocks(block_threads)))
    }

    fn free_memory(&self) -> Result<usize, Error> {
        let (free, _) = self.dev.ctx.mem_get_info().map_err(Error::driver("reading free memory"))?;
        Ok(free)
    }

    fn free_for(&mut self, roles: &[&str]) -> Result<usize, Error> {
        let ctx = self.dev.ctx.clone();
        self.ws().free_for(&ctx, roles)
    }

    fn scratch(&mut self, role: &'static str, bytes: usize) -> Result<u64, Error> {
        let stream = self.dev.stream.clone();
        self.ws().buffer(&stream, role, bytes)
    }

    fn zeroed(&mut self, role: &'static str, bytes: usize) -> Result<u64, Error> {
        let stream = self.dev.stream.clone();
        self.ws().zeroed(&stream, role, bytes)
    }

    fn zeroed_queues(&mut self, role: &'static str, areas: u64, area_bytes: u64) -> Result<u64, Error> {
        // Each queue's size, the bytes of it that must be zero, and the queues in one area
        // (the area then holds words that start at zero).
        let [pitch, width, per_area] = self.global_words("wsdsl_broker_queue_clear", 3, "reading the queues' layout")?[..] else {
            return Err(Error::InvalidConfig("the kernel's queue layout has fewer than 3 words".into()));
        };
        let stream = self.dev.stream.clone();
        self.ws().zeroed_rows(&stream, role, (areas * area_bytes) as usize, (areas * per_area) as usize, pitch as usize, width as usize)
    }

    fn upload(&mut self, role: &'static str, data: &[u8]) -> Result<u64, Error> {
        let stream = self.dev.stream.clone();
        self.ws().upload(&stream, role, data)
    }

    fn upload_encoded(&mut self, role: &'static str, items: usize, width: usize, encode: &(dyn Fn(usize, &mut [u8]) + Sync)) -> Result<u64, Error> {
        let stream = self.dev.stream.clone();
        self.ws().upload_encoded(&stream, role, items, width, encode)
    }

    fn read_with<R>(&mut self, role: &'static str, bytes: usize, look: impl FnOnce(&[u8]) -> R) -> Result<R, Error> {
        let stream = self.dev.stream.clone();
        self.ws().traced(|| format!("{role} copied back"), bytes, |ws| ws.read_bytes_with(&stream, role, bytes, look))
    }

    fn clear(&self, address: u64, bytes: usize) -> Result<(), Error> {
        // SAFETY: the caller names memory of this run, which the workspace holds.
        unsafe { result::memset_d8_async(address, 0, bytes, self.dev.stream.cu_stream()) }.map_err(Error::driver("clearing device memory for a run"))
    }

    fn read_at(&self, address: u64, bytes: usize) -> Result<Vec<u8>, Error> {
        let mut out = vec![0u8; bytes];
        // SAFETY: the caller names memory of this run, which the workspace holds; the copy is
        // waited for before `out` is read.
        unsafe { result::memcpy_dtoh_async(&mut out, address, self.dev.stream.cu_stream()) }.map_err(Error::driver("reading a run's results"))?;
        self.dev.stream.synchronize().map_err(Error::driver("reading a run's results"))?;
        Ok(out)
    }

    fn inputs<P: Program>(&mut self, params: &P::Params, buffers: &P::Buffers) -> Result<InputAddresses, Error> {
        let stream = self.dev.stream.clone();
        let inputs = Inputs::upload::<P>(&stream, self.ws(), params, buffers)?;
        let addresses = InputAddresses { params: inputs.params_ptr(&stream), buffers: inputs.buffers_ptr(&stream), counters: inputs.counters_ptr(&stream) };
        self.inputs = Some(inputs);
        Ok(addresses)
    }

    fn read_back<P: Program>(&mut self, buffers: &P::Buffers) -> Result<Vec<u64>, Error> {
        let stream = self.dev.stream.clone();
        let inputs = self.inputs.take().expect("inputs are put in place before the launch");
        let slots = inputs.read_back::<P>(&stream, self.ws(), buffers);
        self.inputs = Some(inputs);
        slots
    }

    fn transfers(&self) -> Transfers {
        self.ws_ref().moved
    }

    fn stop_flag(&mut self) -> Result<u64, Error> {
        let ctx = self.dev.ctx.clone();
        Ok(self.ws().stop_flag(&ctx)?.device)
    }

    fn progress_words(&mut self, workers: usize) -> Result<u64, Error> {
        // Progress words only when someone watches: otherwise the kernel writes none.
        if !self.opts.progress.watched() {
            return Ok(0);
        }
        let ctx = self.dev.ctx.clone();
        self.ws().progress_words(&ctx, workers)
    }

    fn report_while<R>(&self, what: &str, published: Published<'_>, run: impl FnOnce() -> R) -> R {
        let ws = self.ws_ref();
        let done = || match published {
            Published::Workers(workers) => ws.progress_published(workers),
            Published::Counted(count) => count(),
        };
        self.opts.progress.report_while(what, &done, run)
    }

    fn clear_status(&mut self) -> Result<(), Error> {
        let mut status = self.module().get_global("wsdsl_status", &self.dev.stream).map_err(Error::driver("finding the status record"))?;
        self.dev.stream.memset_zeros(&mut status).map_err(Error::driver("clearing the status record"))
    }

    fn status(&self) -> Result<Vec<u64>, Error> {
        self.global_words("wsdsl_status", STATUS_WORDS, "reading the status record")
    }

    fn write_join(&mut self, record: JoinRecord) -> Result<(), Error> {
        record.write(self.module(), &self.dev.stream)
    }

    fn read_join(&self) -> Result<JoinRecord, Error> {
        JoinRecord::read(self.module(), &self.dev.stream)
    }

    fn broker_queue_bytes(&self) -> Result<u64, Error> {
        Ok(self.global_words("wsdsl_broker_queue_bytes", 1, "reading the queue size")?[0])
    }

    fn ready(&mut self) -> Result<(), Error> {
        self.dev.stream.synchronize().map_err(Error::driver("preparing the launch"))
    }

    unsafe fn launch(&self, record: &[u8], blocks: u32, block_threads: u32, cooperative: bool, since: Instant, what: &'static str) -> Result<Duration, Error> {
        let func = &self.kernel.as_ref().expect("the kernel is loaded first").1;
        let launch = Launch { func, grid: blocks, block: block_threads, cooperative, limit: self.opts.watchdog, since, what, program: self.program };
        // SAFETY: the caller's contract (the record points into this run's memory), and a
        // cooperative grid is at most the blocks resident at once (`blocks`).
        unsafe { launch_with_record(self.dev, &launch, record, self.ws_ref().stop()) }
    }

    fn abandon(&mut self) {
        self.ws().abandon();
        std::mem::forget(self.inputs.take());
        std::mem::forget(self.kernel.take());
    }
}
