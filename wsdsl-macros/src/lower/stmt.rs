//! Statements, blocks and control flow. Rust blocks map to C blocks; values of block and
//! `if` expressions are assigned to a destination declared by the caller.

use super::{indent, FnLower};
use crate::ir::*;
use crate::types::Ty;

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

    /// A block or `if` expression whose value (if any) goes to `dest`.
    pub fn expr_into(&mut self, e: &Expr, dest: Option<&str>, out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::Block(b) => {
                out.push("{".into());
                self.braced(b, dest, out);
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

    pub fn loop_stmt(&mut self, e: &Expr, out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::While(c, body) => {
                let mut cs = Vec::new();
                let cv = self.expr(c, &mut cs).unwrap_or_else(|| "false".into());
                if cs.is_empty() {
                    out.push(format!("while ({cv}) {{"));
                    self.braced(body, None, out);
                } else {
                    // The condition's statements rerun on every iteration (and after `continue`).
                    out.push("for (;;) {".into());
                    cs.push(format!("if (!({cv})) break;"));
                    out.extend(indent(cs));
                    self.braced(body, None, out);
                }
                out.push("}".into());
            }
            ExprKind::Loop(body) => {
                out.push("for (;;) {".into());
                self.braced(body, None, out);
                out.push("}".into());
            }
            ExprKind::For { var, start, end, inclusive, body } => {
                let ty = self.ty(&start.ty);
                let Ty::Int(it) = ty else { return };
                let c = it.c();
                out.push("{".into());
                let mut inner = Vec::new();
                // Bounds are evaluated once, start first.
                let v = self.operands(&[start, end], &mut inner);
                let (s, en, cur) = (self.fresh(), self.fresh(), self.fresh());
                inner.push(format!("{c} {s} = {}; {c} {en} = {};", v[0], v[1]));
                let var = self.local(*var);
                if *inclusive {
                    // Advancing only while `cur != end` ends `a..=T::MAX` without overflow;
                    // the test sits in the increment so `continue` advances too.
                    let go = self.fresh();
                    inner.push(format!("bool {go} = ({s} <= {en});"));
                    inner.push(format!(
                        "for ({c} {cur} = {s}; {go}; {go} = ({cur} != {en}) ? (({cur} = ({c})({cur} + 1)), true) : false) {{"
                    ));
                } else {
                    inner.push(format!("for ({c} {cur} = {s}; {cur} < {en}; {cur} = ({c})({cur} + 1)) {{"));
                }
                let mut b = vec![format!("{c} {var} = {cur};")];
                self.block_body(body, None, &mut b);
                inner.extend(indent(b));
                inner.push("}".into());
                out.extend(indent(inner));
                out.push("}".into());
            }
            _ => {}
        }
    }
}
