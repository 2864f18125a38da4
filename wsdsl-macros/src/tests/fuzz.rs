//! The macro never panics on malformed input: token-level mutants of every `#[megakernel]`
//! module in the examples and tests (and of their attribute arguments) must come out as
//! generated code or as errors that point into the source.
//!
//! Deterministic: case `i` mutates with a PRNG seeded by `i`. `WSDSL_FUZZ_CASES=n` runs more
//! cases, `WSDSL_FUZZ_FIRST=i` starts at case `i` (with `WSDSL_FUZZ_CASES=1`, reruns one),
//! `WSDSL_FUZZ_TRACE=1` prints each mutant before running it.
//! One case in 80 also nests a spot deep (to 2,047 levels), as `tests/depth.rs` does by hand.
//! The regressions below are the minimal reproducers of what the fuzzer found.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

/// Each seed module about a hundred times over: 5,000 cases take about 25 s of CI alone
/// (10,000 take 47 s alone and 82 s beside the other tests, and pass too);
/// `WSDSL_FUZZ_CASES` runs more.
const CI_CASES: usize = 5_000;
const BATCH: usize = 500;

/// A token tree we can edit in place (`proc_macro2::Group` is immutable).
#[derive(Clone)]
enum Tree {
    Leaf(TokenTree),
    Group(Delimiter, Vec<Tree>),
}

fn trees(ts: TokenStream) -> Vec<Tree> {
    ts.into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => Tree::Group(g.delimiter(), trees(g.stream())),
            leaf => Tree::Leaf(leaf),
        })
        .collect()
}

fn stream(v: &[Tree]) -> TokenStream {
    v.iter()
        .map(|t| match t {
            Tree::Leaf(l) => l.clone(),
            Tree::Group(d, inner) => TokenTree::Group(Group::new(*d, stream(inner))),
        })
        .collect()
}

/// splitmix64: tiny, and good enough to spread mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// One `#[megakernel(args)] mod ..` of the corpus, attribute removed.
struct Seed {
    origin: String,
    args: Vec<Tree>,
    module: Vec<Tree>,
}

