//! Program-level CUDA: the types fragment (structs, array wrappers, task record, counters)
//! and the handlers fragment (helpers, handlers, `wsdsl_execute`).

use super::expr::int_lit;
use super::{indent, local_name, record_arrays, FnLower};
use crate::check::Checked;
use crate::ir::JobKind;
use crate::parse::model::{FnKind, Module, Reduce, StructKind};
use crate::names::{c_ident, type_name, user};
use crate::types::{align_up, c_name, layout, IntTy, Ty};
use std::fmt::Write;

pub struct Cuda {
    pub types: String,
    pub handlers: String,
    /// The handlers with `debug_assert!` and its family in them, for builds with debug
    /// assertions; `None` when the program has none (`handlers` serves every build).
    pub handlers_debug: Option<String>,
    pub task_bytes: u64,
    /// Offset of the task union inside `wsdsl_task`.
    pub union_offset: u64,
    pub params_bytes: u64,
    /// `sizeof(ws_frame)`, 0 without join support.
    pub frame_bytes: u64,
    /// Size of a task value on the device, 0 when tasks have none.
    pub value_bytes: u64,
}

pub fn lower(m: &Module, ck: &Checked) -> Cuda {
    let mut arrays: Vec<Ty> = Vec::new();
    // The debug variant first: types used only in debug assertions are recorded too.
    let handlers_debug = ck.debug_assertions.then(|| handlers(m, ck, true, &mut arrays));
    let handlers = handlers(m, ck, false, &mut arrays);
    let (types, l) = types_fragment(m, &arrays, &ck.jobs);
    Cuda {
        types,
        handlers,
        handlers_debug,
        task_bytes: l.task_bytes,
        union_offset: l.union_offset,
        params_bytes: l.params_bytes,
        frame_bytes: l.frame_bytes,
        value_bytes: l.value_bytes,
    }
}

/// `#[inline(never)]` or `#[inline(always)]` on a function, as CUDA's qualifier (written before
/// its result type); nothing otherwise, and NVRTC inlines as it sees fit. A function kept out
/// of line keeps one instruction schedule whatever the megakernel around it is: inlined, a
/// hash's rounds are rescheduled by changes elsewhere in the kernel.
fn inline_qualifier(attrs: &[syn::Attribute]) -> &'static str {
    for a in attrs.iter().filter(|a| a.path().is_ident("inline")) {
        if let syn::Meta::List(list) = &a.meta {
            match list.tokens.to_string().as_str() {
                "never" => return "__noinline__ ",
                "always" => return "__forceinline__ ",
                _ => {}
            }
        }
    }
    ""
}

