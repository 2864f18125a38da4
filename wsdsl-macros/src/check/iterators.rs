//! Iterators over ranges and fixed-size arrays, lowered to counted loops.
//!
//! A chain `source.adaptor(..)...` ends in a `for` loop or a consumer (`sum()`, `max()`,
//! `any(..)`, ...) where it is written; it never exists as a value. The source is the
//! loop (`ExprKind::For` over the range, or over the indices `0..N` of the array, so literal
//! bounds still unroll on the GPU); each adaptor is a stage of the loop body, in chain
//! order, that transforms the element, skips it (`continue`) or ends the loop (`break`);
//! the consumer's accumulator lives before the loop and its value is the block's
//! (`iterators/adaptors.rs`, `iterators/consumers.rs`). `flat_map` and `flatten` open a loop
//! inside the loop, and the stages after them go into the innermost one; `chain` turns the
//! loop into one over both sides' positions (`iterators/chain.rs`).
//!
//! Pulling in Rust and these stages agree on what runs: `take(n)` tests its count before
//! the source advances (the test is hoisted to the top of every loop's body), so closures
//! before it run exactly as often as in Rust; `skip`, `step_by` and `filter` still run the
//! stages before them on the elements they drop, as Rust's `nth` does. `rev()` reverses the
//! loop: right after the source, or after adaptors that treat each element alone (`map`,
//! `filter`, `filter_map`, `inspect`, `copied`, `cloned`, `chain`, and `enumerate`, which
//! then numbers the elements by their position in the source, as Rust's does); after an
//! adaptor that counts or stops (`take`, `skip`, `step_by`, `zip`, ...) it would need the
//! length of what that adaptor yields, and is refused with the rewrite.
//!
//! Elements are not copied: an array element is the place `a[i]` at the loop's index (so
//! `iter_mut()` writes through `*x = ..`), references (`&x`, `*x`) are the values themselves.

use super::build::{bin, lit, usize_ty};
use super::closures::Elem;
use super::*;

mod adaptors;
mod chain;
mod consumers;

const ADAPTORS: &[&str] = &[
    "map", "filter", "filter_map", "take", "take_while", "skip", "skip_while", "rev", "enumerate", "zip", "chain", "step_by", "flat_map",
    "flatten", "inspect", "copied", "cloned",
];
const CONSUMERS: &[&str] = &[
    "sum", "product", "count", "last", "min", "max", "min_by", "max_by", "min_by_key", "max_by_key", "any", "all", "position", "find",
    "fold", "for_each",
];

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Ref,
    Mut,
    Value,
}

enum Source<'s> {
    Range(&'s syn::ExprRange),
    /// An array or a slice (a complete handler's `children`, a chunk).
    Array(&'s syn::Expr, Mode),
    /// `a.chunks(k)`: slices of `k` elements, the last one shorter.
    Chunks(&'s syn::Expr, &'s syn::Expr, Span),
}

fn source(e: &syn::Expr) -> Option<Source<'_>> {
    match peel(e) {
        syn::Expr::Range(r) => Some(Source::Range(r)),
        syn::Expr::MethodCall(mc) if mc.args.is_empty() => match mc.method.to_string().as_str() {
            "iter" => Some(Source::Array(&mc.receiver, Mode::Ref)),
            "iter_mut" => Some(Source::Array(&mc.receiver, Mode::Mut)),
            "into_iter" => source(&mc.receiver).or(Some(Source::Array(&mc.receiver, Mode::Value))),
            _ => None,
        },
        syn::Expr::MethodCall(mc) if mc.method == "chunks" && mc.args.len() == 1 => Some(Source::Chunks(&mc.receiver, &mc.args[0], mc.span())),
        syn::Expr::Reference(r) => Some(Source::Array(&r.expr, if r.mutability.is_some() { Mode::Mut } else { Mode::Ref })),
        _ => None,
    }
}

/// `source.adaptor(..)..`: the source and the adaptors' calls, in order.
fn parse_chain(e: &syn::Expr) -> Option<(Source<'_>, Vec<&syn::ExprMethodCall>)> {
    if let Some(s) = source(e) {
        return Some((s, Vec::new()));
    }
    let syn::Expr::MethodCall(mc) = peel(e) else { return None };
    if !ADAPTORS.contains(&mc.method.to_string().as_str()) {
        return None;
    }
    let (s, mut stages) = parse_chain(&mc.receiver)?;
    stages.push(mc);
    Some((s, stages))
}