/// Every megakernel module of the example kernels (`wsdsl-examples/src/`, its folders
/// included) and of `tests/` (the integration tests and the compile-fail cases).
fn seeds() -> Vec<Seed> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["wsdsl-examples/src", "tests", "tests/integration", "tests/ui"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() && dir == "wsdsl-examples/src" {
                files.extend(std::fs::read_dir(&p).into_iter().flatten().flatten().map(|e| e.path()));
            } else {
                files.push(p);
            }
        }
    }
    files.retain(|p| p.extension().is_some_and(|x| x == "rs"));
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        let Ok(file) = syn::parse_file(&text) else { continue };
        for item in file.items {
            let syn::Item::Mod(mut m) = item else { continue };
            let Some(at) = m.attrs.iter().position(|a| a.path().segments.last().is_some_and(|s| s.ident == "megakernel")) else {
                continue;
            };
            let args = match m.attrs.remove(at).meta {
                syn::Meta::List(l) => l.tokens,
                _ => TokenStream::new(),
            };
            let origin = format!("{} mod {}", f.strip_prefix(&root).unwrap_or(&f).display(), m.ident);
            out.push(Seed { origin, args: trees(args), module: trees(quote::quote!(#m)) });
        }
    }
    out
}

/// The replacement material: the corpus's own identifiers and literals plus keywords and
/// edge-case literals it may lack.
struct Pools {
    idents: Vec<String>,
    literals: Vec<String>,
    subtrees: Vec<Tree>,
}

const KEYWORDS: &[&str] = &[
    "mut", "ref", "loop", "let", "while", "for", "in", "if", "else", "match", "return", "break", "continue", "fn", "struct",
    "enum", "impl", "self", "Self", "crate", "super", "mod", "pub", "use", "const", "static", "as", "move", "unsafe", "where",
    "dyn", "true", "false", "_", "u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "u128", "usize", "isize", "f32",
    "f64", "bool", "char", "str", "Option", "Some", "None", "Ctx", "Sum", "Max", "Min", "Vec", "Box", "String",
];

const LITERALS: &[&str] = &[
    "0", "1", "-1", "255", "256", "4294967296", "18446744073709551615", "18446744073709551616",
    "340282366920938463463374607431768211455", "99999999999999999999999999999999999999999", "0u8", "300u8", "-129i8",
    "1i128", "0usize", "1e400", "1.5", "-0.0", "1e-400", "0.5f32", "1f64", "0x_ff", "0b1", "0o7", "\"s\"", "\"\"", "b\"x\"",
    "'c'", "b'c'", "'\\u{10ffff}'", "c\"x\"", "1.0e", "1usize",
];

/// Operators, single and as joint pairs (`+=`, `::`, `..=` via two mutations).
const PUNCTS: &[&str] = &[
    "+", "-", "*", "/", "%", "^", "!", "&", "|", "=", "<", ">", "@", ".", ",", ";", ":", "#", "$", "?", "~", "::", "..", "..=",
    "=>", "->", "&&", "||", "==", "!=", "<=", ">=", "+=", "<<", ">>", "'a",
];

impl Pools {
    fn new(seeds: &[Seed]) -> Pools {
        let mut p = Pools { idents: KEYWORDS.iter().map(|s| s.to_string()).collect(), literals: LITERALS.iter().map(|s| s.to_string()).collect(), subtrees: Vec::new() };
        for s in seeds {
            p.collect(&s.module);
            p.collect(&s.args);
        }
        p.idents.sort();
        p.idents.dedup();
        p.literals.sort();
        p.literals.dedup();
        p
    }
    fn collect(&mut self, v: &[Tree]) {
        for t in v {
            match t {
                Tree::Leaf(TokenTree::Ident(i)) => self.idents.push(i.to_string()),
                Tree::Leaf(TokenTree::Literal(l)) => self.literals.push(l.to_string()),
                Tree::Leaf(_) => {}
                Tree::Group(_, inner) => {
                    // Small groups (argument lists, blocks, types) are the material to splice.
                    if inner.len() <= 12 {
                        self.subtrees.push(t.clone());
                    }
                    self.collect(inner);
                }
            }
        }
    }
}

fn count(v: &[Tree]) -> usize {
    v.iter().map(|t| 1 + if let Tree::Group(_, inner) = t { count(inner) } else { 0 }).sum()
}

/// The list holding the `n`th tree (pre-order) and its index there, as a path of group indices.
fn locate(v: &[Tree], mut n: usize, path: &mut Vec<usize>) -> Result<usize, usize> {
    for (i, t) in v.iter().enumerate() {
        if n == 0 {
            return Ok(i);
        }
        n -= 1;
        if let Tree::Group(_, inner) = t {
            path.push(i);
            match locate(inner, n, path) {
                Ok(at) => return Ok(at),
                Err(rest) => n = rest,
            }
            path.pop();
        }
    }
    Err(n)
}

fn list_at<'a>(mut v: &'a mut Vec<Tree>, path: &[usize]) -> &'a mut Vec<Tree> {
    for &i in path {
        let Tree::Group(_, inner) = &mut v[i] else { unreachable!("paths go through groups") };
        v = inner;
    }
    v
}

fn leaf(text: &str) -> Vec<Tree> {
    TokenStream::from_str(text).map(trees).unwrap_or_default()
}

const DELIMITERS: [Delimiter; 4] = [Delimiter::Parenthesis, Delimiter::Brace, Delimiter::Bracket, Delimiter::None];

