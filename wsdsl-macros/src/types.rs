//! The Rust types of the supported subset, their C spelling and their C layout.
//!
//! The macro computes C layouts itself: the Rust side writes each value's device image field
//! by field at these offsets (`DeviceBytes`, so rustc may lay the Rust value out as it likes:
//! tuples, `Option`s and enums with data have no fixed Rust layout), and the C side checks
//! them with `static_assert`, so a disagreement fails the build instead of corrupting tasks.

use std::collections::BTreeMap;
use syn::spanned::Spanned;

#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord, Hash)]
pub enum IntTy {
    U8,
    U16,
    U32,
    U64,
    Usize,
    I8,
    I16,
    I32,
    I64,
    Isize,
}

impl IntTy {
    pub const ALL: [IntTy; 10] = [
        IntTy::U8,
        IntTy::U16,
        IntTy::U32,
        IntTy::U64,
        IntTy::Usize,
        IntTy::I8,
        IntTy::I16,
        IntTy::I32,
        IntTy::I64,
        IntTy::Isize,
    ];

    pub fn from_name(s: &str) -> Option<IntTy> {
        IntTy::ALL.iter().copied().find(|t| t.name() == s)
    }

    pub fn name(self) -> &'static str {
        match self {
            IntTy::U8 => "u8",
            IntTy::U16 => "u16",
            IntTy::U32 => "u32",
            IntTy::U64 => "u64",
            IntTy::Usize => "usize",
            IntTy::I8 => "i8",
            IntTy::I16 => "i16",
            IntTy::I32 => "i32",
            IntTy::I64 => "i64",
            IntTy::Isize => "isize",
        }
    }

    pub fn bits(self) -> u32 {
        match self {
            IntTy::U8 | IntTy::I8 => 8,
            IntTy::U16 | IntTy::I16 => 16,
            IntTy::U32 | IntTy::I32 => 32,
            _ => 64,
        }
    }

    pub fn signed(self) -> bool {
        matches!(self, IntTy::I8 | IntTy::I16 | IntTy::I32 | IntTy::I64 | IntTy::Isize)
    }

    /// `ws_u32` etc.
    pub fn c(self) -> String {
        format!("ws_{}", self.name())
    }

    /// The unsigned type arithmetic is done in: at least 32 bits, so C's integer promotion
    /// never turns it into (overflow-UB) `int`.
    pub fn c_wide_unsigned(self) -> &'static str {
        if self.bits() == 64 {
            "ws_u64"
        } else {
            "ws_u32"
        }
    }

    /// Name of the unsigned type of the same width, used to pick bit-twiddling helpers.
    pub fn unsigned_name(self) -> &'static str {
        match self.bits() {
            8 => "u8",
            16 => "u16",
            32 => "u32",
            _ => "u64",
        }
    }

    pub fn min(self) -> i128 {
        if self.signed() {
            -(1i128 << (self.bits() - 1))
        } else {
            0
        }
    }

    pub fn max(self) -> i128 {
        if self.signed() {
            (1i128 << (self.bits() - 1)) - 1
        } else {
            (1i128 << self.bits()) - 1
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord, Hash)]
pub enum FloatTy {
    F32,
    F64,
}

impl FloatTy {
    pub fn name(self) -> &'static str {
        match self {
            FloatTy::F32 => "f32",
            FloatTy::F64 => "f64",
        }
    }
    pub fn c(self) -> String {
        format!("ws_{}", self.name())
    }
}

