//! Function and method calls. A call is dispatched on what its path names (an integer type's
//! function, a conversion, `Some`, an enum variant with data, a generic helper, a trait's
//! function, a standard library function, a closure or a function of the module), a method
//! call on its receiver (the context, a part of it, an iterator chain, a number, an array or
//! slice, an `Option`, a `Result`, an `Ordering`, a struct or enum of the module); the
//! signatures of the number methods without a file of their own are here.

use super::*;

impl<'a> Cx<'a> {
    pub(super) fn call(&mut self, c: &syn::ExprCall) -> Expr {
        let span = c.span();
        if let syn::Expr::Path(p) = peel(&c.func) {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            if segs.len() == 2 {
                if let (Some(t), Some(&(_, m))) = (IntTy::from_name(&segs[0]), INT_FUNCTIONS.iter().find(|(n, _)| *n == segs[1])) {
                    if c.args.len() != 1 {
                        self.err(span, format!("`{}::{}` takes 1 argument", segs[0], segs[1]));
                        return err_expr();
                    }
                    let a = self.expr(&c.args[0]);
                    self.expect_at(&c.args[0], &Ty::Int(t), &a.ty);
                    return ex(Ty::Int(t), ExprKind::Method(m, Box::new(a), Vec::new()));
                }
            }
            if segs.len() == 2 && segs[1] == "from" && !self.m.is_named_type(&segs[0]) {
                if let Some(target) = crate::types::numeric_ty(&segs[0]) {
                    return self.from_conversion(c, target);
                }
            }
            if segs.len() == 1 && segs[0] == "Some" && self.lookup("Some").is_none() {
                if c.args.len() != 1 {
                    self.err(span, "`Some` takes 1 argument");
                    return err_expr();
                }
                let v = self.expr(&c.args[0]);
                self.not_stored(&v, &c.args[0]);
                return self.some_value(v);
            }
            if segs.len() == 1 && (segs[0] == "Ok" || segs[0] == "Err") {
                self.err_at(&c.func, "`Result` is not supported in megakernel code; return an `Option` (and use `?`), or panic with `assert!`/`expect`");
                return err_expr();
            }
            if segs.len() == 2 && self.m.enum_def(&segs[0]).is_some_and(|e| e.has_data()) {
                return self.enum_call(c, &segs[0], &segs[1]);
            }
        }
        // `f::<u64>(..)`: a generic helper with its type arguments (`generics.rs`).
        if let syn::Expr::Path(p) = peel(&c.func) {
            if p.qself.is_none() && p.path.segments.len() == 1 {
                let name = p.path.segments[0].ident.to_string();
                if self.m.func(&name).is_some_and(|f| !f.generics.is_empty()) {
                    return self.call_generic(c, &name);
                }
            }
        }
        if let Some(e) = self.trait_call(c) {
            return e;
        }
        if let Some(rewritten) = std_call(c) {
            return self.expr(&rewritten);
        }
        let Some(key) = self.callee_key(&c.func) else { return err_expr() };
        if let Some(Bind::Closure(def)) = self.lookup(&key) {
            let args = c.args.iter().map(|a| closures::Elem::Val(self.expr(a), false)).collect();
            return self.inline_named(&key, &def, args, span);
        }
        self.call_named(c, key)
    }

