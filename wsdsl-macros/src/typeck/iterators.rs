//! Iterators over ranges and fixed-size arrays, lowered to one counted loop.
//!
//! A chain `source.adaptor(..)...` ends in a `for` loop or a consumer (`sum()`, `max()`,
//! `any(..)`, ...) where it is written; it never exists as a value. The source is the
//! loop (`ExprKind::For` over the range, or over the indices `0..N` of the array, so literal
//! bounds still unroll on the GPU); each adaptor is a stage of the loop body, in chain
//! order, that transforms the element, skips it (`continue`) or ends the loop (`break`);
//! the consumer's accumulator lives before the loop and its value is the block's.
//!
//! Pulling in Rust and these stages agree on what runs: `take(n)` tests its count before
//! the source advances (the test is hoisted to the top of the body), so closures before it
//! run exactly as often as in Rust; `skip`, `step_by` and `filter` still run the stages
//! before them on the elements they drop, as Rust's `nth` does. `rev()` and a first
//! `step_by(k)` belong to the source (the loop runs backwards or strides); later `rev()`
//! would need the length of what an adaptor yields and is refused.
//!
//! Elements are not copied: an array element is the place `a[i]` at the loop's index (so
//! `iter_mut()` writes through `*x = ..`), references (`&x`, `*x`) are the values themselves.

use super::closures::Elem;
use super::*;

const ADAPTORS: &[&str] = &["map", "filter", "take", "skip", "rev", "enumerate", "zip", "step_by", "copied", "cloned"];
const CONSUMERS: &[&str] =
    &["sum", "product", "count", "min", "max", "min_by_key", "max_by_key", "any", "all", "position", "find", "fold", "for_each"];

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
fn chain(e: &syn::Expr) -> Option<(Source<'_>, Vec<&syn::ExprMethodCall>)> {
    if let Some(s) = source(e) {
        return Some((s, Vec::new()));
    }
    let syn::Expr::MethodCall(mc) = peel(e) else { return None };
    if !ADAPTORS.contains(&mc.method.to_string().as_str()) {
        return None;
    }
    let (s, mut stages) = chain(&mc.receiver)?;
    stages.push(mc);
    Some((s, stages))
}

/// Whether `typeck::for_loop`'s own range loop handles `f` (a name over `a..b`, `..=`,
/// with `.rev()`, `.step_by(k)`, `.rev().step_by(k)`); everything else comes here.
pub(super) fn is_range_loop(f: &syn::ExprForLoop) -> bool {
    let simple = matches!(&*f.pat, syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none()) || matches!(&*f.pat, syn::Pat::Wild(_));
    match chain(&f.expr) {
        Some((Source::Range(_), stages)) if simple => {
            let names: Vec<String> = stages.iter().map(|m| m.method.to_string()).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            matches!(names.as_slice(), [] | ["rev"] | ["step_by"] | ["rev", "step_by"])
        }
        _ => false,
    }
}

const UNCONSUMED: &str = "an iterator must be consumed where it is made, by a `for` loop or a consumer (`sum`, `product`, `count`, `min`, `max`, `min_by_key`, `max_by_key`, `any`, `all`, `position`, `find`, `fold`, `for_each`); storing an iterator in a local, passing or returning it is not supported (write the whole chain where it is used)";

/// The loop a chain becomes, before its consumer is added.
struct Pipeline {
    /// Before the loop: the array copy, the adaptors' arguments and counters.
    pre: Vec<Stmt>,
    /// First in the loop body: `take`'s limits.
    top: Vec<Stmt>,
    /// The stages, then the consumer.
    body: Vec<Stmt>,
    elem: Elem,
    var: LocalId,
    start: Expr,
    end: Expr,
    inclusive: bool,
    rev: bool,
    step: Option<(Box<Expr>, u32)>,
    id: LoopId,
    /// Whether what the stages yield so far is, in Rust, a "trusted random access"
    /// iterator (a half-open range or an array, then only `map`, `enumerate`, `zip`,
    /// `copied`): `zip` on such an iterator takes the shorter length first and never pulls
    /// the element that finds the other side exhausted, so its test moves to the top.
    random_access: bool,
}