#[derive(Clone, PartialEq, Eq, Debug, PartialOrd, Ord, Hash)]
pub enum Ty {
    Int(IntTy),
    Float(FloatTy),
    Bool,
    Unit,
    /// The type of `return`, `break`, `continue`: coerces to anything.
    Never,
    Array(Box<Ty>, u64),
    Struct(String),
    /// An enum of the module: field-less ones are `#[repr(u32)]` on both sides (a `ws_u32`
    /// in C); one with data is a tagged union in C (`u32` tag, then a union of one struct
    /// per variant that has fields; see `parse::model::EnumDef`).
    Enum(String),
    /// `(A, B, ...)`, at least two elements (locals, helper parameters and results).
    Tuple(Vec<Ty>),
    /// `Option<T>` of any value type: locals, parameters, results, fields. C: `ws_opt_<T>`,
    /// `{ bool some; T v; }` (`v` is only read when `some` is set).
    Option(Box<Ty>),
    /// `&[T]` (`false`) or `&mut [T]` (`true`): the children's values a complete handler
    /// receives, and like `Ty::Ref` a parameter or a local (`&a[i..j]` of an array or a
    /// slice), read with `len()` and indexing. C: `ws_slice_<T>` / `ws_mslice_<T>` (pointer
    /// and length).
    Slice(Box<Ty>, bool),
    /// `&T` (`false`) or `&mut T` (`true`): only a helper's or method's parameter (`self`
    /// included) and a local bound to one; never a field, an element or a result, so a
    /// pointer never outlives what it points to. C: `const T*` / `T*`.
    Ref(Box<Ty>, bool),
    /// The context, `&mut Ctx` (or `&Ctx`): a handler's or helper's parameter, or a name
    /// bound to one; never a value. C: `wsdsl_ctx*`, always named `ctx`
    /// (`parse/model/context.rs`).
    Ctx,
    /// `&B` for the module's `#[buffers]` struct `B` (`ctx.buffers`). C: `const wsdsl_buffers*`.
    Buffers(String),
    /// `&Buffer<T>` (`false`) or `&ReadOnly<T>` (`true`), `T` a scalar: one buffer of the
    /// `#[buffers]` struct. C: `ws_buf_<T>`, its element pointer and length.
    Buffer(Box<Ty>, bool),
    /// `&mut C` for the module's `#[counters]` struct `C` (`ctx.counters`). C: `wsdsl_counters*`.
    Counters(String),
    /// `&mut Sum<T>` / `&mut Max<T>` / `&mut Min<T>`: one counter. C: a pointer to it.
    Counter(crate::parse::model::Reduce, IntTy),
    /// `std::cmp::Ordering`: what `cmp`, `partial_cmp` and the closures of `sort_by`, `max_by`
    /// return. C: `ws_i8` holding Rust's discriminant (-1, 0, 1).
    Ordering,
    /// `Result<T, E>`, only as the value of the methods that produce one
    /// (`binary_search`): taken apart by `match`, `if let`, and its methods
    /// (`check/results.rs`). C: `ws_res_<T>_<E>` `{ bool ok; T v; E e; }`.
    Result(Box<Ty>, Box<Ty>),
    /// An inference variable of an unsuffixed literal (see `check/infer.rs`).
    Var(u32),
    /// Already reported; unifies with everything so one mistake gives one error.
    Err,
}

impl Ty {
    pub fn is_value(&self) -> bool {
        !matches!(self, Ty::Unit | Ty::Never | Ty::Err)
    }

    /// Whether this is the context or one of its parts (`Ty::Ctx` .. `Ty::Counter`): a
    /// reference into the run's state, which lives in parameters and locals only.
    pub fn is_context(&self) -> bool {
        matches!(self, Ty::Ctx | Ty::Buffers(_) | Ty::Buffer(..) | Ty::Counters(_) | Ty::Counter(..))
    }

    /// The first type inside this one that exists only in handler code (`Ordering`, a
    /// `Result`), which struct fields, task values and params cannot hold: the host has no
    /// device image of them.
    pub fn code_only(&self) -> Option<&Ty> {
        match self {
            Ty::Ordering | Ty::Result(..) => Some(self),
            Ty::Array(e, _) | Ty::Option(e) => e.code_only(),
            Ty::Tuple(ts) => ts.iter().find_map(Ty::code_only),
            _ => None,
        }
    }
}

/// Rust spelling, for messages. Inference variables print as rustc does.
pub fn rust_name(ty: &Ty) -> String {
    match ty {
        Ty::Int(i) => i.name().to_string(),
        Ty::Float(f) => f.name().to_string(),
        Ty::Bool => "bool".into(),
        Ty::Unit => "()".into(),
        Ty::Never => "!".into(),
        Ty::Array(e, n) => format!("[{}; {}]", rust_name(e), n),
        Ty::Struct(s) | Ty::Enum(s) => s.clone(),
        Ty::Tuple(ts) => format!("({})", ts.iter().map(rust_name).collect::<Vec<_>>().join(", ")),
        Ty::Option(t) => format!("Option<{}>", rust_name(t)),
        Ty::Slice(t, m) => format!("&{}[{}]", if *m { "mut " } else { "" }, rust_name(t)),
        Ty::Ref(t, m) => format!("&{}{}", if *m { "mut " } else { "" }, rust_name(t)),
        Ty::Ctx => "&mut Ctx".into(),
        Ty::Buffers(b) => format!("&{b}"),
        Ty::Buffer(e, ro) => format!("&{}<{}>", if *ro { "ReadOnly" } else { "Buffer" }, rust_name(e)),
        Ty::Counters(c) => format!("&mut {c}"),
        Ty::Counter(r, t) => format!("&mut {}<{}>", r.name(), t.name()),
        Ty::Ordering => "Ordering".into(),
        Ty::Result(t, e) => format!("Result<{}, {}>", rust_name(t), rust_name(e)),
        Ty::Var(_) => "{number}".into(),
        Ty::Err => "{error}".into(),
    }
}

