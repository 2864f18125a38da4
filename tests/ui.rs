//! Compile-fail cases of `#[megakernel]`: each program under `tests/ui/` must be rejected
//! with the diagnostics recorded next to it (`TRYBUILD=overwrite` regenerates them). (Programs
//! that must compile are elsewhere: README's, as doc tests, run once as written and once on
//! the emulated GPU by README's test command; the deepest nesting rustc compiles, in
//! `tests/integration/deep_nesting.rs`.)

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
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