/// The handlers fragment: helpers, handlers and the dispatch, with or without `debug`
/// assertions.
///
/// A helper that may panic takes a last parameter `bool* ws_panicking`: after a panic it sets
/// the flag and returns, and so does every caller that finds it set, up to the handler, which
/// keeps the flag in a local `ws_panicked`. Code after a panic thus never runs, as in Rust.
/// A recursive helper takes its depth `ws_u32 ws_depth` before the flag (`check/recursion.rs`).
fn handlers(m: &Module, ck: &Checked, debug: bool, arrays: &mut Vec<Ty>) -> String {
    let mut protos = String::new();
    let mut bodies = String::new();
    // Generic helpers are emitted as their instances (`check/generics.rs`).
    let fns = m.fns.iter().zip(&ck.bodies).filter(|(f, _)| f.generics.is_empty());
    for (f, body) in fns.chain(ck.instances.iter().map(|(f, b)| (f, b))) {
        let helper = matches!(f.kind, FnKind::Helper | FnKind::Const);
        let flags_caller = helper && ck.may_panic.contains(&body.name);
        let mut fl = FnLower {
            m,
            infer: &ck.infer,
            body,
            tmp: 0,
            arrays,
            loops: Vec::new(),
            may_panic: &ck.may_panic,
            leave: String::new(),
            flags_caller,
            debug,
            recursion: &ck.recursion,
        };
        let ret = if f.ret.is_value() { fl.cty(&f.ret) } else { "void".to_string() };
        fl.leave = if f.ret.is_value() { format!("return {ret}();") } else { "return;".to_string() };
        let ret = format!("{}{ret}", inline_qualifier(&f.item.attrs));
        let sig = match &f.kind {
            FnKind::Handler { task } => format!("__device__ static {ret} h_{}(const {}* task, wsdsl_ctx* ctx)", c_ident(&f.name), type_name(task)),
            FnKind::Complete { task, .. } => {
                // The children's values, when the handler takes them: a `ws_slice_<T>`.
                let children = match body.params.get(1) {
                    Some(&id) => format!(", {} {}", fl.cty(&body.locals[id].ty), fl.local(id)),
                    None => String::new(),
                };
                format!("__device__ static {ret} c_{}(const {}* task{children}, wsdsl_ctx* ctx)", c_ident(&f.name), type_name(task))
            }
            FnKind::Helper | FnKind::Const => {
                let mut params: Vec<String> = body
                    .params
                    .iter()
                    .map(|&id| {
                        let t = fl.cty(&body.locals[id].ty);
                        // The context is `ctx` wherever it is passed (`check/context.rs`).
                        if t == "wsdsl_ctx*" {
                            return format!("{t} ctx");
                        }
                        format!("{t} {}", local_name(&body.locals[id].name, id))
                    })
                    .collect();
                if ck.recursion.member(&body.name).is_some() {
                    params.push("ws_u32 ws_depth".into());
                }
                if flags_caller {
                    params.push("bool* ws_panicking".into());
                }
                let params = if params.is_empty() { "void".to_string() } else { params.join(", ") };
                format!("__device__ static {ret} {}({params})", super::fn_name(&body.name))
            }
        };
        let mut out = Vec::new();
        if let FnKind::Handler { task } | FnKind::Complete { task, .. } = &f.kind {
            let id = body.params[0];
            out.push(format!("{} {} = *task;", type_name(task), local_name(&body.locals[id].name, id)));
        }
        if !flags_caller && body.calls.iter().any(|(callee, _)| ck.may_panic.contains(callee)) {
            out.push("bool ws_panicked = false;".into());
        }
        if let Some(r) = ck.recursion.member(&body.name) {
            // One call deeper than the limit panics before the body runs.
            out.push(format!("if (ws_depth >= {}u) {{ wsdsl_fault({}u); {} }}", ck.recursion.limit, r.site, fl.panic_exit()));
        }
        let dest = if f.ret.is_value() { Some("return") } else { None };
        fl.block_body(&body.body, dest, &mut out);
        if helper {
            writeln!(protos, "{sig};").unwrap();
        }
        writeln!(bodies, "{sig} {{").unwrap();
        for l in indent(out) {
            writeln!(bodies, "{l}").unwrap();
        }
        writeln!(bodies, "}}\n").unwrap();
    }

    let mut handlers = format!("/* wsdsl program `{}`: helpers, handlers, dispatch */\n", m.name);
    handlers.push_str(&protos);
    handlers.push('\n');
    handlers.push_str(&bodies);
    handlers.push_str(&dispatch(m, arrays, ck));
    handlers
}

