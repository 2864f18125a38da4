//! Typed bodies: what `check` produces and `lower` consumes. Types may still contain
//! inference variables; `lower` resolves them through the final `Infer` table.

use crate::parse::model::Reduce;
use crate::types::Ty;

pub type LocalId = usize;

pub struct Local {
    pub name: String,
    pub ty: Ty,
}

pub struct FnBody {
    pub name: String,
    pub locals: Vec<Local>,
    pub params: Vec<LocalId>,
    pub body: Block,
    /// Functions this body calls, for the recursion check.
    pub calls: Vec<(String, proc_macro2::Span)>,
    /// One entry per loop (indexed by `LoopId`): whether it carries a Rust label, i.e. may
    /// be the target of a `break`/`continue` from an inner loop (C needs a `goto` there).
    pub loops: Vec<bool>,
    /// Task types spawned by this body, or by a function it calls, and where (for the join
    /// checks; `check/spawns.rs`).
    pub spawns: Vec<(String, proc_macro2::Span)>,
    /// Where this body starts data-parallel jobs, which its task waits for like children.
    pub jobs: Vec<proc_macro2::Span>,
    /// Whether the body panics explicitly (`panic!`, `assert!`, `unwrap()`, ...), so that a
    /// call of it must leave its caller when it did (see `Checked::may_panic`). A
    /// `debug_assert!` counts, so that a helper has one C signature in both kernel variants.
    pub panics: bool,
}

pub type LoopId = usize;

/// The building blocks a handler can ask for: their numbers, methods and result words are
/// `wsdsl-abi`'s, shared with the runtime and `cuda/features/parallel.cuh`.
pub use wsdsl_abi::jobs::JobKind;

/// A job call: its buffers (index in the `#[buffers]` struct, name), element type, and its
/// operands in Rust's evaluation order: each range's start and end, then the pivot or
/// initial value, then the destination start, as the job has them.
#[derive(Clone)]
pub struct JobCall {
    pub kind: JobKind,
    pub elem: crate::types::IntTy,
    pub src: (usize, String),
    pub dst: Option<(usize, String)>,
    pub operands: Vec<Expr>,
    /// The first of the call's `JOB_SITES` fault sites (`check/jobs.rs`).
    pub site: u32,
}

/// Patterns of `match` arms, `if let` and `let`, resolved against the scrutinee's type.
#[derive(Clone)]
pub enum Pat {
    Wild,
    /// An integer literal or range pattern: the values `lo..=hi` (as the type's values).
    Range(i128, i128),
    Bool(bool),
    /// A variant of a field-less enum, by discriminant.
    Variant(u32),
    /// A variant of an enum with data: its tag, its name (the C union member) and its
    /// fields' patterns, each with the field's C member and type.
    EnumData { tag: u32, variant: String, fields: Vec<(String, Ty, Pat)> },
    /// Binds the value to a new local.
    Bind(LocalId),
    Some(Box<Pat>),
    None,
    Tuple(Vec<Pat>),
    Or(Vec<Pat>),
}

