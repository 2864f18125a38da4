//! How the device tells the host that a run went wrong: one status record per kernel module
//! (`struct ws_status_record` in `cuda/core/status.cuh`), a code and five arguments, zeroed
//! before each launch; the first error wins.

/// What the status record's code says. The numbers are `WS_STATUS_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Nothing went wrong.
    Ok = 0,
    /// A queue or deque was full: arg0 = the worker (or queue), arg1 = slots needed, arg2 = capacity.
    Overflow = 1,
    /// A handler panicked: arg0 = its fault site, arg1..arg4 = the values its message shows.
    Fault = 2,
    /// The host's watchdog asked the kernel to stop.
    Stopped = 3,
    /// The join frame pool ran out: arg1 = its capacity.
    Frames = 4,
    /// A task spawned more children than its complete handler takes: arg0 = its tag,
    /// arg1 = the most it takes, arg2 = 1 when the bound is the one a run across GPUs sets.
    Children = 5,
    /// Another GPU of a multi-GPU run failed; its host says why.
    Peer = 6,
}

impl Status {
    /// Every code, in order.
    pub const ALL: [Status; 7] = [Status::Ok, Status::Overflow, Status::Fault, Status::Stopped, Status::Frames, Status::Children, Status::Peer];

    /// The code the record holds.
    pub fn code(self) -> u64 {
        self as u64
    }

    /// The status of a code the device wrote, if it is one.
    pub fn from_code(code: u64) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.code() == code)
    }

    /// Its name in `cuda/core/status.cuh`.
    pub fn device_name(self) -> &'static str {
        match self {
            Status::Ok => "WS_STATUS_OK",
            Status::Overflow => "WS_STATUS_OVERFLOW",
            Status::Fault => "WS_STATUS_FAULT",
            Status::Stopped => "WS_STATUS_STOPPED",
            Status::Frames => "WS_STATUS_FRAMES",
            Status::Children => "WS_STATUS_CHILDREN",
            Status::Peer => "WS_STATUS_PEER",
        }
    }
}

/// Words of the status record: the code and five arguments.
pub const STATUS_WORDS: usize = 6;
