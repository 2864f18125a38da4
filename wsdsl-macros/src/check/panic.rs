//! Panics: `panic!`, `assert!`, `assert_eq!`, `assert_ne!` and their `debug_` forms,
//! `unreachable!`, `todo!`, `unimplemented!`, and `unwrap()`/`expect("..")` on an `Option`.
//!
//! Each is a fault site whose message is Rust's, word for word, so that the GPU's error reads
//! as the CPU backend's (`file:line: message`). The values a message shows travel in the
//! device status record's four spare words and are formatted on the host (`fault_message` in
//! the runtime): integers, floats, bools and field-less enums, at most four per panic
//! (`assert_eq!` takes two for its operands). Other values are evaluated, as in Rust, but the
//! GPU's message says `<not shown on the GPU>` in their place.

use super::*;
use quote::ToTokens;
use syn::punctuated::Punctuated;

/// A piece of a fault site's message.
pub enum Piece {
    Text(String),
    /// Value `aK` of `wsdsl_fault` (`word` K), as `{}` or (`debug`) `{:?}` shows it.
    Value { word: usize, ty: Ty, debug: bool },
}

/// Words of the status record that carry a message's values (`a0..a3` of `wsdsl_fault`).
const WORDS: usize = 4;

/// What the GPU's message shows in place of a value it does not carry.
const NOT_SHOWN: &str = "<not shown on the GPU>";

const MACROS: &[&str] = &[
    "panic",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "unreachable",
    "todo",
    "unimplemented",
];

/// A piece of a format string.
enum Fmt {
    Text(String),
    /// A placeholder: which argument, and whether it is `{:?}`.
    Arg(ArgRef, bool),
}

enum ArgRef {
    Next,
    Index(usize),
    Name(String),
}

/// An argument of a format string: written (positional or `name = value`) or captured
/// (`{name}` naming a local or const), and the status word carrying its value once a
/// placeholder shows it (`Some(None)`: shown, but not carried).
struct Arg {
    name: Option<String>,
    value: Expr,
    at: Span,
    written: bool,
    word: Option<Option<usize>>,
}