    pub(super) fn method_call(&mut self, mc: &syn::ExprMethodCall) -> Expr {
        let span = mc.span();
        let method = mc.method.to_string();
        if let (syn::Expr::Range(r), "contains") = (peel(&mc.receiver), method.as_str()) {
            return self.range_contains(r, mc);
        }
        if let Some(e) = self.iterator_method(mc) {
            return e;
        }
        if let Some(t) = &mc.turbofish {
            self.err_at(&t, "turbofish `::<...>` is not supported");
        }
        if self.is_ctx(&mc.receiver) {
            return self.ctx_method(mc);
        }
        let recv = self.receiver(&mc.receiver);
        let recv = self.auto_deref(recv);
        let rt = self.resolve(&recv.ty);
        if rt.is_context() {
            return self.context_method(mc, recv, &rt);
        }
        if let Some(e) = self.compare_method(mc, &recv, &rt) {
            return e;
        }
        if numeric::is_numeric_method(&method, &rt) {
            return self.numeric_method(mc, recv, &rt);
        }
        if let Ty::Array(..) | Ty::Slice(..) = rt {
            if slice_methods::SLICE_METHODS.contains(&method.as_str()) {
                return self.slice_method(mc, recv).unwrap_or_else(err_expr);
            }
        }
        let table = match &rt {
            Ty::Ordering => return self.ordering_method(mc, recv),
            Ty::Result(v, e) => return self.result_method(mc, recv, (**v).clone(), (**e).clone()),
            Ty::Struct(owner) | Ty::Enum(owner) => return self.user_method(mc, recv, &owner.clone()),
            Ty::Int(_) => INT_METHODS,
            Ty::Float(_) => FLOAT_METHODS,
            Ty::Option(inner) => return self.option_method(mc, recv, (**inner).clone()),
            Ty::Array(_, n) if method == "len" && mc.args.is_empty() => {
                // The receiver still runs (it may have effects); the length is a constant.
                let (line, file) = loc(mc.receiver.span());
                let stmts = vec![Stmt { line, file, kind: StmtKind::Expr(recv) }];
                let len = ex(Ty::Int(IntTy::Usize), ExprKind::Int(*n as u128));
                let b = Block { stmts, tail: Some(Box::new(len)), ty: Ty::Int(IntTy::Usize) };
                return ex(Ty::Int(IntTy::Usize), ExprKind::Block(b));
            }
            Ty::Slice(..) if method == "len" && mc.args.is_empty() => {
                return ex(Ty::Int(IntTy::Usize), ExprKind::SliceLen(Box::new(recv)));
            }
            Ty::Slice(..) if method != "windows" && method != "split_at" => {
                let msg = format!("method `{method}` is not supported on slices; use `len()`, indexing `s[i]`, `iter()` with its adaptors, `chunks(k)` or the slice methods {}", slice_methods::SLICE_METHODS.join(", "));
                self.err(mc.method.span(), msg);
                return err_expr();
            }
            Ty::Err => return err_expr(),
            Ty::Var(_) => {
                let msg = format!("can't call method `{method}` on ambiguous numeric type `{}`; add a suffix such as `1u32` or annotate the variable's type", self.show(&rt));
                self.err_at(&mc.receiver, msg);
                return err_expr();
            }
            _ => &[],
        };
        let Some(&(_, m)) = table.iter().find(|(n, _)| *n == method) else {
            let list = |t: &[(&str, Method)]| t.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ");
            let hint = match (&rt, method.as_str()) {
                (Ty::Array(..) | Ty::Slice(..), "windows") => "of the methods yielding slices only `chunks(k)` is supported; take the windows as slices: `for i in 0..=a.len() - k { let w = &a[i..i + k]; .. }`".to_string(),
                (Ty::Array(..) | Ty::Slice(..), "split_at") => "slice it instead: `let (l, r) = (&a[..k], &a[k..]);`".to_string(),
                (Ty::Array(..), "chunks_exact" | "chunks_mut") => "of the methods yielding slices only `chunks(k)` is supported; loop over the chunk starts and index: `for s in (0..N).step_by(k) { for i in s..(s + k).min(N) { a[i] } }`".to_string(),
                (Ty::Array(..), _) => format!("iterate the array with `a.iter()`, `a.iter_mut()` or `for x in a` (e.g. `a.iter().map(|x| x * 2).sum()`), index it in a range loop, or use the slice methods {}", slice_methods::SLICE_METHODS.join(", ")),
                (Ty::Int(_) | Ty::Float(_) | Ty::Bool, "into") => {
                    "`into()` takes its target type from where the value goes, which megakernel code does not infer: name it, `u64::from(x)` (or cast, `x as u64`)".to_string()
                }
                _ => format!(
                    "supported integer methods: {}, {}; float methods: {}, {}; arrays: len",
                    list(INT_METHODS),
                    numeric::numeric_methods(false).join(", "),
                    list(FLOAT_METHODS),
                    numeric::numeric_methods(true).join(", ")
                ),
            };
            self.err(mc.method.span(), format!("method `{method}` is not supported on `{}` in megakernel code; {hint}", self.show(&rt)));
            return err_expr();
        };
        let signed = matches!(rt, Ty::Int(t) if t.signed());
        if matches!(rt, Ty::Int(_)) && !signed && m == Method::Abs {
            self.err(mc.method.span(), format!("no method `abs` on the unsigned type `{}`", self.show(&rt)));
            return err_expr();
        }
        if matches!(rt, Ty::Int(_)) && !signed && m == Method::Signum {
            self.err(mc.method.span(), format!("no method `signum` on the unsigned type `{}`", self.show(&rt)));
            return err_expr();
        }
        if signed && matches!(m, Method::IsPowerOfTwo | Method::IsMultipleOf) {
            self.err(mc.method.span(), format!("`{method}` exists for unsigned types only, not `{}`", self.show(&rt)));
            return err_expr();
        }
        let args: Vec<Expr> = mc.args.iter().map(|a| self.expr(a)).collect();
        let u32t = Ty::Int(IntTy::U32);
        let opt = Ty::Option(Box::new(rt.clone()));
        use Method as M;
        let (params, ret): (Vec<Ty>, Ty) = match m {
            M::WrappingAdd | M::WrappingSub | M::WrappingMul | M::SaturatingAdd | M::SaturatingSub | M::SaturatingMul
            | M::Min | M::Max | M::Powf => (vec![rt.clone()], rt.clone()),
            M::CheckedAdd | M::CheckedSub | M::CheckedMul | M::CheckedDiv | M::CheckedRem => (vec![rt.clone()], opt),
            M::CheckedNeg => (vec![], opt),
            M::CheckedShl | M::CheckedShr => (vec![u32t], opt),
            M::WrappingShl | M::WrappingShr | M::Pow | M::RotateLeft | M::RotateRight => (vec![u32t], rt.clone()),
            M::Powi => (vec![Ty::Int(IntTy::I32)], rt.clone()),
            M::MulAdd => (vec![rt.clone(), rt.clone()], rt.clone()),
            M::CountOnes | M::CountZeros | M::TrailingZeros | M::LeadingZeros => (vec![], u32t),
            M::IsPowerOfTwo | M::IsNan | M::IsFinite | M::IsInfinite | M::IsSignNegative | M::IsSignPositive => (vec![], Ty::Bool),
            M::Hypot | M::Atan2 | M::Copysign => (vec![rt.clone()], rt.clone()),
            M::IsMultipleOf => (vec![rt.clone()], Ty::Bool),
            M::AbsDiff => {
                let Ty::Int(t) = rt else { return err_expr() };
                let unsigned = match t {
                    IntTy::Isize | IntTy::Usize => IntTy::Usize,
                    _ => IntTy::from_name(t.unsigned_name()).unwrap_or(t),
                };
                (vec![rt.clone()], Ty::Int(unsigned))
            }
            M::ToBits => (vec![], Ty::Int(if rt == Ty::Float(FloatTy::F32) { IntTy::U32 } else { IntTy::U64 })),
            _ => (vec![], rt.clone()),
        };
        if params.len() != args.len() {
            self.err(span, format!("`{method}` takes {} argument(s) but {} were supplied", params.len(), args.len()));
            return err_expr();
        }
        for ((p, a), s) in params.iter().zip(&args).zip(mc.args.iter()) {
            self.expect_at(&s, p, &a.ty);
        }
        ex(ret, ExprKind::Method(m, Box::new(recv), args))
    }
}

