//! Every number a run can be configured with, checked in one place: the `WSDSL_*` variables
//! that [`Runtime::from_env`](crate::Runtime::from_env) reads and the `Runtime` builder
//! values that set the same things. A value that is not a whole number, or lies outside what
//! the setting accepts, is an error naming the variable (or the builder method), the value
//! and the accepted range; nothing is truncated or clamped on the way.

use crate::error::Error;

/// A whole-number setting: the variable and the builder method that set it, and the values
/// it accepts (`min..=max`, multiples of `step`).
pub(crate) struct Whole {
    pub var: &'static str,
    pub method: &'static str,
    /// What the number counts, for the error ("threads per GPU block").
    pub what: &'static str,
    pub min: u64,
    pub max: u64,
    pub step: u64,
    /// What applies when it is not set, for the settings table (read by its test).
    #[cfg_attr(not(test), allow(dead_code))]
    pub default: &'static str,
}

impl Whole {
    /// The variable's value, if it is set (and not blank).
    pub fn from_env(&self) -> Result<Option<u64>, Error> {
        let Some(raw) = var(self.var)? else { return Ok(None) };
        match raw.trim().parse::<u64>() {
            Ok(v) if self.accepts(v) => Ok(Some(v)),
            _ => Err(self.refuse(format!("{}=`{raw}`", self.var))),
        }
    }

    /// Checks a value given to the builder method.
    pub fn check(&self, value: u64) -> Result<(), Error> {
        if self.accepts(value) {
            Ok(())
        } else {
            Err(self.refuse(format!("{}({value})", self.method)))
        }
    }

    /// [`Whole::from_env`] for a measurement setting, which takes effect only in builds with
    /// the `lab` feature; elsewhere a value set is said once to be ignored.
    pub fn lab_from_env(&self) -> Result<Option<u64>, Error> {
        if cfg!(feature = "lab") {
            self.from_env()
        } else {
            ignored_outside_lab(self.var);
            Ok(None)
        }
    }

    fn accepts(&self, v: u64) -> bool {
        (self.min..=self.max).contains(&v) && v % self.step == 0
    }

    fn refuse(&self, given: String) -> Error {
        let range = if self.step > 1 {
            format!("a multiple of {} from {} to {}", self.step, self.min, self.max)
        } else {
            format!("a whole number from {} to {}", self.min, self.max)
        };
        Error::InvalidConfig(format!("{given}: {} must be {range} ({} sets the same)", self.what, self.other(&given)))
    }

    /// The other way to set it than the one `given` used.
    fn other(&self, given: &str) -> &'static str {
        if given.starts_with(self.var) { self.method } else { self.var }
    }
}

/// Runs span 1 to this many GPUs.
pub(crate) const MAX_GPUS: u64 = 1024;

