//! Expressions: the dispatch over every `syn` expression, each construct checked in its own
//! file (`literals.rs`, `paths.rs`, `operators.rs`, `casts.rs`, `calls.rs`, `control.rs`,
//! `refs.rs`, ...), and here the ones that need nothing more: indexing, arrays, tuples,
//! blocks, field accesses, struct literals and assignments to places.

use super::*;

impl<'a> Cx<'a> {
    /// `e` typed, with stack room for its sub-expressions however deep they nest (`depth.rs`).
    pub(super) fn expr(&mut self, e: &syn::Expr) -> Expr {
        crate::depth::with_room(|| self.typed_expr(e))
    }

    fn typed_expr(&mut self, e: &syn::Expr) -> Expr {
        use syn::Expr as E;
        match e {
            E::Lit(l) => self.literal(l),
            E::Paren(p) => self.expr(&p.expr),
            E::Group(g) => self.expr(&g.expr),
            E::Path(p) => self.path(p),
            E::Field(f) => self.field(f, false),
            E::Index(i) => {
                if let E::Range(r) = peel(&i.index) {
                    self.err_at(&r, "a range of elements is borrowed: `&a[i..j]` or `&mut a[i..j]` (a slice, for a `&[T]`/`&mut [T]` parameter or a local), or the receiver of a method (`a[i..j].len()`, `a[..k].iter()`, `a[k..].sort_unstable()`)");
                    return err_expr();
                }
                let base = self.expr(&i.expr);
                let base = self.auto_deref(base);
                let idx = self.expr(&i.index);
                self.expect_at(&i.index, &Ty::Int(IntTy::Usize), &idx.ty);
                match self.resolve(&base.ty) {
                    Ty::Array(elem, n) => {
                        let site = self.index_site(e.span());
                        ex(*elem, ExprKind::Index(Box::new(base), Box::new(idx), n, site))
                    }
                    Ty::Slice(elem, _) => {
                        let site = self.index_site(e.span());
                        ex(*elem, ExprKind::SliceIndex(Box::new(base), Box::new(idx), site))
                    }
                    Ty::Err => err_expr(),
                    Ty::Buffer(..) => {
                        self.err_at(&i.expr, "buffer elements are read with `.get(i)` and written with `.set(i, v)` (or the `atomic_*` methods)");
                        err_expr()
                    }
                    t => {
                        let msg = format!("cannot index into a value of type `{}`; only arrays `[T; N]` can be indexed", crate::types::rust_name(&t));
                        self.err_at(&i.expr, msg);
                        err_expr()
                    }
                }
            }
            E::Unary(u) => self.unary(u),
            E::Binary(b) => self.binary(b),
            E::Cast(c) => self.cast(c),
            E::Struct(s) => self.struct_lit(s),
            E::Array(a) => {
                if a.elems.is_empty() {
                    self.err_at(e, "empty arrays are not supported");
                    return err_expr();
                }
                let elems: Vec<Expr> = a.elems.iter().map(|x| self.expr(x)).collect();
                for (x, s) in elems.iter().zip(&a.elems) {
                    self.not_stored(x, s);
                }
                let ety = elems[0].ty.clone();
                for (x, s) in elems.iter().zip(a.elems.iter()).skip(1) {
                    self.expect_at(&s, &ety, &x.ty);
                }
                let n = elems.len() as u64;
                ex(Ty::Array(Box::new(ety), n), ExprKind::ArrayLit(elems))
            }
            E::Repeat(r) => {
                let v = self.expr(&r.expr);
                self.not_stored(&v, &r.expr);
                let n = match peel(&r.len) {
                    E::Lit(syn::ExprLit { lit: syn::Lit::Int(l), .. }) => Some(l.base10_parse::<u64>().unwrap_or(0)),
                    E::Path(p) => const_len(&p.path, &self.m.type_names),
                    _ => None,
                };
                let Some(n) = n else {
                    self.err_at(peel(&r.len), "array lengths must be integer literals or consts of this module defined by one");
                    return err_expr();
                };
                if n == 0 {
                    self.err_at(&r.len, "zero-length arrays are not supported");
                    return err_expr();
                }
                ex(Ty::Array(Box::new(v.ty.clone()), n), ExprKind::ArrayRepeat(Box::new(v), n))
            }
            E::Call(c) => self.call(c),
            E::MethodCall(mc) => self.method_call(mc),
            E::Block(b) => {
                if let Some(l) = &b.label {
                    self.err_at(&l, "labeled blocks are not supported");
                }
                let blk = self.block(&b.block);
                ex(blk.ty.clone(), ExprKind::Block(blk))
            }
            E::If(i) => self.if_expr(i),
            E::While(w) => self.while_expr(w),
            E::Loop(l) => self.loop_expr(l),
            E::ForLoop(f) => self.for_loop(f),
            E::Break(b) => self.break_expr(b, e),
            E::Continue(c) => self.continue_expr(c, e),
            E::Return(r) => self.return_expr(r, e),
            E::Assign(a) if matches!(peel(&a.left), syn::Expr::Tuple(t) if !t.elems.is_empty()) => {
                let syn::Expr::Tuple(places) = peel(&a.left) else { unreachable!("matched above") };
                let rhs = self.expr(&a.right);
                self.assign_tuple(places, rhs, e.span())
            }
            E::Assign(a) => {
                let rhs = self.expr(&a.right);
                let lhs = self.place(&a.left);
                self.expect_at(&a.right, &lhs.ty.clone(), &rhs.ty);
                ex(Ty::Unit, ExprKind::Assign(Box::new(lhs), Box::new(rhs)))
            }
            E::Tuple(t) if t.elems.is_empty() => ex(Ty::Unit, ExprKind::Unit),
            E::Closure(_) => self.closure_value(e),
            E::Try(t) => self.try_expr(t),
            E::Macro(m) => self.macro_expr(&m.mac),
            E::Unsafe(_) => {
                self.err_at(e, "`unsafe` is not supported in megakernel code");
                err_expr()
            }
            E::Match(m) => self.match_expr(m),
            E::Reference(r) => self.reference(r),
            E::Tuple(t) if t.elems.len() == 1 => {
                self.err_at(e, "one-element tuples are not supported; use the value itself");
                err_expr()
            }
            E::Tuple(t) => {
                let elems: Vec<Expr> = t.elems.iter().map(|x| self.expr(x)).collect();
                for (x, s) in elems.iter().zip(&t.elems) {
                    self.not_stored(x, s);
                    if matches!(self.resolve(&x.ty), Ty::Unit) {
                        self.err_at(s, "tuple elements must be values (no `()`)");
                    }
                }
                let ty = Ty::Tuple(elems.iter().map(|x| x.ty.clone()).collect());
                ex(ty, ExprKind::TupleLit(elems))
            }
            E::Range(_) => {
                self.err_at(e, "ranges are only supported as the iterator of a `for` loop: `for i in a..b`");
                err_expr()
            }
            E::Let(_) => {
                self.err_at(e, "`let` is supported in `if let PAT = value` only (no `let` chains with `&&`; nest the `if`s)");
                err_expr()
            }
            E::Async(_) | E::Await(_) => {
                self.err_at(e, "`async`/`.await` are not supported in megakernel code; spawn tasks with `ctx.spawn` instead");
                err_expr()
            }
            _ => {
                self.err_at(e, "this expression is not supported in megakernel code");
                err_expr()
            }
        }
    }

