//! `#[megakernel]`: turns a module of task structs and spawn handlers into a
//! `wsdsl::__private::Program` with a native Rust implementation and a CUDA C translation.
//!
//! Pipeline, one stage per folder:
//!
//! 1. `parse`: the attribute's arguments (`parse/schedule.rs`) and the module's items,
//!    classified by their markers, with parsed types and C layouts (`parse/model.rs`).
//! 2. `check`: the exact Rust type of every expression of every body, with its fault sites
//!    and the bounds of recursive calls, into the typed IR (`ir.rs`); then task values must
//!    flow to receivers of their type (`check/join.rs`).
//! 3. `lower`: the typed IR as CUDA C.
//! 4. `expand`: the Rust glue: the user's items re-emitted for the CPU backend and the
//!    `Program` implementation that carries the CUDA C.
//!
//! `types.rs` (the types, shared by every stage), `names.rs` (the C spelling of the module's
//! names) and `depth.rs` (the stack deep input runs on) serve them all; `tests` holds the unit
//! tests of the stages. Every stage collects errors so one build reports all of them.

extern crate proc_macro;

mod check;
mod depth;
mod expand;
mod ir;
mod lower;
mod names;
mod parse;
mod types;

#[cfg(test)]
mod tests;

use proc_macro::TokenStream;
use quote::quote;

/// Compiles a module of `#[task]` structs and `#[spawn]` handlers into a megakernel program.
///
/// The module's items are ordinary Rust, marked by what they are:
///
/// - `#[task]` structs: the task types (`#[task(value = T)]`: a task that hands its parent a
///   value of type `T`);
/// - `#[spawn] fn name(t: &T, ctx: &mut Ctx)`: the spawn handler of task type `T`, which
///   runs each task (returning `T`'s value, for a task that hands one);
/// - `#[complete] fn name(t: &T, ctx: &mut Ctx)` or `#[complete(max_children = N)] fn name(t:
///   &T, children: &[V], ctx: &mut Ctx)`: runs once the tasks a `T` spawned are done, with
///   their values in spawn order;
/// - `#[params]` struct: the launch parameters handlers read as `ctx.params`;
/// - `#[counters]` struct of `Sum`, `Max` and `Min` fields: what handlers count, read back
///   from the run's output;
/// - `#[buffers]` struct of `Buffer<T>` and `ReadOnly<T>` fields: arrays the host hands in,
///   handlers read as `ctx.buffers`;
/// - unmarked structs, enums, constants, functions, traits and `impl` blocks: helpers.
///
/// The macro type-checks every body against the Rust subset that the GPU runs with Rust's
/// semantics (`docs/subset.md` in the repository lists it); anything outside it is a compile
/// error at the offending tokens. It re-emits the items for the CPU backend and generates,
/// in the module:
///
/// - `Kernel`, the program: the type a runtime runs, `rt.run::<Kernel>(params, roots)`;
/// - `Task`, an enum of the task types, one variant each, which roots and spawns convert
///   into;
/// - `Ctx`, what handlers see: `params`, `buffers`, `counters`, and the calls `spawn`,
///   `spawn_with_priority`, the data-parallel jobs (`copy`, `merge`, `sort`, `partition`,
///   `exclusive_scan`, `reduce_sum`, `reduce_min`, `reduce_max`) and their `result`, `round`,
///   `thread`, `threads`, `sync` and `fence`, each documented on the generated type;
/// - `Params`, `Counters` and `Buffers` as `()` where the module declares no such struct,
///   and `Value`, an enum of the value types, where its tasks hand values of several types.
///
/// `wsdsl::example::nqueens` is such a module, with the documentation of everything
/// generated for it.
///
/// # Options
///
/// `#[megakernel(key = value, ...)]` chooses the program's GPU scheduler (a runtime's own
/// choices override it): `scheduler` (`deque`, `static`, `bq`, `bwd`, `bsq`), `worker`
/// (`thread`, `warp`, `block`), `victim` (`random`, `round_robin`, `pws`, `hws`,
/// `small_world`), `steal` (`one`, `half`), `order = priority` (tasks run lowest band first:
/// `ctx.spawn_with_priority`), `lookahead` (bands), `block_threads`, `capacity` (deque
/// slots), `cooperative` (every thread of a worker runs the same task), `min_blocks` (blocks
/// per SM the compiler must fit) and `recursion_limit` (active calls of one cycle of
/// recursive helpers). An unknown or contradictory choice is a compile error at the
/// attribute.
#[proc_macro_attribute]
pub fn megakernel(args: TokenStream, input: TokenStream) -> TokenStream {
    expand_deep(args.into(), input.into()).into()
}

