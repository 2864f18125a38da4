//! Compile-fail cases of `#[megakernel]`: each program under `tests/ui/` must be rejected
//! with the diagnostics recorded next to it (`TRYBUILD=overwrite` regenerates them).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