/// The C name of a (resolved) value type. Arrays become wrapper structs so that they copy,
/// pass and return by value like Rust arrays; the wrapper's layout equals the bare C array.
pub fn c_name(ty: &Ty) -> String {
    match ty {
        Ty::Int(i) => i.c(),
        Ty::Float(f) => f.c(),
        Ty::Bool => "bool".into(),
        Ty::Struct(s) | Ty::Enum(s) => crate::names::type_name(s),
        Ty::Array(e, n) => format!("ws_arr_{}_{}", mangle(e), n),
        Ty::Tuple(_) => format!("ws_{}", mangle(ty)),
        Ty::Option(t) => format!("ws_opt_{}", mangle(t)),
        Ty::Slice(t, m) => format!("ws_{}slice_{}", if *m { "m" } else { "" }, mangle(t)),
        Ty::Ref(t, m) => format!("{}{}*", if *m { "" } else { "const " }, c_name(t)),
        Ty::Ctx => "wsdsl_ctx*".into(),
        Ty::Buffers(_) => "const wsdsl_buffers*".into(),
        Ty::Buffer(e, _) => format!("ws_buf_{}", mangle(e)),
        Ty::Counters(_) => "wsdsl_counters*".into(),
        Ty::Counter(_, t) => format!("{}*", t.c()),
        Ty::Ordering => "ws_i8".into(),
        Ty::Result(..) => format!("ws_{}", mangle(ty)),
        Ty::Unit | Ty::Never => "void".into(),
        Ty::Var(_) | Ty::Err => "/*unresolved*/ int".into(),
    }
}

pub fn mangle(ty: &Ty) -> String {
    match ty {
        Ty::Int(i) => i.name().into(),
        Ty::Float(f) => f.name().into(),
        Ty::Bool => "bool".into(),
        Ty::Struct(s) | Ty::Enum(s) => crate::names::type_name(s),
        Ty::Array(e, n) => format!("arr_{}_{}", mangle(e), n),
        // The element count first keeps the name unambiguous for nested tuples.
        Ty::Tuple(ts) => format!("tup{}_{}", ts.len(), ts.iter().map(mangle).collect::<Vec<_>>().join("_")),
        Ty::Option(t) => format!("opt_{}", mangle(t)),
        Ty::Ordering => "ordering".into(),
        Ty::Result(t, e) => format!("res_{}_{}", mangle(t), mangle(e)),
        _ => "x".into(),
    }
}

/// (size, align) of a C type, given the already computed layouts of user structs.
pub fn layout(ty: &Ty, structs: &BTreeMap<String, (u64, u64)>) -> (u64, u64) {
    match ty {
        Ty::Int(i) => {
            let b = (i.bits() / 8) as u64;
            (b, b)
        }
        Ty::Float(FloatTy::F32) => (4, 4),
        Ty::Float(FloatTy::F64) => (8, 8),
        Ty::Bool => (1, 1),
        Ty::Array(e, n) => {
            let (s, a) = layout(e, structs);
            (s * n, a)
        }
        Ty::Struct(name) => structs.get(name).copied().unwrap_or((1, 1)),
        // Field-less enums are a `u32`; the map holds the tagged unions' layouts.
        Ty::Enum(name) => structs.get(name).copied().unwrap_or((4, 4)),
        Ty::Option(t) => {
            let (s, a) = layout(t, structs);
            let a = a.max(1);
            (align_up(align_up(1, a) + s, a), a)
        }
        Ty::Tuple(ts) => {
            let refs: Vec<&Ty> = ts.iter().collect();
            let (s, a, _) = struct_layout(&refs, structs);
            (s, a)
        }
        Ty::Ordering => (1, 1),
        _ => (0, 1),
    }
}