/// The attribute's whole expansion, the parsing and the dropping of the input included, on a
/// stack that nesting rustc accepts cannot exhaust (`depth.rs`).
fn expand_deep(args: proc_macro2::TokenStream, input: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    depth::on_large_stack(move || {
        let module = match syn::parse2::<syn::ItemMod>(input) {
            Ok(m) => m,
            Err(e) => return e.to_compile_error(),
        };
        let (vis, name) = (module.vis.clone(), module.ident.clone());
        match expand_module(args, module) {
            Ok(tokens) => tokens,
            Err(e) => {
                // An empty module keeps rustc from adding errors about the items we rejected.
                let errs = e.to_compile_error();
                quote!(#errs #vis mod #name {})
            }
        }
    })
}

/// The attribute on `proc_macro2` tokens (callable outside a macro, as the fuzz test does):
/// the generated module, or every error of the arguments and the module combined.
fn expand_module(args: proc_macro2::TokenStream, module: syn::ItemMod) -> syn::Result<proc_macro2::TokenStream> {
    let schedule = parse::schedule::parse(args);
    let limit = schedule.as_ref().ok().and_then(|s| s.recursion_limit).unwrap_or(parse::schedule::DEFAULT_RECURSION_LIMIT);
    let ordered = schedule.as_ref().is_ok_and(|s| s.ordered());
    match (schedule, compile_with(module, limit, ordered)) {
        (Ok(schedule), Ok((tokens, _))) => Ok(with_schedule(tokens, &schedule)),
        (schedule, compiled) => Err(combine(schedule.err().into_iter().chain(compiled.err()).collect())),
    }
}

/// Adds the attribute's scheduler choice to the generated `impl Program for Kernel`.
fn with_schedule(tokens: proc_macro2::TokenStream, schedule: &parse::schedule::ScheduleAttr) -> proc_macro2::TokenStream {
    if schedule.is_empty() {
        return tokens;
    }
    let Ok(mut module) = syn::parse2::<syn::ItemMod>(tokens.clone()) else { return tokens };
    let constant: syn::ImplItem = syn::parse2(schedule.to_const()).expect("a valid associated const");
    if let Some((_, items)) = &mut module.content {
        for item in items.iter_mut() {
            if let syn::Item::Impl(imp) = item {
                let is_program = imp.trait_.as_ref().and_then(|(_, path, _)| path.segments.last()).is_some_and(|s| s.ident == "Program");
                if is_program {
                    imp.items.push(constant.clone());
                }
            }
        }
    }
    quote!(#module)
}

/// The whole pipeline; `Err` combines every error found. `recursion_limit`: how deep
/// recursive helpers may call (`check/recursion.rs`).
#[cfg(test)]
pub(crate) fn compile(module: syn::ItemMod, recursion_limit: u32) -> syn::Result<(proc_macro2::TokenStream, lower::Cuda)> {
    compile_with(module, recursion_limit, false)
}

/// [`compile`] of a module whose tasks carry priorities (`order = priority`) or not.
pub(crate) fn compile_with(module: syn::ItemMod, recursion_limit: u32, ordered: bool) -> syn::Result<(proc_macro2::TokenStream, lower::Cuda)> {
    let mut errors = Vec::new();
    let module = names::unraw_words(module);
    let model = parse::model::Module::parse(module, &mut errors);
    let Some(mut model) = model else { return Err(combine(errors)) };
    model.recursion_limit = recursion_limit;
    model.ordered = ordered;
    let checked = check::check(&model, &mut errors);
    check::join::check(&model, &checked.bodies, &mut errors);
    if !errors.is_empty() {
        return Err(combine(errors));
    }
    let cuda = lower::lower(&model, &checked);
    let tokens = expand::expand(&model, &cuda, &checked);
    Ok((tokens, cuda))
}

fn combine(errors: Vec<syn::Error>) -> syn::Error {
    let mut it = errors.into_iter();
    let mut first = it.next().expect("at least one error");
    for e in it {
        first.combine(e);
    }
    first
}