pub(crate) const THREADS: Whole = Whole {
    var: "WSDSL_THREADS",
    method: "Runtime::cpu_threads",
    what: "CPU backend threads",
    min: 1,
    max: 4096,
    step: 1,
    default: "the machine's cores",
};
pub(crate) const DEQUE_CAPACITY: Whole = Whole {
    var: "WSDSL_DEQUE_CAPACITY",
    method: "Runtime::deque_capacity",
    what: "slots per GPU worker deque",
    min: 1,
    max: 1 << 31,
    step: 1,
    default: "from free device memory, at most 32,768",
};
pub(crate) const FRAMES: Whole = Whole {
    var: "WSDSL_FRAMES",
    method: "Runtime::frames",
    what: "join frames (one per task waiting for its children; a program with complete handlers needs at least one)",
    min: 1,
    max: 1 << 31,
    step: 1,
    default: "from free device memory",
};
pub(crate) const WATCHDOG_SECS: Whole = Whole {
    var: "WSDSL_WATCHDOG_SECS",
    method: "Runtime::watchdog",
    what: "the watchdog limit in seconds",
    min: 1,
    max: u32::MAX as u64,
    step: 1,
    default: "300",
};
pub(crate) const DEVICE: Whole = Whole {
    var: "WSDSL_DEVICE",
    method: "(no builder method)",
    what: "the GPU ordinal",
    min: 0,
    max: MAX_GPUS - 1,
    step: 1,
    default: "0 (a process the runtime or a launcher started: its GPU)",
};
pub(crate) const PROFILE: Whole = Whole {
    var: "WSDSL_PROFILE",
    method: "Runtime::profile",
    what: "profiling (1) or not (0)",
    min: 0,
    max: 1,
    step: 1,
    default: "0",
};
/// A measurement (`lab` builds): the multi-GPU kernel on one GPU, beside the one-GPU kernel.
pub(crate) const MULTI_ON_ONE: Whole = Whole {
    var: "WSDSL_MULTI_ON_ONE",
    method: "(no builder method)",
    what: "the multi-GPU kernel on one GPU, a measurement (1; 2: its heap in ordinary device memory; 3: the across-hosts kernel) or not (0)",
    min: 0,
    max: 3,
    step: 1,
    default: "0",
};
pub(crate) const SPREAD: Whole = Whole {
    var: "WSDSL_SPREAD",
    method: "Runtime::spread",
    what: "tasks per GPU the host deals before a run (0: the roots as they are)",
    min: 0,
    max: 1 << 16,
    step: 1,
    default: "2,048",
};
pub(crate) const ALONE_WHEN_NARROW: Whole = Whole {
    var: "WSDSL_ALONE_WHEN_NARROW",
    method: "Runtime::alone_when_narrow",
    what: "whether a run on several GPUs whose tree the host judges narrow goes to GPU 0 alone (1) or stays on all its GPUs (0)",
    min: 0,
    max: 1,
    step: 1,
    default: "1",
};
pub(crate) const PROGRESS: Whole = Whole {
    var: "WSDSL_PROGRESS",
    method: "Runtime::progress_line",
    what: "the progress line (1) or none (0)",
    min: 0,
    max: 1,
    step: 1,
    default: "1 (a line on a terminal, for runs longer than a second)",
};
pub(crate) const MIN_BLOCKS: Whole = Whole {
    var: "WSDSL_MIN_BLOCKS",
    method: "Runtime::min_blocks_per_sm",
    what: "blocks per SM the GPU compiler must fit (0: its choice)",
    min: 0,
    max: 32,
    step: 1,
    default: "the program's `min_blocks`, else the compiler's choice",
};
pub(crate) const BAND_LOOKAHEAD: Whole = Whole {
    var: "WSDSL_BAND_LOOKAHEAD",
    method: "Runtime::band_lookahead",
    what: "priority bands above the lowest live one that GPU workers may take from",
    min: 0,
    max: crate::contract::schedule::MAX_LOOKAHEAD as u64,
    step: 1,
    default: "the program's `lookahead`, else 1",
};
pub(crate) const BLOCK_THREADS: Whole = Whole {
    var: "WSDSL_BLOCK_THREADS",
    method: "Runtime::block_threads",
    what: "threads per GPU block",
    min: 32,
    max: 1024,
    step: 32,
    default: "the program's `block_threads`, else 256",
};
pub(crate) const BLOCKS_PER_SM: Whole = Whole {
    var: "WSDSL_BLOCKS_PER_SM",
    method: "Runtime::blocks_per_sm",
    what: "GPU blocks per SM",
    min: 1,
    max: 32,
    step: 1,
    default: "as many as fit",
};
pub(crate) const GPUS: Whole = Whole {
    var: "WSDSL_GPUS",
    method: "Runtime::gpus",
    what: "GPUs a run spans (or `all`)",
    min: 1,
    max: MAX_GPUS,
    step: 1,
    default: "1",
};
pub(crate) const CPU_TASK_LIMIT: Whole = Whole {
    var: "WSDSL_CPU_TASK_LIMIT",
    method: "Runtime::cpu_task_limit",
    what: "the CPU backend's bound on tasks held at once",
    min: 1,
    max: 1 << 40,
    step: 1,
    default: "16,777,216",
};
/// A measurement of the CPU backend (`lab` builds, `cpu/tree.rs`).
pub(crate) const CPU_EAGER_DEPTH: Whole = Whole {
    var: "WSDSL_CPU_EAGER_DEPTH",
    method: "(no builder method)",
    what: "forks (halvings of a list of children) the CPU backend always makes below the roots",
    min: 0,
    max: 64,
    step: 1,
    default: "12",
};

/// A setting whose value is a word, a path or a list, read where it is used; described here
/// for the settings table, which a test generates into the guide (`docs/guide/7-settings.md`)
/// and which checks that every `WSDSL_*` variable of the sources has its row.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Text {
    pub var: &'static str,
    /// What it accepts.
    pub takes: &'static str,
    pub default: &'static str,
    pub what: &'static str,
}

