//! Methods of arrays and slices beyond `len`, `iter` and `chunks`, each written out as the
//! loop Rust's standard library runs, so that results, the calls of closures and panics are
//! Rust's:
//!
//! - `swap(i, j)`, `fill(v)`, `reverse()`, `contains(&x)`, `copy_from_slice(&src)` (its
//!   length mismatch panics with Rust's message), `first()`, `last()`, `is_empty()`;
//! - `binary_search(&x)`, `binary_search_by_key(&b, f)`, `binary_search_by(f)`: std's loop
//!   (`size` halves, no early exit), so that among equal elements the same one is found;
//! - `sort`, `sort_by`, `sort_by_key` and the `sort_unstable` three: std's insertion sort
//!   (`insertion_sort_shift_left`), which std itself runs on up to 20 elements, so the
//!   comparisons (and a key closure's calls) are Rust's there; it is stable, so `sort*`
//!   give std's order at any length. Beyond 20 elements std's unstable sorts may order
//!   elements that compare equal otherwise (Rust leaves that order unspecified), and a key
//!   closure runs another number of times. The cost is O(n²) comparisons: meant for the
//!   small arrays a task holds in registers or local memory.
//!
//! The receiver becomes a slice local (`&mut a[..]` of an array place, or the slice itself),
//! read and written through `s[k]` (bounds-checked, Rust's message).

use super::build::{bin, lit, not, usize_ty};
use super::closures::Elem;
use super::panic::Piece;
use super::*;

pub(super) const SLICE_METHODS: &[&str] = &[
    "swap",
    "fill",
    "reverse",
    "contains",
    "copy_from_slice",
    "first",
    "last",
    "is_empty",
    "binary_search",
    "binary_search_by",
    "binary_search_by_key",
    "sort",
    "sort_by",
    "sort_by_key",
    "sort_unstable",
    "sort_unstable_by",
    "sort_unstable_by_key",
];

