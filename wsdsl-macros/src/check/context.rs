//! The context and its parts: `ctx.spawn(..)` and the other methods of the context,
//! `ctx.params`, `ctx.buffers` and `ctx.counters`, a buffer's accessors and a counter's
//! update. Each part is a value of its own type (`Ty::Ctx`, `Ty::Buffers`, `Ty::Buffer`,
//! `Ty::Counters`, `Ty::Counter`; `parse/model/context.rs`), so a helper or method may take the
//! context or any part of it, and a local may name one (`let data = &ctx.buffers.data;`).
//!
//! A counter is updated, never read (a worker's partial count means nothing to a task):
//! `ctx.counters.found` is only the receiver of `.add(v)` / `.max(v)` / `.min(v)` or,
//! borrowed as `&mut ctx.counters.found`, a `&mut Sum<T>` for a helper.

use super::*;

pub(super) const CTX_USAGE: &str = "the context is used as `ctx.params.<field>`, `ctx.counters.<field>.add(v)` (or `.max(v)`/`.min(v)`), `ctx.buffers.<name>.get(i)`/`.set(i, v)`/`.atomic_*(..)`/`.len()`, `ctx.spawn(task)`, `ctx.spawn_with_priority(p, task)` (with `order = priority`), `ctx.round()`, `ctx.fence()`, the data-parallel jobs `ctx.copy`, `ctx.merge`, `ctx.sort`, `ctx.partition`, `ctx.exclusive_scan`, `ctx.reduce_sum`/`_min`/`_max` and `ctx.result(k)`, and in cooperative schedules `ctx.thread()`, `ctx.threads()` and `ctx.sync()`; a helper takes it (or a part of it) as a parameter: `ctx: &mut Ctx`, `bufs: &Buffers`, `data: &Buffer<u32>`, `counters: &mut Counters`, `found: &mut Sum<u64>`";

const COUNTER_READ: &str = "counters are updated with `.add(v)` (or `.max(v)`/`.min(v)`) and cannot be read in handlers; a helper takes one as `&mut Sum<T>` (pass `&mut ctx.counters.<field>`)";

