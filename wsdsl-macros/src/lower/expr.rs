//! Expressions. Each lowers to statements pushed to `out` (evaluated first, in Rust order)
//! and a side-effect-free C expression (`None` for `()` and `!`). C leaves the order of
//! operand evaluation unspecified, so whenever a later operand needs statements, earlier
//! operands are first saved in temporaries.

use super::FnLower;
use crate::ir::*;
use crate::names::{c_ident, type_name, user};
use crate::parse::model::{EnumDef, Reduce};
use crate::types::{FloatTy, IntTy, Ty};

/// The C literal with the exact bit pattern of `value` (two's complement, any width) as `t`.
pub fn int_lit(t: IntTy, value: u128) -> String {
    let mask: u128 = if t.bits() == 64 { u64::MAX as u128 } else { (1u128 << t.bits()) - 1 };
    let bits = value & mask;
    if bits <= i32::MAX as u128 && (bits as i128) <= t.max() {
        format!("(({}){})", t.c(), bits)
    } else {
        format!("(({})0x{:x}ull)", t.c(), bits)
    }
}

/// Round-trip exact float text; non-finite values by bit pattern.
pub fn float_lit(t: FloatTy, v: f64) -> String {
    match t {
        FloatTy::F64 if v.is_finite() => format!("((ws_f64){v:?})"),
        FloatTy::F64 => format!("ws_f64_from_bits(0x{:x}ull)", v.to_bits()),
        FloatTy::F32 => {
            let f = v as f32;
            if f.is_finite() {
                format!("((ws_f32){f:?}f)")
            } else {
                format!("ws_f32_from_bits(0x{:x}u)", f.to_bits())
            }
        }
    }
}

/// Whether `v` is a literal emitted by `int_lit`/`float_lit` (nothing can change its value).
pub(super) fn is_const(v: &str) -> bool {
    if v == "true" || v == "false" {
        return true;
    }
    let Some(rest) = v.strip_prefix("((ws_") else { return false };
    let Some((_, lit)) = rest.split_once(')') else { return false };
    let lit = lit.strip_suffix(')').unwrap_or(lit);
    !lit.is_empty() && lit.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
}

/// Integer arithmetic that can neither overflow in C (unsigned, at least 32 bits wide) nor
/// differ from Rust's wrapping result.
/// `-x` with wrapping, through `ws_neg_u32`/`ws_neg_u64` (`core/rust_semantics.cuh`), which the
/// device build keeps opaque to the CUDA compiler (see the note there).
pub fn neg_c(t: IntTy, x: &str) -> String {
    let u = t.c_wide_unsigned();
    let bits = if u == "ws_u64" { 64 } else { 32 };
    format!("(({})ws_neg_u{bits}(({u})({x})))", t.c())
}

pub fn wrap_arith(t: IntTy, op: &str, a: &str, b: &str) -> String {
    let u = t.c_wide_unsigned();
    format!("(({})(({u})({a}) {op} ({u})({b})))", t.c())
}

pub fn binop_c(op: BinOp, lt: &Ty, rt: &Ty, a: &str, b: &str, site: u32) -> String {
    match (op, lt) {
        (BinOp::Add | BinOp::Sub | BinOp::Mul, Ty::Int(t)) => wrap_arith(*t, op.c(), a, b),
        (BinOp::Div, Ty::Int(t)) => format!("ws_div_{}({a}, {b}, {site}u)", t.name()),
        (BinOp::Rem, Ty::Int(t)) => format!("ws_rem_{}({a}, {b}, {site}u)", t.name()),
        (BinOp::Rem, Ty::Float(f)) => format!("ws_fmod_{}({a}, {b})", f.name()),
        (BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor, Ty::Int(t)) => {
            format!("(({})(({a}) {} ({b})))", t.c(), op.c())
        }
        (BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor, Ty::Bool) => format!("((bool)(({a}) {} ({b})))", op.c()),
        (BinOp::Shl | BinOp::Shr, Ty::Int(t)) => {
            // Release builds mask the shift count to the width (no overflow check).
            let _ = rt;
            let n = format!("((ws_u32)({b}) & {}u)", t.bits() - 1);
            if op == BinOp::Shl {
                let u = t.c_wide_unsigned();
                format!("(({})(({u})({a}) << {n}))", t.c())
            } else {
                // Narrow operands promote to `int` value-preservingly; signed `>>` is arithmetic.
                format!("(({})(({a}) >> {n}))", t.c())
            }
        }
        _ => format!("(({a}) {} ({b}))", op.c()),
    }
}

