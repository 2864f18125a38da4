//! Type checking of handler and helper bodies into `ir`, with rustc's rules for this subset.
//!
//! Every expression gets its exact Rust type: the C lowering picks wrapping, shift and cast
//! code from it, so a wrong guess would silently change results. Errors are collected, never
//! returned early, so one build reports every problem of the module.

use crate::ir::*;
use crate::parse::model::{FnKind, Module, StructKind};
use crate::types::{const_len, parse_param_type, parse_type_in, FloatTy, IntTy, Ty};
use proc_macro2::Span;
use syn::spanned::Spanned;

pub mod infer;
pub mod join;
mod span;

mod methods;
mod build;
mod closures;
mod context;
mod enums;
mod options;
mod ordering;
mod refutable;
mod generics;
mod iterators;
mod panic;
pub mod recursion;
mod refs;
mod results;
mod slice_methods;
mod slices;
mod spawns;
mod jobs;
mod numeric;
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

struct LitCheck {
    span: Span,
    ty: Ty,
    value: u128,
    negated: bool,
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
    lits: Vec<LitCheck>,
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
    for l in &sh.lits {
        if let Ty::Int(t) = sh.infer.resolve(&l.ty) {
            if l.negated && !t.signed() {
                continue; // reported as a negation of an unsigned type
            }
            let limit = if l.negated { (-t.min()) as u128 } else { t.max() as u128 };
            if l.value > limit {
                errors.push(syn::Error::new(
                    l.span,
                    format!("literal out of range for `{}` (its range is {}..={})", t.name(), t.min(), t.max()),
                ));
            }
        }
    }
    for (span, ty) in &sh.negs {
        if let Ty::Int(t) = sh.infer.resolve(ty) {
            if !t.signed() {
                errors.push(syn::Error::new(
                    *span,
                    format!("cannot apply unary operator `-` to type `{}`; unsigned values cannot be negated (use `wrapping_neg()`)", t.name()),
                ));
            }
        }
    }
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
    /// reports (`ws_index` and the buffer accessors in `rust_semantics.cuh`).
    fn index_site(&mut self, span: Span) -> u32 {
        self.usize_site(span, "index out of bounds: the len is ", " but the index is ")
    }

    /// A site whose message is `before` word 0 `between` word 1, both `usize` values.
    fn usize_site(&mut self, span: Span, before: &str, between: &str) -> u32 {
        let usize_value = |word| Piece::Value { word, ty: Ty::Int(IntTy::Usize), debug: false };
        self.site(span, vec![Piece::Text(before.into()), usize_value(0), Piece::Text(between.into()), usize_value(1)])
    }

    fn block(&mut self, b: &syn::Block) -> Block {
        self.scopes.push(Vec::new());
        let mut stmts = Vec::new();
        let mut tail = None;
        let mut diverges = false;
        let n = b.stmts.len();
        for (i, s) in b.stmts.iter().enumerate() {
            let (line, file) = loc(s.span());
            let kind = match s {
                syn::Stmt::Local(l) => {
                    for kind in self.let_stmt(l) {
                        let d = matches!(&kind, StmtKind::Let(_, Some(e)) if matches!(self.resolve(&e.ty), Ty::Never));
                        diverges |= d;
                        stmts.push(Stmt { line, file: file.clone(), kind });
                    }
                    continue;
                }
                syn::Stmt::Item(it) => {
                    self.err_at(&it, "items inside functions are not supported; declare them at module level");
                    continue;
                }
                syn::Stmt::Macro(mac) => {
                    let ex = self.macro_expr(&mac.mac);
                    if mac.semi_token.is_none() && i == n - 1 {
                        tail = Some(Box::new(ex));
                        continue;
                    }
                    StmtKind::Expr(ex)
                }
                // An empty statement (`;`), which syn keeps as empty verbatim tokens.
                syn::Stmt::Expr(syn::Expr::Verbatim(t), Some(_)) if t.is_empty() => continue,
                syn::Stmt::Expr(e, semi) => {
                    let ex = self.expr(e);
                    if semi.is_none() && i == n - 1 {
                        tail = Some(Box::new(ex));
                        continue;
                    }
                    if semi.is_none() {
                        let t = ex.ty.clone();
                        if !matches!(self.resolve(&t), Ty::Never) {
                            self.expect_at(&e, &Ty::Unit, &t);
                        }
                    }
                    StmtKind::Expr(ex)
                }
            };
            let d = match &kind {
                StmtKind::Expr(e) => matches!(self.resolve(&e.ty), Ty::Never),
                StmtKind::Let(_, Some(e)) => matches!(self.resolve(&e.ty), Ty::Never),
                _ => false,
            };
            diverges |= d;
            stmts.push(Stmt { line, file, kind });
        }
        self.scopes.pop();
        let ty = match &tail {
            Some(t) if !(diverges && matches!(self.resolve(&t.ty), Ty::Unit)) => t.ty.clone(),
            _ if diverges => Ty::Never,
            _ => Ty::Unit,
        };
        Block { stmts, tail, ty }
    }

