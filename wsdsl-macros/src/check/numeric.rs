//! Number methods whose Rust definitions are a few operations, some with a panic: `clamp`
//! of integers and floats, `rem_euclid` / `div_euclid` of both; of integers `ilog2`,
//! `leading_ones`, `trailing_ones`, and of unsigned ones `div_ceil`, `next_power_of_two`. Each is
//! written out here as std defines it (its operands evaluated once, in order; the same
//! panics with the same messages), so every backend runs the same arithmetic.

use super::build::{bin, lit};
use super::*;

/// The methods this file writes out, and what each takes besides the receiver (of the
/// receiver's type).
const NUMERIC_METHODS: &[(&str, usize)] = &[
    ("clamp", 2),
    ("rem_euclid", 1),
    ("div_euclid", 1),
    ("ilog2", 0),
    ("leading_ones", 0),
    ("trailing_ones", 0),
    ("div_ceil", 1),
    ("next_power_of_two", 0),
];

/// Those of integers only, and of those the ones of unsigned integers only.
const INTEGER_ONLY: &[&str] = &["ilog2", "leading_ones", "trailing_ones", "div_ceil", "next_power_of_two"];
const UNSIGNED_ONLY: &[&str] = &["div_ceil", "next_power_of_two"];

/// The names of this file's methods of integers, or (`float`) of floats.
pub(super) fn numeric_methods(float: bool) -> Vec<&'static str> {
    NUMERIC_METHODS.iter().map(|&(n, _)| n).filter(|&n| has(n, float)).collect()
}

/// Whether `name` is one of this file's methods of integers, or (`float`) of floats.
pub(super) fn has(name: &str, float: bool) -> bool {
    NUMERIC_METHODS.iter().any(|(n, _)| *n == name) && !(float && INTEGER_ONLY.contains(&name))
}

/// Whether `method` of a value of (resolved) type `rt` is one of this file's.
pub(super) fn is_numeric_method(method: &str, rt: &Ty) -> bool {
    matches!(rt, Ty::Int(_) | Ty::Float(_)) && has(method, matches!(rt, Ty::Float(_)))
}