pub fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

/// C layout of a struct with these field types, in order: (size, align, field offsets).
pub fn struct_layout(
    fields: &[&Ty],
    structs: &BTreeMap<String, (u64, u64)>,
) -> (u64, u64, Vec<u64>) {
    let mut off = 0;
    let mut align = 1;
    let mut offs = Vec::new();
    for f in fields {
        let (s, a) = layout(f, structs);
        off = align_up(off, a);
        offs.push(off);
        off += s;
        align = align.max(a);
    }
    (align_up(off, align), align, offs)
}

/// The value of an integer const named by `path` (`N`, or an associated const `Board::N`
/// of this module), for array lengths.
pub fn const_len(path: &syn::Path, names: &[(String, Option<u64>)]) -> Option<u64> {
    let key = path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::");
    names.iter().find(|(n, _)| *n == key).and_then(|(_, v)| *v)
}

/// A parameter's type (or a `let` annotation's): a value type, or a reference `&T` /
/// `&mut T` to one (the only places references may appear; see `Ty::Ref`).
pub fn parse_param_type(ty: &syn::Type, structs: &[String], names: &[(String, Option<u64>)]) -> syn::Result<Ty> {
    match ty {
        syn::Type::Reference(r) if matches!(&*r.elem, syn::Type::Slice(_)) => {
            let syn::Type::Slice(s) = &*r.elem else { unreachable!() };
            let elem = parse_type_in(&s.elem, structs, names)?;
            Ok(Ty::Slice(Box::new(elem), r.mutability.is_some()))
        }
        syn::Type::Reference(r) if !matches!(&*r.elem, syn::Type::Reference(_)) => {
            let inner = parse_type_in(&r.elem, structs, names)?;
            Ok(Ty::Ref(Box::new(inner), r.mutability.is_some()))
        }
        syn::Type::Reference(r) if matches!(&*r.elem, syn::Type::Reference(_)) => {
            Err(syn::Error::new_spanned(ty, "references to references are not supported; take `&T` or `&mut T`"))
        }
        syn::Type::Paren(p) => parse_param_type(&p.elem, structs, names),
        _ => parse_type_in(ty, structs, names),
    }
}

