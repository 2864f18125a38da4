//! Type checking of handler and helper bodies into `ir`, with rustc's rules for this subset.
//!
//! Every expression gets its exact Rust type: the C lowering picks wrapping, shift and cast
//! code from it, so a wrong guess would silently change results. Errors are collected, never
//! returned early, so one build reports every problem of the module.
//!
//! `Cx` (here, with its core: errors, scopes, fault sites) checks one body, in `impl Cx`
//! blocks by construct: `stmt.rs` (blocks, `let`), `expr.rs` (the dispatch over expressions),
//! `literals.rs`, `paths.rs`, `operators.rs`, `casts.rs`, `calls.rs`, `control.rs` and
//! `patterns.rs`; the other files check the library's types and methods, the module's own
//! functions, closures and generics. Once every body is typed, `infer.rs` settles the
//! literals' types, `recursion.rs` bounds recursive calls, `panic.rs` and `spawns.rs` follow
//! panics and spawns through calls, and `join.rs` (a stage of its own in the pipeline) checks
//! that values flow to receivers of their type.

use crate::ir::*;
use crate::parse::model::{FnKind, Module, StructKind};
use crate::types::{const_len, parse_param_type, parse_type_in, FloatTy, IntTy, Ty};
use proc_macro2::Span;
use syn::spanned::Spanned;

// The checker of one body (`Cx`, here) by construct.
mod calls;
mod casts;
mod control;
mod expr;
mod literals;
mod operators;
mod paths;
mod patterns;
mod stmt;

// The library's types and methods, the module's own functions, and what the checker writes
// itself.
mod build;
mod closures;
mod context;
mod enums;
mod generics;
mod iterators;
mod jobs;
mod methods;
mod numeric;
mod options;
mod ordering;
mod panic;
mod refs;
mod refutable;
mod results;
mod slice_methods;
mod slices;

// The types of unsuffixed literals, unified as bodies are checked.
pub mod infer;
// Analyses of the typed bodies.
pub mod join;
pub mod recursion;
mod spawns;
// Source positions, for `#line` and fault messages.
pub(crate) mod span;

pub use jobs::RESULT_WORDS as JOB_RESULT_WORDS;

use closures::{ClosureDef, Frame};
use infer::{Infer, VarKind};
use panic::Piece;
use span::loc;
use std::rc::Rc;

pub struct Checked {
    pub infer: Infer,
    /// One body per `Module::fns` entry, same order.
    pub bodies: Vec<FnBody>,
    /// `Program::FAULT_SITES`: the message of each place code may panic.
    pub sites: Vec<String>,
    /// The functions that may panic explicitly, themselves or in a function they call: on
    /// the device they return after a panic, and their callers leave too.
    pub may_panic: Vec<String>,
    /// Whether some body has a `debug_assert!` (the kernel then has a debug variant).
    pub debug_assertions: bool,
    /// The instances of generic helpers (`generics.rs`), each as a plain helper.
    pub instances: Vec<(crate::parse::model::FnDef, FnBody)>,
    /// The functions that recurse, and their depth checks (`recursion.rs`).
    pub recursion: recursion::Recursion,
    /// The data-parallel jobs the module starts, by kind and element type (`jobs.rs`);
    /// empty: the program has none (and no job support in its kernel).
    pub jobs: Vec<(crate::ir::JobKind, IntTy)>,
}

/// A fault site: where (`file:line: `) and its message, whose values' types are known only
/// once inference is done.
struct Site {
    at: String,
    message: Vec<Piece>,
}

struct Shared {
    infer: Infer,
    sites: Vec<Site>,
    debug_assertions: bool,
    lits: Vec<literals::LitCheck>,
    negs: Vec<(Span, Ty)>,
    /// Instances of generic helpers checked so far, and the signatures (name, parameters,
    /// result) of every instance met, recorded before its body is checked.
    instances: Vec<(crate::parse::model::FnDef, FnBody)>,
    instantiating: Vec<(String, Vec<Ty>, Ty)>,
    /// The jobs the module starts, by kind and element type (`jobs.rs`).
    jobs: std::collections::BTreeSet<(crate::ir::JobKind, IntTy)>,
}

struct LoopCx {
    label: Option<String>,
    id: LoopId,
    /// The loop `continue` goes on with: `id`, or for a `for` over a `flat_map` the loop
    /// inside it that yields the elements (`iterators.rs`).
    cont: LoopId,
    /// `loop` (which may `break` with a value), not `while`/`for`.
    is_loop: bool,
    broke: bool,
    /// The type of the `break` values of a `loop`.
    value: Option<Ty>,
}

#[derive(Clone)]
enum Bind {
    Local(LocalId),
    Ctx,
    /// A closure, inlined where it is called (`closures.rs`).
    Closure(Rc<ClosureDef>),
    /// A name for a place, without a copy: an iterator's element (`closures::Elem`).
    Alias(Rc<Expr>),
}

