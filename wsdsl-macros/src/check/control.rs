//! Control flow: `if`, `if let`, `match`, the loops, `break`, `continue` and `return`. A branch
//! of type `!` (one that diverges) does not count when the branches' types are joined, so an
//! `if` whose one side returns has the type of the other.

use super::*;

impl<'a> Cx<'a> {
    pub(super) fn if_expr(&mut self, i: &syn::ExprIf) -> Expr {
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

    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch) -> Expr {
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

    /// Joins the type of one more branch into `acc` (`!` branches don't count).
    pub(super) fn join_branch(&mut self, acc: &mut Ty, t: &Ty, at: &dyn quote::ToTokens, what: &str) {
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

    /// `while cond { body }`, or a `while let`.
    pub(super) fn while_expr(&mut self, w: &syn::ExprWhile) -> Expr {
        if let syn::Expr::Let(l) = peel(&w.cond) {
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

    /// `loop { body }`: of the type of its `break` values; `()` when it breaks without one,
    /// `!` when it never breaks.
    pub(super) fn loop_expr(&mut self, l: &syn::ExprLoop) -> Expr {
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

    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop) -> Expr {
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

    pub(super) fn enter_loop(&mut self, label: &Option<syn::Label>, is_loop: bool) -> LoopId {
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

    /// `break`, `break 'label` and `break value` (of a `loop` only); `e` is the whole
    /// expression, where its errors point.
    pub(super) fn break_expr(&mut self, b: &syn::ExprBreak, e: &syn::Expr) -> Expr {
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

    /// `continue` and `continue 'label`; `e` is the whole expression.
    pub(super) fn continue_expr(&mut self, c: &syn::ExprContinue, e: &syn::Expr) -> Expr {
        match self.find_loop(c.label.as_ref(), e, "continue") {
            Some(idx) => ex(Ty::Never, ExprKind::Continue(self.loops[idx].cont)),
            None => err_expr(),
        }
    }

    /// `return` and `return value`: out of the function, or out of the inlined closure or
    /// helper being checked (`closures.rs`); `e` is the whole expression.
    pub(super) fn return_expr(&mut self, r: &syn::ExprReturn, e: &syn::Expr) -> Expr {
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
}
