//! `a.chain(b)`: one loop over the positions of both sides, `0..len(a) + len(b)`. A position
//! below `len(a)` is `a`'s element (its own adaptors run on it there), the others are `b`'s,
//! and the stages after `chain` see one element either way; `rev()` after `chain` runs `b`
//! backwards, then `a`, as Rust's `Chain` does.
//!
//! Each side is a range or an array (or a chain) whose adaptors treat each element alone or
//! count them (`map`, `filter`, `filter_map`, `enumerate`, `skip`, `step_by`, ..): what a side
//! yields at a position must not depend on the other side, so a side may not end early
//! (`take`, `zip`, `take_while`), run backwards (`rev`), stride (`step_by` on the source) or
//! open a loop (`flat_map`). Elements are values (`iter_mut()` sides are refused), and a
//! range side may not hold all 2^64 values of a 64-bit type (its length is a `usize`).

use super::super::build::{bin, lit, usize_ty};
use super::super::closures::Elem;
use super::*;

/// How a side's element is found from its position `k`.
enum Positions {
    /// A range from the local `start`: the element is `start + k`.
    From(LocalId),
    /// An array (or a chain): the position is the index.
    Index,
}

impl Cx<'_> {
    pub(super) fn chain_stage(&mut self, mc: &syn::ExprMethodCall, p: &mut Pipeline) {
        let sp = mc.method.span();
        if let Some(after) = unchainable(p) {
            let msg = format!("`.chain(..)` after `{after}` is not supported: a side of `chain` must yield its elements from their positions; apply `{after}` after `chain`, or write two loops");
            self.err(sp, msg);
            return;
        }
        let arg = &mc.args[0];
        let (src, stages) = parse_chain(arg).unwrap_or((Source::Array(arg, Mode::Value), Vec::new()));
        // The same loop: `continue` in the argument's adaptors takes the next position.
        let Some(right) = self.pipeline(src, &stages, p.outer.id) else { return };
        if let Some(after) = unchainable(&right) {
            let msg = format!("the argument of `chain` may not use `{after}`: a side of `chain` must yield its elements from their positions; apply `{after}` after `chain`, or write two loops");
            self.err_at(arg, msg);
            return;
        }
        if p.mutable || right.mutable {
            self.err(sp, "`chain` of `iter_mut()` is not supported (its elements are values here); write one loop per array");
            return;
        }
        let (lt, rt) = (p.elem.ty(), right.elem.ty());
        if self.sh.infer.unify(&lt, &rt).is_err() {
            let msg = format!("mismatched types: `chain` joins iterators of one element type; this one yields `{}`, the argument `{}`", self.show(&lt), self.show(&rt));
            self.err_at(arg, msg);
            return;
        }
        // Rust's order: the left source, its adaptors' arguments, then the right's.
        let mut right = right;
        let (saved, left_pos, left_len) = self.side_bounds(p, sp);
        p.pre.splice(0..0, saved);
        let (saved, right_pos, right_len) = self.side_bounds(&mut right, sp);
        p.pre.extend(saved);
        p.pre.append(&mut right.pre);
        let (nl, nr, total) = (self.hidden("n", usize_ty()), self.hidden("n", usize_ty()), self.hidden("len", usize_ty()));
        p.pre.push(self.let_at(sp, nl, left_len));
        p.pre.push(self.let_at(sp, nr, right_len));
        p.pre.push(self.let_at(sp, total, bin(BinOp::Add, self.local_expr(nl), self.local_expr(nr))));

        let u = self.hidden("at", usize_ty());
        let left_k = self.local_expr(u);
        let right_k = bin(BinOp::Sub, self.local_expr(u), self.local_expr(nl));
        let mut left = vec![self.side_var(p.outer.var, &left_pos, left_k, sp)];
        left.append(&mut p.outer.top);
        left.append(&mut p.outer.body);
        let mut right_stmts = vec![self.side_var(right.outer.var, &right_pos, right_k, sp)];
        right_stmts.extend(right.outer.body);
        let then = Block { stmts: left, tail: Some(Box::new(p.elem.clone().into_expr())), ty: lt.clone() };
        let other = Block { stmts: right_stmts, tail: Some(Box::new(right.elem.into_expr())), ty: lt.clone() };
        let in_left = bin(BinOp::Lt, self.local_expr(u), self.local_expr(nl));
        let pick = ex(lt.clone(), ExprKind::If(Box::new(in_left), then, Some(Box::new(ex(lt.clone(), ExprKind::Block(other))))));
        let e = self.hidden("chained", lt);
        p.outer.body = vec![self.let_at(sp, e, pick)];
        p.outer.var = u;
        p.outer.start = lit(0, usize_ty());
        p.outer.end = self.local_expr(total);
        p.outer.inclusive = false;
        p.elem = Elem::Val(self.local_expr(e), true);
        p.kind = SourceKind::Chain;
        p.random_access = false;
        if p.stateful.is_none() {
            p.stateful = right.stateful;
        }
    }

    /// The bounds of a side's source, saved in locals when it is a range (the statements
    /// that save them), how its elements follow from their positions, and its length.
    fn side_bounds(&mut self, side: &mut Pipeline, sp: Span) -> (Vec<Stmt>, Positions, Expr) {
        if side.kind != SourceKind::Range {
            return (Vec::new(), Positions::Index, side.outer.end.clone());
        }
        let (s, e) = (self.hidden("from", side.outer.start.ty.clone()), self.hidden("to", side.outer.end.ty.clone()));
        let start = std::mem::replace(&mut side.outer.start, self.local_expr(s));
        let end = std::mem::replace(&mut side.outer.end, self.local_expr(e));
        let saved = vec![self.let_at(sp, s, start), self.let_at(sp, e, end)];
        let len = ex(usize_ty(), ExprKind::RangeLen(Box::new(self.local_expr(s)), Box::new(self.local_expr(e)), side.outer.inclusive));
        (saved, Positions::From(s), len)
    }

    /// `let var = <element at position k>;` for a side whose loop variable was `var`.
    fn side_var(&self, var: LocalId, pos: &Positions, k: Expr, sp: Span) -> Stmt {
        let v = match pos {
            Positions::From(s) => ex(self.locals[var].ty.clone(), ExprKind::RangeNth(Box::new(self.local_expr(*s)), Box::new(k))),
            Positions::Index => k,
        };
        self.let_at(sp, var, v)
    }
}

/// The adaptor or source form that keeps `p` from being a side of `chain`, if any.
fn unchainable(p: &Pipeline) -> Option<String> {
    if !p.nested.is_empty() {
        return Some("flat_map".into());
    }
    match p.kind {
        SourceKind::Chunks => return Some("chunks".into()),
        _ if p.outer.step.is_some() => return Some("step_by".into()),
        _ if p.outer.rev => return Some("rev".into()),
        _ => {}
    }
    p.ends_early.clone()
}