/// Whether the range loop of `for_loop` (`control.rs`) handles `f` (a name over `a..b`, `..=`,
/// with `.rev()`, `.step_by(k)`, `.rev().step_by(k)`); everything else comes here.
pub(super) fn is_range_loop(f: &syn::ExprForLoop) -> bool {
    let simple = matches!(&*f.pat, syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none()) || matches!(&*f.pat, syn::Pat::Wild(_));
    match parse_chain(&f.expr) {
        Some((Source::Range(_), stages)) if simple => {
            let names: Vec<String> = stages.iter().map(|m| m.method.to_string()).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            matches!(names.as_slice(), [] | ["rev"] | ["step_by"] | ["rev", "step_by"])
        }
        _ => false,
    }
}

const UNCONSUMED: &str = "an iterator must be consumed where it is made, by a `for` loop or a consumer (`sum`, `product`, `count`, `last`, `min`, `max`, `min_by`, `max_by`, `min_by_key`, `max_by_key`, `any`, `all`, `position`, `find`, `fold`, `for_each`); storing an iterator in a local, passing or returning it is not supported (write the whole chain where it is used)";

/// What the source of a chain is, for the adaptors that depend on it.
#[derive(Clone, Copy, PartialEq)]
enum SourceKind {
    Range,
    Array,
    Chunks,
    /// Two sides joined by `chain` (the loop runs over both sides' positions).
    Chain,
}

/// A loop of a chain: the source's, or one that `flat_map`/`flatten` opened inside it.
struct Level {
    var: LocalId,
    start: Expr,
    end: Expr,
    inclusive: bool,
    rev: bool,
    step: Option<(Box<Expr>, u32)>,
    id: LoopId,
    /// First in the loop body: `take`'s limits.
    top: Vec<Stmt>,
    /// The stages, then the consumer (or the loop opened inside this one).
    body: Vec<Stmt>,
}

/// The loop a chain becomes, before its consumer is added.
struct Pipeline {
    /// Before the loop: the array copy, the adaptors' arguments and counters.
    pre: Vec<Stmt>,
    /// The source's loop; `break` leaves it (and every loop inside it).
    outer: Level,
    /// The loops of `flat_map` and `flatten`, innermost last: later stages go into the
    /// innermost, and `continue` takes its next element.
    nested: Vec<Level>,
    elem: Elem,
    kind: SourceKind,
    /// Whether the elements are written through (`iter_mut()`).
    mutable: bool,
    /// Whether what the stages yield so far is, in Rust, a "trusted random access"
    /// iterator (a half-open range or an array, then only `map`, `enumerate`, `zip`,
    /// `copied`): `zip` on such an iterator takes the shorter length first and never pulls
    /// the element that finds the other side exhausted, so its test moves to the top.
    random_access: bool,
    /// The first adaptor that counts, stops or opens a loop: a later `rev()` would change
    /// what it does.
    stateful: Option<String>,
    /// The first adaptor that may end the loop before the source does (`take`, `zip`,
    /// `take_while`): `chain` cannot follow it.
    ends_early: Option<String>,
}

impl Pipeline {
    /// The innermost loop, where the next stage goes.
    fn level(&mut self) -> &mut Level {
        self.nested.last_mut().unwrap_or(&mut self.outer)
    }

    /// The body of the innermost loop.
    fn body(&mut self) -> &mut Vec<Stmt> {
        &mut self.level().body
    }

    /// The loop `continue` goes on with: the innermost.
    fn cont(&self) -> LoopId {
        self.nested.last().map_or(self.outer.id, |l| l.id)
    }

    /// Pushes `test` to the top of every loop, so that it runs before any source advances.
    fn at_every_top(&mut self, test: Stmt) {
        for l in &mut self.nested {
            l.top.push(test.clone());
        }
        self.outer.top.push(test);
    }
}

/// Whether `e` names a place that stays the same while a loop over it runs (no index that
/// the body could change): the array is read in place instead of copied.
fn stable_place(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(_) | ExprKind::Param(_) => true,
        ExprKind::Field(b, _) | ExprKind::TupleField(b, _) | ExprKind::Deref(b) => stable_place(b),
        _ => false,
    }
}