    /// `base.member`; `counter`: whether a counter of `ctx.counters` may be named (as the
    /// receiver of its update, or borrowed by `&mut`).
    pub(super) fn field(&mut self, f: &syn::ExprField, counter: bool) -> Expr {
        let syn::Member::Named(member) = &f.member else {
            let syn::Member::Unnamed(idx) = &f.member else { unreachable!() };
            let base = self.expr(&f.base);
            return match self.resolve(&base.ty) {
                Ty::Tuple(ts) if (idx.index as usize) < ts.len() => {
                    let t = ts[idx.index as usize].clone();
                    ex(t, ExprKind::TupleField(Box::new(base), idx.index as usize))
                }
                Ty::Err => err_expr(),
                t => {
                    let msg = format!("no field `{}` on type `{}`", idx.index, self.show(&t));
                    self.err_at(&f.member, msg);
                    err_expr()
                }
            };
        };
        let member = member.to_string();
        if self.is_ctx(&f.base) {
            return self.ctx_field(f, &member);
        }
        if let syn::Expr::Field(inner) = peel(&f.base) {
            if self.is_ctx(&inner.base) && matches!(&inner.member, syn::Member::Named(n) if n == "params") {
                let Some(p) = self.m.params() else {
                    self.err_at(&f, "this megakernel has no `#[params]` struct");
                    return err_expr();
                };
                return match p.fields.iter().find(|x| x.name == member) {
                    Some(fd) => ex(fd.ty.clone(), ExprKind::Param(member)),
                    None => {
                        let msg = format!("no field `{member}` on the params struct `{}`", p.name);
                        self.err_at(&f.member, msg);
                        err_expr()
                    }
                };
            }
        }
        let base = self.expr(&f.base);
        self.field_of(base, f, counter)
    }

    /// Field `f.member` of the already checked `base` (see `field`).
    fn field_of(&mut self, base: Expr, f: &syn::ExprField, counter: bool) -> Expr {
        let syn::Member::Named(member) = &f.member else { return err_expr() };
        let member = member.to_string();
        if let Some(x) = self.context_field(&base, f, &member, counter) {
            return x;
        }
        let base = self.auto_deref(base);
        match self.resolve(&base.ty) {
            Ty::Struct(s) => {
                // A struct the model rejected (and reported) still names its type.
                let Some(def) = self.m.struct_def(&s) else { return err_expr() };
                match def.fields.iter().find(|x| x.name == member) {
                    Some(fd) => ex(fd.ty.clone(), ExprKind::Field(Box::new(base), member)),
                    None => {
                        self.err_at(&f.member, format!("no field `{member}` on type `{s}`"));
                        err_expr()
                    }
                }
            }
            Ty::Err => err_expr(),
            t => {
                let msg = format!("no field `{member}` on type `{}`", self.show(&t));
                self.err_at(&f.member, msg);
                err_expr()
            }
        }
    }

