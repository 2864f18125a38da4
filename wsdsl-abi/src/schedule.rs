//! The scheduler's dimensions: which queue carries the tasks, how many threads form a worker,
//! whom an idle worker robs and how much it takes, and in what order tasks run. Each choice
//! has the name `#[megakernel(...)]` spells it with, and where the device needs it, the code
//! the kernel is built with; which combinations can run is decided here for the macro (a
//! compile error at the attribute) and the runtime (an error before the run) alike.

/// Which scheduler runs the tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheduler {
    /// The persistent megakernel with one work-stealing deque per worker (the default).
    Deque,
    /// The static baseline: two task arrays, one kernel launch per generation.
    Static,
    /// The persistent megakernel over one Broker Queue for the whole grid (linearizable FIFO).
    Bq,
    /// The same over one Broker Work Distributor (the broker's word taken at face value).
    Bwd,
    /// The same over a Broker Stealing Queue: one BQ per block, empty blocks rob the others.
    Bsq,
}

impl Scheduler {
    /// Every scheduler, in the order the attribute's message lists them.
    pub const ALL: [Scheduler; 5] = [Scheduler::Deque, Scheduler::Static, Scheduler::Bq, Scheduler::Bwd, Scheduler::Bsq];

    /// The attribute's name: `scheduler = deque`.
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::Deque => "deque",
            Scheduler::Static => "static",
            Scheduler::Bq => "bq",
            Scheduler::Bwd => "bwd",
            Scheduler::Bsq => "bsq",
        }
    }

    /// The scheduler of exactly this name.
    pub fn from_name(name: &str) -> Option<Scheduler> {
        Scheduler::ALL.into_iter().find(|s| s.name() == name)
    }

    /// A setting's spelling (`WSDSL_SCHEDULER`): `deque`, `static`, `bq`, `bwd` or `bsq`, in
    /// any case; the error names the choices.
    pub fn parse(name: &str) -> Result<Scheduler, String> {
        let name = name.trim().to_ascii_lowercase();
        Scheduler::from_name(&name).ok_or_else(|| format!("unknown scheduler `{name}`; choose deque, static, bq, bwd or bsq"))
    }

    /// One of the Broker Queue family (BQ, BWD, BSQ), which share queues instead of robbing.
    pub fn is_broker(self) -> bool {
        matches!(self, Scheduler::Bq | Scheduler::Bwd | Scheduler::Bsq)
    }

    /// `WSDSL_BROKER_KIND` of the broker schedulers (`cuda/queues/broker_queue.cuh`).
    pub fn broker_kind(self) -> Option<u32> {
        match self {
            Scheduler::Bq => Some(0),
            Scheduler::Bwd => Some(1),
            Scheduler::Bsq => Some(2),
            Scheduler::Deque | Scheduler::Static => None,
        }
    }

    /// Whether a worker of this scheduler may be more than one thread (`worker = ...`): the
    /// static scheduler runs one task per thread.
    pub fn has_workers(self) -> bool {
        self != Scheduler::Static
    }

    /// Whether its workers rob victims (`victim`, `steal`): only the deques'.
    pub fn steals(self) -> bool {
        self == Scheduler::Deque
    }

    /// Whether every thread of a worker may run the same task (`cooperative`).
    pub fn runs_cooperative(self) -> bool {
        matches!(self, Scheduler::Deque | Scheduler::Static)
    }

    /// Whether it keeps priority bands (`order = priority`): the broker queues BQ and BWD.
    pub fn runs_ordered(self) -> bool {
        matches!(self, Scheduler::Bq | Scheduler::Bwd)
    }
}

/// How many threads form one worker (one deque, one batch of tasks at a time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Worker {
    /// Every thread is a worker with its own deque.
    Thread,
    /// A warp is a worker: up to 32 tasks at a time, one per lane (the default).
    Warp,
    /// A block is a worker: up to one task per thread; thread 0 manages the deque.
    Block,
}

impl Worker {
    /// Every granularity.
    pub const ALL: [Worker; 3] = [Worker::Thread, Worker::Warp, Worker::Block];

    /// The attribute's name: `worker = warp`.
    pub fn name(self) -> &'static str {
        match self {
            Worker::Thread => "thread",
            Worker::Warp => "warp",
            Worker::Block => "block",
        }
    }

    /// The granularity of exactly this name.
    pub fn from_name(name: &str) -> Option<Worker> {
        Worker::ALL.into_iter().find(|w| w.name() == name)
    }

    /// Threads per worker in blocks of `block_threads`.
    pub fn threads(self, block_threads: u32) -> u32 {
        match self {
            Worker::Thread => 1,
            Worker::Warp => 32,
            Worker::Block => block_threads,
        }
    }
}

/// Whom an idle worker robs (see `cuda/features/victims.cuh`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Victim {
    /// Uniformly random (the default).
    Random,
    /// The next worker after the last one tried.
    RoundRobin,
    /// Random, accepted with a probability falling with distance (same block, SM, other SM).
    Pws,
    /// One leader per SM robs other SMs, taking half; the others rob their own SM.
    Hws,
    /// Only the neighbours in a sparse small-world graph (ring plus log n shortcuts).
    SmallWorld,
}

impl Victim {
    /// Every policy, in the order of their device codes.
    pub const ALL: [Victim; 5] = [Victim::Random, Victim::RoundRobin, Victim::Pws, Victim::Hws, Victim::SmallWorld];

