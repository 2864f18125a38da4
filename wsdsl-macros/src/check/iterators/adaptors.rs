//! The adaptors of an iterator chain, each a stage of the loop body (see `iterators.rs`).

use super::super::build::{bin, lit, not, usize_ty};
use super::super::closures::Elem;
use super::*;

impl Cx<'_> {
    /// One adaptor after the source's own `rev`/`step_by`; `flipped_later`: whether a later
    /// `rev()` will make the loop run the other way than it does here.
    pub(super) fn stage(&mut self, mc: &syn::ExprMethodCall, p: &mut Pipeline, flipped_later: bool) {
        let name = mc.method.to_string();
        let sp = mc.method.span();
        let want = match name.as_str() {
            "copied" | "cloned" | "enumerate" | "rev" | "flatten" => 0,
            _ => 1,
        };
        if mc.args.len() != want {
            self.err(mc.span(), format!("`{name}` takes {want} argument(s) but {} were supplied", mc.args.len()));
            return;
        }
        let (brk, cont) = (p.outer.id, p.cont());
        if !matches!(name.as_str(), "map" | "enumerate" | "zip" | "copied" | "cloned") {
            p.random_access = false;
        }
        if matches!(name.as_str(), "take" | "skip" | "step_by" | "zip" | "take_while" | "skip_while" | "flat_map" | "flatten") {
            p.stateful.get_or_insert_with(|| name.clone());
        }
        if matches!(name.as_str(), "take" | "zip" | "take_while") {
            p.ends_early.get_or_insert_with(|| name.clone());
        }
        match name.as_str() {
            "copied" | "cloned" => {}
            "map" => {
                let v = self.apply_fn(&mc.args[0], vec![p.elem.clone()]);
                // `map(|p| &p.0)`: elements are values here, as `iter()`'s are.
                let v = match self.resolve(&v.ty) {
                    Ty::Ref(_, false) => self.auto_deref(v),
                    _ => v,
                };
                let h = self.hidden("mapped", v.ty.clone());
                let stmt = self.stmt_at(sp, StmtKind::Let(h, Some(v)));
                p.body().push(stmt);
                p.elem = Elem::Val(self.local_expr(h), true);
            }
            "inspect" => {
                let v = self.apply_fn(&mc.args[0], vec![p.elem.clone()]);
                let stmt = self.expr_stmt(sp, v);
                p.body().push(stmt);
            }
            "filter" | "take_while" => {
                // An element that fails: `filter` skips it, `take_while` ends the iteration
                // (Rust's `TakeWhile` is done then).
                let c = self.apply_fn(&mc.args[0], vec![p.elem.clone()]);
                self.expect_at(&mc.args[0], &Ty::Bool, &c.ty);
                let out = if name == "filter" { self.jump(sp, cont, false) } else { self.jump(sp, brk, true) };
                let stmt = self.when(sp, not(c), vec![out]);
                p.body().push(stmt);
            }
            "filter_map" => {
                // `match f(x) { Some(v) => v, None => continue }`.
                let v = self.apply_fn(&mc.args[0], vec![p.elem.clone()]);
                let inner = match self.resolve(&v.ty) {
                    Ty::Option(t) => *t,
                    Ty::Err => return,
                    t => {
                        let msg = format!("the closure given to `filter_map` must return an `Option`, not `{}`", self.show(&t));
                        self.err_at(&mc.args[0], msg);
                        return;
                    }
                };
                let x = self.hidden("kept", inner.clone());
                let arms = vec![
                    Arm { pat: Pat::Some(Box::new(Pat::Bind(x))), guard: None, body: self.local_expr(x) },
                    Arm { pat: Pat::Wild, guard: None, body: ex(Ty::Never, ExprKind::Continue(cont)) },
                ];
                let h = self.hidden("mapped", inner.clone());
                let stmt = self.stmt_at(sp, StmtKind::Let(h, Some(ex(inner, ExprKind::Match(Box::new(v), arms)))));
                p.body().push(stmt);
                p.elem = Elem::Val(self.local_expr(h), true);
            }
            "take" => {
                let lim = self.usize_arg(&mc.args[0], "take", &mut p.pre);
                let cnt = self.counter("taken", sp, &mut p.pre);
                let stop = self.jump(sp, brk, true);
                p.at_every_top(self.when(sp, bin(BinOp::Ge, self.local_expr(cnt), self.local_expr(lim)), vec![stop]));
                let stmt = self.incr(sp, cnt);
                p.body().push(stmt);
            }
            "skip" => {
                let lim = self.usize_arg(&mc.args[0], "skip", &mut p.pre);
                let cnt = self.counter("skipped", sp, &mut p.pre);
                let then = vec![self.incr(sp, cnt), self.jump(sp, cont, false)];
                let stmt = self.when(sp, bin(BinOp::Lt, self.local_expr(cnt), self.local_expr(lim)), then);
                p.body().push(stmt);
            }
            "skip_while" => {
                // The predicate runs until it first fails, never after.
                let skipping = self.hidden("skipping", Ty::Bool);
                p.pre.push(self.let_at(sp, skipping, ex(Ty::Bool, ExprKind::Bool(true))));
                let c = self.apply_fn(&mc.args[0], vec![p.elem.clone()]);
                self.expect_at(&mc.args[0], &Ty::Bool, &c.ty);
                let then = vec![self.when(sp, c, vec![self.jump(sp, cont, false)]), self.assign(sp, skipping, ex(Ty::Bool, ExprKind::Bool(false)))];
                let stmt = self.when(sp, self.local_expr(skipping), then);
                p.body().push(stmt);
            }
            "enumerate" => {
                let i = self.hidden("index", usize_ty());
                if flipped_later {
                    // Rust numbers the elements from the front whichever end they are taken
                    // from: the position in the source.
                    let Some(at) = self.source_position(p, &mc.method) else { return };
                    let stmt = self.stmt_at(sp, StmtKind::Let(i, Some(at)));
                    p.body().push(stmt);
                } else {
                    p.stateful.get_or_insert_with(|| name.clone());
                    let cnt = self.counter("count", sp, &mut p.pre);
                    let stmt = self.stmt_at(sp, StmtKind::Let(i, Some(self.local_expr(cnt))));
                    p.body().push(stmt);
                    let stmt = self.incr(sp, cnt);
                    p.body().push(stmt);
                }
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
                let stmts = vec![
                    self.stmt_at(sp, StmtKind::Let(keep, Some(bin(BinOp::Eq, self.local_expr(cnt), lit(0, usize_ty()))))),
                    self.incr(sp, cnt),
                    self.when(sp, bin(BinOp::Eq, self.local_expr(cnt), self.local_expr(k)), vec![self.assign(sp, cnt, lit(0, usize_ty()))]),
                    self.when(sp, not(self.local_expr(keep)), vec![self.jump(sp, cont, false)]),
                ];
                p.body().extend(stmts);
            }
            "zip" => {
                let other = self.zip_side(&mc.args[0], sp, p);
                if let Some(other) = other {
                    p.elem = Elem::Tup(vec![p.elem.clone(), other]);
                }
            }
            "chain" => self.chain_stage(mc, p),
            "flat_map" => self.flat_map_stage(mc, p),
            "flatten" => self.flatten_stage(mc, p),
            _ => self.rev_stage(mc, p),
        }
    }

    /// `rev()` after other adaptors: the loop runs the other way, which gives Rust's
    /// elements and calls only if every adaptor before treats each element alone.
    fn rev_stage(&mut self, mc: &syn::ExprMethodCall, p: &mut Pipeline) {
        let why = if !p.nested.is_empty() {
            Some("flat_map".to_string())
        } else if p.kind == SourceKind::Chunks {
            Some("chunks".to_string())
        } else if p.outer.step.is_some() {
            Some("step_by".to_string())
        } else {
            p.stateful.clone()
        };
        let Some(after) = why else {
            p.outer.rev = !p.outer.rev;
            p.random_access = false;
            return;
        };
        let rewrite = match after.as_str() {
            "take" => "reverse the first n elements instead: `a[..n].iter().rev()` or `(lo..lo + n).rev()`",
            "skip" => "reverse what remains instead: `a[n..].iter().rev()` or `(lo + n..hi).rev()`",
            "step_by" => "put `rev()` first (`(a..b).rev().step_by(k)` starts from the last element), or loop over the positions: `for i in (0..n).rev() { if i % k != 0 { continue; } .. }`",
            "zip" => "index both sides: `for i in (0..a.len().min(b.len())).rev() { let (x, y) = (a[i], b[i]); .. }`",
            "chunks" => "loop over the chunk starts from the last: `let mut s = (a.len() - 1) / k * k; loop { let c = &a[s..(s + k).min(a.len())]; ..; if s == 0 { break; } s -= k; }`",
            _ => "put `rev()` right after the source (`a.iter().rev()`, `(a..b).rev()`), or loop over the indices in reverse",
        };
        let msg = format!("`.rev()` after `.{after}()` is not supported: it would need the length of what `{after}` yields; {rewrite}");
        self.err(mc.method.span(), msg);
    }

    /// The position in the source of the current element (for `enumerate` counted from the
    /// front while the loop runs from the back).
    fn source_position(&mut self, p: &mut Pipeline, at: &syn::Ident) -> Option<Expr> {
        if p.outer.rev || !p.nested.is_empty() || p.stateful.is_some() {
            self.err(at.span(), "`enumerate()` here would number the elements from the other end than the loop runs; enumerate before `rev()` (`a.iter().enumerate().rev()`) or index in a reversed range loop");
            return None;
        }
        let var = self.local_expr(p.outer.var);
        match p.kind {
            SourceKind::Array | SourceKind::Chain => Some(var),
            SourceKind::Range => {
                // How many integers lie before the element: `start..it` holds them.
                let lo = self.hidden("lo", var.ty.clone());
                let start = std::mem::replace(&mut p.outer.start, self.local_expr(lo));
                p.pre.push(self.let_at(at.span(), lo, start));
                Some(ex(usize_ty(), ExprKind::RangeLen(Box::new(self.local_expr(lo)), Box::new(var), false)))
            }
            SourceKind::Chunks => None,
        }
    }

    /// `zip(b)`'s element: `b` is an array (`b.iter()`, `&b`, `b`) or a range `lo..hi`; when
    /// it runs out, the loop ends (after the stages before `zip` ran, as in Rust).
    fn zip_side(&mut self, arg: &syn::Expr, sp: Span, p: &mut Pipeline) -> Option<Elem> {
        let brk = p.outer.id;
        match source(arg).unwrap_or(Source::Array(arg, Mode::Value)) {
            Source::Range(r) if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) => {
                let (start, end) = self.range_bounds(r)?;
                let cur = self.hidden("zcur", start.ty.clone());
                let hi = self.hidden("zend", end.ty.clone());
                p.pre.push(self.stmt_at(sp, StmtKind::Let(cur, Some(start))));
                p.pre.push(self.stmt_at(sp, StmtKind::Let(hi, Some(end))));
                let stop = self.jump(sp, brk, true);
                let test = self.when(sp, bin(BinOp::Ge, self.local_expr(cur), self.local_expr(hi)), vec![stop]);
                if p.random_access { p.outer.top.push(test) } else { p.body().push(test) }
                let y = self.hidden("zipped", self.locals[cur].ty.clone());
                let one = lit(1, self.locals[cur].ty.clone());
                let stmts = vec![self.stmt_at(sp, StmtKind::Let(y, Some(self.local_expr(cur)))), self.assign(sp, cur, bin(BinOp::Add, self.local_expr(cur), one))];
                p.body().extend(stmts);
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
                let stop = self.jump(sp, brk, true);
                let test = self.when(sp, bin(BinOp::Ge, self.local_expr(j), len), vec![stop]);
                if p.random_access { p.outer.top.push(test) } else { p.body().push(test) }
                let jj = self.hidden("zi", usize_ty());
                let stmts = vec![self.stmt_at(sp, StmtKind::Let(jj, Some(self.local_expr(j)))), self.incr(sp, j)];
                p.body().extend(stmts);
                let site = self.index_site(e.span());
                Some(Elem::Val(self.element(&arr, self.local_expr(jj), site), true))
            }
        }
    }

    /// `flat_map(|x| inner)`: a loop over `inner` (a range or an array, with adaptors of its
    /// own) for each element; the elements are the inner loop's.
    fn flat_map_stage(&mut self, mc: &syn::ExprMethodCall, p: &mut Pipeline) {
        let usage = "`flat_map` takes a closure that makes an iterator over a range or an array, e.g. `flat_map(|i| (0..i).map(move |j| (i, j)))` or `flat_map(|x| [x, x + 1])`";
        let syn::Expr::Closure(c) = peel(&mc.args[0]) else {
            self.err_at(&mc.args[0], usage);
            return;
        };
        if c.inputs.len() != 1 {
            self.err_at(&c.inputs, usage);
            return;
        }
        let mut body = peel(&c.body);
        // `|x| { chain }`: a block holding only the chain.
        if let syn::Expr::Block(b) = body {
            if let [syn::Stmt::Expr(e, None)] = &b.block.stmts[..] {
                body = peel(e);
            }
        }
        self.scopes.push(Vec::new());
        let mut bind = Vec::new();
        self.bind_elem(&c.inputs[0], p.elem.clone(), &mut bind);
        p.body().extend(bind);
        let (src, stages) = parse_chain(body).unwrap_or((Source::Array(body, Mode::Value), Vec::new()));
        let id = self.new_loop();
        let inner = self.pipeline(src, &stages, id);
        self.scopes.pop();
        if let Some(inner) = inner {
            self.open_inner(p, inner);
        }
    }

    /// `flatten()` of arrays (or slices): a loop over each; of `Option`s: the values of the
    /// `Some`s.
    fn flatten_stage(&mut self, mc: &syn::ExprMethodCall, p: &mut Pipeline) {
        let sp = mc.method.span();
        let x = p.elem.clone().into_expr();
        match self.resolve(&x.ty) {
            Ty::Option(inner) => {
                let (k, h) = (self.hidden("kept", (*inner).clone()), self.hidden("flat", (*inner).clone()));
                let arms = vec![
                    Arm { pat: Pat::Some(Box::new(Pat::Bind(k))), guard: None, body: self.local_expr(k) },
                    Arm { pat: Pat::Wild, guard: None, body: ex(Ty::Never, ExprKind::Continue(p.cont())) },
                ];
                let stmt = self.let_at(sp, h, ex(*inner, ExprKind::Match(Box::new(x), arms)));
                p.body().push(stmt);
                p.elem = Elem::Val(self.local_expr(h), true);
            }
            Ty::Array(..) | Ty::Slice(..) => {
                // The element is a place the inner loop reads in place (a copy otherwise).
                let arr = match &p.elem {
                    Elem::Val(e, true) => e.clone(),
                    _ => {
                        let a = self.hidden("arr", x.ty.clone());
                        let stmt = self.let_at(sp, a, x);
                        p.body().push(stmt);
                        self.local_expr(a)
                    }
                };
                let len = match self.resolve(&arr.ty) {
                    Ty::Array(_, n) => lit(n as u128, usize_ty()),
                    _ => ex(usize_ty(), ExprKind::SliceLen(Box::new(arr.clone()))),
                };
                let var = self.hidden("j", usize_ty());
                let site = self.index_site(sp);
                let elem = Elem::Val(self.element(&arr, self.local_expr(var), site), true);
                let id = self.new_loop();
                let level = Level { var, start: lit(0, usize_ty()), end: len, inclusive: false, rev: false, step: None, id, top: Vec::new(), body: Vec::new() };
                let inner = Pipeline { pre: Vec::new(), outer: level, nested: Vec::new(), elem, kind: SourceKind::Array, mutable: p.mutable, random_access: false, stateful: None, ends_early: None };
                self.open_inner(p, inner);
            }
            Ty::Err => {}
            t => {
                let msg = format!("`flatten` is supported on iterators of arrays, slices and `Option`s, not of `{}`", self.show(&t));
                self.err(sp, msg);
            }
        }
    }

    /// Makes the loops of `inner` run inside the innermost loop of `p`, for each of its
    /// elements; the stages after this go into them.
    fn open_inner(&mut self, p: &mut Pipeline, inner: Pipeline) {
        p.body().extend(inner.pre);
        p.nested.push(inner.outer);
        p.nested.extend(inner.nested);
        p.elem = inner.elem;
        p.random_access = false;
    }
}
