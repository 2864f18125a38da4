//! Data-parallel job calls (`check/jobs.rs`): one call of `ws_job_record` in
//! `cuda/features/parallel.cuh`, which checks the ranges in Rust's order (faulting at the call's
//! sites) and records the job as a child of the running task.

use super::FnLower;
use crate::ir::{JobCall, JobKind};
use crate::types::IntTy;

/// The element type's code in a job's `op` word (`WS_JOB_ELEM_*` in `cuda/features/parallel.cuh`).
pub fn elem_code(t: IntTy) -> u32 {
    match t {
        IntTy::U32 => 0,
        IntTy::I32 => 1,
        IntTy::U64 => 2,
        _ => 3,
    }
}

/// `op` of a job record: kind, element type, source and destination buffer (0xff: none).
pub fn op_word(call: &JobCall) -> u32 {
    let dst = call.dst.as_ref().map_or(0xff, |d| d.0 as u32);
    call.kind as u32 | elem_code(call.elem) << 8 | (call.src.0 as u32) << 16 | dst << 24
}

impl FnLower<'_> {
    pub(super) fn job(&mut self, call: &JobCall, out: &mut Vec<String>) {
        let ops: Vec<&crate::ir::Expr> = call.operands.iter().collect();
        let v = self.operands(&ops, out);
        let word = |x: &str| format!("(ws_u64)({x})");
        let (a0, a1) = (word(&v[0]), word(&v[1]));
        let mut next = 2;
        let (b0, b1) = if call.kind == JobKind::Merge {
            next = 4;
            (word(&v[2]), word(&v[3]))
        } else {
            ("0ull".to_string(), "0ull".to_string())
        };
        let arg = if matches!(call.kind, JobKind::Partition | JobKind::ExclusiveScan) {
            let x = &v[next];
            next += 1;
            if call.elem.signed() { format!("(ws_u64)(ws_i64)({x})") } else { word(x) }
        } else {
            "0ull".to_string()
        };
        let at = if call.dst.is_some() { word(&v[next]) } else { "0ull".to_string() };
        let len = |name: &str| format!("wsdsl_ctx_buffers(ctx)->n_{}", crate::names::c_ident(name));
        let src_len = len(&call.src.1);
        let dst_len = call.dst.as_ref().map_or("0ull".to_string(), |d| len(&d.1));
        out.push(format!(
            "ws_job_record(ctx, {}u, {a0}, {a1}, {b0}, {b1}, {at}, {arg}, {src_len}, {dst_len}, {}u);",
            op_word(call),
            call.site
        ));
    }
}

/// Bytes of `struct ws_job`: two words, then six 64-bit fields.
pub const RECORD_BYTES: u64 = 56;

/// Pieces a job splits into at a time (`WS_JOB_FANOUT`): the frame of a split job keeps three
/// words for each of them.
pub const FANOUT: u64 = 16;

/// The types fragment's job declarations: the defines naming the element types the program's
/// jobs use (so `cuda/features/parallel.cuh` instantiates those only), the frame's result and scratch
/// words, and the job record.
pub fn record_declaration(jobs: &[(JobKind, IntTy)]) -> String {
    let mut c = String::from("#define WSDSL_JOBS 1\n#define WS_TAG_JOB 0xfffffff1u   // a job record (cuda/features/parallel.cuh)\n");
    let mut elems: Vec<IntTy> = jobs.iter().map(|&(_, t)| t).collect();
    elems.sort_by_key(|&t| elem_code(t));
    elems.dedup();
    for t in elems {
        c.push_str(&format!("#define WSDSL_JOB_ELEM_{} 1\n", t.name().to_ascii_uppercase()));
    }
    let (results, scratch) = frame_words(jobs);
    c.push_str(&format!("#define WSDSL_JOB_RESULTS {results}u\n#define WSDSL_JOB_SCRATCH {scratch}u\n#define WS_JOB_FANOUT {FANOUT}u\n"));
    c.push_str(
        "// A data-parallel job, or a piece of one (cuda/features/parallel.cuh): kind, element type and buffers;\n\
         // its result word (or its index in the job it is a piece of); its ranges and arguments.\n\
         struct ws_job { ws_u32 op; ws_u32 slot; ws_u64 a0; ws_u64 a1; ws_u64 b0; ws_u64 b1; ws_u64 c0; ws_u64 c1; };\n",
    );
    c.push_str(&format!("static_assert(sizeof(ws_job) == {RECORD_BYTES}, \"wsdsl: job record size\");\n"));
    c
}

/// (result words, scratch words) of a frame of a program with `jobs`: result words when a job
/// gives results; scratch when one splits into pieces that count before they write (partition,
/// scan) or reduce.
pub fn frame_words(jobs: &[(JobKind, IntTy)]) -> (u64, u64) {
    let results = if jobs.iter().any(|(k, _)| k.result_words() > 0) { crate::check::JOB_RESULT_WORDS as u64 } else { 0 };
    let two_pass = jobs.iter().any(|(k, _)| matches!(k, JobKind::Partition | JobKind::ExclusiveScan | JobKind::ReduceSum | JobKind::ReduceMin | JobKind::ReduceMax));
    (results, if two_pass { 3 * FANOUT } else { 0 })
}
