//! The consumers of an iterator chain: the loop's accumulators and the chain's value (see
//! `iterators.rs`).

use super::super::build::{bin, lit, not, usize_ty};
use super::super::closures::Elem;
use super::*;

impl Cx<'_> {
    pub(super) fn consume(&mut self, mc: &syn::ExprMethodCall, mut p: Pipeline) -> Expr {
        let name = mc.method.to_string();
        let sp = mc.method.span();
        let want = match name.as_str() {
            "fold" => 2,
            "sum" | "product" | "count" | "min" | "max" | "last" => 0,
            _ => 1,
        };
        if mc.args.len() != want {
            self.err(mc.span(), format!("`{name}` takes {want} argument(s) but {} were supplied", mc.args.len()));
            return err_expr();
        }
        let ety = p.elem.ty();
        let elem = p.elem.clone();
        let id = p.outer.id;
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
                p.body().push(self.assign(sp, acc, bin(op, self.local_expr(acc), elem.into_expr())));
                let tail = self.local_expr(acc);
                self.close(p, mc.span(), Some(tail), ety)
            }
            "count" => {
                let acc = self.counter("count", sp, &mut p.pre);
                p.body().push(self.incr(sp, acc));
                let tail = self.local_expr(acc);
                self.close(p, mc.span(), Some(tail), usize_ty())
            }
            "min" | "max" | "min_by_key" | "max_by_key" => {
                let max = name.starts_with("max");
                let key = if name.ends_with("_by_key") {
                    let k = self.apply_fn(&mc.args[0], vec![elem.clone()]);
                    let kid = self.hidden("key", k.ty.clone());
                    p.body().push(self.stmt_at(sp, StmtKind::Let(kid, Some(k))));
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
                p.body().push(self.when(sp, cond, then));
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
                p.body().push(self.when(sp, cond, then));
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
                p.body().push(self.when(sp, c, then));
                if let Some(cnt) = cnt {
                    p.body().push(self.incr(sp, cnt));
                }
                let opt = Ty::Option(Box::new(vty));
                let tail = ex(opt.clone(), ExprKind::OptFrom(Box::new(self.local_expr(found)), Box::new(self.local_expr(v))));
                self.close(p, mc.span(), Some(tail), opt)
            }
            "last" => {
                // Rust's `last` runs through the whole iterator (closures before it included).
                let found = self.hidden("found", Ty::Bool);
                let v = self.hidden("last", ety.clone());
                p.pre.push(self.stmt_at(sp, StmtKind::Let(found, Some(ex(Ty::Bool, ExprKind::Bool(false))))));
                p.pre.push(self.stmt_at(sp, StmtKind::Let(v, None)));
                let stmts = vec![self.assign(sp, v, elem.into_expr()), self.assign(sp, found, ex(Ty::Bool, ExprKind::Bool(true)))];
                p.body().extend(stmts);
                let opt = Ty::Option(Box::new(ety));
                let tail = ex(opt.clone(), ExprKind::OptFrom(Box::new(self.local_expr(found)), Box::new(self.local_expr(v))));
                self.close(p, mc.span(), Some(tail), opt)
            }
            "min_by" | "max_by" => {
                // Rust keeps the first element, then compares the kept one with each next:
                // `max_by` takes the next unless the kept one is greater, `min_by` only if it is.
                let found = self.hidden("found", Ty::Bool);
                let best = self.hidden("best", ety.clone());
                p.pre.push(self.stmt_at(sp, StmtKind::Let(found, Some(ex(Ty::Bool, ExprKind::Bool(false))))));
                p.pre.push(self.stmt_at(sp, StmtKind::Let(best, None)));
                let x = self.hidden("next", ety.clone());
                let mut stmts = vec![self.stmt_at(sp, StmtKind::Let(x, Some(elem.into_expr())))];
                let o = self.apply_fn(&mc.args[0], vec![Elem::Val(self.local_expr(best), true), Elem::Val(self.local_expr(x), true)]);
                self.expect_at(&mc.args[0], &Ty::Ordering, &o.ty);
                let greater = bin(BinOp::Eq, o, Self::ordering_lit(1));
                let take = if name == "max_by" { not(greater) } else { greater };
                let better = ex(Ty::Bool, ExprKind::Or(Box::new(not(self.local_expr(found))), Box::new(take)));
                stmts.push(self.when(sp, better, vec![self.assign(sp, best, self.local_expr(x)), self.assign(sp, found, ex(Ty::Bool, ExprKind::Bool(true)))]));
                p.body().extend(stmts);
                let opt = Ty::Option(Box::new(ety));
                let tail = ex(opt.clone(), ExprKind::OptFrom(Box::new(self.local_expr(found)), Box::new(self.local_expr(best))));
                self.close(p, mc.span(), Some(tail), opt)
            }
            "fold" => {
                let init = self.expr(&mc.args[0]);
                let ty = init.ty.clone();
                let acc = self.hidden("acc", ty.clone());
                p.pre.push(self.stmt_at(sp, StmtKind::Let(acc, Some(init))));
                let next = self.apply_fn(&mc.args[1], vec![Elem::Val(self.local_expr(acc), false), elem]);
                self.expect_at(&mc.args[1], &ty, &next.ty);
                p.body().push(self.assign(sp, acc, next));
                let tail = self.local_expr(acc);
                self.close(p, mc.span(), Some(tail), ty)
            }
            _ => {
                // for_each
                let r = self.apply_fn(&mc.args[0], vec![elem]);
                p.body().push(self.expr_stmt(sp, r));
                self.close(p, mc.span(), None, Ty::Unit)
            }
        }
    }
}