/// One random token-level edit somewhere in `v`.
fn mutate(v: &mut Vec<Tree>, rng: &mut Rng, pools: &Pools) {
    let total = count(v);
    if total == 0 {
        v.extend(leaf(rng.pick(&pools.idents).as_str()));
        return;
    }
    let mut path = Vec::new();
    let Ok(i) = locate(v, rng.below(total), &mut path) else { return };
    let list = list_at(v, &path);
    // Most edits fit the token they hit (an identifier for an identifier, ...), so that many
    // mutants still parse and reach the type checker and the lowering.
    let fitting = rng.below(3) != 0;
    match (&list[i], rng.below(10)) {
        (Tree::Leaf(TokenTree::Ident(_)), _) if fitting => {
            let with = leaf(rng.pick(&pools.idents).as_str());
            list.splice(i..=i, with);
        }
        (Tree::Leaf(TokenTree::Literal(l)), _) if fitting => {
            // Half the time a literal of the same kind (a number for a number), which often
            // still type-checks and so reaches the lowering.
            let kind = |s: &str| s.starts_with(|c: char| c.is_ascii_digit());
            let was = kind(&l.to_string());
            let alike: Vec<&String> = pools.literals.iter().filter(|s| kind(s) == was).collect();
            let with = if rng.below(2) == 0 && !alike.is_empty() { *rng.pick(&alike) } else { rng.pick(&pools.literals) };
            let with = leaf(with.as_str());
            list.splice(i..=i, with);
        }
        (Tree::Leaf(TokenTree::Punct(_)), _) if fitting => {
            let with = leaf(rng.pick::<&str>(PUNCTS));
            list.splice(i..=i, with);
        }
        (Tree::Group(..), _) if fitting => {
            let same = |t: &&Tree| matches!((t, &list[i]), (Tree::Group(a, _), Tree::Group(b, _)) if a == b);
            let alike: Vec<&Tree> = pools.subtrees.iter().filter(same).collect();
            if !alike.is_empty() {
                list[i] = (*rng.pick(&alike)).clone();
            }
        }
        (_, 0) => drop(list.remove(i)),
        (_, 1) => list.insert(i, list[i].clone()),
        (_, 2) if i + 1 < list.len() => list.swap(i, i + 1),
        (_, 3..=5) => {
            // A statement or item: from after the previous `;` or block to the next one.
            let ends = |t: &Tree| matches!(t, Tree::Leaf(TokenTree::Punct(p)) if p.as_char() == ';') || matches!(t, Tree::Group(Delimiter::Brace, _));
            let start = list[..i].iter().rposition(ends).map_or(0, |s| s + 1);
            let end = list[i..].iter().position(ends).map_or(list.len(), |e| i + e + 1);
            if rng.below(2) == 0 {
                list.drain(start..end);
            } else {
                let copy: Vec<Tree> = list[start..end].to_vec();
                list.splice(end..end, copy);
            }
        }
        (Tree::Group(..), 6) => {
            let Tree::Group(d, _) = &mut list[i] else { unreachable!() };
            *d = *rng.pick(&DELIMITERS);
        }
        (_, 6) => list.insert(i, Tree::Group(*rng.pick(&DELIMITERS), Vec::new())),
        (_, 7) => {
            let end = (i + 1 + rng.below(4)).min(list.len());
            let inner: Vec<Tree> = list.drain(i..end).collect();
            list.insert(i, Tree::Group(*rng.pick(&DELIMITERS), inner));
        }
        (Tree::Group(_, inner), 8) => {
            let inner = inner.clone();
            list.splice(i..=i, inner);
        }
        _ => list[i] = rng.pick(&pools.subtrees).clone(),
    }
}

/// What came of one case, beyond passing.
enum Outcome {
    /// The text does not lex or is not a module: rustc or syn rejects it before our code runs.
    Unparsed,
    Compiled,
    Rejected,
    Failed(String),
}