/// What a sort compares by.
enum Order<'a> {
    /// The elements themselves (`sort`, `sort_unstable`).
    Natural,
    /// A key closure (`sort_by_key`).
    Key(&'a syn::Expr),
    /// A closure returning an `Ordering` (`sort_by`).
    Compare(&'a syn::Expr),
}

/// The slice a method works on and where its code goes.
struct Target {
    /// The hidden local holding the slice.
    s: LocalId,
    elem: Ty,
    stmts: Vec<Stmt>,
    span: Span,
    /// The fault site of an index past the end (never reached by the loops' own indices).
    site: u32,
}

impl Cx<'_> {
    /// `recv.method(..)` for an array or slice `recv`, if `method` is one of
    /// `SLICE_METHODS`.
    pub(super) fn slice_method(&mut self, mc: &syn::ExprMethodCall, recv: Expr) -> Option<Expr> {
        let method = mc.method.to_string();
        if !SLICE_METHODS.contains(&method.as_str()) {
            return None;
        }
        let want = match method.as_str() {
            "swap" | "binary_search_by_key" => 2,
            "fill" | "contains" | "copy_from_slice" | "binary_search" | "binary_search_by" | "sort_by" | "sort_by_key" | "sort_unstable_by" | "sort_unstable_by_key" => 1,
            _ => 0,
        };
        if mc.args.len() != want {
            self.err(mc.span(), format!("`{method}` takes {want} argument(s) but {} were supplied", mc.args.len()));
            return Some(err_expr());
        }
        let mutates = matches!(method.as_str(), "swap" | "fill" | "reverse" | "copy_from_slice") || method.starts_with("sort");
        let Some(mut t) = self.target(mc, recv, mutates) else { return Some(err_expr()) };
        let value = match method.as_str() {
            "swap" => self.swap_elements(mc, &mut t),
            "fill" => self.fill_elements(mc, &mut t),
            "reverse" => self.reverse_elements(&mut t),
            "contains" => self.contains_element(mc, &mut t),
            "copy_from_slice" => self.copy_from(mc, &mut t),
            "first" | "last" => {
                let n = self.len_of(&t);
                let some = bin(BinOp::Gt, n.clone(), lit(0, usize_ty()));
                let at = if method == "first" { lit(0, usize_ty()) } else { bin(BinOp::Sub, n, lit(1, usize_ty())) };
                let v = self.at(&t, at);
                ex(Ty::Option(Box::new(t.elem.clone())), ExprKind::OptFrom(Box::new(some), Box::new(v)))
            }
            "is_empty" => bin(BinOp::Eq, self.len_of(&t), lit(0, usize_ty())),
            "binary_search" | "binary_search_by" | "binary_search_by_key" => self.binary_search(mc, &mut t),
            _ => {
                let order = if method.ends_with("_by_key") {
                    Order::Key(&mc.args[0])
                } else if method.ends_with("_by") {
                    Order::Compare(&mc.args[0])
                } else {
                    Order::Natural
                };
                self.insertion_sort(&mut t, order);
                ex(Ty::Unit, ExprKind::Unit)
            }
        };
        let ty = value.ty.clone();
        Some(ex(ty.clone(), ExprKind::Block(Block { stmts: t.stmts, tail: Some(Box::new(value)), ty })))
    }

    /// The slice local of `recv` (mutable when the method changes the elements).
    fn target(&mut self, mc: &syn::ExprMethodCall, recv: Expr, mutable: bool) -> Option<Target> {
        let span = mc.method.span();
        let (slice, elem) = match self.resolve(&recv.ty) {
            Ty::Array(elem, n) => {
                if mutable && options::is_place(&recv) && !slices::writable(&recv) {
                    self.err_at(&mc.receiver, format!("`{}` changes the array, which cannot be changed here (it is in the params, or behind `&`)", mc.method));
                    return None;
                }
                let kind = ExprKind::Slicing { base: Box::new(recv), start: None, end: None, len: Some(n), site: u32::MAX };
                (ex(Ty::Slice(elem.clone(), mutable), kind), *elem)
            }
            Ty::Slice(elem, m) => {
                if mutable && !m {
                    self.err_at(&mc.receiver, format!("`{}` changes the elements, and this is a `&[T]`: take a `&mut [T]` (`&mut a[i..j]`)", mc.method));
                    return None;
                }
                (recv, *elem)
            }
            _ => return None,
        };
        let s = self.hidden("s", slice.ty.clone());
        let stmts = vec![self.let_at(span, s, slice)];
        let site = self.index_site(span);
        Some(Target { s, elem, stmts, span, site })
    }

    fn len_of(&self, t: &Target) -> Expr {
        ex(usize_ty(), ExprKind::SliceLen(Box::new(self.local_expr(t.s))))
    }

    /// `s[k]`, a place.
    fn at(&self, t: &Target, k: Expr) -> Expr {
        ex(t.elem.clone(), ExprKind::SliceIndex(Box::new(self.local_expr(t.s)), Box::new(k), t.site))
    }

    /// A `usize` argument in a hidden local.
    fn index_arg(&mut self, t: &mut Target, a: &syn::Expr, name: &str) -> LocalId {
        let x = self.expr(a);
        self.expect_at(a, &usize_ty(), &x.ty);
        let id = self.hidden(name, usize_ty());
        t.stmts.push(self.let_at(a.span(), id, x));
        id
    }

    /// `for k in 0..n { body(k, id) }` (`id`: the loop's).
    fn each_index(&mut self, span: Span, n: Expr, body: impl FnOnce(&mut Self, Expr, LoopId) -> Vec<Stmt>) -> Stmt {
        let k = self.hidden("k", usize_ty());
        let id = self.new_loop();
        let stmts = body(self, self.local_expr(k), id);
        let body = Block { stmts, tail: None, ty: Ty::Unit };
        let f = ExprKind::For { var: k, start: Box::new(lit(0, usize_ty())), end: Box::new(n), inclusive: false, rev: false, step: None, body, id };
        self.expr_stmt(span, ex(Ty::Unit, f))
    }

    /// `place = v;`
    fn set(&self, span: Span, place: Expr, v: Expr) -> Stmt {
        self.expr_stmt(span, ex(Ty::Unit, ExprKind::Assign(Box::new(place), Box::new(v))))
    }

    /// `let tmp = s[a]; s[a] = s[b]; s[b] = tmp;`
    fn swap_at(&mut self, t: &Target, a: Expr, b: Expr) -> Vec<Stmt> {
        let tmp = self.hidden("tmp", t.elem.clone());
        vec![
            self.let_at(t.span, tmp, self.at(t, a.clone())),
            self.set(t.span, self.at(t, a), self.at(t, b.clone())),
            self.set(t.span, self.at(t, b), self.local_expr(tmp)),
        ]
    }

    fn swap_elements(&mut self, mc: &syn::ExprMethodCall, t: &mut Target) -> Expr {
        let a = self.index_arg(t, &mc.args[0], "a");
        let b = self.index_arg(t, &mc.args[1], "b");
        let stmts = self.swap_at(t, self.local_expr(a), self.local_expr(b));
        t.stmts.extend(stmts);
        ex(Ty::Unit, ExprKind::Unit)
    }

    fn fill_elements(&mut self, mc: &syn::ExprMethodCall, t: &mut Target) -> Expr {
        let v = self.expr(&mc.args[0]);
        self.expect_at(&mc.args[0], &t.elem.clone(), &v.ty);
        let x = self.hidden("value", t.elem.clone());
        t.stmts.push(self.let_at(t.span, x, v));
        let tt: &Target = t;
        let each = self.each_index(tt.span, self.len_of(tt), |cx, k, _| vec![cx.set(tt.span, cx.at(tt, k), cx.local_expr(x))]);
        t.stmts.push(each);
        ex(Ty::Unit, ExprKind::Unit)
    }

    fn reverse_elements(&mut self, t: &mut Target) -> Expr {
        let n = self.hidden("n", usize_ty());
        t.stmts.push(self.let_at(t.span, n, self.len_of(t)));
        let half = bin(BinOp::Shr, self.local_expr(n), lit(1, Ty::Int(IntTy::U32)));
        let tt: &Target = t;
        let each = self.each_index(tt.span, half, |cx, k, _| {
            let last = bin(BinOp::Sub, bin(BinOp::Sub, cx.local_expr(n), lit(1, usize_ty())), k.clone());
            cx.swap_at(tt, k, last)
        });
        t.stmts.push(each);
        ex(Ty::Unit, ExprKind::Unit)
    }

    fn contains_element(&mut self, mc: &syn::ExprMethodCall, t: &mut Target) -> Expr {
        let x = self.by_ref_arg(&mc.args[0]);
        self.expect_at(&mc.args[0], &t.elem.clone(), &x.ty);
        if !self.operand_ok(BinOp::Eq, &t.elem.clone()) {
            let msg = format!("`contains` compares with `==`, which is supported on numbers, bools and field-less enums, not `{}`; write `s.iter().any(|e| ..)`", self.show(&t.elem));
            self.err_at(&mc.method, msg);
            return err_expr();
        }
        let xl = self.hidden("x", t.elem.clone());
        t.stmts.push(self.let_at(t.span, xl, x));
        let found = self.hidden("found", Ty::Bool);
        t.stmts.push(self.let_at(t.span, found, ex(Ty::Bool, ExprKind::Bool(false))));
        let tt: &Target = t;
        let each = self.each_index(tt.span, self.len_of(tt), |cx, k, id| {
            let hit = bin(BinOp::Eq, cx.at(tt, k), cx.local_expr(xl));
            let then = vec![cx.assign(tt.span, found, ex(Ty::Bool, ExprKind::Bool(true))), cx.jump(tt.span, id, true)];
            vec![cx.when(tt.span, hit, then)]
        });
        t.stmts.push(each);
        self.local_expr(found)
    }

    fn copy_from(&mut self, mc: &syn::ExprMethodCall, t: &mut Target) -> Expr {
        let want = Ty::Slice(Box::new(t.elem.clone()), false);
        let src = self.expr(&mc.args[0]);
        let src = self.coerce_to_slice(&want, src);
        if self.sh.infer.unify(&want, &src.ty).is_err() {
            let msg = format!("mismatched types: `copy_from_slice` takes a `{}`, found `{}` (pass `&array` or `&a[i..j]`)", self.show(&want), self.show(&src.ty));
            self.err_at(&mc.args[0], msg);
            return err_expr();
        }
        let sl = self.hidden("src", want);
        t.stmts.push(self.let_at(t.span, sl, src));
        let (dst_len, src_len) = (self.len_of(t), ex(usize_ty(), ExprKind::SliceLen(Box::new(self.local_expr(sl)))));
        let usize_value = |word| Piece::Value { word, ty: usize_ty(), debug: false };
        let message = vec![
            Piece::Text("copy_from_slice: source slice length (".into()),
            usize_value(0),
            Piece::Text(") does not match destination slice length (".into()),
            usize_value(1),
            Piece::Text(")".into()),
        ];
        let panic = self.panic_expr(t.span, message, vec![(src_len.clone(), Some(0)), (dst_len.clone(), Some(1))]);
        let mismatch = bin(BinOp::Ne, src_len, dst_len.clone());
        t.stmts.push(self.when(t.span, mismatch, vec![self.expr_stmt(t.span, panic)]));
        let tt: &Target = t;
        let each = self.each_index(tt.span, dst_len, |cx, k, _| {
            let from = ex(tt.elem.clone(), ExprKind::SliceIndex(Box::new(cx.local_expr(sl)), Box::new(k.clone()), tt.site));
            vec![cx.set(tt.span, cx.at(tt, k), from)]
        });
        t.stmts.push(each);
        ex(Ty::Unit, ExprKind::Unit)
    }

    /// std's `binary_search_by`: `size` halves until one element is left, moving `base` to
    /// `mid` unless the element there is greater, then one last comparison.
    fn binary_search(&mut self, mc: &syn::ExprMethodCall, t: &mut Target) -> Expr {
        let method = mc.method.to_string();
        let span = t.span;
        // What each probe compares: the element with `x`, its key with `b`, or a closure.
        let (probe, key): (Option<&syn::Expr>, Option<LocalId>) = match method.as_str() {
            "binary_search" => (None, {
                let x = self.by_ref_arg(&mc.args[0]);
                self.expect_at(&mc.args[0], &t.elem.clone(), &x.ty);
                let xl = self.hidden("x", t.elem.clone());
                t.stmts.push(self.let_at(span, xl, x));
                Some(xl)
            }),
            "binary_search_by_key" => {
                let b = self.by_ref_arg(&mc.args[0]);
                let bl = self.hidden("b", b.ty.clone());
                t.stmts.push(self.let_at(span, bl, b));
                (Some(&mc.args[1]), Some(bl))
            }
            _ => (Some(&mc.args[0]), None),
        };
        let compare = |cx: &mut Self, at: Expr| -> Expr {
            match (probe, key) {
                (None, Some(x)) => cx.ordering_of(mc.method.span(), at, cx.local_expr(x)),
                (Some(f), Some(b)) => {
                    let k = cx.apply_fn(f, vec![Elem::Val(at, true)]);
                    cx.ordering_of(f.span(), k, cx.local_expr(b))
                }
                (Some(f), None) => {
                    let o = cx.apply_fn(f, vec![Elem::Val(at, true)]);
                    cx.expect_at(f, &Ty::Ordering, &o.ty);
                    o
                }
                (None, None) => err_expr(),
            }
        };
        let size = self.hidden("size", usize_ty());
        let base = self.hidden("base", usize_ty());
        let ok = self.hidden("ok", Ty::Bool);
        let at = self.hidden("at", usize_ty());
        t.stmts.push(self.let_at(span, size, self.len_of(t)));
        t.stmts.push(self.let_at(span, base, lit(0, usize_ty())));
        t.stmts.push(self.let_at(span, ok, ex(Ty::Bool, ExprKind::Bool(false))));
        t.stmts.push(self.let_at(span, at, lit(0, usize_ty())));
        let is = |o: Expr, d: i8| bin(BinOp::Eq, o, Self::ordering_lit(d));
        // while size > 1 { half = size / 2; mid = base + half; if cmp(s[mid]) != Greater { base = mid } size -= half }
        let (half, mid, c) = (self.hidden("half", usize_ty()), self.hidden("mid", usize_ty()), self.hidden("cmp", Ty::Ordering));
        let probe_mid = compare(self, self.at(t, self.local_expr(mid)));
        let step = vec![
            self.let_at(span, half, bin(BinOp::Shr, self.local_expr(size), lit(1, Ty::Int(IntTy::U32)))),
            self.let_at(span, mid, bin(BinOp::Add, self.local_expr(base), self.local_expr(half))),
            self.let_at(span, c, probe_mid),
            self.when(span, not(is(self.local_expr(c), 1)), vec![self.assign(span, base, self.local_expr(mid))]),
            self.assign(span, size, bin(BinOp::Sub, self.local_expr(size), self.local_expr(half))),
        ];
        let id = self.new_loop();
        let more = bin(BinOp::Gt, self.local_expr(size), lit(1, usize_ty()));
        let halving = ex(Ty::Unit, ExprKind::While(Box::new(more), Block { stmts: step, tail: None, ty: Ty::Unit }, id));
        // The last comparison decides: `Ok(base)`, or `Err` just after `base` if it is less.
        let last = self.hidden("cmp", Ty::Ordering);
        let probe_base = compare(self, self.at(t, self.local_expr(base)));
        let less = ex(usize_ty(), ExprKind::Cast(Box::new(is(self.local_expr(last), -1))));
        let found = Block { stmts: vec![self.assign(span, ok, ex(Ty::Bool, ExprKind::Bool(true))), self.assign(span, at, self.local_expr(base))], tail: None, ty: Ty::Unit };
        let missed = Block { stmts: vec![self.assign(span, at, bin(BinOp::Add, self.local_expr(base), less))], tail: None, ty: Ty::Unit };
        let decide = ex(Ty::Unit, ExprKind::If(Box::new(is(self.local_expr(last), 0)), found, Some(Box::new(ex(Ty::Unit, ExprKind::Block(missed))))));
        let search = vec![self.expr_stmt(span, halving), self.let_at(span, last, probe_base), self.expr_stmt(span, decide)];
        let nonempty = bin(BinOp::Ne, self.local_expr(size), lit(0, usize_ty()));
        t.stmts.push(self.when(span, nonempty, search));
        let res = Ty::Result(Box::new(usize_ty()), Box::new(usize_ty()));
        ex(res, ExprKind::ResFrom(Box::new(self.local_expr(ok)), Box::new(self.local_expr(at)), Box::new(self.local_expr(at))))
    }

    /// `a.cmp(&b)` of two values of an integer or bool type (at `at` for the message).
    fn ordering_of(&mut self, at: Span, a: Expr, b: Expr) -> Expr {
        if self.sh.infer.unify(&a.ty, &b.ty).is_err() {
            let msg = format!("mismatched types: comparing `{}` with `{}`", self.show(&a.ty), self.show(&b.ty));
            self.err(at, msg);
            return err_expr();
        }
        match self.resolve(&a.ty) {
            Ty::Int(_) | Ty::Bool | Ty::Err => ex(Ty::Ordering, ExprKind::Method(Method::Cmp, Box::new(a), vec![b])),
            t => {
                let msg = format!("binary searches here compare integers or bools (Rust's `Ord`), not `{}`; use `binary_search_by` with a closure returning an `Ordering`", self.show(&t));
                self.err(at, msg);
                err_expr()
            }
        }
    }

    /// `a < b` for values of an ordered type: integers, bools, tuples of them (compared
    /// lexicographically); others are reported at `at`.
    fn less(&mut self, at: Span, a: Expr, b: Expr) -> Expr {
        match self.resolve(&a.ty) {
            Ty::Int(_) | Ty::Bool | Ty::Err => bin(BinOp::Lt, a, b),
            Ty::Tuple(ts) => {
                let field = |x: &Expr, i: usize, t: &Ty| ex(t.clone(), ExprKind::TupleField(Box::new(x.clone()), i));
                let mut acc: Option<Expr> = None;
                for (i, t) in ts.iter().enumerate().rev() {
                    let lt = self.less(at, field(&a, i, t), field(&b, i, t));
                    acc = Some(match acc {
                        None => lt,
                        Some(rest) => {
                            let eq = bin(BinOp::Eq, field(&a, i, t), field(&b, i, t));
                            ex(Ty::Bool, ExprKind::Or(Box::new(lt), Box::new(ex(Ty::Bool, ExprKind::And(Box::new(eq), Box::new(rest))))))
                        }
                    });
                }
                acc.unwrap_or_else(err_expr)
            }
            t => {
                let hint = if matches!(t, Ty::Float(_)) { "; floats are not `Ord`: `sort_by(|a, b| a.total_cmp(b))`" } else { "; sort by a key (`sort_by_key(|e| e.field)`) or with `sort_by`" };
                let msg = format!("sorting compares integers, bools and tuples of them (Rust's `Ord`), not `{}`{hint}", self.show(&t));
                self.err(at, msg);
                err_expr()
            }
        }
    }

    /// std's `insertion_sort_shift_left(v, 1, is_less)`: each element from the second on is
    /// moved left past the greater ones before it (`is_less(tail, prev)` first, then
    /// `is_less(tmp, s[j - 1])`).
    fn insertion_sort(&mut self, t: &mut Target, order: Order) {
        let span = t.span;
        let at = match &order {
            Order::Key(f) | Order::Compare(f) => f.span(),
            Order::Natural => span,
        };
        let is_less = |cx: &mut Self, a: Expr, b: Expr| -> (Vec<Stmt>, Expr) {
            match &order {
                Order::Natural => (Vec::new(), cx.less(at, a, b)),
                Order::Key(f) => {
                    // `f(a).lt(&f(b))`: the key of `a` first.
                    let ka = cx.apply_fn(f, vec![Elem::Val(a, true)]);
                    let kl = cx.hidden("key", ka.ty.clone());
                    let first = cx.let_at(span, kl, ka);
                    let kb = cx.apply_fn(f, vec![Elem::Val(b, true)]);
                    (vec![first], cx.less(at, cx.local_expr(kl), kb))
                }
                Order::Compare(f) => {
                    let o = cx.apply_fn(f, vec![Elem::Val(a, true), Elem::Val(b, true)]);
                    cx.expect_at(*f, &Ty::Ordering, &o.ty);
                    (Vec::new(), bin(BinOp::Eq, o, Self::ordering_lit(-1)))
                }
            }
        };
        let n = self.hidden("n", usize_ty());
        t.stmts.push(self.let_at(span, n, self.len_of(t)));
        let (i, tmp, j) = (self.hidden("i", usize_ty()), self.hidden("tmp", t.elem.clone()), self.hidden("j", usize_ty()));
        let one = || lit(1, usize_ty());
        let before = |cx: &Self, x: LocalId| bin(BinOp::Sub, cx.local_expr(x), one());
        // loop { s[j] = s[j - 1]; j -= 1; if j == 0 { break } if !is_less(tmp, s[j - 1]) { break } }
        let shift = self.new_loop();
        let (mut test_stmts, test) = is_less(self, self.local_expr(tmp), self.at(t, before(self, j)));
        let mut shifting = vec![
            self.set(span, self.at(t, self.local_expr(j)), self.at(t, before(self, j))),
            self.assign(span, j, before(self, j)),
            self.when(span, bin(BinOp::Eq, self.local_expr(j), lit(0, usize_ty())), vec![self.jump(span, shift, true)]),
        ];
        shifting.append(&mut test_stmts);
        shifting.push(self.when(span, not(test), vec![self.jump(span, shift, true)]));
        let shifted = ex(Ty::Unit, ExprKind::Loop(Block { stmts: shifting, tail: None, ty: Ty::Unit }, shift));
        let insert = vec![
            self.let_at(span, tmp, self.at(t, self.local_expr(i))),
            self.let_at(span, j, self.local_expr(i)),
            self.expr_stmt(span, shifted),
            self.set(span, self.at(t, self.local_expr(j)), self.local_expr(tmp)),
        ];
        let (mut body, first) = is_less(self, self.at(t, self.local_expr(i)), self.at(t, before(self, i)));
        body.push(self.when(span, first, insert));
        let id = self.new_loop();
        let f = ExprKind::For { var: i, start: Box::new(one()), end: Box::new(self.local_expr(n)), inclusive: false, rev: false, step: None, body: Block { stmts: body, tail: None, ty: Ty::Unit }, id };
        t.stmts.push(self.expr_stmt(span, ex(Ty::Unit, f)));
    }
}
