//! Blocks and statements: a block's statements, its tail and its type (`!` once a statement
//! diverges), and `let` with the patterns it takes apart: a name, `_` or a tuple of them.
//! `let .. else` is in `refutable.rs`, a closure bound by `let` in `closures.rs`.

use super::*;

impl<'a> Cx<'a> {
    pub(super) fn block(&mut self, b: &syn::Block) -> Block {
        self.scopes.push(Vec::new());
        let mut stmts = Vec::new();
        let mut tail = None;
        let mut diverges = false;
        let n = b.stmts.len();
        for (i, s) in b.stmts.iter().enumerate() {
            let (line, file) = loc(s.span());
            let kind = match s {
                syn::Stmt::Local(l) => {
                    for kind in self.let_stmt(l) {
                        let d = matches!(&kind, StmtKind::Let(_, Some(e)) if matches!(self.resolve(&e.ty), Ty::Never));
                        diverges |= d;
                        stmts.push(Stmt { line, file: file.clone(), kind });
                    }
                    continue;
                }
                syn::Stmt::Item(it) => {
                    self.err_at(&it, "items inside functions are not supported; declare them at module level");
                    continue;
                }
                syn::Stmt::Macro(mac) => {
                    let ex = self.macro_expr(&mac.mac);
                    if mac.semi_token.is_none() && i == n - 1 {
                        tail = Some(Box::new(ex));
                        continue;
                    }
                    StmtKind::Expr(ex)
                }
                // An empty statement (`;`), which syn keeps as empty verbatim tokens.
                syn::Stmt::Expr(syn::Expr::Verbatim(t), Some(_)) if t.is_empty() => continue,
                syn::Stmt::Expr(e, semi) => {
                    let ex = self.expr(e);
                    if semi.is_none() && i == n - 1 {
                        tail = Some(Box::new(ex));
                        continue;
                    }
                    if semi.is_none() {
                        let t = ex.ty.clone();
                        if !matches!(self.resolve(&t), Ty::Never) {
                            self.expect_at(&e, &Ty::Unit, &t);
                        }
                    }
                    StmtKind::Expr(ex)
                }
            };
            let d = match &kind {
                StmtKind::Expr(e) => matches!(self.resolve(&e.ty), Ty::Never),
                StmtKind::Let(_, Some(e)) => matches!(self.resolve(&e.ty), Ty::Never),
                _ => false,
            };
            diverges |= d;
            stmts.push(Stmt { line, file, kind });
        }
        self.scopes.pop();
        let ty = match &tail {
            Some(t) if !(diverges && matches!(self.resolve(&t.ty), Ty::Unit)) => t.ty.clone(),
            _ if diverges => Ty::Never,
            _ => Ty::Unit,
        };
        Block { stmts, tail, ty }
    }

