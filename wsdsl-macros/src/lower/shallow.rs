//! C that the CUDA compiler can take: an expression nested deeper than `MAX_C_PARENS`
//! parentheses is saved in a temporary, so a sum of 5,000 terms becomes a few dozen
//! statements instead of one expression 30,000 parentheses deep. Both compilers recurse on
//! expression nesting: NVRTC 13 crashes (SIGSEGV, in the process that compiles) at about
//! 1,200 levels on a 2 MiB thread, and GCC's time grows with its square (7 s at 7,000 levels).
//! Nested blocks cost neither compiler much (1,000 deep compile in under a second), so they
//! stay; only their indentation stops growing (`indent` in `mod.rs`).

use super::FnLower;
use crate::ir::{Expr, ExprKind};
use crate::types::Ty;

/// Parentheses an expression may nest before it is saved in a temporary: fifteen times the
/// deepest C of the examples (17, UTS's), a fifth of what NVRTC takes on a 2 MiB stack.
const MAX_C_PARENS: usize = 256;

/// The deepest nesting of parentheses in `c`.
pub fn paren_depth(c: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for b in c.bytes() {
        match b {
            b'(' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

impl FnLower<'_> {
    /// `v`, the C of `e`, or a temporary holding it when it nests too deep. Only values
    /// computed by an operator or a call move (a place such as a field stays where it is, so
    /// that writes through it still reach it); the temporary is set where `v` would be
    /// evaluated, after `out`, which is what every caller of `expr` assumes.
    pub(super) fn shallow(&mut self, e: &Expr, v: String, out: &mut Vec<String>) -> String {
        // A string shorter than the limit cannot nest deeper: most values end here.
        if v.len() <= MAX_C_PARENS {
            return v;
        }
        let computed = matches!(
            e.kind,
            ExprKind::Unary(..) | ExprKind::Binary(..) | ExprKind::And(..) | ExprKind::Or(..) | ExprKind::Cast(..) | ExprKind::Call(..) | ExprKind::Method(..)
        );
        let ty = self.ty(&e.ty);
        if !computed || !matches!(ty, Ty::Int(_) | Ty::Float(_) | Ty::Bool) || paren_depth(&v) <= MAX_C_PARENS {
            return v;
        }
        let (t, cty) = (self.fresh(), self.cty(&ty));
        out.push(format!("{cty} {t} = {v};"));
        t
    }
}