impl Cx<'_> {
    /// `recv.<method>(..)` of a number (`rt` its resolved type), for a method that
    /// [`is_numeric_method`].
    pub(super) fn numeric_method(&mut self, mc: &syn::ExprMethodCall, recv: Expr, rt: &Ty) -> Expr {
        let name = mc.method.to_string();
        let arity = NUMERIC_METHODS.iter().find(|(n, _)| *n == name).map_or(0, |&(_, a)| a);
        let float = matches!(rt, Ty::Float(_));
        let signed = matches!(rt, Ty::Int(t) if t.signed());
        if signed && UNSIGNED_ONLY.contains(&name.as_str()) {
            self.err(mc.method.span(), format!("`{name}` exists for unsigned types only, not `{}`", self.show(rt)));
            return err_expr();
        }
        if mc.args.len() != arity {
            self.err(mc.method.span(), format!("`{name}` takes {arity} argument(s) but {} were supplied", mc.args.len()));
            return err_expr();
        }
        let mut w = Writer { ty: recv.ty.clone(), span: mc.method.span(), stmts: Vec::new() };
        let x = w.bind(self, recv);
        let args: Vec<Expr> = mc
            .args
            .iter()
            .map(|a| {
                let e = self.expr(a);
                self.expect_at(a, &w.ty, &e.ty);
                w.bind(self, e)
            })
            .collect();
        let value = match name.as_str() {
            "clamp" => self.clamp(&mut w, x, &args[0], &args[1], float),
            "rem_euclid" => self.rem_euclid(&mut w, x, &args[0], float, signed),
            "div_euclid" => self.div_euclid(&mut w, x, &args[0], float, signed),
            "ilog2" => self.ilog2(&mut w, x),
            "leading_ones" | "trailing_ones" => {
                let zeros = if name == "leading_ones" { Method::LeadingZeros } else { Method::TrailingZeros };
                let flipped = ex(w.ty.clone(), ExprKind::Unary(UnOp::Not, Box::new(x)));
                ex(Ty::Int(IntTy::U32), ExprKind::Method(zeros, Box::new(flipped), Vec::new()))
            }
            "div_ceil" => self.div_ceil(&mut w, x, &args[0]),
            _ => self.next_power_of_two(&mut w, x),
        };
        let ty = value.ty.clone();
        ex(ty.clone(), ExprKind::Block(Block { stmts: w.stmts, tail: Some(Box::new(value)), ty }))
    }

    /// `Ord::clamp` (`x.max(min).min(max)`) and the floats' `clamp` (compares, so a NaN receiver
    /// stays NaN), each after `assert!(min <= max)` with its type's message.
    fn clamp(&mut self, w: &mut Writer, x: Expr, lo: &Expr, hi: &Expr, float: bool) -> Expr {
        let ordered = bin(BinOp::Le, lo.clone(), hi.clone());
        let panic = if float {
            let value = |word| Piece::Value { word, ty: w.ty.clone(), debug: true };
            let message = vec![Piece::Text("min > max, or either was NaN. min = ".into()), value(0), Piece::Text(", max = ".into()), value(1)];
            self.panic_expr(w.span, message, vec![(lo.clone(), Some(0)), (hi.clone(), Some(1))])
        } else {
            self.panic_expr(w.span, vec![Piece::Text("assertion failed: min <= max".into())], Vec::new())
        };
        w.stmts.push(self.expr_stmt(w.span, Self::unless(ordered, panic)));
        if !float {
            let raised = ex(w.ty.clone(), ExprKind::Method(Method::Max, Box::new(x), vec![lo.clone()]));
            return ex(w.ty.clone(), ExprKind::Method(Method::Min, Box::new(raised), vec![hi.clone()]));
        }
        let above = w.choose(bin(BinOp::Gt, x.clone(), hi.clone()), hi.clone(), x.clone());
        w.choose(bin(BinOp::Lt, x, lo.clone()), lo.clone(), above)
    }

    /// `r = x % rhs`, then, for a negative `r`, `r + |rhs|` (wrapping for integers, as std's
    /// `r.wrapping_add(rhs.wrapping_abs())`); unsigned integers: `x % rhs`.
    fn rem_euclid(&mut self, w: &mut Writer, x: Expr, rhs: &Expr, float: bool, signed: bool) -> Expr {
        let r = self.divide(w, BinOp::Rem, x, rhs.clone(), float);
        if !float && !signed {
            return r;
        }
        let r = w.bind(self, r);
        let abs = ex(w.ty.clone(), ExprKind::Method(Method::Abs, Box::new(rhs.clone()), Vec::new()));
        let up = bin(BinOp::Add, r.clone(), abs);
        w.choose(bin(BinOp::Lt, r.clone(), w.zero(float)), up, r)
    }

    /// `q = x / rhs` (truncated, for floats), moved one step towards minus infinity for
    /// positive `rhs` (plus infinity for negative) when `x % rhs` is negative; unsigned
    /// integers: `x / rhs`.
    fn div_euclid(&mut self, w: &mut Writer, x: Expr, rhs: &Expr, float: bool, signed: bool) -> Expr {
        let q = self.divide(w, BinOp::Div, x.clone(), rhs.clone(), float);
        if !float && !signed {
            return q;
        }
        let q = if float { ex(w.ty.clone(), ExprKind::Method(Method::Trunc, Box::new(q), Vec::new())) } else { q };
        let q = w.bind(self, q);
        let r = self.divide(w, BinOp::Rem, x, rhs.clone(), float);
        let one = if float { ex(w.ty.clone(), ExprKind::Float(FloatLit::Value(1.0))) } else { lit(1, w.ty.clone()) };
        let step = w.choose(bin(BinOp::Gt, rhs.clone(), w.zero(float)), bin(BinOp::Sub, q.clone(), one.clone()), bin(BinOp::Add, q.clone(), one));
        w.choose(bin(BinOp::Lt, r, w.zero(float)), step, q)
    }

    /// `BITS - 1 - leading_zeros` (a `u32`) of a positive integer; 0 or less panics with
    /// std's message.
    fn ilog2(&mut self, w: &mut Writer, x: Expr) -> Expr {
        let positive = bin(BinOp::Gt, x.clone(), lit(0, w.ty.clone()));
        let panic = self.panic_expr(w.span, vec![Piece::Text("argument of integer logarithm must be positive".into())], Vec::new());
        w.stmts.push(self.expr_stmt(w.span, Self::unless(positive, panic)));
        let Ty::Int(t) = &w.ty else { unreachable!("ilog2 of a non-integer") };
        let top = lit(t.bits() as u128 - 1, Ty::Int(IntTy::U32));
        let zeros = ex(Ty::Int(IntTy::U32), ExprKind::Method(Method::LeadingZeros, Box::new(x), Vec::new()));
        bin(BinOp::Sub, top, zeros)
    }

    /// `q = x / rhs`, plus one if `q * rhs` falls short of `x` (unsigned integers): one
    /// division and one check of the divisor, where `x % rhs` would repeat both.
    fn div_ceil(&mut self, w: &mut Writer, x: Expr, rhs: &Expr) -> Expr {
        let q = self.divide(w, BinOp::Div, x.clone(), rhs.clone(), false);
        let q = w.bind(self, q);
        let short = bin(BinOp::Lt, bin(BinOp::Mul, q.clone(), rhs.clone()), x);
        let up = bin(BinOp::Add, q.clone(), lit(1, w.ty.clone()));
        w.choose(short, up, q)
    }

    /// std's `one_less_than_next_power_of_two() + 1`: 1 for 0 and 1, else `MAX >>
    /// (x - 1).leading_zeros()` plus one, which wraps to 0 past the largest power of two (as
    /// a release build does).
    fn next_power_of_two(&mut self, w: &mut Writer, x: Expr) -> Expr {
        let Ty::Int(t) = &w.ty else { unreachable!("next_power_of_two of a non-integer") };
        let max = lit(u128::MAX >> (128 - t.bits()), w.ty.clone());
        let below = bin(BinOp::Sub, x.clone(), lit(1, w.ty.clone()));
        let zeros = ex(Ty::Int(IntTy::U32), ExprKind::Method(Method::LeadingZeros, Box::new(below), Vec::new()));
        let mask = w.choose(bin(BinOp::Le, x, lit(1, w.ty.clone())), lit(0, w.ty.clone()), bin(BinOp::Shr, max, zeros));
        bin(BinOp::Add, mask, lit(1, w.ty.clone()))
    }

    /// `a / b` or `a % b`, with Rust's two panics (a zero divisor, `MIN / -1`) for integers.
    fn divide(&mut self, w: &Writer, op: BinOp, a: Expr, b: Expr, float: bool) -> Expr {
        let site = if float {
            u32::MAX
        } else {
            let (zero, overflow) = if op == BinOp::Div {
                ("attempt to divide by zero", "attempt to divide with overflow")
            } else {
                ("attempt to calculate the remainder with a divisor of zero", "attempt to calculate the remainder with overflow")
            };
            let site = self.text_site(w.span, zero);
            self.text_site(w.span, overflow);
            site
        };
        ex(w.ty.clone(), ExprKind::Binary(op, Box::new(a), Box::new(b), site))
    }
}

/// The statements a method's value is computed by, in its operands' type.
struct Writer {
    ty: Ty,
    span: Span,
    stmts: Vec<Stmt>,
}

impl Writer {
    /// `value` in a hidden local, evaluated once here.
    fn bind(&mut self, cx: &mut Cx<'_>, value: Expr) -> Expr {
        let id = cx.hidden("n", value.ty.clone());
        self.stmts.push(cx.stmt_at(self.span, StmtKind::Let(id, Some(value))));
        cx.local_expr(id)
    }

    /// `if cond { a } else { b }`.
    fn choose(&self, cond: Expr, a: Expr, b: Expr) -> Expr {
        let ty = a.ty.clone();
        let then = Block { stmts: Vec::new(), tail: Some(Box::new(a)), ty: ty.clone() };
        ex(ty, ExprKind::If(Box::new(cond), then, Some(Box::new(b))))
    }

    fn zero(&self, float: bool) -> Expr {
        if float {
            ex(self.ty.clone(), ExprKind::Float(FloatLit::Value(0.0)))
        } else {
            lit(0, self.ty.clone())
        }
    }
}
