//! Closures, which never exist at run time: a closure bound with `let` (or written as the
//! argument of an iterator adaptor or of a helper that takes one) is type-checked anew at
//! each call, its body inlined there with the parameters bound to the arguments. A
//! device has no function pointers worth using, and inlining lets every call see the
//! argument types, so the body needs no type of its own.
//!
//! The body sees the scopes where the closure was written, not those of the call: a
//! capture by reference is the C local itself. A `move` closure captures copies, taken
//! where it is written. A closure that would have to be a value (stored in a struct,
//! returned, passed to a plain helper, copied to another local) is a compile error.
//!
//! `return` inside an inlined body leaves that body only: the body is wrapped in a one-trip
//! `loop` and `return v` becomes `break v` (see `Frame`).

use super::*;
use quote::ToTokens;
use std::rc::Rc;

pub(super) struct ClosureDef {
    pub syn: syn::ExprClosure,
    /// The names in scope where the closure was written (for a `move` closure, with its own
    /// copies of the locals it captures).
    pub scopes: Vec<Vec<(String, Bind)>>,
}

/// A body inlined at its call: `return` inside it breaks out of the loop `id`.
pub(super) struct Frame {
    pub id: LoopId,
    /// The declared result type, or the type of the first `return`.
    pub ret: Option<Ty>,
    pub returned: bool,
    /// Where the inlined call is.
    pub at: Span,
}

/// How deeply inlined bodies may nest: only a helper that passes a closure on to itself
/// (recursion, which is reported) gets there.
const MAX_INLINE_DEPTH: usize = 24;

/// A value bound to a parameter or a pattern: an expression, or a tuple built by an
/// iterator adaptor (`enumerate`, `zip`) that a tuple pattern takes apart without building.
#[derive(Clone)]
pub(super) enum Elem {
    /// `alias`: the expression is a place nothing can change while the name is in scope
    /// (an array element at the loop's index, a hidden local), so a name may stand for it
    /// without a copy, and `*x = v` through `iter_mut()` writes the element.
    Val(Expr, bool),
    Tup(Vec<Elem>),
}

impl Elem {
    pub fn ty(&self) -> Ty {
        match self {
            Elem::Val(e, _) => e.ty.clone(),
            Elem::Tup(es) => Ty::Tuple(es.iter().map(Elem::ty).collect()),
        }
    }

    pub fn into_expr(self) -> Expr {
        match self {
            Elem::Val(e, _) => e,
            Elem::Tup(es) => {
                let ty = Ty::Tuple(es.iter().map(Elem::ty).collect());
                ex(ty, ExprKind::TupleLit(es.into_iter().map(Elem::into_expr).collect()))
            }
        }
    }
}

/// The identifiers in `ts` (a superset of the locals a closure body uses).
fn idents(ts: proc_macro2::TokenStream, out: &mut Vec<String>) {
    for t in ts {
        match t {
            proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
            proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
            _ => {}
        }
    }
}

