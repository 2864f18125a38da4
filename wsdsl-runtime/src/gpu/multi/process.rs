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
//! naming its GPU. Across hosts (mpirun/srun) the same roles would come from the launcher's
//! rank variables and a TCP rendezvous: designed in `docs/multi-gpu.md`, not built.

use super::record::{Reader, Writer};
use crate::error::Error;
use crate::gpu::nvshmem::{Pe, UniqueId};
use crate::gpu::GpuDevice;
use std::io::{Read, Write};
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
    link: std::cell::RefCell<Link>,
    /// Finalised when the job is dropped.
    pe: Option<Pe>,
    /// A process stopped answering or a kernel would not stop: no collective call may be
    /// made again (it would wait for good), and the job refuses further runs.
    broken: std::cell::Cell<bool>,
}

enum Link {
    /// GPU 0: a stream to every other GPU's process (index k - 1), and the processes.
    Coordinator { peers: Vec<UnixStream>, children: Vec<Child> },
    Peer { coordinator: UnixStream },
}

fn io(during: &'static str) -> impl Fn(std::io::Error) -> Error {
    move |e| Error::InvalidConfig(format!("multi-GPU run: {during}: {e}"))
}

/// The GPU this process is in a job started by a coordinator, if it is one.
pub(crate) fn peer_rank() -> Option<u32> {
    std::env::var(PE_VAR).ok()?.trim().parse().ok()
}

fn send(stream: &mut UnixStream, bytes: &[u8]) -> std::io::Result<()> {
    stream.write_all(&(bytes.len() as u64).to_le_bytes())?;
    stream.write_all(bytes)
}

fn receive(stream: &mut UnixStream) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 8];
    stream.read_exact(&mut len)?;
    let len = u64::from_le_bytes(len);
    if len > 1 << 32 {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, format!("a message of {len} bytes")));
    }
    let mut bytes = vec![0u8; len as usize];
    stream.read_exact(&mut bytes)?;
    Ok(bytes)
}

impl Job {
    /// Joins (or, in the process the user started, creates) the job of `gpus` GPUs; this
    /// process's GPU is `dev`.
    pub fn start(dev: &GpuDevice, ordinal: usize, gpus: u32) -> Result<Job, Error> {
        match peer_rank() {
            Some(rank) => Job::join(dev, rank, gpus),
            None => Job::coordinate(dev, ordinal, gpus),
        }
    }

