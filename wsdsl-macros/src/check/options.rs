//! `Option<T>` as a value: `Some(x)`, `None` (its value type inferred from where it goes),
//! the methods Rust programmers reach for, and `?` in functions that return an `Option`.
//!
//! Every combinator is a `match` in the typed body (`Some(v) => .., None => ..`), so a closure
//! argument is inlined in the arm that calls it and runs exactly when Rust's would.

use super::closures::Elem;
use super::*;

impl Cx<'_> {
    /// `Some(v)`.
    pub(super) fn some_value(&mut self, v: Expr) -> Expr {
        let ty = Ty::Option(Box::new(v.ty.clone()));
        ex(ty, ExprKind::OptFrom(Box::new(ex(Ty::Bool, ExprKind::Bool(true))), Box::new(v)))
    }

    /// `None`, of an `Option` whose value type is still open.
    pub(super) fn none_value(&mut self) -> Expr {
        let inner = self.sh.infer.fresh(VarKind::Any);
        let unset = ex(Ty::Unit, ExprKind::Unit);
        ex(Ty::Option(Box::new(inner)), ExprKind::OptFrom(Box::new(ex(Ty::Bool, ExprKind::Bool(false))), Box::new(unset)))
    }

    /// `match recv { Some(v) => some(v), None => none }`, typed as the arms join.
    fn option_match(&mut self, recv: Expr, inner: Ty, some: impl FnOnce(&mut Self, Expr) -> Expr, none: impl FnOnce(&mut Self) -> Expr, at: &syn::ExprMethodCall) -> Expr {
        let v = self.new_local_hidden(inner.clone());
        let some = some(self, ex(inner, ExprKind::Local(v)));
        let none = none(self);
        let mut ty = Ty::Never;
        self.join_branch(&mut ty, &some.ty.clone(), at, "the `Some` and `None` cases");
        self.join_branch(&mut ty, &none.ty.clone(), at, "the `Some` and `None` cases");
        let arms = vec![Arm { pat: Pat::Some(Box::new(Pat::Bind(v))), guard: None, body: some }, Arm { pat: Pat::Wild, guard: None, body: none }];
        ex(ty, ExprKind::Match(Box::new(recv), arms))
    }

    fn arg_count(&mut self, mc: &syn::ExprMethodCall, n: usize) -> bool {
        if mc.args.len() != n {
            self.err(mc.span(), format!("`{}` takes {n} argument(s) but {} were supplied", mc.method, mc.args.len()));
            return false;
        }
        true
    }

    pub(super) fn option_method(&mut self, mc: &syn::ExprMethodCall, recv: Expr, inner: Ty) -> Expr {
        let method = mc.method.to_string();
        let simple = match method.as_str() {
            "unwrap_or" => Some((OptOp::UnwrapOr, vec![inner.clone()], inner.clone())),
            "is_some" => Some((OptOp::IsSome, vec![], Ty::Bool)),
            "is_none" => Some((OptOp::IsNone, vec![], Ty::Bool)),
            _ => None,
        };
        if let Some((op, params, ret)) = simple {
            let args: Vec<Expr> = mc.args.iter().map(|a| self.expr(a)).collect();
            if !self.arg_count(mc, params.len()) {
                return err_expr();
            }
            for ((p, a), s) in params.iter().zip(&args).zip(mc.args.iter()) {
                self.expect_at(&s, p, &a.ty);
            }
            return ex(ret, ExprKind::OptMethod(op, Box::new(recv), args));
        }
        let call = |cx: &mut Self, v: Expr| cx.apply_fn(&mc.args[0], vec![Elem::Val(v, false)]);
        let n = match method.as_str() {
            "unwrap" | "expect" => return self.unwrap(mc, recv, inner),
            // An iterator consumer's `Option<&T>` is an `Option<T>` here already; so is an
            // `Option` of a `Copy` value reached through a reference.
            "copied" | "cloned" | "as_ref" if mc.args.is_empty() => return recv,
            "take" | "replace" => return self.option_take(mc, recv, inner),
            "unwrap_or_default" => 0,
            "map_or" => 2,
            _ => 1,
        };
        if !self.arg_count(mc, n) {
            return err_expr();
        }
        match method.as_str() {
            "map" => self.option_match(recv, inner, |cx, v| {
                let r = call(cx, v);
                cx.some_value(r)
            }, |cx| cx.none_value(), mc),
            "and_then" => {
                let out = self.option_match(recv, inner, call, |cx| cx.none_value(), mc);
                if !matches!(self.resolve(&out.ty), Ty::Option(_) | Ty::Err) {
                    let msg = format!("the closure given to `and_then` must return an `Option`, not `{}`", self.show(&out.ty));
                    self.err_at(&mc.args[0], msg);
                }
                out
            }
            "filter" | "is_some_and" => {
                let keep = method == "filter";
                let tested = self.option_match(
                    recv,
                    inner.clone(),
                    |cx, v| {
                        let c = call(cx, v.clone());
                        cx.expect_at(&mc.args[0], &Ty::Bool, &c.ty);
                        if !keep {
                            return c;
                        }
                        let some = cx.some_value(v);
                        let none = cx.none_value();
                        let _ = cx.sh.infer.unify(&some.ty, &none.ty);
                        let then = Block { stmts: Vec::new(), tail: Some(Box::new(some.clone())), ty: some.ty.clone() };
                        ex(some.ty.clone(), ExprKind::If(Box::new(c), then, Some(Box::new(none))))
                    },
                    |cx| if keep { cx.none_value() } else { ex(Ty::Bool, ExprKind::Bool(false)) },
                    mc,
                );
                tested
            }
            "unwrap_or_else" => self.option_match(recv, inner, |_, v| v, |cx| cx.apply_fn(&mc.args[0], Vec::new()), mc),
            "or" => {
                let other = self.expr(&mc.args[0]);
                self.expect_at(&mc.args[0], &recv.ty.clone(), &other.ty);
                self.option_match(recv, inner, |cx, v| cx.some_value(v), |_| other, mc)
            }
            "or_else" => self.option_match(recv, inner, |cx, v| cx.some_value(v), |cx| cx.apply_fn(&mc.args[0], Vec::new()), mc),
            "map_or" => {
                let default = self.expr(&mc.args[0]);
                let f = &mc.args[1];
                self.option_match(recv, inner, |cx, v| cx.apply_fn(f, vec![Elem::Val(v, false)]), |_| default, mc)
            }
            "unwrap_or_default" => {
                let zero = match self.resolve(&inner) {
                    Ty::Int(_) => ex(inner.clone(), ExprKind::Int(0)),
                    Ty::Float(_) => ex(inner.clone(), ExprKind::Float(FloatLit::Value(0.0))),
                    Ty::Bool => ex(Ty::Bool, ExprKind::Bool(false)),
                    _ => {
                        self.err_at(&mc.method, "`unwrap_or_default` is supported on `Option`s of numbers and `bool`; write `unwrap_or(value)`");
                        return err_expr();
                    }
                };
                ex(inner, ExprKind::OptMethod(OptOp::UnwrapOr, Box::new(recv), vec![zero]))
            }
            _ => {
                self.err_at(&mc.method, format!("method `{method}` is not supported on `Option`; supported: is_some, is_none, is_some_and, unwrap, expect, unwrap_or, unwrap_or_else, unwrap_or_default, map, map_or, and_then, filter, or, or_else, take, replace, copied (or `match` / `if let Some(x)` / `?`)"));
                err_expr()
            }
        }
    }

    /// `o.take()` / `o.replace(v)`: the old value, leaving `None` / `Some(v)` in the place.
    fn option_take(&mut self, mc: &syn::ExprMethodCall, recv: Expr, inner: Ty) -> Expr {
        let n = if mc.method == "take" { 0 } else { 1 };
        if !self.arg_count(mc, n) {
            return err_expr();
        }
        if !is_place(&recv) {
            self.err_at(&mc.receiver, format!("`{}` changes the `Option` it is called on: call it on a local, a field or an element", mc.method));
            return err_expr();
        }
        let new = match mc.args.first() {
            Some(a) => {
                let v = self.expr(a);
                self.expect_at(a, &inner, &v.ty);
                self.some_value(v)
            }
            None => self.none_value(),
        };
        let _ = self.sh.infer.unify(&new.ty, &recv.ty);
        let ty = recv.ty.clone();
        let old = self.new_local_hidden(ty.clone());
        let (line, file) = loc(mc.span());
        let stmts = vec![
            Stmt { line, file: file.clone(), kind: StmtKind::Let(old, Some(recv.clone())) },
            Stmt { line, file, kind: StmtKind::Expr(ex(Ty::Unit, ExprKind::Assign(Box::new(recv), Box::new(new)))) },
        ];
        let tail = ex(ty.clone(), ExprKind::Local(old));
        ex(ty.clone(), ExprKind::Block(Block { stmts, tail: Some(Box::new(tail)), ty }))
    }

    /// `e?` on an `Option` in a function that returns an `Option`: the value, or `return None`.
    pub(super) fn try_expr(&mut self, t: &syn::ExprTry) -> Expr {
        if !self.frames.is_empty() {
            self.err_at(t, "`?` inside a closure is not supported (the closure is inlined); use `match` or `if let Some(x)`");
            return err_expr();
        }
        let v = self.expr(&t.expr);
        let inner = match self.resolve(&v.ty) {
            Ty::Option(inner) => *inner,
            Ty::Err => return err_expr(),
            other => {
                let msg = format!("the `?` operator applies to `Option` values in megakernel code (no `Result`), not to `{}`", self.show(&other));
                self.err_at(&t.expr, msg);
                return err_expr();
            }
        };
        if !matches!(self.resolve(&self.ret.clone()), Ty::Option(_) | Ty::Err) {
            let msg = format!("the `?` operator can only be used in a function that returns `Option`; this one returns `{}`", self.show(&self.ret.clone()));
            self.err_at(t, msg);
            return err_expr();
        }
        let x = self.new_local_hidden(inner.clone());
        let none = self.none_value();
        let _ = self.sh.infer.unify(&none.ty, &self.ret.clone());
        let ret = ex(Ty::Never, ExprKind::Return(Some(Box::new(none))));
        let arms = vec![
            Arm { pat: Pat::Some(Box::new(Pat::Bind(x))), guard: None, body: ex(inner.clone(), ExprKind::Local(x)) },
            Arm { pat: Pat::Wild, guard: None, body: ret },
        ];
        ex(inner, ExprKind::Match(Box::new(v), arms))
    }
}

/// Whether `x` names a place (a local, a field or element of one, or through a reference).
pub(super) fn is_place(x: &Expr) -> bool {
    match &x.kind {
        ExprKind::Local(_) | ExprKind::Deref(_) | ExprKind::SliceIndex(..) | ExprKind::Error => true,
        ExprKind::Field(b, _) | ExprKind::Index(b, _, _, _) | ExprKind::TupleField(b, _) => is_place(b),
        _ => false,
    }
}
