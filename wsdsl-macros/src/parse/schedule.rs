//! `#[megakernel(scheduler = deque, worker = warp, victim = random, steal = half, ...)]`: the
//! scheduler a program asks for. Parsed and checked here, so an unknown or contradictory
//! choice is a compile error at the attribute; emitted as `Program::SCHEDULE`. The same
//! attribute sets the program's `recursion_limit` (`check/recursion.rs`).

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Ident, Lit, Token};
use wsdsl_abi::limits::{block_threads_valid, MAX_LOOKAHEAD, MIN_BLOCKS};
use wsdsl_abi::schedule::{Order, Scheduler, Steal, Victim, Worker};

/// One `key = value`; the value may be any identifier (`static` is a keyword), a string or an
/// integer.
struct Setting {
    key: Ident,
    value: Value,
}

enum Value {
    Word(Ident),
    Lit(Lit),
}

impl Parse for Setting {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key = Ident::parse_any(input)?;
        if key == "cooperative" && !input.peek(Token![=]) {
            // A bare flag.
            return Ok(Setting { value: Value::Word(Ident::new("true", key.span())), key });
        }
        input.parse::<Token![=]>()?;
        let value = if input.peek(Lit) { Value::Lit(input.parse()?) } else { Value::Word(Ident::parse_any(input)?) };
        Ok(Setting { key, value })
    }
}

impl quote::ToTokens for Value {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            Value::Word(i) => i.to_tokens(tokens),
            Value::Lit(l) => l.to_tokens(tokens),
        }
    }
}

/// The keys and their values, as written (validated).
#[derive(Debug, Default)]
pub struct ScheduleAttr {
    scheduler: Option<(Scheduler, Span)>,
    worker: Option<(Worker, Span)>,
    victim: Option<(Victim, Span)>,
    steal: Option<(Steal, Span)>,
    block_threads: Option<u32>,
    capacity: Option<u32>,
    cooperative: Option<(bool, Span)>,
    min_blocks: Option<u32>,
    /// `order = priority`: tasks run lowest band first (`ctx.spawn_with_priority`).
    order: Option<(Order, Span)>,
    /// With `order = priority`: bands above the lowest live one the GPU's workers may take from.
    lookahead: Option<(u32, Span)>,
    /// Not a scheduler setting: how deep recursive helpers may call.
    pub recursion_limit: Option<u32>,
}

/// The depth of a cycle's calls a program may reach when its attribute sets none: deep
/// enough for searches down a tree or a list of moves, small enough that the GPU's stack for
/// every resident thread (limit × frame) stays a few GiB.
pub use wsdsl_abi::limits::DEFAULT_RECURSION_LIMIT;

