//! The CUDA template library carries the contract's numbers as `#define`s and `enum`s; the
//! macros and the runtime take them from `wsdsl-abi`. Here the headers are read and every
//! number compared with the crate's, so that neither side can change alone.

use std::collections::BTreeMap;
use wsdsl_abi::jobs::{JobKind, NO_RESULT, RESULT_WORDS, SORT_MAX};
use wsdsl_abi::schedule::{Scheduler, Victim};
use wsdsl_abi::stats::{COUNTER_WORDS, PROFILE, WORKER_COUNTERS};
use wsdsl_abi::status::Status;

fn header(path: &str) -> String {
    let file = format!("{}/cuda/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// `#define NAME VALUE` lines whose value is a number (`1u`, `0xffffffffu`, `256`).
fn defines(text: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if words.next() != Some("#define") {
            continue;
        }
        let (Some(name), Some(value)) = (words.next(), words.next()) else { continue };
        let digits = value.trim_end_matches(['u', 'U', 'l', 'L']);
        let number = match digits.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => digits.parse().ok(),
        };
        if let Some(n) = number {
            out.insert(name.to_string(), n);
        }
    }
    out
}

/// The members of the first `enum { ... }` of `text` that holds `first`, with their values
/// (an explicit `= N`, else one more than the member before, as C numbers them).
fn enum_members(text: &str, first: &str) -> Vec<(String, u64)> {
    let start = text.find(first).unwrap_or_else(|| panic!("no enum member {first}"));
    let open = text[..start].rfind('{').expect("the enum's brace");
    let close = open + text[open..].find('}').expect("the enum's end");
    let body: String = text[open + 1..close].lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join(" ");
    let mut next = 0u64;
    let mut out = Vec::new();
    for member in body.split(',').map(str::trim).filter(|m| !m.is_empty()) {
        let (name, value) = match member.split_once('=') {
            Some((n, v)) => (n.trim(), v.trim().trim_end_matches(['u', 'U']).parse::<u64>().expect("a number")),
            None => (member, next),
        };
        out.push((name.to_string(), value));
        next = value + 1;
    }
    out
}

#[test]
fn job_kinds_and_limits_match_the_jobs_header() {
    let d = defines(&header("features/parallel.cuh"));
    for kind in JobKind::ALL {
        assert_eq!(d.get(kind.device_name()), Some(&(kind.code() as u64)), "{} ({:?})", kind.device_name(), kind);
    }
    assert_eq!(d.get("WS_JOB_RESULT_WORDS"), Some(&(RESULT_WORDS as u64)));
    assert_eq!(d.get("WS_JOB_SORT_MAX"), Some(&(SORT_MAX as u64)));
    assert_eq!(d.get("WS_JOB_NO_RESULT"), Some(&(NO_RESULT as u64)));
}

#[test]
fn status_codes_match_the_status_header() {
    let members = enum_members(&header("core/status.cuh"), "WS_STATUS_OK");
    let expected: Vec<(String, u64)> = Status::ALL.iter().map(|s| (s.device_name().to_string(), s.code())).collect();
    assert_eq!(members, expected);
}

#[test]
fn worker_statistics_match_the_stats_header() {
    let text = header("core/stats.cuh");
    let counters = enum_members(&text, "WS_STAT_TASKS");
    let names: Vec<&str> = counters.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names[..COUNTER_WORDS], WORKER_COUNTERS, "the counters, in order");
    assert_eq!(names[COUNTER_WORDS], "WS_STAT_COUNT");
    let profile = enum_members(&text, "WS_PROF_TOTAL");
    let names: Vec<&str> = profile.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names[..PROFILE.len()], PROFILE, "the profile words, in order");
    assert_eq!(names[PROFILE.len()], "WS_PROF_COUNT");
}

#[test]
fn victim_and_broker_codes_match_their_headers() {
    let d = defines(&header("features/victims.cuh"));
    for victim in Victim::ALL {
        assert_eq!(d.get(victim.device_name()), Some(&(victim.code() as u64)), "{victim:?}");
    }
    // The broker kinds are documented where their queue is configured: `0 BQ, 1 BWD, 2 BSQ`.
    let queue = header("queues/broker_queue.cuh");
    let listed = queue.lines().find(|l| l.contains("WSDSL_BROKER_KIND") && l.contains("BQ,")).expect("the broker kinds' list");
    for s in Scheduler::ALL.into_iter().filter(|s| s.is_broker()) {
        let kind = s.broker_kind().expect("a broker's kind");
        let said = format!("{kind} {}", s.name().to_ascii_uppercase());
        assert!(listed.contains(&said), "{said} in `{listed}`");
    }
}

#[test]
fn the_header_readers_read_what_they_should() {
    let d = defines("#define A 1u\n#define B 0xffu\n#define C (x)\n");
    assert_eq!((d.get("A"), d.get("B"), d.get("C")), (Some(&1), Some(&255), None));
    let e = enum_members("enum { X = 2, // two\n Y, Z = 7 };", "X");
    assert_eq!(e, vec![("X".into(), 2), ("Y".into(), 3), ("Z".into(), 7)]);
}
