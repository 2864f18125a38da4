//! What every worker of a persistent GPU kernel writes at its end (`cuda/core/stats.cuh`):
//! [`WORKER_COUNTERS`] counters, then [`PROFILE_WORDS`] profile words that stay zero unless the
//! kernel was built with `WSDSL_PROFILE`. The host reads them as `u64`s in this order.

/// The per-worker counters, in order (`WS_STAT_*`).
pub const WORKER_COUNTERS: [&str; 5] = [
    "WS_STAT_TASKS",
    "WS_STAT_STEAL_TRIES",
    "WS_STAT_STEALS",
    "WS_STAT_PEAK",
    // Tasks this worker stole from other GPUs; zero on one GPU.
    "WS_STAT_REMOTE_STEALS",
];

/// Index of each counter in a worker's words.
pub const STAT_TASKS: usize = 0;
/// Steals tried.
pub const STAT_STEAL_TRIES: usize = 1;
/// Steals that took something.
pub const STAT_STEALS: usize = 2;
/// The most tasks the worker's queue held at once.
pub const STAT_PEAK: usize = 3;
/// Tasks stolen from other GPUs.
pub const STAT_REMOTE_STEALS: usize = 4;

/// Counters per worker before the profile words (`WS_STAT_COUNT`).
pub const COUNTER_WORDS: usize = WORKER_COUNTERS.len();

/// The profile words, in order (`WS_PROF_*`): cycles of each phase of the worker loop, then
/// counts, then the waits of the `WS_AGE_TRACE` variant.
pub const PROFILE: [&str; 16] = [
    "WS_PROF_TOTAL",
    "WS_PROF_OWN",
    "WS_PROF_SEARCH",
    "WS_PROF_IDLE",
    "WS_PROF_EXEC",
    "WS_PROF_PUBLISH",
    "WS_PROF_JOIN",
    "WS_PROF_FRAMES",
    "WS_PROF_BATCHES",
    "WS_PROF_LANES",
    "WS_PROF_ROB",
    "WS_PROF_ROBS",
    "WS_PROF_WAIT_OWN",
    "WS_PROF_WAITS_OWN",
    "WS_PROF_WAIT_STOLEN",
    "WS_PROF_WAITS_STOLEN",
];

/// Profile words per worker (`WS_PROF_COUNT`).
pub const PROFILE_WORDS: usize = PROFILE.len();

/// `u64` words per worker (`WS_STAT_WORDS`).
pub const STATS_PER_WORKER: usize = COUNTER_WORDS + PROFILE_WORDS;