    fn let_stmt(&mut self, l: &syn::Local) -> Vec<StmtKind> {
        if let (syn::Pat::Ident(pi), Some(init)) = (&l.pat, &l.init) {
            if let syn::Expr::Closure(c) = peel(&init.expr) {
                if pi.by_ref.is_none() && pi.subpat.is_none() && init.diverge.is_none() {
                    return self.let_closure(&pi.ident.to_string(), c);
                }
            }
        }
        let (pat, ann) = match &l.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            p => (p, None),
        };
        if let Some(init) = l.init.as_ref().filter(|i| i.diverge.is_some()) {
            return self.let_else(pat, ann, init);
        }
        let name = match pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.to_string(),
            syn::Pat::Wild(_) => "_".to_string(),
            syn::Pat::Tuple(_) => "_tuple".to_string(),
            other => {
                self.err_at(&other, "only `let name = ...;`, `let mut name = ...;` and tuple patterns `let (a, b) = ...;` are supported");
                return Vec::new();
            }
        };
        let ann_ty = match ann {
            Some(t) => match self.parse_local_type(t) {
                Ok(t) => Some(t),
                Err(e) => {
                    self.errors.push(e);
                    Some(Ty::Err)
                }
            },
            None => None,
        };
        let init = l.init.as_ref().map(|i| self.expr(&i.expr));
        let ty = match (&ann_ty, &init) {
            (Some(t), Some(e)) => {
                let init_expr = &l.init.as_ref().unwrap().expr;
                self.expect_at(init_expr, t, &e.ty);
                t.clone()
            }
            (Some(t), None) => t.clone(),
            (None, Some(e)) => match self.resolve(&e.ty) {
                Ty::Never | Ty::Unit => e.ty.clone(),
                _ => e.ty.clone(),
            },
            (None, None) => {
                self.err_at(&l, "add a type annotation: `let name: T;`");
                Ty::Err
            }
        };
        if matches!(self.resolve(&ty), Ty::Unit) {
            self.err_at(&l, "binding a `()` value is not supported");
        }
        let mut out = Vec::new();
        if let syn::Pat::Tuple(tp) = pat {
            if init.is_none() {
                self.err_at(&tp, "a tuple pattern needs an initializer");
                return out;
            }
            let id = self.new_local_hidden(ty);
            out.push(StmtKind::Let(id, init));
            self.destructure(tp, id, &mut out);
            return out;
        }
        if self.resolve(&ty) == Ty::Ctx {
            // Another name for the context (C always calls it `ctx`).
            self.scopes.last_mut().unwrap().push((name, Bind::Ctx));
            return out;
        }
        let id = self.new_local(&name, ty);
        out.push(StmtKind::Let(id, init));
        out
    }

    /// A local no Rust name can refer to (the value a tuple pattern takes apart).
    fn new_local_hidden(&mut self, ty: Ty) -> LocalId {
        self.hidden("tup", ty)
    }

    /// The fields of the tuple local `src`, read, when it has `arity` of them; otherwise the
    /// mismatch is reported at `at`, which `written` describes ("a tuple pattern with 3 elements").
    fn tuple_fields<T: quote::ToTokens>(&mut self, src: LocalId, arity: usize, at: &T, written: &str) -> Option<Vec<Expr>> {
        let elems = match self.resolve(&self.locals[src].ty) {
            Ty::Tuple(ts) if ts.len() == arity => ts,
            Ty::Err => return None,
            t => {
                let msg = format!("mismatched types: expected `{}`, found {written}", self.show(&t));
                self.err_at(at, msg);
                return None;
            }
        };
        let whole = ex(ty_of_local(&self.locals, src), ExprKind::Local(src));
        Some(elems.into_iter().enumerate().map(|(i, ety)| ex(ety, ExprKind::TupleField(Box::new(whole.clone()), i))).collect())
    }

    /// `let (a, (b, _)) = local;` as one `let` per name, reading the tuple's fields.
    fn destructure(&mut self, tp: &syn::PatTuple, src: LocalId, out: &mut Vec<StmtKind>) {
        let written = format!("a tuple pattern with {} elements", tp.elems.len());
        let Some(fields) = self.tuple_fields(src, tp.elems.len(), tp, &written) else { return };
        for (p, field) in tp.elems.iter().zip(fields) {
            let ety = field.ty.clone();
            match p {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    let id = self.new_local(&pi.ident.to_string(), ety);
                    out.push(StmtKind::Let(id, Some(field)));
                }
                syn::Pat::Wild(_) => {}
                syn::Pat::Tuple(inner) => {
                    let id = self.new_local_hidden(ety);
                    out.push(StmtKind::Let(id, Some(field)));
                    self.destructure(inner, id, out);
                }
                other => self.err_at(other, "tuple patterns in `let` may contain names, `_` and tuples"),
            }
        }
    }

    fn int_lit(&mut self, lit: &syn::LitInt, negated: bool) -> Expr {
        let suffix = lit.suffix();
        if suffix == "f32" || suffix == "f64" {
            let ft = if suffix == "f32" { crate::types::FloatTy::F32 } else { crate::types::FloatTy::F64 };
            return ex(Ty::Float(ft), ExprKind::Float(FloatLit::Text(lit.base10_digits().to_string())));
        }
        let ty = if suffix.is_empty() {
            self.sh.infer.fresh(VarKind::Int)
        } else if let Some(t) = IntTy::from_name(suffix) {
            Ty::Int(t)
        } else {
            self.err_at(&lit, format!("unsupported literal suffix `{suffix}`"));
            return err_expr();
        };
        let value = match lit.base10_parse::<u128>() {
            Ok(v) => v,
            Err(_) => {
                self.err_at(&lit, "integer literal is too large");
                return err_expr();
            }
        };
        self.sh.lits.push(LitCheck { span: lit.span(), ty: ty.clone(), value, negated });
        ex(ty, ExprKind::Int(value))
    }

    /// `e` typed, with stack room for its sub-expressions however deep they nest (`depth.rs`).
    fn expr(&mut self, e: &syn::Expr) -> Expr {
        crate::depth::with_room(|| self.typed_expr(e))
    }

    fn typed_expr(&mut self, e: &syn::Expr) -> Expr {
        use syn::Expr as E;
        match e {
            E::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => self.int_lit(i, false),
                syn::Lit::Float(f) => {
                    let ty = match f.suffix() {
                        "" => self.sh.infer.fresh(VarKind::Float),
                        "f32" => Ty::Float(crate::types::FloatTy::F32),
                        "f64" => Ty::Float(crate::types::FloatTy::F64),
                        s => {
                            self.err_at(&f, format!("unsupported literal suffix `{s}`"));
                            return err_expr();
                        }
                    };
                    ex(ty, ExprKind::Float(FloatLit::Text(f.base10_digits().to_string())))
                }
                syn::Lit::Bool(b) => ex(Ty::Bool, ExprKind::Bool(b.value)),
                other => {
                    self.err_at(&other, "only integer, float and bool literals are supported in megakernel code");
                    err_expr()
                }
            },
            E::Paren(p) => self.expr(&p.expr),
            E::Group(g) => self.expr(&g.expr),
            E::Path(p) => self.path(p),
            E::Field(f) => self.field(f, false),
            E::Index(i) => {
                if let E::Range(r) = peel(&i.index) {
                    self.err_at(&r, "a range of elements is borrowed: `&a[i..j]` or `&mut a[i..j]` (a slice, for a `&[T]`/`&mut [T]` parameter or a local), or the receiver of a method (`a[i..j].len()`, `a[..k].iter()`, `a[k..].sort_unstable()`)");
                    return err_expr();
                }
                let base = self.expr(&i.expr);
                let base = self.auto_deref(base);
                let idx = self.expr(&i.index);
                self.expect_at(&i.index, &Ty::Int(IntTy::Usize), &idx.ty);
                match self.resolve(&base.ty) {
                    Ty::Array(elem, n) => {
                        let site = self.index_site(e.span());
                        ex(*elem, ExprKind::Index(Box::new(base), Box::new(idx), n, site))
                    }
                    Ty::Slice(elem, _) => {
                        let site = self.index_site(e.span());
                        ex(*elem, ExprKind::SliceIndex(Box::new(base), Box::new(idx), site))
                    }
                    Ty::Err => err_expr(),
                    Ty::Buffer(..) => {
                        self.err_at(&i.expr, "buffer elements are read with `.get(i)` and written with `.set(i, v)` (or the `atomic_*` methods)");
                        err_expr()
                    }
                    t => {
                        let msg = format!("cannot index into a value of type `{}`; only arrays `[T; N]` can be indexed", crate::types::rust_name(&t));
                        self.err_at(&i.expr, msg);
                        err_expr()
                    }
                }
            }
            E::Unary(u) => self.unary(u),
            E::Binary(b) => self.binary(b),
            E::Cast(c) => self.cast(c),
            E::Struct(s) => self.struct_lit(s),
            E::Array(a) => {
                if a.elems.is_empty() {
                    self.err_at(e, "empty arrays are not supported");
                    return err_expr();
                }
                let elems: Vec<Expr> = a.elems.iter().map(|x| self.expr(x)).collect();
                for (x, s) in elems.iter().zip(&a.elems) {
                    self.not_stored(x, s);
                }
                let ety = elems[0].ty.clone();
                for (x, s) in elems.iter().zip(a.elems.iter()).skip(1) {
                    self.expect_at(&s, &ety, &x.ty);
                }
                let n = elems.len() as u64;
                ex(Ty::Array(Box::new(ety), n), ExprKind::ArrayLit(elems))
            }
            E::Repeat(r) => {
                let v = self.expr(&r.expr);
                self.not_stored(&v, &r.expr);
                let n = match peel(&r.len) {
                    E::Lit(syn::ExprLit { lit: syn::Lit::Int(l), .. }) => Some(l.base10_parse::<u64>().unwrap_or(0)),
                    E::Path(p) => const_len(&p.path, &self.m.type_names),
                    _ => None,
                };
                let Some(n) = n else {
                    self.err_at(peel(&r.len), "array lengths must be integer literals or consts of this module defined by one");
                    return err_expr();
                };
                if n == 0 {
                    self.err_at(&r.len, "zero-length arrays are not supported");
                    return err_expr();
                }
                ex(Ty::Array(Box::new(v.ty.clone()), n), ExprKind::ArrayRepeat(Box::new(v), n))
            }
            E::Call(c) => self.call(c),
            E::MethodCall(mc) => self.method_call(mc),
            E::Block(b) => {
                if let Some(l) = &b.label {
                    self.err_at(&l, "labeled blocks are not supported");
                }
                let blk = self.block(&b.block);
                ex(blk.ty.clone(), ExprKind::Block(blk))
            }
            E::If(i) => self.if_expr(i),
            E::While(w) => {
                if let E::Let(l) = peel(&w.cond) {
                    return self.while_let(w, l);
                }
                let cond = self.expr(&w.cond);
                self.expect_at(&w.cond, &Ty::Bool, &cond.ty);
                let id = self.enter_loop(&w.label, false);
                let body = self.block(&w.body);
                self.loops.pop();
                self.expect_at(&w.body, &Ty::Unit, &body.ty.clone());
                ex(Ty::Unit, ExprKind::While(Box::new(cond), body, id))
            }
            E::Loop(l) => {
                let id = self.enter_loop(&l.label, true);
                let body = self.block(&l.body);
                let cx = self.loops.pop().unwrap();
                self.expect_at(&l.body, &Ty::Unit, &body.ty.clone());
                let ty = match cx.value {
                    Some(t) => t,
                    None if cx.broke => Ty::Unit,
                    None => Ty::Never,
                };
                ex(ty, ExprKind::Loop(body, id))
            }
            E::ForLoop(f) => self.for_loop(f),
            E::Break(b) => {
                let target = self.find_loop(b.label.as_ref(), e, "break");
                let value = b.expr.as_ref().map(|v| self.expr(v));
                let Some(idx) = target else { return err_expr() };
                let vt = value.as_ref().map(|v| v.ty.clone()).unwrap_or(Ty::Unit);
                if self.loops[idx].is_loop {
                    match self.loops[idx].value.clone() {
                        None => self.loops[idx].value = Some(vt),
                        Some(t) => {
                            if self.sh.infer.unify(&t, &vt).is_err() {
                                let msg = format!("mismatched types: this `loop` breaks with `{}` elsewhere, found `{}`", self.show(&t), self.show(&vt));
                                self.err_at(e, msg);
                            }
                        }
                    }
                } else if let Some(v) = &b.expr {
                    self.err_at(&v, "`break` with a value is only allowed inside `loop` (not `while` or `for`)");
                }
                self.loops[idx].broke = true;
                ex(Ty::Never, ExprKind::Break(self.loops[idx].id, value.map(Box::new)))
            }
            E::Continue(c) => match self.find_loop(c.label.as_ref(), e, "continue") {
                Some(idx) => ex(Ty::Never, ExprKind::Continue(self.loops[idx].cont)),
                None => err_expr(),
            },
            E::Return(r) => {
                if let Some(b) = self.frame_return(r) {
                    return b;
                }
                let v = r.expr.as_ref().map(|v| self.expr(v));
                let vt = v.as_ref().map(|v| v.ty.clone()).unwrap_or(Ty::Unit);
                let ret = self.ret.clone();
                match &r.expr {
                    Some(v) => self.expect_at(v, &ret, &vt),
                    None => self.expect_at(e, &ret, &vt),
                }
                ex(Ty::Never, ExprKind::Return(v.map(Box::new)))
            }
            E::Assign(a) if matches!(peel(&a.left), syn::Expr::Tuple(t) if !t.elems.is_empty()) => {
                let syn::Expr::Tuple(places) = peel(&a.left) else { unreachable!("matched above") };
                let rhs = self.expr(&a.right);
                self.assign_tuple(places, rhs, e.span())
            }
            E::Assign(a) => {
                let rhs = self.expr(&a.right);
                let lhs = self.place(&a.left);
                self.expect_at(&a.right, &lhs.ty.clone(), &rhs.ty);
                ex(Ty::Unit, ExprKind::Assign(Box::new(lhs), Box::new(rhs)))
            }
            E::Tuple(t) if t.elems.is_empty() => ex(Ty::Unit, ExprKind::Unit),
            E::Closure(_) => self.closure_value(e),
            E::Try(t) => self.try_expr(t),
            E::Macro(m) => self.macro_expr(&m.mac),
            E::Unsafe(_) => {
                self.err_at(e, "`unsafe` is not supported in megakernel code");
                err_expr()
            }
            E::Match(m) => self.match_expr(m),
            E::Reference(r) => self.reference(r),
            E::Tuple(t) if t.elems.len() == 1 => {
                self.err_at(e, "one-element tuples are not supported; use the value itself");
                err_expr()
            }
            E::Tuple(t) => {
                let elems: Vec<Expr> = t.elems.iter().map(|x| self.expr(x)).collect();
                for (x, s) in elems.iter().zip(&t.elems) {
                    self.not_stored(x, s);
                    if matches!(self.resolve(&x.ty), Ty::Unit) {
                        self.err_at(s, "tuple elements must be values (no `()`)");
                    }
                }
                let ty = Ty::Tuple(elems.iter().map(|x| x.ty.clone()).collect());
                ex(ty, ExprKind::TupleLit(elems))
            }
            E::Range(_) => {
                self.err_at(e, "ranges are only supported as the iterator of a `for` loop: `for i in a..b`");
                err_expr()
            }
            E::Let(_) => {
                self.err_at(e, "`let` is supported in `if let PAT = value` only (no `let` chains with `&&`; nest the `if`s)");
                err_expr()
            }
            E::Async(_) | E::Await(_) => {
                self.err_at(e, "`async`/`.await` are not supported in megakernel code; spawn tasks with `ctx.spawn` instead");
                err_expr()
            }
            _ => {
                self.err_at(e, "this expression is not supported in megakernel code");
                err_expr()
            }
        }
    }

    fn path(&mut self, p: &syn::ExprPath) -> Expr {
        let span = p.span();
        if p.qself.is_some() {
            self.err(span, "qualified paths are not supported");
            return err_expr();
        }
        let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() == 1 && segs[0] == "None" && self.lookup("None").is_none() {
            return self.none_value();
        }
        if segs.len() == 1 {
            return match self.lookup(&segs[0]) {
                Some(Bind::Local(id)) => ex(self.locals[id].ty.clone(), ExprKind::Local(id)),
                Some(Bind::Alias(x)) => (*x).clone(),
                Some(Bind::Closure(_)) => self.closure_value(p),
                Some(Bind::Ctx) => ex(Ty::Ctx, ExprKind::CtxRef),
                None if self.m.func(&segs[0]).is_some_and(|f| f.kind == FnKind::Const) => {
                    let f = self.m.func(&segs[0]).unwrap();
                    self.calls.push((segs[0].clone(), span));
                    ex(f.ret.clone(), ExprKind::Call(segs[0].clone(), Vec::new()))
                }
                None => {
                    self.err(span, format!("cannot find value `{}` in this scope (megakernel code sees its locals and the consts of its module)", segs[0]));
                    err_expr()
                }
            };
        }
        if let Some(c) = self.assoc_const(&segs, span) {
            return c;
        }
        if let Some(d) = self.ordering_variant(&segs) {
            return Self::ordering_lit(d);
        }
        if let Some(c) = float_const(&segs) {
            return c;
        }
        if segs.len() == 2 {
            if let Some(en) = self.m.enum_def(&segs[0]) {
                return match en.variant(&segs[1]) {
                    Some(_) if en.has_data() => self.enum_unit(p, &segs[0], &segs[1]),
                    Some(v) => ex(Ty::Enum(segs[0].clone()), ExprKind::Variant(v.disc)),
                    None => {
                        self.err(span, format!("no variant `{}` in enum `{}`", segs[1], segs[0]));
                        err_expr()
                    }
                };
            }
            if let Some(t) = IntTy::from_name(&segs[0]) {
                let v: Option<(Ty, u128)> = match segs[1].as_str() {
                    "MAX" => Some((Ty::Int(t), t.max() as u128)),
                    // Stored as the two's-complement bit pattern; lowering masks it to the width.
                    "MIN" => Some((Ty::Int(t), t.min() as u128)),
                    "BITS" => Some((Ty::Int(IntTy::U32), t.bits() as u128)),
                    _ => None,
                };
                if let Some((ty, v)) = v {
                    return ex(ty, ExprKind::Int(v));
                }
            }
            if let s @ ("f32" | "f64") = segs[0].as_str() {
                let ft = if s == "f32" { crate::types::FloatTy::F32 } else { crate::types::FloatTy::F64 };
                let f32v = |x: f32| x as f64;
                let v = match (segs[1].as_str(), ft) {
                    ("INFINITY", _) => Some(f64::INFINITY),
                    ("NEG_INFINITY", _) => Some(f64::NEG_INFINITY),
                    ("NAN", _) => Some(f64::NAN),
                    ("MAX", crate::types::FloatTy::F32) => Some(f32v(f32::MAX)),
                    ("MIN", crate::types::FloatTy::F32) => Some(f32v(f32::MIN)),
                    ("EPSILON", crate::types::FloatTy::F32) => Some(f32v(f32::EPSILON)),
                    ("MAX", _) => Some(f64::MAX),
                    ("MIN", _) => Some(f64::MIN),
                    ("EPSILON", _) => Some(f64::EPSILON),
                    _ => None,
                };
                if let Some(v) = v {
                    return ex(Ty::Float(ft), ExprKind::Float(FloatLit::Value(v)));
                }
            }
        }
        self.err(span, "unsupported path; supported are local variables, consts and enum variants of this module, and the constants `MIN`, `MAX`, `BITS` of integer types (e.g. `u32::MAX`), `INFINITY`, `NAN`, `MAX`, `MIN`, `EPSILON` of float types and the constants of `std::f32::consts` / `std::f64::consts` (`std::f64::consts::PI`)");
        err_expr()
    }

    /// `base.member`; `counter`: whether a counter of `ctx.counters` may be named (as the
    /// receiver of its update, or borrowed by `&mut`).
    fn field(&mut self, f: &syn::ExprField, counter: bool) -> Expr {
        let syn::Member::Named(member) = &f.member else {
            let syn::Member::Unnamed(idx) = &f.member else { unreachable!() };
            let base = self.expr(&f.base);
            return match self.resolve(&base.ty) {
                Ty::Tuple(ts) if (idx.index as usize) < ts.len() => {
                    let t = ts[idx.index as usize].clone();
                    ex(t, ExprKind::TupleField(Box::new(base), idx.index as usize))
                }
                Ty::Err => err_expr(),
                t => {
                    let msg = format!("no field `{}` on type `{}`", idx.index, self.show(&t));
                    self.err_at(&f.member, msg);
                    err_expr()
                }
            };
        };
        let member = member.to_string();
        if self.is_ctx(&f.base) {
            return self.ctx_field(f, &member);
        }
        if let syn::Expr::Field(inner) = peel(&f.base) {
            if self.is_ctx(&inner.base) && matches!(&inner.member, syn::Member::Named(n) if n == "params") {
                let Some(p) = self.m.params() else {
                    self.err_at(&f, "this megakernel has no `#[params]` struct");
                    return err_expr();
                };
                return match p.fields.iter().find(|x| x.name == member) {
                    Some(fd) => ex(fd.ty.clone(), ExprKind::Param(member)),
                    None => {
                        let msg = format!("no field `{member}` on the params struct `{}`", p.name);
                        self.err_at(&f.member, msg);
                        err_expr()
                    }
                };
            }
        }
        let base = self.expr(&f.base);
        self.field_of(base, f, counter)
    }

    /// Field `f.member` of the already checked `base` (see `field`).
    fn field_of(&mut self, base: Expr, f: &syn::ExprField, counter: bool) -> Expr {
        let syn::Member::Named(member) = &f.member else { return err_expr() };
        let member = member.to_string();
        if let Some(x) = self.context_field(&base, f, &member, counter) {
            return x;
        }
        let base = self.auto_deref(base);
        match self.resolve(&base.ty) {
            Ty::Struct(s) => {
                // A struct the model rejected (and reported) still names its type.
                let Some(def) = self.m.struct_def(&s) else { return err_expr() };
                match def.fields.iter().find(|x| x.name == member) {
                    Some(fd) => ex(fd.ty.clone(), ExprKind::Field(Box::new(base), member)),
                    None => {
                        self.err_at(&f.member, format!("no field `{member}` on type `{s}`"));
                        err_expr()
                    }
                }
            }
            Ty::Err => err_expr(),
            t => {
                let msg = format!("no field `{member}` on type `{}`", self.show(&t));
                self.err_at(&f.member, msg);
                err_expr()
            }
        }
    }

    /// The receiver of a method call: also a counter (`ctx.counters.found.add(1)`) or a range
    /// of elements (`a[i..j].len()`, `a[..k].sort_unstable()`: a slice of them, as mutable as
    /// `a` is, which the method borrows).
    pub(super) fn receiver(&mut self, e: &syn::Expr) -> Expr {
        match peel(e) {
            syn::Expr::Field(f) => self.field(f, true),
            syn::Expr::Index(ix) => match peel(&ix.index) {
                syn::Expr::Range(r) => self.slicing(ix, r, None),
                _ => self.expr(e),
            },
            r => self.expr(r),
        }
    }

    fn place(&mut self, e: &syn::Expr) -> Expr {
        if matches!(peel(e), syn::Expr::Array(_) | syn::Expr::Struct(_) | syn::Expr::Call(_)) {
            self.err_at(&e, "destructuring assignment takes tuples of places, `(a, b.f, _) = value`; assign an array's or a struct's parts one by one");
            return err_expr();
        }
        let x = self.expr(e);
        if !options::is_place(&x) {
            self.err_at(&e, "can only assign to local variables, their fields and array elements, and through references (`*r = v`, `r.f = v`)");
        }
        x
    }

    /// `(a, b.f, (c, _)) = value;` as Rust runs it: the value first, into a hidden local, then
    /// each place its field, left to right (`_` takes nothing).
    fn assign_tuple(&mut self, places: &syn::ExprTuple, value: Expr, span: Span) -> Expr {
        let src = self.new_local_hidden(value.ty.clone());
        let mut stmts = vec![self.stmt_at(span, StmtKind::Let(src, Some(value)))];
        self.assign_fields(places, src, span, &mut stmts);
        ex(Ty::Unit, ExprKind::Block(Block { stmts, tail: None, ty: Ty::Unit }))
    }

    fn assign_fields(&mut self, places: &syn::ExprTuple, src: LocalId, span: Span, out: &mut Vec<Stmt>) {
        let written = format!("a tuple of {} places", places.elems.len());
        let Some(fields) = self.tuple_fields(src, places.elems.len(), places, &written) else { return };
        for (place, field) in places.elems.iter().zip(fields) {
            let ety = field.ty.clone();
            match peel(place) {
                syn::Expr::Infer(_) => {}
                syn::Expr::Tuple(inner) if !inner.elems.is_empty() => {
                    let id = self.new_local_hidden(ety);
                    out.push(self.stmt_at(span, StmtKind::Let(id, Some(field))));
                    self.assign_fields(inner, id, span, out);
                }
                other => {
                    let lhs = self.place(other);
                    self.expect_at(other, &lhs.ty.clone(), &ety);
                    out.push(self.expr_stmt(span, ex(Ty::Unit, ExprKind::Assign(Box::new(lhs), Box::new(field)))));
                }
            }
        }
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Expr {
        let span = u.span();
        match u.op {
            syn::UnOp::Neg(_) => {
                let inner = match peel(&u.expr) {
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(l), .. }) => self.int_lit(l, true),
                    _ => self.expr(&u.expr),
                };
                match self.resolve(&inner.ty) {
                    Ty::Int(t) if !t.signed() => {
                        self.err(span, format!("cannot apply unary operator `-` to type `{}`; unsigned values cannot be negated (use `wrapping_neg()`)", t.name()));
                    }
                    Ty::Var(_) => {
                        if self.sh.infer.var_kind(&inner.ty) == Some(VarKind::Int) {
                            self.sh.negs.push((span, inner.ty.clone()));
                        }
                    }
                    Ty::Int(_) | Ty::Float(_) | Ty::Err => {}
                    t => {
                        let msg = format!("cannot apply unary operator `-` to type `{}`", self.show(&t));
                        self.err(span, msg);
                    }
                }
                ex(inner.ty.clone(), ExprKind::Unary(UnOp::Neg, Box::new(inner)))
            }
            syn::UnOp::Not(_) => {
                let inner = self.expr(&u.expr);
                let r = self.resolve(&inner.ty);
                let ok = match &r {
                    Ty::Int(_) | Ty::Bool | Ty::Err => true,
                    Ty::Var(_) => self.sh.infer.var_kind(&r) == Some(VarKind::Int),
                    _ => false,
                };
                if !ok {
                    let msg = format!("cannot apply unary operator `!` to type `{}`", self.show(&r));
                    self.err(span, msg);
                }
                ex(inner.ty.clone(), ExprKind::Unary(UnOp::Not, Box::new(inner)))
            }
            syn::UnOp::Deref(_) => {
                if let Some(x) = self.deref_binding(&u.expr) {
                    return x;
                }
                let inner = self.expr(&u.expr);
                if matches!(inner.kind, ExprKind::Local(id) if Some(id) == self.task_local) {
                    return inner;
                }
                self.deref(inner, span)
            }
            _ => {
                self.err(span, "unsupported unary operator");
                err_expr()
            }
        }
    }

    fn binop(op: &syn::BinOp) -> Option<(BinOp, bool)> {
        use syn::BinOp as B;
        Some(match op {
            B::Add(_) => (BinOp::Add, false),
            B::Sub(_) => (BinOp::Sub, false),
            B::Mul(_) => (BinOp::Mul, false),
            B::Div(_) => (BinOp::Div, false),
            B::Rem(_) => (BinOp::Rem, false),
            B::BitAnd(_) => (BinOp::BitAnd, false),
            B::BitOr(_) => (BinOp::BitOr, false),
            B::BitXor(_) => (BinOp::BitXor, false),
            B::Shl(_) => (BinOp::Shl, false),
            B::Shr(_) => (BinOp::Shr, false),
            B::Eq(_) => (BinOp::Eq, false),
            B::Ne(_) => (BinOp::Ne, false),
            B::Lt(_) => (BinOp::Lt, false),
            B::Le(_) => (BinOp::Le, false),
            B::Gt(_) => (BinOp::Gt, false),
            B::Ge(_) => (BinOp::Ge, false),
            B::AddAssign(_) => (BinOp::Add, true),
            B::SubAssign(_) => (BinOp::Sub, true),
            B::MulAssign(_) => (BinOp::Mul, true),
            B::DivAssign(_) => (BinOp::Div, true),
            B::RemAssign(_) => (BinOp::Rem, true),
            B::BitAndAssign(_) => (BinOp::BitAnd, true),
            B::BitOrAssign(_) => (BinOp::BitOr, true),
            B::BitXorAssign(_) => (BinOp::BitXor, true),
            B::ShlAssign(_) => (BinOp::Shl, true),
            B::ShrAssign(_) => (BinOp::Shr, true),
            _ => return None,
        })
    }

    /// `a == b` / `a != b` of structs and tuples, as the derived `PartialEq` compares: both
    /// evaluated once, then field by field in order, stopping at the first that differs.
    fn compound_eq(&mut self, op: BinOp, l: Expr, r: Expr, b: &syn::ExprBinary) -> Expr {
        let ty = l.ty.clone();
        let (x, y) = (self.new_local_hidden(ty.clone()), self.new_local_hidden(ty.clone()));
        let span = b.span();
        let stmts = vec![self.stmt_at(span, StmtKind::Let(x, Some(l))), self.stmt_at(span, StmtKind::Let(y, Some(r)))];
        let Some(eq) = self.values_eq(self.local_expr(x), self.local_expr(y)) else {
            let msg = format!(
                "operator `{}` is not supported on type `{}`: a field of it has no `==` here (an enum with data, an array); compare the fields that have",
                op.c(),
                self.show(&ty)
            );
            self.err_at(&b.left, msg);
            return err_expr();
        };
        let tail = if op == BinOp::Ne { ex(Ty::Bool, ExprKind::Unary(UnOp::Not, Box::new(eq))) } else { eq };
        ex(Ty::Bool, ExprKind::Block(Block { stmts, tail: Some(Box::new(tail)), ty: Ty::Bool }))
    }

    /// Whether `a` equals `b` (places of the same type), field by field; None where a part has
    /// no `==` here.
    fn values_eq(&mut self, a: Expr, b: Expr) -> Option<Expr> {
        let ty = self.resolve(&a.ty);
        let parts: Vec<(Expr, Expr)> = match &ty {
            Ty::Struct(name) => {
                let def = self.m.struct_def(name)?;
                let fields: Vec<(String, Ty)> = def.fields.iter().map(|f| (f.name.to_string(), f.ty.clone())).collect();
                fields
                    .into_iter()
                    .map(|(f, t)| (ex(t.clone(), ExprKind::Field(Box::new(a.clone()), f.clone())), ex(t, ExprKind::Field(Box::new(b.clone()), f))))
                    .collect()
            }
            Ty::Tuple(ts) => ts
                .iter()
                .enumerate()
                .map(|(i, t)| (ex(t.clone(), ExprKind::TupleField(Box::new(a.clone()), i)), ex(t.clone(), ExprKind::TupleField(Box::new(b.clone()), i))))
                .collect(),
            Ty::Option(_) => return Some(self.option_eq(BinOp::Eq, a, b, Span::call_site())),
            t if self.operand_ok(BinOp::Eq, t) => return Some(ex(Ty::Bool, ExprKind::Binary(BinOp::Eq, Box::new(a), Box::new(b), 0))),
            _ => return None,
        };
        let mut all: Option<Expr> = None;
        for (x, y) in parts {
            let same = self.values_eq(x, y)?;
            all = Some(match all {
                None => same,
                Some(before) => ex(Ty::Bool, ExprKind::And(Box::new(before), Box::new(same))),
            });
        }
        Some(all.unwrap_or_else(|| ex(Ty::Bool, ExprKind::Bool(true))))
    }

    /// Checks operand types of `op` (already unified for non-shifts); returns whether fine.
    fn operand_ok(&mut self, op: BinOp, ty: &Ty) -> bool {
        let r = self.resolve(ty);
        let kind = self.sh.infer.var_kind(&r);
        match op {
            BinOp::Shl | BinOp::Shr => matches!(r, Ty::Int(_) | Ty::Err) || kind == Some(VarKind::Int),
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                matches!(r, Ty::Int(_) | Ty::Bool | Ty::Err) || kind == Some(VarKind::Int)
            }
            BinOp::Eq | BinOp::Ne => match &r {
                // An enum with data is compared by `match`/`if let` (`==` would need a deep
                // comparison of the union).
                Ty::Enum(e) => !self.m.enum_def(e).is_some_and(|e| e.has_data()),
                _ => matches!(r, Ty::Int(_) | Ty::Float(_) | Ty::Bool | Ty::Ordering | Ty::Var(_) | Ty::Err),
            },
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                matches!(r, Ty::Int(_) | Ty::Float(_) | Ty::Bool | Ty::Ordering | Ty::Var(_) | Ty::Err)
            }
            _ => matches!(r, Ty::Int(_) | Ty::Float(_) | Ty::Var(_) | Ty::Err),
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Expr {
        // `b.span()` walks the whole operand tree: taken only where needed, so that a sum of
        // thousands of terms is checked in linear time.
        if let syn::BinOp::And(_) | syn::BinOp::Or(_) = b.op {
            let l = self.expr(&b.left);
            let r = self.expr(&b.right);
            self.expect_at(&b.left, &Ty::Bool, &l.ty);
            self.expect_at(&b.right, &Ty::Bool, &r.ty);
            let k = if matches!(b.op, syn::BinOp::And(_)) {
                ExprKind::And(Box::new(l), Box::new(r))
            } else {
                ExprKind::Or(Box::new(l), Box::new(r))
            };
            return ex(Ty::Bool, k);
        }
        let Some((op, assign)) = Self::binop(&b.op) else {
            self.err(b.span(), "unsupported operator");
            return err_expr();
        };
        let (l, r) = if assign {
            // Rust evaluates the right operand of a primitive compound assignment first.
            let r = self.expr(&b.right);
            let l = self.place(&b.left);
            (l, r)
        } else {
            let l = self.expr(&b.left);
            let r = self.expr(&b.right);
            (l, r)
        };
        let shift = matches!(op, BinOp::Shl | BinOp::Shr);
        if matches!(op, BinOp::Eq | BinOp::Ne) && !assign && matches!(self.resolve(&l.ty), Ty::Option(_)) {
            if self.sh.infer.unify(&l.ty, &r.ty).is_err() {
                let msg = format!("mismatched types: `{}` compares with `{}`, found `{}`", op.c(), self.show(&l.ty), self.show(&r.ty));
                self.err_at(&b.right, msg);
                return err_expr();
            }
            return self.option_eq(op, l, r, b.span());
        }
        if matches!(op, BinOp::Eq | BinOp::Ne) && !assign && matches!(self.resolve(&l.ty), Ty::Struct(_) | Ty::Tuple(_)) {
            if self.sh.infer.unify(&l.ty, &r.ty).is_err() {
                let msg = format!("mismatched types: `{}` compares with `{}`, found `{}`", op.c(), self.show(&l.ty), self.show(&r.ty));
                self.err_at(&b.right, msg);
                return err_expr();
            }
            return self.compound_eq(op, l, r, b);
        }
        let (l_ref, r_ref) = (matches!(self.resolve(&l.ty), Ty::Ref(..)), matches!(self.resolve(&r.ty), Ty::Ref(..)));
        let fix = if l_ref || r_ref { "dereference the reference: `*r`" } else { "convert one with `as`" };
        if !shift && self.sh.infer.unify(&l.ty, &r.ty).is_err() {
            let msg = format!(
                "mismatched types: `{}` needs both operands of the same type, found `{}` and `{}` ({fix})",
                op.c(),
                self.show(&l.ty),
                self.show(&r.ty)
            );
            self.err_at(&b.right, msg);
        }
        if !self.operand_ok(op, &l.ty) {
            let hint = match self.resolve(&l.ty) {
                _ if l_ref => "; dereference the reference: `*r`",
                Ty::Enum(_) | Ty::Option(_) | Ty::Struct(_) | Ty::Tuple(_) => "; compare compound values by `match`, `if let` or their fields",
                _ => "",
            };
            let msg = format!("operator `{}` is not supported on type `{}`{hint}", op.c(), self.show(&l.ty));
            self.err_at(&b.left, msg);
        }
        if shift && !self.operand_ok(op, &r.ty) {
            let msg = format!("shift amounts must be integers, found `{}`", self.show(&r.ty));
            self.err_at(&b.right, msg);
        }
        let mut site = u32::MAX;
        if matches!(op, BinOp::Div | BinOp::Rem) {
            let r_ty = self.resolve(&l.ty);
            let is_int = matches!(r_ty, Ty::Int(_)) || self.sh.infer.var_kind(&r_ty) == Some(VarKind::Int);
            if is_int {
                // Two sites, Rust's two messages: `site` for a zero divisor, `site + 1` for
                // `MIN / -1` (`WS_SDIV` in `rust_semantics.cuh`).
                let (zero, overflow) = if op == BinOp::Div {
                    ("attempt to divide by zero", "attempt to divide with overflow")
                } else {
                    ("attempt to calculate the remainder with a divisor of zero", "attempt to calculate the remainder with overflow")
                };
                let span = b.span();
                site = self.text_site(span, zero);
                self.text_site(span, overflow);
            }
        }
        if assign {
            return ex(Ty::Unit, ExprKind::CompoundAssign(op, Box::new(l), Box::new(r), site));
        }
        let ty = if op.is_cmp() { Ty::Bool } else { l.ty.clone() };
        ex(ty, ExprKind::Binary(op, Box::new(l), Box::new(r), site))
    }

    fn cast(&mut self, c: &syn::ExprCast) -> Expr {
        let inner = self.expr(&c.expr);
        let target = match self.parse_type(&c.ty) {
            Ok(t) => t,
            Err(e) => {
                self.errors.push(e);
                return err_expr();
            }
        };
        if !matches!(target, Ty::Int(_) | Ty::Float(_)) {
            self.err_at(&c.ty, "`as` casts are supported to integer and float types only");
            return err_expr();
        }
        // rustc types a bare literal under `as` by the target type: `1 as u64` is a u64 literal.
        let mut lit = peel(&c.expr);
        if let syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) = lit {
            lit = peel(expr);
        }
        if let syn::Expr::Lit(_) = lit {
            if let Some(k) = self.sh.infer.var_kind(&inner.ty) {
                let fits = match (&target, k) {
                    (Ty::Int(_), VarKind::Int) | (Ty::Float(_), VarKind::Float) => true,
                    _ => false,
                };
                if fits {
                    let _ = self.sh.infer.unify(&inner.ty, &target);
                }
            }
        }
        let src = self.resolve(&inner.ty);
        let ok = match (&src, &target) {
            (Ty::Int(_) | Ty::Float(_) | Ty::Var(_) | Ty::Err, _) => true,
            (Ty::Bool | Ty::Ordering, Ty::Int(_)) => true,
            (Ty::Enum(e), Ty::Int(_)) => !self.m.enum_def(e).is_some_and(|e| e.has_data()),
            _ => false,
        };
        if !ok {
            let msg = format!("casting `{}` as `{}` is not supported", self.show(&src), crate::types::rust_name(&target));
            self.err_at(&c, msg);
        }
        ex(target, ExprKind::Cast(Box::new(inner)))
    }

    /// `u64::from(x)`, `f64::from(x)`: the standard library's lossless conversions between
    /// numbers (and from `bool`), a cast once checked; one the library lacks (it could lose
    /// bits, or its size depends on the target) is refused with the way to write it.
    fn from_conversion(&mut self, c: &syn::ExprCall, target: Ty) -> Expr {
        let name = crate::types::rust_name(&target);
        if c.args.len() != 1 {
            self.err_at(&c, format!("`{name}::from` takes 1 argument"));
            return err_expr();
        }
        let a = self.expr(&c.args[0]);
        let src = self.resolve(&a.ty);
        if !matches!(src, Ty::Err | Ty::Var(_)) && !lossless(&src, &target) {
            let msg = format!(
                "the standard library has no `From<{}>` for `{name}` (the conversion could lose bits, or depends on the target's pointer size); cast with `as {name}`",
                self.show(&src)
            );
            self.err_at(&c.args[0], msg);
            return err_expr();
        }
        ex(target, ExprKind::Cast(Box::new(a)))
    }

    fn struct_lit(&mut self, s: &syn::ExprStruct) -> Expr {
        let span = s.span();
        if let [e, v] = &s.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>()[..] {
            if self.m.enum_def(e).is_some() {
                return self.enum_struct_lit(s, e, v);
            }
        }
        if let Some(r) = &s.rest {
            self.err_at(&r, "struct update syntax `..base` is not supported; list every field");
        }
        let Some(name) = s.path.get_ident().map(|i| i.to_string()) else {
            self.err_at(&s.path, "struct literals must name a struct of this module");
            return err_expr();
        };
        let Some(def) = self.m.struct_def(&name).filter(|d| d.kind != StructKind::Counters) else {
            self.err_at(&s.path, format!("`{name}` is not a struct of this megakernel"));
            return err_expr();
        };
        let mut fields: Vec<(String, Expr)> = Vec::new();
        for fv in &s.fields {
            let syn::Member::Named(fname) = &fv.member else {
                self.err_at(&fv.member, "tuple fields are not supported");
                continue;
            };
            let fname = fname.to_string();
            let v = self.expr(&fv.expr);
            match def.fields.iter().find(|f| f.name == fname) {
                Some(fd) => self.expect_at(&fv.expr, &fd.ty.clone(), &v.ty),
                None => {
                    self.err_at(&fv.member, format!("struct `{name}` has no field named `{fname}`"));
                    continue;
                }
            }
            if fields.iter().any(|(n, _)| *n == fname) {
                self.err_at(&fv.member, format!("field `{fname}` specified more than once"));
                continue;
            }
            fields.push((fname, v));
        }
        let missing: Vec<String> = def.fields.iter().map(|f| f.name.to_string()).filter(|n| !fields.iter().any(|(m, _)| m == n)).collect();
        if !missing.is_empty() && s.rest.is_none() {
            self.err(span, format!("missing fields in struct literal of `{name}`: {}", missing.join(", ")));
        }
        ex(Ty::Struct(name.clone()), ExprKind::StructLit(name, fields))
    }

    fn call(&mut self, c: &syn::ExprCall) -> Expr {
        let span = c.span();
        if let syn::Expr::Path(p) = peel(&c.func) {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            if segs.len() == 2 {
                if let (Some(t), Some(&(_, m))) = (IntTy::from_name(&segs[0]), INT_FUNCTIONS.iter().find(|(n, _)| *n == segs[1])) {
                    if c.args.len() != 1 {
                        self.err(span, format!("`{}::{}` takes 1 argument", segs[0], segs[1]));
                        return err_expr();
                    }
                    let a = self.expr(&c.args[0]);
                    self.expect_at(&c.args[0], &Ty::Int(t), &a.ty);
                    return ex(Ty::Int(t), ExprKind::Method(m, Box::new(a), Vec::new()));
                }
            }
            if segs.len() == 2 && segs[1] == "from" && !self.m.is_named_type(&segs[0]) {
                if let Some(target) = crate::types::numeric_ty(&segs[0]) {
                    return self.from_conversion(c, target);
                }
            }
            if segs.len() == 1 && segs[0] == "Some" && self.lookup("Some").is_none() {
                if c.args.len() != 1 {
                    self.err(span, "`Some` takes 1 argument");
                    return err_expr();
                }
                let v = self.expr(&c.args[0]);
                self.not_stored(&v, &c.args[0]);
                return self.some_value(v);
            }
            if segs.len() == 1 && (segs[0] == "Ok" || segs[0] == "Err") {
                self.err_at(&c.func, "`Result` is not supported in megakernel code; return an `Option` (and use `?`), or panic with `assert!`/`expect`");
                return err_expr();
            }
            if segs.len() == 2 && self.m.enum_def(&segs[0]).is_some_and(|e| e.has_data()) {
                return self.enum_call(c, &segs[0], &segs[1]);
            }
        }
        // `f::<u64>(..)`: a generic helper with its type arguments (`generics.rs`).
        if let syn::Expr::Path(p) = peel(&c.func) {
            if p.qself.is_none() && p.path.segments.len() == 1 {
                let name = p.path.segments[0].ident.to_string();
                if self.m.func(&name).is_some_and(|f| !f.generics.is_empty()) {
                    return self.call_generic(c, &name);
                }
            }
        }
        if let Some(e) = self.trait_call(c) {
            return e;
        }
        if let Some(rewritten) = std_call(c) {
            return self.expr(&rewritten);
        }
        let Some(key) = self.callee_key(&c.func) else { return err_expr() };
        if let Some(Bind::Closure(def)) = self.lookup(&key) {
            let args = c.args.iter().map(|a| closures::Elem::Val(self.expr(a), false)).collect();
            return self.inline_named(&key, &def, args, span);
        }
        self.call_named(c, key)
    }

    fn method_call(&mut self, mc: &syn::ExprMethodCall) -> Expr {
        let span = mc.span();
        let method = mc.method.to_string();
        if let (syn::Expr::Range(r), "contains") = (peel(&mc.receiver), method.as_str()) {
            return self.range_contains(r, mc);
        }
        if let Some(e) = self.iterator_method(mc) {
            return e;
        }
        if let Some(t) = &mc.turbofish {
            self.err_at(&t, "turbofish `::<...>` is not supported");
        }
        if self.is_ctx(&mc.receiver) {
            return self.ctx_method(mc);
        }
        let recv = self.receiver(&mc.receiver);
        let recv = self.auto_deref(recv);
        let rt = self.resolve(&recv.ty);
        if rt.is_context() {
            return self.context_method(mc, recv, &rt);
        }
        if let Some(e) = self.compare_method(mc, &recv, &rt) {
            return e;
        }
        if numeric::is_numeric_method(&method, &rt) {
            return self.numeric_method(mc, recv, &rt);
        }
        if let Ty::Array(..) | Ty::Slice(..) = rt {
            if slice_methods::SLICE_METHODS.contains(&method.as_str()) {
                return self.slice_method(mc, recv).unwrap_or_else(err_expr);
            }
        }
        let table = match &rt {
            Ty::Ordering => return self.ordering_method(mc, recv),
            Ty::Result(v, e) => return self.result_method(mc, recv, (**v).clone(), (**e).clone()),
            Ty::Struct(owner) | Ty::Enum(owner) => return self.user_method(mc, recv, &owner.clone()),
            Ty::Int(_) => INT_METHODS,
            Ty::Float(_) => FLOAT_METHODS,
            Ty::Option(inner) => return self.option_method(mc, recv, (**inner).clone()),
            Ty::Array(_, n) if method == "len" && mc.args.is_empty() => {
                // The receiver still runs (it may have effects); the length is a constant.
                let (line, file) = loc(mc.receiver.span());
                let stmts = vec![Stmt { line, file, kind: StmtKind::Expr(recv) }];
                let len = ex(Ty::Int(IntTy::Usize), ExprKind::Int(*n as u128));
                let b = Block { stmts, tail: Some(Box::new(len)), ty: Ty::Int(IntTy::Usize) };
                return ex(Ty::Int(IntTy::Usize), ExprKind::Block(b));
            }
            Ty::Slice(..) if method == "len" && mc.args.is_empty() => {
                return ex(Ty::Int(IntTy::Usize), ExprKind::SliceLen(Box::new(recv)));
            }
            Ty::Slice(..) if method != "windows" && method != "split_at" => {
                let msg = format!("method `{method}` is not supported on slices; use `len()`, indexing `s[i]`, `iter()` with its adaptors, `chunks(k)` or the slice methods {}", slice_methods::SLICE_METHODS.join(", "));
                self.err(mc.method.span(), msg);
                return err_expr();
            }
            Ty::Err => return err_expr(),
            Ty::Var(_) => {
                let msg = format!("can't call method `{method}` on ambiguous numeric type `{}`; add a suffix such as `1u32` or annotate the variable's type", self.show(&rt));
                self.err_at(&mc.receiver, msg);
                return err_expr();
            }
            _ => &[],
        };
        let Some(&(_, m)) = table.iter().find(|(n, _)| *n == method) else {
            let list = |t: &[(&str, Method)]| t.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ");
            let hint = match (&rt, method.as_str()) {
                (Ty::Array(..) | Ty::Slice(..), "windows") => "of the methods yielding slices only `chunks(k)` is supported; take the windows as slices: `for i in 0..=a.len() - k { let w = &a[i..i + k]; .. }`".to_string(),
                (Ty::Array(..) | Ty::Slice(..), "split_at") => "slice it instead: `let (l, r) = (&a[..k], &a[k..]);`".to_string(),
                (Ty::Array(..), "chunks_exact" | "chunks_mut") => "of the methods yielding slices only `chunks(k)` is supported; loop over the chunk starts and index: `for s in (0..N).step_by(k) { for i in s..(s + k).min(N) { a[i] } }`".to_string(),
                (Ty::Array(..), _) => format!("iterate the array with `a.iter()`, `a.iter_mut()` or `for x in a` (e.g. `a.iter().map(|x| x * 2).sum()`), index it in a range loop, or use the slice methods {}", slice_methods::SLICE_METHODS.join(", ")),
                (Ty::Int(_) | Ty::Float(_) | Ty::Bool, "into") => {
                    "`into()` takes its target type from where the value goes, which megakernel code does not infer: name it, `u64::from(x)` (or cast, `x as u64`)".to_string()
                }
                _ => format!(
                    "supported integer methods: {}, {}; float methods: {}, {}; arrays: len",
                    list(INT_METHODS),
                    numeric::numeric_methods(false).join(", "),
                    list(FLOAT_METHODS),
                    numeric::numeric_methods(true).join(", ")
                ),
            };
            self.err(mc.method.span(), format!("method `{method}` is not supported on `{}` in megakernel code; {hint}", self.show(&rt)));
            return err_expr();
        };
        let signed = matches!(rt, Ty::Int(t) if t.signed());
        if matches!(rt, Ty::Int(_)) && !signed && m == Method::Abs {
            self.err(mc.method.span(), format!("no method `abs` on the unsigned type `{}`", self.show(&rt)));
            return err_expr();
        }
        if matches!(rt, Ty::Int(_)) && !signed && m == Method::Signum {
            self.err(mc.method.span(), format!("no method `signum` on the unsigned type `{}`", self.show(&rt)));
            return err_expr();
        }
        if signed && matches!(m, Method::IsPowerOfTwo | Method::IsMultipleOf) {
            self.err(mc.method.span(), format!("`{method}` exists for unsigned types only, not `{}`", self.show(&rt)));
            return err_expr();
        }
        let args: Vec<Expr> = mc.args.iter().map(|a| self.expr(a)).collect();
        let u32t = Ty::Int(IntTy::U32);
        let opt = Ty::Option(Box::new(rt.clone()));
        use Method as M;
        let (params, ret): (Vec<Ty>, Ty) = match m {
            M::WrappingAdd | M::WrappingSub | M::WrappingMul | M::SaturatingAdd | M::SaturatingSub | M::SaturatingMul
            | M::Min | M::Max | M::Powf => (vec![rt.clone()], rt.clone()),
            M::CheckedAdd | M::CheckedSub | M::CheckedMul | M::CheckedDiv | M::CheckedRem => (vec![rt.clone()], opt),
            M::CheckedNeg => (vec![], opt),
            M::CheckedShl | M::CheckedShr => (vec![u32t], opt),
            M::WrappingShl | M::WrappingShr | M::Pow | M::RotateLeft | M::RotateRight => (vec![u32t], rt.clone()),
            M::Powi => (vec![Ty::Int(IntTy::I32)], rt.clone()),
            M::MulAdd => (vec![rt.clone(), rt.clone()], rt.clone()),
            M::CountOnes | M::CountZeros | M::TrailingZeros | M::LeadingZeros => (vec![], u32t),
            M::IsPowerOfTwo | M::IsNan | M::IsFinite | M::IsInfinite | M::IsSignNegative | M::IsSignPositive => (vec![], Ty::Bool),
            M::Hypot | M::Atan2 | M::Copysign => (vec![rt.clone()], rt.clone()),
            M::IsMultipleOf => (vec![rt.clone()], Ty::Bool),
            M::AbsDiff => {
                let Ty::Int(t) = rt else { return err_expr() };
                let unsigned = match t {
                    IntTy::Isize | IntTy::Usize => IntTy::Usize,
                    _ => IntTy::from_name(t.unsigned_name()).unwrap_or(t),
                };
                (vec![rt.clone()], Ty::Int(unsigned))
            }
            M::ToBits => (vec![], Ty::Int(if rt == Ty::Float(FloatTy::F32) { IntTy::U32 } else { IntTy::U64 })),
            _ => (vec![], rt.clone()),
        };
        if params.len() != args.len() {
            self.err(span, format!("`{method}` takes {} argument(s) but {} were supplied", params.len(), args.len()));
            return err_expr();
        }
        for ((p, a), s) in params.iter().zip(&args).zip(mc.args.iter()) {
            self.expect_at(&s, p, &a.ty);
        }
        ex(ret, ExprKind::Method(m, Box::new(recv), args))
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> Expr {
        if let syn::Expr::Let(l) = peel(&i.cond) {
            return self.if_let(i, l);
        }
        let cond = self.expr(&i.cond);
        self.expect_at(&i.cond, &Ty::Bool, &cond.ty);
        let then = self.block(&i.then_branch);
        let Some((_, els)) = &i.else_branch else {
            let t = then.ty.clone();
            if !matches!(self.resolve(&t), Ty::Never) {
                self.expect_at(&i.then_branch, &Ty::Unit, &t);
            }
            return ex(Ty::Unit, ExprKind::If(Box::new(cond), then, None));
        };
        let e = self.expr(els);
        let ty = match (self.resolve(&then.ty), self.resolve(&e.ty)) {
            (Ty::Never, _) => e.ty.clone(),
            (_, Ty::Never) => then.ty.clone(),
            _ => {
                if self.sh.infer.unify(&then.ty, &e.ty).is_err() {
                    let msg = format!("`if` and `else` have incompatible types: `{}` and `{}`", self.show(&then.ty), self.show(&e.ty));
                    self.err_at(&els, msg);
                }
                then.ty.clone()
            }
        };
        ex(ty, ExprKind::If(Box::new(cond), then, Some(Box::new(e))))
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> Expr {
        if !iterators::is_range_loop(f) {
            return self.iter_for(f);
        }
        let name = match &*f.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.to_string(),
            syn::Pat::Wild(_) => "_".to_string(),
            other => {
                self.err_at(&other, "the loop variable must be a plain name");
                return err_expr();
            }
        };
        // `(range)`, `(range).rev()`, `(range).step_by(k)`, `(range).rev().step_by(k)`.
        let usage = "`for` loops iterate over integer ranges `a..b` / `a..=b`, optionally with `.rev()`, `.step_by(k)` or `.rev().step_by(k)`; other iterators are not supported (index arrays with `for i in 0..N`)";
        let mut it = peel(&f.expr);
        let mut step_src = None;
        let mut rev = false;
        if let syn::Expr::MethodCall(mc) = it {
            if mc.method == "step_by" && mc.args.len() == 1 {
                step_src = Some((&mc.args[0], mc.span()));
                it = peel(&mc.receiver);
            }
        }
        if let syn::Expr::MethodCall(mc) = it {
            if mc.method == "rev" && mc.args.is_empty() {
                rev = true;
                it = peel(&mc.receiver);
            }
        }
        let syn::Expr::Range(r) = it else {
            self.err_at(&f.expr, usage);
            return err_expr();
        };
        let (Some(a), Some(b)) = (&r.start, &r.end) else {
            self.err_at(&r, "`for` ranges need both bounds: `a..b` or `a..=b`");
            return err_expr();
        };
        let start = self.expr(a);
        let end = self.expr(b);
        self.expect_at(&b, &start.ty.clone(), &end.ty);
        let rt = self.resolve(&start.ty);
        if !(matches!(rt, Ty::Int(_) | Ty::Err) || self.sh.infer.var_kind(&rt) == Some(VarKind::Int)) {
            let msg = format!("`for` ranges must be over integers, found `{}`", self.show(&rt));
            self.err_at(&r, msg);
        }
        let step = match step_src {
            Some((k, span)) => {
                let kx = self.expr(k);
                self.expect_at(k, &Ty::Int(IntTy::Usize), &kx.ty);
                let site = self.text_site(span, "assertion failed: step != 0");
                Some((Box::new(kx), site))
            }
            None => None,
        };
        let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
        self.scopes.push(Vec::new());
        let var = self.new_local(&name, start.ty.clone());
        let id = self.enter_loop(&f.label, false);
        let body = self.block(&f.body);
        self.loops.pop();
        self.scopes.pop();
        self.expect_at(&f.body, &Ty::Unit, &body.ty.clone());
        ex(Ty::Unit, ExprKind::For { var, start: Box::new(start), end: Box::new(end), inclusive, rev, step, body, id })
    }

    fn enter_loop(&mut self, label: &Option<syn::Label>, is_loop: bool) -> LoopId {
        let id = self.loop_labels.len();
        self.loop_labels.push(label.is_some());
        let label = label.as_ref().map(|l| l.name.ident.to_string());
        self.loops.push(LoopCx { label, id, cont: id, is_loop, broke: false, value: None });
        id
    }

    /// The index in `self.loops` of the loop a `break`/`continue` leaves.
    fn find_loop(&mut self, label: Option<&syn::Lifetime>, at: &syn::Expr, what: &str) -> Option<usize> {
        match label {
            None => {
                if self.loops.is_empty() {
                    self.err_at(at, format!("`{what}` outside of a loop"));
                    return None;
                }
                Some(self.loops.len() - 1)
            }
            Some(l) => {
                let name = l.ident.to_string();
                let found = self.loops.iter().rposition(|c| c.label.as_deref() == Some(name.as_str()));
                if found.is_none() {
                    self.err_at(l, format!("use of undeclared label `'{name}` (labels name enclosing `loop`, `while` and `for` loops)"));
                }
                found
            }
        }
    }

    /// Joins the type of one more branch into `acc` (`!` branches don't count).
    fn join_branch(&mut self, acc: &mut Ty, t: &Ty, at: &dyn quote::ToTokens, what: &str) {
        if matches!(self.resolve(t), Ty::Never) {
            return;
        }
        if matches!(self.resolve(acc), Ty::Never) {
            *acc = t.clone();
            return;
        }
        if self.sh.infer.unify(acc, t).is_err() {
            let msg = format!("{what} have incompatible types: `{}` and `{}`", self.show(acc), self.show(t));
            self.errors.push(syn::Error::new_spanned(at, msg));
        }
    }

    fn match_expr(&mut self, m: &syn::ExprMatch) -> Expr {
        let scrut = self.expr(&m.expr);
        let sty = scrut.ty.clone();
        let mut ty = Ty::Never;
        let mut arms = Vec::new();
        for arm in &m.arms {
            self.scopes.push(Vec::new());
            let pat = self.pattern(&arm.pat, &sty);
            let guard = arm.guard.as_ref().map(|(_, g)| {
                let gx = self.expr(g);
                self.expect_at(g, &Ty::Bool, &gx.ty);
                gx
            });
            let body = self.expr(&arm.body);
            self.scopes.pop();
            let bt = body.ty.clone();
            self.join_branch(&mut ty, &bt, &arm.body, "`match` arms");
            arms.push(Arm { pat, guard, body });
        }
        ex(ty, ExprKind::Match(Box::new(scrut), arms))
    }

    /// `while let PAT = value { body }` is `loop { match value { PAT => body, _ => break } }`.
    fn while_let(&mut self, w: &syn::ExprWhile, l: &syn::ExprLet) -> Expr {
        let id = self.enter_loop(&w.label, false);
        let scrut = self.expr(&l.expr);
        self.scopes.push(Vec::new());
        let pat = self.pattern(&l.pat, &scrut.ty.clone());
        let body = self.block(&w.body);
        self.scopes.pop();
        self.loops.pop();
        self.expect_at(&w.body, &Ty::Unit, &body.ty.clone());
        let body = ex(Ty::Unit, ExprKind::Block(body));
        let stop = ex(Ty::Never, ExprKind::Break(id, None));
        let arms = vec![Arm { pat, guard: None, body }, Arm { pat: Pat::Wild, guard: None, body: stop }];
        let (line, file) = loc(w.span());
        let step = Stmt { line, file, kind: StmtKind::Expr(ex(Ty::Unit, ExprKind::Match(Box::new(scrut), arms))) };
        let block = Block { stmts: vec![step], tail: None, ty: Ty::Unit };
        ex(Ty::Unit, ExprKind::Loop(block, id))
    }

    /// `if let PAT = value { a } else { b }` is `match value { PAT => a, _ => b }`.
    fn if_let(&mut self, i: &syn::ExprIf, l: &syn::ExprLet) -> Expr {
        let scrut = self.expr(&l.expr);
        self.scopes.push(Vec::new());
        let pat = self.pattern(&l.pat, &scrut.ty.clone());
        let then = self.block(&i.then_branch);
        self.scopes.pop();
        let then = ex(then.ty.clone(), ExprKind::Block(then));
        let els = match &i.else_branch {
            Some((_, e)) => self.expr(e),
            None => {
                let t = then.ty.clone();
                if !matches!(self.resolve(&t), Ty::Never) {
                    self.expect_at(&i.then_branch, &Ty::Unit, &t);
                }
                ex(Ty::Unit, ExprKind::Unit)
            }
        };
        let mut ty = Ty::Never;
        self.join_branch(&mut ty, &then.ty.clone(), &i.then_branch, "`if let` and `else`");
        let et = els.ty.clone();
        match &i.else_branch {
            Some((_, e)) => self.join_branch(&mut ty, &et, e, "`if let` and `else`"),
            None => ty = Ty::Unit,
        }
        let arms = vec![Arm { pat, guard: None, body: then }, Arm { pat: Pat::Wild, guard: None, body: els }];
        ex(ty, ExprKind::Match(Box::new(scrut), arms))
    }

    fn pat_mismatch(&mut self, at: &dyn quote::ToTokens, ty: &Ty, found: &str) -> Pat {
        if !matches!(self.resolve(ty), Ty::Err) {
            let msg = format!("mismatched types: this pattern matches `{found}`, but the value has type `{}`", self.show(ty));
            self.errors.push(syn::Error::new_spanned(at, msg));
        }
        Pat::Wild
    }

    fn pattern(&mut self, p: &syn::Pat, ty: &Ty) -> Pat {
        crate::depth::with_room(|| self.typed_pattern(p, ty))
    }

    fn typed_pattern(&mut self, p: &syn::Pat, ty: &Ty) -> Pat {
        use syn::Pat as P;
        if let Some(pat) = self.enum_pattern(p, ty) {
            return pat;
        }
        if let syn::Pat::TupleStruct(ts) = p {
            if let Some(pat) = self.result_pattern(ts, ty) {
                return pat;
            }
        }
        let rt = self.resolve(ty);
        match p {
            P::Wild(_) => Pat::Wild,
            P::Paren(pp) => self.pattern(&pp.pat, ty),
            P::Or(o) => {
                let n = self.locals.len();
                let alts = o.cases.iter().map(|c| self.pattern(c, ty)).collect();
                if self.locals.len() != n {
                    self.err_at(&o, "bindings inside `|` patterns are not supported yet; bind the whole value with a name arm instead");
                }
                Pat::Or(alts)
            }
            P::Lit(l) if matches!(l.lit, syn::Lit::Bool(_)) => {
                let syn::Lit::Bool(b) = &l.lit else { unreachable!() };
                if self.sh.infer.unify(ty, &Ty::Bool).is_err() {
                    return self.pat_mismatch(l, ty, "bool");
                }
                Pat::Bool(b.value)
            }
            P::Lit(_) | P::Path(_) if self.pat_enum_or_none(p, ty).is_some() => self.pat_enum_or_none(p, ty).unwrap(),
            P::Lit(_) | P::Path(_) => {
                let e: syn::Expr = match p {
                    P::Lit(l) => syn::Expr::Lit(l.clone()),
                    P::Path(pp) => syn::Expr::Path(pp.clone()),
                    _ => unreachable!(),
                };
                match self.pat_int(&e, ty) {
                    Some(v) => Pat::Range(v, v),
                    None => Pat::Wild,
                }
            }
            P::Range(r) => {
                let int = match rt {
                    Ty::Int(t) => Some(t),
                    _ => None,
                };
                let lo = match &r.start {
                    Some(e) => self.pat_int(e, ty),
                    None => int.map(|t| t.min()),
                };
                let hi = match &r.end {
                    Some(e) => self.pat_int(e, ty).map(|v| if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) { v - 1 } else { v }),
                    None => int.map(|t| t.max()),
                };
                match (lo, hi) {
                    (Some(lo), Some(hi)) => Pat::Range(lo, hi),
                    _ => {
                        if r.start.is_none() || r.end.is_none() {
                            self.err_at(&r, "open range patterns need a known integer type; write both bounds");
                        }
                        Pat::Wild
                    }
                }
            }
            P::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let name = pi.ident.to_string();
                if name == "None" {
                    return match rt {
                        Ty::Option(_) => Pat::None,
                        _ => self.pat_mismatch(pi, ty, "Option<_>"),
                    };
                }
                if let Some(f) = self.m.func(&name).filter(|f| f.kind == FnKind::Const) {
                    let e: syn::Expr = syn::parse_quote!(#pi);
                    let _ = f;
                    return match self.pat_int(&e, ty) {
                        Some(v) => Pat::Range(v, v),
                        None => Pat::Wild,
                    };
                }
                Pat::Bind(self.new_local(&name, ty.clone()))
            }
            P::TupleStruct(ts) if ts.path.is_ident("Some") && ts.elems.len() == 1 => match rt {
                Ty::Option(inner) => Pat::Some(Box::new(self.pattern(&ts.elems[0], &inner))),
                _ => self.pat_mismatch(ts, ty, "Option<_>"),
            },
            P::Tuple(t) => match rt {
                Ty::Tuple(ts) if ts.len() == t.elems.len() => {
                    Pat::Tuple(t.elems.iter().zip(ts.iter()).map(|(p, et)| self.pattern(p, et)).collect())
                }
                _ => self.pat_mismatch(t, ty, &format!("a tuple of {}", t.elems.len())),
            },
            other => {
                self.err_at(other, "this pattern is not supported; use integer or bool literals, ranges `a..=b`, `_`, names, `|`, enum variants `E::V`, `Some(x)` / `None` and tuples");
                Pat::Wild
            }
        }
    }

    /// `Enum::Variant`, `Ordering::Less` or `None` as a pattern.
    fn pat_enum_or_none(&mut self, p: &syn::Pat, ty: &Ty) -> Option<Pat> {
        let syn::Pat::Path(pp) = p else { return None };
        if let Some(pat) = self.ordering_pattern(pp, ty) {
            return Some(pat);
        }
        let segs: Vec<String> = pp.path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() == 1 && segs[0] == "None" {
            return Some(match self.resolve(ty) {
                Ty::Option(_) => Pat::None,
                _ => self.pat_mismatch(pp, ty, "Option<_>"),
            });
        }
        if segs.len() != 2 {
            return None;
        }
        let en = self.m.enum_def(&segs[0])?;
        let d = en.variant(&segs[1]).map(|v| v.disc);
        let Some(d) = d else {
            self.err_at(pp, format!("no variant `{}` in enum `{}`", segs[1], segs[0]));
            return Some(Pat::Wild);
        };
        if self.sh.infer.unify(ty, &Ty::Enum(segs[0].clone())).is_err() {
            return Some(self.pat_mismatch(pp, ty, &segs[0]));
        }
        Some(Pat::Variant(d))
    }

    /// The value of an integer pattern bound (literal, `T::MIN`/`T::MAX`, integer const).
    fn pat_int(&mut self, e: &syn::Expr, ty: &Ty) -> Option<i128> {
        let (v, t) = match peel(e) {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(l), .. }) => {
                let v = match l.base10_parse::<i128>() {
                    Ok(v) => v,
                    Err(err) => {
                        self.errors.push(err);
                        return None;
                    }
                };
                let t = match l.suffix() {
                    "" => self.sh.infer.fresh(VarKind::Int),
                    s => match IntTy::from_name(s) {
                        Some(t) => Ty::Int(t),
                        None => {
                            self.err_at(l, format!("unsupported literal suffix `{s}`"));
                            return None;
                        }
                    },
                };
                (v, t)
            }
            syn::Expr::Path(p) => {
                let x = self.path(p);
                let ExprKind::Int(bits) = x.kind else {
                    self.err_at(p, "range and literal patterns take integer literals, `T::MIN`/`T::MAX` or integer consts of this module");
                    return None;
                };
                let v = match self.resolve(&x.ty) {
                    Ty::Int(t) if t.signed() => {
                        let sh = 128 - t.bits();
                        ((bits as i128) << sh) >> sh
                    }
                    _ => bits as i128,
                };
                (v, x.ty)
            }
            syn::Expr::Call(_) | syn::Expr::MethodCall(_) | syn::Expr::Const(_) | _ => {
                self.err_at(e, "range and literal patterns take integer literals, `T::MIN`/`T::MAX` or integer consts of this module");
                return None;
            }
        };
        if self.sh.infer.unify(ty, &t).is_err() {
            let found = self.show(&t);
            self.pat_mismatch(e, ty, &found);
            return None;
        }
        if let Ty::Int(it) = self.resolve(ty) {
            if v < it.min() || v > it.max() {
                self.err_at(e, format!("literal out of range for `{}` (its range is {}..={})", it.name(), it.min(), it.max()));
                return None;
            }
        }
        Some(v)
    }
}