/// Parses the attribute's arguments, collecting every error.
pub fn parse(args: TokenStream) -> syn::Result<ScheduleAttr> {
    let pairs = Punctuated::<Setting, Token![,]>::parse_terminated.parse2(args)?;
    let mut attr = ScheduleAttr::default();
    let mut errors: Vec<syn::Error> = Vec::new();
    for pair in pairs {
        let key = pair.key.to_string();
        let seen = match key.as_str() {
            "scheduler" => choice(&pair.value, &Scheduler::ALL, Scheduler::name, &key).map(|v| attr.scheduler.replace(v).is_some()),
            "worker" => choice(&pair.value, &Worker::ALL, Worker::name, &key).map(|v| attr.worker.replace(v).is_some()),
            "victim" => choice(&pair.value, &Victim::ALL, Victim::name, &key).map(|v| attr.victim.replace(v).is_some()),
            "steal" => choice(&pair.value, &Steal::ALL, Steal::name, &key).map(|v| attr.steal.replace(v).is_some()),
            "order" => choice(&pair.value, &Order::ALL, Order::name, &key).map(|v| attr.order.replace(v).is_some()),
            "block_threads" => number(&pair.value, &key).and_then(|n| {
                if block_threads_valid(n) {
                    Ok(attr.block_threads.replace(n).is_some())
                } else {
                    Err(syn::Error::new_spanned(&pair.value, "block_threads must be a multiple of 32 from 32 to 1024"))
                }
            }),
            "cooperative" => choice(&pair.value, &[true, false], |b| if b { "true" } else { "false" }, &key)
                .map(|(v, span)| attr.cooperative.replace((v, span)).is_some()),
            "min_blocks" => number(&pair.value, &key).and_then(|n| {
                if MIN_BLOCKS.contains(&n) {
                    Ok(attr.min_blocks.replace(n).is_some())
                } else {
                    let (least, most) = (MIN_BLOCKS.start(), MIN_BLOCKS.end());
                    Err(syn::Error::new_spanned(&pair.value, format!("min_blocks must be from {least} to {most} blocks per SM")))
                }
            }),
            "lookahead" => number(&pair.value, &key).and_then(|n| {
                if n <= MAX_LOOKAHEAD {
                    Ok(attr.lookahead.replace((n, pair.key.span())).is_some())
                } else {
                    let window = MAX_LOOKAHEAD + 1;
                    Err(syn::Error::new_spanned(&pair.value, format!("lookahead must be from 0 to {MAX_LOOKAHEAD} bands (the window holds {window})")))
                }
            }),
            "capacity" => number(&pair.value, &key).and_then(|n| {
                if n > 0 {
                    Ok(attr.capacity.replace(n).is_some())
                } else {
                    Err(syn::Error::new_spanned(&pair.value, "capacity must be at least 1 task slot"))
                }
            }),
            "recursion_limit" => number(&pair.value, &key).and_then(|n| {
                if n > 0 {
                    Ok(attr.recursion_limit.replace(n).is_some())
                } else {
                    Err(syn::Error::new_spanned(&pair.value, "recursion_limit must be at least 1 call"))
                }
            }),
            _ => Err(syn::Error::new_spanned(
                &pair.key,
                "unknown #[megakernel] option; the options are scheduler, worker, victim, steal, order, lookahead, block_threads, capacity, cooperative, min_blocks, recursion_limit",
            )),
        };
        match seen {
            Ok(true) => errors.push(syn::Error::new_spanned(&pair.key, format!("`{key}` is given twice"))),
            Ok(false) => {}
            Err(e) => errors.push(e),
        }
    }
    if let Some(&(s, _)) = attr.scheduler.as_ref() {
        if !s.has_workers() {
            for (name, given) in [("worker", attr.worker.map(|v| v.1)), ("victim", attr.victim.map(|v| v.1)), ("steal", attr.steal.map(|v| v.1))] {
                if let Some(span) = given {
                    errors.push(syn::Error::new(
                        span,
                        format!("the static scheduler runs one task per thread and never steals, so `{name}` does not apply; remove it or use scheduler = deque"),
                    ));
                }
            }
        }
        if s.is_broker() {
            for (name, given) in [("victim", attr.victim.map(|v| v.1)), ("steal", attr.steal.map(|v| v.1))] {
                if let Some(span) = given {
                    errors.push(syn::Error::new(
                        span,
                        format!("the {} scheduler shares broker queues instead of robbing deques, so `{name}` does not apply; remove it or use scheduler = deque", s.name()),
                    ));
                }
            }
        }
    }
    if let (Some((true, span)), Some((s, _))) = (&attr.cooperative, &attr.scheduler) {
        if !s.runs_cooperative() {
            let s = s.name();
            errors.push(syn::Error::new(*span, format!("cooperative tasks need the deque or the static scheduler; scheduler = {s} runs one task per thread")));
        }
    }
    if let Some((_, span)) = attr.order.as_ref().filter(|(o, _)| *o == Order::Priority) {
        if let Some((s, _)) = attr.scheduler.as_ref().filter(|(s, _)| !s.runs_ordered()) {
            let why = match s {
                Scheduler::Deque => "its deques are private to their workers, so no worker could see which band is lowest",
                Scheduler::Static => "it runs whole generations at once",
                _ => "a band per block's queue would multiply the bands' memory by the blocks",
            };
            let s = s.name();
            errors.push(syn::Error::new(
                *span,
                format!("order = priority runs on the broker queues' bands (scheduler = bq or bwd), not scheduler = {s}: {why}; use scheduler = bq or leave the scheduler out"),
            ));
        }
        if let Some((true, _)) = attr.cooperative {
            errors.push(syn::Error::new(*span, "order = priority runs one task per thread, so not in a cooperative schedule; drop `cooperative`"));
        }
    }
    if let Some((_, span)) = attr.lookahead {
        if !attr.ordered() {
            errors.push(syn::Error::new(span, "`lookahead` counts priority bands: it needs order = priority"));
        }
    }
    match errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        Some(e) => Err(e),
        None => Ok(attr),
    }
}