#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const BACKEND: Text = Text {
    var: "WSDSL_BACKEND",
    takes: "`auto`, `cpu`, `gpu` or `emulate`",
    default: "`auto`: the GPU if one can be opened, else the CPU",
    what: "where runs go (`Runtime::new`, `Runtime::on`)",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const SCHEDULER: Text = Text {
    var: "WSDSL_SCHEDULER",
    takes: "`deque`, `static`, `bq`, `bwd` or `bsq`, any case",
    default: "the program's `scheduler`, else `deque` (`bq` for `order = priority`)",
    what: "the scheduler, over the program's attribute (`Runtime::scheduler`)",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const VICTIM: Text = Text {
    var: "WSDSL_VICTIM",
    takes: "`random`, `round-robin`, `pws`, `hws` or `small-world` (`_` for `-`), any case",
    default: "the program's `victim`, else `random`",
    what: "whom an idle deque worker robs (`Runtime::victim`)",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const CACHE_DIR: Text = Text {
    var: "WSDSL_CACHE_DIR",
    takes: "a directory",
    default: "`$XDG_CACHE_HOME/wsdsl`, else `~/.cache/wsdsl`",
    what: "where compiled kernels and the emulation's libraries are cached (private, checked)",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const DUMP_DIR: Text = Text {
    var: "WSDSL_DUMP_DIR",
    takes: "a directory",
    default: "none",
    what: "writes every assembled kernel there as it is compiled (`<program>-<hash>.cu`)",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const CHART_FONT: Text = Text {
    var: "WSDSL_CHART_FONT",
    takes: "a TrueType or OpenType font file",
    default: "a font found on the system",
    what: "the font of `--chart` and `Stats::write_chart`",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const NVRTC: Text = Text {
    var: "WSDSL_NVRTC",
    takes: "the path of `libnvrtc.so` (used alone when set: anything else there is an error)",
    default: "searched: the loader path, `CUDA_PATH`, `/usr/local/cuda`, pip's `nvidia-cuda-nvrtc`",
    what: "the CUDA run-time compiler",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const NVJITLINK: Text = Text {
    var: "WSDSL_NVJITLINK",
    takes: "the path of `libnvJitLink.so`",
    default: "searched, as NVRTC",
    what: "the device linker of kernels that call NVSHMEM (runs across hosts)",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const NVSHMEM: Text = Text {
    var: "WSDSL_NVSHMEM",
    takes: "NVSHMEM's install directory",
    default: "`NVSHMEM_HOME`, else pip's `nvidia-nvshmem-cu13`",
    what: "NVSHMEM, for runs on several GPUs",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const HOST_GROUPS: Text = Text {
    var: "WSDSL_HOST_GROUPS",
    takes: "a whole number of hosts",
    default: "the machines' names decide",
    what: "counts a job's GPUs as that many hosts of consecutive ranks, so that the path between hosts runs on one machine",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const RENDEZVOUS: Text = Text {
    var: "WSDSL_RENDEZVOUS",
    takes: "`host:port`",
    default: "none",
    what: "where the processes of a job that a launcher started meet (rank 0 listens)",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const RANK: Text = Text {
    var: "WSDSL_RANK",
    takes: "a whole number below `WSDSL_RANKS`",
    default: "the launcher's (`mpirun`, `srun`), else none",
    what: "this process's rank in a job started by hand",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const RANKS: Text = Text {
    var: "WSDSL_RANKS",
    takes: "a whole number",
    default: "the launcher's, else none",
    what: "the processes (GPUs) of a job started by hand",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const LOCAL_RANK: Text = Text {
    var: "WSDSL_LOCAL_RANK",
    takes: "a whole number",
    default: "the launcher's, else the rank",
    what: "this process's rank on its host, which picks its GPU",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const TRACE_RUN: Text = Text {
    var: "WSDSL_TRACE_RUN",
    takes: "`1`",
    default: "off",
    what: "prints, per run, the host's time in each of its steps",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const TRACE_COPIES: Text = Text {
    var: "WSDSL_TRACE_COPIES",
    takes: "`1`",
    default: "off",
    what: "prints every buffer's copy to and from the GPU, with its size and time",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const DEFINES: Text = Text {
    var: "WSDSL_DEFINES",
    takes: "`NAME` or `NAME=VALUE` words",
    default: "none",
    what: "macro definitions added to every assembled kernel: the templates' experimental variants",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const PE: Text = Text {
    var: "WSDSL_PE",
    takes: "set by the runtime",
    default: "none",
    what: "makes a process the runtime started one GPU of its job",
};
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const PE_SOCKET: Text = Text {
    var: "WSDSL_PE_SOCKET",
    takes: "set by the runtime",
    default: "none",
    what: "the socket a process the runtime started reaches its coordinator by",
};

/// Who a setting is for: the settings table's sections.
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    Runs,
    SeveralGpus,
    Libraries,
    Diagnostics,
    /// Read only by builds with the `lab` feature.
    Lab,
    /// Set by the runtime for the processes it starts.
    Internal,
}

#[cfg(test)]
impl Section {
    fn title(self) -> &'static str {
        match self {
            Section::Runs => "Runs",
            Section::SeveralGpus => "Several GPUs and hosts",
            Section::Libraries => "Libraries and files",
            Section::Diagnostics => "Diagnostics",
            Section::Lab => "Measurements (builds with the `lab` feature only)",
            Section::Internal => "Set by the runtime for the processes it starts (not for users)",
        }
    }
}

/// One row of the settings table.
#[cfg(test)]
pub(crate) struct Row {
    pub section: Section,
    pub var: &'static str,
    pub takes: String,
    pub default: &'static str,
    pub what: String,
}

#[cfg(test)]
impl Whole {
    fn row(&self, section: Section) -> Row {
        let takes = match (self.min, self.max, self.step) {
            (0, 1, _) => "`0` or `1`".to_string(),
            (min, max, 1) => format!("{min} to {max}"),
            (min, max, step) => format!("a multiple of {step} from {min} to {max}"),
        };
        let what = if self.method.starts_with('(') { self.what.to_string() } else { format!("{} (`{}`)", self.what, self.method) };
        Row { section, var: self.var, takes, default: self.default, what }
    }
}

#[cfg(test)]
impl Text {
    fn row(&self, section: Section) -> Row {
        Row { section, var: self.var, takes: self.takes.to_string(), default: self.default, what: self.what.to_string() }
    }
}

/// Every `WSDSL_*` variable the runtime reads, in the table's order.
#[cfg(test)]
pub(crate) fn rows() -> Vec<Row> {
    use Section::*;
    vec![
        BACKEND.row(Runs),
        THREADS.row(Runs),
        CPU_TASK_LIMIT.row(Runs),
        WATCHDOG_SECS.row(Runs),
        PROGRESS.row(Runs),
        DEVICE.row(Runs),
        SCHEDULER.row(Runs),
        VICTIM.row(Runs),
        BLOCK_THREADS.row(Runs),
        BLOCKS_PER_SM.row(Runs),
        MIN_BLOCKS.row(Runs),
        DEQUE_CAPACITY.row(Runs),
        FRAMES.row(Runs),
        BAND_LOOKAHEAD.row(Runs),
        PROFILE.row(Runs),
        GPUS.row(SeveralGpus),
        SPREAD.row(SeveralGpus),
        ALONE_WHEN_NARROW.row(SeveralGpus),
        HOST_GROUPS.row(SeveralGpus),
        RENDEZVOUS.row(SeveralGpus),
        RANK.row(SeveralGpus),
        RANKS.row(SeveralGpus),
        LOCAL_RANK.row(SeveralGpus),
        CACHE_DIR.row(Libraries),
        NVRTC.row(Libraries),
        NVJITLINK.row(Libraries),
        NVSHMEM.row(Libraries),
        CHART_FONT.row(Libraries),
        DUMP_DIR.row(Diagnostics),
        TRACE_RUN.row(Diagnostics),
        TRACE_COPIES.row(Diagnostics),
        DEFINES.row(Lab),
        MULTI_ON_ONE.row(Lab),
        CPU_EAGER_DEPTH.row(Lab),
        PE.row(Internal),
        PE_SOCKET.row(Internal),
    ]
}

/// The settings table in Markdown, one table per section (`docs/guide/7-settings.md`).
#[cfg(test)]
pub(crate) fn table() -> String {
    let rows = rows();
    let mut out = String::new();
    let mut section = None;
    for row in &rows {
        if section != Some(row.section) {
            section = Some(row.section);
            out.push_str(&format!("\n**{}**\n\n| variable | takes | default | sets |\n| --- | --- | --- | --- |\n", row.section.title()));
        }
        let cell = |t: &str| t.replace('|', "\\|");
        out.push_str(&format!("| `{}` | {} | {} | {} |\n", row.var, cell(&row.takes), cell(row.default), cell(&row.what)));
    }
    out
}

/// A measurement variable's text (`WSDSL_DEFINES`): as [`var`] in builds with the `lab`
/// feature; elsewhere `None`, a value set being said once to be ignored.
pub(crate) fn lab_var(name: &'static str) -> Option<String> {
    if cfg!(feature = "lab") {
        std::env::var(name).ok()
    } else {
        ignored_outside_lab(name);
        None
    }
}

/// Says once per variable that `name`, set, is a measurement setting this build ignores.
fn ignored_outside_lab(name: &'static str) {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static SAID: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    if std::env::var_os(name).is_none() {
        return;
    }
    if SAID.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner()).insert(name) {
        eprintln!("wsdsl: {name} is a measurement setting, read only by builds with the `lab` feature (cargo build --features lab); ignored");
    }
}

/// A variable's value: `None` when it is unset or blank; an error when it is not text.
pub(crate) fn var(name: &str) -> Result<Option<String>, Error> {
    match std::env::var(name) {
        Ok(v) if v.trim().is_empty() => Ok(None),
        Ok(v) => Ok(Some(v)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(v)) => Err(Error::InvalidConfig(format!("{name}={v:?} is not valid UTF-8 text"))),
    }
}

/// How many GPUs `WSDSL_GPUS` asks for: a number, or every GPU of the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GpuCount {
    Some(u32),
    All,
}

/// `WSDSL_GPUS`, if set.
pub(crate) fn gpus_from_env() -> Result<Option<GpuCount>, Error> {
    match var(GPUS.var)? {
        Some(v) if v.trim() == "all" => Ok(Some(GpuCount::All)),
        Some(_) => Ok(GPUS.from_env()?.map(|n| GpuCount::Some(n as u32))),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the guide keeps the table, between these two lines.
    const GUIDE: &str = "../docs/guide/7-settings.md";
    const BEGIN: &str = "<!-- settings table: generated by wsdsl-runtime/src/settings.rs's test, do not edit -->";
    const END: &str = "<!-- end of settings table -->";

    /// The guide's table is this file's: regenerate it with `WSDSL_WRITE_SETTINGS_TABLE=1
    /// cargo test -p wsdsl-runtime --lib settings` after changing a setting.
    #[test]
    fn the_guides_settings_table_is_generated_from_these_settings() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GUIDE);
        let guide = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (Some(begin), Some(end)) = (guide.find(BEGIN), guide.find(END)) else { panic!("{} lacks the table's marker lines", path.display()) };
        let current = &guide[begin + BEGIN.len()..end];
        let table = table();
        if current.trim() == table.trim() {
            return;
        }
        // A test's switch, not the runtime's: spelt so that the scan below does not count it.
        if std::env::var_os(concat!("WSDSL", "_WRITE_SETTINGS_TABLE")).is_some() {
            let written = format!("{}{BEGIN}\n{}\n{}", &guide[..begin], table.trim(), &guide[end..]);
            std::fs::write(&path, written).expect("the guide written");
            return;
        }
        panic!("{} is out of date: run WSDSL_WRITE_SETTINGS_TABLE=1 cargo test -p wsdsl-runtime --lib settings", path.display());
    }

    /// Every `"WSDSL_..."` the runtime's sources name as a variable has a row.
    #[test]
    fn every_variable_the_runtime_reads_is_in_the_table() {
        let rows = rows();
        let known: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.var).collect();
        assert_eq!(known.len(), rows.len(), "a variable has two rows");
        let mut missing = std::collections::BTreeSet::new();
        let mut stack = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("the sources") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("a source");
                for piece in text.split('"').skip(1).step_by(2) {
                    let is_name = piece.starts_with("WSDSL_") && piece.len() > 6 && piece.bytes().all(|b| b.is_ascii_uppercase() || b == b'_');
                    if is_name && !known.contains(piece) {
                        missing.insert(format!("{piece} ({})", path.display()));
                    }
                }
            }
        }
        assert!(missing.is_empty(), "variables without a row in `rows()`: {missing:?}");
        assert!(table().contains("| `WSDSL_BLOCK_THREADS` | a multiple of 32 from 32 to 1024 | the program's `block_threads`, else 256 |"));
    }

    #[test]
    fn values_outside_the_range_are_refused_with_the_range() {
        assert!(BLOCK_THREADS.check(256).is_ok());
        for bad in [0, 33, 99_999] {
            let message = BLOCK_THREADS.check(bad).unwrap_err().to_string();
            assert!(message.contains(&format!("Runtime::block_threads({bad})")), "{message}");
            assert!(message.contains("a multiple of 32 from 32 to 1024") && message.contains("WSDSL_BLOCK_THREADS"), "{message}");
            assert_eq!(message.matches("invalid configuration").count(), 1, "{message}");
        }
        assert!(DEQUE_CAPACITY.check(4_294_967_297).is_err(), "never truncated to 32 bits");
        assert!(MIN_BLOCKS.check(1000).is_err() && MIN_BLOCKS.check(32).is_ok(), "never clamped");
        assert!(FRAMES.check(0).is_err());
    }
}