fn usize_ty() -> Ty {
    Ty::Int(IntTy::Usize)
}

fn lit(v: u128, ty: Ty) -> Expr {
    ex(ty, ExprKind::Int(v))
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let ty = if op.is_cmp() { Ty::Bool } else { a.ty.clone() };
    ex(ty, ExprKind::Binary(op, Box::new(a), Box::new(b), u32::MAX))
}

fn not(a: Expr) -> Expr {
    ex(Ty::Bool, ExprKind::Unary(UnOp::Not, Box::new(a)))
}

/// Whether `e` names a place that stays the same while a loop over it runs (no index that
/// the body could change): the array is read in place instead of copied.
fn stable_place(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(_) | ExprKind::Param(_) => true,
        ExprKind::Field(b, _) | ExprKind::TupleField(b, _) => stable_place(b),
        _ => false,
    }
}

impl Cx<'_> {
    fn hidden(&mut self, name: &str, ty: Ty) -> LocalId {
        self.locals.push(Local { name: name.into(), ty });
        self.locals.len() - 1
    }

    fn local_expr(&self, id: LocalId) -> Expr {
        ex(self.locals[id].ty.clone(), ExprKind::Local(id))
    }

    fn stmt_at(&self, span: Span, kind: StmtKind) -> Stmt {
        let (line, file) = loc(span);
        Stmt { line, file, kind }
    }

    fn expr_stmt(&self, span: Span, e: Expr) -> Stmt {
        self.stmt_at(span, StmtKind::Expr(e))
    }

    fn assign(&self, span: Span, id: LocalId, v: Expr) -> Stmt {
        self.expr_stmt(span, ex(Ty::Unit, ExprKind::Assign(Box::new(self.local_expr(id)), Box::new(v))))
    }

    fn incr(&self, span: Span, id: LocalId) -> Stmt {
        let v = bin(BinOp::Add, self.local_expr(id), lit(1, usize_ty()));
        self.assign(span, id, v)
    }

    fn when(&self, span: Span, cond: Expr, then: Vec<Stmt>) -> Stmt {
        let b = Block { stmts: then, tail: None, ty: Ty::Unit };
        self.expr_stmt(span, ex(Ty::Unit, ExprKind::If(Box::new(cond), b, None)))
    }

    fn jump(&self, span: Span, id: LoopId, brk: bool) -> Stmt {
        let k = if brk { ExprKind::Break(id, None) } else { ExprKind::Continue(id) };
        self.expr_stmt(span, ex(Ty::Never, k))
    }

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
        let x = if mode == Mode::Mut { self.place(e) } else { self.expr(e) };
        match self.resolve(&x.ty) {
            Ty::Array(..) => {}
            Ty::Err => return None,
            Ty::Slice(..) if mode == Mode::Mut => {
                self.err_at(e, "slices (the children's values, chunks) are read-only; copy the elements into an array to change them");
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
        let (var, start, end, inclusive, elem) = match src {
            Source::Range(r) => {
                let (start, end) = self.range_bounds(r)?;
                let var = self.hidden("it", start.ty.clone());
                let elem = Elem::Val(self.local_expr(var), true);
                (var, start, end, matches!(r.limits, syn::RangeLimits::Closed(_)), elem)
            }
            Source::Array(e, mode) => {
                let (arr, len) = self.array_source(e, mode, &mut pre)?;
                let var = self.hidden("i", usize_ty());
                let site = self.index_site(e.span());
                let at = self.element(&arr, self.local_expr(var), site);
                (var, lit(0, usize_ty()), len, false, Elem::Val(at, true))
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
                (var, lit(0, usize_ty()), len, false, Elem::Val(chunk, true))
            }
        };
        let mut p = Pipeline { pre, top: Vec::new(), body: Vec::new(), elem, var, start, end, inclusive, rev: false, step: step_by, id, random_access };
        let mut rest = stages;
        if let [first, more @ ..] = rest {
            if first.method == "rev" && first.args.is_empty() && p.step.is_none() {
                p.rev = true;
                p.random_access = false;
                rest = more;
            }
        }
        if let [first, more @ ..] = rest {
            if first.method == "step_by" && first.args.len() == 1 && p.step.is_none() {
                let k = self.expr(&first.args[0]);
                self.expect_at(&first.args[0], &usize_ty(), &k.ty);
                let site = self.text_site(first.span(), "assertion failed: step != 0");
                p.step = Some((Box::new(k), site));
                p.random_access = false;
                rest = more;
            }
        }
        for mc in rest {
            self.stage(mc, &mut p);
        }
        Some(p)
    }

    /// One adaptor after the source's own `rev`/`step_by`.
    fn stage(&mut self, mc: &syn::ExprMethodCall, p: &mut Pipeline) {
        let name = mc.method.to_string();
        let sp = mc.method.span();
        let want = match name.as_str() {
            "copied" | "cloned" | "enumerate" | "rev" => 0,
            _ => 1,
        };
        if mc.args.len() != want {
            self.err(mc.span(), format!("`{name}` takes {want} argument(s) but {} were supplied", mc.args.len()));
            return;
        }
        let id = p.id;
        if !matches!(name.as_str(), "map" | "enumerate" | "zip" | "copied" | "cloned") {
            p.random_access = false;
        }
        match name.as_str() {
            "copied" | "cloned" => {}
            "map" => {
                let v = self.apply_fn(&mc.args[0], vec![p.elem.clone()]);
                let h = self.hidden("mapped", v.ty.clone());
                p.body.push(self.stmt_at(sp, StmtKind::Let(h, Some(v))));
                p.elem = Elem::Val(self.local_expr(h), true);
            }
            "filter" => {
                let c = self.apply_fn(&mc.args[0], vec![p.elem.clone()]);
                self.expect_at(&mc.args[0], &Ty::Bool, &c.ty);
                let skip = self.jump(sp, id, false);
                p.body.push(self.when(sp, not(c), vec![skip]));
            }
            "take" => {
                let lim = self.usize_arg(&mc.args[0], "take", &mut p.pre);
                let cnt = self.counter("taken", sp, &mut p.pre);
                let stop = self.jump(sp, id, true);
                p.top.push(self.when(sp, bin(BinOp::Ge, self.local_expr(cnt), self.local_expr(lim)), vec![stop]));
                p.body.push(self.incr(sp, cnt));
            }
            "skip" => {
                let lim = self.usize_arg(&mc.args[0], "skip", &mut p.pre);
                let cnt = self.counter("skipped", sp, &mut p.pre);
                let then = vec![self.incr(sp, cnt), self.jump(sp, id, false)];
                p.body.push(self.when(sp, bin(BinOp::Lt, self.local_expr(cnt), self.local_expr(lim)), then));
            }
            "enumerate" => {
                let cnt = self.counter("count", sp, &mut p.pre);
                let i = self.hidden("index", usize_ty());
                p.body.push(self.stmt_at(sp, StmtKind::Let(i, Some(self.local_expr(cnt)))));
                p.body.push(self.incr(sp, cnt));
                p.elem = Elem::Tup(vec![Elem::Val(self.local_expr(i), true), p.elem.clone()]);
            }
            "step_by" => {
                // Rust checks the step when the adaptor is made, before anything runs.
                let k = self.usize_arg(&mc.args[0], "step", &mut p.pre);
                let site = self.text_site(mc.span(), "assertion failed: step != 0");
                self.panics = true;
                let panic = self.expr_stmt(sp, ex(Ty::Never, ExprKind::Panic(site, Vec::new())));
                p.pre.push(self.when(sp, bin(BinOp::Eq, self.local_expr(k), lit(0, usize_ty())), vec![panic]));
                // The first element, then every k-th: a counter modulo k.
                let cnt = self.counter("stride", sp, &mut p.pre);
                let keep = self.hidden("keep", Ty::Bool);
                p.body.push(self.stmt_at(sp, StmtKind::Let(keep, Some(bin(BinOp::Eq, self.local_expr(cnt), lit(0, usize_ty()))))));
                p.body.push(self.incr(sp, cnt));
                let wrap = self.assign(sp, cnt, lit(0, usize_ty()));
                p.body.push(self.when(sp, bin(BinOp::Eq, self.local_expr(cnt), self.local_expr(k)), vec![wrap]));
                let skip = self.jump(sp, id, false);
                p.body.push(self.when(sp, not(self.local_expr(keep)), vec![skip]));
            }
            "zip" => {
                let other = self.zip_side(&mc.args[0], sp, p);
                if let Some(other) = other {
                    p.elem = Elem::Tup(vec![p.elem.clone(), other]);
                }
            }
            _ => self.err(
                sp,
                "`.rev()` must come right after the source (`a.iter().rev()`, `(a..b).rev()`, then other adaptors): after an adaptor it would need the length of what the adaptor yields",
            ),
        }
    }

    /// `zip(b)`'s element: `b` is an array (`b.iter()`, `&b`, `b`) or a range `lo..hi`; when
    /// it runs out, the loop ends (after the stages before `zip` ran, as in Rust).
    fn zip_side(&mut self, arg: &syn::Expr, sp: Span, p: &mut Pipeline) -> Option<Elem> {
        let id = p.id;
        match source(arg).unwrap_or(Source::Array(arg, Mode::Value)) {
            Source::Range(r) if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) => {
                let (start, end) = self.range_bounds(r)?;
                let cur = self.hidden("zcur", start.ty.clone());
                let hi = self.hidden("zend", end.ty.clone());
                p.pre.push(self.stmt_at(sp, StmtKind::Let(cur, Some(start))));
                p.pre.push(self.stmt_at(sp, StmtKind::Let(hi, Some(end))));
                let stop = self.jump(sp, id, true);
                let test = self.when(sp, bin(BinOp::Ge, self.local_expr(cur), self.local_expr(hi)), vec![stop]);
                if p.random_access { p.top.push(test) } else { p.body.push(test) }
                let y = self.hidden("zipped", self.locals[cur].ty.clone());
                p.body.push(self.stmt_at(sp, StmtKind::Let(y, Some(self.local_expr(cur)))));
                let one = lit(1, self.locals[cur].ty.clone());
                p.body.push(self.assign(sp, cur, bin(BinOp::Add, self.local_expr(cur), one)));
                Some(Elem::Val(self.local_expr(y), true))
            }
            Source::Range(r) => {
                self.err_at(r, "`zip` takes an array (`b.iter()`, `&b`, `b`) or a half-open range `a..b`");
                None
            }
            Source::Chunks(..) => {
                self.err_at(arg, "`zip` takes an array (`b.iter()`, `&b`, `b`) or a half-open range `a..b`");
                None
            }
            Source::Array(e, mode) => {
                let (arr, len) = self.array_source(e, mode, &mut p.pre)?;
                let j = self.counter("zj", sp, &mut p.pre);
                let stop = self.jump(sp, id, true);
                let test = self.when(sp, bin(BinOp::Ge, self.local_expr(j), len), vec![stop]);
                if p.random_access { p.top.push(test) } else { p.body.push(test) }
                let jj = self.hidden("zi", usize_ty());
                p.body.push(self.stmt_at(sp, StmtKind::Let(jj, Some(self.local_expr(j)))));
                p.body.push(self.incr(sp, j));
                let site = self.index_site(e.span());
                Some(Elem::Val(self.element(&arr, self.local_expr(jj), site), true))
            }
        }
    }

    /// The loop, then `tail`: the whole chain's value.
    fn close(&mut self, p: Pipeline, span: Span, tail: Option<Expr>, ty: Ty) -> Expr {
        let mut stmts = p.top;
        stmts.extend(p.body);
        let body = Block { stmts, tail: None, ty: Ty::Unit };
        let f = ExprKind::For {
            var: p.var,
            start: Box::new(p.start),
            end: Box::new(p.end),
            inclusive: p.inclusive,
            rev: p.rev,
            step: p.step,
            body,
            id: p.id,
        };
        let mut pre = p.pre;
        pre.push(self.expr_stmt(span, ex(Ty::Unit, f)));
        ex(ty.clone(), ExprKind::Block(Block { stmts: pre, tail: tail.map(Box::new), ty }))
    }

    /// `for PAT in chain { body }` for every chain but a plain range.
    pub(super) fn iter_for(&mut self, f: &syn::ExprForLoop) -> Expr {
        let (src, stages) = chain(&f.expr).unwrap_or((Source::Array(&f.expr, Mode::Value), Vec::new()));
        let id = self.enter_loop(&f.label, false);
        let Some(mut p) = self.pipeline(src, &stages, id) else {
            self.loops.pop();
            return err_expr();
        };
        self.scopes.push(Vec::new());
        let elem = p.elem.clone();
        self.bind_elem(&f.pat, elem, &mut p.body);
        let body = self.block(&f.body);
        self.scopes.pop();
        self.loops.pop();
        self.expect_at(&f.body, &Ty::Unit, &body.ty.clone());
        p.body.push(self.expr_stmt(f.body.span(), ex(Ty::Unit, ExprKind::Block(body))));
        self.close(p, f.span(), None, Ty::Unit)
    }

    /// A method call that is part of an iterator chain: a consumer (the chain's loop), or an
    /// error for an iterator left unconsumed or a method iterators don't have here.
    pub(super) fn iterator_method(&mut self, mc: &syn::ExprMethodCall) -> Option<Expr> {
        let name = mc.method.to_string();
        let is_source = (mc.args.is_empty() && matches!(name.as_str(), "iter" | "iter_mut" | "into_iter")) || (name == "chunks" && mc.args.len() == 1);
        let Some((src, stages)) = chain(&mc.receiver) else {
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
            let msg = match name.as_str() {
                "collect" => "`collect()` is not supported (no heap on the device); write the elements into a fixed-size array: `let mut out = [0; N]; for (i, x) in it.enumerate() { out[i] = x; }`".to_string(),
                _ => format!(
                    "`.{name}()` is not supported on iterators in megakernel code; adaptors: {}; consumers: {} (or a `for` loop)",
                    ADAPTORS.join(", "),
                    CONSUMERS.join(", ")
                ),
            };
            self.err(mc.method.span(), msg);
            return Some(err_expr());
        }
        let id = self.loop_labels.len();
        self.loop_labels.push(false);
        match self.pipeline(src, &stages, id) {
            Some(p) => Some(self.consume(mc, p)),
            None => Some(err_expr()),
        }
    }

    fn consume(&mut self, mc: &syn::ExprMethodCall, mut p: Pipeline) -> Expr {
        let name = mc.method.to_string();
        let sp = mc.method.span();
        let want = match name.as_str() {
            "fold" => 2,
            "sum" | "product" | "count" | "min" | "max" => 0,
            _ => 1,
        };
        if mc.args.len() != want {
            self.err(mc.span(), format!("`{name}` takes {want} argument(s) but {} were supplied", mc.args.len()));
            return err_expr();
        }
        let ety = p.elem.ty();
        let elem = p.elem.clone();
        let id = p.id;
        let turbofish = match &mc.turbofish {
            Some(t) if t.args.len() == 1 => match &t.args[0] {
                syn::GenericArgument::Type(ty) => match self.parse_type(ty) {
                    Ok(t) => Some((t, ty.span())),
                    Err(e) => {
                        self.errors.push(e);
                        None
                    }
                },
                other => {
                    self.err_at(other, "expected a type");
                    None
                }
            },
            Some(t) => {
                self.err_at(t, "expected one type: `sum::<u32>()`");
                None
            }
            None => None,
        };
        if let Some((t, span)) = &turbofish {
            if !matches!(name.as_str(), "sum" | "product") {
                self.err(*span, format!("`{name}` takes no type argument here"));
            } else if self.sh.infer.unify(t, &ety).is_err() {
                let msg = format!("mismatched types: this iterator yields `{}`, so its `{name}` is a `{}` (convert the elements with `map(|x| x as T)`)", self.show(&ety), self.show(&ety));
                self.err(*span, msg);
            }
        }
        match name.as_str() {
            "sum" | "product" => {
                let rt = self.resolve(&ety);
                let kind = self.sh.infer.var_kind(&rt);
                let is_float = matches!(rt, Ty::Float(_)) || kind == Some(VarKind::Float);
                if !(is_float || matches!(rt, Ty::Int(_) | Ty::Err) || kind == Some(VarKind::Int)) {
                    let msg = format!("`{name}` adds up numbers; this iterator yields `{}`", self.show(&rt));
                    self.err(sp, msg);
                    return err_expr();
                }
                let sum = name == "sum";
                // Rust's float sum starts from -0.0 (so that an empty sum of -0.0s is -0.0).
                let init = match (is_float, sum) {
                    (true, true) => ex(ety.clone(), ExprKind::Float(FloatLit::Value(-0.0))),
                    (true, false) => ex(ety.clone(), ExprKind::Float(FloatLit::Value(1.0))),
                    (false, s) => lit(if s { 0 } else { 1 }, ety.clone()),
                };
                let acc = self.hidden(&name, ety.clone());
                p.pre.push(self.stmt_at(sp, StmtKind::Let(acc, Some(init))));
                let op = if sum { BinOp::Add } else { BinOp::Mul };
                p.body.push(self.assign(sp, acc, bin(op, self.local_expr(acc), elem.into_expr())));
                let tail = self.local_expr(acc);
                self.close(p, mc.span(), Some(tail), ety)
            }
            "count" => {
                let acc = self.counter("count", sp, &mut p.pre);
                p.body.push(self.incr(sp, acc));
                let tail = self.local_expr(acc);
                self.close(p, mc.span(), Some(tail), usize_ty())
            }
            "min" | "max" | "min_by_key" | "max_by_key" => {
                let max = name.starts_with("max");
                let key = if name.ends_with("_by_key") {
                    let k = self.apply_fn(&mc.args[0], vec![elem.clone()]);
                    let kid = self.hidden("key", k.ty.clone());
                    p.body.push(self.stmt_at(sp, StmtKind::Let(kid, Some(k))));
                    Some(kid)
                } else {
                    None
                };
                let kty = match key {
                    Some(k) => self.locals[k].ty.clone(),
                    None => ety.clone(),
                };
                let rk = self.resolve(&kty);
                if !(matches!(rk, Ty::Int(_) | Ty::Bool | Ty::Err) || self.sh.infer.var_kind(&rk) == Some(VarKind::Int)) {
                    let msg = format!("`{name}` compares integers or bools (Rust's `Ord`); `{}` is not one (for floats use `fold(f64::INFINITY, |m, x| m.min(x))`)", self.show(&rk));
                    self.err(sp, msg);
                    return err_expr();
                }
                let found = self.hidden("found", Ty::Bool);
                let best = self.hidden("best", ety.clone());
                p.pre.push(self.stmt_at(sp, StmtKind::Let(found, Some(ex(Ty::Bool, ExprKind::Bool(false))))));
                p.pre.push(self.stmt_at(sp, StmtKind::Let(best, None)));
                let (cur, bestk) = match key {
                    Some(k) => {
                        let bk = self.hidden("best_key", kty.clone());
                        p.pre.push(self.stmt_at(sp, StmtKind::Let(bk, None)));
                        (self.local_expr(k), Some(bk))
                    }
                    None => (elem.clone().into_expr(), None),
                };
                let cmp_with = self.local_expr(bestk.unwrap_or(best));
                // `max` keeps the last of equal elements, `min` the first, as Rust's do.
                let better = if max { bin(BinOp::Ge, cur.clone(), cmp_with) } else { bin(BinOp::Lt, cur.clone(), cmp_with) };
                let cond = ex(Ty::Bool, ExprKind::Or(Box::new(not(self.local_expr(found))), Box::new(better)));
                let mut then = vec![self.assign(sp, best, elem.into_expr())];
                if let Some(bk) = bestk {
                    then.push(self.assign(sp, bk, cur));
                }
                then.push(self.assign(sp, found, ex(Ty::Bool, ExprKind::Bool(true))));
                p.body.push(self.when(sp, cond, then));
                let opt = Ty::Option(Box::new(ety));
                let tail = ex(opt.clone(), ExprKind::OptFrom(Box::new(self.local_expr(found)), Box::new(self.local_expr(best))));
                self.close(p, mc.span(), Some(tail), opt)
            }
            "any" | "all" => {
                let any = name == "any";
                let c = self.apply_fn(&mc.args[0], vec![elem]);
                self.expect_at(&mc.args[0], &Ty::Bool, &c.ty);
                let res = self.hidden(&name, Ty::Bool);
                p.pre.push(self.stmt_at(sp, StmtKind::Let(res, Some(ex(Ty::Bool, ExprKind::Bool(!any))))));
                let then = vec![self.assign(sp, res, ex(Ty::Bool, ExprKind::Bool(any))), self.jump(sp, id, true)];
                let cond = if any { c } else { not(c) };
                p.body.push(self.when(sp, cond, then));
                let tail = self.local_expr(res);
                self.close(p, mc.span(), Some(tail), Ty::Bool)
            }
            "position" | "find" => {
                let c = self.apply_fn(&mc.args[0], vec![elem.clone()]);
                self.expect_at(&mc.args[0], &Ty::Bool, &c.ty);
                let found = self.hidden("found", Ty::Bool);
                p.pre.push(self.stmt_at(sp, StmtKind::Let(found, Some(ex(Ty::Bool, ExprKind::Bool(false))))));
                let (vty, cnt) = if name == "position" { (usize_ty(), Some(self.counter("pos", sp, &mut p.pre))) } else { (ety.clone(), None) };
                let v = self.hidden(&name, vty.clone());
                p.pre.push(self.stmt_at(sp, StmtKind::Let(v, None)));
                let value = match cnt {
                    Some(cnt) => self.local_expr(cnt),
                    None => elem.into_expr(),
                };
                let then = vec![
                    self.assign(sp, v, value),
                    self.assign(sp, found, ex(Ty::Bool, ExprKind::Bool(true))),
                    self.jump(sp, id, true),
                ];
                p.body.push(self.when(sp, c, then));
                if let Some(cnt) = cnt {
                    p.body.push(self.incr(sp, cnt));
                }
                let opt = Ty::Option(Box::new(vty));
                let tail = ex(opt.clone(), ExprKind::OptFrom(Box::new(self.local_expr(found)), Box::new(self.local_expr(v))));
                self.close(p, mc.span(), Some(tail), opt)
            }
            "fold" => {
                let init = self.expr(&mc.args[0]);
                let ty = init.ty.clone();
                let acc = self.hidden("acc", ty.clone());
                p.pre.push(self.stmt_at(sp, StmtKind::Let(acc, Some(init))));
                let next = self.apply_fn(&mc.args[1], vec![Elem::Val(self.local_expr(acc), false), elem]);
                self.expect_at(&mc.args[1], &ty, &next.ty);
                p.body.push(self.assign(sp, acc, next));
                let tail = self.local_expr(acc);
                self.close(p, mc.span(), Some(tail), ty)
            }
            _ => {
                // for_each
                let r = self.apply_fn(&mc.args[0], vec![elem]);
                p.body.push(self.expr_stmt(sp, r));
                self.close(p, mc.span(), None, Ty::Unit)
            }
        }
    }
}
