//! Statements, blocks and control flow. Rust blocks map to C blocks; values of block and
//! `if` expressions are assigned to a destination declared by the caller.

use super::expr::int_lit;
use super::{indent, FnLower};
use crate::ir::*;
use crate::types::Ty;

/// The increment of every C loop that Rust does not bound (`loop`, `while`): a side effect, so
/// that the CUDA and host C++ compilers may not assume the loop ends and delete it, as C++'s
/// forward-progress rule allows (`ws_loop_progress` in `core/rust_semantics.cuh`). In the
/// increment, it runs on each way round (`continue` included) and never in a body that
/// always leaves, such as the one-pass loop of an inlined body with `return`.
const PROGRESS: &str = "ws_loop_progress()";

/// Calls in a loop's C body that are atomic operations on every backend (a spawn claims its
/// slot with one). A loop that may perform one on each way round is a loop the C++
/// compilers may not assume ends, so it needs no `PROGRESS`, whose store would cost N-Queens'
/// `while free != 0 { ... ctx.spawn(..) }` 6% on an H100. Calls into helpers are not looked
/// into: their loops carry their own.
const ATOMIC_CALLS: [&str; 11] = [
    "wsdsl_ctx_spawn(", "wsdsl_ctx_spawn_priority(", "atomicAdd(", "atomicSub(", "atomicCAS(", "atomicExch(",
    "atomicMin(", "atomicMax(", "atomicAnd(", "atomicOr(", "atomicXor(",
];

/// The increment of a loop whose C body is `body`: `PROGRESS`, or nothing where the body
/// may perform an atomic operation each time round.
fn progress(body: &[String]) -> &'static str {
    if body.iter().any(|line| ATOMIC_CALLS.iter().any(|call| line.contains(call))) { "" } else { PROGRESS }
}

fn c_file(f: &str) -> String {
    f.replace('\\', "\\\\").replace('"', "\\\"")
}

