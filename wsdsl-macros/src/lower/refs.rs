//! Places and references. A place (a local, its fields and elements, `*r`) lowers to a C
//! lvalue of the memory itself, never of a copy: an assignment and a write through `&mut`
//! must reach the variable. `&place` is the address of that lvalue, `&value` the address of
//! a temporary holding the value (as Rust borrows a temporary until the end of the
//! statement), `*r` a C dereference.

use super::expr::is_const;
use super::FnLower;
use crate::ir::{Expr, ExprKind};

/// Whether `e` names memory: a local, a field or element of one, or a dereference.
fn is_place(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(_) | ExprKind::Deref(_) | ExprKind::Param(_) => true,
        ExprKind::Field(b, _) | ExprKind::TupleField(b, _) | ExprKind::Index(b, _, _, _) => is_place(b),
        _ => false,
    }
}

impl FnLower<'_> {
    /// `&x` / `&mut x`: a pointer to the place `x`, or to a temporary holding its value.
    pub fn addr_of(&mut self, x: &Expr, out: &mut Vec<String>) -> Option<String> {
        if is_place(x) {
            let p = self.place(x, out);
            return Some(format!("(&({p}))"));
        }
        let v = self.expr(x, out)?;
        let (t, cty) = (self.fresh(), self.cty(&x.ty));
        out.push(format!("{cty} {t} = {v};"));
        Some(format!("(&{t})"))
    }

    /// `place = val` and `place op= val`: the C lvalue and the value, evaluated as Rust does
    /// (the value first), the value kept in a temporary if the place's indices run statements.
    pub fn assign_parts(&mut self, place: &Expr, val: &Expr, out: &mut Vec<String>) -> (String, String) {
        let v = self.expr(val, out).unwrap_or_else(|| "0".into());
        let mut s = Vec::new();
        let p = self.place(place, &mut s);
        if s.is_empty() || is_const(&v) {
            out.append(&mut s);
            return (p, v);
        }
        let (t, cty) = (self.fresh(), self.cty(&val.ty));
        out.push(format!("{cty} {t} = {v};"));
        out.append(&mut s);
        (p, t)
    }

    /// The C lvalue of a place, evaluating its indices (in Rust's order: the base, then the
    /// index) but copying nothing.
    fn place(&mut self, e: &Expr, out: &mut Vec<String>) -> String {
        match &e.kind {
            ExprKind::Field(b, f) => format!("({}).u_{f}", self.place(b, out)),
            ExprKind::TupleField(b, i) => format!("({}).f{i}", self.place(b, out)),
            ExprKind::Index(b, i, n, site) => {
                let base = self.place(b, out);
                let mut s = Vec::new();
                let i = self.expr(i, &mut s).unwrap_or_else(|| "0".into());
                // An index computed by statements is kept, so that they run once.
                let i = if s.is_empty() {
                    i
                } else {
                    out.append(&mut s);
                    let t = self.fresh();
                    out.push(format!("ws_usize {t} = {i};"));
                    t
                };
                format!("({base}).v[ws_index({i}, {n}ull, {site}u)]")
            }
            _ => self.expr(e, out).unwrap_or_else(|| "0".into()),
        }
    }
}
