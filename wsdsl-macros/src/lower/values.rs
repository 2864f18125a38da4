//! How task values sit in join frames (`struct ws_frame`'s `values`, `cuda/features/join.cuh`).
//!
//! A module whose tasks all hand one scalar type keeps `typedef T wsdsl_value`. Otherwise
//! (several value types, or a struct, tuple, `Option` or enum) `wsdsl_value` is a union of
//! the value types, `v0`, `v1`, .. in `Module::value_types` order, padded to whole words so
//! that `cuda/features/join.cuh` can read a frame's values word by word (`WSDSL_VALUE_WORDS`). A
//! complete handler's children are then copied into an array of their own type, so that its
//! slice has that type's stride.

use crate::parse::model::Module;
use crate::types::{align_up, c_name, layout, Ty};
use std::fmt::Write;

/// `wsdsl_value`'s C declaration and its (size, align).
pub fn declare(m: &Module) -> (String, u64, u64) {
    let types = m.value_types();
    if !m.values_are_union() {
        let value = types.first().cloned().unwrap_or(Ty::Int(crate::types::IntTy::U32));
        let (size, align) = layout(&value, &m.layouts);
        return (format!("typedef {} wsdsl_value;\n", c_name(&value)), size, align);
    }
    let (mut size, mut align) = (0, 4);
    for t in &types {
        let (s, a) = layout(t, &m.layouts);
        size = size.max(s);
        align = align.max(a);
    }
    let size = align_up(size, align);
    let mut c = String::from("union wsdsl_value {");
    for (k, t) in types.iter().enumerate() {
        write!(c, " {} v{k};", c_name(t)).unwrap();
    }
    writeln!(c, " ws_u32 words[{}]; }};\n#define WSDSL_VALUE_WORDS {}u", size / 4, size / 4).unwrap();
    (c, size, align)
}

/// The C lvalue a handler's result of type `ty` is stored to (`value`, or its member).
pub fn slot(m: &Module, ty: &Ty) -> String {
    if !m.values_are_union() {
        return "value".into();
    }
    let k = m.value_types().iter().position(|t| t == ty).expect("a declared value type");
    format!("value.v{k}")
}

/// The member of `wsdsl_value` holding values of type `ty` (`None`: the value is the
/// `wsdsl_value` itself).
pub fn member(m: &Module, ty: &Ty) -> Option<String> {
    if !m.values_are_union() {
        return None;
    }
    m.value_types().iter().position(|t| t == ty).map(|k| format!("v{k}"))
}