thread_local! {
    /// The last panic's message and location on this thread, recorded by the fuzz hook.
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Whether this thread runs mutants, whose panics the hook records instead of printing.
    static FUZZING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs the macro on one mutant's text, as rustc would hand it over: parsed and expanded on
/// the stack `expand_deep` gives the expansion in rustc.
fn run_case(args: &str, module: &str) -> Outcome {
    let (Ok(args), Ok(module)) = (TokenStream::from_str(args), TokenStream::from_str(module)) else { return Outcome::Unparsed };
    crate::depth::on_large_stack(move || {
        let Ok(module) = syn::parse2::<syn::ItemMod>(module) else { return Outcome::Unparsed };
        // An error at `Span::call_site()` (the only span without source text here) points at
        // the attribute: right for malformed arguments (syn's "unexpected end of input"), wrong else.
        let attr_ok = crate::parse::schedule::parse(args.clone()).is_ok();
        let result = std::panic::catch_unwind(move || {
            crate::expand_module(args, module).map(|tokens| syn::parse2::<syn::File>(tokens).map(drop)).map_err(|e| {
                let lost: Vec<String> = e.into_iter().filter(|e| attr_ok && e.span().source_text().is_none()).map(|e| e.to_string()).collect();
                (!lost.is_empty()).then(|| format!("errors without a source position: {lost:?}"))
            })
        });
        match result {
            Ok(Ok(Ok(()))) => Outcome::Compiled,
            Ok(Ok(Err(e))) => Outcome::Failed(format!("the generated code does not parse: {e}")),
            Ok(Err(None)) => Outcome::Rejected,
            Ok(Err(Some(why))) => Outcome::Failed(why),
            Err(_) => Outcome::Failed(PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "panic".into())),
        }
    })
}

/// One case in `DEEPEN_ONE_IN` also nests a spot of its module deep (`deepen`).
const DEEPEN_ONE_IN: usize = 80;

/// Nests the tree at a random spot (a literal if a few tries find one, so that the result
/// is often still an expression) up to 2,047 levels deep, in one of the shapes that recurse
/// in the macro's passes: parentheses, blocks, prefix operators, a long sum, a method chain,
/// `if`s, closures and iterator chains (those two at most 40 deep: closures are inlined, and
/// 24 levels is the limit that reports an error).
fn deepen(v: &mut Vec<Tree>, rng: &mut Rng) {
    let total = count(v);
    let mut spot = None;
    for _ in 0..8 {
        let mut path = Vec::new();
        if let Ok(i) = locate(v, rng.below(total), &mut path) {
            let literal = matches!(list_at(v, &path)[i], Tree::Leaf(TokenTree::Literal(_)));
            spot = Some((path, i));
            if literal {
                break;
            }
        }
    }
    let Some((path, i)) = spot else { return };
    let list = list_at(v, &path);
    let levels = 1usize << rng.below(11);
    let n = levels + rng.below(levels);
    let t = list[i].clone();
    // What the shapes repeat: the tree itself if it is one token, else a literal.
    let small = if matches!(t, Tree::Leaf(_)) { t.clone() } else { leaf("0").remove(0) };
    let group = |d, inner: Vec<Tree>| Tree::Group(d, inner);
    let mut deep = vec![t.clone()];
    match rng.below(8) {
        0 => (0..n).for_each(|_| deep = vec![group(Delimiter::Parenthesis, std::mem::take(&mut deep))]),
        1 => (0..n).for_each(|_| deep = vec![group(Delimiter::Brace, std::mem::take(&mut deep))]),
        2 => deep = leaf(&*rng.pick(&["- ", "! ", "& ", "* "]).repeat(n)).into_iter().chain(deep).collect(),
        3 => (0..n).for_each(|_| deep.extend(leaf("+").into_iter().chain([small.clone()]))),
        4 => (0..n).for_each(|_| deep.extend(leaf(".wrapping_add(1)"))),
        5 => (0..n).for_each(|_| {
            let then = group(Delimiter::Brace, std::mem::take(&mut deep));
            deep = leaf("if true").into_iter().chain([then]).chain(leaf("else")).chain([group(Delimiter::Brace, vec![small.clone()])]).collect();
        }),
        6 => (0..n.min(40)).for_each(|_| {
            let body = leaf("let g = |v: u32|").into_iter().chain(std::mem::take(&mut deep)).chain(leaf("; g(0)")).collect();
            deep = vec![group(Delimiter::Brace, body)];
        }),
        _ => (0..n.min(40)).for_each(|_| {
            let closure = leaf("|k: u32| k +").into_iter().chain(std::mem::take(&mut deep)).collect();
            deep = leaf("(0..2u32).map").into_iter().chain([group(Delimiter::Parenthesis, closure)]).chain(leaf(".sum::<u32>()")).collect();
        }),
    }
    list.splice(i..=i, deep);
}

