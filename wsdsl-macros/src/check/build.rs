//! Builders of typed IR for code the checker writes itself: the loops that iterator chains
//! (`iterators.rs`) and slice methods (`slice_methods.rs`) become, their counters and tests.

use super::*;

pub(super) fn usize_ty() -> Ty {
    Ty::Int(IntTy::Usize)
}

pub(super) fn lit(v: u128, ty: Ty) -> Expr {
    ex(ty, ExprKind::Int(v))
}

pub(super) fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let ty = if op.is_cmp() { Ty::Bool } else { a.ty.clone() };
    ex(ty, ExprKind::Binary(op, Box::new(a), Box::new(b), u32::MAX))
}

pub(super) fn not(a: Expr) -> Expr {
    ex(Ty::Bool, ExprKind::Unary(UnOp::Not, Box::new(a)))
}

impl Cx<'_> {
    /// A local that no Rust name refers to (`name` shows in its C name).
    pub(super) fn hidden(&mut self, name: &str, ty: Ty) -> LocalId {
        self.locals.push(Local { name: name.into(), ty });
        self.locals.len() - 1
    }

    pub(super) fn local_expr(&self, id: LocalId) -> Expr {
        ex(self.locals[id].ty.clone(), ExprKind::Local(id))
    }

    pub(super) fn stmt_at(&self, span: Span, kind: StmtKind) -> Stmt {
        let (line, file) = loc(span);
        Stmt { line, file, kind }
    }

    pub(super) fn expr_stmt(&self, span: Span, e: Expr) -> Stmt {
        self.stmt_at(span, StmtKind::Expr(e))
    }

    pub(super) fn assign(&self, span: Span, id: LocalId, v: Expr) -> Stmt {
        self.expr_stmt(span, ex(Ty::Unit, ExprKind::Assign(Box::new(self.local_expr(id)), Box::new(v))))
    }

    pub(super) fn incr(&self, span: Span, id: LocalId) -> Stmt {
        let v = bin(BinOp::Add, self.local_expr(id), lit(1, usize_ty()));
        self.assign(span, id, v)
    }

    pub(super) fn when(&self, span: Span, cond: Expr, then: Vec<Stmt>) -> Stmt {
        let b = Block { stmts: then, tail: None, ty: Ty::Unit };
        self.expr_stmt(span, ex(Ty::Unit, ExprKind::If(Box::new(cond), b, None)))
    }

    pub(super) fn jump(&self, span: Span, id: LoopId, brk: bool) -> Stmt {
        let k = if brk { ExprKind::Break(id, None) } else { ExprKind::Continue(id) };
        self.expr_stmt(span, ex(Ty::Never, k))
    }


    /// A new loop id (a loop without a Rust label).
    pub(super) fn new_loop(&mut self) -> LoopId {
        self.loop_labels.push(false);
        self.loop_labels.len() - 1
    }

    /// `let id = v;` at `span`.
    pub(super) fn let_at(&self, span: Span, id: LocalId, v: Expr) -> Stmt {
        self.stmt_at(span, StmtKind::Let(id, Some(v)))
    }
}