/// A value a panic message shows, as a word of the status record (`wsdsl_fault`): integers
/// sign- or zero-extended, bools 0 or 1, floats and enums by their bits.
fn word_c(t: &Ty, v: &str) -> String {
    match t {
        Ty::Int(t) if t.signed() => format!("(ws_u64)(ws_i64)({v})"),
        Ty::Bool => format!("(ws_u64)(({v}) ? 1u : 0u)"),
        Ty::Float(f) => format!("(ws_u64)ws_to_bits_{}({v})", f.name()),
        _ => format!("(ws_u64)({v})"),
    }
}

pub fn cast_c(src: &Ty, dst: &Ty, v: &str) -> String {
    match (src, dst) {
        (Ty::Float(f), Ty::Int(t)) => format!("ws_{}_to_{}({v})", f.name(), t.name()),
        (Ty::Bool, Ty::Int(t)) => format!("(({})(({v}) ? 1 : 0))", t.c()),
        (_, Ty::Int(t)) => format!("(({})({v}))", t.c()),
        (_, Ty::Float(f)) => format!("(({})({v}))", f.c()),
        _ => v.to_string(),
    }
}

impl FnLower<'_> {
    /// Lowers operands left to right, saving a value in a temporary when a later operand
    /// runs statements that could change it.
    pub fn operands(&mut self, es: &[&Expr], out: &mut Vec<String>) -> Vec<String> {
        let mut parts = Vec::new();
        for e in es {
            let mut s = Vec::new();
            let v = self.expr(e, &mut s).unwrap_or_else(|| "0".into());
            parts.push((s, v, e.ty.clone()));
        }
        let mut vals = Vec::new();
        for i in 0..parts.len() {
            out.append(&mut parts[i].0);
            let later = parts[i + 1..].iter().any(|p| !p.0.is_empty());
            let v = parts[i].1.clone();
            if later && !is_const(&v) {
                let t = self.fresh();
                let cty = self.cty(&parts[i].2);
                out.push(format!("{cty} {t} = {v};"));
                vals.push(t);
            } else {
                vals.push(v);
            }
        }
        vals
    }

    /// `e` as statements pushed to `out` and a C expression, with stack room for its
    /// sub-expressions however deep they nest (`depth.rs`), the C kept as shallow as the CUDA
    /// compiler needs (`shallow.rs`).
    pub fn expr(&mut self, e: &Expr, out: &mut Vec<String>) -> Option<String> {
        crate::depth::with_room(|| {
            let v = self.expr_c(e, out)?;
            Some(self.shallow(e, v, out))
        })
    }

    fn expr_c(&mut self, e: &Expr, out: &mut Vec<String>) -> Option<String> {
        let ty = self.ty(&e.ty);
        Some(match &e.kind {
            ExprKind::Int(v) => match ty {
                Ty::Int(t) => int_lit(t, *v),
                _ => "0".into(),
            },
            ExprKind::Float(f) => {
                let Ty::Float(ft) = ty else { return Some("0".into()) };
                let v = match (f, ft) {
                    (FloatLit::Text(s), FloatTy::F32) => s.parse::<f32>().unwrap_or(f32::NAN) as f64,
                    (FloatLit::Text(s), FloatTy::F64) => s.parse::<f64>().unwrap_or(f64::NAN),
                    (FloatLit::Value(v), _) => *v,
                };
                float_lit(ft, v)
            }
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Local(id) => self.local(*id),
            ExprKind::Param(f) => format!("wsdsl_ctx_params(ctx)->{}", user(f)),
            ExprKind::ParamsRef => "wsdsl_ctx_params(ctx)".into(),
            ExprKind::AddrOf(x) => return self.addr_of(x, out),
            ExprKind::Slicing { base, start, end, len, site } => {
                let bounds = [start.as_deref(), end.as_deref()];
                return self.slicing(&ty, base, bounds, *len, *site, out);
            }
            ExprKind::Deref(r) => {
                let r = self.expr(r, out)?;
                format!("(*({r}))")
            }
            ExprKind::Field(b, f) => {
                let b = self.expr(b, out)?;
                format!("({b}).{}", user(f))
            }
            ExprKind::Index(b, i, n, site) => {
                let v = self.operands(&[b, i], out);
                format!("({}).v[ws_index({}, {n}ull, {site}u)]", v[0], v[1])
            }
            ExprKind::SliceIndex(b, i, site) => {
                let v = self.operands(&[b, i], out);
                format!("({0}).v[ws_index({1}, ({0}).n, {site}u)]", v[0], v[1])
            }
            ExprKind::SliceLen(b) => {
                let v = self.expr(b, out)?;
                format!("(ws_usize)(({v}).n)")
            }
            ExprKind::Unary(op, x) => {
                if let (UnOp::Neg, ExprKind::Int(v), Ty::Int(t)) = (op, &x.kind, &ty) {
                    return Some(int_lit(*t, v.wrapping_neg()));
                }
                let v = self.expr(x, out)?;
                match (op, &ty) {
                    (UnOp::Neg, Ty::Int(t)) => neg_c(*t, &v),
                    (UnOp::Neg, _) => format!("(-({v}))"),
                    (UnOp::Not, Ty::Int(t)) => format!("(({})~({v}))", t.c()),
                    (UnOp::Not, _) => format!("(!({v}))"),
                }
            }
            ExprKind::Binary(op, a, b, site) => {
                let lt = self.ty(&a.ty);
                let rt = self.ty(&b.ty);
                // `0 - x` is a negation: lowered as one (see `neg_c`).
                if let (BinOp::Sub, ExprKind::Int(0), Ty::Int(t)) = (op, &a.kind, &lt) {
                    let x = self.expr(b, out)?;
                    return Some(neg_c(*t, &x));
                }
                let v = self.operands(&[a, b], out);
                binop_c(*op, &lt, &rt, &v[0], &v[1], *site)
            }
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                let is_and = matches!(e.kind, ExprKind::And(..));
                let va = self.expr(a, out).unwrap_or_else(|| "false".into());
                let mut rs = Vec::new();
                let vb = self.expr(b, &mut rs).unwrap_or_else(|| "false".into());
                if rs.is_empty() {
                    format!("(({va}) {} ({vb}))", if is_and { "&&" } else { "||" })
                } else {
                    // The right operand's statements must only run when C's `&&`/`||` would.
                    let t = self.fresh();
                    out.push(format!("bool {t} = {va};"));
                    out.push(format!("if ({}{t}) {{", if is_and { "" } else { "!" }));
                    rs.push(format!("{t} = {vb};"));
                    out.extend(super::indent(rs));
                    out.push("}".into());
                    t
                }
            }
            ExprKind::Cast(x) => {
                let src = self.ty(&x.ty);
                let v = self.expr(x, out)?;
                cast_c(&src, &ty, &v)
            }
            ExprKind::StructLit(name, fields) => {
                let t = self.fresh();
                out.push(format!("{} {t};", type_name(name)));
                for (f, x) in fields {
                    if let Some(v) = self.expr(x, out) {
                        out.push(format!("{t}.{} = {v};", user(f)));
                    }
                }
                t
            }
            ExprKind::EnumLit(name, tag, variant, fields) => {
                let t = self.fresh();
                out.push(format!("{} {t};", type_name(name)));
                out.push(format!("{t}.tag = {tag}u;"));
                let variant = EnumDef::variant_member(variant);
                for (member, x) in fields {
                    if let Some(v) = self.expr(x, out) {
                        out.push(format!("{t}.v.{variant}.{member} = {v};"));
                    }
                }
                t
            }
            ExprKind::ArrayLit(xs) => {
                let t = self.fresh();
                let cty = self.cty(&ty);
                out.push(format!("{cty} {t};"));
                for (i, x) in xs.iter().enumerate() {
                    if let Some(v) = self.expr(x, out) {
                        out.push(format!("{t}.v[{i}] = {v};"));
                    }
                }
                t
            }
            ExprKind::ArrayRepeat(x, n) => {
                let v = self.expr(x, out)?;
                let (t, k) = (self.fresh(), self.fresh());
                let cty = self.cty(&ty);
                out.push(format!("{cty} {t};"));
                out.push(format!("for (ws_usize {k} = 0; {k} < {n}ull; ++{k}) {t}.v[{k}] = {v};"));
                t
            }
            ExprKind::Call(name, args) => {
                let refs: Vec<&Expr> = args.iter().collect();
                let mut v = self.operands(&refs, out);
                v.extend(self.depth_arg(name).map(String::from));
                let may_panic = self.may_panic.contains(name);
                if may_panic {
                    v.push(self.flag_arg().into());
                }
                let call = format!("{}({})", super::fn_name(name), v.join(", "));
                if !may_panic {
                    if !ty.is_value() {
                        out.push(format!("{call};"));
                        return None;
                    }
                    return Some(call);
                }
                // The callee may have panicked: then this function leaves as well.
                let leave = format!("if ({}) {{ {} }}", self.flag_test(), self.leave);
                if !ty.is_value() {
                    out.push(format!("{call};"));
                    out.push(leave);
                    return None;
                }
                let (t, cty) = (self.fresh(), self.cty(&ty));
                out.push(format!("{cty} {t} = {call};"));
                out.push(leave);
                t
            }
            ExprKind::Panic(site, args) => {
                let refs: Vec<&Expr> = args.iter().map(|(e, _)| e).collect();
                let v = self.operands(&refs, out);
                let mut words = ["0ull".to_string(), "0ull".to_string(), "0ull".to_string(), "0ull".to_string()];
                for ((e, word), v) in args.iter().zip(v) {
                    match word.and_then(|w| words.get_mut(w)) {
                        Some(w) => *w = word_c(&self.ty(&e.ty), &v),
                        None => out.push(format!("(void)({v});")),
                    }
                }
                out.push(format!("wsdsl_fault({site}u, {});", words.join(", ")));
                out.push(self.panic_exit());
                return None;
            }
            ExprKind::Unwrap(x, site) => {
                let v = self.expr(x, out)?;
                let (t, cty) = (self.fresh(), self.cty(&x.ty));
                out.push(format!("{cty} {t} = {v};"));
                out.push(format!("if (!{t}.some) {{ wsdsl_fault({site}u); {} }}", self.panic_exit()));
                format!("{t}.v")
            }
            ExprKind::DebugOnly(x) => {
                if self.debug {
                    self.expr(x, out);
                }
                return None;
            }
            ExprKind::Method(m, recv, args) => {
                let rt = self.ty(&recv.ty);
                let mut refs: Vec<&Expr> = vec![recv];
                refs.extend(args.iter());
                let v = self.operands(&refs, out);
                match m {
                    Method::Cmp | Method::PartialCmp | Method::TotalCmp => {
                        let ordering = match (m, &rt) {
                            (Method::TotalCmp, Ty::Float(f)) => format!("ws_total_cmp_{}({}, {})", f.name(), v[0], v[1]),
                            _ => format!("((ws_i8)((({0}) > ({1})) - (({0}) < ({1}))))", v[0], v[1]),
                        };
                        if *m != Method::PartialCmp {
                            return Some(ordering);
                        }
                        // `None` when either operand is a NaN (never for integers and bools).
                        let some = match rt {
                            Ty::Float(_) => format!("!(({0}) != ({0}) || ({1}) != ({1}))", v[0], v[1]),
                            _ => "true".into(),
                        };
                        format!("{}{{{some}, {ordering}}}", self.cty(&ty))
                    }
                    _ => method_c(*m, &rt, &v),
                }
            }
            ExprKind::OrderingLit(d) => format!("((ws_i8){d})"),
            ExprKind::RangeLen(start, end, inclusive) => {
                let Ty::Int(t) = self.ty(&start.ty) else { return Some("0".into()) };
                let v = self.operands(&[start, end], out);
                let (s, e, u) = (&v[0], &v[1], format!("ws_{}", t.unsigned_name()));
                let (cmp, extra) = if *inclusive { ("<=", " + 1u") } else { ("<", "") };
                format!("((({s}) {cmp} ({e})) ? (ws_usize)(({u})(({u})({e}) - ({u})({s}))){extra} : (ws_usize)0)")
            }
            ExprKind::RangeNth(start, k) => {
                let Ty::Int(t) = self.ty(&start.ty) else { return Some("0".into()) };
                let v = self.operands(&[start, k], out);
                let w = t.c_wide_unsigned();
                format!("(({})(({w})({}) + ({w})({})))", t.c(), v[0], v[1])
            }
            ExprKind::ResFrom(ok, v, e) => {
                // Only the value the flag selects is computed and read.
                let flag = self.expr(ok, out).unwrap_or_else(|| "false".into());
                let (t, cty) = (self.fresh(), self.cty(&ty));
                out.push(format!("{cty} {t}; {t}.f0 = {flag};"));
                for (set, part, field) in [(true, v, "f1"), (false, e, "f2")] {
                    let mut vs = Vec::new();
                    if let Some(x) = self.expr(part, &mut vs) {
                        vs.push(format!("{t}.{field} = {x};"));
                    }
                    out.push(format!("if ({}{t}.f0) {{", if set { "" } else { "!" }));
                    out.extend(super::indent(vs));
                    out.push("}".into());
                }
                t
            }
            ExprKind::Block(_) | ExprKind::If(..) | ExprKind::Match(..) => {
                if ty.is_value() {
                    let t = self.fresh();
                    let cty = self.cty(&ty);
                    out.push(format!("{cty} {t};"));
                    self.expr_into(e, Some(&t), out);
                    t
                } else {
                    self.expr_into(e, None, out);
                    return None;
                }
            }
            ExprKind::While(..) | ExprKind::Loop(..) | ExprKind::For { .. } => {
                if ty.is_value() {
                    // A `loop` that breaks with a value.
                    let t = self.fresh();
                    let cty = self.cty(&ty);
                    out.push(format!("{cty} {t};"));
                    self.loop_stmt(e, Some(&t), out);
                    t
                } else {
                    self.loop_stmt(e, None, out);
                    return None;
                }
            }
            ExprKind::Break(id, v) => {
                if let Some(v) = v {
                    let val = self.expr(v, out);
                    let dest = self.loops.iter().find(|l| l.0 == *id).and_then(|l| l.1.clone());
                    if let (Some(val), Some(d)) = (val, dest) {
                        out.push(format!("{d} = {val};"));
                    }
                }
                out.push(self.jump(*id, false));
                return None;
            }
            ExprKind::Continue(id) => {
                out.push(self.jump(*id, true));
                return None;
            }
            ExprKind::TupleLit(xs) => {
                let t = self.fresh();
                let cty = self.cty(&ty);
                out.push(format!("{cty} {t};"));
                for (i, x) in xs.iter().enumerate() {
                    if let Some(v) = self.expr(x, out) {
                        out.push(format!("{t}.f{i} = {v};"));
                    }
                }
                t
            }
            ExprKind::TupleField(b, i) => {
                let b = self.expr(b, out)?;
                format!("({b}).f{i}")
            }
            ExprKind::Variant(d) => format!("((ws_u32){d}u)"),
            ExprKind::OptMethod(op, recv, args) => {
                let mut refs: Vec<&Expr> = vec![recv];
                refs.extend(args.iter());
                let v = self.operands(&refs, out);
                match op {
                    OptOp::UnwrapOr => format!("(({0}).some ? ({0}).v : ({1}))", v[0], v[1]),
                    OptOp::IsSome => format!("(({}).some)", v[0]),
                    OptOp::IsNone => format!("(!({}).some)", v[0]),
                }
            }
            ExprKind::Buffer(buffer, op, args, site) => {
                let (p, n) = self.buffer_parts(buffer, out)?;
                let refs: Vec<&Expr> = args.iter().collect();
                let v = self.operands(&refs, out);
                let (elem, read_only) = match self.ty(&buffer.ty) {
                    Ty::Buffer(e, ro) => (crate::types::mangle(&e), ro),
                    _ => return Some("0".into()),
                };
                let call = |f: &str, rest: &[String]| {
                    let mut a = vec![p.clone(), n.clone()];
                    a.extend(rest.iter().cloned());
                    a.push(format!("{site}u"));
                    format!("ws_buf_{f}_{elem}({})", a.join(", "))
                };
                match op {
                    BufOp::Len => format!("((ws_usize)({n}))"),
                    BufOp::Get if read_only => call("ro_get", &v),
                    BufOp::Get => call("get", &v),
                    BufOp::Set => {
                        out.push(format!("{};", call("set", &v)));
                        return None;
                    }
                    BufOp::AtomicAdd => call("atomic_add", &v),
                    BufOp::AtomicMin => call("atomic_min", &v),
                    BufOp::AtomicMax => call("atomic_max", &v),
                    BufOp::AtomicCas => call("atomic_cas", &v),
                }
            }
            ExprKind::CtxRef => "ctx".into(),
            ExprKind::CtxBuffers => "wsdsl_ctx_buffers(ctx)".into(),
            ExprKind::CtxCounters => "wsdsl_ctx_counters(ctx)".into(),
            ExprKind::BufferField(..) => {
                let (p, n) = self.buffer_parts(e, out)?;
                format!("{}{{{p}, {n}}}", self.cty(&ty))
            }
            ExprKind::CounterField(..) => {
                let c = self.counter_place(e, out)?;
                format!("(&{c})")
            }
            ExprKind::Return(v) => {
                match v {
                    Some(x) => match self.expr(x, out) {
                        Some(v) => out.push(format!("return {v};")),
                        None => out.push("return;".into()),
                    },
                    None => out.push("return;".into()),
                }
                return None;
            }
            ExprKind::Assign(place, val) => {
                let (p, v) = self.assign_parts(place, val, out);
                out.push(format!("{p} = {v};"));
                return None;
            }
            ExprKind::CompoundAssign(op, place, val, site) => {
                let lt = self.ty(&place.ty);
                let rt = self.ty(&val.ty);
                let (p, v) = self.assign_parts(place, val, out);
                let rhs = binop_c(*op, &lt, &rt, &p, &v, *site);
                out.push(format!("{p} = {rhs};"));
                return None;
            }
            ExprKind::Counter(counter, reduce, x) => {
                let c = self.counter_place(counter, out)?;
                let v = self.expr(x, out)?;
                let Ty::Int(t) = self.ty(&x.ty) else { return None };
                match reduce {
                    Reduce::Sum => out.push(format!("{c} = {};", wrap_arith(t, "+", &c, &v))),
                    Reduce::Max | Reduce::Min => {
                        let tmp = self.fresh();
                        let cmp = if *reduce == Reduce::Max { ">" } else { "<" };
                        out.push(format!("{{ {} {tmp} = {v}; if ({tmp} {cmp} {c}) {c} = {tmp}; }}", t.c()));
                    }
                }
                return None;
            }
            ExprKind::Spawn(task, x, priority) => {
                // The priority is evaluated first, as Rust evaluates arguments in order.
                let p = match priority {
                    Some(p) => Some(self.expr(p, out)?),
                    None => None,
                };
                let v = self.expr(x, out)?;
                let tag = self.m.task_tag(task).unwrap_or(0);
                let t = self.fresh();
                let call = match p {
                    Some(p) => format!("wsdsl_ctx_spawn_priority(ctx, &{t}, {p})"),
                    None => format!("wsdsl_ctx_spawn(ctx, &{t})"),
                };
                out.push(format!("{{ wsdsl_task {t}; {t}.tag = {tag}u; {t}.u.t_{} = {v}; {call}; }}", c_ident(task)));
                return None;
            }
            ExprKind::CtxCall(name @ ("sync" | "fence")) => {
                out.push(format!("wsdsl_ctx_{name}(ctx);"));
                return None;
            }
            ExprKind::CtxCall(name) => format!("wsdsl_ctx_{name}(ctx)"),
            ExprKind::SliceOf(b, start, len) => {
                // `b` is a place (the type checker copies anything else to a local first).
                let v = self.operands(&[b, start, len], out);
                let (t, cty) = (self.fresh(), self.cty(&ty));
                out.push(format!("{cty} {t}; {t}.v = &({}).v[{}]; {t}.n = (ws_u64)({});", v[0], v[1], v[2]));
                t
            }
            ExprKind::OptFrom(some, v) => {
                // The value is read only when the flag is set: the consumer leaves it unset
                // (uninitialized) when the iterator was empty.
                let s = self.expr(some, out).unwrap_or_else(|| "false".into());
                let (t, cty) = (self.fresh(), self.cty(&ty));
                out.push(format!("{cty} {t}; {t}.some = {s};"));
                let mut vs = Vec::new();
                if let Some(v) = self.expr(v, &mut vs) {
                    vs.push(format!("{t}.v = {v};"));
                }
                out.push(format!("if ({t}.some) {{"));
                out.extend(super::indent(vs));
                out.push("}".into());
                t
            }
            ExprKind::Job(call) => {
                self.job(call, out);
                return None;
            }
            ExprKind::JobResult(k, site) => {
                let k = self.expr(k, out)?;
                format!("wsdsl_ctx_result(ctx, {k}, {site}u)")
            }
            ExprKind::Unit => return None,
            ExprKind::Error => "0".into(),
        })
    }
}