    fn let_stmt(&mut self, l: &syn::Local) -> Vec<StmtKind> {
        if let (syn::Pat::Ident(pi), Some(init)) = (&l.pat, &l.init) {
            if let syn::Expr::Closure(c) = peel(&init.expr) {
                if pi.by_ref.is_none() && pi.subpat.is_none() && init.diverge.is_none() {
                    return self.let_closure(&pi.ident.to_string(), c);
                }
            }
        }
        let (pat, ann) = match &l.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            p => (p, None),
        };
        if let Some(init) = l.init.as_ref().filter(|i| i.diverge.is_some()) {
            return self.let_else(pat, ann, init);
        }
        let name = match pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.to_string(),
            syn::Pat::Wild(_) => "_".to_string(),
            syn::Pat::Tuple(_) => "_tuple".to_string(),
            other => {
                self.err_at(&other, "only `let name = ...;`, `let mut name = ...;` and tuple patterns `let (a, b) = ...;` are supported");
                return Vec::new();
            }
        };
        let ann_ty = match ann {
            Some(t) => match self.parse_local_type(t) {
                Ok(t) => Some(t),
                Err(e) => {
                    self.errors.push(e);
                    Some(Ty::Err)
                }
            },
            None => None,
        };
        let init = l.init.as_ref().map(|i| self.expr(&i.expr));
        let ty = match (&ann_ty, &init) {
            (Some(t), Some(e)) => {
                let init_expr = &l.init.as_ref().unwrap().expr;
                self.expect_at(init_expr, t, &e.ty);
                t.clone()
            }
            (Some(t), None) => t.clone(),
            (None, Some(e)) => match self.resolve(&e.ty) {
                Ty::Never | Ty::Unit => e.ty.clone(),
                _ => e.ty.clone(),
            },
            (None, None) => {
                self.err_at(&l, "add a type annotation: `let name: T;`");
                Ty::Err
            }
        };
        if matches!(self.resolve(&ty), Ty::Unit) {
            self.err_at(&l, "binding a `()` value is not supported");
        }
        let mut out = Vec::new();
        if let syn::Pat::Tuple(tp) = pat {
            if init.is_none() {
                self.err_at(&tp, "a tuple pattern needs an initializer");
                return out;
            }
            let id = self.new_local_hidden(ty);
            out.push(StmtKind::Let(id, init));
            self.destructure(tp, id, &mut out);
            return out;
        }
        if self.resolve(&ty) == Ty::Ctx {
            // Another name for the context (C always calls it `ctx`).
            self.scopes.last_mut().unwrap().push((name, Bind::Ctx));
            return out;
        }
        let id = self.new_local(&name, ty);
        out.push(StmtKind::Let(id, init));
        out
    }

    /// A local no Rust name can refer to (the value a tuple pattern takes apart).
    pub(super) fn new_local_hidden(&mut self, ty: Ty) -> LocalId {
        self.hidden("tup", ty)
    }

    /// The fields of the tuple local `src`, read, when it has `arity` of them; otherwise the
    /// mismatch is reported at `at`, which `written` describes ("a tuple pattern with 3 elements").
    pub(super) fn tuple_fields<T: quote::ToTokens>(&mut self, src: LocalId, arity: usize, at: &T, written: &str) -> Option<Vec<Expr>> {
        let elems = match self.resolve(&self.locals[src].ty) {
            Ty::Tuple(ts) if ts.len() == arity => ts,
            Ty::Err => return None,
            t => {
                let msg = format!("mismatched types: expected `{}`, found {written}", self.show(&t));
                self.err_at(at, msg);
                return None;
            }
        };
        let whole = ex(ty_of_local(&self.locals, src), ExprKind::Local(src));
        Some(elems.into_iter().enumerate().map(|(i, ety)| ex(ety, ExprKind::TupleField(Box::new(whole.clone()), i))).collect())
    }

    /// `let (a, (b, _)) = local;` as one `let` per name, reading the tuple's fields.
    fn destructure(&mut self, tp: &syn::PatTuple, src: LocalId, out: &mut Vec<StmtKind>) {
        let written = format!("a tuple pattern with {} elements", tp.elems.len());
        let Some(fields) = self.tuple_fields(src, tp.elems.len(), tp, &written) else { return };
        for (p, field) in tp.elems.iter().zip(fields) {
            let ety = field.ty.clone();
            match p {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    let id = self.new_local(&pi.ident.to_string(), ety);
                    out.push(StmtKind::Let(id, Some(field)));
                }
                syn::Pat::Wild(_) => {}
                syn::Pat::Tuple(inner) => {
                    let id = self.new_local_hidden(ety);
                    out.push(StmtKind::Let(id, Some(field)));
                    self.destructure(inner, id, out);
                }
                other => self.err_at(other, "tuple patterns in `let` may contain names, `_` and tuples"),
            }
        }
    }
}

fn ty_of_local(locals: &[Local], id: LocalId) -> Ty {
    locals[id].ty.clone()
}
