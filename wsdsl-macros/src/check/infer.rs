//! Unification of unsuffixed literals with the types around them, as rustc does for this
//! subset: `{integer}` variables become the type they meet, or `i32` if they meet none;
//! `{float}` variables likewise default to `f64`. A `_` variable (the value type of a `None`)
//! becomes whatever type it meets.

use crate::types::{rust_name, FloatTy, IntTy, Ty};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum VarKind {
    Int,
    Float,
    /// Any type: `None`'s value type until the context says.
    Any,
}

#[derive(Default)]
pub struct Infer {
    vars: Vec<(VarKind, Option<Ty>)>,
}

impl Infer {
    pub fn fresh(&mut self, kind: VarKind) -> Ty {
        self.vars.push((kind, None));
        Ty::Var(self.vars.len() as u32 - 1)
    }

    pub fn var_kind(&self, ty: &Ty) -> Option<VarKind> {
        match self.shallow(ty) {
            Ty::Var(v) => Some(self.vars[v as usize].0),
            _ => None,
        }
    }

    pub fn shallow(&self, ty: &Ty) -> Ty {
        let mut t = ty.clone();
        while let Ty::Var(v) = t {
            match &self.vars[v as usize].1 {
                Some(b) => t = b.clone(),
                None => return t,
            }
        }
        t
    }

    pub fn resolve(&self, ty: &Ty) -> Ty {
        match self.shallow(ty) {
            Ty::Array(e, n) => Ty::Array(Box::new(self.resolve(&e)), n),
            Ty::Ref(e, m) => Ty::Ref(Box::new(self.resolve(&e)), m),
            Ty::Slice(e, m) => Ty::Slice(Box::new(self.resolve(&e)), m),
            // Deep, so that tuples and options built by iterator adaptors (`enumerate`, `zip`,
            // `max`) name their resolved element types.
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|t| self.resolve(t)).collect()),
            Ty::Option(e) => Ty::Option(Box::new(self.resolve(&e))),
            t => t,
        }
    }

    pub fn display(&self, ty: &Ty) -> String {
        match self.resolve(ty) {
            Ty::Var(v) => match self.vars[v as usize].0 {
                VarKind::Int => "{integer}".into(),
                VarKind::Float => "{float}".into(),
                VarKind::Any => "_".into(),
            },
            t => rust_name(&t),
        }
    }

    /// Makes `a` and `b` equal; `Err(())` on a mismatch (the caller reports it).
    pub fn unify(&mut self, a: &Ty, b: &Ty) -> Result<(), ()> {
        let (a, b) = (self.shallow(a), self.shallow(b));
        match (&a, &b) {
            (Ty::Err, _) | (_, Ty::Err) | (Ty::Never, _) | (_, Ty::Never) => Ok(()),
            (Ty::Var(x), Ty::Var(y)) => {
                if x == y {
                    return Ok(());
                }
                let (kx, ky) = (self.vars[*x as usize].0, self.vars[*y as usize].0);
                if kx == VarKind::Any || kx == ky {
                    self.vars[*x as usize].1 = Some(b.clone());
                } else if ky == VarKind::Any {
                    self.vars[*y as usize].1 = Some(a.clone());
                } else {
                    return Err(());
                }
                Ok(())
            }
            (Ty::Var(x), t) | (t, Ty::Var(x)) => {
                let ok = match self.vars[*x as usize].0 {
                    VarKind::Int => matches!(t, Ty::Int(_)),
                    VarKind::Float => matches!(t, Ty::Float(_)),
                    // No occurs check needed: only `None` makes these, and nothing builds an
                    // `Option` of its own value type.
                    VarKind::Any => true,
                };
                if !ok {
                    return Err(());
                }
                self.vars[*x as usize].1 = Some(t.clone());
                Ok(())
            }
            (Ty::Array(e1, n1), Ty::Array(e2, n2)) => {
                if n1 != n2 {
                    return Err(());
                }
                let (e1, e2) = (e1.clone(), e2.clone());
                self.unify(&e1, &e2)
            }
            (Ty::Ref(e1, m1), Ty::Ref(e2, m2)) | (Ty::Slice(e1, m1), Ty::Slice(e2, m2)) if m1 == m2 => {
                let (e1, e2) = (e1.clone(), e2.clone());
                self.unify(&e1, &e2)
            }
            (Ty::Tuple(x), Ty::Tuple(y)) if x.len() == y.len() => {
                let (x, y) = (x.clone(), y.clone());
                x.iter().zip(&y).try_for_each(|(p, q)| self.unify(p, q))
            }
            (Ty::Option(x), Ty::Option(y)) => {
                let (x, y) = (x.clone(), y.clone());
                self.unify(&x, &y)
            }
            _ if a == b => Ok(()),
            _ => Err(()),
        }
    }

    /// Applies rustc's fallbacks to every variable still open.
    pub fn finish(&mut self) {
        for v in &mut self.vars {
            if v.1.is_none() {
                v.1 = Some(match v.0 {
                    VarKind::Int => Ty::Int(IntTy::I32),
                    VarKind::Float => Ty::Float(FloatTy::F64),
                    // rustc rejects a `None` whose type nothing fixes ("type annotations
                    // needed"); any C type will do until then.
                    VarKind::Any => Ty::Int(IntTy::I32),
                });
            }
        }
    }
}
