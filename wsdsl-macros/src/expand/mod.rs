//! The Rust side: the user's items re-emitted (so rustc checks them and the CPU backend runs
//! them natively) plus the glue implementing `wsdsl::__private::Program`.

use crate::check::Checked;
use crate::lower::Cuda;
use crate::parse::model::{FnKind, Module, Reduce, StructKind};
use crate::types::Ty;
use proc_macro2::TokenStream;
use quote::quote;

mod device_image;
mod jobs;
mod recursion;
mod values;

pub fn expand(m: &Module, cuda: &Cuda, ck: &Checked) -> TokenStream {
    let p = quote!(::wsdsl::__private);
    let sites = &ck.sites;
    let mut items = Vec::new();
    let guards = recursion::Guards::new(m, &ck.recursion);
    items.extend(guards.statics.iter().cloned());
    for it in &m.passthrough {
        items.push(quote!(#it));
    }
    for s in &m.structs {
        // `Program::Params`/`Counters` and the `Task` enum expose the marked structs, and
        // Rust rejects private types there (E0446): marked structs are always `pub`.
        let mut item = s.item.clone();
        if s.kind != StructKind::Plain && matches!(item.vis, syn::Visibility::Inherited) {
            item.vis = syn::parse_quote!(pub);
        }
        let item = &item;
        let name = &s.name;
        if s.kind == StructKind::Buffers {
            // Holds `Buffer<T>`s, which are not `Copy`: the user's struct as written.
            let fields = s.buffers.iter().map(|b| &b.name);
            let job_buffers = jobs::buffer_set(s, &p);
            items.push(quote! {
                #item
                impl #p::BufferSet for #name {
                    fn buffers(&self) -> ::std::vec::Vec<&dyn #p::DeviceBuffer> {
                        ::std::vec![#(&self.#fields as &dyn #p::DeviceBuffer),*]
                    }
                    #job_buffers
                }
            });
            continue;
        }
        if s.kind == StructKind::Counters {
            items.push(quote! {
                #[derive(Clone, Copy, Debug, Default)]
                #item
            });
            continue;
        }
        items.push(device_image::value_struct(item, s, m, &p));
    }
    for e in &m.enums {
        items.push(if e.has_data() { device_image::tagged_union(e, m, &p) } else { device_image::field_less_enum(e, &p) });
    }
    for t in &m.trait_items {
        let t = guards.trait_item(t);
        items.push(quote! {
            #[allow(dead_code)]
            #t
        });
    }
    for imp in &m.impls {
        let imp = guards.impl_block(imp);
        items.push(quote! {
            #[allow(dead_code)]
            #imp
        });
    }
    for f in &m.fns {
        if f.owner.is_some() {
            continue; // re-emitted with its `impl` block above
        }
        if let Some(c) = &f.konst {
            items.push(quote!(#c));
            continue;
        }
        let item = &guards.function(&f.name.to_string(), &f.item);
        // A handler has one caller, the generated `Program` glue: inlined there, it costs the
        // CPU backend no call per task (unless the user chose otherwise).
        let handler = matches!(f.kind, FnKind::Handler { .. } | FnKind::Complete { .. });
        let inline = if handler && !item.attrs.iter().any(|a| a.path().is_ident("inline")) {
            quote!(#[inline])
        } else {
            quote!()
        };
        items.push(quote! {
            #[allow(dead_code)]
            #inline
            #item
        });
    }

    let params_ty = match m.params() {
        Some(s) => {
            let n = &s.name;
            quote!(#n)
        }
        None => {
            items.push(quote! {
                /// The launch parameters of this program, which declares no `#[params]`
                /// struct: a run takes `()`.
                pub type Params = ();
            });
            quote!(Params)
        }
    };
    let counters_ty = match m.counters() {
        Some(c) => {
            let n = &c.name;
            let slots = c.counters.iter().map(|f| {
                let name = f.name.to_string();
                let reduce = match f.reduce {
                    Reduce::Sum => quote!(Sum),
                    Reduce::Max => quote!(Max),
                    Reduce::Min => quote!(Min),
                };
                let signed = f.int.signed();
                quote!(#p::CounterSlot { name: #name, reduce: #p::Reduce::#reduce, signed: #signed })
            });
            let merges = c.counters.iter().map(|f| {
                let n = &f.name;
                quote!(#p::CounterCell::merge(&mut self.#n, &other.#n);)
            });
            let froms = c.counters.iter().enumerate().map(|(i, f)| {
                let n = &f.name;
                quote!(#n: #p::CounterCell::from_slot(slots[#i]),)
            });
            items.push(quote! {
                impl #p::CounterSet for #n {
                    const SLOTS: &'static [#p::CounterSlot] = &[#(#slots),*];
                    fn merge(&mut self, other: &Self) {
                        #(#merges)*
                    }
                    fn from_slots(slots: &[u64]) -> Self {
                        Self { #(#froms)* }
                    }
                }
            });
            quote!(#n)
        }
        None => {
            items.push(quote! {
                /// The counters of this program, which declares no `#[counters]` struct.
                pub type Counters = ();
            });
            quote!(Counters)
        }
    };

    // Programs without a `#[buffers]` struct get `()`.
    let buffers_ty = match m.buffers() {
        Some(b) => {
            let n = &b.name;
            quote!(#n)
        }
        None => {
            items.push(quote! {
                /// The buffers of this program, which declares no `#[buffers]` struct: it
                /// runs with `Runtime::run`.
                pub type Buffers = ();
            });
            quote!(Buffers)
        }
    };

    let tasks: Vec<_> = m.tasks().map(|t| t.name.clone()).collect();
    let tags: Vec<u32> = (0..tasks.len() as u32).collect();
    let task_names: Vec<String> = tasks.iter().map(|t| t.to_string()).collect();
    // Where each task type's complete handler is written, for the errors that name it.
    let complete_sites: Vec<String> = task_names
        .iter()
        .map(|t| match m.complete_handler(t) {
            Some(c) => {
                let (line, file) = crate::check::span::loc(c.name.span());
                format!("{file}:{line}")
            }
            None => String::new(),
        })
        .collect();
    let value_ty: TokenStream = match m.value_types().len() {
        0 => quote!(()),
        1 => crate::types::rust_name(&m.value_types()[0]).parse().expect("a type name"),
        _ => {
            items.push(values::value_enum(m, cuda, &p));
            quote!(Value)
        }
    };
    let multi = m.value_types().len() > 1;
    let placeholder = quote!(<#value_ty as #p::TaskValue>::placeholder());
    // A task's value as `Program::Value`: the value itself, or its variant of `Value`.
    let wrap = |task: &syn::Ident, v: TokenStream| if multi { quote!(Value::#task(#v)) } else { v };
    // Each task's spawn handler, as a call yielding the task's value (a placeholder for
    // tasks that declare none).
    let runs: Vec<TokenStream> = tasks
        .iter()
        .map(|t| {
            let Some(f) = m.spawn_handler(&t.to_string()) else {
                return placeholder.clone();
            };
            let h = &f.name;
            if f.ret.is_value() {
                wrap(t, quote!(#h(t, &mut ctx)))
            } else {
                quote!({ #h(t, &mut ctx); #placeholder })
            }
        })
        .collect();
    let completes: Vec<TokenStream> = m
        .tasks()
        .filter_map(|t| {
            let c = m.complete_handler(&t.name.to_string())?;
            let (tn, h) = (&t.name, &c.name);
            let call = if c.params.len() == 2 { quote!(#h(t, children, &mut ctx)) } else { quote!(#h(t, &mut ctx)) };
            // With several value types the children arrive as `Value`s: copied out into an
            // array of the type the handler takes.
            let unpack = match (&c.kind, c.params.get(1).map(|p| &p.ty)) {
                (FnKind::Complete { max_children: Some(max), .. }, Some(Ty::Slice(child, _))) if multi => {
                    let max = *max as usize;
                    let ct: TokenStream = crate::types::rust_name(child).parse().expect("a type name");
                    let from: Vec<&syn::Ident> = m.tasks().filter(|u| u.value.as_ref().is_some_and(|(v, _)| v == &**child)).map(|u| &u.name).collect();
                    quote! {
                        let mut buf = [<#ct as #p::TaskValue>::placeholder(); #max];
                        for (slot, v) in buf.iter_mut().zip(children) {
                            #[allow(unreachable_patterns)]
                            match *v {
                                #(Value::#from(x) => *slot = x,)*
                                _ => {}
                            }
                        }
                        let children = &buf[..children.len().min(#max)];
                    }
                }
                _ => quote!(),
            };
            Some(if c.ret.is_value() {
                let v = wrap(tn, call);
                quote!(Task::#tn(t) => { #unpack #v })
            } else {
                quote!(Task::#tn(t) => { #unpack #call; #placeholder })
            })
        })
        .collect();
    let complete_of: Vec<TokenStream> = m
        .tasks()
        .filter_map(|t| {
            let c = m.complete_handler(&t.name.to_string())?;
            let tn = &t.name;
            let n = match (&c.kind, c.params.len()) {
                (FnKind::Complete { max_children: Some(n), .. }, 2) => *n,
                _ => u32::MAX,
            };
            Some(quote!(Task::#tn(_) => ::core::option::Option::Some(#n),))
        })
        .collect();
    let decode_value = if multi {
        let arms = m.tasks().map(|t| {
            let tn = &t.name;
            match &t.value {
                Some((ty, _)) => {
                    let ty: TokenStream = crate::types::rust_name(ty).parse().expect("a type name");
                    quote!(Task::#tn(_) => Value::#tn(<#ty as #p::TaskValue>::from_device_bytes(bytes)),)
                }
                None => quote!(Task::#tn(_) => #placeholder,),
            }
        });
        quote! {
            fn decode_value(task: &Task, bytes: &[u8]) -> Value {
                match task {
                    #(#arms)*
                }
            }
        }
    } else {
        quote!()
    };
    let join_layout = if cuda.frame_bytes > 0 {
        let (frame, value) = (cuda.frame_bytes as usize, cuda.value_bytes as usize);
        quote!(::core::option::Option::Some(#p::JoinLayout { frame_bytes: #frame, value_bytes: #value }))
    } else {
        quote!(::core::option::Option::None)
    };
    let recursion = match ck.recursion.cycles {
        0 => quote!(),
        cycles => {
            let (limit, cycles) = (ck.recursion.limit, cycles as u32);
            let functions = ck.recursion.members().iter().map(|f| {
                let (name, symbol, cycle) = (crate::check::recursion::rust_name(m, &f.key), crate::lower::fn_name(&f.key), f.cycle as u32);
                quote!(#p::RecursiveFn { name: #name, symbol: #symbol, cycle: #cycle })
            });
            quote!(const RECURSION: ::core::option::Option<#p::Recursion> =
                ::core::option::Option::Some(#p::Recursion { limit: #limit, cycles: #cycles, functions: &[#(#functions),*] });)
        }
    };
    let job_methods = jobs::ctx_methods(&p);
    let name = m.name.to_string();
    let types = &cuda.types;
    // `debug_assert!` runs in the native handlers exactly when the user's crate is built with
    // debug assertions; the kernel follows the same setting.
    let release = &cuda.handlers;
    let hand = match &cuda.handlers_debug {
        Some(debug) => quote!(if ::core::cfg!(debug_assertions) { #debug } else { #release }),
        None => quote!(#release),
    };
    let (task_bytes, params_bytes, off) =
        (cuda.task_bytes as usize, cuda.params_bytes as usize, cuda.union_offset as usize);
    let encode_params = if m.params().is_some() {
        quote!(#p::DeviceBytes::write_device_bytes(params, out);)
    } else {
        quote!(let _ = (params, out);)
    };
    let task_docs: Vec<String> = task_names.iter().map(|t| format!("A [`{t}`](struct@{t}) task.")).collect();
    items.push(quote! {
        /// Every task type of this program, one variant per `#[task]` struct, named after it:
        /// what a run's roots and [`Ctx::spawn`] take (each task struct converts into it with
        /// `Into`).
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Task {
            #(#[doc = #task_docs] #tasks(#tasks),)*
        }
        #(
            impl ::core::convert::From<#tasks> for Task {
                #[inline]
                fn from(task: #tasks) -> Self { Task::#tasks(task) }
            }
        )*

        /// What a handler of this program sees, as its `ctx: &mut Ctx` argument: the launch
        /// parameters ([`params`](Ctx::params)), the program's buffers
        /// ([`buffers`](Ctx::buffers)) and this worker's counters
        /// ([`counters`](Ctx::counters)), and the calls a handler makes: [`spawn`](Ctx::spawn)
        /// and [`spawn_with_priority`](Ctx::spawn_with_priority) for new tasks; the
        /// data-parallel jobs [`copy`](Ctx::copy), [`merge`](Ctx::merge), [`sort`](Ctx::sort),
        /// [`partition`](Ctx::partition), [`exclusive_scan`](Ctx::exclusive_scan),
        /// [`reduce_sum`](Ctx::reduce_sum), [`reduce_min`](Ctx::reduce_min) and
        /// [`reduce_max`](Ctx::reduce_max), and their [`result`](Ctx::result)s;
        /// [`round`](Ctx::round); the calls of cooperative schedules,
        /// [`thread`](Ctx::thread), [`threads`](Ctx::threads) and [`sync`](Ctx::sync); and
        /// [`fence`](Ctx::fence).
        ///
        /// `#[megakernel]` generates a `Ctx` for every program, and the macro lowers each
        /// call to the same operation on the GPU: a handler means the same on every backend.
        pub struct Ctx<'a> {
            /// The launch parameters: the value handed to the run (`()` for a program without
            /// a `#[params]` struct).
            pub params: &'a #params_ty,
            /// The program's buffers: the struct handed to `Runtime::run_with` (`()` for a
            /// program without a `#[buffers]` struct). Every task of the run reads and writes
            /// the same arrays.
            pub buffers: &'a #buffers_ty,
            /// This worker's copy of the program's counters (`()` for a program without a
            /// `#[counters]` struct): `ctx.counters.name.add(v)` for a `Sum`, `.max(v)` for
            /// a `Max`, `.min(v)` for a `Min`. The run's output holds every worker's copy
            /// merged.
            pub counters: &'a mut #counters_ty,
            spawned: &'a mut #p::Spawned<Task>,
            round: u32,
        }

        impl<'a> Ctx<'a> {
            /// Spawns a task (any `#[task]` struct of this module): it runs later, on this
            /// worker or on one that steals it. A task with a complete handler waits for the
            /// tasks it spawned, and that handler runs once they are done.
            #[inline]
            pub fn spawn<T: ::core::convert::Into<Task>>(&mut self, task: T) {
                self.spawned.push(task.into())
            }

            /// Spawns a task in band `priority` (lower runs first), in a module with
            /// `#[megakernel(order = priority)]`; `spawn` gives a child its parent's band.
            #[inline]
            pub fn spawn_with_priority<T: ::core::convert::Into<Task>>(&mut self, priority: u32, task: T) {
                self.spawned.push_with_priority(priority, task.into())
            }

            /// Which run of the task's handlers this is: 0 in its spawn handler, k in the k-th
            /// run of its complete handler (a complete handler that spawns runs again once
            /// those children are done).
            #[inline]
            pub fn round(&self) -> u32 {
                self.round
            }

            /// This thread's index among the threads that run the task together: in a
            /// cooperative schedule (`#[megakernel(worker = block, cooperative)]`) every thread
            /// of the worker runs the same task. Natively a task has one thread: 0.
            #[inline]
            pub fn thread(&self) -> u32 {
                0
            }

            /// How many threads run the task together (1 natively and without `cooperative`).
            #[inline]
            pub fn threads(&self) -> u32 {
                1
            }

            /// Waits until every thread running the task has reached this point (a block or
            /// warp barrier in a cooperative schedule; nothing to wait for natively).
            #[inline]
            pub fn sync(&mut self) {}

            /// Orders this task's buffer writes and atomics before the ones after it, as every
            /// other task sees them (a device-wide memory fence): write a result, fence, then
            /// signal it with an atomic, and whoever sees the signal sees the result.
            #[inline]
            pub fn fence(&self) {
                ::std::sync::atomic::fence(::std::sync::atomic::Ordering::SeqCst)
            }

            #job_methods
        }

        /// This program, as `#[megakernel]` generated it: the type a runtime runs
        /// (`rt.run::<Kernel>(params, roots)`), implementing `wsdsl::Program`.
        pub struct Kernel;

        impl #p::Program for Kernel {
            const NAME: &'static str = #name;
            const CUDA_TYPES: &'static str = #types;
            const CUDA_HANDLERS: &'static str = #hand;
            const FAULT_SITES: &'static [&'static str] = &[#(#sites),*];
            const TASK_NAMES: &'static [&'static str] = &[#(#task_names),*];
            const COMPLETE_SITES: &'static [&'static str] = &[#(#complete_sites),*];
            const TASK_BYTES: usize = #task_bytes;
            const PARAMS_BYTES: usize = #params_bytes;
            type Params = #params_ty;
            type Task = Task;
            type Counters = #counters_ty;
            type Buffers = #buffers_ty;
            type Value = #value_ty;
            const JOIN: ::core::option::Option<#p::JoinLayout> = #join_layout;
            #recursion

            fn encode_task(task: &Task, out: &mut [u8]) {
                match task {
                    #(Task::#tasks(t) => {
                        out[..4].copy_from_slice(&(#tags as u32).to_le_bytes());
                        #p::DeviceBytes::write_device_bytes(t, &mut out[#off..]);
                    })*
                }
            }

            fn encode_params(params: &#params_ty, out: &mut [u8]) {
                #encode_params
            }

            #[inline]
            fn execute(
                task: &Task,
                params: &#params_ty,
                buffers: &#buffers_ty,
                counters: &mut #counters_ty,
                spawned: &mut #p::Spawned<Task>,
            ) -> #value_ty {
                let mut ctx = Ctx { params, buffers, counters, spawned, round: 0 };
                match task {
                    #(Task::#tasks(t) => #runs,)*
                }
            }

            fn complete_of(task: &Task) -> ::core::option::Option<u32> {
                #[allow(unreachable_patterns)]
                match task {
                    #(#complete_of)*
                    _ => ::core::option::Option::None,
                }
            }

            #[allow(unused_variables, unused_mut)]
            #[inline]
            fn complete(
                task: &Task,
                children: &[#value_ty],
                round: u32,
                params: &#params_ty,
                buffers: &#buffers_ty,
                counters: &mut #counters_ty,
                spawned: &mut #p::Spawned<Task>,
            ) -> #value_ty {
                let _ = children;
                let mut ctx = Ctx { params, buffers, counters, spawned, round };
                #[allow(unreachable_patterns)]
                match task {
                    #(#completes)*
                    _ => #placeholder,
                }
            }

            #decode_value
        }
    });

    let attrs = &m.attrs;
    let vis = &m.vis;
    let mname = &m.name;
    quote! {
        #(#attrs)*
        #vis mod #mname {
            #(#items)*
        }
    }
}
