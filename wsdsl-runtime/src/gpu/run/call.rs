//! A run as the `Runtime` asks for it, on the GPU backend: on one GPU or on several (the
//! processes of a job, started at the first run on several GPUs), or on the emulation of one
//! or several. Every case first lets the host run the tree's first levels (`spread.rs`), then
//! runs what they dealt on each GPU through the runner (`runner.rs`); only which GPUs, and how
//! their results meet, differs. The runtime sees this module alone of the GPU backend's runs.

use crate::contract::schedule::KernelConfig;
use crate::contract::{Program, RunResult};
use crate::error::Error;
use crate::gpu::emulate::Emulation;
use crate::gpu::multi::launcher::Launched;
use crate::gpu::multi::process::{Job, Starting};
use crate::gpu::run::spread::run_spread;
use crate::gpu::run::steps::Steps;
use crate::gpu::{GpuDevice, GpuOptions};
use crate::settings::GpuCount;
use std::sync::Mutex;
use std::time::Duration;

/// How the host deals a run's first levels (`Runtime::spread`, `Runtime::alone_when_narrow`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dealing {
    /// Tasks per GPU the host aims to deal (0: the roots as they are).
    pub per_gpu: u32,
    /// Whether a run on several GPUs whose tree the host judges narrow goes to GPU 0 alone.
    pub alone_when_narrow: bool,
    /// The watchdog's limit, which bounds the host's levels too.
    pub watchdog: Duration,
}

impl Dealing {
    /// Tasks the host deals before a run on `gpus` GPUs.
    fn want(&self, gpus: u32) -> usize {
        self.per_gpu as usize * gpus as usize
    }

    /// Whether the host judges the tree's narrowness before a run on `gpus` GPUs.
    fn judge(&self, gpus: u32) -> bool {
        gpus > 1 && self.alone_when_narrow
    }
}

/// This process's part in a multi-GPU job: none until the first run on several GPUs joins one,
/// then kept for every later run (each process of the job makes the same runs).
#[derive(Default)]
pub(crate) struct Processes(Mutex<Option<Job>>);

/// The processes of a job, started before the GPU is opened so that theirs open meanwhile;
/// dropping it (a run that ends up elsewhere) ends them.
pub(crate) struct EarlyStart(Option<Starting>);

impl EarlyStart {
    /// Starts the other processes of a job on `gpus` GPUs, if this one will start them.
    pub fn new(ordinal: usize, gpus: u32) -> EarlyStart {
        EarlyStart(Starting::early(ordinal, gpus))
    }

    /// No processes started early.
    pub fn none() -> EarlyStart {
        EarlyStart(None)
    }
}

/// The GPU this process opens, however the program builds its runtime, and whether it is a
/// launched process's rank on its host, to be taken modulo the GPUs it sees (a launcher that
/// gives each process one GPU shows it as GPU 0). A process started for GPU k of a multi-GPU
/// run opens GPU k (`gpu/multi/process.rs` sets `WSDSL_DEVICE`; `Runtime::from_env` checks it
/// again); a process a launcher started (`gpu/multi/launcher.rs`) opens `WSDSL_DEVICE`, else
/// its rank on the host; any other opens GPU 0.
pub(crate) fn process_gpu() -> (usize, bool) {
    let device = crate::settings::DEVICE.from_env().ok().flatten();
    match (crate::gpu::multi::process::peer_rank(), crate::gpu::multi::launcher::from_env()) {
        (Some(_), _) => (device.unwrap_or(0) as usize, false),
        (None, Ok(Some(l))) => match device {
            Some(d) => (d as usize, false),
            None => (l.local_rank.unwrap_or(0) as usize, true),
        },
        (None, _) => (0, false),
    }
}