/// `wsdsl_execute`, and for programs with values or complete handlers `wsdsl_complete` and
/// the per-task join tables (`cuda/features/join.cuh` uses them).
fn dispatch(m: &Module, arrays: &mut Vec<Ty>, ck: &Checked) -> String {
    let mut out = String::new();
    let join = needs_join(m, &ck.jobs);
    out.push_str("__device__ void wsdsl_execute(const wsdsl_task* task, wsdsl_ctx* ctx) {\n");
    if join {
        out.push_str("    wsdsl_value value = wsdsl_value();\n    ws_join_begin(ctx, task);\n");
    }
    out.push_str("    switch (task->tag) {\n");
    for (tag, t) in m.tasks().enumerate() {
        if let Some(h) = m.spawn_handler(&t.name.to_string()) {
            let keep = match &t.value {
                Some((ty, _)) if join && h.ret.is_value() => format!("{} = ", super::values::slot(m, ty)),
                _ => String::new(),
            };
            writeln!(out, "    case {tag}u: {keep}h_{}(&task->u.t_{}, ctx); break;", c_ident(&h.name), c_ident(&t.name)).unwrap();
        }
    }
    out.push_str("    default: break;\n    }\n");
    if join {
        out.push_str("    ws_join_end(ctx, task, value);\n");
    }
    out.push_str("}\n");
    if !join {
        return out;
    }

    // The complete handlers, by tag, with the children's values as a slice.
    out.push_str("__device__ wsdsl_value wsdsl_complete(const wsdsl_task* task, const wsdsl_value* values, ws_u32 n, wsdsl_ctx* ctx) {\n");
    out.push_str("    wsdsl_value value = wsdsl_value();\n    (void)values; (void)n;\n    switch (task->tag) {\n");
    for (tag, t) in m.tasks().enumerate() {
        let Some(c) = m.complete_handler(&t.name.to_string()) else { continue };
        let keep = match &t.value {
            Some((ty, _)) if c.ret.is_value() => format!("{} = ", super::values::slot(m, ty)),
            _ => String::new(),
        };
        let body = &ck.bodies[m.fns.iter().position(|f| std::ptr::eq(f, c)).expect("handler of the module")];
        match body.params.get(1) {
            Some(&id) => {
                let slice = ck.infer.resolve(&body.locals[id].ty);
                record_arrays(&slice, arrays);
                let child = match &slice {
                    Ty::Slice(e, _) => (**e).clone(),
                    _ => Ty::Err,
                };
                // Children's values of a union `wsdsl_value` are copied out to their own
                // type's stride (`values.rs`).
                let (copy, src) = match super::values::member(m, &child) {
                    Some(mem) => (
                        format!("{} tmp[WSDSL_MAX_CHILDREN]; for (ws_u32 k = 0; k < n && k < WSDSL_MAX_CHILDREN; k++) tmp[k] = values[k].{mem}; ", c_name(&child)),
                        "tmp",
                    ),
                    None => (String::new(), "values"),
                };
                writeln!(
                    out,
                    "    case {tag}u: {{ {copy}{} s; s.v = {src}; s.n = n; {keep}c_{}(&task->u.t_{}, s, ctx); }} break;",
                    c_name(&slice),
                    c_ident(&c.name),
                    c_ident(&t.name)
                )
                .unwrap();
            }
            None => writeln!(out, "    case {tag}u: {keep}c_{}(&task->u.t_{}, ctx); break;", c_ident(&c.name), c_ident(&t.name)).unwrap(),
        }
    }
    out.push_str("    default: break;\n    }\n    return value;\n}\n");
    out
}

/// Per task tag: whether it has a complete handler, and the most children whose values it
/// keeps (`WS_JOIN_NO_VALUES` when its complete handler takes none). A job split into pieces
/// (`WS_TAG_JOB`) waits for them and takes no values.
fn join_tables(m: &Module, out: &mut String, jobs: bool) {
    out.push_str("static __device__ __forceinline__ bool wsdsl_has_complete(ws_u32 tag) {\n    switch (tag) {\n");
    if jobs {
        out.push_str("    case WS_TAG_JOB: return true;\n");
    }
    for (tag, t) in m.tasks().enumerate() {
        if m.complete_handler(&t.name.to_string()).is_some() {
            writeln!(out, "    case {tag}u: return true;").unwrap();
        }
    }
    out.push_str("    default: return false;\n    }\n}\n");
    out.push_str("static __device__ __forceinline__ ws_u32 wsdsl_max_children(ws_u32 tag) {\n    switch (tag) {\n");
    if jobs {
        out.push_str("    case WS_TAG_JOB: return 0xffffffffu;\n");
    }
    for (tag, t) in m.tasks().enumerate() {
        if let Some(c) = m.complete_handler(&t.name.to_string()) {
            let n = match (&c.kind, c.params.len()) {
                (FnKind::Complete { max_children: Some(n), .. }, 2) => format!("{n}u"),
                _ => "0xffffffffu".to_string(),
            };
            writeln!(out, "    case {tag}u: return {n};").unwrap();
        }
    }
    out.push_str("    default: return 0u;\n    }\n}\n");
    out.push_str("static __device__ __forceinline__ bool wsdsl_takes_values(ws_u32 tag) {\n    switch (tag) {\n");
    for (tag, t) in m.tasks().enumerate() {
        if m.complete_handler(&t.name.to_string()).is_some_and(|c| c.params.len() == 2) {
            writeln!(out, "    case {tag}u: return true;").unwrap();
        }
    }
    out.push_str("    default: return false;\n    }\n}\n");
}