/// Parses a type written by the user. `structs` are the names of the module's value structs.
/// `parse_type` that also knows the module's enums and integer constants (array lengths).
pub fn parse_type_in(ty: &syn::Type, structs: &[String], names: &[(String, Option<u64>)]) -> syn::Result<Ty> {
    let parse_type = |t: &syn::Type, s: &[String]| parse_type_in(t, s, names);
    let err = |msg: &str| Err(syn::Error::new_spanned(ty, msg));
    match ty {
        syn::Type::Paren(p) => parse_type(&p.elem, structs),
        syn::Type::Group(g) => parse_type(&g.elem, structs),
        syn::Type::Array(a) => {
            let elem = parse_type(&a.elem, structs)?;
            let n = match &a.len {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(l), .. }) => {
                    l.base10_parse::<u64>()?
                }
                syn::Expr::Path(p) if const_len(&p.path, names).is_some() => const_len(&p.path, names).unwrap(),
                other => {
                    return Err(syn::Error::new(
                        other.span(),
                        "array lengths must be integer literals, e.g. `[u32; 8]`",
                    ))
                }
            };
            if n == 0 {
                return err("zero-length arrays are not supported");
            }
            Ok(Ty::Array(Box::new(elem), n))
        }
        syn::Type::Tuple(t) if t.elems.is_empty() => Ok(Ty::Unit),
        syn::Type::Tuple(t) => {
            let mut elems = Vec::new();
            for e in &t.elems {
                let e = parse_type(e, structs)?;
                if !e.is_value() {
                    return Err(syn::Error::new_spanned(ty, "tuple elements must be values (no `()`)"));
                }
                elems.push(e);
            }
            if elems.len() < 2 {
                return err("one-element tuples are not supported; use the element type itself");
            }
            Ok(Ty::Tuple(elems))
        }
        syn::Type::Reference(_) => err(
            "references are supported only as function parameters (`x: &T`, `x: &mut T`) and locals bound to them; struct fields, array and tuple elements and results hold values: write the type itself",
        ),
        syn::Type::Ptr(_) => err("raw pointers are not supported in megakernel code"),
        syn::Type::Slice(_) => err("a slice is borrowed: write `&[T]` or `&mut [T]` (a function parameter or a local), or use a fixed-size array `[T; N]`"),
        syn::Type::TraitObject(_) | syn::Type::ImplTrait(_) => err(
            "trait objects and `impl Trait` are not supported (the device has no dynamic dispatch); make the function generic over the trait, `fn f<P: Problem>(p: &P)` (one copy per type it is called with), or use an enum of the types",
        ),
        syn::Type::Never(_) => err("the never type `!` is not supported here"),
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last().expect("paths have a segment");
            let name = last.ident.to_string();
            if name == "Option" && p.path.segments.len() == 1 {
                let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                    return err("write `Option<T>` with the type of its value");
                };
                let [syn::GenericArgument::Type(inner)] = args.args.iter().collect::<Vec<_>>()[..] else {
                    return err("`Option` takes one type argument: `Option<T>`");
                };
                let inner = parse_type(inner, structs)?;
                if !inner.is_value() {
                    return err("`Option<()>` is not supported; use `bool`");
                }
                return Ok(Ty::Option(Box::new(inner)));
            }
            if !last.arguments.is_none() {
                let what = match name.as_str() {
                    "Buffer" | "ReadOnly" | "Sum" | "Max" | "Min" => format!(
                        "a `{name}` is borrowed from the context: take `&{}` as a helper's parameter (or bind `let x = &ctx.{}.<name>;`); struct fields and results cannot hold one",
                        quote::ToTokens::to_token_stream(&p.path).to_string().replace(' ', ""),
                        if matches!(name.as_str(), "Buffer" | "ReadOnly") { "buffers" } else { "counters" }
                    ),
                    "Result" => "`Result` is not supported in megakernel code; return an `Option` (and use `?`), or panic with `assert!`/`expect`".to_string(),
                    "Vec" | "VecDeque" | "HashMap" | "BTreeMap" | "HashSet" | "Box" | "Rc"
                    | "Arc" | "String" => format!(
                        "`{name}` is not supported in megakernel code (no heap on the device); use a fixed-size array `[T; N]` or a struct"
                    ),
                    _ => "generic types are not supported in megakernel code; use scalars, fixed-size arrays and structs of this module".to_string(),
                };
                return err(&what);
            }
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            if matches!(segs.iter().map(String::as_str).collect::<Vec<_>>()[..], ["Ordering"] | ["cmp", "Ordering"] | ["std" | "core", "cmp", "Ordering"]) {
                return Ok(Ty::Ordering);
            }
            if p.path.segments.len() == 1 {
                if let Some(t) = numeric_ty(&name) {
                    return Ok(t);
                }
                if name == "bool" {
                    return Ok(Ty::Bool);
                }
                if structs.contains(&name) {
                    return Ok(Ty::Struct(name));
                }
                if names.iter().any(|(n, v)| *n == name && v.is_none()) {
                    return Ok(Ty::Enum(name));
                }
            }
            let msg = match name.as_str() {
                "String" | "str" => "`String` is not supported in megakernel code; use a fixed-size array of `u8`".to_string(),
                "char" => "`char` is not supported yet; use `u32`".to_string(),
                "Self" => "`Self` is supported only inside an `impl` block; name the type".to_string(),
                "Ctx" => "the context is borrowed: take `ctx: &mut Ctx` as a helper's parameter; struct fields and results cannot hold it".to_string(),
                "u128" | "i128" => "128-bit integers are not supported; use `u64`/`i64`".to_string(),
                _ => format!("unsupported type `{name}`; megakernel code may use integer and float scalars, `bool`, fixed-size arrays `[T; N]` and structs declared in this module"),
            };
            err(&msg)
        }
        _ => err("unsupported type; megakernel code may use integer and float scalars, `bool`, fixed-size arrays `[T; N]` and structs declared in this module"),
    }
}

/// The integer or float type a name denotes (`u64`, `f32`).
pub fn numeric_ty(name: &str) -> Option<Ty> {
    match name {
        "f32" => Some(Ty::Float(FloatTy::F32)),
        "f64" => Some(Ty::Float(FloatTy::F64)),
        n => IntTy::from_name(n).map(Ty::Int),
    }
}
