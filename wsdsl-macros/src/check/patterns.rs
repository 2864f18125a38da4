//! Patterns of `match`, `if let` and `while let`: literals and ranges of integers (also named
//! by `T::MIN`/`T::MAX` and integer consts), `bool` literals, names, `_`, `|`, tuples and
//! `Some`/`None`. Enum variants are in `enums.rs`, `Ordering`'s in `ordering.rs`, `Ok`/`Err`
//! in `results.rs`.

use super::*;

impl<'a> Cx<'a> {
    pub(super) fn pattern(&mut self, p: &syn::Pat, ty: &Ty) -> Pat {
        crate::depth::with_room(|| self.typed_pattern(p, ty))
    }

    fn typed_pattern(&mut self, p: &syn::Pat, ty: &Ty) -> Pat {
        use syn::Pat as P;
        if let Some(pat) = self.enum_pattern(p, ty) {
            return pat;
        }
        if let syn::Pat::TupleStruct(ts) = p {
            if let Some(pat) = self.result_pattern(ts, ty) {
                return pat;
            }
        }
        let rt = self.resolve(ty);
        match p {
            P::Wild(_) => Pat::Wild,
            P::Paren(pp) => self.pattern(&pp.pat, ty),
            P::Or(o) => {
                let n = self.locals.len();
                let alts = o.cases.iter().map(|c| self.pattern(c, ty)).collect();
                if self.locals.len() != n {
                    self.err_at(&o, "bindings inside `|` patterns are not supported yet; bind the whole value with a name arm instead");
                }
                Pat::Or(alts)
            }
            P::Lit(l) if matches!(l.lit, syn::Lit::Bool(_)) => {
                let syn::Lit::Bool(b) = &l.lit else { unreachable!() };
                if self.sh.infer.unify(ty, &Ty::Bool).is_err() {
                    return self.pat_mismatch(l, ty, "bool");
                }
                Pat::Bool(b.value)
            }
            P::Lit(_) | P::Path(_) if self.pat_enum_or_none(p, ty).is_some() => self.pat_enum_or_none(p, ty).unwrap(),
            P::Lit(_) | P::Path(_) => {
                let e: syn::Expr = match p {
                    P::Lit(l) => syn::Expr::Lit(l.clone()),
                    P::Path(pp) => syn::Expr::Path(pp.clone()),
                    _ => unreachable!(),
                };
                match self.pat_int(&e, ty) {
                    Some(v) => Pat::Range(v, v),
                    None => Pat::Wild,
                }
            }
            P::Range(r) => {
                let int = match rt {
                    Ty::Int(t) => Some(t),
                    _ => None,
                };
                let lo = match &r.start {
                    Some(e) => self.pat_int(e, ty),
                    None => int.map(|t| t.min()),
                };
                let hi = match &r.end {
                    Some(e) => self.pat_int(e, ty).map(|v| if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) { v - 1 } else { v }),
                    None => int.map(|t| t.max()),
                };
                match (lo, hi) {
                    (Some(lo), Some(hi)) => Pat::Range(lo, hi),
                    _ => {
                        if r.start.is_none() || r.end.is_none() {
                            self.err_at(&r, "open range patterns need a known integer type; write both bounds");
                        }
                        Pat::Wild
                    }
                }
            }
            P::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let name = pi.ident.to_string();
                if name == "None" {
                    return match rt {
                        Ty::Option(_) => Pat::None,
                        _ => self.pat_mismatch(pi, ty, "Option<_>"),
                    };
                }
                if let Some(f) = self.m.func(&name).filter(|f| f.kind == FnKind::Const) {
                    let e: syn::Expr = syn::parse_quote!(#pi);
                    let _ = f;
                    return match self.pat_int(&e, ty) {
                        Some(v) => Pat::Range(v, v),
                        None => Pat::Wild,
                    };
                }
                Pat::Bind(self.new_local(&name, ty.clone()))
            }
            P::TupleStruct(ts) if ts.path.is_ident("Some") && ts.elems.len() == 1 => match rt {
                Ty::Option(inner) => Pat::Some(Box::new(self.pattern(&ts.elems[0], &inner))),
                _ => self.pat_mismatch(ts, ty, "Option<_>"),
            },
            P::Tuple(t) => match rt {
                Ty::Tuple(ts) if ts.len() == t.elems.len() => {
                    Pat::Tuple(t.elems.iter().zip(ts.iter()).map(|(p, et)| self.pattern(p, et)).collect())
                }
                _ => self.pat_mismatch(t, ty, &format!("a tuple of {}", t.elems.len())),
            },
            other => {
                self.err_at(other, "this pattern is not supported; use integer or bool literals, ranges `a..=b`, `_`, names, `|`, enum variants `E::V`, `Some(x)` / `None` and tuples");
                Pat::Wild
            }
        }
    }

    pub(super) fn pat_mismatch(&mut self, at: &dyn quote::ToTokens, ty: &Ty, found: &str) -> Pat {
        if !matches!(self.resolve(ty), Ty::Err) {
            let msg = format!("mismatched types: this pattern matches `{found}`, but the value has type `{}`", self.show(ty));
            self.errors.push(syn::Error::new_spanned(at, msg));
        }
        Pat::Wild
    }

    /// `Enum::Variant`, `Ordering::Less` or `None` as a pattern.
    fn pat_enum_or_none(&mut self, p: &syn::Pat, ty: &Ty) -> Option<Pat> {
        let syn::Pat::Path(pp) = p else { return None };
        if let Some(pat) = self.ordering_pattern(pp, ty) {
            return Some(pat);
        }
        let segs: Vec<String> = pp.path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() == 1 && segs[0] == "None" {
            return Some(match self.resolve(ty) {
                Ty::Option(_) => Pat::None,
                _ => self.pat_mismatch(pp, ty, "Option<_>"),
            });
        }
        if segs.len() != 2 {
            return None;
        }
        let en = self.m.enum_def(&segs[0])?;
        let d = en.variant(&segs[1]).map(|v| v.disc);
        let Some(d) = d else {
            self.err_at(pp, format!("no variant `{}` in enum `{}`", segs[1], segs[0]));
            return Some(Pat::Wild);
        };
        if self.sh.infer.unify(ty, &Ty::Enum(segs[0].clone())).is_err() {
            return Some(self.pat_mismatch(pp, ty, &segs[0]));
        }
        Some(Pat::Variant(d))
    }

    /// The value of an integer pattern bound (literal, `T::MIN`/`T::MAX`, integer const).
    fn pat_int(&mut self, e: &syn::Expr, ty: &Ty) -> Option<i128> {
        let (v, t) = match peel(e) {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(l), .. }) => {
                let v = match l.base10_parse::<i128>() {
                    Ok(v) => v,
                    Err(err) => {
                        self.errors.push(err);
                        return None;
                    }
                };
                let t = match l.suffix() {
                    "" => self.sh.infer.fresh(VarKind::Int),
                    s => match IntTy::from_name(s) {
                        Some(t) => Ty::Int(t),
                        None => {
                            self.err_at(l, format!("unsupported literal suffix `{s}`"));
                            return None;
                        }
                    },
                };
                (v, t)
            }
            syn::Expr::Path(p) => {
                let x = self.path(p);
                let ExprKind::Int(bits) = x.kind else {
                    self.err_at(p, "range and literal patterns take integer literals, `T::MIN`/`T::MAX` or integer consts of this module");
                    return None;
                };
                let v = match self.resolve(&x.ty) {
                    Ty::Int(t) if t.signed() => {
                        let sh = 128 - t.bits();
                        ((bits as i128) << sh) >> sh
                    }
                    _ => bits as i128,
                };
                (v, x.ty)
            }
            syn::Expr::Call(_) | syn::Expr::MethodCall(_) | syn::Expr::Const(_) | _ => {
                self.err_at(e, "range and literal patterns take integer literals, `T::MIN`/`T::MAX` or integer consts of this module");
                return None;
            }
        };
        if self.sh.infer.unify(ty, &t).is_err() {
            let found = self.show(&t);
            self.pat_mismatch(e, ty, &found);
            return None;
        }
        if let Ty::Int(it) = self.resolve(ty) {
            if v < it.min() || v > it.max() {
                self.err_at(e, format!("literal out of range for `{}` (its range is {}..={})", it.name(), it.min(), it.max()));
                return None;
            }
        }
        Some(v)
    }
}