impl FnLower<'_> {
    /// `break;`/`continue;` for the innermost loop, a `goto` to its label otherwise.
    fn jump(&self, id: LoopId, cont: bool) -> String {
        let innermost = self.loops.last().map(|l| l.0) == Some(id);
        match (innermost, cont) {
            (true, false) => "break;".into(),
            (true, true) => "continue;".into(),
            (false, false) => format!("goto wsb_{id};"),
            (false, true) => format!("goto wsc_{id};"),
        }
    }

    /// The element pointer and the length of `buffer` (a `Ty::Buffer`): the fields of the
    /// buffer table for `bufs.name`, else those of the descriptor `ws_buf_<T>`.
    fn buffer_parts(&mut self, buffer: &Expr, out: &mut Vec<String>) -> Option<(String, String)> {
        if let ExprKind::BufferField(base, name) = &buffer.kind {
            let b = self.expr(base, out)?;
            return Some((format!("{b}->{}", user(name)), format!("{b}->n_{}", c_ident(name))));
        }
        let v = self.expr(buffer, out)?;
        Some((format!("({v}).p"), format!("({v}).n")))
    }

    /// The C lvalue of `counter` (a `Ty::Counter`): the field of the counters for
    /// `counters.name`, else what the pointer points to.
    fn counter_place(&mut self, counter: &Expr, out: &mut Vec<String>) -> Option<String> {
        if let ExprKind::CounterField(base, name) = &counter.kind {
            let c = self.expr(base, out)?;
            return Some(format!("{c}->{}", user(name)));
        }
        let v = self.expr(counter, out)?;
        Some(format!("(*({v}))"))
    }
}

