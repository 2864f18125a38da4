//! References: `&x` / `&mut x` of any place (or of a value, borrowed through a temporary as
//! Rust does), `*r`, auto-deref of `r.f`, `r[i]` and `r.method()`, and the coercions Rust
//! applies to arguments. A reference lives only in a parameter or a local (`Ty::Ref`), so it
//! never outlives its target: rustc's borrow checker, which still sees the code, proves the
//! rest (no aliasing `&mut`, no dangling locals).

use super::{err_expr, ex, Cx};
use crate::ir::{Expr, ExprKind};
use crate::types::Ty;
use proc_macro2::Span;

impl Cx<'_> {
    /// `&expr` / `&mut expr`.
    pub(super) fn reference(&mut self, r: &syn::ExprReference) -> Expr {
        let mutable = r.mutability.is_some();
        if let syn::Expr::Index(ix) = super::peel(&r.expr) {
            if let syn::Expr::Range(range) = super::peel(&ix.index) {
                return self.slicing(ix, range, Some(mutable));
            }
        }
        // `&mut ctx.counters.found`: a counter is named only to be updated or borrowed.
        let inner = match super::peel(&r.expr) {
            syn::Expr::Field(f) => self.field(f, true),
            e => self.expr(e),
        };
        match self.resolve(&inner.ty) {
            // The context and its parts are references already (`&ctx.buffers.data`).
            t if t.is_context() => inner,
            Ty::Ref(..) | Ty::Slice(..) => {
                self.err_at(r, "references to references are not supported; pass the reference itself (`r`, or `&mut *r`)");
                err_expr()
            }
            Ty::Err => err_expr(),
            _ => ex(Ty::Ref(Box::new(inner.ty.clone()), mutable), ExprKind::AddrOf(Box::new(inner))),
        }
    }

    /// `*inner` of a reference.
    pub(super) fn deref(&mut self, inner: Expr, span: Span) -> Expr {
        match self.resolve(&inner.ty) {
            Ty::Ref(t, _) => ex(*t, ExprKind::Deref(Box::new(inner))),
            // `&mut *ctx` reborrows the context: the same pointer.
            t if t.is_context() => inner,
            Ty::Err => err_expr(),
            t => {
                let msg = format!("type `{}` cannot be dereferenced; `*` applies to references (`&T`, `&mut T`) and the handler's task parameter", self.show(&t));
                self.err(span, msg);
                err_expr()
            }
        }
    }

    /// `e`, dereferenced if it is a reference: the operand of a field access, an index or a
    /// method call.
    pub(super) fn auto_deref(&mut self, e: Expr) -> Expr {
        match self.resolve(&e.ty) {
            Ty::Ref(t, _) => ex(*t, ExprKind::Deref(Box::new(e))),
            _ => e,
        }
    }

    /// The argument `a` (written `at`) for a parameter of type `want`, with Rust's coercions:
    /// `&mut T` passes as `&T`, the handler's task parameter (a `&Task` in Rust, a copy of
    /// the task here) as `&Task`, and those to slices (`coerce_to_slice`).
    pub(super) fn coerce_arg(&mut self, at: Span, want: &Ty, a: Expr) -> Expr {
        let w = self.resolve(want);
        let a = self.coerce_to_slice(&w, a);
        let got = self.resolve(&a.ty);
        let a = match (&w, &got) {
            (Ty::Ref(_, false), Ty::Ref(inner, true)) => Expr { ty: Ty::Ref(inner.clone(), false), kind: a.kind },
            (Ty::Ref(_, false), Ty::Struct(_)) if matches!(a.kind, ExprKind::Local(id) if Some(id) == self.task_local) => {
                ex(Ty::Ref(Box::new(got.clone()), false), ExprKind::AddrOf(Box::new(a)))
            }
            _ => a,
        };
        if self.sh.infer.unify(&w, &a.ty).is_err() {
            let hint = match (&w, self.resolve(&a.ty)) {
                (Ty::Ref(_, m), t) if !matches!(t, Ty::Ref(..)) => format!("; pass a reference: `&{}value`", if *m { "mut " } else { "" }),
                (t, Ty::Ref(..)) if !matches!(t, Ty::Ref(..)) => "; dereference it: `*r`".to_string(),
                _ => String::new(),
            };
            let msg = format!("mismatched types: expected `{}`, found `{}`{hint}", self.show(&w), self.show(&a.ty));
            self.err(at, msg);
        }
        a
    }

    /// References stay in parameters and locals: never in an array, a tuple or a field.
    pub(super) fn not_stored(&mut self, e: &Expr, at: &dyn quote::ToTokens) {
        let t = self.resolve(&e.ty);
        if let Ty::Ref(..) | Ty::Slice(..) = t {
            self.errors.push(syn::Error::new_spanned(
                at,
                "references and slices cannot be stored in arrays, tuples or structs; pass them straight to a function's `&T`/`&mut T`/`&[T]` parameter or bind them with `let`",
            ));
        } else if t.is_context() {
            self.errors.push(syn::Error::new_spanned(
                at,
                "the context and its parts (buffers, counters) cannot be stored in arrays, tuples or structs; pass them straight to a helper's parameter (`ctx: &mut Ctx`, `data: &Buffer<u32>`, ..) or bind them with `let`",
            ));
        }
    }
}