/// `std::cmp::max(a, b)` and `min`, `std::mem::swap(x, y)` and `replace(x, v)` (also through
/// `core::` or a `use`d `cmp::`/`mem::`), and a number's method called through its type
/// (`u32::max(a, b)`), as the code they stand for: `a.max(b)`, or a block that evaluates each
/// argument once, in Rust's order. None for any other call.
fn std_call(c: &syn::ExprCall) -> Option<syn::Expr> {
    let syn::Expr::Path(p) = peel(&c.func) else { return None };
    if p.qself.is_some() || p.path.segments.iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
    let (module, name) = match segs.as_slice() {
        [root, m, f] if root == "std" || root == "core" => (m.as_str(), f.as_str()),
        [m, f] => (m.as_str(), f.as_str()),
        _ => return None,
    };
    let args: Vec<&syn::Expr> = c.args.iter().collect();
    if let (Some(ty), [receiver, rest @ ..]) = (number_method_path(module, name), args.as_slice()) {
        // `u32::max(a, b)`: the method called on its first argument, which rustc has already
        // checked is a `u32` (the CPU backend compiles this code as written); the cast gives
        // an unsuffixed literal its type.
        let method = syn::Ident::new(name, p.path.segments.last()?.ident.span());
        return Some(syn::parse_quote_spanned!(c.span()=> ((#receiver) as #ty).#method(#(#rest),*)));
    }
    match (module, name, args.as_slice()) {
        ("cmp", "max" | "min", [a, b]) => {
            let method = syn::Ident::new(name, p.path.segments.last()?.ident.span());
            Some(syn::parse_quote_spanned!(c.span()=> (#a).#method(#b)))
        }
        ("mem", "swap", [x, y]) => Some(syn::parse_quote_spanned!(c.span()=> {
            let wsdsl_swap_x = #x;
            let wsdsl_swap_y = #y;
            let wsdsl_swap_t = *wsdsl_swap_x;
            *wsdsl_swap_x = *wsdsl_swap_y;
            *wsdsl_swap_y = wsdsl_swap_t;
        })),
        ("mem", "replace", [x, v]) => Some(syn::parse_quote_spanned!(c.span()=> {
            let wsdsl_replace_x = #x;
            let wsdsl_replace_v = #v;
            let wsdsl_replace_old = *wsdsl_replace_x;
            *wsdsl_replace_x = wsdsl_replace_v;
            wsdsl_replace_old
        })),
        _ => None,
    }
}

/// `u32::max` and the like: the number type whose method `ty::name` names, as a type.
fn number_method_path(ty: &str, name: &str) -> Option<syn::Type> {
    let (table, float) = match crate::types::numeric_ty(ty)? {
        Ty::Int(_) => (INT_METHODS, false),
        _ => (FLOAT_METHODS, true),
    };
    let method = table.iter().any(|(n, _)| *n == name) || numeric::has(name, float);
    method.then(|| syn::parse_str(ty).ok()).flatten()
}