impl Cx<'_> {
    /// `ctx.<member>`: the params, the buffers or the counters.
    pub(super) fn ctx_field(&mut self, f: &syn::ExprField, member: &str) -> Expr {
        match member {
            "params" => match self.m.params() {
                Some(p) => ex(Ty::Ref(Box::new(Ty::Struct(p.name.to_string())), false), ExprKind::ParamsRef),
                None => {
                    self.err_at(f, "this megakernel has no `#[params]` struct");
                    err_expr()
                }
            },
            "buffers" => match self.m.buffers() {
                Some(b) => ex(Ty::Buffers(b.name.to_string()), ExprKind::CtxBuffers),
                None => {
                    self.err_at(f, "this megakernel has no `#[buffers]` struct");
                    err_expr()
                }
            },
            "counters" => match self.m.counters() {
                Some(c) => ex(Ty::Counters(c.name.to_string()), ExprKind::CtxCounters),
                None => {
                    self.err_at(f, "this megakernel has no `#[counters]` struct");
                    err_expr()
                }
            },
            _ => {
                self.err_at(f, CTX_USAGE);
                err_expr()
            }
        }
    }

    /// Field `member` of the buffers or the counters `base`, if `base` is one; `counter`:
    /// whether a counter may be named here (as a method's receiver or under `&mut`).
    pub(super) fn context_field(&mut self, base: &Expr, f: &syn::ExprField, member: &str, counter: bool) -> Option<Expr> {
        match self.resolve(&base.ty) {
            Ty::Buffers(_) => {
                let bs = self.m.buffers()?;
                Some(match bs.buffers.iter().find(|b| b.name == member) {
                    Some(b) => ex(Ty::Buffer(Box::new(b.elem.clone()), b.read_only), ExprKind::BufferField(Box::new(base.clone()), member.to_string())),
                    None => {
                        let msg = format!("no buffer `{member}` in `{}`", bs.name);
                        self.err_at(&f.member, msg);
                        err_expr()
                    }
                })
            }
            Ty::Counters(_) => {
                let cs = self.m.counters()?;
                let Some(c) = cs.counters.iter().find(|c| c.name == member) else {
                    let msg = format!("no counter `{member}` in `{}`", cs.name);
                    self.err_at(&f.member, msg);
                    return Some(err_expr());
                };
                if !counter {
                    self.err_at(f, COUNTER_READ);
                    return Some(err_expr());
                }
                Some(ex(Ty::Counter(c.reduce, c.int), ExprKind::CounterField(Box::new(base.clone()), member.to_string())))
            }
            Ty::Ctx => {
                self.err_at(f, CTX_USAGE);
                Some(err_expr())
            }
            _ => None,
        }
    }

    /// `ctx.<method>(..)`.
    pub(super) fn ctx_method(&mut self, mc: &syn::ExprMethodCall) -> Expr {
        match (mc.method.to_string().as_str(), mc.args.len()) {
            ("thread", 0) => return ex(Ty::Int(IntTy::U32), ExprKind::CtxCall("thread")),
            ("threads", 0) => return ex(Ty::Int(IntTy::U32), ExprKind::CtxCall("threads")),
            ("sync", 0) => return ex(Ty::Unit, ExprKind::CtxCall("sync")),
            ("round", 0) => return ex(Ty::Int(IntTy::U32), ExprKind::CtxCall("round")),
            ("fence", 0) => return ex(Ty::Unit, ExprKind::CtxCall("fence")),
            ("spawn", 1) => {}
            ("spawn_with_priority", 2) => {
                if !self.m.ordered {
                    self.err_at(
                        &mc.method,
                        "`ctx.spawn_with_priority` needs tasks that carry priorities: add `order = priority` to `#[megakernel(...)]` \
                         (without it tasks run in no particular order, so the priority would be ignored), or use `ctx.spawn(task)`",
                    );
                    return err_expr();
                }
            }
            (name, _) if super::jobs::is_job_method(name) => return self.job_call(mc),
            _ => {
                self.err_at(&mc.method, CTX_USAGE);
                return err_expr();
            }
        }
        let priority = (mc.args.len() == 2).then(|| {
            let p = self.expr(&mc.args[0]);
            self.expect_at(&mc.args[0], &Ty::Int(IntTy::U32), &p.ty);
            Box::new(p)
        });
        let task_arg = &mc.args[mc.args.len() - 1];
        let arg = self.expr(task_arg);
        let r = self.resolve(&arg.ty);
        if let Ty::Struct(n) = &r {
            if self.m.task_tag(n).is_some() {
                self.spawns.push((n.clone(), task_arg.span()));
                return ex(Ty::Unit, ExprKind::Spawn(n.clone(), Box::new(arg), priority));
            }
        }
        if r != Ty::Err {
            let tasks = self.m.task_names().join(", ");
            let msg = format!("`{}` is not a task type of this megakernel; tasks are the structs marked #[task]: {tasks}", self.show(&r));
            self.err_at(task_arg, msg);
        }
        err_expr()
    }

    /// A method of `recv`, a part of the context of type `rt`.
    pub(super) fn context_method(&mut self, mc: &syn::ExprMethodCall, recv: Expr, rt: &Ty) -> Expr {
        match rt {
            Ty::Buffer(elem, read_only) => self.buffer_op(mc, recv, (**elem).clone(), *read_only),
            Ty::Counter(reduce, int) => self.counter_op(mc, recv, *reduce, *int),
            Ty::Ctx | Ty::Buffers(_) | Ty::Counters(_) => {
                let msg = format!("`{}` has no method `{}`; {CTX_USAGE}", self.show(rt), mc.method);
                self.err_at(&mc.method, msg);
                err_expr()
            }
            _ => err_expr(),
        }
    }

    fn buffer_op(&mut self, mc: &syn::ExprMethodCall, buffer: Expr, elem: Ty, read_only: bool) -> Expr {
        let us = Ty::Int(IntTy::Usize);
        let method = mc.method.to_string();
        let name = match &buffer.kind {
            ExprKind::BufferField(_, n) => format!("`{n}`"),
            _ => "this buffer".to_string(),
        };
        if read_only && !matches!(method.as_str(), "len" | "get") {
            self.err_at(&mc.method, format!("{name} is a `ReadOnly` array: handlers can only `get(i)` and `len()` it; declare it `Buffer<T>` to `{method}` it"));
            return err_expr();
        }
        let (op, params, ret) = match method.as_str() {
            "len" => (BufOp::Len, vec![], us.clone()),
            "get" => (BufOp::Get, vec![us.clone()], elem.clone()),
            "set" => (BufOp::Set, vec![us.clone(), elem.clone()], Ty::Unit),
            "atomic_add" => (BufOp::AtomicAdd, vec![us.clone(), elem.clone()], elem.clone()),
            "atomic_min" => (BufOp::AtomicMin, vec![us.clone(), elem.clone()], elem.clone()),
            "atomic_max" => (BufOp::AtomicMax, vec![us.clone(), elem.clone()], elem.clone()),
            "atomic_cas" => (BufOp::AtomicCas, vec![us.clone(), elem.clone(), elem.clone()], elem.clone()),
            m => {
                self.err_at(&mc.method, format!("buffers support `len()`, `get(i)`, `set(i, v)`, `atomic_add(i, v)`, `atomic_min(i, v)`, `atomic_max(i, v)` and `atomic_cas(i, current, new)`, not `{m}`"));
                return err_expr();
            }
        };
        let args: Vec<Expr> = mc.args.iter().map(|a| self.expr(a)).collect();
        if params.len() != args.len() {
            self.err(mc.span(), format!("`{}` takes {} argument(s) but {} were supplied", mc.method, params.len(), args.len()));
            return err_expr();
        }
        for ((p, a), s) in params.iter().zip(&args).zip(mc.args.iter()) {
            self.expect_at(&s, p, &a.ty);
        }
        let site = if op == BufOp::Len { u32::MAX } else { self.index_site(mc.method.span()) };
        ex(ret, ExprKind::Buffer(Box::new(buffer), op, args, site))
    }

    fn counter_op(&mut self, mc: &syn::ExprMethodCall, counter: Expr, reduce: crate::parse::model::Reduce, int: IntTy) -> Expr {
        let want = reduce.method();
        if mc.method != want || mc.args.len() != 1 {
            let name = match &counter.kind {
                ExprKind::CounterField(_, n) => format!("counter `{n}`"),
                _ => format!("a `{}<{}>` counter", reduce.name(), int.name()),
            };
            let read = if mc.method == "get" { " (counters cannot be read in handlers)" } else { "" };
            self.err_at(&mc.method, format!("{name} is updated with `.{want}(value)`{read}"));
            return err_expr();
        }
        let v = self.expr(&mc.args[0]);
        self.expect_at(&mc.args[0], &Ty::Int(int), &v.ty);
        ex(Ty::Unit, ExprKind::Counter(Box::new(counter), reduce, Box::new(v)))
    }
}