/// Mutant `case`: a seed, its (possibly swapped and mutated) arguments and module, as text.
fn mutant(case: usize, seeds: &[Seed], pools: &Pools) -> (String, String, String) {
    let mut rng = Rng(case as u64);
    let seed = rng.pick(seeds);
    let mut args = if rng.below(4) == 0 { rng.pick(seeds).args.clone() } else { seed.args.clone() };
    let mut module = seed.module.clone();
    for _ in 0..1 + rng.below(3) {
        mutate(&mut module, &mut rng, pools);
    }
    if rng.below(4) == 0 {
        mutate(&mut args, &mut rng, pools);
    }
    // A stream of its own, so that the other mutations of every case stay as they were.
    let mut deep_rng = Rng(!(case as u64));
    if deep_rng.below(DEEPEN_ONE_IN) == 0 {
        deepen(&mut module, &mut deep_rng);
    }
    (seed.origin.clone(), stream(&args).to_string(), stream(&module).to_string())
}

fn env_usize(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// Replaces the panic hook with one that records panics of fuzzing threads instead of
/// printing them (other tests' panics still print), restoring the original on drop.
struct QuietPanics(Option<Arc<Hook>>);

type Hook = Box<dyn Fn(&std::panic::PanicHookInfo) + Sync + Send>;

impl QuietPanics {
    fn install() -> QuietPanics {
        let prev = Arc::new(std::panic::take_hook());
        let inner = prev.clone();
        std::panic::set_hook(Box::new(move |info| {
            if FUZZING.get() {
                let loc = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
                let msg = info.payload().downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| info.payload().downcast_ref::<String>().cloned()).unwrap_or_default();
                PANIC.with(|p| *p.borrow_mut() = Some(format!("panicked at {loc}: {msg}")));
            } else {
                inner(info)
            }
        }));
        QuietPanics(Some(prev))
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        // The hook cannot change while the test's own assertion unwinds; ours then stays, and
        // passes every other thread's panic on to the original.
        if std::thread::panicking() {
            return;
        }
        // Dropping our hook drops its clone of the original, so the original is ours again.
        drop(std::panic::take_hook());
        if let Some(prev) = self.0.take().and_then(|p| Arc::try_unwrap(p).ok()) {
            std::panic::set_hook(prev);
        }
    }
}

/// Failures by message: the case that hit it with the shortest mutant, and how many did.
type Failures = BTreeMap<String, (usize, usize, String)>;

fn record(failures: &mut Failures, why: String, case: usize, n: usize, shown: String) {
    let entry = failures.entry(why).or_insert((case, 0, shown.clone()));
    entry.1 += n;
    if shown.len() < entry.2.len() {
        (entry.0, entry.2) = (case, shown);
    }
}

/// Runs `cases` on a fresh thread with 8 MiB of stack, like rustc's. Fresh because tokens are
/// not `Send` (each batch parses the corpus itself) and because the span source map of
/// `proc-macro2` outside a macro is per thread and keeps every text parsed.
fn run_batch(cases: std::ops::Range<usize>, trace: bool) -> ([usize; 3], Failures) {
    let worker = std::thread::Builder::new().stack_size(8 << 20).spawn(move || {
        let seeds = seeds();
        assert!(seeds.len() >= 20, "the seed corpus is the example kernels' and tests' megakernel modules; found {}", seeds.len());
        let pools = Pools::new(&seeds);
        FUZZING.set(true);
        let mut failures = Failures::new();
        let mut tally = [0usize; 3];
        for case in cases {
            let (origin, args, module) = mutant(case, &seeds, &pools);
            let shown = || format!("from {origin}\n#[megakernel({args})]\n{module}");
            if trace {
                eprintln!("case {case} {}", shown());
            }
            match run_case(&args, &module) {
                Outcome::Unparsed => tally[0] += 1,
                Outcome::Compiled => tally[1] += 1,
                Outcome::Rejected => tally[2] += 1,
                Outcome::Failed(why) => record(&mut failures, why, case, 1, shown()),
            }
        }
        (tally, failures)
    });
    worker.expect("spawn a fuzz thread").join().unwrap_or_else(|e| std::panic::resume_unwind(e))
}