impl Cx<'_> {
    /// A macro invocation in handler or helper code.
    pub(super) fn macro_expr(&mut self, mac: &syn::Macro) -> Expr {
        let name = mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        let std_path = match mac.path.segments.len() {
            1 => mac.path.leading_colon.is_none(),
            2 => matches!(mac.path.segments[0].ident.to_string().as_str(), "std" | "core"),
            _ => false,
        };
        if std_path && name == "matches" {
            return self.matches_macro(mac);
        }
        if !std_path || !MACROS.contains(&name.as_str()) {
            self.err(
                mac.span(),
                format!("macro invocations such as `{name}!` are not supported in megakernel code (device code cannot print or allocate); the supported macros are `matches!`, `panic!`, `assert!`, `assert_eq!`, `assert_ne!`, their `debug_` forms, `unreachable!`, `todo!` and `unimplemented!`"),
            );
            return err_expr();
        }
        let args: Vec<syn::Expr> = match mac.parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated) {
            Ok(args) => args.into_iter().collect(),
            Err(e) => {
                self.errors.push(e);
                return err_expr();
            }
        };
        // Rust's panic location: where the invocation starts.
        let at = mac.path.span();
        let debug = name.starts_with("debug_");
        let e = match name.trim_start_matches("debug_") {
            "panic" => self.panic_with(at, "", "explicit panic", &args),
            "unreachable" => self.panic_with(at, "internal error: entered unreachable code: ", "internal error: entered unreachable code", &args),
            "todo" => self.panic_with(at, "not yet implemented: ", "not yet implemented", &args),
            "unimplemented" => self.panic_with(at, "not implemented: ", "not implemented", &args),
            "assert" => self.assert(mac, at, &args),
            cmp => self.assert_cmp(mac, at, cmp == "assert_eq", &args),
        };
        if !debug {
            return e;
        }
        self.sh.debug_assertions = true;
        ex(Ty::Unit, ExprKind::DebugOnly(Box::new(e)))
    }

    /// `option.unwrap()` or `option.expect("message")`.
    pub(super) fn unwrap(&mut self, mc: &syn::ExprMethodCall, recv: Expr, inner: Ty) -> Expr {
        let message = if mc.method == "unwrap" {
            if !mc.args.is_empty() {
                self.err_at(&mc.args, "`unwrap` takes no arguments");
                return err_expr();
            }
            "called `Option::unwrap()` on a `None` value".to_string()
        } else {
            match mc.args.first().map(peel) {
                Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. })) if mc.args.len() == 1 => s.value(),
                _ => {
                    let msg = "`expect` takes its message as a string literal, e.g. `expect(\"the sum fits\")`";
                    if mc.args.is_empty() {
                        self.err(mc.method.span(), msg);
                    } else {
                        self.err_at(&mc.args, msg);
                    }
                    return err_expr();
                }
            }
        };
        self.panics = true;
        // Rust's panic location for a method call: where the method's name is.
        let site = self.text_site(mc.method.span(), &message);
        ex(inner, ExprKind::Unwrap(Box::new(recv), site))
    }

    pub(super) fn panic_expr(&mut self, at: Span, message: Vec<Piece>, values: Vec<(Expr, Option<usize>)>) -> Expr {
        self.panics = true;
        let site = self.site(at, message);
        ex(Ty::Never, ExprKind::Panic(site, values))
    }

    /// `panic!` and its relatives: `bare` without arguments, else `prefix` and the message.
    fn panic_with(&mut self, at: Span, prefix: &str, bare: &str, args: &[syn::Expr]) -> Expr {
        if args.is_empty() {
            return self.panic_expr(at, vec![Piece::Text(bare.into())], Vec::new());
        }
        let (pieces, values) = self.format(args, 0);
        let mut message = vec![Piece::Text(prefix.into())];
        message.extend(pieces);
        self.panic_expr(at, message, values)
    }

    /// `if !cond { panic }`.
    pub(super) fn unless(cond: Expr, panic: Expr) -> Expr {
        let then = Block { stmts: Vec::new(), tail: Some(Box::new(panic)), ty: Ty::Never };
        let failed = ex(Ty::Bool, ExprKind::Unary(UnOp::Not, Box::new(cond)));
        ex(Ty::Unit, ExprKind::If(Box::new(failed), then, None))
    }

    fn assert(&mut self, mac: &syn::Macro, at: Span, args: &[syn::Expr]) -> Expr {
        let Some(cond_src) = args.first() else {
            self.err(mac.span(), "`assert!` takes a condition: `assert!(a < b)` or `assert!(a < b, \"message {}\", x)`");
            return err_expr();
        };
        let cond = self.expr(cond_src);
        self.expect_at(cond_src, &Ty::Bool, &cond.ty);
        let (message, values) = if args.len() > 1 {
            self.format(&args[1..], 0)
        } else {
            (vec![Piece::Text(format!("assertion failed: {}", cond_src.to_token_stream()))], Vec::new())
        };
        let panic = self.panic_expr(at, message, values);
        Self::unless(cond, panic)
    }

    /// `assert_eq!(left, right, ..)` (`eq`) or `assert_ne!`: both operands are evaluated once,
    /// and the message shows them with `{:?}` in words 0 and 1.
    fn assert_cmp(&mut self, mac: &syn::Macro, at: Span, eq: bool, args: &[syn::Expr]) -> Expr {
        let (name, op) = if eq { ("assert_eq", "==") } else { ("assert_ne", "!=") };
        if args.len() < 2 {
            self.err(mac.span(), format!("`{name}!` takes two values to compare: `{name}!(a, b)` or `{name}!(a, b, \"message {{}}\", x)`"));
            return err_expr();
        }
        // A reference compares and shows as the value it points to, as in Rust.
        let (l, r) = (self.expr(&args[0]), self.expr(&args[1]));
        let (l, r) = (self.auto_deref(l), self.auto_deref(r));
        if self.sh.infer.unify(&l.ty, &r.ty).is_err() {
            let msg = format!("mismatched types: `{name}!` compares two values of the same type, found `{}` and `{}`", self.show(&l.ty), self.show(&r.ty));
            self.err_at(&args[1], msg);
        } else if !matches!(self.resolve(&l.ty), Ty::Option(_)) && !self.operand_ok(BinOp::Eq, &l.ty) {
            let msg = format!("`{name}!` compares integers, floats, bools, field-less enums and `Option`s of them, not `{}`", self.show(&l.ty));
            self.err_at(&args[0], msg);
        }
        let ty = l.ty.clone();
        let left = self.hidden("left", ty.clone());
        let right = self.hidden("right", ty.clone());
        let local = |id| ex(ty.clone(), ExprKind::Local(id));
        let mut message = vec![Piece::Text(format!("assertion `left {op} right` failed"))];
        // Operands the status record cannot carry (an `Option`) are shown on the CPU only.
        let shown = self.shows(&ty);
        let mut values = vec![(local(left), shown.then_some(0)), (local(right), shown.then_some(1))];
        if args.len() > 2 {
            let (pieces, more) = self.format(&args[2..], 2);
            message.push(Piece::Text(": ".into()));
            message.extend(pieces);
            values.extend(more);
        }
        let operand = |word| if shown { Piece::Value { word, ty: ty.clone(), debug: true } } else { Piece::Text(NOT_SHOWN.into()) };
        message.push(Piece::Text("\n  left: ".into()));
        message.push(operand(0));
        message.push(Piece::Text("\n right: ".into()));
        message.push(operand(1));
        let panic = self.panic_expr(at, message, values);
        let op = if eq { BinOp::Eq } else { BinOp::Ne };
        let holds = match self.resolve(&ty) {
            Ty::Option(_) => self.option_eq(op, local(left), local(right), at),
            _ => ex(Ty::Bool, ExprKind::Binary(op, Box::new(local(left)), Box::new(local(right)), u32::MAX)),
        };
        let (line, file) = loc(at);
        let stmts = vec![
            Stmt { line, file: file.clone(), kind: StmtKind::Let(left, Some(l)) },
            Stmt { line, file, kind: StmtKind::Let(right, Some(r)) },
        ];
        ex(Ty::Unit, ExprKind::Block(Block { stmts, tail: Some(Box::new(Self::unless(holds, panic))), ty: Ty::Unit }))
    }

    /// Whether the GPU carries a value of type `ty` to the host.
    fn shows(&self, ty: &Ty) -> bool {
        match self.resolve(ty) {
            Ty::Int(_) | Ty::Float(_) | Ty::Bool | Ty::Enum(_) => true,
            t @ Ty::Var(_) => self.sh.infer.var_kind(&t).is_some(),
            _ => false,
        }
    }

    /// A format string (`args[0]`) and its arguments: the message's pieces, and the arguments
    /// in the order Rust evaluates them, values carried in words `first_word..WORDS`.
    fn format(&mut self, args: &[syn::Expr], first_word: usize) -> (Vec<Piece>, Vec<(Expr, Option<usize>)>) {
        let mut written = Vec::new();
        for a in &args[1..] {
            let (name, value) = match a {
                syn::Expr::Assign(named) => match peel(&named.left) {
                    syn::Expr::Path(p) if p.path.get_ident().is_some() => (p.path.get_ident().map(|i| i.to_string()), &*named.right),
                    _ => (None, a),
                },
                _ => (None, a),
            };
            if name.is_none() && written.iter().any(|w: &Arg| w.name.is_some()) {
                self.err_at(a, "positional arguments cannot follow named arguments");
            }
            let value = self.expr(value);
            let value = self.auto_deref(value);
            written.push(Arg { name, value, at: a.span(), written: true, word: None });
        }
        let fmt = match peel(&args[0]) {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => s.clone(),
            other => {
                self.err_at(other, "a panic message must be a string literal, a format string such as `\"x = {}\"`");
                return (Vec::new(), written.into_iter().map(|a| (a.value, None)).collect());
            }
        };
        let parsed = match parse_format(&fmt.value()) {
            Ok(p) => p,
            Err(msg) => {
                self.err(fmt.span(), msg);
                return (Vec::new(), written.into_iter().map(|a| (a.value, None)).collect());
            }
        };
        let mut slots = written;
        let (mut next, mut word) = (0, first_word);
        let mut pieces = Vec::new();
        for p in parsed {
            let (arg, debug) = match p {
                Fmt::Text(t) => {
                    pieces.push(Piece::Text(t));
                    continue;
                }
                Fmt::Arg(arg, debug) => (arg, debug),
            };
            let slot = match arg {
                ArgRef::Next | ArgRef::Index(_) => {
                    let i = match arg {
                        ArgRef::Index(i) => i,
                        _ => {
                            next += 1;
                            next - 1
                        }
                    };
                    if i >= slots.iter().filter(|s| s.written).count() {
                        self.err(fmt.span(), format!("this format string refers to argument {i}, but the message has {} argument(s) after it", args.len() - 1));
                        continue;
                    }
                    i
                }
                ArgRef::Name(name) => match slots.iter().position(|s| s.name.as_deref() == Some(&name)) {
                    Some(i) => i,
                    None => {
                        let Ok(mut ident) = syn::parse_str::<syn::Ident>(&name) else {
                            self.err(fmt.span(), format!("invalid format string: `{{{name}}}` names no argument or variable"));
                            continue;
                        };
                        ident.set_span(fmt.span());
                        let path = syn::ExprPath { attrs: Vec::new(), qself: None, path: ident.into() };
                        let value = self.path(&path);
                        let value = self.auto_deref(value);
                        slots.push(Arg { name: Some(name), value, at: fmt.span(), written: false, word: None });
                        slots.len() - 1
                    }
                },
            };
            let s = &mut slots[slot];
            let carried = match s.word {
                Some(w) => w,
                None => {
                    let w = (word < WORDS && self.shows(&s.value.ty)).then(|| {
                        word += 1;
                        word - 1
                    });
                    s.word = Some(w);
                    w
                }
            };
            pieces.push(match carried {
                Some(w) => Piece::Value { word: w, ty: s.value.ty.clone(), debug },
                None => Piece::Text(NOT_SHOWN.into()),
            });
        }
        for s in slots.iter().filter(|s| s.written && s.word.is_none()) {
            self.errors.push(syn::Error::new(s.at, "argument never used in the format string"));
        }
        (pieces, slots.into_iter().map(|s| (s.value, s.word.flatten())).collect())
    }
}

