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
    scheduler: Option<(String, Span)>,
    worker: Option<(String, Span)>,
    victim: Option<(String, Span)>,
    steal: Option<(String, Span)>,
    block_threads: Option<u32>,
    capacity: Option<u32>,
    cooperative: Option<(bool, Span)>,
    min_blocks: Option<u32>,
    /// `order = priority`: tasks run lowest band first (`ctx.spawn_with_priority`).
    order: Option<(String, Span)>,
    /// With `order = priority`: bands above the lowest live one the GPU's workers may take from.
    lookahead: Option<(u32, Span)>,
    /// Not a scheduler setting: how deep recursive helpers may call.
    pub recursion_limit: Option<u32>,
}

/// The depth of a cycle's calls a program may reach when its attribute sets none: deep
/// enough for searches down a tree or a list of moves, small enough that the GPU's stack for
/// every resident thread (limit × frame) stays a few GiB.
pub const DEFAULT_RECURSION_LIMIT: u32 = 256;

const SCHEDULERS: &[&str] = &["deque", "static", "bq", "bwd", "bsq"];
const WORKERS: &[&str] = &["thread", "warp", "block"];
const VICTIMS: &[&str] = &["random", "round_robin", "pws", "hws", "small_world"];
const STEALS: &[&str] = &["one", "half"];
const ORDERS: &[&str] = &["none", "priority"];

/// Parses the attribute's arguments, collecting every error.
pub fn parse(args: TokenStream) -> syn::Result<ScheduleAttr> {
    let pairs = Punctuated::<Setting, Token![,]>::parse_terminated.parse2(args)?;
    let mut attr = ScheduleAttr::default();
    let mut errors: Vec<syn::Error> = Vec::new();
    for pair in pairs {
        let key = pair.key.to_string();
        let seen = match key.as_str() {
            "scheduler" => choice(&pair.value, SCHEDULERS, &key).map(|v| attr.scheduler.replace(v).is_some()),
            "worker" => choice(&pair.value, WORKERS, &key).map(|v| attr.worker.replace(v).is_some()),
            "victim" => choice(&pair.value, VICTIMS, &key).map(|v| attr.victim.replace(v).is_some()),
            "steal" => choice(&pair.value, STEALS, &key).map(|v| attr.steal.replace(v).is_some()),
            "order" => choice(&pair.value, ORDERS, &key).map(|v| attr.order.replace(v).is_some()),
            "block_threads" => number(&pair.value, &key).and_then(|n| {
                if n % 32 == 0 && (32..=1024).contains(&n) {
                    Ok(attr.block_threads.replace(n).is_some())
                } else {
                    Err(syn::Error::new_spanned(&pair.value, "block_threads must be a multiple of 32 from 32 to 1024"))
                }
            }),
            "cooperative" => choice(&pair.value, &["true", "false"], &key).map(|(v, span)| attr.cooperative.replace((v == "true", span)).is_some()),
            "min_blocks" => number(&pair.value, &key).and_then(|n| {
                if (1..=32).contains(&n) {
                    Ok(attr.min_blocks.replace(n).is_some())
                } else {
                    Err(syn::Error::new_spanned(&pair.value, "min_blocks must be from 1 to 32 blocks per SM"))
                }
            }),
            "lookahead" => number(&pair.value, &key).and_then(|n| {
                if n <= 31 {
                    Ok(attr.lookahead.replace((n, pair.key.span())).is_some())
                } else {
                    Err(syn::Error::new_spanned(&pair.value, "lookahead must be from 0 to 31 bands (the window holds 32)"))
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
    if let Some((s, _)) = &attr.scheduler {
        if s == "static" {
            for (name, given) in [("worker", &attr.worker), ("victim", &attr.victim), ("steal", &attr.steal)] {
                if let Some((_, span)) = given {
                    errors.push(syn::Error::new(
                        *span,
                        format!("the static scheduler runs one task per thread and never steals, so `{name}` does not apply; remove it or use scheduler = deque"),
                    ));
                }
            }
        }
        if matches!(s.as_str(), "bq" | "bwd" | "bsq") {
            for (name, given) in [("victim", &attr.victim), ("steal", &attr.steal)] {
                if let Some((_, span)) = given {
                    errors.push(syn::Error::new(
                        *span,
                        format!("the {s} scheduler shares broker queues instead of robbing deques, so `{name}` does not apply; remove it or use scheduler = deque"),
                    ));
                }
            }
        }
    }
    if let (Some((true, span)), Some((s, _))) = (&attr.cooperative, &attr.scheduler) {
        if s != "deque" && s != "static" {
            errors.push(syn::Error::new(*span, format!("cooperative tasks need the deque or the static scheduler; scheduler = {s} runs one task per thread")));
        }
    }
    if let Some((_, span)) = attr.order.as_ref().filter(|(o, _)| o == "priority") {
        if let Some((s, _)) = attr.scheduler.as_ref().filter(|(s, _)| !matches!(s.as_str(), "bq" | "bwd")) {
            let why = match s.as_str() {
                "deque" => "its deques are private to their workers, so no worker could see which band is lowest",
                "static" => "it runs whole generations at once",
                _ => "a band per block's queue would multiply the bands' memory by the blocks",
            };
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

/// An identifier or string value that must be one of `allowed`.
fn choice(value: &Value, allowed: &[&str], key: &str) -> syn::Result<(String, Span)> {
    let (text, span) = match value {
        Value::Word(i) => (i.to_string(), i.span()),
        Value::Lit(Lit::Str(s)) => (s.value(), s.span()),
        other => return Err(syn::Error::new_spanned(other, format!("`{key}` takes one of: {}", allowed.join(", ")))),
    };
    if allowed.contains(&text.as_str()) {
        Ok((text, span))
    } else {
        Err(syn::Error::new(span, format!("unknown {key} `{text}`; the choices are: {}", allowed.join(", "))))
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
        self.order.as_ref().is_some_and(|(o, _)| o == "priority")
    }

    /// `const SCHEDULE: Schedule = ...;` for the generated `Program` impl.
    pub fn to_const(&self) -> TokenStream {
        let p = quote!(::wsdsl::__private);
        let variant = |v: &Option<(String, Span)>, ty: TokenStream| match v {
            Some((text, _)) => {
                let name: String = text.split('_').map(|w| w[..1].to_uppercase() + &w[1..]).collect();
                let ident = syn::Ident::new(&name, Span::call_site());
                quote!(::core::option::Option::Some(#p::#ty::#ident))
            }
            None => quote!(::core::option::Option::None),
        };
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
