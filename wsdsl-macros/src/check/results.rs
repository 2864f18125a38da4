//! `Result<T, E>` as the value of `binary_search` and its relatives (`Ok(position)` or
//! `Err(insertion point)`): taken apart by `match`, `if let`, `let .. else` and `matches!`
//! with `Ok(p)` / `Err(p)` patterns, and by the methods `is_ok`, `is_err`, `ok`, `err`,
//! `unwrap`, `expect`, `unwrap_or`, `unwrap_or_else`, `unwrap_or_default` (each a test of
//! the flag, closures inlined where Rust calls them). Functions still cannot take or return
//! one, and `?` applies to `Option`s only.
//!
//! C: `ws_res_<T>_<E>` `{ bool f0; T f1; E f2; }`, the flag and both values in the fields of
//! a three-element tuple, so that `Ok(p)` is the tuple pattern `(true, p, _)` and `Err(p)` is
//! `(false, _, p)`.

use super::closures::Elem;
use super::panic::Piece;
use super::*;

impl Cx<'_> {
    /// `Ok(p)` or `Err(p)` as a pattern on a value of type `ty`, if `ts` is one.
    pub(super) fn result_pattern(&mut self, ts: &syn::PatTupleStruct, ty: &Ty) -> Option<Pat> {
        let ok = match ts.path.get_ident()?.to_string().as_str() {
            "Ok" => true,
            "Err" => false,
            _ => return None,
        };
        if self.lookup(if ok { "Ok" } else { "Err" }).is_some() || ts.elems.len() != 1 {
            return None;
        }
        let Ty::Result(v, e) = self.resolve(ty) else {
            return Some(self.pat_mismatch(ts, ty, "Result<_, _>"));
        };
        let inner = if ok { self.pattern(&ts.elems[0], &v) } else { self.pattern(&ts.elems[0], &e) };
        Some(Pat::Tuple(if ok { vec![Pat::Bool(true), inner, Pat::Wild] } else { vec![Pat::Bool(false), Pat::Wild, inner] }))
    }

    /// A method of the `Result` `recv`, whose `Ok` and `Err` types are `v` and `e`.
    pub(super) fn result_method(&mut self, mc: &syn::ExprMethodCall, recv: Expr, v: Ty, e: Ty) -> Expr {
        let method = mc.method.to_string();
        let want = match method.as_str() {
            "unwrap_or" | "unwrap_or_else" | "expect" => 1,
            _ => 0,
        };
        if mc.args.len() != want {
            self.err(mc.span(), format!("`{method}` takes {want} argument(s) but {} were supplied", mc.args.len()));
            return err_expr();
        }
        // The value is read once: the flag and the values are fields of a local.
        let (line, file) = loc(mc.span());
        let r = self.new_local_hidden(recv.ty.clone());
        let mut stmts = vec![Stmt { line, file: file.clone(), kind: StmtKind::Let(r, Some(recv.clone())) }];
        let local = ex(recv.ty.clone(), ExprKind::Local(r));
        let part = |i: usize, t: &Ty| ex(t.clone(), ExprKind::TupleField(Box::new(local.clone()), i));
        let (flag, ok, err) = (part(0, &Ty::Bool), part(1, &v), part(2, &e));
        let choose = |cond: Expr, a: Expr, b: Expr| {
            let ty = a.ty.clone();
            let then = Block { stmts: Vec::new(), tail: Some(Box::new(a)), ty: ty.clone() };
            ex(ty, ExprKind::If(Box::new(cond), then, Some(Box::new(b))))
        };
        let value = match method.as_str() {
            "is_ok" => flag,
            "is_err" => ex(Ty::Bool, ExprKind::Unary(UnOp::Not, Box::new(flag))),
            "ok" => ex(Ty::Option(Box::new(v.clone())), ExprKind::OptFrom(Box::new(flag), Box::new(ok))),
            "err" => ex(Ty::Option(Box::new(e.clone())), ExprKind::OptFrom(Box::new(ex(Ty::Bool, ExprKind::Unary(UnOp::Not, Box::new(flag)))), Box::new(err))),
            "unwrap_or" => {
                // The default is evaluated before the call, as every argument is.
                let d = self.expr(&mc.args[0]);
                self.expect_at(&mc.args[0], &v, &d.ty);
                let dl = self.new_local_hidden(v.clone());
                stmts.push(Stmt { line, file, kind: StmtKind::Let(dl, Some(d)) });
                choose(flag, ok, ex(v.clone(), ExprKind::Local(dl)))
            }
            "unwrap_or_else" => {
                let d = self.apply_fn(&mc.args[0], vec![Elem::Val(err, true)]);
                self.expect_at(&mc.args[0], &v, &d.ty);
                choose(flag, ok, d)
            }
            "unwrap_or_default" if matches!(self.resolve(&v), Ty::Int(_)) => choose(flag, ok, ex(v.clone(), ExprKind::Int(0))),
            "unwrap" | "expect" => {
                let text = if method == "unwrap" {
                    "called `Result::unwrap()` on an `Err` value: ".to_string()
                } else {
                    match mc.args.first().map(peel) {
                        Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. })) => format!("{}: ", s.value()),
                        _ => {
                            self.err_at(&mc.args, "`expect` takes its message as a string literal, e.g. `expect(\"found\")`");
                            return err_expr();
                        }
                    }
                };
                // Rust shows the error with `{:?}`; the GPU carries it when it is a number.
                let shown = matches!(self.resolve(&e), Ty::Int(_) | Ty::Bool | Ty::Float(_));
                let message = vec![Piece::Text(text), if shown { Piece::Value { word: 0, ty: e.clone(), debug: true } } else { Piece::Text("<not shown on the GPU>".into()) }];
                let panic = self.panic_expr(mc.method.span(), message, vec![(err, shown.then_some(0))]);
                let then = Block { stmts: Vec::new(), tail: Some(Box::new(ok)), ty: v.clone() };
                ex(v.clone(), ExprKind::If(Box::new(flag), then, Some(Box::new(panic))))
            }
            _ => {
                self.err_at(&mc.method, format!("method `{method}` is not supported on `Result`; supported: is_ok, is_err, ok, err, unwrap, expect, unwrap_or, unwrap_or_else, unwrap_or_default (or `match` with `Ok(i)` / `Err(i)`)"));
                return err_expr();
            }
        };
        let ty = value.ty.clone();
        ex(ty.clone(), ExprKind::Block(Block { stmts, tail: Some(Box::new(value)), ty }))
    }
}
