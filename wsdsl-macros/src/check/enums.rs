//! Enums with data: building a variant (`Shape::Rect(w, h)`, `Shape::Rect { w, h }`,
//! `Shape::Empty`) and taking one apart in patterns (`match`, `if let`, `while let`). The C
//! side is a tagged union (`parse/model/enums.rs`); a field-less enum stays a `u32`.

use super::*;
use crate::parse::model::{EnumDef, Variant};

impl Cx<'_> {
    fn variant_of<'m>(&mut self, en: &'m EnumDef, name: &str, at: &dyn quote::ToTokens) -> Option<&'m Variant> {
        let v = en.variant(name);
        if v.is_none() {
            self.errors.push(syn::Error::new_spanned(at, format!("no variant `{name}` in enum `{}`", en.name)));
        }
        v
    }

    /// `E::V` of an enum with data, `V` a unit variant.
    pub(super) fn enum_unit(&mut self, p: &syn::ExprPath, e: &str, v: &str) -> Expr {
        let m = self.m;
        let Some(en) = m.enum_def(e) else { return err_expr() };
        let Some(var) = self.variant_of(en, v, p) else { return err_expr() };
        if !var.fields.is_empty() {
            let how = if var.named { format!("`{e}::{v} {{ .. }}`") } else { format!("`{e}::{v}(..)`") };
            self.err_at(p, format!("`{e}::{v}` has fields: build it as {how} (a variant is not a function value on the GPU)"));
            return err_expr();
        }
        ex(Ty::Enum(e.into()), ExprKind::EnumLit(e.into(), var.disc, v.into(), Vec::new()))
    }

    /// `E::V(a, b)`.
    pub(super) fn enum_call(&mut self, c: &syn::ExprCall, e: &str, v: &str) -> Expr {
        let m = self.m;
        let Some(en) = m.enum_def(e) else { return err_expr() };
        let Some(var) = self.variant_of(en, v, &c.func) else { return err_expr() };
        if var.named || var.fields.len() != c.args.len() {
            let msg = if var.named {
                format!("`{e}::{v}` has named fields: write `{e}::{v} {{ .. }}`")
            } else {
                format!("`{e}::{v}` takes {} value(s) but {} were supplied", var.fields.len(), c.args.len())
            };
            self.err(c.span(), msg);
            return err_expr();
        }
        let mut fields = Vec::new();
        for (f, a) in var.fields.iter().zip(&c.args) {
            let x = self.expr(a);
            self.not_stored(&x, a);
            self.expect_at(a, &f.ty, &x.ty);
            fields.push((f.c_member(), x));
        }
        ex(Ty::Enum(e.into()), ExprKind::EnumLit(e.into(), var.disc, v.into(), fields))
    }

    /// `E::V { a: x, b }`.
    pub(super) fn enum_struct_lit(&mut self, s: &syn::ExprStruct, e: &str, v: &str) -> Expr {
        let m = self.m;
        let Some(en) = m.enum_def(e) else { return err_expr() };
        let Some(var) = self.variant_of(en, v, &s.path) else { return err_expr() };
        if let Some(r) = &s.rest {
            self.err_at(&r, "struct update syntax `..base` is not supported; list every field");
        }
        let mut fields: Vec<(String, Expr)> = Vec::new();
        for fv in &s.fields {
            let name = match &fv.member {
                syn::Member::Named(n) => n.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            let x = self.expr(&fv.expr);
            self.not_stored(&x, &fv.expr);
            let Some(f) = var.fields.iter().find(|f| f.name == name) else {
                self.err_at(&fv.member, format!("variant `{e}::{v}` has no field named `{name}`"));
                continue;
            };
            self.expect_at(&fv.expr, &f.ty, &x.ty);
            if fields.iter().any(|(m, _)| *m == f.c_member()) {
                self.err_at(&fv.member, format!("field `{name}` specified more than once"));
                continue;
            }
            fields.push((f.c_member(), x));
        }
        let missing: Vec<&str> = var.fields.iter().filter(|f| !fields.iter().any(|(m, _)| *m == f.c_member())).map(|f| f.name.as_str()).collect();
        if !missing.is_empty() {
            self.err(s.span(), format!("missing fields in `{e}::{v}`: {}", missing.join(", ")));
        }
        ex(Ty::Enum(e.into()), ExprKind::EnumLit(e.into(), var.disc, v.into(), fields))
    }

    /// A pattern naming a variant of an enum with data: `E::V`, `E::V(p, ..)`,
    /// `E::V { a, b: p, .. }`. `None` when `p` is not such a pattern.
    pub(super) fn enum_pattern(&mut self, p: &syn::Pat, ty: &Ty) -> Option<Pat> {
        let path = match p {
            syn::Pat::Path(pp) => &pp.path,
            syn::Pat::TupleStruct(ts) => &ts.path,
            syn::Pat::Struct(ps) => &ps.path,
            _ => return None,
        };
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let [e, v] = &segs[..] else { return None };
        let m = self.m;
        let en = m.enum_def(e).filter(|en| en.has_data())?;
        let Some(var) = self.variant_of(en, v, path) else { return Some(Pat::Wild) };
        if self.sh.infer.unify(ty, &Ty::Enum(e.clone())).is_err() {
            return Some(self.pat_mismatch(path, ty, e));
        }
        let mut fields = Vec::new();
        match p {
            syn::Pat::Path(_) if var.fields.is_empty() => {}
            syn::Pat::TupleStruct(ts) if !var.named => {
                // `..` stands for the fields it skips.
                let rest = ts.elems.iter().position(|q| matches!(q, syn::Pat::Rest(_)));
                let given = ts.elems.len() - rest.is_some() as usize;
                if given > var.fields.len() || (rest.is_none() && given != var.fields.len()) {
                    let msg = format!("this pattern has {given} field(s), but `{e}::{v}` has {}", var.fields.len());
                    self.err_at(ts, msg);
                    return Some(self.pat_recovered(ts.elems.iter()));
                }
                let skipped = var.fields.len() - given;
                let mut i = 0;
                for q in &ts.elems {
                    if matches!(q, syn::Pat::Rest(_)) {
                        i += skipped;
                        continue;
                    }
                    let f = &var.fields[i];
                    let sub = self.pattern(q, &f.ty);
                    fields.push((f.c_member(), f.ty.clone(), sub));
                    i += 1;
                }
            }
            syn::Pat::Struct(ps) => {
                for fp in &ps.fields {
                    let name = match &fp.member {
                        syn::Member::Named(n) => n.to_string(),
                        syn::Member::Unnamed(i) => i.index.to_string(),
                    };
                    let Some(f) = var.fields.iter().find(|f| f.name == name) else {
                        self.err_at(&fp.member, format!("variant `{e}::{v}` has no field named `{name}`"));
                        continue;
                    };
                    let sub = self.pattern(&fp.pat, &f.ty);
                    fields.push((f.c_member(), f.ty.clone(), sub));
                }
                if ps.rest.is_none() && fields.len() < var.fields.len() {
                    self.err_at(ps, format!("pattern does not mention every field of `{e}::{v}`; add `..` to ignore the rest"));
                }
            }
            _ => {
                let how = match (var.fields.is_empty(), var.named) {
                    (true, _) => format!("`{e}::{v}`"),
                    (false, true) => format!("`{e}::{v} {{ .. }}`"),
                    (false, false) => format!("`{e}::{v}(..)`"),
                };
                self.err_at(p, format!("`{e}::{v}` is matched as {how}"));
                let subs: Vec<&syn::Pat> = match p {
                    syn::Pat::TupleStruct(ts) => ts.elems.iter().collect(),
                    syn::Pat::Struct(ps) => ps.fields.iter().map(|f| &*f.pat).collect(),
                    _ => Vec::new(),
                };
                return Some(self.pat_recovered(subs.into_iter()));
            }
        }
        Some(Pat::EnumData { tag: var.disc, variant: v.clone(), fields })
    }

    /// After a reported mistake in a pattern: its names still bind (to values of no type), so
    /// that the arm's body gives no second error about them.
    fn pat_recovered<'p>(&mut self, subs: impl Iterator<Item = &'p syn::Pat>) -> Pat {
        for q in subs {
            self.pattern(q, &Ty::Err);
        }
        Pat::Wild
    }
}