pub fn method_c(m: Method, rt: &Ty, v: &[String]) -> String {
    let x = &v[0];
    match rt {
        Ty::Int(t) => {
            let un = t.unsigned_name();
            let ux = format!("(ws_{un})({x})");
            let back = |s: String| if t.signed() || *t == IntTy::Usize { format!("(({})({s}))", t.c()) } else { s };
            let n = t.name();
            match m {
                Method::WrappingAdd => wrap_arith(*t, "+", x, &v[1]),
                Method::WrappingSub => wrap_arith(*t, "-", x, &v[1]),
                Method::WrappingMul => wrap_arith(*t, "*", x, &v[1]),
                Method::WrappingNeg => neg_c(*t, x),
                Method::WrappingShl => binop_c(BinOp::Shl, rt, rt, x, &v[1], 0),
                Method::WrappingShr => binop_c(BinOp::Shr, rt, rt, x, &v[1], 0),
                Method::CheckedAdd => format!("ws_checked_add_{n}({x}, {})", v[1]),
                Method::CheckedSub => format!("ws_checked_sub_{n}({x}, {})", v[1]),
                Method::CheckedMul => format!("ws_checked_mul_{n}({x}, {})", v[1]),
                Method::CheckedDiv => format!("ws_checked_div_{n}({x}, {})", v[1]),
                Method::CheckedRem => format!("ws_checked_rem_{n}({x}, {})", v[1]),
                Method::CheckedNeg => format!("ws_checked_neg_{n}({x})"),
                Method::CheckedShl => format!("ws_checked_shl_{n}({x}, {})", v[1]),
                Method::CheckedShr => format!("ws_checked_shr_{n}({x}, {})", v[1]),
                Method::SaturatingAdd => format!("ws_saturating_add_{n}({x}, {})", v[1]),
                Method::SaturatingSub => format!("ws_saturating_sub_{n}({x}, {})", v[1]),
                Method::SaturatingMul => format!("ws_saturating_mul_{n}({x}, {})", v[1]),
                Method::Pow => format!("ws_pow_{n}({x}, {})", v[1]),
                Method::Abs => format!("ws_abs_{n}({x})"),
                Method::CountZeros => format!("((ws_u32)({}u - ws_count_ones_{un}({ux})))", t.bits()),
                Method::SwapBytes | Method::ToBe | Method::FromBe => back(format!("ws_swap_bytes_{un}({ux})")),
                Method::ToLe | Method::FromLe => x.to_string(),
                Method::IsPowerOfTwo => format!("ws_is_power_of_two_{un}({ux})"),
                Method::AbsDiff => format!("ws_abs_diff_{n}({x}, {})", v[1]),
                Method::IsMultipleOf => format!("ws_is_multiple_of_{n}({x}, {})", v[1]),
                Method::Signum => format!("(({})(({x}) > 0 ? 1 : (({x}) < 0 ? -1 : 0)))", t.c()),
                Method::RotateLeft => back(format!("ws_rotl_{un}({ux}, {})", v[1])),
                Method::RotateRight => back(format!("ws_rotr_{un}({ux}, {})", v[1])),
                Method::CountOnes => format!("ws_count_ones_{un}({ux})"),
                Method::TrailingZeros => format!("ws_trailing_zeros_{un}({ux})"),
                Method::LeadingZeros => format!("ws_leading_zeros_{un}({ux})"),
                Method::Min => format!("ws_min_{}({x}, {})", t.name(), v[1]),
                Method::Max => format!("ws_max_{}({x}, {})", t.name(), v[1]),
                _ => "0".into(),
            }
        }
        Ty::Float(f) => {
            // Each float method's C function is named after the Rust method.
            let name = FLOAT_METHODS.iter().find(|(_, k)| *k == m).map_or("abs", |(n, _)| n);
            format!("ws_{name}_{}({})", f.name(), v.join(", "))
        }
        _ => "0".into(),
    }
}
