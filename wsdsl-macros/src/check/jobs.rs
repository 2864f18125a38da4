//! Data-parallel jobs: `ctx.copy`, `ctx.merge`, `ctx.sort`, `ctx.partition`,
//! `ctx.exclusive_scan`, `ctx.reduce_sum` / `reduce_min` / `reduce_max` over ranges of the
//! `#[buffers]` struct's integer buffers, and `ctx.result(k)`, which reads what the jobs of the
//! round before computed. A job is a child its task waits for (`join.rs` counts it); the
//! device runs it cooperatively by a worker's threads or splits it into pieces
//! (`cuda/features/parallel.cuh`), the CPU backend with rayon (`wsdsl-runtime/src/parallel/`).
//!
//! Each call gets `JOB_SITES` consecutive fault sites, in the order the checks run on every
//! backend (`parallel::record` in the runtime, `ws_job_record` in `cuda/features/parallel.cuh`): for
//! each of the two source ranges and the destination range Rust's two messages of a bad
//! `&s[start..end]`, then a destination overlapping the source, a sort of too many keys, and
//! a round asking for more result words than there are.

use super::{err_expr, ex, peel, Cx};
use crate::ir::{Expr, ExprKind, JobCall, JobKind};
use super::panic::Piece;
use crate::types::{IntTy, Ty};
use syn::spanned::Spanned;

/// Fault sites per job call (see the module notes).
pub const JOB_SITES: u32 = 9;
/// The most keys `ctx.sort` sorts, and the result words of one round (`wsdsl-abi`).
pub use wsdsl_abi::jobs::{RESULT_WORDS, SORT_MAX};

/// The method's job and how it is called.
struct Shape {
    kind: JobKind,
    /// Source ranges: 1, or 2 for a merge.
    ranges: usize,
    /// Whether a value of the element type comes after the ranges (pivot, initial value).
    value: bool,
    /// Whether a destination buffer and its start come last.
    dst: bool,
    usage: &'static str,
}

fn shape(method: &str) -> Option<Shape> {
    let kind = JobKind::of_method(method)?;
    let s = |ranges, value, dst, usage| Some(Shape { kind, ranges, value, dst, usage });
    match kind {
        JobKind::Copy => s(1, false, true, "ctx.copy(&ctx.buffers.src, lo..hi, &ctx.buffers.dst, at)"),
        JobKind::Merge => s(2, false, true, "ctx.merge(&ctx.buffers.src, lo..mid, mid..hi, &ctx.buffers.dst, at)"),
        JobKind::Sort => s(1, false, true, "ctx.sort(&ctx.buffers.src, lo..hi, &ctx.buffers.dst, at)"),
        JobKind::Partition => s(1, true, true, "ctx.partition(&ctx.buffers.src, lo..hi, pivot, &ctx.buffers.dst, at)"),
        JobKind::ExclusiveScan => s(1, true, true, "ctx.exclusive_scan(&ctx.buffers.src, lo..hi, init, &ctx.buffers.dst, at)"),
        JobKind::ReduceSum => s(1, false, false, "ctx.reduce_sum(&ctx.buffers.src, lo..hi)"),
        JobKind::ReduceMin => s(1, false, false, "ctx.reduce_min(&ctx.buffers.src, lo..hi)"),
        JobKind::ReduceMax => s(1, false, false, "ctx.reduce_max(&ctx.buffers.src, lo..hi)"),
    }
}

/// Whether `ctx.<method>` is a job or `ctx.result`.
pub fn is_job_method(method: &str) -> bool {
    method == "result" || shape(method).is_some()
}