/// Rust's format string syntax, with the placeholders `{}`, `{N}`, `{name}` and each of them
/// with `:?`.
fn parse_format(s: &str) -> Result<Vec<Fmt>, String> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' | '}' if chars.peek() == Some(&c) => {
                chars.next();
                text.push(c);
            }
            '}' => return Err("invalid format string: unmatched `}` (write `}}` for a brace)".into()),
            '{' => {
                let mut inner = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => inner.push(c),
                        None => return Err("invalid format string: expected `}` (write `{{` for a brace)".into()),
                    }
                }
                let (arg, spec) = inner.split_once(':').unwrap_or((&inner, ""));
                let debug = match spec {
                    "" => false,
                    "?" => true,
                    other => {
                        return Err(format!(
                            "the format spec `{{:{other}}}` is not supported in megakernel code (the GPU's message is formatted on the host); use `{{}}` or `{{:?}}`"
                        ))
                    }
                };
                let arg = match arg {
                    "" => ArgRef::Next,
                    a => match a.parse::<usize>() {
                        Ok(i) => ArgRef::Index(i),
                        Err(_) => ArgRef::Name(a.to_string()),
                    },
                };
                if !text.is_empty() {
                    out.push(Fmt::Text(std::mem::take(&mut text)));
                }
                out.push(Fmt::Arg(arg, debug));
            }
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        out.push(Fmt::Text(text));
    }
    Ok(out)
}