    /// The receiver of a method call: also a counter (`ctx.counters.found.add(1)`) or a range
    /// of elements (`a[i..j].len()`, `a[..k].sort_unstable()`: a slice of them, as mutable as
    /// `a` is, which the method borrows).
    pub(super) fn receiver(&mut self, e: &syn::Expr) -> Expr {
        match peel(e) {
            syn::Expr::Field(f) => self.field(f, true),
            syn::Expr::Index(ix) => match peel(&ix.index) {
                syn::Expr::Range(r) => self.slicing(ix, r, None),
                _ => self.expr(e),
            },
            r => self.expr(r),
        }
    }

    pub(super) fn place(&mut self, e: &syn::Expr) -> Expr {
        if matches!(peel(e), syn::Expr::Array(_) | syn::Expr::Struct(_) | syn::Expr::Call(_)) {
            self.err_at(&e, "destructuring assignment takes tuples of places, `(a, b.f, _) = value`; assign an array's or a struct's parts one by one");
            return err_expr();
        }
        let x = self.expr(e);
        if !options::is_place(&x) {
            self.err_at(&e, "can only assign to local variables, their fields and array elements, and through references (`*r = v`, `r.f = v`)");
        }
        x
    }

    /// `(a, b.f, (c, _)) = value;` as Rust runs it: the value first, into a hidden local, then
    /// each place its field, left to right (`_` takes nothing).
    fn assign_tuple(&mut self, places: &syn::ExprTuple, value: Expr, span: Span) -> Expr {
        let src = self.new_local_hidden(value.ty.clone());
        let mut stmts = vec![self.stmt_at(span, StmtKind::Let(src, Some(value)))];
        self.assign_fields(places, src, span, &mut stmts);
        ex(Ty::Unit, ExprKind::Block(Block { stmts, tail: None, ty: Ty::Unit }))
    }

    fn assign_fields(&mut self, places: &syn::ExprTuple, src: LocalId, span: Span, out: &mut Vec<Stmt>) {
        let written = format!("a tuple of {} places", places.elems.len());
        let Some(fields) = self.tuple_fields(src, places.elems.len(), places, &written) else { return };
        for (place, field) in places.elems.iter().zip(fields) {
            let ety = field.ty.clone();
            match peel(place) {
                syn::Expr::Infer(_) => {}
                syn::Expr::Tuple(inner) if !inner.elems.is_empty() => {
                    let id = self.new_local_hidden(ety);
                    out.push(self.stmt_at(span, StmtKind::Let(id, Some(field))));
                    self.assign_fields(inner, id, span, out);
                }
                other => {
                    let lhs = self.place(other);
                    self.expect_at(other, &lhs.ty.clone(), &ety);
                    out.push(self.expr_stmt(span, ex(Ty::Unit, ExprKind::Assign(Box::new(lhs), Box::new(field)))));
                }
            }
        }
    }

    fn struct_lit(&mut self, s: &syn::ExprStruct) -> Expr {
        let span = s.span();
        if let [e, v] = &s.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>()[..] {
            if self.m.enum_def(e).is_some() {
                return self.enum_struct_lit(s, e, v);
            }
        }
        if let Some(r) = &s.rest {
            self.err_at(&r, "struct update syntax `..base` is not supported; list every field");
        }
        let Some(name) = s.path.get_ident().map(|i| i.to_string()) else {
            self.err_at(&s.path, "struct literals must name a struct of this module");
            return err_expr();
        };
        let Some(def) = self.m.struct_def(&name).filter(|d| d.kind != StructKind::Counters) else {
            self.err_at(&s.path, format!("`{name}` is not a struct of this megakernel"));
            return err_expr();
        };
        let mut fields: Vec<(String, Expr)> = Vec::new();
        for fv in &s.fields {
            let syn::Member::Named(fname) = &fv.member else {
                self.err_at(&fv.member, "tuple fields are not supported");
                continue;
            };
            let fname = fname.to_string();
            let v = self.expr(&fv.expr);
            match def.fields.iter().find(|f| f.name == fname) {
                Some(fd) => self.expect_at(&fv.expr, &fd.ty.clone(), &v.ty),
                None => {
                    self.err_at(&fv.member, format!("struct `{name}` has no field named `{fname}`"));
                    continue;
                }
            }
            if fields.iter().any(|(n, _)| *n == fname) {
                self.err_at(&fv.member, format!("field `{fname}` specified more than once"));
                continue;
            }
            fields.push((fname, v));
        }
        let missing: Vec<String> = def.fields.iter().map(|f| f.name.to_string()).filter(|n| !fields.iter().any(|(m, _)| m == n)).collect();
        if !missing.is_empty() && s.rest.is_none() {
            self.err(span, format!("missing fields in struct literal of `{name}`: {}", missing.join(", ")));
        }
        ex(Ty::Struct(name.clone()), ExprKind::StructLit(name, fields))
    }
}