struct Cx<'a> {
    m: &'a Module,
    sh: &'a mut Shared,
    errors: &'a mut Vec<syn::Error>,
    value_structs: Vec<String>,
    locals: Vec<Local>,
    scopes: Vec<Vec<(String, Bind)>>,
    ret: Ty,
    loops: Vec<LoopCx>,
    loop_labels: Vec<bool>,
    calls: Vec<(String, Span)>,
    task_local: Option<LocalId>,
    /// Task types this body spawns, where (for the join checks in `join.rs`).
    spawns: Vec<(String, Span)>,
    /// Where this body starts jobs (`jobs.rs`).
    jobs: Vec<Span>,
    /// Whether this body panics explicitly.
    panics: bool,
    /// Inlined closure and helper bodies being checked, innermost last (`closures.rs`).
    frames: Vec<Frame>,
    /// The outermost inlined call recursed past `MAX_INLINE_DEPTH` (reported): its other
    /// calls are not inlined either, or a body with two such calls would take 2^depth steps.
    inline_overflow: bool,
    /// Locals bound to iterator elements and closure parameters: references in Rust, so
    /// `*x` reads them.
    ref_locals: Vec<LocalId>,
    /// The names of the closures being inlined (`closures::inline_named`).
    inlining: Vec<String>,
}

pub fn check(m: &Module, errors: &mut Vec<syn::Error>) -> Checked {
    let mut sh = Shared { infer: Infer::default(), sites: Vec::new(), debug_assertions: false, lits: Vec::new(), negs: Vec::new(), instances: Vec::new(), instantiating: Vec::new(), jobs: Default::default() };
    let value_structs: Vec<String> = m
        .structs
        .iter()
        .filter(|s| !matches!(s.kind, StructKind::Counters | StructKind::Buffers))
        .map(|s| s.name.to_string())
        .collect();
    let mut bodies = Vec::new();
    for f in &m.fns {
        if !f.generics.is_empty() {
            // Checked per instantiation (`generics.rs`); this placeholder keeps `bodies`
            // parallel to `m.fns`.
            bodies.push(FnBody { name: f.name.to_string(), locals: Vec::new(), params: Vec::new(), body: Block { stmts: Vec::new(), tail: None, ty: Ty::Unit }, calls: Vec::new(), loops: Vec::new(), spawns: Vec::new(), jobs: Vec::new(), panics: false });
            continue;
        }
        bodies.push(check_fn(m, &mut sh, errors, &value_structs, f));
    }
    sh.infer.finish();
    let mut sites: Vec<String> = sh.sites.iter().map(|s| panic::render(&s.at, &s.message, &sh.infer, m)).collect();
    literals::range_errors(&sh, errors);
    // Instances take part in the recursion and panic analyses like any helper.
    let n = bodies.len();
    let mut spans: Vec<Span> = m.fns.iter().map(|f| f.name.span()).collect();
    let mut instances = Vec::new();
    for (def, body) in sh.instances {
        spans.push(def.name.span());
        bodies.push(body);
        instances.push(def);
    }
    let recursion = recursion::analyse(m, &sh.infer, &spans, &mut bodies, m.recursion_limit, &mut sites);
    let may_panic = panic::may_panic(&bodies);
    spawns::through_calls(&mut bodies);
    let instances = instances.into_iter().zip(bodies.split_off(n)).collect();
    // A closure's body is checked at each of its calls: report each of its errors once.
    let mut seen = Vec::new();
    errors.retain(|e| {
        let key = format!("{:?} {}", e.span(), e);
        !seen.contains(&key) && {
            seen.push(key);
            true
        }
    });
    let jobs = sh.jobs.into_iter().collect();
    Checked { infer: sh.infer, bodies, sites, may_panic, debug_assertions: sh.debug_assertions, instances, recursion, jobs }
}

/// The typed body of `f` (a function of the module, or an instance of a generic helper).
fn check_fn(m: &Module, sh: &mut Shared, errors: &mut Vec<syn::Error>, value_structs: &[String], f: &crate::parse::model::FnDef) -> FnBody {
    let mut cx = Cx {
        m,
        sh,
        errors,
        value_structs: value_structs.to_vec(),
        locals: Vec::new(),
        scopes: vec![Vec::new()],
        ret: f.ret.clone(),
        loops: Vec::new(),
        loop_labels: Vec::new(),
        calls: Vec::new(),
        task_local: None,
        spawns: Vec::new(),
        jobs: Vec::new(),
        panics: false,
        frames: Vec::new(),
        inline_overflow: false,
        ref_locals: Vec::new(),
        inlining: Vec::new(),
    };
    let mut params = Vec::new();
    for p in &f.params {
        let id = cx.new_local(&p.name.to_string(), p.ty.clone());
        if p.ty == Ty::Ctx {
            // C names the context `ctx` wherever it is passed (`lower/items.rs`).
            cx.scopes[0].push((p.name.to_string(), Bind::Ctx));
        }
        params.push(id);
    }
    if let FnKind::Handler { .. } | FnKind::Complete { .. } = f.kind {
        cx.task_local = params.first().copied();
    }
    if let Some(c) = &f.ctx {
        cx.scopes[0].push((c.to_string(), Bind::Ctx));
    }
    let body = cx.block(&f.item.block);
    let ret = f.ret.clone();
    if cx.sh.infer.unify(&ret, &body.ty).is_err() {
        let span = match f.item.block.stmts.last() {
            Some(s) => s.span(),
            None => f.item.block.span(),
        };
        let msg = format!(
            "mismatched types: `{}` returns `{}`, but its body has type `{}`",
            f.name,
            cx.sh.infer.display(&ret),
            cx.sh.infer.display(&body.ty)
        );
        cx.err(span, msg);
    }
    let (locals, calls, loops, spawns, jobs, panics) = (cx.locals, cx.calls, cx.loop_labels, cx.spawns, cx.jobs, cx.panics);
    FnBody { name: f.key(), locals, params, body, calls, loops, spawns, jobs, panics }
}

