//! Slices: `&a[i..j]`, `&a[i..]`, `&a[..j]`, `&a[..]` and `&mut ..` of an array or of a
//! slice, for `&[T]` / `&mut [T]` parameters and locals, with Rust's bounds checks and
//! messages; and the coercions to `&[T]` Rust applies to arguments (`&mut [T]`, `&[T; N]`).

use super::{err_expr, ex, Cx};
use crate::ir::{Expr, ExprKind};
use crate::types::{IntTy, Ty};
use proc_macro2::Span;
use syn::spanned::Spanned;

impl Cx<'_> {
    /// `&base[range]` / `&mut base[range]` (`mutable`), or `base[range]` as the receiver of
    /// a method (`None`: as mutable as `base` allows, for methods that change the elements).
    pub(super) fn slicing(&mut self, ix: &syn::ExprIndex, range: &syn::ExprRange, mutable: Option<bool>) -> Expr {
        if let syn::RangeLimits::Closed(_) = range.limits {
            self.err_at(range, "inclusive ranges are not supported when slicing; write `&a[i..j + 1]`");
            return err_expr();
        }
        let base = self.expr(&ix.expr);
        let base = self.auto_deref(base);
        let mutable = mutable.unwrap_or_else(|| match self.resolve(&base.ty) {
            Ty::Slice(_, m) => m,
            _ => writable(&base),
        });
        let usize_ty = Ty::Int(IntTy::Usize);
        let bound = |cx: &mut Self, b: &Option<Box<syn::Expr>>| {
            b.as_ref().map(|b| {
                let x = cx.expr(b);
                cx.expect_at(b, &usize_ty, &x.ty);
                Box::new(x)
            })
        };
        let start = bound(self, &range.start);
        let end = bound(self, &range.end);
        let (elem, len) = match self.resolve(&base.ty) {
            Ty::Array(e, n) => (*e, Some(n)),
            Ty::Slice(e, m) => {
                if mutable && !m {
                    self.err_at(&ix.expr, "cannot borrow elements of a `&[T]` mutably; take a `&mut [T]`");
                }
                (*e, None)
            }
            Ty::Err => return err_expr(),
            t => {
                let msg = format!("only arrays and slices can be sliced, not `{}`", self.show(&t));
                self.err_at(&ix.expr, msg);
                return err_expr();
            }
        };
        let site = if start.is_none() && end.is_none() { u32::MAX } else { self.range_sites(ix.span()) };
        ex(Ty::Slice(Box::new(elem), mutable), ExprKind::Slicing { base: Box::new(base), start, end, len, site })
    }

    /// `a` as the `&[T]` parameter `want` needs, if Rust would coerce it: a `&mut [T]` or a
    /// reference to an array `&[T; N]` / `&mut [T; N]` (`&mut [T]` from the latter).
    pub(super) fn coerce_to_slice(&mut self, want: &Ty, a: Expr) -> Expr {
        let (Ty::Slice(_, want_mut), got) = (want, self.resolve(&a.ty)) else { return a };
        let (elem, base, len) = match got {
            Ty::Slice(e, true) if !want_mut => (e, a, None),
            Ty::Ref(arr, m) if m || !want_mut => match *arr {
                Ty::Array(e, n) => (e.clone(), ex(Ty::Array(e, n), ExprKind::Deref(Box::new(a))), Some(n)),
                _ => return a,
            },
            _ => return a,
        };
        let kind = ExprKind::Slicing { base: Box::new(base), start: None, end: None, len, site: u32::MAX };
        ex(Ty::Slice(elem, *want_mut), kind)
    }

    /// Rust's three messages of a bad range, in `ws_range`'s order, at `span`.
    fn range_sites(&mut self, span: Span) -> u32 {
        let of_length = " out of range for slice of length ";
        let first = self.usize_site(span, "range start index ", of_length);
        self.usize_site(span, "range end index ", of_length);
        self.usize_site(span, "slice index starts at ", " but ends at ");
        first
    }
}

/// Whether the place `e` may be written: a local (the handler's copy of its task too), or
/// what a `&mut` reference or slice reaches; not the params (the device reads them
/// through a `const` pointer) or what a `&T` reaches.
pub(super) fn writable(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(_) => true,
        ExprKind::Deref(r) => matches!(r.ty, Ty::Ref(_, true)),
        ExprKind::SliceIndex(s, ..) => matches!(s.ty, Ty::Slice(_, true)),
        ExprKind::Field(b, _) | ExprKind::TupleField(b, _) | ExprKind::Index(b, ..) => writable(b),
        _ => false,
    }
}
