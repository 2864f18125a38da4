//! Program-level CUDA: the types fragment (structs, array wrappers, task record, counters)
//! and the handlers fragment (helpers, handlers, `wsdsl_execute`).

use super::expr::int_lit;
use super::{indent, local_name, record_arrays, FnLower};
use crate::model::{FnKind, Module, Reduce, StructKind};
use crate::typeck::Checked;
use crate::types::{align_up, c_name, layout, Ty};
use std::fmt::Write;

pub struct Cuda {
    pub types: String,
    pub handlers: String,
    pub task_bytes: u64,
    /// Offset of the task union inside `wsdsl_task`.
    pub union_offset: u64,
    pub params_bytes: u64,
}

pub fn lower(m: &Module, ck: &Checked) -> Cuda {
    let mut arrays: Vec<Ty> = Vec::new();
    let mut protos = String::new();
    let mut bodies = String::new();
    for (f, body) in m.fns.iter().zip(&ck.bodies) {
        let mut fl = FnLower { m, infer: &ck.infer, body, tmp: 0, arrays: &mut arrays, loops: Vec::new() };
        let sig = match &f.kind {
            FnKind::Handler { task } => format!("__device__ static void h_{}(const u_{task}* task, wsdsl_ctx* ctx)", f.name),
            FnKind::Helper | FnKind::Const => {
                let ret = fl.cty(&f.ret);
                let params: Vec<String> = body
                    .params
                    .iter()
                    .map(|&id| {
                        let t = fl.cty(&body.locals[id].ty);
                        format!("{t} {}", local_name(&body.locals[id].name, id))
                    })
                    .collect();
                let params = if params.is_empty() { "void".to_string() } else { params.join(", ") };
                format!("__device__ static {ret} f_{}({params})", f.name)
            }
        };
        let mut out = Vec::new();
        let dest = match &f.kind {
            FnKind::Handler { task } => {
                let id = body.params[0];
                out.push(format!("u_{task} {} = *task;", local_name(&body.locals[id].name, id)));
                None
            }
            FnKind::Helper | FnKind::Const if f.ret.is_value() => Some("return"),
            FnKind::Helper | FnKind::Const => None,
        };
        fl.block_body(&body.body, dest, &mut out);
        if matches!(f.kind, FnKind::Helper | FnKind::Const) {
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
    handlers.push_str("__device__ void wsdsl_execute(const wsdsl_task* task, wsdsl_ctx* ctx) {\n    switch (task->tag) {\n");
    for (tag, t) in m.tasks().enumerate() {
        if let Some(h) = m.fns.iter().find(|f| f.kind == FnKind::Handler { task: t.name.to_string() }) {
            writeln!(handlers, "    case {tag}u: h_{}(&task->u.t_{}, ctx); break;", h.name, t.name).unwrap();
        }
    }
    handlers.push_str("    default: break;\n    }\n}\n");

    let (types, task_bytes, union_offset, params_bytes) = types_fragment(m, &arrays);
    Cuda { types, handlers, task_bytes, union_offset, params_bytes }
}

fn emit_type(t: &Ty, m: &Module, done: &mut Vec<Ty>, out: &mut String) {
    if done.contains(t) {
        return;
    }
    match t {
        Ty::Array(e, n) => {
            emit_type(e, m, done, out);
            writeln!(out, "struct {} {{ {} v[{n}]; }};", c_name(t), c_name(e)).unwrap();
        }
        Ty::Tuple(ts) => {
            for e in ts {
                emit_type(e, m, done, out);
            }
            let fields: Vec<String> = ts.iter().enumerate().map(|(i, e)| format!("{} f{i};", c_name(e))).collect();
            writeln!(out, "struct {} {{ {} }};", c_name(t), fields.join(" ")).unwrap();
        }
        Ty::Struct(name) => {
            let Some(def) = m.struct_def(name) else { return };
            for f in &def.fields {
                emit_type(&f.ty, m, done, out);
            }
            writeln!(out, "struct u_{name} {{").unwrap();
            for f in &def.fields {
                writeln!(out, "    {} u_{};", c_name(&f.ty), f.name).unwrap();
            }
            writeln!(out, "}};").unwrap();
            writeln!(
                out,
                "static_assert(sizeof(u_{name}) == {}, \"wsdsl: C layout of `{name}` differs from Rust\");",
                def.size
            )
            .unwrap();
        }
        _ => return,
    }
    done.push(t.clone());
}

fn types_fragment(m: &Module, used_arrays: &[Ty]) -> (String, u64, u64, u64) {
    let mut out = format!("/* wsdsl program `{}`: types */\n", m.name);
    let mut done = Vec::new();
    // Field-less enums: `#[repr(u32)]` in Rust, so a `ws_u32` holding the discriminant.
    for e in &m.enums {
        writeln!(out, "typedef ws_u32 u_{};", e.name).unwrap();
    }
    for s in m.structs.iter().filter(|s| !matches!(s.kind, StructKind::Counters | StructKind::Buffers)) {
        emit_type(&Ty::Struct(s.name.to_string()), m, &mut done, &mut out);
    }
    let mut arrays = Vec::new();
    for a in used_arrays {
        record_arrays(a, &mut arrays);
    }
    for a in &arrays {
        emit_type(a, m, &mut done, &mut out);
    }

    let params_bytes = match m.params() {
        Some(p) => {
            writeln!(out, "typedef u_{} wsdsl_params;", p.name).unwrap();
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
                write!(out, " {}* u_{}; ws_u64 n_{};", c_name(&f.elem), f.name, f.name).unwrap();
            }
            out.push_str(" };\n");
        }
        _ => out.push_str("struct wsdsl_buffers { ws_u64 unused; };\n"),
    }

    let mut max_size = 0;
    let mut max_align = 4;
    out.push_str("struct wsdsl_task {\n    ws_u32 tag;\n    union {\n");
    for t in m.tasks() {
        let (s, a) = layout(&Ty::Struct(t.name.to_string()), &m.layouts);
        max_size = max_size.max(s);
        max_align = max_align.max(a);
        writeln!(out, "        u_{0} t_{0};", t.name).unwrap();
    }
    out.push_str("    } u;\n};\n");
    let union_offset = align_up(4, max_align);
    let task_bytes = align_up(union_offset + max_size.max(1), max_align);
    writeln!(out, "static_assert(sizeof(wsdsl_task) == {task_bytes}, \"wsdsl: task record size\");").unwrap();

    out.push_str("struct wsdsl_counters {\n");
    let counters: Vec<_> = m.counters().map(|c| c.counters.iter().collect()).unwrap_or_default();
    if counters.is_empty() {
        out.push_str("    ws_u32 unused;\n");
    }
    for c in &counters {
        writeln!(out, "    {} u_{};", c.int.c(), c.name).unwrap();
    }
    out.push_str("};\n");
    out.push_str("__device__ void wsdsl_counters_init(wsdsl_counters* c) {\n");
    for c in &counters {
        let v = match c.reduce {
            Reduce::Sum => int_lit(c.int, 0),
            Reduce::Max => int_lit(c.int, c.int.min() as u128),
            Reduce::Min => int_lit(c.int, c.int.max() as u128),
        };
        writeln!(out, "    c->u_{} = {v};", c.name).unwrap();
    }
    if counters.is_empty() {
        out.push_str("    c->unused = 0;\n");
    }
    out.push_str("}\n");
    out.push_str("__device__ void wsdsl_counters_flush(const wsdsl_counters* c, unsigned long long* slots) {\n");
    for (i, c) in counters.iter().enumerate() {
        let v = format!("c->u_{}", c.name);
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
    (out, task_bytes, union_offset, params_bytes)
}