/// Layout of a join frame (`struct ws_frame`): a 24-byte header of `u32` words, the parent task
/// record, then the children's values. A program with jobs adds the result words of the
/// round's jobs (`ctx.result(k)`) after the task, and lays the children's values over the
/// scratch of a job split into pieces (`cuda/features/parallel.cuh`). Returns (size, value size, C
/// definition).
pub fn frame_layout(m: &Module, task_bytes: u64, task_align: u64, jobs: &[(JobKind, IntTy)]) -> (u64, u64, String) {
    let (value_decl, vsize, valign) = super::values::declare(m);
    let max_children = m
        .fns
        .iter()
        .filter_map(|f| match (&f.kind, f.params.len()) {
            (FnKind::Complete { max_children: Some(n), .. }, 2) => Some(*n as u64),
            _ => None,
        })
        .max()
        .unwrap_or(1);
    let task_off = align_up(24, task_align);
    let (results, scratch) = super::jobs::frame_words(jobs);
    // Result words are 8-byte aligned; a program without them keeps the frame it had.
    let results_off = align_up(task_off + task_bytes, if results > 0 { 8 } else { 1 });
    let values_off = align_up(results_off + 8 * results, valign.max(if scratch > 0 { 8 } else { 1 }));
    let align = 4u64.max(task_align).max(valign).max(if results + scratch > 0 { 8 } else { 4 });
    let size = align_up(values_off + (max_children * vsize).max(8 * scratch), align);
    let mut c = String::new();
    writeln!(c, "#define WSDSL_JOIN 1\n{value_decl}#define WSDSL_MAX_CHILDREN {max_children}u").unwrap();
    c.push_str(
        "// A task waiting for its children (cuda/features/join.cuh): join counter, the links of a free batch\n\
         // it carries, the number of children, the next run of its complete handler, a spare word\n\
         // (the task starts at byte 24), the task itself, and the children's values in spawn order.\n\
         struct ws_frame {\n    ws_u32 pending;\n    ws_u32 chain_next;\n    ws_u32 chain_len;\n    ws_u32 children;\n    ws_u32 round;\n    ws_u32 spare;\n    wsdsl_task task;\n",
    );
    if results > 0 {
        c.push_str("    ws_u64 results[WSDSL_JOB_RESULTS];   // what the round's jobs give (cuda/features/parallel.cuh)\n");
    }
    if scratch > 0 {
        c.push_str("    union {\n        wsdsl_value values[WSDSL_MAX_CHILDREN];\n        ws_u64 job_scratch[WSDSL_JOB_SCRATCH];   // a split job's pieces (cuda/features/parallel.cuh)\n    };\n};\n");
    } else {
        c.push_str("    wsdsl_value values[WSDSL_MAX_CHILDREN];\n};\n");
    }
    writeln!(c, "static_assert(sizeof(ws_frame) == {size}, \"wsdsl: join frame size\");").unwrap();
    (size, vsize, c)
}

fn emit_type(t: &Ty, m: &Module, done: &mut Vec<Ty>, out: &mut String) {
    // By C name: types Rust tells apart may share one (`&Buffer<u64>` and `&ReadOnly<u64>`
    // are both `ws_buf_u64`).
    if done.iter().any(|d| c_name(d) == c_name(t)) {
        return;
    }
    match t {
        Ty::Array(e, n) => {
            emit_type(e, m, done, out);
            writeln!(out, "struct {} {{ {} v[{n}]; }};", c_name(t), c_name(e)).unwrap();
        }
        Ty::Slice(e, mutable) => {
            emit_type(e, m, done, out);
            let c = if *mutable { "" } else { "const " };
            writeln!(out, "struct {} {{ {c}{}* v; ws_u64 n; }};", c_name(t), c_name(e)).unwrap();
        }
        Ty::Buffer(e, _) => writeln!(out, "struct {} {{ {}* p; ws_u64 n; }};", c_name(t), c_name(e)).unwrap(),
        Ty::Result(v, e) => {
            emit_type(v, m, done, out);
            emit_type(e, m, done, out);
            // The fields of a (flag, value, error) tuple: `Ok(p)` and `Err(p)` are tuple patterns.
            writeln!(out, "struct {} {{ bool f0; {} f1; {} f2; }};", c_name(t), c_name(v), c_name(e)).unwrap();
        }
        Ty::Option(e) if !matches!(**e, Ty::Int(_)) => {
            emit_type(e, m, done, out);
            writeln!(out, "struct {} {{ bool some; {} v; }};", c_name(t), c_name(e)).unwrap();
        }
        Ty::Tuple(ts) => {
            for e in ts {
                emit_type(e, m, done, out);
            }
            let fields: Vec<String> = ts.iter().enumerate().map(|(i, e)| format!("{} f{i};", c_name(e))).collect();
            writeln!(out, "struct {} {{ {} }};", c_name(t), fields.join(" ")).unwrap();
        }
        Ty::Enum(name) => {
            let Some(def) = m.enum_def(name).filter(|e| e.has_data()) else { return };
            emit_tagged_union(def, m, done, out);
        }
        Ty::Struct(name) => {
            let Some(def) = m.struct_def(name) else { return };
            for f in &def.fields {
                emit_type(&f.ty, m, done, out);
            }
            let cn = type_name(name);
            writeln!(out, "struct {cn} {{").unwrap();
            for f in &def.fields {
                writeln!(out, "    {} {};", c_name(&f.ty), user(&f.name)).unwrap();
            }
            writeln!(out, "}};").unwrap();
            writeln!(
                out,
                "static_assert(sizeof({cn}) == {}, \"wsdsl: C layout of `{name}` differs from Rust\");",
                def.size
            )
            .unwrap();
        }
        _ => return,
    }
    done.push(t.clone());
}

