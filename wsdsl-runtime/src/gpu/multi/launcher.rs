//! Processes started by a launcher rather than by the runtime: `mpirun`, `srun`, or by hand
//! on several hosts. Each process of the job already exists, one per GPU, so nobody is
//! spawned: each learns its rank and the job's size from the launcher's environment, and
//! they meet over TCP at a rendezvous address that every host can reach (rank 0 listens
//! there, the others connect). From then on the job runs exactly as one the runtime started
//! (`process.rs`): rank 0 makes NVSHMEM's unique id and sends it to every process, and each
//! run is two all-gathers through rank 0.
//!
//! What is read (the first pair present wins):
//!
//! | launcher | rank | size | rank on its host (picks the GPU) |
//! | --- | --- | --- | --- |
//! | by hand | `WSDSL_RANK` | `WSDSL_RANKS` | `WSDSL_LOCAL_RANK` |
//! | Open MPI | `OMPI_COMM_WORLD_RANK` | `OMPI_COMM_WORLD_SIZE` | `OMPI_COMM_WORLD_LOCAL_RANK` |
//! | MPICH, Intel MPI (PMI) | `PMI_RANK` | `PMI_SIZE` | `MPI_LOCALRANKID` |
//! | Slurm | `SLURM_PROCID` | `SLURM_NTASKS` | `SLURM_LOCALID` |
//!
//! Slurm comes last: an MPI launcher run inside a Slurm allocation leaves the batch's
//! `SLURM_PROCID` (0 for every process) in each process's environment.
//!
//! and `WSDSL_RENDEZVOUS=host:port`, rank 0's address. The launchers' variables count only
//! with `WSDSL_RENDEZVOUS` set (a batch script's own shell has `SLURM_PROCID` and
//! `SLURM_NTASKS` too, and a program started there once must not wait for others); `WSDSL_RANK`
//! without it is an error. A job of one process is an ordinary single-process program.

use super::record::{Reader, Writer};
use crate::error::Error;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::os::unix::net::{UnixListener, UnixStream};
use std::time::{Duration, Instant};

/// Where rank 0 listens for the others (`host:port`).
pub const RENDEZVOUS_VAR: &str = "WSDSL_RENDEZVOUS";

/// The launchers' variables: rank, size, rank on the host.
const LAUNCHERS: [(&str, &str, &str); 4] = [
    ("WSDSL_RANK", "WSDSL_RANKS", "WSDSL_LOCAL_RANK"),
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),
    ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"),
    ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"),
];

/// How long a joining process may take to name itself, and one attempt to connect.
const HELLO_LIMIT: Duration = Duration::from_secs(10);

/// How long the processes wait for each other to meet.
pub(crate) const MEET_LIMIT: Duration = Duration::from_secs(120);

/// This process's place in a job a launcher started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Launched {
    pub rank: u32,
    pub size: u32,
    /// The rank among the job's processes on this host: the GPU it opens, unless
    /// `WSDSL_DEVICE` says otherwise.
    pub local_rank: Option<u32>,
    /// Rank 0's `host:port`.
    pub rendezvous: String,
}

/// The job a launcher started this process in, read through `var` (the environment), if it
/// spans more than one process; an error names a variable that is malformed or missing.
pub(crate) fn launched(var: impl Fn(&str) -> Option<String>) -> Result<Option<Launched>, Error> {
    let Some((rank_var, size_var, local_var)) = LAUNCHERS.into_iter().find(|(rank, _, _)| var(rank).is_some()) else {
        return Ok(None);
    };
    let rendezvous = var(RENDEZVOUS_VAR).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    if rendezvous.is_none() && rank_var != LAUNCHERS[0].0 {
        return Ok(None);
    }
    let number = |name: &str| -> Result<Option<u32>, Error> {
        match var(name) {
            None => Ok(None),
            Some(v) => v.trim().parse::<u32>().map(Some).map_err(|_| Error::InvalidConfig(format!("{name}={v:?} is not a whole number"))),
        }
    };
    let rank = number(rank_var)?.expect("found above");
    let size = number(size_var)?.ok_or_else(|| Error::InvalidConfig(format!("{rank_var} is set but {size_var} (the job's size) is not")))?;
    if size <= 1 {
        return Ok(None);
    }
    if rank >= size {
        return Err(Error::InvalidConfig(format!("{rank_var}={rank} is not below {size_var}={size}")));
    }
    if size > super::MAX_GPUS {
        return Err(Error::InvalidConfig(format!("{size_var}={size}: a run spans at most {} GPUs", super::MAX_GPUS)));
    }
    let rendezvous = rendezvous.ok_or_else(|| {
        Error::InvalidConfig(format!(
            "this process is rank {rank} of {size} ({rank_var}, {size_var}), but {RENDEZVOUS_VAR} is not set: set it to host:port of rank 0's host, a port every host can reach, e.g. {RENDEZVOUS_VAR}=node01:29500"
        ))
    })?;
    Ok(Some(Launched { rank, size, local_rank: number(local_var)?, rendezvous }))
}