impl Cx<'_> {
    /// `ctx.<job>(..)` or `ctx.result(k)`.
    pub(super) fn job_call(&mut self, mc: &syn::ExprMethodCall) -> Expr {
        let method = mc.method.to_string();
        if method == "result" {
            return self.job_result(mc);
        }
        let Some(sh) = shape(&method) else { return err_expr() };
        let args: Vec<&syn::Expr> = mc.args.iter().collect();
        let want = 1 + sh.ranges + sh.value as usize + 2 * sh.dst as usize;
        if args.len() != want {
            self.err(mc.span(), format!("`ctx.{method}` takes {want} arguments: `{}`", sh.usage));
            return err_expr();
        }
        let Some(src) = self.job_buffer(args[0], &method, false) else {
            // The other arguments are still checked, for their own errors; a range's ends
            // alone (as an expression a range would be refused outside a `for` loop).
            for a in &args[1..] {
                match peel(a) {
                    syn::Expr::Range(r) => r.start.iter().chain(&r.end).for_each(|e| drop(self.expr(e))),
                    other => drop(self.expr(other)),
                }
            }
            return err_expr();
        };
        let elem = src.2;
        let mut operands = Vec::new();
        for r in &args[1..1 + sh.ranges] {
            operands.extend(self.job_range(r, sh.usage));
        }
        let mut next = 1 + sh.ranges;
        if sh.value {
            let v = self.expr(args[next]);
            self.expect_at(args[next], &Ty::Int(elem), &v.ty);
            operands.push(v);
            next += 1;
        }
        let mut dst = None;
        if sh.dst {
            dst = self.job_buffer(args[next], &method, true);
            if let Some((_, _, e)) = &dst {
                if *e != elem {
                    let msg = format!("`ctx.{method}` writes a buffer of the source's element type `{}`, not `{}`", elem.name(), e.name());
                    self.err_at(args[next], msg);
                }
            }
            let at = self.expr(args[next + 1]);
            self.expect_at(args[next + 1], &Ty::Int(IntTy::Usize), &at.ty);
            operands.push(at);
            if dst.is_none() {
                return err_expr();
            }
        }
        let site = self.job_sites(mc, sh.kind);
        self.jobs.push(mc.span());
        self.sh.jobs.insert((sh.kind, elem));
        let call = JobCall {
            kind: sh.kind,
            elem,
            src: (src.0, src.1),
            dst: dst.map(|(i, n, _)| (i, n)),
            operands,
            site,
        };
        ex(Ty::Unit, ExprKind::Job(Box::new(call)))
    }

    /// `&ctx.buffers.<name>` as a job's buffer: (index, name, element type); `None`
    /// (reported) for anything else, a float buffer, or a `ReadOnly` one written.
    fn job_buffer(&mut self, arg: &syn::Expr, method: &str, written: bool) -> Option<(usize, String, IntTy)> {
        let which = if written { "destination" } else { "source" };
        let named = match peel(arg) {
            syn::Expr::Reference(r) if r.mutability.is_none() => match peel(&r.expr) {
                syn::Expr::Field(f) => match (peel(&f.base), &f.member) {
                    (syn::Expr::Field(cb), syn::Member::Named(name))
                        if self.is_ctx(&cb.base) && matches!(&cb.member, syn::Member::Named(n) if n == "buffers") =>
                    {
                        Some(name.to_string())
                    }
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        let Some(name) = named else {
            self.err_at(arg, format!("the {which} of `ctx.{method}` is a buffer of the context, written `&ctx.buffers.<name>`"));
            return None;
        };
        let Some(bs) = self.m.buffers() else {
            self.err_at(arg, "this megakernel has no `#[buffers]` struct");
            return None;
        };
        let Some(index) = bs.buffers.iter().position(|b| b.name == name) else {
            let msg = format!("no buffer `{name}` in `{}`", bs.name);
            self.err_at(arg, msg);
            return None;
        };
        let b = &bs.buffers[index];
        if written && b.read_only {
            self.err_at(arg, format!("`{name}` is a `ReadOnly` array, which `ctx.{method}` cannot write; declare it `Buffer<T>`"));
            return None;
        }
        match b.elem {
            Ty::Int(t @ (IntTy::U32 | IntTy::I32 | IntTy::U64 | IntTy::I64)) => Some((index, name, t)),
            ref t => {
                let why = match t {
                    Ty::Float(_) => "a parallel float sum would round differently from Rust's sequential one, and floats are not `Ord`; keep the keys as integers (`to_bits` orders non-negative floats)",
                    _ => "use a buffer of `u32`, `i32`, `u64` or `i64`",
                };
                let msg = format!("`ctx.{method}` works on buffers of `u32`, `i32`, `u64` or `i64`, not `{}`: {why}", crate::types::rust_name(t));
                self.err_at(arg, msg);
                None
            }
        }
    }

    /// A range argument `lo..hi` of `usize`: its two ends.
    fn job_range(&mut self, arg: &syn::Expr, usage: &str) -> Vec<Expr> {
        let usize_ty = Ty::Int(IntTy::Usize);
        match peel(arg) {
            syn::Expr::Range(r) if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) && r.start.is_some() && r.end.is_some() => {
                let (s, e) = (r.start.as_ref().unwrap(), r.end.as_ref().unwrap());
                let (start, end) = (self.expr(s), self.expr(e));
                self.expect_at(s, &usize_ty, &start.ty);
                self.expect_at(e, &usize_ty, &end.ty);
                vec![start, end]
            }
            _ => {
                self.err_at(arg, format!("write the range as `lo..hi` (both ends, `usize`): `{usage}`"));
                vec![err_expr(), err_expr()]
            }
        }
    }

    /// The call's fault sites, in the order of the module notes.
    fn job_sites(&mut self, mc: &syn::ExprMethodCall, kind: JobKind) -> u32 {
        let span = mc.method.span();
        let usize_value = |word| Piece::Value { word, ty: Ty::Int(IntTy::Usize), debug: false };
        let text = |s: &str| Piece::Text(s.to_string());
        let mut first = None;
        for _ in 0..3 {
            let order = self.site(span, vec![text("slice index starts at "), usize_value(0), text(" but ends at "), usize_value(1)]);
            first.get_or_insert(order);
            self.site(span, vec![text("range end index "), usize_value(0), text(" out of range for slice of length "), usize_value(1)]);
        }
        let method = kind.method();
        self.site(
            span,
            vec![text(&format!("ctx.{method} writes ")), usize_value(0), text(".."), usize_value(1), text(" of the buffer it reads, overlapping its source range")],
        );
        self.site(span, vec![text(&format!("ctx.sort sorts at most {SORT_MAX} keys at a time, not ")), usize_value(0), text("; merge sorted pieces with ctx.merge")]);
        let last = self.text_site(span, "the jobs started in one round give at most 8 result words (ctx.result(0) to ctx.result(7))");
        let first = first.expect("three ranges");
        debug_assert_eq!(last + 1 - first, JOB_SITES, "the sites `ws_job_record` names");
        first
    }

    /// `ctx.result(k)`.
    fn job_result(&mut self, mc: &syn::ExprMethodCall) -> Expr {
        if mc.args.len() != 1 {
            self.err(mc.span(), "`ctx.result(k)` takes the index of a result word (`usize`) of the jobs the round before started");
            return err_expr();
        }
        let k = self.expr(&mc.args[0]);
        self.expect_at(&mc.args[0], &Ty::Int(IntTy::Usize), &k.ty);
        let site = self.index_site(mc.method.span());
        ex(Ty::Int(IntTy::U64), ExprKind::JobResult(Box::new(k), site))
    }
}
