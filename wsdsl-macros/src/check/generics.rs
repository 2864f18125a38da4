//! Generic helpers, `fn f<T: Copy + ...>(x: T) -> T`, monomorphised: each distinct list of
//! type arguments gets its own copy of the helper, named `f__u32` (`f__u32__u64` for two),
//! checked and lowered like any helper. A copy is the helper's tokens with every type
//! parameter replaced by the type (at the parameter's spans, so `#line` and messages still
//! point into the generic source); rustc has already checked the bounds.
//!
//! A helper that takes a closure (`fn apply<F: Fn(u32) -> u32>(f: F, x: u32)`) cannot be
//! compiled once per closure type without function values, so it is inlined at each call
//! instead, like the closure itself (`closures.rs`).
//!
//! The type arguments come from a turbofish (`f::<u64>(x)`) or from the arguments' types.
//! They must be known at the call: one inferred only from an unsuffixed literal (`f(3)`)
//! would need rustc's inference across the whole function, and is an error asking for a
//! suffix or a turbofish.

use super::*;
use crate::parse::model::FnRole;
use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;

/// Replaces every identifier named in `map` with its tokens, at the identifier's span.
fn substitute(ts: TokenStream, map: &[(String, TokenStream)]) -> TokenStream {
    ts.into_iter()
        .flat_map(|t| -> Vec<TokenTree> {
            match t {
                TokenTree::Ident(i) => match map.iter().find(|(n, _)| i == n) {
                    Some((_, rep)) => rep
                        .clone()
                        .into_iter()
                        .map(|mut r| {
                            r.set_span(i.span());
                            r
                        })
                        .collect(),
                    None => vec![TokenTree::Ident(i)],
                },
                TokenTree::Group(g) => {
                    let mut n = proc_macro2::Group::new(g.delimiter(), substitute(g.stream(), map));
                    n.set_span(g.span());
                    vec![TokenTree::Group(n)]
                }
                other => vec![other],
            }
        })
        .collect()
}

/// The type parameters of `f` bounded by `Fn`, `FnMut` or `FnOnce` (closure parameters).
fn closure_params(f: &syn::ItemFn) -> Vec<String> {
    let is_fn = |b: &syn::TypeParamBound| {
        matches!(b, syn::TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s| s.ident == "Fn" || s.ident == "FnMut" || s.ident == "FnOnce"))
    };
    let mut out: Vec<String> = f.sig.generics.type_params().filter(|t| t.bounds.iter().any(is_fn)).map(|t| t.ident.to_string()).collect();
    if let Some(w) = &f.sig.generics.where_clause {
        for p in &w.predicates {
            if let syn::WherePredicate::Type(pt) = p {
                if pt.bounds.iter().any(is_fn) {
                    out.push(pt.bounded_ty.to_token_stream().to_string());
                }
            }
        }
    }
    out
}

