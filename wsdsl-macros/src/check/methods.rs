//! Calls of the module's functions: free helpers `f(..)`, associated functions and methods
//! called by path `Type::f(..)`, and method calls `x.f(..)`. A method is a function keyed
//! `Type::f` whose first parameter is `self`; a method call passes the receiver there,
//! borrowing it for `&self` / `&mut self` (auto-ref) after dereferencing a reference
//! receiver (auto-deref), as Rust does. Calls are recorded for the recursion check.

use super::{err_expr, ex, peel, Bind, Cx};
use crate::ir::{Expr, ExprKind};
use crate::parse::model::{FnDef, FnKind};
use crate::types::Ty;
use proc_macro2::Span;
use syn::spanned::Spanned;

impl Cx<'_> {
    /// The key of the function a call names: `f`, or `Type::f` for a struct or enum of the
    /// module; `None` (reported) otherwise.
    pub(super) fn callee_key(&mut self, func: &syn::Expr) -> Option<String> {
        if let syn::Expr::Path(p) = peel(func) {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            // `<Type as Trait>::name`: the type's method.
            if let (Some(q), Some(name)) = (&p.qself, segs.last()) {
                if let syn::Type::Path(tp) = &*q.ty {
                    if let Some(t) = tp.path.get_ident().filter(|t| self.m.is_named_type(&t.to_string())) {
                        return Some(format!("{t}::{name}"));
                    }
                }
            }
            let plain = p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_none());
            match segs.as_slice() {
                [f] if plain => return Some(f.clone()),
                [t, f] if plain && self.m.is_named_type(t) => return Some(format!("{t}::{f}")),
                _ => {}
            }
        }
        self.err_at(func, "only calls to functions of this module are supported, e.g. `helper(x)` or `Type::function(x)`");
        None
    }

    /// `name(args)`: a helper, an associated function or a method called by path.
    pub(super) fn call_named(&mut self, c: &syn::ExprCall, key: String) -> Expr {
        let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
        if let Some(Bind::Local(id)) = self.lookup(&key) {
            // A local holding something unsupported (a closure) was reported where it was made.
            if self.locals[id].ty != Ty::Err {
                self.err_at(&c.func, format!("`{key}` is a value, not a function; only functions of this module can be called"));
            }
            return err_expr();
        }
        let spans: Vec<Span> = c.args.iter().map(|a| a.span()).collect();
        self.call_checked(&key, args, &spans, &c.func, c.span())
    }

    /// A call of the module's function `key` with `args` (written at `spans`; `func`: the
    /// callee as written, `span`: the whole call).
    pub(super) fn call_checked(&mut self, key: &str, args: Vec<Expr>, spans: &[Span], func: &syn::Expr, span: Span) -> Expr {
        let Some(f) = self.m.func(key) else {
            if self.m.rejected.iter().any(|r| r == key) {
                return err_expr(); // its signature was reported
            }
            let msg = match key.split_once("::") {
                Some((t, name)) => format!("no function or associated function `{name}` in `{t}`{}", self.listing(t)),
                None if self.inlining.iter().any(|n| n == key) => {
                    format!("a closure cannot call itself (`{key}` is inlined where it is called); write a loop instead")
                }
                None => format!("cannot find function `{key}` in this megakernel module (only functions of the module can be called)"),
            };
            self.err_at(func, msg);
            return err_expr();
        };
        let refused = match f.kind {
            FnKind::Const => Some(format!("`{key}` is a constant, not a function")),
            FnKind::Handler { .. } => Some(format!("`{key}` is a spawn handler and cannot be called directly; use `ctx.spawn(task)`")),
            FnKind::Complete { .. } => {
                Some(format!("`{key}` is a complete handler and cannot be called directly; it runs when the task's children are done"))
            }
            FnKind::Helper => None,
        };
        if let Some(msg) = refused {
            self.err_at(func, msg);
            return err_expr();
        }
        self.finish_call(f, args, spans, false, (span, func.span()))
    }

    /// `Trait::name(x, ..)`: the method `name` of the type of `x` (its first argument, as
    /// the receiver of a method call), if `c` calls a trait of the module so.
    pub(super) fn trait_call(&mut self, c: &syn::ExprCall) -> Option<Expr> {
        let syn::Expr::Path(p) = peel(&c.func) else { return None };
        let [tr, name] = &p.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>()[..] else { return None };
        if p.qself.is_some() || !self.m.traits.iter().any(|t| t.name == tr) {
            return None;
        }
        let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
        let owner = match args.first().map(|a| self.resolve(&a.ty)) {
            Some(Ty::Ref(t, _)) => *t,
            Some(t) => t,
            None => Ty::Unit,
        };
        let (Ty::Struct(owner) | Ty::Enum(owner)) = owner else {
            if owner != Ty::Err {
                let msg = format!("`{tr}::{name}(..)` calls the method of its first argument's type, a struct or enum of this module implementing `{tr}`; this one is `{}`", self.show(&owner));
                self.err_at(&c.func, msg);
            }
            return Some(err_expr());
        };
        let spans: Vec<Span> = c.args.iter().map(|a| a.span()).collect();
        Some(self.call_checked(&format!("{owner}::{name}"), args, &spans, &c.func, c.span()))
    }

    /// `recv.method(args)` for a receiver (already auto-dereferenced) of struct or enum type
    /// `owner`.
    pub(super) fn user_method(&mut self, mc: &syn::ExprMethodCall, recv: Expr, owner: &str) -> Expr {
        let key = format!("{owner}::{}", mc.method);
        let Some(f) = self.m.func(&key).filter(|f| f.kind == FnKind::Helper) else {
            if self.m.rejected.contains(&key) {
                // Its signature was reported; the arguments may still hold mistakes.
                mc.args.iter().for_each(|a| drop(self.expr(a)));
                return err_expr();
            }
            let msg = format!("no method `{}` on `{owner}` in megakernel code{}", mc.method, self.listing(owner));
            self.err_at(&mc.method, msg);
            return err_expr();
        };
        let Some(first) = f.params.first().filter(|p| p.name == "self") else {
            self.err_at(&mc.method, format!("`{key}` is an associated function, not a method (it takes no `self`); call it as `{key}(..)`"));
            return err_expr();
        };
        // Auto-ref: `&self` and `&mut self` borrow the receiver.
        let recv = match self.resolve(&first.ty) {
            Ty::Ref(_, mutable) => ex(Ty::Ref(Box::new(recv.ty.clone()), mutable), ExprKind::AddrOf(Box::new(recv))),
            _ => recv,
        };
        let mut args = vec![recv];
        args.extend(mc.args.iter().map(|a| self.expr(a)));
        let mut spans = vec![mc.receiver.span()];
        spans.extend(mc.args.iter().map(|a| a.span()));
        self.finish_call(f, args, &spans, true, (mc.span(), mc.method.span()))
    }

    /// Checks the arguments against `f`'s parameters (the first one the receiver of a
    /// method call) and records the call; `spans`: the call's and the callee name's.
    fn finish_call(&mut self, f: &FnDef, args: Vec<Expr>, arg_spans: &[Span], method_call: bool, spans: (Span, Span)) -> Expr {
        let key = f.key();
        let (span, at) = spans;
        if f.params.len() != args.len() {
            let (skip, besides) = if method_call { (1, " besides `self`") } else { (0, "") };
            let msg = format!("`{key}` takes {} argument(s){besides} but {} were supplied", f.params.len() - skip, args.len() - skip);
            self.err(span, msg);
            return err_expr();
        }
        let args = f.params.iter().zip(args).zip(arg_spans).map(|((p, a), s)| self.coerce_arg(*s, &p.ty, a)).collect();
        self.calls.push((key.clone(), at));
        ex(f.ret.clone(), ExprKind::Call(key, args))
    }

    /// `; its methods and associated functions: ..` for the messages about `owner`.
    fn listing(&self, owner: &str) -> String {
        let names: Vec<String> = self
            .m
            .fns
            .iter()
            .filter(|f| f.kind == FnKind::Helper && f.owner.as_ref().is_some_and(|o| o == owner))
            .map(|f| format!("`{}`", f.name))
            .collect();
        if names.is_empty() {
            format!("; `{owner}` has no methods (declare them in an `impl {owner} {{ .. }}` block of the module)")
        } else {
            format!("; its methods and associated functions: {}", names.join(", "))
        }
    }

    /// `Type::NAME` of an associated const, if `segs` names one.
    pub(super) fn assoc_const(&mut self, segs: &[String], span: Span) -> Option<Expr> {
        let [t, name] = segs else { return None };
        let key = format!("{t}::{name}");
        let f = self.m.func(&key).filter(|f| f.kind == FnKind::Const)?;
        self.calls.push((key.clone(), span));
        Some(ex(f.ret.clone(), ExprKind::Call(key, Vec::new())))
    }
}