impl Cx<'_> {
    /// A `usize` argument of an adaptor, evaluated once before the loop into a hidden local.
    fn usize_arg(&mut self, a: &syn::Expr, name: &str, pre: &mut Vec<Stmt>) -> LocalId {
        let x = self.expr(a);
        self.expect_at(a, &usize_ty(), &x.ty);
        let id = self.hidden(name, usize_ty());
        pre.push(self.stmt_at(a.span(), StmtKind::Let(id, Some(x))));
        id
    }

    fn counter(&mut self, name: &str, span: Span, pre: &mut Vec<Stmt>) -> LocalId {
        let id = self.hidden(name, usize_ty());
        pre.push(self.stmt_at(span, StmtKind::Let(id, Some(lit(0, usize_ty())))));
        id
    }

    /// The array (or slice) of an array source: the place itself, or a copy (a temporary,
    /// or `for x in a` by value, which iterates over the value `a` had), and its length.
    fn array_source(&mut self, e: &syn::Expr, mode: Mode, pre: &mut Vec<Stmt>) -> Option<(Expr, Expr)> {
        let x = self.receiver(e);
        // Through a reference (`a: &[u32; 4]`, `r.iter()`): the array it points to, the
        // reference taken once, as Rust's iterator holds it.
        let x = if matches!(self.resolve(&x.ty), Ty::Ref(..)) {
            let id = self.hidden("ref", x.ty.clone());
            pre.push(self.stmt_at(e.span(), StmtKind::Let(id, Some(x))));
            let r = self.local_expr(id);
            self.auto_deref(r)
        } else {
            x
        };
        match self.resolve(&x.ty) {
            Ty::Array(..) if mode == Mode::Mut && !super::options::is_place(&x) => {
                self.err_at(e, "can only assign to local variables, their fields and array elements, and through references (`*r = v`, `r.f = v`)");
                return None;
            }
            Ty::Array(..) => {}
            Ty::Err => return None,
            Ty::Slice(_, false) if mode == Mode::Mut => {
                self.err_at(e, "this slice is read-only (a `&[T]`: the children's values, a chunk, a borrowed slice); take a `&mut [T]` or copy the elements into an array to change them");
                return None;
            }
            Ty::Slice(..) => {}
            t => {
                let msg = format!("iterators go over integer ranges `a..b` and fixed-size arrays (`a.iter()`, `a.iter_mut()`, `&a`, `a`); this is `{}`", self.show(&t));
                self.err_at(e, msg);
                return None;
            }
        }
        // A slice is copied by value too, but that copies its pointer and length only.
        let base = if (mode != Mode::Value || matches!(self.resolve(&x.ty), Ty::Slice(..))) && stable_place(&x) {
            x
        } else {
            let ty = x.ty.clone();
            let id = self.hidden("arr", ty);
            pre.push(self.stmt_at(e.span(), StmtKind::Let(id, Some(x))));
            self.local_expr(id)
        };
        let len = match self.resolve(&base.ty) {
            Ty::Array(_, n) => lit(n as u128, usize_ty()),
            _ => ex(usize_ty(), ExprKind::SliceLen(Box::new(base.clone()))),
        };
        Some((base, len))
    }

    /// Element `idx` of an array or slice source (always in bounds: the site never fires).
    fn element(&self, base: &Expr, idx: Expr, site: u32) -> Expr {
        match self.resolve(&base.ty) {
            Ty::Array(et, n) => ex(*et, ExprKind::Index(Box::new(base.clone()), Box::new(idx), n, site)),
            Ty::Slice(et, _) => ex(*et, ExprKind::SliceIndex(Box::new(base.clone()), Box::new(idx), site)),
            _ => err_expr(),
        }
    }

    fn range_bounds(&mut self, r: &syn::ExprRange) -> Option<(Expr, Expr)> {
        let (Some(a), Some(b)) = (&r.start, &r.end) else {
            self.err_at(r, "ranges need both bounds: `a..b` or `a..=b`");
            return None;
        };
        let start = self.expr(a);
        let end = self.expr(b);
        self.expect_at(b, &start.ty.clone(), &end.ty);
        let rt = self.resolve(&start.ty);
        if !(matches!(rt, Ty::Int(_) | Ty::Err) || self.sh.infer.var_kind(&rt) == Some(VarKind::Int)) {
            let msg = format!("ranges must be over integers, found `{}`", self.show(&rt));
            self.err_at(r, msg);
        }
        Some((start, end))
    }

    /// The loop of `src` and `stages` (`id`: its loop id), its element, ready for a consumer.
    fn pipeline(&mut self, src: Source, stages: &[&syn::ExprMethodCall], id: LoopId) -> Option<Pipeline> {
        let mut pre = Vec::new();
        // `chunks(k)` strides over the chunk starts.
        let mut step_by = None;
        let random_access = match &src {
            Source::Range(r) => matches!(r.limits, syn::RangeLimits::HalfOpen(_)),
            Source::Array(..) => true,
            Source::Chunks(..) => false,
        };
        let mutable = matches!(src, Source::Array(_, Mode::Mut));
        let (var, start, end, inclusive, elem, kind) = match src {
            Source::Range(r) => {
                let (start, end) = self.range_bounds(r)?;
                let var = self.hidden("it", start.ty.clone());
                let elem = Elem::Val(self.local_expr(var), true);
                (var, start, end, matches!(r.limits, syn::RangeLimits::Closed(_)), elem, SourceKind::Range)
            }
            Source::Array(e, mode) => {
                let (arr, len) = self.array_source(e, mode, &mut pre)?;
                let var = self.hidden("i", usize_ty());
                let site = self.index_site(e.span());
                let at = self.element(&arr, self.local_expr(var), site);
                (var, lit(0, usize_ty()), len, false, Elem::Val(at, true), SourceKind::Array)
            }
            Source::Chunks(e, k, span) => {
                let (arr, len) = self.array_source(e, Mode::Ref, &mut pre)?;
                let k = self.usize_arg(k, "chunk", &mut pre);
                // Rust asserts the size when `chunks` is called.
                let site = self.text_site(span, "chunk size must be non-zero");
                self.panics = true;
                let panic = self.expr_stmt(span, ex(Ty::Never, ExprKind::Panic(site, Vec::new())));
                pre.push(self.when(span, bin(BinOp::Eq, self.local_expr(k), lit(0, usize_ty())), vec![panic]));
                let var = self.hidden("start", usize_ty());
                let et = match self.resolve(&arr.ty) {
                    Ty::Array(t, _) | Ty::Slice(t, _) => *t,
                    _ => return None,
                };
                let rest = bin(BinOp::Sub, len.clone(), self.local_expr(var));
                let n = ex(usize_ty(), ExprKind::Method(Method::Min, Box::new(rest), vec![self.local_expr(k)]));
                let chunk = ex(Ty::Slice(Box::new(et), false), ExprKind::SliceOf(Box::new(arr), Box::new(self.local_expr(var)), Box::new(n)));
                step_by = Some((Box::new(self.local_expr(k)), site));
                (var, lit(0, usize_ty()), len, false, Elem::Val(chunk, true), SourceKind::Chunks)
            }
        };
        let outer = Level { var, start, end, inclusive, rev: false, step: step_by, id, top: Vec::new(), body: Vec::new() };
        let mut p = Pipeline { pre, outer, nested: Vec::new(), elem, kind, mutable, random_access, stateful: None, ends_early: None };
        let mut rest = stages;
        if let [first, more @ ..] = rest {
            if first.method == "rev" && first.args.is_empty() && p.outer.step.is_none() {
                p.outer.rev = true;
                p.random_access = false;
                rest = more;
            }
        }
        if let [first, more @ ..] = rest {
            if first.method == "step_by" && first.args.len() == 1 && p.outer.step.is_none() {
                let k = self.expr(&first.args[0]);
                self.expect_at(&first.args[0], &usize_ty(), &k.ty);
                let site = self.text_site(first.span(), "assertion failed: step != 0");
                p.outer.step = Some((Box::new(k), site));
                p.random_access = false;
                rest = more;
            }
        }
        for (i, mc) in rest.iter().enumerate() {
            // Whether the loop will run the other way than it does at this stage.
            let flipped_later = rest[i + 1..].iter().filter(|m| m.method == "rev" && m.args.is_empty()).count() % 2 == 1;
            self.stage(mc, &mut p, flipped_later);
        }
        Some(p)
    }

    /// The `for` loop of `level`, whose body is `stmts`.
    fn level_loop(&self, level: Level, span: Span) -> Stmt {
        let mut stmts = level.top;
        stmts.extend(level.body);
        let body = Block { stmts, tail: None, ty: Ty::Unit };
        let f = ExprKind::For {
            var: level.var,
            start: Box::new(level.start),
            end: Box::new(level.end),
            inclusive: level.inclusive,
            rev: level.rev,
            step: level.step,
            body,
            id: level.id,
        };
        self.expr_stmt(span, ex(Ty::Unit, f))
    }

    /// The loops, then `tail`: the whole chain's value.
    fn close(&mut self, mut p: Pipeline, span: Span, tail: Option<Expr>, ty: Ty) -> Expr {
        // Each loop opened inside another ends its parent's body; `break` and `continue` of
        // an outer loop from an inner one are `goto`s to its labels.
        while let Some(inner) = p.nested.pop() {
            let parent = p.nested.last().map_or(p.outer.id, |l| l.id);
            self.loop_labels[parent] = true;
            let stmt = self.level_loop(inner, span);
            p.body().push(stmt);
        }
        let mut pre = p.pre;
        pre.push(self.level_loop(p.outer, span));
        ex(ty.clone(), ExprKind::Block(Block { stmts: pre, tail: tail.map(Box::new), ty }))
    }

    /// `for PAT in chain { body }` for every chain but a plain range.
    pub(super) fn iter_for(&mut self, f: &syn::ExprForLoop) -> Expr {
        let (src, stages) = parse_chain(&f.expr).unwrap_or((Source::Array(&f.expr, Mode::Value), Vec::new()));
        let id = self.enter_loop(&f.label, false);
        let Some(mut p) = self.pipeline(src, &stages, id) else {
            self.loops.pop();
            return err_expr();
        };
        self.scopes.push(Vec::new());
        let elem = p.elem.clone();
        let mut bind = Vec::new();
        self.bind_elem(&f.pat, elem, &mut bind);
        p.body().extend(bind);
        // `continue` in the body takes the next element: the innermost loop's (labelled, in
        // case a loop in the body continues it).
        let cont = p.cont();
        if cont != p.outer.id {
            self.loop_labels[cont] = true;
            if let Some(l) = self.loops.last_mut() {
                l.cont = cont;
            }
        }
        let body = self.block(&f.body);
        self.scopes.pop();
        self.loops.pop();
        self.expect_at(&f.body, &Ty::Unit, &body.ty.clone());
        let stmt = self.expr_stmt(f.body.span(), ex(Ty::Unit, ExprKind::Block(body)));
        p.body().push(stmt);
        self.close(p, f.span(), None, Ty::Unit)
    }

    /// A method call that is part of an iterator chain: a consumer (the chain's loop), or an
    /// error for an iterator left unconsumed or a method iterators don't have here.
    pub(super) fn iterator_method(&mut self, mc: &syn::ExprMethodCall) -> Option<Expr> {
        let name = mc.method.to_string();
        let is_source = (mc.args.is_empty() && matches!(name.as_str(), "iter" | "iter_mut" | "into_iter")) || (name == "chunks" && mc.args.len() == 1);
        let Some((src, stages)) = parse_chain(&mc.receiver) else {
            if is_source {
                self.err(mc.method.span(), UNCONSUMED);
                return Some(err_expr());
            }
            return None;
        };
        if ADAPTORS.contains(&name.as_str()) || is_source {
            self.err(mc.method.span(), UNCONSUMED);
            return Some(err_expr());
        }
        if !CONSUMERS.contains(&name.as_str()) {
            let msg = format!(
                "`.{name}()` is not supported on iterators in megakernel code; {} (adaptors: {}; consumers: {})",
                rewrite_of(&name),
                ADAPTORS.join(", "),
                CONSUMERS.join(", ")
            );
            self.err(mc.method.span(), msg);
            return Some(err_expr());
        }
        let id = self.new_loop();
        match self.pipeline(src, &stages, id) {
            Some(p) => Some(self.consume(mc, p)),
            None => Some(err_expr()),
        }
    }
}