#[test]
fn mutated_modules_never_panic() {
    let first = env_usize("WSDSL_FUZZ_FIRST").unwrap_or(0);
    let cases = env_usize("WSDSL_FUZZ_CASES").unwrap_or(CI_CASES);
    // A hang or a stack overflow cannot be caught: this names the case that never finished.
    let trace = std::env::var_os("WSDSL_FUZZ_TRACE").is_some();
    let _quiet = QuietPanics::install();
    let mut failures = Failures::new();
    let mut tally = [0usize; 3];
    for start in (first..first + cases).step_by(BATCH) {
        let (t, f) = run_batch(start..(start + BATCH).min(first + cases), trace);
        tally.iter_mut().zip(t).for_each(|(a, b)| *a += b);
        for (why, (case, n, shown)) in f {
            record(&mut failures, why, case, n, shown);
        }
    }
    eprintln!("fuzz: {cases} cases: {} do not parse, {} compile, {} rejected with errors", tally[0], tally[1], tally[2]);
    let report: Vec<String> = failures
        .iter()
        .map(|(why, (case, n, shown))| format!("{why}\n  {n} case(s); rerun with WSDSL_FUZZ_FIRST={case} WSDSL_FUZZ_CASES=1\n{shown}\n"))
        .collect();
    assert!(report.is_empty(), "{} distinct failures:\n{}", report.len(), report.join("\n"));
}

/// The check that errors point into the source needs `proc-macro2`'s `span-locations`.
#[test]
fn positions_are_tracked() {
    let ts = TokenStream::from_str("x").unwrap();
    assert!(ts.into_iter().next().unwrap().span().source_text().is_some());
}


// Regressions: the minimal reproducers of what the fuzzer found.

use super::{cuda, errors, helper_c, program};

/// `;` alone is an empty statement (syn: empty verbatim tokens), not an unsupported
/// expression reported at the attribute.
#[test]
fn empty_statement() {
    let c = cuda(program(quote::quote! { fn f(x: u32) -> u32 { ; let y = x;; y } }));
    assert!(helper_c(&c, "f").contains("return"), "{}", c.handlers);
}

/// A field of a struct the model rejected was a panic ("known struct").
#[test]
fn field_of_rejected_struct() {
    let e = errors(program(quote::quote! { struct W {} fn f(w: W) -> u32 { w.x } }));
    assert!(e.iter().any(|m| m.contains("structs need at least one field")), "{e:#?}");
}

/// A field named `_` (syn parses it, for anonymous fields) generated `self._`, which does
/// not parse: found by the fuzzer from a task struct of `tests/integration/schedule_attr.rs`.
#[test]
fn placeholder_field_name() {
    let e = errors(program(quote::quote! { #[task] pub struct Leaf { pub _: u32 } #[spawn] fn leaf(_l: &Leaf, _ctx: &mut Ctx) {} }));
    assert!(e.iter().any(|m| m.contains("a field cannot be named `_`")), "{e:#?}");
    let e = errors(program(quote::quote! { enum E { A { _: u32 } } fn f(e: E) -> u32 { 0 } }));
    assert!(e.iter().any(|m| m.contains("a field cannot be named `_`")), "{e:#?}");
}

/// A closure-taking helper that calls itself twice was inlined 2^24 times (a hang, memory
/// growing with the repeated error) before the recursion error stopped it.
#[test]
fn closure_helper_recursing_twice() {
    let e = errors(program(quote::quote! {
        fn nest<F: Fn(u32) -> u32 + Copy>(f: F, n: u32) -> u32 { if n == 0 { f(0) } else { nest(f, n - 1) + nest(f, n - 1) } }
        fn g(x: u32) -> u32 { nest(|v| v + 1, x) }
    }));
    assert_eq!(e.len(), 1, "{e:#?}");
    assert!(e[0].contains("cannot call themselves (recursion)"), "{e:#?}");
}
