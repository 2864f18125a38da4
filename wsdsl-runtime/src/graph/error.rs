//! Why a graph could not be read or built.
//!
//! Every problem is tied to where it was found, so a person can open the file at that line:
//! `<file>:<line>: <problem>` for something wrong on a line, `<file>: <problem>` for the
//! file as a whole (missing, no edges), and `R-MAT: <problem>`, `grid: <problem>` (each
//! generator by its name) or `edge list: <problem>` for graphs that never were a file. The problem text quotes the offending token.

use std::fmt;
use std::path::{Path, PathBuf};

/// Where a graph came from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    File(PathBuf),
    /// Not a file: `R-MAT`, `grid`, `edge list`, `weights`, `CSR arrays`.
    Named(&'static str),
}

/// A graph input problem: where (file and 1-based line, when there is one) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphError {
    origin: Origin,
    line: Option<u64>,
    problem: String,
    /// The bytes the reader could not get, when it ran out of memory.
    memory: Option<u64>,
}

impl GraphError {
    /// A problem on line `line` (1-based) of `path`.
    pub(crate) fn at_line(path: &Path, line: u64, problem: impl Into<String>) -> GraphError {
        GraphError { origin: Origin::File(path.to_path_buf()), line: Some(line), problem: problem.into(), memory: None }
    }

    /// A problem with the file `path` as a whole.
    pub(crate) fn in_file(path: &Path, problem: impl Into<String>) -> GraphError {
        GraphError { origin: Origin::File(path.to_path_buf()), line: None, problem: problem.into(), memory: None }
    }

    /// The reader could not get `bytes` more bytes for its edge list while reading line
    /// `line` of `path`; `problem` says how far it got and what to do.
    pub(crate) fn no_memory(path: &Path, line: u64, bytes: u64, problem: impl Into<String>) -> GraphError {
        GraphError { memory: Some(bytes), ..GraphError::at_line(path, line, problem) }
    }

    /// A problem with the R-MAT generator's parameters.
    pub(crate) fn rmat(problem: impl Into<String>) -> GraphError {
        GraphError { origin: Origin::Named("R-MAT"), line: None, problem: problem.into(), memory: None }
    }

    /// A problem with a graph that is not a file: the parameters of a generator (`grid`,
    /// `geometric`, `uniform`), or a graph's `weights`.
    pub(crate) fn named(name: &'static str, problem: impl Into<String>) -> GraphError {
        GraphError { origin: Origin::Named(name), line: None, problem: problem.into(), memory: None }
    }

    /// A problem with an edge list handed to [`super::Graph::from_edges`].
    pub(crate) fn edge_list(problem: impl Into<String>) -> GraphError {
        GraphError { origin: Origin::Named("edge list"), line: None, problem: problem.into(), memory: None }
    }

    /// A problem with compressed sparse rows handed in as arrays ([`super::Graph::validate`]).
    pub(crate) fn csr(problem: impl Into<String>) -> GraphError {
        GraphError { origin: Origin::Named("CSR arrays"), line: None, problem: problem.into(), memory: None }
    }

    /// The same problem, attributed to the file the edges were read from: an edge list
    /// that is too large is the file's problem, not the reader's.
    pub(crate) fn attributed_to(mut self, path: &Path) -> GraphError {
        if matches!(self.origin, Origin::Named(_)) {
            self.origin = Origin::File(path.to_path_buf());
        }
        self
    }

    /// The file the problem is in; `None` for generated graphs and in-memory edge lists.
    pub fn path(&self) -> Option<&Path> {
        match &self.origin {
            Origin::File(p) => Some(p),
            Origin::Named(_) => None,
        }
    }

    /// The 1-based line the problem is on; `None` when it concerns the whole input.
    pub fn line(&self) -> Option<u64> {
        self.line
    }

    /// What is wrong, without the location.
    pub fn problem(&self) -> &str {
        &self.problem
    }

    /// When reading ran out of memory: the bytes that could not be had (the error converts
    /// into [`crate::Error::OutOfMemory`] naming the file).
    pub fn out_of_memory(&self) -> Option<u64> {
        self.memory
    }
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.origin {
            Origin::File(p) => write!(f, "{}", p.display())?,
            Origin::Named(name) => write!(f, "{name}")?,
        }
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", self.problem)
    }
}

impl std::error::Error for GraphError {}

/// A token as it appears in a message: in backquotes, invalid UTF-8 replaced, and cut
/// short when it is long (a binary file read as text would otherwise flood the terminal).
pub(crate) fn quote(token: &[u8]) -> String {
    const MAX: usize = 40;
    let text = String::from_utf8_lossy(&token[..token.len().min(MAX)]);
    let text: String = text.chars().map(|c| if c.is_control() { '?' } else { c }).collect();
    if token.len() > MAX {
        format!("`{text}...`")
    } else {
        format!("`{text}`")
    }
}