/// An enum with data (see `parse/model/enums.rs`): a struct per variant with fields, their union,
/// and the tag in front.
fn emit_tagged_union(def: &crate::parse::model::EnumDef, m: &Module, done: &mut Vec<Ty>, out: &mut String) {
    let name = &def.name;
    for f in def.variants.iter().flat_map(|v| &v.fields) {
        emit_type(&f.ty, m, done, out);
    }
    let mut members = Vec::new();
    for v in def.variants.iter().filter(|v| !v.fields.is_empty()) {
        let fields: Vec<String> = v.fields.iter().map(|f| format!("{} {};", c_name(&f.ty), f.c_member())).collect();
        let st = def.variant_c_struct(v);
        writeln!(out, "struct {st} {{ {} }};", fields.join(" ")).unwrap();
        members.push(format!("{st} {};", crate::parse::model::EnumDef::variant_member(&v.name)));
    }
    let un = def.union_c_name();
    writeln!(out, "union {un} {{ {} }};", members.join(" ")).unwrap();
    let cn = type_name(name);
    writeln!(out, "struct {cn} {{ ws_u32 tag; {un} v; }};").unwrap();
    let (size, _, _) = def.c_layout(&m.layouts);
    writeln!(out, "static_assert(sizeof({cn}) == {size}, \"wsdsl: C layout of `{name}`\");").unwrap();
}

/// Whether the device needs join frames: complete handlers, values, or jobs (which their
/// tasks wait for, and which split into pieces under frames of their own).
pub fn needs_join(m: &Module, jobs: &[(JobKind, IntTy)]) -> bool {
    m.joins() || m.value_ty().is_some() || !jobs.is_empty()
}

