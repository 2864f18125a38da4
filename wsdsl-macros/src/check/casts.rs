//! Conversions between numbers: `as` casts (also from `bool`, `Ordering` and field-less
//! enums) and the standard library's lossless `T::from(x)`.

use super::*;

impl<'a> Cx<'a> {
    pub(super) fn cast(&mut self, c: &syn::ExprCast) -> Expr {
        let inner = self.expr(&c.expr);
        let target = match self.parse_type(&c.ty) {
            Ok(t) => t,
            Err(e) => {
                self.errors.push(e);
                return err_expr();
            }
        };
        if !matches!(target, Ty::Int(_) | Ty::Float(_)) {
            self.err_at(&c.ty, "`as` casts are supported to integer and float types only");
            return err_expr();
        }
        // rustc types a bare literal under `as` by the target type: `1 as u64` is a u64 literal.
        let mut lit = peel(&c.expr);
        if let syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) = lit {
            lit = peel(expr);
        }
        if let syn::Expr::Lit(_) = lit {
            if let Some(k) = self.sh.infer.var_kind(&inner.ty) {
                let fits = match (&target, k) {
                    (Ty::Int(_), VarKind::Int) | (Ty::Float(_), VarKind::Float) => true,
                    _ => false,
                };
                if fits {
                    let _ = self.sh.infer.unify(&inner.ty, &target);
                }
            }
        }
        let src = self.resolve(&inner.ty);
        let ok = match (&src, &target) {
            (Ty::Int(_) | Ty::Float(_) | Ty::Var(_) | Ty::Err, _) => true,
            (Ty::Bool | Ty::Ordering, Ty::Int(_)) => true,
            (Ty::Enum(e), Ty::Int(_)) => !self.m.enum_def(e).is_some_and(|e| e.has_data()),
            _ => false,
        };
        if !ok {
            let msg = format!("casting `{}` as `{}` is not supported", self.show(&src), crate::types::rust_name(&target));
            self.err_at(&c, msg);
        }
        ex(target, ExprKind::Cast(Box::new(inner)))
    }

    /// `u64::from(x)`, `f64::from(x)`: the standard library's lossless conversions between
    /// numbers (and from `bool`), a cast once checked; one the library lacks (it could lose
    /// bits, or its size depends on the target) is refused with the way to write it.
    pub(super) fn from_conversion(&mut self, c: &syn::ExprCall, target: Ty) -> Expr {
        let name = crate::types::rust_name(&target);
        if c.args.len() != 1 {
            self.err_at(&c, format!("`{name}::from` takes 1 argument"));
            return err_expr();
        }
        let a = self.expr(&c.args[0]);
        let src = self.resolve(&a.ty);
        if !matches!(src, Ty::Err | Ty::Var(_)) && !lossless(&src, &target) {
            let msg = format!(
                "the standard library has no `From<{}>` for `{name}` (the conversion could lose bits, or depends on the target's pointer size); cast with `as {name}`",
                self.show(&src)
            );
            self.err_at(&c.args[0], msg);
            return err_expr();
        }
        ex(target, ExprKind::Cast(Box::new(a)))
    }
}

/// Whether the standard library implements `From<src>` for `dst` (numbers and `bool`): every
/// conversion that keeps every value, except into and out of the pointer-sized integers,
/// which it offers only from the narrowest types.
fn lossless(src: &Ty, dst: &Ty) -> bool {
    match (src, dst) {
        _ if src == dst => true,
        (Ty::Bool, Ty::Int(_)) => true,
        (Ty::Int(s), Ty::Int(d)) => match (*s, *d) {
            (IntTy::Usize | IntTy::Isize, _) => false,
            (s, IntTy::Usize) => matches!(s, IntTy::U8 | IntTy::U16),
            (s, IntTy::Isize) => matches!(s, IntTy::U8 | IntTy::I8 | IntTy::I16),
            (s, d) => s.bits() < d.bits() && (s.signed() == d.signed() || d.signed()),
        },
        // Every value of the integer fits the float's mantissa.
        (Ty::Int(s), Ty::Float(f)) => !matches!(s, IntTy::Usize | IntTy::Isize) && s.bits() <= if *f == FloatTy::F64 { 32 } else { 16 },
        (Ty::Float(FloatTy::F32), Ty::Float(FloatTy::F64)) => true,
        _ => false,
    }
}