/// An identifier or string value that must name one of `allowed` (`name` spells each).
fn choice<T: Copy>(value: &Value, allowed: &[T], name: fn(T) -> &'static str, key: &str) -> syn::Result<(T, Span)> {
    let names = wsdsl_abi::schedule::names(allowed, name).join(", ");
    let (text, span) = match value {
        Value::Word(i) => (i.to_string(), i.span()),
        Value::Lit(Lit::Str(s)) => (s.value(), s.span()),
        other => return Err(syn::Error::new_spanned(other, format!("`{key}` takes one of: {names}"))),
    };
    match allowed.iter().copied().find(|&c| name(c) == text) {
        Some(c) => Ok((c, span)),
        None => Err(syn::Error::new(span, format!("unknown {key} `{text}`; the choices are: {names}"))),
    }
}

fn number(value: &Value, key: &str) -> syn::Result<u32> {
    match value {
        Value::Lit(Lit::Int(i)) => i.base10_parse::<u32>(),
        other => Err(syn::Error::new_spanned(other, format!("`{key}` takes a whole number"))),
    }
}

impl ScheduleAttr {
    /// Whether no scheduler setting is given (`recursion_limit` is none).
    pub fn is_empty(&self) -> bool {
        self.scheduler.is_none()
            && self.worker.is_none()
            && self.victim.is_none()
            && self.steal.is_none()
            && self.block_threads.is_none()
            && self.capacity.is_none()
            && self.cooperative.is_none()
            && self.min_blocks.is_none()
            && self.order.is_none()
            && self.lookahead.is_none()
    }

    /// Whether tasks carry priorities (`order = priority`).
    pub fn ordered(&self) -> bool {
        matches!(self.order, Some((Order::Priority, _)))
    }

