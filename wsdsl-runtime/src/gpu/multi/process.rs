//! One process per GPU, started for the user. NVSHMEM holds one PE per process, so a run on
//! n GPUs of one host runs the program n times, SPMD: the process the user started is GPU
//! 0 and the coordinator; at its first multi-GPU run it starts its own binary again n - 1
//! times with the same arguments and `WSDSL_PE=k` (GPU k), `WSDSL_PE_SOCKET` (a Unix socket
//! it listens on), its standard output discarded and progress lines off. Every process
//! makes the same calls in the same order (the program is deterministic up to its runs, as
//! SPMD programs are): each `run` does its GPU's share, and through the coordinator every
//! process receives every GPU's result and merges them alike, so each returns the same
//! `Output` and goes on exactly as a single-GPU program would.
//!
//! The socket carries the NVSHMEM unique id once (the coordinator makes it; every process
//! then joins the job with `Pe::init`), and per run two all-gathers: each GPU's proposal for
//! the run's shape, then each GPU's result (`record.rs`). A process that dies is an error
//! naming its GPU. Processes a launcher started (`mpirun`, `srun`, by hand on several hosts)
//! take the same roles from the launcher's rank variables and meet over TCP instead
//! (`launcher.rs`); nothing is spawned then.

use super::launcher::{io, send, Conn, Launched, Links, Listener};
use crate::error::Error;
use crate::gpu::nvshmem::{Pe, UniqueId};
use crate::gpu::GpuDevice;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The environment that makes a process GPU k of a run (set by the coordinator).
pub const PE_VAR: &str = "WSDSL_PE";
const SOCKET_VAR: &str = "WSDSL_PE_SOCKET";
/// How long the coordinator waits for every process to join.
const JOIN_LIMIT: Duration = Duration::from_secs(120);

/// This process's part in a multi-GPU job.
pub(crate) struct Job {
    pub rank: u32,
    pub gpus: u32,
    /// Interior: a run holds the PE (and its symmetric memory, borrowed from it) while it
    /// exchanges messages.
    links: std::cell::RefCell<Links>,
    /// The processes this one started for the other GPUs (the coordinator of a job the
    /// runtime started; none otherwise).
    children: Vec<Child>,
    /// Finalised when the job is dropped.
    pe: Option<Pe>,
    /// A process stopped answering or a kernel would not stop: no collective call may be
    /// made again (it would wait for good), and the job refuses further runs.
    broken: std::cell::Cell<bool>,
    /// The host of every rank ([`Job::hosts`]), once gathered.
    hosts: std::cell::RefCell<Option<Vec<u32>>>,
}

/// `WSDSL_HOST_GROUPS=g`: the job's GPUs count as g hosts of consecutive ranks, whatever
/// machines they are on, so the path between hosts (`cuda/features/pe.cuh`, one-sided calls) can be
/// run on one machine.
pub const HOST_GROUPS_VAR: &str = "WSDSL_HOST_GROUPS";

/// This machine's name (Linux), which ranks of one host share.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unnamed host".into())
}

/// Hosts of ranks in rank order, numbered by first appearance.
fn host_numbers(names: &[String]) -> Vec<u32> {
    let mut seen: Vec<&str> = Vec::new();
    names
        .iter()
        .map(|n| match seen.iter().position(|s| s == n) {
            Some(k) => k as u32,
            None => {
                seen.push(n);
                seen.len() as u32 - 1
            }
        })
        .collect()
}

/// The GPU this process is in a job started by a coordinator, if it is one.
pub(crate) fn peer_rank() -> Option<u32> {
    std::env::var(PE_VAR).ok()?.trim().parse().ok()
}

/// NVSHMEM's unique id of the job: rank 0 makes it and sends it to every rank.
fn shared_id(links: &mut Links) -> Result<UniqueId, Error> {
    if let Links::Root(_) = links {
        let uid = UniqueId::new()?;
        links.broadcast(Some(&uid.to_bytes()))?;
        return Ok(uid);
    }
    let bytes = links.broadcast(None)?;
    let uid: [u8; 128] = bytes.try_into().map_err(|_| Error::InvalidConfig("multi-GPU run: a malformed NVSHMEM unique id".into()))?;
    Ok(UniqueId::from_bytes(&uid))
}

