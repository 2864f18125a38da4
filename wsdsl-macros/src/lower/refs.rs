//! Places and references. A place (a local, its fields and elements, `*r`) lowers to a C
//! lvalue of the memory itself, never of a copy: an assignment and a write through `&mut`
//! must reach the variable. `&place` is the address of that lvalue, `&value` the address of
//! a temporary holding the value (as Rust borrows a temporary until the end of the
//! statement), `*r` a C dereference. A slice `&a[i..j]` points into the place `a` (or
//! into the slice `a` points to), after Rust's bounds checks (`ws_range`).

use super::expr::is_const;
use super::FnLower;
use crate::ir::{Expr, ExprKind};
use crate::types::Ty;

/// Whether `e` names memory: a local, a field or element of one, or a dereference.
fn is_place(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(_) | ExprKind::Deref(_) | ExprKind::Param(_) | ExprKind::SliceIndex(..) => true,
        ExprKind::Field(b, _) | ExprKind::TupleField(b, _) | ExprKind::Index(b, _, _, _) => is_place(b),
        _ => false,
    }
}

impl FnLower<'_> {
    /// `&x` / `&mut x`: a pointer to the place `x`, or to a temporary holding its value.
    pub fn addr_of(&mut self, x: &Expr, out: &mut Vec<String>) -> Option<String> {
        let p = self.place_or_temp(x, out)?;
        Some(format!("(&({p}))"))
    }

    /// The C lvalue of `x`: the place itself, or a temporary holding its value.
    fn place_or_temp(&mut self, x: &Expr, out: &mut Vec<String>) -> Option<String> {
        if is_place(x) {
            return Some(self.place(x, out));
        }
        let v = self.expr(x, out)?;
        let (t, cty) = (self.fresh(), self.cty(&x.ty));
        out.push(format!("{cty} {t} = {v};"));
        Some(t)
    }

    /// A slice of type `ty` of the array place `base` (of length `len`) or of the slice
    /// `base` (`len` `None`), between `bounds` (missing: the ends), checked as Rust does
    /// unless there are no bounds (`site` `u32::MAX`).
    pub fn slicing(&mut self, ty: &Ty, base: &Expr, bounds: [Option<&Expr>; 2], len: Option<u64>, site: u32, out: &mut Vec<String>) -> Option<String> {
        let (ptr, n) = match len {
            Some(n) => (format!("({}).v", self.place_or_temp(base, out)?), format!("{n}ull")),
            // A slice is a local or a parameter: naming it twice evaluates nothing twice.
            None => {
                let s = self.expr(base, out)?;
                (format!("({s}).v"), format!("({s}).n"))
            }
        };
        let (t, cty) = (self.fresh(), self.cty(ty));
        out.push(format!("{cty} {t};"));
        if site == u32::MAX {
            out.push(format!("{t}.v = {ptr}; {t}.n = {n};"));
            return Some(t);
        }
        let mut ends = Vec::new();
        for (b, default) in bounds.into_iter().zip(["0", n.as_str()]) {
            let v = match b {
                Some(b) => self.expr(b, out).unwrap_or_else(|| "0".into()),
                None => default.to_string(),
            };
            let e = self.fresh();
            out.push(format!("ws_usize {e} = {v};"));
            ends.push(e);
        }
        let (s, e) = (&ends[0], &ends[1]);
        out.push(format!("ws_range(&{s}, &{e}, {n}, {site}u);"));
        out.push(format!("{t}.v = {ptr} + {s}; {t}.n = {e} - {s};"));
        Some(t)
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
            ExprKind::Field(b, f) => format!("({}).{}", self.place(b, out), crate::names::user(f)),
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
