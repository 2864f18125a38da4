//! Unary and binary operators, with rustc's rules for their operands: both of one type (no
//! implicit widening), shift amounts of any integer type, `==` of structs and tuples field by
//! field as the derived `PartialEq` compares, and the two fault sites of integer `/` and `%`.

use super::*;

impl<'a> Cx<'a> {
    pub(super) fn unary(&mut self, u: &syn::ExprUnary) -> Expr {
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
    pub(super) fn operand_ok(&mut self, op: BinOp, ty: &Ty) -> bool {
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

    pub(super) fn binary(&mut self, b: &syn::ExprBinary) -> Expr {
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
                // `MIN / -1` (`WS_SDIV` in `core/rust_semantics.cuh`).
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
}