impl Job {
    fn new(rank: u32, gpus: u32, links: Links, children: Vec<Child>, pe: Pe) -> Job {
        Job {
            rank,
            gpus,
            links: std::cell::RefCell::new(links),
            children,
            pe: Some(pe),
            broken: std::cell::Cell::new(false),
            hosts: std::cell::RefCell::new(None),
        }
    }

    /// Joins (or, in the process the user started, creates) the job of `gpus` GPUs; this
    /// process's GPU is `dev`. A process a launcher started (`launched`) meets the others at
    /// the rendezvous instead.
    /// `early`: the other GPUs' processes, if [`Starting::early`] started them before this
    /// process opened its GPU (used when it was for the same ordinal and GPU count).
    pub fn start(dev: &GpuDevice, ordinal: usize, gpus: u32, launched: Option<&Launched>, early: Option<Starting>) -> Result<Job, Error> {
        match (peer_rank(), launched) {
            (Some(rank), _) => Job::join(dev, rank, gpus),
            (None, Some(l)) => Job::rendezvous(dev, l, gpus),
            (None, None) => {
                let starting = match early.filter(|s| s.ordinal == ordinal && s.gpus == gpus) {
                    Some(s) => s,
                    None => Starting::spawn(ordinal, gpus)?,
                };
                Job::coordinate(dev, starting)
            }
        }
    }

    /// Rank `l.rank` of a job a launcher started: meets the others at the rendezvous; rank 0
    /// makes NVSHMEM's unique id and hands it to every rank.
    fn rendezvous(dev: &GpuDevice, l: &Launched, gpus: u32) -> Result<Job, Error> {
        if gpus != l.size {
            return Err(Error::InvalidConfig(format!(
                "this process is rank {} of a job of {} processes, one per GPU, but the run asks for {gpus} GPUs: leave WSDSL_GPUS (Runtime::gpus) unset or set it to {}",
                l.rank, l.size, l.size
            )));
        }
        let mut links = Links::meet(l)?;
        let pe = Pe::init(&dev.ctx, l.rank, l.size, &shared_id(&mut links)?)?;
        Ok(Job::new(l.rank, gpus, links, Vec::new(), pe))
    }

    /// The process the user started: waits for the processes of GPUs 1.. (`starting`) to
    /// join, makes NVSHMEM's unique id and hands it to them.
    fn coordinate(dev: &GpuDevice, mut starting: Starting) -> Result<Job, Error> {
        let gpus = starting.gpus;
        let listener = starting.listener.take().expect("a Starting listens until its job is made");
        let children = &mut starting.children;
        let links = Links::accept(&Listener::Unix(listener), gpus, JOIN_LIMIT, || {
            for (k, c) in children.iter_mut().enumerate() {
                if let Ok(Some(status)) = c.try_wait() {
                    return Err(Error::OnGpu { gpu: k as u32 + 1, gpus, message: format!("its process exited ({status}) before joining the run") });
                }
            }
            Ok(())
        })?;
        let mut links = links;
        let pe = Pe::init(&dev.ctx, 0, gpus, &shared_id(&mut links)?)?;
        // Joined: from here on the job owns the processes.
        let children = std::mem::take(&mut starting.children);
        drop(starting);
        Ok(Job::new(0, gpus, links, children, pe))
    }

    fn join(dev: &GpuDevice, rank: u32, gpus: u32) -> Result<Job, Error> {
        let path = std::env::var_os(SOCKET_VAR).ok_or_else(|| Error::InvalidConfig(format!("{PE_VAR} is set but {SOCKET_VAR} is not: this process was not started by a wsdsl coordinator")))?;
        let mut coordinator = UnixStream::connect(&path).map_err(io("connecting to GPU 0's process"))?;
        send(&mut coordinator, &rank.to_le_bytes()).map_err(io("joining"))?;
        let mut links = Links::Member(Conn::Unix(coordinator));
        let pe = Pe::init(&dev.ctx, rank, gpus, &shared_id(&mut links)?)?;
        Ok(Job::new(rank, gpus, links, Vec::new(), pe))
    }

