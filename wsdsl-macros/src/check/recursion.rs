//! Recursion among helpers and methods, bounded per program.
//!
//! Functions that call each other in a cycle (a strongly connected component of the call
//! graph, a self-call included) may recurse at most `recursion_limit` calls deep
//! (`#[megakernel(recursion_limit = N)]`, default `DEFAULT_RECURSION_LIMIT` of
//! `parse/schedule.rs`). Going deeper is a panic with the same text on every backend, at the
//! line of the function entered one call too deep:
//!
//! - device (GPU and host-compiled templates): each function of a cycle takes a hidden
//!   `ws_u32 ws_depth`, the calls active in its cycle below it; a call from outside the cycle
//!   passes 0, one inside it `ws_depth + 1` (`lower/items.rs`, `lower/expr.rs`). The check at
//!   its entry is a fault site, so it leaves through the panic flag like any panic. The
//!   runtime sizes the GPU's per-thread stack for the limit (`wsdsl-runtime/src/gpu/device/stack.rs`).
//! - CPU backend: the re-emitted Rust function starts with a guard on a thread-local count
//!   per cycle (`expand/recursion.rs`), which counts the same calls: a cycle's active calls
//!   are always consecutive on the stack, since a call leaving the cycle cannot come back.
//!
//! A bound, not rustc's unbounded recursion, because the device has a fixed stack per thread:
//! overflowing it is a silent corruption or an unrecoverable fault, never a Rust panic.
//! Closures and helpers taking closures are inlined, so they still cannot recurse
//! (`closures.rs`).

use super::infer::Infer;
use super::panic::{render, Piece};
use super::span::loc;
use crate::ir::FnBody;
use crate::parse::model::Module;
use proc_macro2::Span;

/// The recursive functions of a program.
pub struct Recursion {
    pub limit: u32,
    /// The functions in a cycle: their key (`FnDef::key`, or an instance's name), the index
    /// of their cycle, and the fault site of their depth check.
    members: Vec<Member>,
    /// How many cycles there are.
    pub cycles: usize,
}

pub struct Member {
    pub key: String,
    pub cycle: usize,
    pub site: u32,
    /// The function's name in the source, where its depth check panics.
    pub span: Span,
}

impl Recursion {
    pub fn member(&self, key: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.key == key)
    }

    pub fn members(&self) -> &[Member] {
        &self.members
    }
}

/// The panic message of the depth check of `name` (the Rust path of the function), the same
/// on the CPU backend and the device.
pub fn message(name: &str, limit: u32) -> String {
    format!("recursion in `{name}` deeper than {limit} calls (raise it with #[megakernel(recursion_limit = N)])")
}

/// The Rust path of the function with key `key`: a method's `Type::name`, a generic helper's
/// name for its instances (`f__u32` is `f`), a trait's default or blanket method's
/// `Trait::name` for the types that use it.
pub fn rust_name(m: &Module, key: &str) -> String {
    if let Some(shared) = m.func(key).and_then(|f| f.shared.clone()) {
        return shared;
    }
    match m.fns.iter().find(|f| !f.generics.is_empty() && key.strip_prefix(&f.name.to_string()).is_some_and(|r| r.starts_with("__"))) {
        Some(f) => f.name.to_string(),
        None => key.to_string(),
    }
}

/// Finds the cycles among `bodies` (whose names are at `spans`), marks their functions as
/// panicking (their depth check) and appends a fault site per function to `sites`.
pub fn analyse(m: &Module, infer: &Infer, spans: &[Span], bodies: &mut [FnBody], limit: u32, sites: &mut Vec<String>) -> Recursion {
    let components = cycles(bodies);
    let mut members = Vec::new();
    for (cycle, component) in components.iter().enumerate() {
        for &i in component {
            let key = bodies[i].name.clone();
            let (line, file) = loc(spans[i]);
            sites.push(render(&format!("{file}:{line}: "), &[Piece::Text(message(&rust_name(m, &key), limit))], infer, m));
            bodies[i].panics = true;
            members.push(Member { key, cycle, site: sites.len() as u32 - 1, span: spans[i] });
        }
    }
    Recursion { limit, members, cycles: components.len() }
}

/// The strongly connected components of the call graph that hold a cycle (more than one
/// function, or one calling itself), as indices into `bodies`, in a deterministic order
/// (Tarjan's algorithm from each body in turn).
fn cycles(bodies: &[FnBody]) -> Vec<Vec<usize>> {
    struct Tarjan<'a> {
        bodies: &'a [FnBody],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn callees(&self, v: usize) -> Vec<usize> {
            self.bodies[v].calls.iter().filter_map(|(c, _)| self.bodies.iter().position(|b| &b.name == c)).collect()
        }
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for w in self.callees(v) {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) != self.index[v] {
                return;
            }
            let mut component = Vec::new();
            loop {
                let w = self.stack.pop().expect("v is on the stack");
                self.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            let calls_itself = self.callees(v).contains(&v);
            if component.len() > 1 || calls_itself {
                component.sort_unstable();
                self.out.push(component);
            }
        }
    }
    let n = bodies.len();
    let mut t = Tarjan { bodies, index: vec![None; n], low: vec![0; n], on_stack: vec![false; n], stack: Vec::new(), next: 0, out: Vec::new() };
    for v in 0..n {
        if t.index[v].is_none() {
            t.visit(v);
        }
    }
    t.out
}