fn ty_of_local(locals: &[Local], id: LocalId) -> Ty {
    locals[id].ty.clone()
}

/// Whether the standard library implements `From<src>` for `dst` (numbers and `bool`): every
/// conversion that keeps every value, except into and out of the pointer-sized integers,
/// which it offers only from the narrowest types.
fn lossless(src: &Ty, dst: &Ty) -> bool {
    match (src, dst) {
        _ if src == dst => true,
        (Ty::Bool, Ty::Int(_)) => true,
        (Ty::Int(s), Ty::Int(d)) => match (*s, *d) {
            (IntTy::Usize | IntTy::Isize, _) => false,
            (s, IntTy::Usize) => matches!(s, IntTy::U8 | IntTy::U16),
            (s, IntTy::Isize) => matches!(s, IntTy::U8 | IntTy::I8 | IntTy::I16),
            (s, d) => s.bits() < d.bits() && (s.signed() == d.signed() || d.signed()),
        },
        // Every value of the integer fits the float's mantissa.
        (Ty::Int(s), Ty::Float(f)) => !matches!(s, IntTy::Usize | IntTy::Isize) && s.bits() <= if *f == FloatTy::F64 { 32 } else { 16 },
        (Ty::Float(FloatTy::F32), Ty::Float(FloatTy::F64)) => true,
        _ => false,
    }
}