impl FnLower<'_> {
    pub fn stmt(&mut self, s: &Stmt, out: &mut Vec<String>) {
        if s.line > 0 {
            out.push(format!("#line {} \"{}\"", s.line, c_file(&s.file)));
        }
        match &s.kind {
            StmtKind::Let(id, init) => {
                let lty = self.ty(&self.body.locals[*id].ty);
                let name = self.local(*id);
                match init {
                    Some(e) => {
                        let v = self.expr(e, out);
                        if lty.is_value() {
                            let cty = self.cty(&lty);
                            match v {
                                Some(v) => out.push(format!("{cty} {name} = {v};")),
                                None => out.push(format!("{cty} {name};")),
                            }
                        }
                    }
                    None if lty.is_value() => {
                        let cty = self.cty(&lty);
                        out.push(format!("{cty} {name};"));
                    }
                    None => {}
                }
            }
            StmtKind::Expr(e) => {
                if let Some(v) = self.expr(e, out) {
                    out.push(format!("(void)({v});"));
                }
            }
        }
    }

    /// Statements of `b`, then its tail assigned to `dest` (or returned when `dest` is
    /// `"return"`), without surrounding braces.
    pub fn block_body(&mut self, b: &Block, dest: Option<&str>, out: &mut Vec<String>) {
        for s in &b.stmts {
            self.stmt(s, out);
        }
        if let Some(t) = &b.tail {
            if let Some(v) = self.expr(t, out) {
                match dest {
                    Some("return") => out.push(format!("return {v};")),
                    Some(d) => out.push(format!("{d} = {v};")),
                    None => out.push(format!("(void)({v});")),
                }
            }
        }
    }

    pub fn braced(&mut self, b: &Block, dest: Option<&str>, out: &mut Vec<String>) {
        let mut inner = Vec::new();
        self.block_body(b, dest, &mut inner);
        out.extend(indent(inner));
    }

    /// A block or `if` expression whose value (if any) goes to `dest`; with stack room for an
    /// `else if` chain or `match` arms however deep they nest (`depth.rs`).
    pub fn expr_into(&mut self, e: &Expr, dest: Option<&str>, out: &mut Vec<String>) {
        crate::depth::with_room(|| self.branches_into(e, dest, out))
    }

    fn branches_into(&mut self, e: &Expr, dest: Option<&str>, out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::Block(b) => {
                out.push("{".into());
                self.braced(b, dest, out);
                out.push("}".into());
            }
            ExprKind::Match(scrut, arms) => {
                out.push("{".into());
                let mut inner = Vec::new();
                self.match_into(scrut, arms, dest, &mut inner);
                out.extend(indent(inner));
                out.push("}".into());
            }
            ExprKind::If(c, then, els) => {
                let c = self.expr(c, out).unwrap_or_else(|| "false".into());
                out.push(format!("if ({c}) {{"));
                self.braced(then, dest, out);
                if let Some(els) = els {
                    out.push("} else {".into());
                    let mut inner = Vec::new();
                    match &els.kind {
                        ExprKind::Block(b) => self.block_body(b, dest, &mut inner),
                        _ => self.expr_into(els, dest, &mut inner),
                    }
                    out.extend(indent(inner));
                }
                out.push("}".into());
            }
            _ => {
                if let Some(v) = self.expr(e, out) {
                    match dest {
                        Some(d) => out.push(format!("{d} = {v};")),
                        None => out.push(format!("(void)({v});")),
                    }
                }
            }
        }
    }

    /// The lines inside a C loop's braces: `pre`, then the body. A labelled loop wraps the
    /// body in its own block followed by its `continue` label, so a `goto` there never jumps
    /// over a declaration that is still in scope (C++ forbids that).
    fn loop_body(&mut self, pre: Vec<String>, b: &Block, id: LoopId, dest: Option<&str>) -> Vec<String> {
        let mut lines = pre;
        self.loops.push((id, dest.map(String::from)));
        let mut inner = Vec::new();
        self.block_body(b, None, &mut inner);
        self.loops.pop();
        if self.body.loops[id] {
            lines.push("{".into());
            lines.extend(indent(inner));
            lines.push("}".into());
            lines.push(format!("wsc_{id}: ;"));
        } else {
            lines.extend(inner);
        }
        lines
    }

    fn break_label(&self, id: LoopId, out: &mut Vec<String>) {
        if self.body.loops[id] {
            out.push(format!("wsb_{id}: ;"));
        }
    }

    /// A loop; `dest` receives the value of a `loop` that breaks with one. `loop` and `while`
    /// (and `while let`, a `loop` here) go round through `PROGRESS`.
    pub fn loop_stmt(&mut self, e: &Expr, dest: Option<&str>, out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::While(c, body, id) => {
                let mut cs = Vec::new();
                let cv = self.expr(c, &mut cs).unwrap_or_else(|| "false".into());
                if cs.is_empty() {
                    let b = self.loop_body(Vec::new(), body, *id, None);
                    out.push(format!("for (; {cv}; {}) {{", progress(&b)));
                    out.extend(indent(b));
                } else {
                    // The condition's statements rerun on every iteration (and after `continue`).
                    cs.push(format!("if (!({cv})) break;"));
                    let b = self.loop_body(cs, body, *id, None);
                    out.push(format!("for (;; {}) {{", progress(&b)));
                    out.extend(indent(b));
                }
                out.push("}".into());
                self.break_label(*id, out);
            }
            ExprKind::Loop(body, id) => {
                let b = self.loop_body(Vec::new(), body, *id, dest);
                out.push(format!("for (;; {}) {{", progress(&b)));
                out.extend(indent(b));
                out.push("}".into());
                self.break_label(*id, out);
            }
            // A range's counter is bounded by its end, so a C++ compiler may assume this loop
            // ends, rightly: it needs no `PROGRESS`. Iterator chains are lowered to it too.
            ExprKind::For { var, start, end, inclusive, rev, step, body, id } => {
                /// The longest literal range a loop is unrolled over.
                const MAX_UNROLLED_TRIPS: u128 = 128;
                let ty = self.ty(&start.ty);
                let Ty::Int(it) = ty else { return };
                let c = it.c();
                let wide = it.c_wide_unsigned();
                let un = format!("ws_{}", it.unsigned_name());
                out.push("{".into());
                let mut inner = Vec::new();
                // Bounds (and the step) are evaluated once, in source order.
                let mut ops: Vec<&Expr> = vec![start, end];
                if let Some((k, _)) = step {
                    ops.push(k);
                }
                let v = self.operands(&ops, &mut inner);
                if !*inclusive && !*rev && step.is_none() {
                    // The common `a..b`: the canonical counted loop, which the CUDA compiler can
                    // unroll (constant bounds keep arrays indexed by the loop variable in
                    // registers). `cur < end` before `++cur` means the increment never
                    // overflows, and `continue` reaches the increment.
                    let (s, en, cur) = (self.fresh(), self.fresh(), self.fresh());
                    inner.push(format!("{c} {s} = {}; {c} {en} = {};", v[0], v[1]));
                    // Short ranges with literal bounds are unrolled (`WS_UNROLL`).
                    let unroll = match (&start.kind, &end.kind) {
                        (ExprKind::Int(a), ExprKind::Int(b)) => b > a && b - a <= MAX_UNROLLED_TRIPS,
                        _ => false,
                    };
                    let pragma = if unroll { "WS_UNROLL " } else { "" };
                    inner.push(format!("{pragma}for ({c} {cur} = {s}; {cur} < {en}; ++{cur}) {{"));
                    let var = self.local(*var);
                    let b = self.loop_body(vec![format!("{c} {var} = {cur};")], body, *id, None);
                    inner.extend(indent(b));
                    inner.push("}".into());
                    out.extend(indent(inner));
                    out.push("}".into());
                    self.break_label(*id, out);
                    return;
                }
                let (s, en, k, go, hi, cur) = (self.fresh(), self.fresh(), self.fresh(), self.fresh(), self.fresh(), self.fresh());
                inner.push(format!("{c} {s} = {}; {c} {en} = {};", v[0], v[1]));
                inner.push(format!("ws_u64 {k} = {};", if step.is_some() { format!("(ws_u64)({})", v[2]) } else { "1ull".into() }));
                let cmp = if *inclusive { "<=" } else { "<" };
                inner.push(format!("bool {go} = ({s} {cmp} {en});"));
                if let Some((_, site)) = step {
                    inner.push(format!("if ({k} == 0ull) {{ wsdsl_fault({site}u); {go} = false; }}"));
                }
                // The last element; computed only for a non-empty range (`end - 1` could overflow).
                if *inclusive {
                    inner.push(format!("{c} {hi} = {en};"));
                } else {
                    inner.push(format!("{c} {hi} = {go} ? ({c})({en} - 1) : {en};"));
                }
                // Each step advances only if the remaining distance (exact in the unsigned type
                // of the same width) allows it, so ranges ending at T::MAX / T::MIN never overflow
                // and `continue` advances too (the test sits in the increment).
                let (first, bound, op) = if *rev { (&hi, &s, "-") } else { (&s, &hi, "+") };
                let dist = if *rev {
                    format!("(ws_u64)({un})(({un}){cur} - ({un}){bound})")
                } else {
                    format!("(ws_u64)({un})(({un}){bound} - ({un}){cur})")
                };
                let adv = format!("({c})(({wide})({cur}) {op} ({wide})({k}))");
                inner.push(format!(
                    "for ({c} {cur} = {first}; {go}; {go} = ({dist} >= {k}) ? (({cur} = {adv}), true) : false) {{"
                ));
                let var = self.local(*var);
                let b = self.loop_body(vec![format!("{c} {var} = {cur};")], body, *id, None);
                inner.extend(indent(b));
                inner.push("}".into());
                out.extend(indent(inner));
                out.push("}".into());
                self.break_label(*id, out);
            }
            _ => {}
        }
    }

    /// `match`: the scrutinee is saved once; each arm is tried in order until one matches
    /// (pattern, then guard). The flag makes guards with statements straightforward.
    pub fn match_into(&mut self, scrut: &Expr, arms: &[Arm], dest: Option<&str>, out: &mut Vec<String>) {
        let sty = self.ty(&scrut.ty);
        let v = self.expr(scrut, out).unwrap_or_else(|| "0".into());
        let s = self.fresh();
        let cty = self.cty(&sty);
        out.push(format!("{cty} {s} = {v};"));
        let done = self.fresh();
        out.push(format!("bool {done} = false;"));
        for arm in arms {
            let test = self.pat_test(&arm.pat, &s, &sty);
            out.push(format!("if (!{done} && {test}) {{"));
            let mut inner = Vec::new();
            self.pat_bind(&arm.pat, &s, &sty, &mut inner);
            let mut body = vec![format!("{done} = true;")];
            self.expr_into(&arm.body, dest, &mut body);
            match &arm.guard {
                Some(g) => {
                    let gv = self.expr(g, &mut inner).unwrap_or_else(|| "false".into());
                    inner.push(format!("if ({gv}) {{"));
                    inner.extend(indent(body));
                    inner.push("}".into());
                }
                None => inner.extend(body),
            }
            out.extend(indent(inner));
            out.push("}".into());
        }
    }

    /// A side-effect-free C condition: does the value at `place` match `p`?
    fn pat_test(&self, p: &Pat, place: &str, ty: &Ty) -> String {
        match p {
            Pat::Wild | Pat::Bind(_) => "true".into(),
            Pat::Range(lo, hi) => {
                let t = match ty {
                    Ty::Int(t) => *t,
                    // `Ordering::Less` and its siblings: Rust's discriminants in a `ws_i8`.
                    Ty::Ordering => crate::types::IntTy::I8,
                    _ => return "true".into(),
                };
                let l = int_lit(t, *lo as u128);
                if lo == hi {
                    format!("({place} == {l})")
                } else {
                    format!("({place} >= {l} && {place} <= {})", int_lit(t, *hi as u128))
                }
            }
            Pat::Bool(true) => format!("({place})"),
            Pat::Bool(false) => format!("(!{place})"),
            Pat::Variant(d) => format!("({place} == {d}u)"),
            Pat::EnumData { tag, variant, fields } => {
                let mut parts = vec![format!("{place}.tag == {tag}u")];
                let variant = crate::parse::model::EnumDef::variant_member(variant);
                for (member, t, p) in fields {
                    let t = self.ty(t);
                    parts.push(self.pat_test(p, &format!("{place}.v.{variant}.{member}"), &t));
                }
                format!("({})", parts.join(" && "))
            }
            Pat::None => format!("(!{place}.some)"),
            Pat::Some(inner) => {
                let Ty::Option(et) = ty else { return "true".into() };
                let et = self.ty(et);
                format!("({place}.some && {})", self.pat_test(inner, &format!("{place}.v"), &et))
            }
            Pat::Tuple(ps) => {
                let Some(ts) = tuple_parts(ty) else { return "true".into() };
                let parts: Vec<String> =
                    ps.iter().zip(&ts).enumerate().map(|(i, (p, t))| self.pat_test(p, &format!("{place}.f{i}"), &self.ty(t))).collect();
                format!("({})", parts.join(" && "))
            }
            Pat::Or(ps) => {
                let parts: Vec<String> = ps.iter().map(|p| self.pat_test(p, place, ty)).collect();
                format!("({})", parts.join(" || "))
            }
        }
    }

    fn pat_bind(&mut self, p: &Pat, place: &str, ty: &Ty, out: &mut Vec<String>) {
        match p {
            Pat::Bind(id) => {
                let cty = self.cty(ty);
                out.push(format!("{cty} {} = {place};", self.local(*id)));
            }
            Pat::Some(inner) => {
                if let Ty::Option(et) = ty {
                    let et = self.ty(et);
                    self.pat_bind(inner, &format!("{place}.v"), &et, out);
                }
            }
            Pat::Tuple(ps) => {
                if let Some(ts) = tuple_parts(ty) {
                    for (i, (p, t)) in ps.iter().zip(&ts).enumerate() {
                        let t = self.ty(t);
                        self.pat_bind(p, &format!("{place}.f{i}"), &t, out);
                    }
                }
            }
            Pat::EnumData { variant, fields, .. } => {
                let variant = crate::parse::model::EnumDef::variant_member(variant);
                for (member, t, p) in fields {
                    let t = self.ty(t);
                    self.pat_bind(p, &format!("{place}.v.{variant}.{member}"), &t, out);
                }
            }
            _ => {}
        }
    }
}

/// The element types of a tuple pattern's value: a tuple's, or a `Result`'s flag, value and
/// error (`check/results.rs`: `Ok(p)` is `(true, p, _)`).
fn tuple_parts(ty: &Ty) -> Option<Vec<Ty>> {
    match ty {
        Ty::Tuple(ts) => Some(ts.clone()),
        Ty::Result(v, e) => Some(vec![Ty::Bool, (**v).clone(), (**e).clone()]),
        _ => None,
    }
}
