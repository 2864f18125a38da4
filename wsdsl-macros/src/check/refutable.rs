//! Refutable patterns outside `match`: `let PAT = value else { .. };`, `matches!(value, PAT)`,
//! and `==`/`!=` on `Option`s, each rewritten to a `match` in the typed body.

use super::*;
use syn::parse::Parser;

impl Cx<'_> {
    /// `let PAT = value else { diverge };` is
    /// `let (a, b) = match value { PAT => (a, b), _ => diverge };` over the names `PAT` binds.
    pub(super) fn let_else(&mut self, pat: &syn::Pat, ann: Option<&syn::Type>, init: &syn::LocalInit) -> Vec<StmtKind> {
        let Some((_, diverge)) = &init.diverge else { return Vec::new() };
        let value = self.expr(&init.expr);
        let ty = match ann.map(|t| parse_param_type(t, &self.value_structs, &self.m.type_names)) {
            Some(Ok(t)) => {
                self.expect_at(&init.expr, &t, &value.ty);
                t
            }
            Some(Err(e)) => {
                self.errors.push(e);
                Ty::Err
            }
            None => value.ty.clone(),
        };
        self.scopes.push(Vec::new());
        let p = self.pattern(pat, &ty);
        let bound: Vec<(String, LocalId)> = self
            .scopes
            .pop()
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(n, b)| match b {
                Bind::Local(id) => Some((n, id)),
                _ => None,
            })
            .collect();
        let otherwise = self.expr(diverge);
        if !matches!(self.resolve(&otherwise.ty), Ty::Never | Ty::Err) {
            let msg = format!("the `else` block of a `let ... else` must diverge (`return`, `break`, `continue` or a panic); this one has type `{}`", self.show(&otherwise.ty));
            self.err_at(diverge, msg);
        }
        let local = |cx: &Self, id: LocalId| ex(cx.locals[id].ty.clone(), ExprKind::Local(id));
        let (body, bty) = match &bound[..] {
            [] => (ex(Ty::Unit, ExprKind::Unit), Ty::Unit),
            [(_, id)] => (local(self, *id), self.locals[*id].ty.clone()),
            _ => {
                let elems: Vec<Expr> = bound.iter().map(|(_, id)| local(self, *id)).collect();
                let t = Ty::Tuple(elems.iter().map(|e| e.ty.clone()).collect());
                (ex(t.clone(), ExprKind::TupleLit(elems)), t)
            }
        };
        let arms = vec![Arm { pat: p, guard: None, body }, Arm { pat: Pat::Wild, guard: None, body: otherwise }];
        let taken = ex(bty.clone(), ExprKind::Match(Box::new(value), arms));
        match &bound[..] {
            [] => vec![StmtKind::Expr(taken)],
            [(name, _)] => {
                let id = self.new_local(name, bty);
                vec![StmtKind::Let(id, Some(taken))]
            }
            _ => {
                let all = self.new_local_hidden(bty.clone());
                let mut out = vec![StmtKind::Let(all, Some(taken))];
                for (i, (name, id)) in bound.iter().enumerate() {
                    let t = self.locals[*id].ty.clone();
                    let field = ex(t.clone(), ExprKind::TupleField(Box::new(ex(bty.clone(), ExprKind::Local(all))), i));
                    let outer = self.new_local(name, t);
                    out.push(StmtKind::Let(outer, Some(field)));
                }
                out
            }
        }
    }

    /// `matches!(value, PAT)` / `matches!(value, PAT if guard)`.
    pub(super) fn matches_macro(&mut self, mac: &syn::Macro) -> Expr {
        let parse = |input: syn::parse::ParseStream| {
            let value: syn::Expr = input.parse()?;
            input.parse::<syn::Token![,]>()?;
            let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
            let guard = if input.peek(syn::Token![if]) {
                input.parse::<syn::Token![if]>()?;
                Some(input.parse::<syn::Expr>()?)
            } else {
                None
            };
            let _ = input.parse::<Option<syn::Token![,]>>()?;
            Ok((value, pat, guard))
        };
        let (value, pat, guard) = match parse.parse2(mac.tokens.clone()) {
            Ok(parts) => parts,
            Err(e) => {
                // At the invocation: the parser's own span is the end of the input when
                // something is missing, which has no place in the source.
                self.errors.push(syn::Error::new_spanned(mac, format!("{e}; write `matches!(value, PATTERN)` or `matches!(value, PATTERN if condition)`")));
                return err_expr();
            }
        };
        let v = self.expr(&value);
        self.scopes.push(Vec::new());
        let p = self.pattern(&pat, &v.ty.clone());
        let guard = guard.map(|g| {
            let gx = self.expr(&g);
            self.expect_at(&g, &Ty::Bool, &gx.ty);
            gx
        });
        self.scopes.pop();
        let yes = ex(Ty::Bool, ExprKind::Bool(true));
        let no = ex(Ty::Bool, ExprKind::Bool(false));
        let arms = vec![Arm { pat: p, guard, body: yes }, Arm { pat: Pat::Wild, guard: None, body: no }];
        ex(Ty::Bool, ExprKind::Match(Box::new(v), arms))
    }

    /// `a == b` / `a != b` on `Option`s: `match (a, b) { (Some(x), Some(y)) => x == y,
    /// (None, None) => true, _ => false }`, negated for `!=`; the values compare as `==` of
    /// their type does (recursively for nested `Option`s).
    pub(super) fn option_eq(&mut self, op: BinOp, l: Expr, r: Expr, at: Span) -> Expr {
        let Ty::Option(inner) = self.resolve(&l.ty) else { return err_expr() };
        let inner = *inner;
        let (x, y) = (self.new_local_hidden(inner.clone()), self.new_local_hidden(inner.clone()));
        let (xe, ye) = (ex(inner.clone(), ExprKind::Local(x)), ex(inner.clone(), ExprKind::Local(y)));
        let same = match self.resolve(&inner) {
            Ty::Option(_) => self.option_eq(BinOp::Eq, xe, ye, at),
            t => {
                if !self.operand_ok(BinOp::Eq, &t) {
                    let msg = format!("`==` is not supported on `{}`, so neither on `Option`s of it; compare by `match`", self.show(&t));
                    self.err(at, msg);
                }
                ex(Ty::Bool, ExprKind::Binary(BinOp::Eq, Box::new(xe), Box::new(ye), 0))
            }
        };
        let pair_ty = Ty::Tuple(vec![l.ty.clone(), r.ty.clone()]);
        let pair = ex(pair_ty, ExprKind::TupleLit(vec![l, r]));
        let some = |id| Pat::Some(Box::new(Pat::Bind(id)));
        let arms = vec![
            Arm { pat: Pat::Tuple(vec![some(x), some(y)]), guard: None, body: same },
            Arm { pat: Pat::Tuple(vec![Pat::None, Pat::None]), guard: None, body: ex(Ty::Bool, ExprKind::Bool(true)) },
            Arm { pat: Pat::Wild, guard: None, body: ex(Ty::Bool, ExprKind::Bool(false)) },
        ];
        let eq = ex(Ty::Bool, ExprKind::Match(Box::new(pair), arms));
        match op {
            BinOp::Ne => ex(Ty::Bool, ExprKind::Unary(UnOp::Not, Box::new(eq))),
            _ => eq,
        }
    }

    /// `(a..b).contains(&x)` / `(a..=b).contains(&x)`: the bounds, then `x`, evaluated once.
    pub(super) fn range_contains(&mut self, r: &syn::ExprRange, mc: &syn::ExprMethodCall) -> Expr {
        let (Some(lo), Some(hi)) = (&r.start, &r.end) else {
            self.err_at(r, "`contains` needs both bounds of the range: `(a..b).contains(&x)`");
            return err_expr();
        };
        if mc.args.len() != 1 {
            self.err(mc.span(), "`contains` takes 1 argument");
            return err_expr();
        }
        let (lo, hi) = (self.expr(lo), self.expr(hi));
        let arg = match peel(&mc.args[0]) {
            syn::Expr::Reference(x) if x.mutability.is_none() => &*x.expr,
            other => {
                self.err_at(other, "`contains` takes a reference: `(a..b).contains(&x)`");
                return err_expr();
            }
        };
        let x = self.expr(arg);
        let _ = self.sh.infer.unify(&lo.ty, &hi.ty);
        self.expect_at(arg, &lo.ty.clone(), &x.ty);
        if !matches!(self.resolve(&lo.ty), Ty::Int(_) | Ty::Float(_) | Ty::Var(_) | Ty::Err) {
            let msg = format!("`contains` is supported on ranges of numbers, not of `{}`", self.show(&lo.ty));
            self.err_at(r, msg);
        }
        let ty = lo.ty.clone();
        let ids: Vec<LocalId> = (0..3).map(|_| self.new_local_hidden(ty.clone())).collect();
        let (line, file) = loc(mc.span());
        let stmts = ids.iter().zip([lo, hi, x]).map(|(id, v)| Stmt { line, file: file.clone(), kind: StmtKind::Let(*id, Some(v)) }).collect();
        let get = |id: LocalId| Box::new(ex(ty.clone(), ExprKind::Local(id)));
        let above = ex(Ty::Bool, ExprKind::Binary(BinOp::Le, get(ids[0]), get(ids[2]), 0));
        let upper = if matches!(r.limits, syn::RangeLimits::Closed(_)) { BinOp::Le } else { BinOp::Lt };
        let below = ex(Ty::Bool, ExprKind::Binary(upper, get(ids[2]), get(ids[1]), 0));
        let tail = ex(Ty::Bool, ExprKind::And(Box::new(above), Box::new(below)));
        ex(Ty::Bool, ExprKind::Block(Block { stmts, tail: Some(Box::new(tail)), ty: Ty::Bool }))
    }
}
