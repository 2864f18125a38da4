//! `std::cmp::Ordering`: what `a.cmp(&b)`, `a.partial_cmp(&b)` and `a.total_cmp(&b)` return
//! and what the closures of `sort_by`, `min_by`, `max_by` and `binary_search_by` compute.
//! It is a value of its own type (`Ty::Ordering`, Rust's discriminant -1, 0 or 1 in a C
//! `ws_i8`): `Ordering::Less`/`Equal`/`Greater` (also as `std::cmp::Ordering::..` or
//! `cmp::Ordering::..`) as values and patterns, `==`, `<`.., `as` to an integer, and the
//! methods `reverse`, `then`, `then_with`, `is_eq`, `is_ne`, `is_lt`, `is_gt`, `is_le`,
//! `is_ge`.

use super::*;

const VARIANTS: [(&str, i8); 3] = [("Less", -1), ("Equal", 0), ("Greater", 1)];

impl Cx<'_> {
    /// The discriminant of `Ordering::<V>` if `segs` names one (and the module has no
    /// `Ordering` of its own).
    pub(super) fn ordering_variant(&self, segs: &[String]) -> Option<i8> {
        let (last, prefix) = segs.split_last()?;
        let path: Vec<&str> = prefix.iter().map(String::as_str).collect();
        let named = matches!(path[..], ["Ordering"] | ["cmp", "Ordering"] | ["std" | "core", "cmp", "Ordering"]);
        if !named || (path.len() == 1 && self.m.enum_def("Ordering").is_some()) {
            return None;
        }
        VARIANTS.iter().find(|(n, _)| n == last).map(|&(_, d)| d)
    }

    pub(super) fn ordering_lit(d: i8) -> Expr {
        ex(Ty::Ordering, ExprKind::OrderingLit(d))
    }

    /// `Ordering::<V>` as a pattern on a value of type `ty`.
    pub(super) fn ordering_pattern(&mut self, p: &syn::PatPath, ty: &Ty) -> Option<Pat> {
        let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let d = self.ordering_variant(&segs)?;
        if self.sh.infer.unify(ty, &Ty::Ordering).is_err() {
            return Some(self.pat_mismatch(p, ty, "Ordering"));
        }
        Some(Pat::Range(d as i128, d as i128))
    }

    /// A method argument Rust passes by reference (`a.cmp(&b)`, `s.contains(&x)`): the value.
    pub(super) fn by_ref_arg(&mut self, a: &syn::Expr) -> Expr {
        if let syn::Expr::Reference(r) = peel(a) {
            if r.mutability.is_none() {
                return self.expr(&r.expr);
            }
        }
        let x = self.expr(a);
        self.auto_deref(x)
    }

    /// `a.cmp(&b)`, `a.partial_cmp(&b)` or `a.total_cmp(&b)` on a number or a bool `recv` of
    /// type `rt`, if the method is one of those.
    pub(super) fn compare_method(&mut self, mc: &syn::ExprMethodCall, recv: &Expr, rt: &Ty) -> Option<Expr> {
        let method = match mc.method.to_string().as_str() {
            "cmp" => Method::Cmp,
            "partial_cmp" => Method::PartialCmp,
            "total_cmp" => Method::TotalCmp,
            _ => return None,
        };
        if *rt == Ty::Err {
            return Some(err_expr());
        }
        let ok = match method {
            Method::Cmp => matches!(rt, Ty::Int(_) | Ty::Bool),
            Method::TotalCmp => matches!(rt, Ty::Float(_)),
            _ => matches!(rt, Ty::Int(_) | Ty::Bool | Ty::Float(_)),
        };
        if !ok {
            let why = match method {
                Method::Cmp if matches!(rt, Ty::Float(_)) => "; floats are not `Ord`: use `partial_cmp` (`None` for a NaN) or `total_cmp`",
                Method::TotalCmp => "; `total_cmp` is a float method",
                _ => "; compare integers, floats and bools (a struct or tuple by its fields)",
            };
            let msg = format!("`{}` is not supported on `{}`{why}", mc.method, self.show(rt));
            self.err_at(&mc.method, msg);
            return Some(err_expr());
        }
        if mc.args.len() != 1 {
            self.err(mc.span(), format!("`{}` takes 1 argument but {} were supplied", mc.method, mc.args.len()));
            return Some(err_expr());
        }
        let other = self.by_ref_arg(&mc.args[0]);
        self.expect_at(&mc.args[0], rt, &other.ty);
        let ty = if method == Method::PartialCmp { Ty::Option(Box::new(Ty::Ordering)) } else { Ty::Ordering };
        Some(ex(ty, ExprKind::Method(method, Box::new(recv.clone()), vec![other])))
    }

    /// A method of an `Ordering`.
    pub(super) fn ordering_method(&mut self, mc: &syn::ExprMethodCall, recv: Expr) -> Expr {
        let method = mc.method.to_string();
        let want = if matches!(method.as_str(), "then" | "then_with") { 1 } else { 0 };
        if mc.args.len() != want {
            self.err(mc.span(), format!("`{method}` takes {want} argument(s) but {} were supplied", mc.args.len()));
            return err_expr();
        }
        let cmp = |op, a: Expr, d| ex(Ty::Bool, ExprKind::Binary(op, Box::new(a), Box::new(Self::ordering_lit(d)), u32::MAX));
        match method.as_str() {
            "is_eq" => cmp(BinOp::Eq, recv, 0),
            "is_ne" => cmp(BinOp::Ne, recv, 0),
            "is_lt" => cmp(BinOp::Lt, recv, 0),
            "is_gt" => cmp(BinOp::Gt, recv, 0),
            "is_le" => cmp(BinOp::Le, recv, 0),
            "is_ge" => cmp(BinOp::Ge, recv, 0),
            "reverse" => ex(Ty::Ordering, ExprKind::Unary(UnOp::Neg, Box::new(recv))),
            "then" | "then_with" => {
                // `self` unless it is `Equal`; `then_with` calls its closure only then.
                let (line, file) = loc(mc.span());
                let first = self.new_local_hidden(Ty::Ordering);
                let mut stmts = vec![Stmt { line, file: file.clone(), kind: StmtKind::Let(first, Some(recv)) }];
                let mut other = if method == "then" { self.expr(&mc.args[0]) } else { self.apply_fn(&mc.args[0], Vec::new()) };
                self.expect_at(&mc.args[0], &Ty::Ordering, &other.ty);
                if method == "then" {
                    // An argument is evaluated before the call, whatever `self` is.
                    let second = self.new_local_hidden(Ty::Ordering);
                    stmts.push(Stmt { line, file, kind: StmtKind::Let(second, Some(other)) });
                    other = ex(Ty::Ordering, ExprKind::Local(second));
                }
                let local = ex(Ty::Ordering, ExprKind::Local(first));
                let decided = cmp(BinOp::Ne, local.clone(), 0);
                let then = Block { stmts: Vec::new(), tail: Some(Box::new(local)), ty: Ty::Ordering };
                let choice = ex(Ty::Ordering, ExprKind::If(Box::new(decided), then, Some(Box::new(other))));
                ex(Ty::Ordering, ExprKind::Block(Block { stmts, tail: Some(Box::new(choice)), ty: Ty::Ordering }))
            }
            _ => {
                self.err_at(&mc.method, format!("method `{method}` is not supported on `Ordering`; supported: reverse, then, then_with, is_eq, is_ne, is_lt, is_gt, is_le, is_ge (or `match`)"));
                err_expr()
            }
        }
    }
}