/// A site's entry of `Program::FAULT_SITES` (see there for the syntax).
pub fn render(at: &str, message: &[Piece], infer: &Infer, m: &Module) -> String {
    let escape = |t: &str| t.replace('{', "{{").replace('}', "}}");
    let mut out = escape(at);
    for p in message {
        match p {
            Piece::Text(t) => out.push_str(&escape(t)),
            Piece::Value { word, ty, debug } => match value_kind(&infer.resolve(ty), *debug, m) {
                Some(kind) => out.push_str(&format!("{{{word}:{kind}}}")),
                None => out.push_str(NOT_SHOWN),
            },
        }
    }
    out
}

fn value_kind(ty: &Ty, debug: bool, m: &Module) -> Option<String> {
    Some(match ty {
        Ty::Int(t) if t.signed() => "i".into(),
        Ty::Int(_) => "u".into(),
        Ty::Bool => "b".into(),
        Ty::Float(f) => format!("{}{}", f.name(), if debug { "?" } else { "" }),
        // An enum with data is a struct on the device: not shown, like other structs.
        Ty::Enum(name) if !m.enum_def(name)?.has_data() => {
            let variants: Vec<String> =
                m.enum_def(name)?.variants.iter().map(|v| format!("{}={}", syn::ext::IdentExt::unraw(&v.name), v.disc)).collect();
            format!("e:{}", variants.join(","))
        }
        _ => return None,
    })
}

/// The functions that panic explicitly or call one that may (see `Checked::may_panic`).
pub fn may_panic(bodies: &[FnBody]) -> Vec<String> {
    let mut out: Vec<String> = bodies.iter().filter(|b| b.panics).map(|b| b.name.clone()).collect();
    loop {
        let more: Vec<String> = bodies
            .iter()
            .filter(|b| !out.contains(&b.name) && b.calls.iter().any(|(callee, _)| out.contains(callee)))
            .map(|b| b.name.clone())
            .collect();
        if more.is_empty() {
            return out;
        }
        out.extend(more);
    }
}