impl Cx<'_> {
    /// Matches a parameter's written type against its argument's type, recording what each
    /// type parameter stands for.
    fn infer_tparams(&mut self, written: &syn::Type, found: &Ty, tps: &[syn::Ident], subst: &mut [Option<Ty>]) {
        match written {
            syn::Type::Paren(p) => self.infer_tparams(&p.elem, found, tps, subst),
            syn::Type::Path(p) if p.qself.is_none() => {
                let Some(id) = p.path.get_ident() else { return };
                let Some(i) = tps.iter().position(|t| t == id) else { return };
                match &subst[i] {
                    None => subst[i] = Some(found.clone()),
                    Some(t) => {
                        let t = t.clone();
                        let _ = self.sh.infer.unify(&t, found);
                    }
                }
            }
            syn::Type::Array(a) => {
                if let Ty::Array(e, _) = self.resolve(found) {
                    self.infer_tparams(&a.elem, &e, tps, subst);
                }
            }
            // `&P` takes a reference, or the handler's task (a `&Task` in Rust); `&[P]` a
            // slice, or a reference to an array.
            syn::Type::Reference(r) => match self.resolve(found) {
                Ty::Ref(e, _) => self.infer_tparams(&r.elem, &e, tps, subst),
                t => self.infer_tparams(&r.elem, &t, tps, subst),
            },
            syn::Type::Slice(s) => {
                if let Ty::Slice(e, _) | Ty::Array(e, _) = self.resolve(found) {
                    self.infer_tparams(&s.elem, &e, tps, subst);
                }
            }
            syn::Type::Tuple(t) => {
                if let Ty::Tuple(es) = self.resolve(found) {
                    for (w, e) in t.elems.iter().zip(&es) {
                        self.infer_tparams(w, e, tps, subst);
                    }
                }
            }
            _ => {}
        }
    }

    /// A call of the generic helper `name`.
    pub(super) fn call_generic(&mut self, c: &syn::ExprCall, name: &str) -> Expr {
        let f = self.m.func(name).expect("a generic helper");
        let (item, tps) = (f.item.clone(), f.generics.clone());
        let span = c.span();
        let inputs: Vec<&syn::PatType> = item
            .sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(pt) => Some(pt),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        if inputs.len() != c.args.len() {
            self.err(span, format!("`{name}` takes {} argument(s) but {} were supplied", inputs.len(), c.args.len()));
            return err_expr();
        }
        let mut subst: Vec<Option<Ty>> = vec![None; tps.len()];
        if let syn::Expr::Path(p) = peel(&c.func) {
            if let syn::PathArguments::AngleBracketed(ab) = &p.path.segments.last().unwrap().arguments {
                for (i, a) in ab.args.iter().enumerate() {
                    match (a, tps.get(i)) {
                        (syn::GenericArgument::Type(t), Some(_)) => match self.parse_type(t) {
                            Ok(t) => subst[i] = Some(t),
                            Err(e) => self.errors.push(e),
                        },
                        _ => self.err_at(a, format!("`{name}` takes {} type argument(s)", tps.len())),
                    }
                }
            }
        }
        let fn_params = closure_params(&item);
        // The arguments, in order: values, or closures for the `F: Fn(..)` parameters.
        let mut args: Vec<Result<Expr, Rc<ClosureDef>>> = Vec::new();
        for (a, p) in c.args.iter().zip(&inputs) {
            let written = p.ty.to_token_stream().to_string();
            if fn_params.contains(&written) {
                let def = match peel(a) {
                    syn::Expr::Closure(cl) => Some(Rc::new(self.closure_here(cl))),
                    syn::Expr::Path(pp) => match pp.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                        Some(Bind::Closure(d)) => Some(d),
                        _ => None,
                    },
                    _ => None,
                };
                match def {
                    Some(d) => args.push(Err(d)),
                    None => {
                        self.err_at(a, "pass a closure here (`|x| x + 1`, or a closure bound with `let`); a helper function is passed as `|x| helper(x)`");
                        return err_expr();
                    }
                }
                continue;
            }
            let x = self.expr(a);
            self.infer_tparams(&p.ty, &x.ty.clone(), &tps, &mut subst);
            args.push(Ok(x));
        }
        // Every type argument known, and known now (not a literal's open type).
        let mut tys = Vec::new();
        let mut map = Vec::new();
        for (t, s) in tps.iter().zip(&subst) {
            if fn_params.contains(&t.to_string()) {
                continue;
            }
            let resolved = s.as_ref().map(|s| self.resolve(s));
            match resolved {
                Some(Ty::Var(_)) | None => {
                    let hint = match resolved {
                        Some(_) => "comes from an unsuffixed literal only",
                        None => "is not given by any argument",
                    };
                    self.err(span, format!("the type `{t}` of this call of `{name}` {hint}; give it: a suffix (`3u32`), or a turbofish `{name}::<u32>(..)`"));
                    return err_expr();
                }
                Some(Ty::Err) => return err_expr(),
                Some(ty) => {
                    let tokens: TokenStream = crate::types::rust_name(&ty).parse().expect("a Rust type");
                    map.push((t.to_string(), tokens));
                    tys.push(ty);
                }
            }
        }
        let mut inst: syn::ItemFn = match syn::parse2(substitute(item.to_token_stream(), &map)) {
            Ok(i) => i,
            Err(e) => {
                self.errors.push(e);
                return err_expr();
            }
        };
        if fn_params.is_empty() {
            let args = args.into_iter().map(|a| a.unwrap_or_else(|_| err_expr())).collect();
            return self.call_instance(inst, name, &tys, args, c);
        }
        inst.sig.generics = syn::Generics::default();
        self.inline_helper(&inst, args, span)
    }

    /// A call of the instance of `name` for `tys`, checked first if it is new.
    fn call_instance(&mut self, mut inst: syn::ItemFn, name: &str, tys: &[Ty], args: Vec<Expr>, c: &syn::ExprCall) -> Expr {
        // The instance's name is an identifier (it names the instance's `ItemFn`): the types'
        // C spellings are ASCII identifiers, and a raw name goes without its `r#`
        // (`r#match__u32` is no identifier).
        let bare: Vec<&str> = name.split("::").map(crate::names::unraw).collect();
        let mangled = format!("{}__{}", bare.join("::"), tys.iter().map(crate::types::mangle).collect::<Vec<_>>().join("__"));
        inst.sig.generics = syn::Generics::default();
        inst.sig.ident = syn::Ident::new(&mangled, inst.sig.ident.span());
        if !self.sh.instantiating.iter().any(|(n, _, _)| *n == mangled) {
            let Some(def) = crate::parse::model::parse_fn(FnRole::Helper, inst, None, &self.value_structs, &self.m.type_names, &self.m.structs, self.errors) else {
                return err_expr();
            };
            let signature = (mangled.clone(), def.params.iter().map(|p| p.ty.clone()).collect(), def.ret.clone());
            self.sh.instantiating.push(signature);
            let body = check_fn(self.m, self.sh, self.errors, &self.value_structs, &def);
            self.sh.instances.push((def, body));
        }
        // Known before its body is checked, so a recursive call inside it has its types.
        let Some((_, params, ret)) = self.sh.instantiating.iter().find(|(n, _, _)| *n == mangled).cloned() else { return err_expr() };
        let args = params.iter().zip(args).zip(&c.args).map(|((p, a), s)| self.coerce_arg(s.span(), p, a)).collect();
        self.calls.push((mangled.clone(), c.func.span()));
        ex(ret, ExprKind::Call(mangled, args))
    }

    /// A helper that takes closures, its body inlined at the call: it sees its parameters
    /// only (bound to the arguments, closures to the closures passed).
    fn inline_helper(&mut self, f: &syn::ItemFn, args: Vec<Result<Expr, Rc<ClosureDef>>>, at: Span) -> Expr {
        let ret = match &f.sig.output {
            syn::ReturnType::Default => Ty::Unit,
            syn::ReturnType::Type(_, t) => match self.parse_type(t) {
                Ok(t) => t,
                Err(e) => {
                    self.errors.push(e);
                    return err_expr();
                }
            },
        };
        let saved = std::mem::replace(&mut self.scopes, vec![Vec::new()]);
        let mut stmts = Vec::new();
        for (input, a) in f.sig.inputs.iter().zip(args) {
            let syn::FnArg::Typed(pt) = input else { continue };
            match a {
                Err(def) => {
                    let syn::Pat::Ident(pi) = &*pt.pat else {
                        self.err_at(&pt.pat, "name the closure parameter: `f: F`");
                        continue;
                    };
                    self.scopes.last_mut().unwrap().push((pi.ident.to_string(), Bind::Closure(def)));
                }
                Ok(x) => {
                    let ty = match self.parse_local_type(&pt.ty) {
                        Ok(t) => {
                            self.expect_at(&pt.ty, &t, &x.ty);
                            t
                        }
                        Err(e) => {
                            self.errors.push(e);
                            Ty::Err
                        }
                    };
                    let syn::Pat::Ident(pi) = &*pt.pat else { continue };
                    if ty == Ty::Ctx {
                        self.scopes.last_mut().unwrap().push((pi.ident.to_string(), Bind::Ctx));
                        continue;
                    }
                    // A copy: the helper may assign its parameter.
                    let (line, file) = loc(pt.span());
                    let id = self.new_local(&pi.ident.to_string(), x.ty.clone());
                    stmts.push(Stmt { line, file, kind: StmtKind::Let(id, Some(x)) });
                }
            }
        }
        let block = &f.block;
        let body = self.inlined_body(
            |cx| {
                let b = cx.block(block);
                ex(b.ty.clone(), ExprKind::Block(b))
            },
            Some(ret.clone()),
            at,
        );
        self.scopes = saved;
        ex(ret.clone(), ExprKind::Block(Block { stmts, tail: Some(Box::new(body)), ty: ret }))
    }
}