#[derive(Clone)]
pub struct Arm {
    pub pat: Pat,
    pub guard: Option<Expr>,
    pub body: Expr,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BufOp {
    Len,
    Get,
    Set,
    AtomicAdd,
    AtomicMin,
    AtomicMax,
    AtomicCas,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum OptOp {
    UnwrapOr,
    IsSome,
    IsNone,
}

#[derive(Clone)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub tail: Option<Box<Expr>>,
    pub ty: Ty,
}

#[derive(Clone)]
pub struct Stmt {
    pub line: u32,
    pub file: String,
    pub kind: StmtKind,
}

#[derive(Clone)]
pub enum StmtKind {
    Let(LocalId, Option<Expr>),
    Expr(Expr),
}

#[derive(Clone)]
pub struct Expr {
    pub ty: Ty,
    pub kind: ExprKind,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinOp {
    pub fn is_cmp(self) -> bool {
        matches!(self, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
    }
    pub fn c(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Method {
    WrappingAdd,
    WrappingSub,
    WrappingMul,
    WrappingNeg,
    WrappingShl,
    WrappingShr,
    CheckedAdd,
    CheckedSub,
    CheckedMul,
    CheckedDiv,
    CheckedRem,
    CheckedNeg,
    CheckedShl,
    CheckedShr,
    SaturatingAdd,
    SaturatingSub,
    SaturatingMul,
    Pow,
    RotateLeft,
    RotateRight,
    CountOnes,
    CountZeros,
    TrailingZeros,
    LeadingZeros,
    SwapBytes,
    ToBe,
    FromBe,
    ToLe,
    FromLe,
    IsPowerOfTwo,
    AbsDiff,
    IsMultipleOf,
    Min,
    Max,
    Abs,
    Ln,
    Log2,
    Log10,
    Floor,
    Ceil,
    Trunc,
    Round,
    Powf,
    Powi,
    Sin,
    Cos,
    Tan,
    Sqrt,
    Exp,
    MulAdd,
    IsNan,
    /// The float methods below are libm's (or exact: `recip`, `fract`, `copysign`,
    /// `to_radians`, `to_degrees` and the tests); `signum` is also an integer method.
    Signum,
    ToRadians,
    ToDegrees,
    Hypot,
    Atan2,
    Exp2,
    Cbrt,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Recip,
    Fract,
    Copysign,
    IsFinite,
    IsInfinite,
    IsSignNegative,
    IsSignPositive,
    ToBits,
    /// `a.cmp(&b)` (integers, bools): an `Ordering`.
    Cmp,
    /// `a.partial_cmp(&b)` (numbers, bools): an `Option<Ordering>`, `None` for a NaN.
    PartialCmp,
    /// `a.total_cmp(&b)` (floats): IEEE 754's total order as an `Ordering`.
    TotalCmp,
}

/// Integer methods by name; `min`, `max`, `abs` are also float methods.
pub const INT_METHODS: &[(&str, Method)] = &[
    ("wrapping_add", Method::WrappingAdd),
    ("wrapping_sub", Method::WrappingSub),
    ("wrapping_mul", Method::WrappingMul),
    ("wrapping_neg", Method::WrappingNeg),
    ("wrapping_shl", Method::WrappingShl),
    ("wrapping_shr", Method::WrappingShr),
    ("checked_add", Method::CheckedAdd),
    ("checked_sub", Method::CheckedSub),
    ("checked_mul", Method::CheckedMul),
    ("checked_div", Method::CheckedDiv),
    ("checked_rem", Method::CheckedRem),
    ("checked_neg", Method::CheckedNeg),
    ("checked_shl", Method::CheckedShl),
    ("checked_shr", Method::CheckedShr),
    ("saturating_add", Method::SaturatingAdd),
    ("saturating_sub", Method::SaturatingSub),
    ("saturating_mul", Method::SaturatingMul),
    ("pow", Method::Pow),
    ("abs", Method::Abs),
    ("min", Method::Min),
    ("max", Method::Max),
    ("rotate_left", Method::RotateLeft),
    ("rotate_right", Method::RotateRight),
    ("count_ones", Method::CountOnes),
    ("count_zeros", Method::CountZeros),
    ("trailing_zeros", Method::TrailingZeros),
    ("leading_zeros", Method::LeadingZeros),
    ("swap_bytes", Method::SwapBytes),
    ("to_be", Method::ToBe),
    ("to_le", Method::ToLe),
    ("is_power_of_two", Method::IsPowerOfTwo),
    ("abs_diff", Method::AbsDiff),
    ("is_multiple_of", Method::IsMultipleOf),
    ("signum", Method::Signum),
];

/// Associated functions called as `u32::from_be(x)`.
pub const INT_FUNCTIONS: &[(&str, Method)] = &[("from_be", Method::FromBe), ("from_le", Method::FromLe)];

pub const FLOAT_METHODS: &[(&str, Method)] = &[
    ("sqrt", Method::Sqrt),
    ("abs", Method::Abs),
    ("min", Method::Min),
    ("max", Method::Max),
    ("floor", Method::Floor),
    ("ceil", Method::Ceil),
    ("trunc", Method::Trunc),
    ("round", Method::Round),
    ("exp", Method::Exp),
    ("ln", Method::Ln),
    ("log2", Method::Log2),
    ("log10", Method::Log10),
    ("powi", Method::Powi),
    ("powf", Method::Powf),
    ("sin", Method::Sin),
    ("cos", Method::Cos),
    ("tan", Method::Tan),
    ("mul_add", Method::MulAdd),
    ("is_nan", Method::IsNan),
    ("to_bits", Method::ToBits),
    ("signum", Method::Signum),
    ("to_radians", Method::ToRadians),
    ("to_degrees", Method::ToDegrees),
    ("hypot", Method::Hypot),
    ("atan2", Method::Atan2),
    ("exp2", Method::Exp2),
    ("cbrt", Method::Cbrt),
    ("asin", Method::Asin),
    ("acos", Method::Acos),
    ("atan", Method::Atan),
    ("sinh", Method::Sinh),
    ("cosh", Method::Cosh),
    ("tanh", Method::Tanh),
    ("recip", Method::Recip),
    ("fract", Method::Fract),
    ("copysign", Method::Copysign),
    ("is_finite", Method::IsFinite),
    ("is_infinite", Method::IsInfinite),
    ("is_sign_negative", Method::IsSignNegative),
    ("is_sign_positive", Method::IsSignPositive),
];

#[derive(Clone)]
pub enum FloatLit {
    /// Literal digits as written (parsed at the literal's final type, so f32 rounds once).
    Text(String),
    Value(f64),
}

#[derive(Clone)]
pub enum ExprKind {
    Int(u128),
    Float(FloatLit),
    Bool(bool),
    Local(LocalId),
    /// `ctx.params.<field>`
    Param(String),
    /// `ctx.params` itself: a `&Params` (the CPU backend's `Ctx` holds one).
    ParamsRef,
    /// `&place` / `&mut place` (the mutability is in its type): a pointer to the place, or to a temporary holding
    /// the value when it is not a place (as Rust borrows a temporary).
    AddrOf(Box<Expr>),
    /// `*r` of a reference, also inserted by auto-deref (`r.f`, `r[i]`, `r.method()`).
    Deref(Box<Expr>),
    Field(Box<Expr>, String),
    /// base, index, array length, fault site
    Index(Box<Expr>, Box<Expr>, u64, u32),
    /// `s[i]` of a slice: (slice, index, fault site).
    SliceIndex(Box<Expr>, Box<Expr>, u32),
    /// `s.len()` of a slice.
    SliceLen(Box<Expr>),
    /// `&base[start..end]` / `&mut ..` (the mutability is in its type) of an array place
    /// (`len` its length) or of a slice (`len` `None`), a missing bound the end's; also the
    /// coercions `&mut [T]` to `&[T]` and `&[T; N]` to `&[T]` (no bounds). The first of
    /// three consecutive fault sites (`ws_range` in `core/rust_semantics.cuh`), `u32::MAX`
    /// without bounds.
    Slicing { base: Box<Expr>, start: Option<Box<Expr>>, end: Option<Box<Expr>>, len: Option<u64>, site: u32 },
    Unary(UnOp, Box<Expr>),
    /// The site is set for `/` and `%`.
    Binary(BinOp, Box<Expr>, Box<Expr>, u32),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Cast(Box<Expr>),
    StructLit(String, Vec<(String, Expr)>),
    ArrayLit(Vec<Expr>),
    ArrayRepeat(Box<Expr>, u64),
    Call(String, Vec<Expr>),
    Method(Method, Box<Expr>, Vec<Expr>),
    Block(Block),
    If(Box<Expr>, Block, Option<Box<Expr>>),
    Match(Box<Expr>, Vec<Arm>),
    While(Box<Expr>, Block, LoopId),
    Loop(Block, LoopId),
    /// `for var in (start..end)` / `..=`, optionally `.rev()` and `.step_by(step)`.
    For {
        var: LocalId,
        start: Box<Expr>,
        end: Box<Expr>,
        inclusive: bool,
        rev: bool,
        /// The step (usize) and the fault site of `step_by(0)`.
        step: Option<(Box<Expr>, u32)>,
        body: Block,
        id: LoopId,
    },
    Break(LoopId, Option<Box<Expr>>),
    Continue(LoopId),
    Return(Option<Box<Expr>>),
    Assign(Box<Expr>, Box<Expr>),
    CompoundAssign(BinOp, Box<Expr>, Box<Expr>, u32),
    /// `counter.<op>(v)` of a counter (a `Ty::Counter`: `ctx.counters.<name>`, or a
    /// `&mut Sum<T>` parameter or local).
    Counter(Box<Expr>, Reduce, Box<Expr>),
    /// `buffer.<op>(args)` of a buffer (a `Ty::Buffer`: `ctx.buffers.<name>`, or a
    /// `&Buffer<T>` parameter or local); the site is the index-out-of-bounds fault.
    Buffer(Box<Expr>, BufOp, Vec<Expr>, u32),
    /// The context itself (`ctx`, a `Ty::Ctx`), passed to a helper that takes it.
    CtxRef,
    /// `ctx.buffers` (a `Ty::Buffers`).
    CtxBuffers,
    /// `ctx.counters` (a `Ty::Counters`).
    CtxCounters,
    /// Buffer `<name>` of a `Ty::Buffers` (`ctx.buffers.data`): a `Ty::Buffer`.
    BufferField(Box<Expr>, String),
    /// Counter `<name>` of a `Ty::Counters` (`&mut ctx.counters.found`): a `Ty::Counter`.
    CounterField(Box<Expr>, String),
    OptMethod(OptOp, Box<Expr>, Vec<Expr>),
    TupleLit(Vec<Expr>),
    TupleField(Box<Expr>, usize),
    /// A variant of a field-less enum: its discriminant.
    Variant(u32),
    /// A variant of an enum with data: (enum, tag, variant, fields by C member).
    EnumLit(String, u32, String, Vec<(String, Expr)>),
    /// `ctx.spawn(task)`, or `ctx.spawn_with_priority(p, task)` with `Some(p)`.
    Spawn(String, Box<Expr>, Option<Box<Expr>>),
    /// An explicit panic (type `!`): the fault site, then the message's arguments in the order
    /// Rust evaluates them, each with the word of the status record that carries its value
    /// to the host (`None`: evaluated but not shown on the GPU).
    Panic(u32, Vec<(Expr, Option<usize>)>),
    /// `option.unwrap()` / `option.expect("..")`: the value, or a panic at the site.
    Unwrap(Box<Expr>, u32),
    /// `debug_assert!` and its family: in the kernel only when the crate is built with debug
    /// assertions, as they are in its native code.
    DebugOnly(Box<Expr>),
    /// `ctx.thread()`, `ctx.threads()` (u32) or `ctx.sync()` (unit): the threads that run one
    /// task together in a cooperative schedule (`wsdsl_ctx_<name>` in `cuda/core/context.cuh`).
    CtxCall(&'static str),
    /// An `Option` built from a flag and a value (read only when the flag is set): what
    /// iterator consumers such as `max()` or `position(..)` produce (`check/iterators.rs`).
    OptFrom(Box<Expr>, Box<Expr>),
    /// How many integers the range `start..end` (`..=` when set) holds, as a `usize`
    /// (`check/iterators/chain.rs`; computed in the unsigned type of the range's width).
    RangeLen(Box<Expr>, Box<Expr>, bool),
    /// The `k`-th integer from `start` (`k` a `usize` within the range's length).
    RangeNth(Box<Expr>, Box<Expr>),
    /// `Ordering::Less` (-1), `Equal` (0) or `Greater` (1).
    OrderingLit(i8),
    /// A `Result` built from a flag (`Ok` when set), the `Ok` value and the `Err` value (only
    /// the one the flag selects is read): what `binary_search` produces.
    ResFrom(Box<Expr>, Box<Expr>, Box<Expr>),
    /// The slice `&base[start..start + len]` of an array or slice place (`chunks(k)`).
    SliceOf(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `ctx.merge(..)` and the other data-parallel building blocks (`check/jobs.rs`).
    Job(Box<JobCall>),
    /// `ctx.result(k)` (u64): a result word of the round before's jobs; the site of an index
    /// past them.
    JobResult(Box<Expr>, u32),
    Unit,
    Error,
}