fn types_fragment(m: &Module, used_arrays: &[Ty], jobs: &[(JobKind, IntTy)]) -> (String, Layouts) {
    let mut out = format!("/* wsdsl program `{}`: types */\n", m.name);
    let mut done = Vec::new();
    // Field-less enums: `#[repr(u32)]` in Rust, so a `ws_u32` holding the discriminant.
    for e in m.enums.iter().filter(|e| !e.has_data()) {
        writeln!(out, "typedef ws_u32 {};", type_name(&e.name)).unwrap();
    }
    for s in m.structs.iter().filter(|s| !matches!(s.kind, StructKind::Counters | StructKind::Buffers)) {
        emit_type(&Ty::Struct(s.name.to_string()), m, &mut done, &mut out);
    }
    for e in m.enums.iter().filter(|e| e.has_data()) {
        emit_type(&Ty::Enum(e.name.to_string()), m, &mut done, &mut out);
    }
    let mut arrays = Vec::new();
    for a in used_arrays.iter().chain(&m.value_types()) {
        record_arrays(a, &mut arrays);
    }
    for a in &arrays {
        emit_type(a, m, &mut done, &mut out);
    }

    let params_bytes = match m.params() {
        Some(p) => {
            writeln!(out, "typedef {} wsdsl_params;", type_name(&p.name)).unwrap();
            p.size.max(1)
        }
        None => {
            out.push_str("struct wsdsl_params { ws_u32 unused; };\n");
            4
        }
    };
    // Device buffers: an element pointer and a length per `#[buffers]` field, in order.
    match m.buffers() {
        Some(b) if !b.buffers.is_empty() => {
            out.push_str("struct wsdsl_buffers {");
            for f in &b.buffers {
                write!(out, " {}* {}; ws_u64 n_{};", c_name(&f.elem), user(&f.name), c_ident(&f.name)).unwrap();
            }
            out.push_str(" };\n");
        }
        _ => out.push_str("struct wsdsl_buffers { ws_u64 unused; };\n"),
    }

    let mut max_size = 0;
    let mut max_align = 4;
    let join = needs_join(m, jobs);
    if !jobs.is_empty() {
        out.push_str(&super::jobs::record_declaration(jobs));
        max_size = super::jobs::RECORD_BYTES;
        max_align = 8;
    }
    out.push_str("struct wsdsl_task {\n    ws_u32 tag;\n");
    if join {
        // Where the task's value goes: the frame of the parent waiting for it (or
        // WS_JOIN_ROOT / WS_JOIN_DETACHED) and the slot in it (the root index for roots).
        out.push_str("    ws_u32 join_frame;\n    ws_u32 join_slot;\n");
    }
    out.push_str("    union {\n");
    for t in m.tasks() {
        let (s, a) = layout(&Ty::Struct(t.name.to_string()), &m.layouts);
        max_size = max_size.max(s);
        max_align = max_align.max(a);
        writeln!(out, "        {} t_{};", type_name(&t.name), c_ident(&t.name)).unwrap();
    }
    if !jobs.is_empty() {
        out.push_str("        ws_job job;\n");
    }
    out.push_str("    } u;\n};\n");
    let union_offset = align_up(if join { 12 } else { 4 }, max_align);
    let task_bytes = align_up(union_offset + max_size.max(1), max_align);
    writeln!(out, "static_assert(sizeof(wsdsl_task) == {task_bytes}, \"wsdsl: task record size\");").unwrap();
    let mut frame_bytes = 0;
    let mut value_bytes = 0;
    if join {
        let (size, vsize, frame) = frame_layout(m, task_bytes, max_align, jobs);
        out.push_str(&frame);
        join_tables(m, &mut out, !jobs.is_empty());
        frame_bytes = size;
        value_bytes = if m.value_ty().is_some() { vsize } else { 0 };
    }

    out.push_str("struct wsdsl_counters {\n");
    let counters: Vec<_> = m.counters().map(|c| c.counters.iter().collect()).unwrap_or_default();
    if counters.is_empty() {
        out.push_str("    ws_u32 unused;\n");
    }
    for c in &counters {
        writeln!(out, "    {} {};", c.int.c(), user(&c.name)).unwrap();
    }
    out.push_str("};\n");
    out.push_str("__device__ void wsdsl_counters_init(wsdsl_counters* c) {\n");
    for c in &counters {
        let v = match c.reduce {
            Reduce::Sum => int_lit(c.int, 0),
            Reduce::Max => int_lit(c.int, c.int.min() as u128),
            Reduce::Min => int_lit(c.int, c.int.max() as u128),
        };
        writeln!(out, "    c->{} = {v};", user(&c.name)).unwrap();
    }
    if counters.is_empty() {
        out.push_str("    c->unused = 0;\n");
    }
    out.push_str("}\n");
    out.push_str("__device__ void wsdsl_counters_flush(const wsdsl_counters* c, unsigned long long* slots) {\n");
    for (i, c) in counters.iter().enumerate() {
        let v = format!("c->{}", user(&c.name));
        let line = match (c.reduce, c.int.signed()) {
            // Sign-extend so the slot holds the value's 64-bit two's complement.
            (Reduce::Sum, true) => format!("atomicAdd(&slots[{i}], (unsigned long long)(ws_u64)(ws_i64)({v}));"),
            (Reduce::Sum, false) => format!("atomicAdd(&slots[{i}], (unsigned long long)({v}));"),
            (Reduce::Max, false) => format!("atomicMax(&slots[{i}], (unsigned long long)({v}));"),
            (Reduce::Min, false) => format!("atomicMin(&slots[{i}], (unsigned long long)({v}));"),
            (Reduce::Max, true) => format!("atomicMax((long long*)&slots[{i}], (long long)({v}));"),
            (Reduce::Min, true) => format!("atomicMin((long long*)&slots[{i}], (long long)({v}));"),
        };
        writeln!(out, "    {line}").unwrap();
    }
    if counters.is_empty() {
        out.push_str("    (void)c; (void)slots;\n");
    }
    out.push_str("}\n");
    (out, Layouts { task_bytes, union_offset, params_bytes, frame_bytes, value_bytes })
}

/// Sizes the host needs, from the types fragment.
struct Layouts {
    task_bytes: u64,
    union_offset: u64,
    params_bytes: u64,
    frame_bytes: u64,
    value_bytes: u64,
}