    fn coordinate(dev: &GpuDevice, ordinal: usize, gpus: u32) -> Result<Job, Error> {
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
        // Until every process has joined, a failure ends the ones started and removes the socket.
        let mut starting = Starting { children: Vec::new(), socket: path.clone() };
        let children = &mut starting.children;
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
            children.push(child);
        }
        let mut peers: Vec<Option<UnixStream>> = (1..gpus).map(|_| None).collect();
        listener.set_nonblocking(true).map_err(io("listening"))?;
        let started = Instant::now();
        while peers.iter().any(Option::is_none) {
            match listener.accept() {
                Ok((mut s, _)) => {
                    s.set_nonblocking(false).map_err(io("accepting a GPU's process"))?;
                    let rank = receive(&mut s).map_err(io("reading a GPU's rank"))?;
                    let rank = u32::from_le_bytes(rank.get(..4).and_then(|b| b.try_into().ok()).unwrap_or([0; 4]));
                    match peers.get_mut(rank.wrapping_sub(1) as usize) {
                        Some(slot @ None) => *slot = Some(s),
                        _ => return Err(Error::InvalidConfig(format!("multi-GPU run: a process claimed GPU {rank}, which is not expected"))),
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    for (k, c) in children.iter_mut().enumerate() {
                        if let Ok(Some(status)) = c.try_wait() {
                            return Err(Error::OnGpu { gpu: k as u32 + 1, gpus, message: format!("its process exited ({status}) before joining the run") });
                        }
                    }
                    if started.elapsed() > JOIN_LIMIT {
                        return Err(Error::InvalidConfig(format!("multi-GPU run: not every GPU's process joined within {JOIN_LIMIT:?}")));
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(e) => return Err(io("accepting a GPU's process")(e)),
            }
        }
        let mut peers: Vec<UnixStream> = peers.into_iter().map(|p| p.expect("every GPU joined")).collect();
        let uid = UniqueId::new()?;
        for p in &mut peers {
            send(p, &uid.to_bytes()).map_err(io("sending the NVSHMEM unique id"))?;
        }
        let pe = Pe::init(&dev.ctx, 0, gpus, &uid)?;
        // Joined: from here on the job owns the processes.
        let children = std::mem::take(&mut starting.children);
        drop(starting);
        Ok(Job { rank: 0, gpus, link: std::cell::RefCell::new(Link::Coordinator { peers, children }), pe: Some(pe), broken: std::cell::Cell::new(false) })
    }

    fn join(dev: &GpuDevice, rank: u32, gpus: u32) -> Result<Job, Error> {
        let path = std::env::var_os(SOCKET_VAR).ok_or_else(|| Error::InvalidConfig(format!("{PE_VAR} is set but {SOCKET_VAR} is not: this process was not started by a wsdsl coordinator")))?;
        let mut coordinator = UnixStream::connect(&path).map_err(io("connecting to GPU 0's process"))?;
        send(&mut coordinator, &rank.to_le_bytes()).map_err(io("joining"))?;
        let bytes = receive(&mut coordinator).map_err(io("reading the NVSHMEM unique id"))?;
        let uid: [u8; 128] = bytes.try_into().map_err(|_| Error::InvalidConfig("multi-GPU run: a malformed NVSHMEM unique id".into()))?;
        let pe = Pe::init(&dev.ctx, rank, gpus, &UniqueId::from_bytes(&uid))?;
        Ok(Job { rank, gpus, link: std::cell::RefCell::new(Link::Peer { coordinator }), pe: Some(pe), broken: std::cell::Cell::new(false) })
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
        match &mut *self.link.borrow_mut() {
            Link::Coordinator { peers, .. } => {
                let mut all = vec![mine];
                for (k, p) in peers.iter_mut().enumerate() {
                    all.push(receive(p).map_err(|e| gone(k + 1, e))?);
                }
                // The bundle: every GPU's message, in GPU order.
                let mut bundle = Writer::default();
                bundle.word(all.len() as u64);
                for m in &all {
                    bundle.bytes(m);
                }
                let bundle = bundle.finish();
                for (k, p) in peers.iter_mut().enumerate() {
                    send(p, &bundle).map_err(|e| gone(k + 1, e))?;
                }
                Ok(all)
            }
            Link::Peer { coordinator } => {
                send(coordinator, &mine).map_err(|e| gone(0, e))?;
                let bundle = receive(coordinator).map_err(|e| gone(0, e))?;
                let malformed = |m: String| Error::InvalidConfig(format!("multi-GPU run: GPU 0 sent a malformed bundle: {m}"));
                let mut r = Reader::new(&bundle);
                let count = r.word().map_err(malformed)?;
                if count != gpus as u64 {
                    return Err(malformed(format!("{count} messages for {gpus} GPUs")));
                }
                let all = (0..count).map(|_| r.bytes().map(<[u8]>::to_vec)).collect::<Result<Vec<_>, _>>().map_err(malformed)?;
                if !r.is_empty() {
                    return Err(malformed("bytes after the last message".into()));
                }
                Ok(all)
            }
        }
    }
}

/// The processes started so far and the socket they join through, while they join.
struct Starting {
    children: Vec<Child>,
    socket: PathBuf,
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
        if self.broken.get() {
            // A process is gone or a kernel still runs: the collective finalisation would wait
            // for good. Leave NVSHMEM as it is; the processes end with this one (below).
            std::mem::forget(self.pe.take());
        } else {
            // NVSHMEM's finalisation is collective: every process takes part as its program ends.
            drop(self.pe.take());
        }
        if let Link::Coordinator { peers, children } = self.link.get_mut() {
            peers.clear();
            // The other processes end their programs as this one does: wait for them a while
            // (not at all once the job broke).
            let patience = if self.broken.get() { Duration::ZERO } else { Duration::from_secs(60) };
            for c in children.iter_mut() {
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
        }
    }
}