impl Cx<'_> {
    /// `let f = |..| ..;`: binds the name to the closure; a `move` closure's copies of the
    /// locals it uses are the statements returned.
    pub(super) fn let_closure(&mut self, name: &str, c: &syn::ExprClosure) -> Vec<StmtKind> {
        let mut scopes = self.scopes.clone();
        let mut out = Vec::new();
        if c.capture.is_some() {
            let mut names = Vec::new();
            idents(c.body.to_token_stream(), &mut names);
            let mut own: Vec<(String, Bind)> = Vec::new();
            for n in names {
                if own.iter().any(|(m, _)| *m == n) {
                    continue;
                }
                if let Some(Bind::Local(id)) = self.lookup(&n) {
                    let ty = self.locals[id].ty.clone();
                    let copy = self.new_local_hidden(ty.clone());
                    out.push(StmtKind::Let(copy, Some(ex(ty, ExprKind::Local(id)))));
                    own.push((n, Bind::Local(copy)));
                }
            }
            scopes.push(own);
        }
        let def = Rc::new(ClosureDef { syn: c.clone(), scopes });
        self.scopes.last_mut().unwrap().push((name.to_string(), Bind::Closure(def)));
        out
    }

    /// A closure written in place (an adaptor's argument): it sees the current scopes.
    pub(super) fn closure_here(&self, c: &syn::ExprClosure) -> ClosureDef {
        ClosureDef { syn: c.clone(), scopes: self.scopes.clone() }
    }

    /// Calls `f` (a closure written here, a closure local or a helper of the module) with
    /// `args`: the inlined body, or a call of the helper.
    pub(super) fn apply_fn(&mut self, f: &syn::Expr, args: Vec<Elem>) -> Expr {
        match peel(f) {
            syn::Expr::Closure(c) => {
                let def = self.closure_here(c);
                self.inline_closure(&def, args, f.span())
            }
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                let name = p.path.get_ident().unwrap().to_string();
                match self.lookup(&name) {
                    Some(Bind::Closure(def)) => self.inline_named(&name, &def, args, f.span()),
                    Some(_) => {
                        self.err_at(f, format!("`{name}` is a value, not a closure; pass a closure such as `|x| x + 1`"));
                        err_expr()
                    }
                    None => {
                        let spans = vec![f.span(); args.len()];
                        let args = args.into_iter().map(Elem::into_expr).collect();
                        self.call_checked(&name, args, &spans, f, f.span())
                    }
                }
            }
            _ => {
                self.err_at(f, "pass a closure (`|x| x * 2`), a closure bound with `let`, or a helper function of this module");
                err_expr()
            }
        }
    }

    /// `inline_closure` for a closure called by its name (which its own body cannot see:
    /// a call of that name inside is recursion).
    pub(super) fn inline_named(&mut self, name: &str, def: &ClosureDef, args: Vec<Elem>, at: Span) -> Expr {
        self.inlining.push(name.to_string());
        let e = self.inline_closure(def, args, at);
        self.inlining.pop();
        e
    }

    /// The body of `def` where it is called.
    pub(super) fn inline_closure(&mut self, def: &ClosureDef, args: Vec<Elem>, at: Span) -> Expr {
        let c = &def.syn;
        if c.inputs.len() != args.len() {
            self.err(at, format!("this closure takes {} argument(s) but {} were supplied", c.inputs.len(), args.len()));
            return err_expr();
        }
        if let Some(a) = &c.asyncness {
            self.err_at(a, "`async` closures are not supported");
            return err_expr();
        }
        let ret = match &c.output {
            syn::ReturnType::Type(_, t) => Some(self.parse_type(t).unwrap_or_else(|e| {
                self.errors.push(e);
                Ty::Err
            })),
            syn::ReturnType::Default => None,
        };
        let saved = std::mem::replace(&mut self.scopes, def.scopes.clone());
        self.scopes.push(Vec::new());
        let mut stmts = Vec::new();
        for (p, a) in c.inputs.iter().zip(args) {
            self.bind_elem(p, a, &mut stmts);
        }
        let body = self.inlined_body(|cx| cx.expr(&c.body), ret, at);
        self.scopes = saved;
        let ty = body.ty.clone();
        ex(ty.clone(), ExprKind::Block(Block { stmts, tail: Some(Box::new(body)), ty }))
    }

    /// Checks a body to inline (`check`), with `return` leaving it and the enclosing loops
    /// out of reach (Rust rejects `break` out of a closure).
    pub(super) fn inlined_body(&mut self, check: impl FnOnce(&mut Self) -> Expr, ret: Option<Ty>, at: Span) -> Expr {
        if self.inline_overflow {
            return err_expr();
        }
        if self.frames.len() >= MAX_INLINE_DEPTH {
            // At the outermost call, so that the whole recursion is one error.
            let at = self.frames[0].at;
            self.err(at, "closures and helpers that take closures are inlined where they are called, so they cannot call themselves (recursion); rewrite it as a loop");
            self.inline_overflow = true;
            return err_expr();
        }
        let id = self.loop_labels.len();
        self.loop_labels.push(false);
        let loops = std::mem::take(&mut self.loops);
        self.frames.push(Frame { id, ret: ret.clone(), returned: false, at });
        let body = check(self);
        let frame = self.frames.pop().unwrap();
        self.inline_overflow &= !self.frames.is_empty();
        self.loops = loops;
        let ty = match (&frame.ret, frame.returned) {
            (Some(t), _) => {
                let t = t.clone();
                if !matches!(self.resolve(&body.ty), Ty::Never) && self.sh.infer.unify(&t, &body.ty).is_err() {
                    let msg = format!("mismatched types: this body returns `{}`, but its value has type `{}`", self.show(&t), self.show(&body.ty));
                    self.err(at, msg);
                }
                t
            }
            (None, _) => body.ty.clone(),
        };
        if !frame.returned {
            return body;
        }
        // `return` may sit in a nested loop: the frame's loop is left with a `goto`.
        self.loop_labels[id] = true;
        let (line, file) = loc(at);
        let brk = ex(Ty::Never, ExprKind::Break(id, Some(Box::new(body))));
        let b = Block { stmts: vec![Stmt { line, file, kind: StmtKind::Expr(brk) }], tail: None, ty: Ty::Never };
        ex(ty, ExprKind::Loop(b, id))
    }

    /// `return` inside an inlined body, if there is one: `break` out of its loop.
    pub(super) fn frame_return(&mut self, r: &syn::ExprReturn) -> Option<Expr> {
        self.frames.last()?;
        let v = r.expr.as_ref().map(|v| self.expr(v));
        let vt = v.as_ref().map(|v| v.ty.clone()).unwrap_or(Ty::Unit);
        let frame = self.frames.last_mut().unwrap();
        frame.returned = true;
        let id = frame.id;
        match frame.ret.clone() {
            None => frame.ret = Some(vt),
            Some(t) => self.expect_at(r, &t, &vt),
        }
        Some(ex(Ty::Never, ExprKind::Break(id, v.map(Box::new))))
    }

    /// Binds pattern `p` (a parameter or a loop pattern) to `v`: names, `_`, `mut`, tuples,
    /// type ascriptions and `&p` (references are values here: `&x` binds `x` to the value).
    pub(super) fn bind_elem(&mut self, p: &syn::Pat, v: Elem, out: &mut Vec<Stmt>) {
        let (line, file) = loc(p.span());
        match p {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let name = pi.ident.to_string();
                match v {
                    Elem::Val(e, true) if pi.mutability.is_none() => {
                        self.scopes.last_mut().unwrap().push((name, Bind::Alias(Rc::new(e))));
                    }
                    v => {
                        let e = v.into_expr();
                        let id = self.new_local(&name, e.ty.clone());
                        self.ref_locals.push(id);
                        out.push(Stmt { line, file, kind: StmtKind::Let(id, Some(e)) });
                    }
                }
            }
            syn::Pat::Wild(_) => {
                if let Elem::Val(e, false) = v {
                    out.push(Stmt { line, file, kind: StmtKind::Expr(e) });
                }
            }
            syn::Pat::Reference(r) => self.bind_elem(&r.pat, v, out),
            syn::Pat::Paren(pp) => self.bind_elem(&pp.pat, v, out),
            syn::Pat::Type(pt) => {
                match self.parse_type(&pt.ty) {
                    Ok(t) => self.expect_at(&pt.ty, &t, &v.ty()),
                    Err(e) => self.errors.push(e),
                }
                self.bind_elem(&pt.pat, v, out)
            }
            syn::Pat::Tuple(tp) => {
                let parts = match v {
                    Elem::Tup(es) => es,
                    Elem::Val(e, alias) => {
                        let Ty::Tuple(ts) = self.resolve(&e.ty) else {
                            if !matches!(self.resolve(&e.ty), Ty::Err) {
                                let msg = format!("mismatched types: expected `{}`, found a tuple pattern", self.show(&e.ty));
                                self.err_at(tp, msg);
                            }
                            return;
                        };
                        let base = if alias {
                            e
                        } else {
                            let id = self.new_local_hidden(e.ty.clone());
                            let ty = e.ty.clone();
                            out.push(Stmt { line, file: file.clone(), kind: StmtKind::Let(id, Some(e)) });
                            ex(ty, ExprKind::Local(id))
                        };
                        ts.into_iter()
                            .enumerate()
                            .map(|(i, t)| Elem::Val(ex(t, ExprKind::TupleField(Box::new(base.clone()), i)), true))
                            .collect()
                    }
                };
                if parts.len() != tp.elems.len() {
                    self.err_at(tp, format!("mismatched types: expected a tuple of {} elements, found a pattern of {}", parts.len(), tp.elems.len()));
                    return;
                }
                for (p, e) in tp.elems.iter().zip(parts) {
                    self.bind_elem(p, e, out);
                }
            }
            other => self.err_at(other, "this pattern is not supported here; use names, `mut` names, `_`, tuples `(a, b)` and `&x`"),
        }
    }

    /// `*x` where `x` names an iterator element or a closure parameter (a reference in
    /// Rust, the value itself here): `x`, a place when it is an `iter_mut()` element.
    pub(super) fn deref_binding(&mut self, e: &syn::Expr) -> Option<Expr> {
        let mut inner = peel(e);
        while let syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Deref(_), expr, .. }) = inner {
            inner = peel(expr);
        }
        // `*a.iter().max().unwrap()`: the element a consumer found is a reference in Rust.
        if let syn::Expr::MethodCall(mc) = inner {
            let found = matches!(peel(&mc.receiver), syn::Expr::MethodCall(r) if matches!(r.method.to_string().as_str(), "min" | "max" | "min_by" | "max_by" | "min_by_key" | "max_by_key" | "find" | "last") && r.args.len() <= 1);
            if found && matches!(mc.method.to_string().as_str(), "unwrap" | "expect" | "unwrap_or") {
                return Some(self.expr(inner));
            }
        }
        let syn::Expr::Path(p) = inner else { return None };
        let name = p.path.get_ident()?.to_string();
        match self.lookup(&name)? {
            Bind::Alias(x) => Some((*x).clone()),
            Bind::Local(id) if self.ref_locals.contains(&id) => Some(ex(self.locals[id].ty.clone(), ExprKind::Local(id))),
            _ => None,
        }
    }

    /// A closure where a value is expected (stored, returned, passed to a plain helper).
    pub(super) fn closure_value(&mut self, at: &dyn ToTokens) -> Expr {
        self.errors.push(syn::Error::new_spanned(
            at,
            "a closure cannot be a value on the GPU (stored in a struct, returned, passed to a helper that takes no `F: Fn(..)`); bind it with `let f = |x| ..;` and call it here, or pass it to an iterator adaptor or to a generic helper `fn h<F: Fn(u32) -> u32>(f: F, ..)`",
        ));
        err_expr()
    }
}