    /// `const SCHEDULE: Schedule = ...;` for the generated `Program` impl.
    pub fn to_const(&self) -> TokenStream {
        let p = quote!(::wsdsl::__private);
        // The runtime's choices are `wsdsl-abi`'s enums: a variant is spelt as they name it.
        fn variant<T: std::fmt::Debug>(v: &Option<(T, Span)>, ty: TokenStream) -> TokenStream {
            let p = quote!(::wsdsl::__private);
            match v {
                Some((choice, _)) => {
                    let ident = syn::Ident::new(&format!("{choice:?}"), Span::call_site());
                    quote!(::core::option::Option::Some(#p::#ty::#ident))
                }
                None => quote!(::core::option::Option::None),
            }
        }
        let number = |n: Option<u32>| match n {
            Some(n) => quote!(::core::option::Option::Some(#n)),
            None => quote!(::core::option::Option::None),
        };
        let (scheduler, worker, victim, steal, order) = (
            variant(&self.scheduler, quote!(Scheduler)),
            variant(&self.worker, quote!(Worker)),
            variant(&self.victim, quote!(Victim)),
            variant(&self.steal, quote!(Steal)),
            variant(&self.order, quote!(Order)),
        );
        let (block_threads, capacity, min_blocks) = (number(self.block_threads), number(self.capacity), number(self.min_blocks));
        let lookahead = number(self.lookahead.map(|(n, _)| n));
        let cooperative = match self.cooperative {
            Some((c, _)) => quote!(::core::option::Option::Some(#c)),
            None => quote!(::core::option::Option::None),
        };
        quote! {
            const SCHEDULE: #p::Schedule = #p::Schedule {
                scheduler: #scheduler,
                block_threads: #block_threads,
                worker: #worker,
                victim: #victim,
                steal: #steal,
                capacity: #capacity,
                cooperative: #cooperative,
                min_blocks: #min_blocks,
                order: #order,
                lookahead: #lookahead,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_every_documented_choice() {
        let a = parse(quote!(scheduler = deque, worker = block, victim = small_world, steal = half, block_threads = 128, capacity = 64, min_blocks = 3))
            .unwrap();
        let text = a.to_const().to_string();
        assert!(text.contains("Victim :: SmallWorld") && text.contains("Worker :: Block") && text.contains("128u32"), "{text}");
        assert!(text.contains("min_blocks : :: core :: option :: Option :: Some (3u32)"), "{text}");
        assert!(parse(quote!()).unwrap().is_empty());
        assert!(parse(quote!(victim = "pws")).is_ok(), "string values work too");
        let ordered = parse(quote!(order = priority, lookahead = 8)).unwrap().to_const().to_string();
        assert!(ordered.contains("lookahead : :: core :: option :: Option :: Some (8u32)"), "{ordered}");
    }

    #[test]
    fn a_lookahead_needs_order_priority_and_fits_the_window() {
        let e = parse(quote!(lookahead = 4)).unwrap_err();
        assert!(e.to_string().contains("needs order = priority"), "{e}");
        let e = parse(quote!(order = priority, lookahead = 32)).unwrap_err();
        assert!(e.to_string().contains("lookahead must be from 0 to 31"), "{e}");
        assert!(parse(quote!(order = priority, lookahead = 0)).is_ok(), "0: the lowest live band only");
    }

    #[test]
    fn reports_every_bad_choice_together() {
        let e = parse(quote!(scheduler = static, victim = hws, steal = all, block_threads = 100, colour = red, worker = warp, min_blocks = 0)).unwrap_err();
        let messages: Vec<String> = e.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), 6, "{messages:#?}");
        assert!(messages.iter().any(|m| m.contains("min_blocks must be from 1 to 32")));
        assert!(messages.iter().any(|m| m.contains("unknown steal `all`")));
        assert!(messages.iter().any(|m| m.contains("multiple of 32")));
        assert!(messages.iter().any(|m| m.contains("unknown #[megakernel] option")));
        assert!(messages.iter().any(|m| m.contains("static scheduler") && m.contains("`victim`")));
        assert!(messages.iter().any(|m| m.contains("static scheduler") && m.contains("`worker`")));
    }

    #[test]
    fn broker_schedulers_take_a_worker_but_no_victim_or_steal() {
        for s in ["bq", "bwd", "bsq"] {
            let name = syn::Ident::new(s, Span::call_site());
            let text = parse(quote!(scheduler = #name, worker = block, capacity = 1024)).unwrap().to_const().to_string();
            let variant = format!("Scheduler :: {}", s[..1].to_uppercase() + &s[1..]);
            assert!(text.contains(&variant), "{text}");
            let e = parse(quote!(scheduler = #name, victim = pws, steal = half)).unwrap_err();
            let messages: Vec<String> = e.into_iter().map(|e| e.to_string()).collect();
            assert_eq!(messages.len(), 2, "{messages:#?}");
            assert!(messages.iter().all(|m| m.contains(&format!("the {s} scheduler")) && m.contains("does not apply")));
        }
    }

    #[test]
    fn the_recursion_limit_is_no_scheduler_setting() {
        let a = parse(quote!(recursion_limit = 40)).unwrap();
        assert_eq!(a.recursion_limit, Some(40));
        assert!(a.is_empty(), "no SCHEDULE const for it");
        assert!(parse(quote!(recursion_limit = 0)).unwrap_err().to_string().contains("at least 1"));
    }

    #[test]
    fn order_priority_needs_a_broker_scheduler_and_one_task_per_thread() {
        let text = parse(quote!(order = priority, scheduler = bwd)).unwrap().to_const().to_string();
        assert!(text.contains("Order :: Priority"), "{text}");
        assert!(parse(quote!(order = priority)).unwrap().ordered());
        assert!(!parse(quote!(order = none)).unwrap().ordered());
        for s in ["deque", "static", "bsq"] {
            let name = syn::Ident::parse_any.parse_str(s).unwrap();
            let e = parse(quote!(order = priority, scheduler = #name)).unwrap_err().to_string();
            assert!(e.contains("scheduler = bq or bwd") && e.contains(&format!("not scheduler = {s}")), "{e}");
        }
        let e = parse(quote!(order = priority, cooperative)).unwrap_err().to_string();
        assert!(e.contains("cooperative"), "{e}");
        assert!(parse(quote!(order = fifo)).unwrap_err().to_string().contains("the choices are: none, priority"));
    }

    #[test]
    fn duplicate_keys_are_errors() {
        let e = parse(quote!(worker = warp, worker = block)).unwrap_err();
        assert!(e.to_string().contains("given twice"));
    }
}
