//! Typed bodies: what `typeck` produces and `lower` consumes. Types may still contain
//! inference variables; `lower` resolves them through the final `Infer` table.

use crate::model::Reduce;
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
}

pub struct Block {
    pub stmts: Vec<Stmt>,
    pub tail: Option<Box<Expr>>,
    pub ty: Ty,
}

pub struct Stmt {
    pub line: u32,
    pub file: String,
    pub kind: StmtKind,
}

pub enum StmtKind {
    Let(LocalId, Option<Expr>),
    Expr(Expr),
}

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
    RotateLeft,
    RotateRight,
    CountOnes,
    TrailingZeros,
    LeadingZeros,
    Min,
    Max,
    Ln,
    Floor,
    Powf,
    Sin,
    Sqrt,
    Abs,
    Exp,
    Cos,
}

pub const INT_METHODS: &[(&str, Method)] = &[
    ("wrapping_add", Method::WrappingAdd),
    ("wrapping_sub", Method::WrappingSub),
    ("wrapping_mul", Method::WrappingMul),
    ("wrapping_neg", Method::WrappingNeg),
    ("rotate_left", Method::RotateLeft),
    ("rotate_right", Method::RotateRight),
    ("count_ones", Method::CountOnes),
    ("trailing_zeros", Method::TrailingZeros),
    ("leading_zeros", Method::LeadingZeros),
    ("min", Method::Min),
    ("max", Method::Max),
];

pub const FLOAT_METHODS: &[(&str, Method)] = &[
    ("ln", Method::Ln),
    ("floor", Method::Floor),
    ("powf", Method::Powf),
    ("sin", Method::Sin),
    ("sqrt", Method::Sqrt),
    ("abs", Method::Abs),
    ("exp", Method::Exp),
    ("cos", Method::Cos),
];

pub enum FloatLit {
    /// Literal digits as written (parsed at the literal's final type, so f32 rounds once).
    Text(String),
    Value(f64),
}

pub enum ExprKind {
    Int(u128),
    Float(FloatLit),
    Bool(bool),
    Local(LocalId),
    /// `ctx.params.<field>`
    Param(String),
    Field(Box<Expr>, String),
    /// base, index, array length, fault site
    Index(Box<Expr>, Box<Expr>, u64, u32),
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
    While(Box<Expr>, Block),
    Loop(Block),
    For { var: LocalId, start: Box<Expr>, end: Box<Expr>, inclusive: bool, body: Block },
    Break,
    Continue,
    Return(Option<Box<Expr>>),
    Assign(Box<Expr>, Box<Expr>),
    CompoundAssign(BinOp, Box<Expr>, Box<Expr>, u32),
    Counter(String, Reduce, Box<Expr>),
    Spawn(String, Box<Expr>),
    Unit,
    Error,
}
