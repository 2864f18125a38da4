//! Literals. An unsuffixed number literal gets an inference variable (`infer.rs`): its type
//! comes from where it is used, as in rustc, so its value can be checked against the range
//! of that type (and the negation of an unsigned one refused) only once every body is typed.

use super::*;

/// An integer literal whose value is checked against its type once inference is done.
pub(super) struct LitCheck {
    span: Span,
    ty: Ty,
    value: u128,
    negated: bool,
}

impl<'a> Cx<'a> {
    /// An integer literal (a float one when its suffix says so); `negated`: the operand of a
    /// unary `-`, whose range reaches one further below zero.
    pub(super) fn int_lit(&mut self, lit: &syn::LitInt, negated: bool) -> Expr {
        let suffix = lit.suffix();
        if suffix == "f32" || suffix == "f64" {
            let ft = if suffix == "f32" { crate::types::FloatTy::F32 } else { crate::types::FloatTy::F64 };
            return ex(Ty::Float(ft), ExprKind::Float(FloatLit::Text(lit.base10_digits().to_string())));
        }
        let ty = if suffix.is_empty() {
            self.sh.infer.fresh(VarKind::Int)
        } else if let Some(t) = IntTy::from_name(suffix) {
            Ty::Int(t)
        } else {
            self.err_at(&lit, format!("unsupported literal suffix `{suffix}`"));
            return err_expr();
        };
        let value = match lit.base10_parse::<u128>() {
            Ok(v) => v,
            Err(_) => {
                self.err_at(&lit, "integer literal is too large");
                return err_expr();
            }
        };
        self.sh.lits.push(LitCheck { span: lit.span(), ty: ty.clone(), value, negated });
        ex(ty, ExprKind::Int(value))
    }

    /// A literal: an integer (`int_lit`), a float, whose type an unsuffixed one leaves to
    /// inference, or a `bool`.
    pub(super) fn literal(&mut self, l: &syn::ExprLit) -> Expr {
        match &l.lit {
            syn::Lit::Int(i) => self.int_lit(i, false),
            syn::Lit::Float(f) => {
                let ty = match f.suffix() {
                    "" => self.sh.infer.fresh(VarKind::Float),
                    "f32" => Ty::Float(crate::types::FloatTy::F32),
                    "f64" => Ty::Float(crate::types::FloatTy::F64),
                    s => {
                        self.err_at(&f, format!("unsupported literal suffix `{s}`"));
                        return err_expr();
                    }
                };
                ex(ty, ExprKind::Float(FloatLit::Text(f.base10_digits().to_string())))
            }
            syn::Lit::Bool(b) => ex(Ty::Bool, ExprKind::Bool(b.value)),
            other => {
                self.err_at(&other, "only integer, float and bool literals are supported in megakernel code");
                err_expr()
            }
        }
    }
}

/// The errors of the literals out of the range of their type and of the negated values of
/// unsigned types, known once every body is typed.
pub(super) fn range_errors(sh: &Shared, errors: &mut Vec<syn::Error>) {
    for l in &sh.lits {
        if let Ty::Int(t) = sh.infer.resolve(&l.ty) {
            if l.negated && !t.signed() {
                continue; // reported as a negation of an unsigned type
            }
            let limit = if l.negated { (-t.min()) as u128 } else { t.max() as u128 };
            if l.value > limit {
                errors.push(syn::Error::new(
                    l.span,
                    format!("literal out of range for `{}` (its range is {}..={})", t.name(), t.min(), t.max()),
                ));
            }
        }
    }
    for (span, ty) in &sh.negs {
        if let Ty::Int(t) = sh.infer.resolve(ty) {
            if !t.signed() {
                errors.push(syn::Error::new(
                    *span,
                    format!("cannot apply unary operator `-` to type `{}`; unsigned values cannot be negated (use `wrapping_neg()`)", t.name()),
                ));
            }
        }
    }
}