    /// The host of every rank, in rank order (rank 0's is 0): ranks on machines of the same
    /// name share one, unless `WSDSL_HOST_GROUPS` splits the job. Gathered at the first call
    /// (collective: every process calls it at the same point of its run).
    pub fn hosts(&self) -> Result<Vec<u32>, Error> {
        if let Some(h) = self.hosts.borrow().as_ref() {
            return Ok(h.clone());
        }
        let gpus = self.gpus;
        // Every rank sends its machine's name and its HOST_GROUPS_VAR (all must agree on it).
        let groups_here = std::env::var(HOST_GROUPS_VAR).unwrap_or_default();
        let mut mine = super::record::Writer::default();
        mine.text(&host_name()).text(&groups_here);
        let all = self.all_gather(mine.finish())?;
        let mut names = Vec::new();
        for (rank, bytes) in all.iter().enumerate() {
            let mut r = super::record::Reader::new(bytes);
            let bad = |m: String| Error::OnGpu { gpu: rank as u32, gpus, message: format!("its host's name: {m}") };
            let (name, groups) = (r.text().map_err(bad)?, r.text().map_err(bad)?);
            if groups != groups_here {
                return Err(Error::InvalidConfig(format!(
                    "{HOST_GROUPS_VAR} is {groups_here:?} here but {groups:?} in the process of GPU {rank}: set it alike for every process (or for none)"
                )));
            }
            names.push(name);
        }
        let hosts = match groups_here.trim() {
            "" => host_numbers(&names),
            v => {
                let groups: u32 = v.parse().ok().filter(|g| (1..=gpus).contains(g)).ok_or_else(|| {
                    Error::InvalidConfig(format!("{HOST_GROUPS_VAR}={v:?}: a number of groups from 1 to the run's {gpus} GPUs"))
                })?;
                (0..gpus).map(|r| (r as u64 * groups as u64 / gpus as u64) as u32).collect()
            }
        };
        *self.hosts.borrow_mut() = Some(hosts.clone());
        Ok(hosts)
    }

    /// This process's PE.
    pub fn pe(&self) -> &Pe {
        self.pe.as_ref().expect("the PE lives as long as the job")
    }

    /// Marks the job unusable (see `broken`).
    pub fn mark_broken(&self) {
        self.broken.set(true);
    }

    /// Every GPU's message, in GPU order, given this GPU's (through the coordinator). A
    /// process that stopped answering breaks the job.
    pub fn all_gather(&self, mine: Vec<u8>) -> Result<Vec<Vec<u8>>, Error> {
        if self.broken.get() {
            return Err(Error::InvalidConfig(
                "an earlier run on several GPUs broke this job (a process stopped answering, or a kernel would not stop); start the program again".into(),
            ));
        }
        let gathered = self.exchange(mine);
        if gathered.is_err() {
            self.broken.set(true);
        }
        gathered
    }

    fn exchange(&self, mine: Vec<u8>) -> Result<Vec<Vec<u8>>, Error> {
        let gpus = self.gpus;
        let gone = |gpu: usize, e: std::io::Error| {
            let who = if gpu == 0 { "the coordinating process" } else { "its process" };
            Error::OnGpu { gpu: gpu as u32, gpus, message: format!("{who} stopped answering: {e}") }
        };
        self.links.borrow_mut().all_gather(mine, gpus, gone)
    }
}

/// The processes of GPUs 1.. of a job this process coordinates, started and not yet joined:
/// a failure before they join ends them and removes the socket (`Drop`).
pub(crate) struct Starting {
    ordinal: usize,
    gpus: u32,
    children: Vec<Child>,
    listener: Option<UnixListener>,
    socket: PathBuf,
}