/// [`launched`] from this process's environment.
pub(crate) fn from_env() -> Result<Option<Launched>, Error> {
    launched(|name| std::env::var(name).ok())
}

/// A connection between two processes of a job: a Unix socket (processes the runtime
/// started on this host) or TCP (processes a launcher started, maybe on other hosts).
pub(crate) enum Conn {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Conn::Unix(s) => s.read(buf),
            Conn::Tcp(s) => s.read(buf),
        }
    }
}

impl Conn {
    /// The rank a joining process names first, within `HELLO_LIMIT`; `None` if it says
    /// nothing well-formed in time.
    fn hello(&mut self) -> Option<u32> {
        self.read_timeout(Some(HELLO_LIMIT));
        let rank = receive(self).ok().filter(|m| m.len() == 4).map(|m| u32::from_le_bytes(m.try_into().expect("4 bytes")));
        self.read_timeout(None);
        rank
    }

    fn read_timeout(&self, limit: Option<Duration>) {
        let _ = match self {
            Conn::Unix(s) => s.set_read_timeout(limit),
            Conn::Tcp(s) => s.set_read_timeout(limit),
        };
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Conn::Unix(s) => s.write(buf),
            Conn::Tcp(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Conn::Unix(s) => s.flush(),
            Conn::Tcp(s) => s.flush(),
        }
    }
}

/// Where rank 0 waits for the others: TCP (a launched job) or a Unix socket (a job the
/// runtime started on this host).
pub(crate) enum Listener {
    Tcp(TcpListener),
    Unix(UnixListener),
}

