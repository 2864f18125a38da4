//! The chain micro-benchmark: every task spawns one child until a chain of `length` links
//! is done, so the run time over the length is the hand-off latency per level: a task
//! finishes, its child becomes visible, a worker takes it and starts it. `chains` chains run
//! side by side (one is pure latency; a few thousand model a deep tree's scarce
//! parallelism, such as UTS T3's). The joined form makes every link wait for its child and
//! add one to the child's value, so a chain's value comes back up through `length` complete
//! handlers.

use wsdsl::prelude::*;

#[megakernel]
pub mod chain {
    use wsdsl::prelude::*;

    #[params]
    pub struct Params {
        /// Links per chain.
        pub length: u32,
    }

    #[counters]
    pub struct Counters {
        pub links: Sum<u64>,
    }

    /// The root: starts `chains` chains.
    #[task]
    pub struct Start {
        pub chains: u32,
    }

    /// A link with `left` links still to run, itself included.
    #[task]
    pub struct Link {
        pub left: u32,
    }

    #[spawn]
    fn start(s: &Start, ctx: &mut Ctx) {
        for _ in 0..s.chains {
            ctx.spawn(Link { left: ctx.params.length });
        }
    }

    #[spawn]
    fn link(l: &Link, ctx: &mut Ctx) {
        ctx.counters.links.add(1);
        if l.left > 1 {
            ctx.spawn(Link { left: l.left - 1 });
        }
    }
}

#[megakernel]
pub mod joined {
    use wsdsl::prelude::*;

    #[counters]
    pub struct Counters {
        pub links: Sum<u64>,
    }

    /// A link with `left` links still to run; its value is the number of links from it to
    /// the end of its chain.
    #[task(value = u32)]
    pub struct Link {
        pub left: u32,
    }

    #[spawn]
    fn link(l: &Link, ctx: &mut Ctx) -> u32 {
        ctx.counters.links.add(1);
        if l.left > 1 {
            ctx.spawn(Link { left: l.left - 1 });
        }
        1
    }

    #[complete(max_children = 1)]
    fn up(_l: &Link, children: &[u32], _ctx: &mut Ctx) -> u32 {
        children[0] + 1
    }
}

/// What a chain run measured.
pub struct Measured {
    pub links: u64,
    /// The chains' values (joined form; empty otherwise).
    pub values: Vec<u32>,
    pub stats: Stats,
    pub backend: wsdsl::BackendKind,
    /// Why the automatic backend chose the CPU, if it did.
    pub note: Option<String>,
}

impl Measured {
    /// Run time per level of the chains.
    pub fn per_level(&self, length: u32) -> std::time::Duration {
        self.stats.phases.run / length.max(1)
    }

    /// Whether every link ran once, and (joined) every chain's value is its length.
    pub fn check(&self, chains: u32, length: u32, joined: bool) -> Result<(), String> {
        let want = chains as u64 * length as u64;
        if self.links != want {
            return Err(format!("{} links ran, expected {chains} x {length} = {want}", self.links));
        }
        if joined {
            if self.values.len() != chains as usize {
                return Err(format!("{} chain values came back, expected {chains}", self.values.len()));
            }
            if let Some((i, v)) = self.values.iter().enumerate().find(|(_, &v)| v != length) {
                return Err(format!("chain {i} has value {v}, expected its length {length}"));
            }
        }
        Ok(())
    }
}

/// Most chains side by side: as many as the CPU backend holds tasks at once by default (one
/// task spawns them all, or each is a root).
pub const MAX_CHAINS: u32 = 1 << 24;

/// Runs `chains` chains of `length` links; `joined` makes each link wait for its child.
pub fn run(rt: &Runtime, chains: u32, length: u32, joined: bool) -> Result<Measured, wsdsl::Error> {
    if length == 0 || chains == 0 {
        return Err(wsdsl::Error::InvalidConfig("a chain run needs at least one chain of at least one link".into()));
    }
    if chains > MAX_CHAINS {
        return Err(wsdsl::Error::InvalidConfig(format!("at most {MAX_CHAINS} chains side by side, not {chains}")));
    }
    if joined {
        // One root per chain: their values come back in `Output::values`.
        let out = rt.run::<joined::Kernel>((), (0..chains).map(|_| joined::Link { left: length }))?;
        Ok(Measured { links: out.counters.links.get(), values: out.values, stats: out.stats, backend: out.backend, note: out.note })
    } else {
        let out = rt.run::<chain::Kernel>(chain::Params { length }, [chain::Start { chains }])?;
        Ok(Measured { links: out.counters.links.get(), values: Vec::new(), stats: out.stats, backend: out.backend, note: out.note })
    }
}