impl Starting {
    /// Starts this program's binary again for GPUs `ordinal + 1 ..= ordinal + gpus - 1`, each
    /// told to join at a socket this process listens on.
    fn spawn(ordinal: usize, gpus: u32) -> Result<Starting, Error> {
        let present = crate::gpu::device_count()?;
        if ordinal as u64 + gpus as u64 > present as u64 {
            return Err(Error::InvalidConfig(format!(
                "a run on {gpus} GPUs from GPU {ordinal} needs GPUs {ordinal}..{}, but this host has {present}; lower WSDSL_GPUS (or Runtime::gpus)",
                ordinal as u64 + gpus as u64 - 1
            )));
        }
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let path: PathBuf = std::env::temp_dir().join(format!("wsdsl-{}-{nanos}.sock", std::process::id()));
        let listener = UnixListener::bind(&path).map_err(io("listening for the other GPUs' processes"))?;
        let mut starting = Starting { ordinal, gpus, children: Vec::new(), listener: Some(listener), socket: path.clone() };
        let exe = std::env::current_exe().map_err(io("finding this program's binary to start it per GPU"))?;
        for k in 1..gpus {
            let child = Command::new(&exe)
                .args(std::env::args_os().skip(1))
                .env(PE_VAR, k.to_string())
                .env("WSDSL_GPUS", gpus.to_string())
                .env(SOCKET_VAR, &path)
                .env("WSDSL_DEVICE", (ordinal + k as usize).to_string())
                .env("WSDSL_PROGRESS", "0")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .map_err(io("starting the process of another GPU"))?;
            starting.children.push(child);
        }
        Ok(starting)
    }

    /// At the first multi-GPU run of the process the user started, before it opens its own
    /// GPU: starts the other GPUs' processes, so that each creates its context (0.3-0.6 s on
    /// an H100 machine) while this one creates its own, instead of after it. Only where the
    /// driver counts enough GPUs (if this process then cannot open its own, the caller drops
    /// the result, which ends them); any failure here is left for [`Job::start`] to meet
    /// again and report. A job of `WSDSL_GPUS=all` is started the usual way, after this
    /// process has opened its GPU and counted them.
    pub(crate) fn early(ordinal: usize, gpus: u32) -> Option<Starting> {
        if gpus < 2 || peer_rank().is_some() || !matches!(super::launcher::from_env(), Ok(None)) {
            return None;
        }
        Starting::spawn(ordinal, gpus).ok()
    }
}

impl Drop for Starting {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.socket);
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        let mut steps = crate::gpu::run::steps::Steps::of(format!("end of the multi-GPU job (GPU {} of {})", self.rank, self.gpus));
        if self.broken.get() {
            // A process is gone or a kernel still runs: the collective finalisation would wait
            // for good. Leave NVSHMEM as it is; the processes end with this one (below).
            std::mem::forget(self.pe.take());
        } else {
            // NVSHMEM's finalisation is collective: every process takes part as its program ends.
            drop(self.pe.take());
        }
        steps.mark("NVSHMEM's finalisation");
        if !self.children.is_empty() {
            if let Links::Root(peers) = self.links.get_mut() {
                peers.clear();
            }
            // The other processes end their programs as this one does: wait for them a while
            // (not at all once the job broke).
            let patience = if self.broken.get() { Duration::ZERO } else { Duration::from_secs(60) };
            for c in self.children.iter_mut() {
                let started = Instant::now();
                while started.elapsed() < patience {
                    if let Ok(Some(_)) = c.try_wait() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                let _ = c.kill();
                let _ = c.wait();
            }
            steps.mark("the other processes' end");
        }
        steps.report();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn hosts_are_numbered_by_first_appearance() {
        let names: Vec<String> = ["b", "b", "a", "b", "c", "a"].iter().map(|s| s.to_string()).collect();
        assert_eq!(super::host_numbers(&names), [0, 0, 1, 0, 2, 1]);
    }
}