/// What to write instead of the iterator method `name`, which is not supported.
fn rewrite_of(name: &str) -> String {
    match name {
        "collect" => "no heap on the device: write the elements into a fixed-size array, `let mut out = [0; N]; for (i, x) in it.enumerate() { out[i] = x; }`".into(),
        "next" | "peekable" | "by_ref" => "an iterator is not a value here: index the array or range in a loop (`for i in 0..n`), or use `find`/`position` for the first element that fits".into(),
        "nth" => "index instead (`a.get(n)` is `a[n]` after a length check), or `skip(n)` then a consumer".into(),
        "scan" => "keep the state in a local: `let mut acc = init; for x in it { acc = f(acc, x); .. }`".into(),
        "windows" | "chunks_exact" | "rchunks" => "index the windows: `for i in 0..=a.len() - k { let w = &a[i..i + k]; .. }`".into(),
        "reduce" => "use `fold` with the first element: `it.fold(first, |acc, x| ..)`".into(),
        "cycle" | "repeat" => "loop over the indices modulo the length: `for i in 0..n { let x = a[i % a.len()]; .. }`".into(),
        "unzip" | "partition" | "group_by" => "no heap on the device: write into fixed-size arrays in a `for` loop".into(),
        "sum_by" | "max_by_float" => "map first, then use the consumer: `it.map(|x| ..).sum()`".into(),
        _ => "write it as a `for` loop with locals for what it computes".into(),
    }
}