/// `std::cmp::max(a, b)` and `min`, `std::mem::swap(x, y)` and `replace(x, v)` (also through
/// `core::` or a `use`d `cmp::`/`mem::`), and a number's method called through its type
/// (`u32::max(a, b)`), as the code they stand for: `a.max(b)`, or a block that evaluates each
/// argument once, in Rust's order. None for any other call.
fn std_call(c: &syn::ExprCall) -> Option<syn::Expr> {
    let syn::Expr::Path(p) = peel(&c.func) else { return None };
    if p.qself.is_some() || p.path.segments.iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
    let (module, name) = match segs.as_slice() {
        [root, m, f] if root == "std" || root == "core" => (m.as_str(), f.as_str()),
        [m, f] => (m.as_str(), f.as_str()),
        _ => return None,
    };
    let args: Vec<&syn::Expr> = c.args.iter().collect();
    if let (Some(ty), [receiver, rest @ ..]) = (number_method_path(module, name), args.as_slice()) {
        // `u32::max(a, b)`: the method called on its first argument, which rustc has already
        // checked is a `u32` (the CPU backend compiles this code as written); the cast gives
        // an unsuffixed literal its type.
        let method = syn::Ident::new(name, p.path.segments.last()?.ident.span());
        return Some(syn::parse_quote_spanned!(c.span()=> ((#receiver) as #ty).#method(#(#rest),*)));
    }
    match (module, name, args.as_slice()) {
        ("cmp", "max" | "min", [a, b]) => {
            let method = syn::Ident::new(name, p.path.segments.last()?.ident.span());
            Some(syn::parse_quote_spanned!(c.span()=> (#a).#method(#b)))
        }
        ("mem", "swap", [x, y]) => Some(syn::parse_quote_spanned!(c.span()=> {
            let wsdsl_swap_x = #x;
            let wsdsl_swap_y = #y;
            let wsdsl_swap_t = *wsdsl_swap_x;
            *wsdsl_swap_x = *wsdsl_swap_y;
            *wsdsl_swap_y = wsdsl_swap_t;
        })),
        ("mem", "replace", [x, v]) => Some(syn::parse_quote_spanned!(c.span()=> {
            let wsdsl_replace_x = #x;
            let wsdsl_replace_v = #v;
            let wsdsl_replace_old = *wsdsl_replace_x;
            *wsdsl_replace_x = wsdsl_replace_v;
            wsdsl_replace_old
        })),
        _ => None,
    }
}

/// `u32::max` and the like: the number type whose method `ty::name` names, as a type.
fn number_method_path(ty: &str, name: &str) -> Option<syn::Type> {
    let (table, float) = match crate::types::numeric_ty(ty)? {
        Ty::Int(_) => (INT_METHODS, false),
        _ => (FLOAT_METHODS, true),
    };
    let method = table.iter().any(|(n, _)| *n == name) || numeric::has(name, float);
    method.then(|| syn::parse_str(ty).ok()).flatten()
}

/// `std::f64::consts::PI` (also `core::`, or `f64::consts::PI`): Rust's constant of that type.
fn float_const(segs: &[String]) -> Option<Expr> {
    let (ty, name) = match segs {
        [root, t, c, name] if (root == "std" || root == "core") && c == "consts" => (t.as_str(), name.as_str()),
        [t, c, name] if c == "consts" => (t.as_str(), name.as_str()),
        _ => return None,
    };
    use std::{f32::consts as k32, f64::consts as k64};
    // Both of Rust's values, each rounded from the decimal as Rust rounds it.
    let (wide, narrow) = match name {
        "PI" => (k64::PI, k32::PI),
        "TAU" => (k64::TAU, k32::TAU),
        "E" => (k64::E, k32::E),
        "SQRT_2" => (k64::SQRT_2, k32::SQRT_2),
        "LN_2" => (k64::LN_2, k32::LN_2),
        "LN_10" => (k64::LN_10, k32::LN_10),
        "LOG2_E" => (k64::LOG2_E, k32::LOG2_E),
        "LOG10_E" => (k64::LOG10_E, k32::LOG10_E),
        "LOG2_10" => (k64::LOG2_10, k32::LOG2_10),
        "LOG10_2" => (k64::LOG10_2, k32::LOG10_2),
        "FRAC_PI_2" => (k64::FRAC_PI_2, k32::FRAC_PI_2),
        "FRAC_PI_3" => (k64::FRAC_PI_3, k32::FRAC_PI_3),
        "FRAC_PI_4" => (k64::FRAC_PI_4, k32::FRAC_PI_4),
        "FRAC_PI_6" => (k64::FRAC_PI_6, k32::FRAC_PI_6),
        "FRAC_PI_8" => (k64::FRAC_PI_8, k32::FRAC_PI_8),
        "FRAC_1_PI" => (k64::FRAC_1_PI, k32::FRAC_1_PI),
        "FRAC_2_PI" => (k64::FRAC_2_PI, k32::FRAC_2_PI),
        "FRAC_2_SQRT_PI" => (k64::FRAC_2_SQRT_PI, k32::FRAC_2_SQRT_PI),
        "FRAC_1_SQRT_2" => (k64::FRAC_1_SQRT_2, k32::FRAC_1_SQRT_2),
        _ => return None,
    };
    let (ft, v) = match ty {
        "f32" => (FloatTy::F32, narrow as f64),
        "f64" => (FloatTy::F64, wide),
        _ => return None,
    };
    Some(ex(Ty::Float(ft), ExprKind::Float(FloatLit::Value(v))))
}
