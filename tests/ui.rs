//! Compile-fail cases of `#[megakernel]`: each program under `tests/ui/` must be rejected
//! with the diagnostics recorded next to it (`TRYBUILD=overwrite` regenerates them). And pass
//! cases generated here: nesting as deep as rustc compiles on its default stack, and README's
//! first project.

#[test]
fn ui() {
    // trybuild's cargo discards output to /dev/null and its rustc probes read their source
    // from it: where /dev/null is a plain file, the probes read back old output, the checks
    // never start, and every compile-fail case would be reported as having compiled.
    use std::os::unix::fs::FileTypeExt;
    let null = std::fs::metadata("/dev/null").map(|m| m.file_type());
    assert!(
        null.as_ref().is_ok_and(|t| t.is_char_device()),
        "/dev/null is not the null device here ({null:?}): cargo, which these tests run, reads back what was written to it; recreate it (as root: `rm /dev/null && mknod -m 666 /dev/null c 1 3`)"
    );
    // Two projects, one after the other: mixed with a pass case, trybuild builds every case on
    // its own (and slowly); run as two #[test]s at once, the two share trybuild's project and
    // one can build the other's program under its own name (every compile-fail case then
    // "succeeds").
    {
        let t = trybuild::TestCases::new();
        t.compile_fail("tests/ui/*.rs");
    }
    let passes = trybuild::TestCases::new();
    passes.pass(deep_nesting_program());
    for program in first_project_programs() {
        passes.pass(program);
    }
}

/// README's first project, its `src/main.rs` as written (a program outside the crate, built
/// against wsdsl as a dependency: trybuild's project), and once more with its runtime put on
/// `Backend::Emulate`, as `WSDSL_BACKEND=emulate` does. Each checks its count itself.
fn first_project_programs() -> Vec<std::path::PathBuf> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README.md is read");
    let section = readme.split("\n## Your first project\n").nth(1).expect("README has a section `## Your first project`");
    let section = section.split("\n## ").next().unwrap_or(section);
    let main_rs = section.split("```rust\n").nth(1).and_then(|rest| rest.split("\n```").next()).expect("the section shows a main.rs");
    let from_env = "let rt = Runtime::from_env()?;";
    assert!(main_rs.contains(from_env), "the first project takes its backend from the environment");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let as_written = dir.join("first_project.rs");
    let emulated = dir.join("first_project_emulated.rs");
    std::fs::write(&as_written, main_rs).expect("the program is written");
    std::fs::write(&emulated, main_rs.replace(from_env, "let rt = Runtime::from_env()?.on(Backend::Emulate);")).expect("the program is written");
    vec![as_written, emulated]
}

/// A program whose helpers nest about as deep as rustc 1.95 compiles on its 8 MiB stack (it
/// overflows near a 5,300-term sum, 1,190 nested parentheses and 780 nested blocks): the
/// macro, which overflowed rustc's stack from about 700 terms, 1,000 parentheses and 500
/// blocks, gives code that runs on the CPU backend and compiles with NVRTC. Deeper nesting is
/// tested through the macro's own entry (`wsdsl-macros/src/tests/depth.rs`).
fn deep_nesting_program() -> std::path::PathBuf {
    let nest = |open: &str, inner: &str, close: &str, n: usize| format!("{}{inner}{}", open.repeat(n), close.repeat(n));
    let (terms, parens, blocks) = (5000, 1000, 600);
    let program = format!(
        r#"use wsdsl::prelude::*;

#[megakernel]
pub mod deep {{
    use wsdsl::prelude::*;

    #[counters]
    pub struct Counters {{ pub total: Sum<u64> }}

    #[task]
    pub struct T {{ pub x: i32 }}

    fn sum(x: i32) -> i32 {{ {sum} }}
    fn parens(x: i32) -> i32 {{ 0 + {parens} }}
    fn blocks(x: i32) -> i32 {{ let y = x; {blocks} }}

    #[spawn]
    fn run(t: &T, ctx: &mut Ctx) {{
        ctx.counters.total.add((sum(t.x) + parens(t.x) + blocks(t.x)) as u64);
    }}
}}

fn main() {{
    let out = Runtime::new(Backend::Cpu).run::<deep::Kernel>((), [deep::T {{ x: 1 }}]).expect("the deep program runs");
    assert_eq!(out.counters.total.get(), {expected});
    if let Err(e) = wsdsl::gpu::compile_check::<deep::Kernel>("sm_90") {{
        panic!("NVRTC: {{e}}");
    }}
}}
"#,
        sum = vec!["x"; terms].join(" + "),
        parens = nest("(", "x", " + 1)", parens),
        blocks = nest("{ let y = y + 1; ", "y", " }", blocks),
        expected = terms + (1 + parens) + (1 + blocks),
    );
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("deep_nesting.rs");
    std::fs::write(&path, program).expect("the generated program is written");
    path
}
