//! Paths as values: locals and the context, the module's consts, enum variants and associated
//! consts, and the constants of the number types (`u32::MAX`, `f64::INFINITY`,
//! `std::f64::consts::PI`).

use super::*;

impl<'a> Cx<'a> {
    pub(super) fn path(&mut self, p: &syn::ExprPath) -> Expr {
        let span = p.span();
        if p.qself.is_some() {
            self.err(span, "qualified paths are not supported");
            return err_expr();
        }
        let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() == 1 && segs[0] == "None" && self.lookup("None").is_none() {
            return self.none_value();
        }
        if segs.len() == 1 {
            return match self.lookup(&segs[0]) {
                Some(Bind::Local(id)) => ex(self.locals[id].ty.clone(), ExprKind::Local(id)),
                Some(Bind::Alias(x)) => (*x).clone(),
                Some(Bind::Closure(_)) => self.closure_value(p),
                Some(Bind::Ctx) => ex(Ty::Ctx, ExprKind::CtxRef),
                None if self.m.func(&segs[0]).is_some_and(|f| f.kind == FnKind::Const) => {
                    let f = self.m.func(&segs[0]).unwrap();
                    self.calls.push((segs[0].clone(), span));
                    ex(f.ret.clone(), ExprKind::Call(segs[0].clone(), Vec::new()))
                }
                None => {
                    self.err(span, format!("cannot find value `{}` in this scope (megakernel code sees its locals and the consts of its module)", segs[0]));
                    err_expr()
                }
            };
        }
        if let Some(c) = self.assoc_const(&segs, span) {
            return c;
        }
        if let Some(d) = self.ordering_variant(&segs) {
            return Self::ordering_lit(d);
        }
        if let Some(c) = float_const(&segs) {
            return c;
        }
        if segs.len() == 2 {
            if let Some(en) = self.m.enum_def(&segs[0]) {
                return match en.variant(&segs[1]) {
                    Some(_) if en.has_data() => self.enum_unit(p, &segs[0], &segs[1]),
                    Some(v) => ex(Ty::Enum(segs[0].clone()), ExprKind::Variant(v.disc)),
                    None => {
                        self.err(span, format!("no variant `{}` in enum `{}`", segs[1], segs[0]));
                        err_expr()
                    }
                };
            }
            if let Some(t) = IntTy::from_name(&segs[0]) {
                let v: Option<(Ty, u128)> = match segs[1].as_str() {
                    "MAX" => Some((Ty::Int(t), t.max() as u128)),
                    // Stored as the two's-complement bit pattern; lowering masks it to the width.
                    "MIN" => Some((Ty::Int(t), t.min() as u128)),
                    "BITS" => Some((Ty::Int(IntTy::U32), t.bits() as u128)),
                    _ => None,
                };
                if let Some((ty, v)) = v {
                    return ex(ty, ExprKind::Int(v));
                }
            }
            if let s @ ("f32" | "f64") = segs[0].as_str() {
                let ft = if s == "f32" { crate::types::FloatTy::F32 } else { crate::types::FloatTy::F64 };
                let f32v = |x: f32| x as f64;
                let v = match (segs[1].as_str(), ft) {
                    ("INFINITY", _) => Some(f64::INFINITY),
                    ("NEG_INFINITY", _) => Some(f64::NEG_INFINITY),
                    ("NAN", _) => Some(f64::NAN),
                    ("MAX", crate::types::FloatTy::F32) => Some(f32v(f32::MAX)),
                    ("MIN", crate::types::FloatTy::F32) => Some(f32v(f32::MIN)),
                    ("EPSILON", crate::types::FloatTy::F32) => Some(f32v(f32::EPSILON)),
                    ("MAX", _) => Some(f64::MAX),
                    ("MIN", _) => Some(f64::MIN),
                    ("EPSILON", _) => Some(f64::EPSILON),
                    _ => None,
                };
                if let Some(v) = v {
                    return ex(Ty::Float(ft), ExprKind::Float(FloatLit::Value(v)));
                }
            }
        }
        self.err(span, "unsupported path; supported are local variables, consts and enum variants of this module, and the constants `MIN`, `MAX`, `BITS` of integer types (e.g. `u32::MAX`), `INFINITY`, `NAN`, `MAX`, `MIN`, `EPSILON` of float types and the constants of `std::f32::consts` / `std::f64::consts` (`std::f64::consts::PI`)");
        err_expr()
    }
}

/// `std::f64::consts::PI` (also `core::`, or `f64::consts::PI`): Rust's constant of that type.
fn float_const(segs: &[String]) -> Option<Expr> {
    let (ty, name) = match segs {
        [root, t, c, name] if (root == "std" || root == "core") && c == "consts" => (t.as_str(), name.as_str()),
        [t, c, name] if c == "consts" => (t.as_str(), name.as_str()),
        _ => return None,
    };
    use std::{f32::consts as k32, f64::consts as k64};
    // Both of Rust's values, each rounded from the decimal as Rust rounds it.
    let (wide, narrow) = match name {
        "PI" => (k64::PI, k32::PI),
        "TAU" => (k64::TAU, k32::TAU),
        "E" => (k64::E, k32::E),
        "SQRT_2" => (k64::SQRT_2, k32::SQRT_2),
        "LN_2" => (k64::LN_2, k32::LN_2),
        "LN_10" => (k64::LN_10, k32::LN_10),
        "LOG2_E" => (k64::LOG2_E, k32::LOG2_E),
        "LOG10_E" => (k64::LOG10_E, k32::LOG10_E),
        "LOG2_10" => (k64::LOG2_10, k32::LOG2_10),
        "LOG10_2" => (k64::LOG10_2, k32::LOG10_2),
        "FRAC_PI_2" => (k64::FRAC_PI_2, k32::FRAC_PI_2),
        "FRAC_PI_3" => (k64::FRAC_PI_3, k32::FRAC_PI_3),
        "FRAC_PI_4" => (k64::FRAC_PI_4, k32::FRAC_PI_4),
        "FRAC_PI_6" => (k64::FRAC_PI_6, k32::FRAC_PI_6),
        "FRAC_PI_8" => (k64::FRAC_PI_8, k32::FRAC_PI_8),
        "FRAC_1_PI" => (k64::FRAC_1_PI, k32::FRAC_1_PI),
        "FRAC_2_PI" => (k64::FRAC_2_PI, k32::FRAC_2_PI),
        "FRAC_2_SQRT_PI" => (k64::FRAC_2_SQRT_PI, k32::FRAC_2_SQRT_PI),
        "FRAC_1_SQRT_2" => (k64::FRAC_1_SQRT_2, k32::FRAC_1_SQRT_2),
        _ => return None,
    };
    let (ft, v) = match ty {
        "f32" => (FloatTy::F32, narrow as f64),
        "f64" => (FloatTy::F64, wide),
        _ => return None,
    };
    Some(ex(Ty::Float(ft), ExprKind::Float(FloatLit::Value(v))))
}