/// The GPUs a run spans: the runtime's count, or the launcher's job when one started this
/// process (`mpirun`, `srun`), or every GPU of the host.
fn gpus_of_run(asked: GpuCount, launched: Option<&Launched>) -> Result<u32, Error> {
    Ok(match (asked, launched) {
        (GpuCount::Some(1), Some(l)) => l.size,
        (GpuCount::Some(n), _) => n,
        (GpuCount::All, Some(l)) => l.size,
        (GpuCount::All, None) => crate::gpu::device_count().map_err(|e| Error::InvalidConfig(format!("WSDSL_GPUS=all: {e}")))?,
    })
}

/// Runs `roots` of `P` on the GPUs `asked` names, this process's being `dev` (ordinal
/// `ordinal`): on one GPU directly, on several as this process's share of their job.
#[allow(clippy::too_many_arguments)]
pub(crate) fn on_gpus<P: Program>(
    dev: &GpuDevice,
    ordinal: usize,
    asked: GpuCount,
    processes: &Processes,
    early: EarlyStart,
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    opts: &GpuOptions,
    dealing: &Dealing,
) -> Result<RunResult<P>, Error> {
    let launched = crate::gpu::multi::launcher::from_env()?;
    let gpus = gpus_of_run(asked, launched.as_ref())?;
    if gpus == 1 && !multi_kernel_on_one()? {
        return run_spread::<P>(roots, params, &opts.kernel, dealing.want(1), false, dealing.watchdog, |roots| {
            crate::gpu::run::<P>(dev, params, buffers, roots, opts)
        });
    }
    let mut steps = Steps::new(P::NAME);
    let mut job = processes.0.lock().unwrap_or_else(|e| e.into_inner());
    if job.is_none() {
        let ahead = crate::gpu::multi::run::compile_ahead::<P>(dev, &opts.kernel, gpus);
        *job = Some(Job::start(dev, ordinal, gpus, launched.as_ref(), early.0)?);
        steps.mark("job start (processes, NVSHMEM's initialisation)");
        ahead.wait();
        steps.mark("the kernel compiled meanwhile");
    }
    let job = job.as_ref().expect("started above");
    run_spread::<P>(roots, params, &opts.kernel, dealing.want(gpus), dealing.judge(gpus), dealing.watchdog, |roots| {
        crate::gpu::multi::run::run_gpus::<P>(dev, job, params, buffers, roots, opts, steps)
    })
}

/// Whether a run on one GPU runs the multi-GPU kernel, its heap and NVSHMEM anyway: a
/// measurement of what that code costs beside the one-GPU kernel (`WSDSL_MULTI_ON_ONE`, read in
/// builds with the `lab` feature; 2: its heap in ordinary device memory; 3: the across-hosts
/// kernel, `gpu/multi/run.rs`).
fn multi_kernel_on_one() -> Result<bool, Error> {
    Ok(crate::settings::MULTI_ON_ONE.lab_from_env()?.unwrap_or(0) > 0)
}

/// Runs `roots` of `P` on `gpus` emulated GPUs (`gpu/emulate/`; several: `gpu/multi/emulate.rs`).
pub(crate) fn emulated<P: Program>(
    params: &P::Params,
    buffers: &P::Buffers,
    roots: &[P::Task],
    config: &KernelConfig,
    emu: &Emulation,
    gpus: u32,
    dealing: &Dealing,
) -> Result<RunResult<P>, Error> {
    run_spread::<P>(roots, params, config, dealing.want(gpus), dealing.judge(gpus), emu.watchdog, |roots| {
        if gpus == 1 {
            return crate::gpu::emulate::run_emulated::<P>(params, buffers, roots.dealt()?, config, emu);
        }
        let dealt = roots.dealt()?;
        if roots.narrow() {
            // Judged narrow: emulated GPU 0 alone, as a GPU run would (`gpu/multi/alone.rs`).
            return crate::gpu::multi::emulate::run_emulated_alone::<P>(params, buffers, dealt, config, emu, gpus);
        }
        crate::gpu::multi::emulate::run_emulated_gpus::<P>(params, buffers, dealt, config, emu, gpus)
    })
}
