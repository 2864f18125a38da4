//! Source positions for `#line` directives and fault messages.

/// (line, file) of a span. Outside a macro expansion (unit tests) there is no source map:
/// line 0 means "unknown" and suppresses `#line`.
pub fn loc(span: proc_macro2::Span) -> (u32, String) {
    if proc_macro::is_available() {
        let s = span.unwrap();
        (s.line() as u32, s.file())
    } else {
        (0, "<unknown>".to_string())
    }
}