    /// The attribute's name: `victim = round_robin`.
    pub fn name(self) -> &'static str {
        match self {
            Victim::Random => "random",
            Victim::RoundRobin => "round_robin",
            Victim::Pws => "pws",
            Victim::Hws => "hws",
            Victim::SmallWorld => "small_world",
        }
    }

    /// The policy of exactly this name.
    pub fn from_name(name: &str) -> Option<Victim> {
        Victim::ALL.into_iter().find(|v| v.name() == name)
    }

    /// A setting's spelling (`WSDSL_VICTIM`): `random`, `round_robin`, `pws`, `hws` or
    /// `small_world`, in any case and with `-` for `_`; the error names the choices.
    pub fn parse(name: &str) -> Result<Victim, String> {
        let name = name.trim().to_ascii_lowercase().replace('-', "_");
        Victim::from_name(&name).ok_or_else(|| format!("unknown victim policy `{name}`; choose random, round-robin, pws, hws or small-world"))
    }

    /// `WSDSL_VICTIM`: the `WS_VICTIM_*` code the kernel is built with.
    pub fn code(self) -> u32 {
        match self {
            Victim::Random => 0,
            Victim::RoundRobin => 1,
            Victim::Pws => 2,
            Victim::Hws => 3,
            Victim::SmallWorld => 4,
        }
    }

    /// The `#define` of the code in `cuda/features/victims.cuh`.
    pub fn device_name(self) -> &'static str {
        match self {
            Victim::Random => "WS_VICTIM_RANDOM",
            Victim::RoundRobin => "WS_VICTIM_ROUND_ROBIN",
            Victim::Pws => "WS_VICTIM_PWS",
            Victim::Hws => "WS_VICTIM_HWS",
            Victim::SmallWorld => "WS_VICTIM_SMALL_WORLD",
        }
    }
}

/// How much a thief takes from the public part of a victim's deque.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Steal {
    /// One task.
    One,
    /// Half of what the victim offers (the default: it spreads a burst of work across idle
    /// workers in a few steps).
    Half,
}

impl Steal {
    /// Both amounts.
    pub const ALL: [Steal; 2] = [Steal::One, Steal::Half];

    /// The attribute's name: `steal = half`.
    pub fn name(self) -> &'static str {
        match self {
            Steal::One => "one",
            Steal::Half => "half",
        }
    }

    /// The amount of exactly this name.
    pub fn from_name(name: &str) -> Option<Steal> {
        Steal::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// In what order tasks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Order {
    /// No particular order (the default): whatever the queues hand out.
    #[default]
    None,
    /// Lowest band first: a task spawned with `ctx.spawn_with_priority(p, task)` waits in band
    /// `p` until no lower band holds work (a plain `ctx.spawn` keeps the parent's band, roots
    /// are in band 0). The GPU keeps a window of bands as broker queues plus a far queue
    /// (`cuda/schedulers/bands.cuh`); the CPU backend runs band by band.
    Priority,
}

impl Order {
    /// Both orders.
    pub const ALL: [Order; 2] = [Order::None, Order::Priority];

    /// The attribute's name: `order = priority`.
    pub fn name(self) -> &'static str {
        match self {
            Order::None => "none",
            Order::Priority => "priority",
        }
    }

    /// The order of exactly this name.
    pub fn from_name(name: &str) -> Option<Order> {
        Order::ALL.into_iter().find(|o| o.name() == name)
    }
}

/// The attribute's names of every choice of a dimension, for messages listing them.
pub fn names<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> Vec<&'static str> {
    all.iter().map(|&t| name(t)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_to_its_choice() {
        for s in Scheduler::ALL {
            assert_eq!(Scheduler::from_name(s.name()), Some(s));
        }
        for w in Worker::ALL {
            assert_eq!(Worker::from_name(w.name()), Some(w));
        }
        for v in Victim::ALL {
            assert_eq!(Victim::from_name(v.name()), Some(v));
        }
        for s in Steal::ALL {
            assert_eq!(Steal::from_name(s.name()), Some(s));
        }
        for o in Order::ALL {
            assert_eq!(Order::from_name(o.name()), Some(o));
        }
        assert_eq!(Scheduler::from_name("Deque"), None, "names are exact");
        assert_eq!(Scheduler::parse(" BSQ "), Ok(Scheduler::Bsq), "settings are lenient");
        assert_eq!(Victim::parse("Small-World"), Ok(Victim::SmallWorld));
        assert!(Victim::parse("nearest").unwrap_err().contains("choose random, round-robin"));
    }

    #[test]
    fn victim_codes_follow_their_order_and_broker_kinds_only_the_brokers() {
        for (i, v) in Victim::ALL.into_iter().enumerate() {
            assert_eq!(v.code() as usize, i);
        }
        let brokers: Vec<Scheduler> = Scheduler::ALL.into_iter().filter(|s| s.broker_kind().is_some()).collect();
        assert_eq!(brokers, Scheduler::ALL.into_iter().filter(|s| s.is_broker()).collect::<Vec<_>>());
        assert!(Scheduler::ALL.iter().all(|s| !s.runs_ordered() || s.is_broker()));
        assert!(Scheduler::ALL.iter().all(|s| !s.steals() || s.has_workers()));
    }
}
