//! The data-parallel building blocks a handler records as jobs (`docs/guide/4-jobs.md`): what
//! each computes is the runtime's and the template library's (`cuda/features/parallel.cuh`); which
//! number names it on the device, which method a handler calls, and how many result words it
//! gives are fixed here.

/// What a job computes. The numbers are the device's (`WS_JOB_*` in `cuda/features/parallel.cuh`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum JobKind {
    /// `ctx.copy`: a range into another buffer.
    Copy = 1,
    /// `ctx.merge`: two sorted runs into one.
    Merge = 2,
    /// `ctx.sort`: at most [`SORT_MAX`] keys in ascending order.
    Sort = 3,
    /// `ctx.partition`: keys below, equal to and above a pivot.
    Partition = 4,
    /// `ctx.exclusive_scan`: running sums from an initial value.
    ExclusiveScan = 5,
    /// `ctx.reduce_sum`.
    ReduceSum = 6,
    /// `ctx.reduce_min`.
    ReduceMin = 7,
    /// `ctx.reduce_max`.
    ReduceMax = 8,
}

impl JobKind {
    /// Every kind, in device-number order.
    pub const ALL: [JobKind; 8] = [
        JobKind::Copy,
        JobKind::Merge,
        JobKind::Sort,
        JobKind::Partition,
        JobKind::ExclusiveScan,
        JobKind::ReduceSum,
        JobKind::ReduceMin,
        JobKind::ReduceMax,
    ];

    /// The kind a handler's `ctx.<method>` records, if it is one.
    pub fn of_method(method: &str) -> Option<JobKind> {
        JobKind::ALL.into_iter().find(|k| k.method() == method)
    }

    /// The handler's method (`ctx.merge`), as messages name it.
    pub fn method(self) -> &'static str {
        match self {
            JobKind::Copy => "copy",
            JobKind::Merge => "merge",
            JobKind::Sort => "sort",
            JobKind::Partition => "partition",
            JobKind::ExclusiveScan => "exclusive_scan",
            JobKind::ReduceSum => "reduce_sum",
            JobKind::ReduceMin => "reduce_min",
            JobKind::ReduceMax => "reduce_max",
        }
    }

    /// The `#define` naming the kind in `cuda/features/parallel.cuh`.
    pub fn device_name(self) -> &'static str {
        match self {
            JobKind::Copy => "WS_JOB_COPY",
            JobKind::Merge => "WS_JOB_MERGE",
            JobKind::Sort => "WS_JOB_SORT",
            JobKind::Partition => "WS_JOB_PARTITION",
            JobKind::ExclusiveScan => "WS_JOB_SCAN",
            JobKind::ReduceSum => "WS_JOB_SUM",
            JobKind::ReduceMin => "WS_JOB_MIN",
            JobKind::ReduceMax => "WS_JOB_MAX",
        }
    }

    /// The number the device knows the kind by.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// Result words the job gives: a partition the keys below and equal to the pivot, a scan
    /// its total, a reduction its value.
    pub fn result_words(self) -> usize {
        match self {
            JobKind::Copy | JobKind::Merge | JobKind::Sort => 0,
            JobKind::Partition => 2,
            JobKind::ExclusiveScan | JobKind::ReduceSum | JobKind::ReduceMin | JobKind::ReduceMax => 1,
        }
    }

    /// Whether the job writes a destination range.
    pub fn writes(self) -> bool {
        !matches!(self, JobKind::ReduceSum | JobKind::ReduceMin | JobKind::ReduceMax)
    }

    /// Whether its destination may be its source range itself (a sort or a scan in place).
    pub fn in_place(self) -> bool {
        matches!(self, JobKind::Sort | JobKind::ExclusiveScan)
    }
}

/// The most keys `ctx.sort` sorts at once (one warp's tile on the GPU; `WS_JOB_SORT_MAX`).
pub const SORT_MAX: usize = 256;

/// Result words one round's jobs may give (`ctx.result(0)` .. `ctx.result(RESULT_WORDS - 1)`;
/// `WS_JOB_RESULT_WORDS`).
pub const RESULT_WORDS: usize = 8;

/// The buffer index of a job that writes no buffer (the reductions).
pub const NO_BUFFER: u32 = u32::MAX;

/// The first result word of a job that gives no result (`WS_JOB_NO_RESULT`).
pub const NO_RESULT: u32 = u32::MAX;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_numbered_from_one_in_order_and_found_by_method() {
        for (i, kind) in JobKind::ALL.into_iter().enumerate() {
            assert_eq!(kind.code() as usize, i + 1);
            assert_eq!(JobKind::of_method(kind.method()), Some(kind));
        }
        assert_eq!(JobKind::of_method("spawn"), None);
    }

    #[test]
    fn what_a_kind_gives_and_writes() {
        let words: usize = JobKind::ALL.iter().map(|k| k.result_words()).sum();
        assert_eq!(words, 2 + 4, "a partition gives two words, a scan and each reduction one");
        assert!(JobKind::ALL.iter().filter(|k| !k.writes()).all(|k| k.result_words() == 1));
        assert!(JobKind::ALL.iter().filter(|k| k.in_place()).all(|k| k.writes()));
    }
}