fn peel(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => peel(&p.expr),
        syn::Expr::Group(g) => peel(&g.expr),
        _ => e,
    }
}

fn ex(ty: Ty, kind: ExprKind) -> Expr {
    Expr { ty, kind }
}

fn err_expr() -> Expr {
    ex(Ty::Err, ExprKind::Error)
}

impl<'a> Cx<'a> {
    fn err(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(span, msg));
    }

    fn err_at<T: quote::ToTokens>(&mut self, at: &T, msg: impl std::fmt::Display) {
        self.errors.push(syn::Error::new_spanned(at, msg));
    }

    fn expect_at<T: quote::ToTokens>(&mut self, at: &T, expected: &Ty, found: &Ty) {
        if self.sh.infer.unify(expected, found).is_err() {
            let msg = format!("mismatched types: expected `{}`, found `{}`", self.show(expected), self.show(found));
            self.err_at(at, msg);
        }
    }

    fn parse_type(&self, t: &syn::Type) -> syn::Result<Ty> {
        parse_type_in(t, &self.value_structs, &self.m.type_names)
    }

    /// The type of a parameter or a `let` annotation: a value type, a reference to one, or
    /// the context or a part of it (`parse/model/context.rs`).
    fn parse_local_type(&self, t: &syn::Type) -> syn::Result<Ty> {
        let names = crate::parse::model::ContextNames::of(&self.m.structs);
        crate::parse::model::context_param(t, &names).unwrap_or_else(|| parse_param_type(t, &self.value_structs, &self.m.type_names))
    }

    fn new_local(&mut self, name: &str, ty: Ty) -> LocalId {
        self.locals.push(Local { name: name.to_string(), ty });
        let id = self.locals.len() - 1;
        self.scopes.last_mut().unwrap().push((name.to_string(), Bind::Local(id)));
        id
    }

    fn lookup(&self, name: &str) -> Option<Bind> {
        for s in self.scopes.iter().rev() {
            if let Some((_, b)) = s.iter().rev().find(|(n, _)| n == name) {
                return Some(b.clone());
            }
        }
        None
    }

    fn is_ctx(&self, e: &syn::Expr) -> bool {
        match peel(e) {
            syn::Expr::Path(p) if p.qself.is_none() => match p.path.get_ident() {
                Some(id) => matches!(self.lookup(&id.to_string()), Some(Bind::Ctx)),
                None => false,
            },
            _ => false,
        }
    }

    fn resolve(&self, ty: &Ty) -> Ty {
        self.sh.infer.resolve(ty)
    }

    fn show(&self, ty: &Ty) -> String {
        self.sh.infer.display(ty)
    }

    /// A new fault site at `span` (Rust's panic location: where the panicking expression,
    /// macro or method name starts) with `message`.
    fn site(&mut self, span: Span, message: Vec<Piece>) -> u32 {
        let (line, file) = loc(span);
        self.sh.sites.push(Site { at: format!("{file}:{line}: "), message });
        self.sh.sites.len() as u32 - 1
    }

    fn text_site(&mut self, span: Span, what: &str) -> u32 {
        self.site(span, vec![Piece::Text(what.to_string())])
    }

    /// Rust's message for an index past the end, with the length and the index the device
    /// reports (`ws_index` and the buffer accessors in `core/rust_semantics.cuh`).
    fn index_site(&mut self, span: Span) -> u32 {
        self.usize_site(span, "index out of bounds: the len is ", " but the index is ")
    }

    /// A site whose message is `before` word 0 `between` word 1, both `usize` values.
    fn usize_site(&mut self, span: Span, before: &str, between: &str) -> u32 {
        let usize_value = |word| Piece::Value { word, ty: Ty::Int(IntTy::Usize), debug: false };
        self.site(span, vec![Piece::Text(before.into()), usize_value(0), Piece::Text(between.into()), usize_value(1)])
    }
}