impl Listener {
    /// A connection if one is waiting (the listener does not block), made blocking.
    fn try_accept(&self) -> std::io::Result<Option<Conn>> {
        let accepted = match self {
            Listener::Tcp(l) => l.set_nonblocking(true).and_then(|()| l.accept()).and_then(|(s, _)| {
                s.set_nonblocking(false)?;
                let _ = s.set_nodelay(true);
                Ok(Conn::Tcp(s))
            }),
            Listener::Unix(l) => l.set_nonblocking(true).and_then(|()| l.accept()).and_then(|(s, _)| {
                s.set_nonblocking(false)?;
                Ok(Conn::Unix(s))
            }),
        };
        match accepted {
            Ok(c) => Ok(Some(c)),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// Sends one message: its length, then its bytes.
pub(crate) fn send(stream: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    stream.write_all(&(bytes.len() as u64).to_le_bytes())?;
    stream.write_all(bytes)
}

/// Receives one message of [`send`].
pub(crate) fn receive(stream: &mut impl Read) -> std::io::Result<Vec<u8>> {
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

/// An I/O error of the job's links as the run's error, saying what was being done.
pub(crate) fn io(during: &'static str) -> impl Fn(std::io::Error) -> Error {
    move |e| Error::InvalidConfig(format!("multi-GPU run: {during}: {e}"))
}

/// The links of a job: rank 0 holds one to every other rank (index k - 1), the others one
/// to rank 0.
pub(crate) enum Links {
    Root(Vec<Conn>),
    Member(Conn),
}

impl Links {
    /// Rank 0: accepts the other `size - 1` ranks on `listener`, each naming itself first,
    /// until `limit`; `check` is called while waiting (a process that died is an error).
    pub(crate) fn accept(listener: &Listener, size: u32, limit: Duration, mut check: impl FnMut() -> Result<(), Error>) -> Result<Links, Error> {
        let mut peers: Vec<Option<Conn>> = (1..size).map(|_| None).collect();
        let started = Instant::now();
        while peers.iter().any(Option::is_none) {
            match listener.try_accept().map_err(io("accepting a process"))? {
                Some(mut c) => {
                    // A connection that is not one of the job's processes (silent, or naming a
                    // rank not expected) is dropped, not waited on or taken as the job's failure.
                    let Some(rank) = c.hello() else { continue };
                    match peers.get_mut(rank.wrapping_sub(1) as usize) {
                        Some(slot @ None) => *slot = Some(c),
                        Some(Some(_)) => return Err(Error::InvalidConfig(format!("multi-GPU run: two processes claimed rank {rank}"))),
                        None => eprintln!("wsdsl: a connection to the rendezvous claimed rank {rank} of a job of {size}; ignored"),
                    }
                }
                None => {
                    check()?;
                    if started.elapsed() > limit {
                        let missing: Vec<String> = peers.iter().enumerate().filter(|(_, p)| p.is_none()).map(|(k, _)| (k + 1).to_string()).collect();
                        return Err(Error::InvalidConfig(format!("multi-GPU run: ranks {} did not join within {limit:?}", missing.join(", "))));
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
        }
        Ok(Links::Root(peers.into_iter().map(|p| p.expect("every rank joined")).collect()))
    }

    /// Rank `rank` (not 0): connects to rank 0 at `address`, retrying until `limit` (rank 0
    /// may not listen yet), and names itself.
    pub(crate) fn connect(address: &str, rank: u32, limit: Duration) -> Result<Links, Error> {
        let started = Instant::now();
        let attempt = || -> std::io::Result<TcpStream> {
            let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "the address resolves to nothing");
            for a in address.to_socket_addrs()? {
                match TcpStream::connect_timeout(&a, HELLO_LIMIT) {
                    Ok(s) => return Ok(s),
                    Err(e) => last = e,
                }
            }
            Err(last)
        };
        let mut stream = loop {
            match attempt() {
                Ok(s) => break s,
                Err(e) if started.elapsed() > limit => {
                    return Err(Error::InvalidConfig(format!("multi-GPU run: rank {rank} could not reach rank 0 at {RENDEZVOUS_VAR}={address} within {limit:?}: {e}")))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        };
        let _ = stream.set_nodelay(true);
        send(&mut stream, &rank.to_le_bytes()).map_err(io("joining rank 0"))?;
        Ok(Links::Member(Conn::Tcp(stream)))
    }

    /// Rank 0 listens on the rendezvous's port (on every interface: the host's name may
    /// resolve to a loopback address on the host itself) and accepts the others; the others
    /// connect to the rendezvous.
    pub(crate) fn meet(launched: &Launched) -> Result<Links, Error> {
        if launched.rank == 0 {
            let port = launched.rendezvous.rsplit_once(':').and_then(|(_, p)| p.parse::<u16>().ok()).ok_or_else(|| {
                Error::InvalidConfig(format!("{RENDEZVOUS_VAR}={} is not host:port", launched.rendezvous))
            })?;
            let listener = TcpListener::bind(("0.0.0.0", port)).map_err(|e| {
                Error::InvalidConfig(format!("multi-GPU run: rank 0 cannot listen on port {port} ({RENDEZVOUS_VAR}={}): {e}", launched.rendezvous))
            })?;
            Links::accept(&Listener::Tcp(listener), launched.size, MEET_LIMIT, || Ok(()))
        } else {
            Links::connect(&launched.rendezvous, launched.rank, MEET_LIMIT)
        }
    }

    /// Rank 0 sends `bytes` to every rank; every rank returns them.
    pub(crate) fn broadcast(&mut self, bytes: Option<&[u8]>) -> Result<Vec<u8>, Error> {
        match self {
            Links::Root(peers) => {
                let bytes = bytes.expect("rank 0 has what it broadcasts");
                for p in peers.iter_mut() {
                    send(p, bytes).map_err(io("sending to every process"))?;
                }
                Ok(bytes.to_vec())
            }
            Links::Member(root) => receive(root).map_err(io("receiving from rank 0")),
        }
    }

    /// Every rank's message, in rank order, given this rank's (through rank 0). `gone(k, e)`
    /// is the error of rank `k` that stopped answering.
    pub(crate) fn all_gather(&mut self, mine: Vec<u8>, ranks: u32, gone: impl Fn(usize, std::io::Error) -> Error) -> Result<Vec<Vec<u8>>, Error> {
        match self {
            Links::Root(peers) => {
                let mut all = vec![mine];
                for (k, p) in peers.iter_mut().enumerate() {
                    all.push(receive(p).map_err(|e| gone(k + 1, e))?);
                }
                // The bundle: every rank's message, in rank order.
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
            Links::Member(root) => {
                send(root, &mine).map_err(|e| gone(0, e))?;
                let bundle = receive(root).map_err(|e| gone(0, e))?;
                let malformed = |m: String| Error::InvalidConfig(format!("multi-GPU run: rank 0 sent a malformed bundle: {m}"));
                let mut r = Reader::new(&bundle);
                let count = r.word().map_err(malformed)?;
                if count != ranks as u64 {
                    return Err(malformed(format!("{count} messages for {ranks} ranks")));
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn ranks_come_from_each_launcher_and_need_a_rendezvous() {
        assert_eq!(launched(env(&[])).unwrap(), None);
        let open_mpi = env(&[("OMPI_COMM_WORLD_RANK", "2"), ("OMPI_COMM_WORLD_SIZE", "4"), ("OMPI_COMM_WORLD_LOCAL_RANK", "0"), (RENDEZVOUS_VAR, "node01:29500")]);
        assert_eq!(launched(open_mpi).unwrap(), Some(Launched { rank: 2, size: 4, local_rank: Some(0), rendezvous: "node01:29500".into() }));
        let slurm = env(&[("SLURM_PROCID", "1"), ("SLURM_NTASKS", "2"), (RENDEZVOUS_VAR, "n1:1")]);
        assert_eq!(launched(slurm).unwrap().map(|l| (l.rank, l.size, l.local_rank)), Some((1, 2, None)));
        let pmi = env(&[("PMI_RANK", "0"), ("PMI_SIZE", "3"), ("MPI_LOCALRANKID", "0"), (RENDEZVOUS_VAR, "h:2")]);
        assert_eq!(launched(pmi).unwrap().map(|l| (l.rank, l.size)), Some((0, 3)));
        // One process: an ordinary program.
        assert_eq!(launched(env(&[("SLURM_PROCID", "0"), ("SLURM_NTASKS", "1")])).unwrap(), None);
        // An MPI launcher inside a Slurm allocation: the MPI ranks, not the batch's.
        let inside = env(&[("PMI_RANK", "1"), ("PMI_SIZE", "2"), ("SLURM_PROCID", "0"), ("SLURM_NTASKS", "1"), (RENDEZVOUS_VAR, "h:4")]);
        assert_eq!(launched(inside).unwrap().map(|l| (l.rank, l.size)), Some((1, 2)));
        // By hand, and wsdsl's own variables first.
        let both = env(&[("WSDSL_RANK", "1"), ("WSDSL_RANKS", "2"), ("SLURM_PROCID", "5"), ("SLURM_NTASKS", "8"), (RENDEZVOUS_VAR, "h:3")]);
        assert_eq!(launched(both).unwrap().map(|l| (l.rank, l.size)), Some((1, 2)));

        let text = |e: Error| e.to_string();
        // A launcher's variables without a rendezvous: a batch script's shell, one program.
        assert_eq!(launched(env(&[("SLURM_PROCID", "0"), ("SLURM_NTASKS", "4")])).unwrap(), None);
        let no_rendezvous = launched(env(&[("WSDSL_RANK", "1"), ("WSDSL_RANKS", "2")])).map_err(text).unwrap_err();
        assert!(no_rendezvous.contains(RENDEZVOUS_VAR) && no_rendezvous.contains("rank 1 of 2"), "{no_rendezvous}");
        let no_size = launched(env(&[("WSDSL_RANK", "1")])).map_err(text).unwrap_err();
        assert!(no_size.contains("WSDSL_RANKS"), "{no_size}");
        let bad = launched(env(&[("WSDSL_RANK", "one"), ("WSDSL_RANKS", "2")])).map_err(text).unwrap_err();
        assert!(bad.contains("WSDSL_RANK=\"one\""), "{bad}");
        let beyond = launched(env(&[("WSDSL_RANK", "2"), ("WSDSL_RANKS", "2"), (RENDEZVOUS_VAR, "h:1")])).map_err(text).unwrap_err();
        assert!(beyond.contains("not below"), "{beyond}");
    }

    /// Three ranks meet over TCP on this host, as processes on three hosts would: rank 0
    /// broadcasts, and two all-gathers come back in rank order everywhere.
    #[test]
    fn ranks_meet_over_tcp_and_gather_in_rank_order() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let gone = |k: usize, e: std::io::Error| Error::InvalidConfig(format!("rank {k} gone: {e}"));
        let members: Vec<_> = (1..3u32)
            .map(|rank| {
                let address = address.clone();
                std::thread::spawn(move || {
                    let mut links = Links::connect(&address, rank, Duration::from_secs(20)).unwrap();
                    let id = links.broadcast(None).unwrap();
                    let first = links.all_gather(vec![rank as u8; rank as usize + 1], 3, gone).unwrap();
                    let second = links.all_gather(id.clone(), 3, gone).unwrap();
                    (id, first, second)
                })
            })
            .collect();
        let mut root = Links::accept(&Listener::Tcp(listener), 3, Duration::from_secs(20), || Ok(())).unwrap();
        assert_eq!(root.broadcast(Some(&[7, 7, 7])).unwrap(), vec![7, 7, 7]);
        let first = root.all_gather(vec![0], 3, gone).unwrap();
        let second = root.all_gather(vec![7, 7, 7], 3, gone).unwrap();
        let want_first = vec![vec![0u8], vec![1, 1], vec![2, 2, 2]];
        assert_eq!(first, want_first);
        for m in members {
            let (id, got_first, got_second) = m.join().unwrap();
            assert_eq!(id, vec![7, 7, 7]);
            assert_eq!(got_first, want_first);
            assert_eq!(got_second, second);
        }
    }

    #[test]
    fn strangers_at_the_rendezvous_are_dropped() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let stranger = address.clone();
        let member = std::thread::spawn(move || {
            // Someone who names a rank the job does not have, then the real rank 1.
            let mut wrong = TcpStream::connect(&stranger).unwrap();
            send(&mut wrong, &9u32.to_le_bytes()).unwrap();
            let mut junk = TcpStream::connect(&stranger).unwrap();
            send(&mut junk, b"hello").unwrap();
            let mut links = Links::connect(&stranger, 1, Duration::from_secs(20)).unwrap();
            links.broadcast(None).unwrap()
        });
        let mut root = Links::accept(&Listener::Tcp(listener), 2, Duration::from_secs(20), || Ok(())).unwrap();
        root.broadcast(Some(b"id")).unwrap();
        assert_eq!(member.join().unwrap(), b"id");
    }

    #[test]
    fn a_rank_that_never_comes_is_named() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let member = std::thread::spawn(move || Links::connect(&address, 2, Duration::from_secs(20)).map(|_| ()));
        let e = Links::accept(&Listener::Tcp(listener), 3, Duration::from_millis(500), || Ok(())).err().expect("rank 1 never joins");
        assert!(e.to_string().contains("ranks 1 did not join"), "{e}");
        member.join().unwrap().unwrap();
        let e = Links::connect("127.0.0.1:1", 1, Duration::from_millis(200)).err().expect("nobody listens on port 1");
        assert!(e.to_string().contains("could not reach rank 0"), "{e}");
    }
}
