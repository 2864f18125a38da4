//! The rules of the workspace's layout, checked on its sources (README.md, "How the code is
//! laid out"): the contract imports no backend; a scheduler imports no target (neither the
//! GPU nor the emulation); nothing outside `gpu/` reaches the multi-GPU code; the kernel
//! cache imports nothing of the runtime but itself; no import loop crosses from one part of
//! the runtime to another; and no crate compiles another's sources by `#[path]`. In the graph
//! library, the kernels import none of the calls built on them, and no call another; and
//! neither the facade nor the runtime depends on the graph library (its kernels are written
//! with the facade). Imports are read from `use crate::...` and `use super::...` items.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target" && n != ".git") {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The module a file of a crate's `src/` defines, as its path from the crate root.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("a file under src/").with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The source without its comments (line and block), so that a path in a comment is no import.
fn without_comments(text: &str) -> String {
    let (mut out, mut chars) = (String::new(), text.chars().peekable());
    let mut in_str = false;
    while let Some(c) = chars.next() {
        if in_str {
            out.push(c);
            if c == '\\' {
                out.extend(chars.next());
            } else if c == '"' {
                in_str = false;
            }
        } else if c == '"' {
            in_str = true;
            out.push(c);
        } else if c == '/' && chars.peek() == Some(&'/') {
            for c in chars.by_ref() {
                if c == '\n' {
                    out.push('\n');
                    break;
                }
            }
        } else if c == '/' && chars.peek() == Some(&'*') {
            chars.next();
            let mut last = ' ';
            for c in chars.by_ref() {
                if last == '*' && c == '/' {
                    break;
                }
                last = c;
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The paths a `use` tree names, each as its segments: `a::{b, c::{d, e}}` is `a::b`, `a::c::d`,
/// `a::c::e`.
fn expand_tree(tree: &str) -> Vec<Vec<String>> {
    // `x as y` names `x`: the alias goes, then the spaces.
    let mut words = Vec::new();
    let mut it = tree.split_whitespace();
    while let Some(w) = it.next() {
        if w == "as" {
            let alias = it.next().unwrap_or_default();
            // The alias may carry the punctuation that follows it (`y,` or `y}`).
            words.push(alias.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_').to_string());
        } else {
            words.push(w.to_string());
        }
    }
    let tree: String = words.concat();
    fn go(prefix: &[String], t: &str, out: &mut Vec<Vec<String>>) {
        let Some(open) = t.find('{') else {
            let mut path = prefix.to_vec();
            path.extend(t.split("::").filter(|s| !s.is_empty()).map(str::to_string));
            out.push(path);
            return;
        };
        let mut path = prefix.to_vec();
        path.extend(t[..open].split("::").filter(|s| !s.is_empty()).map(str::to_string));
        let inner = &t[open + 1..t.rfind('}').expect("a closing brace")];
        let (mut depth, mut start) = (0, 0);
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    go(&path, &inner[start..i], out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        if start < inner.len() {
            go(&path, &inner[start..], out);
        }
    }
    let mut out = Vec::new();
    go(&[], &tree, &mut out);
    out
}

/// The `use crate::..` and `use super::..` paths of `text`, made absolute from `module`.
fn imports(text: &str, module: &[String]) -> Vec<Vec<String>> {
    let text = without_comments(text);
    // A file's unit tests (its last item, by the crate's convention) may import anything.
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    let mut out = Vec::new();
    // A `use` item starts a line (after its visibility); it ends at the next `;`.
    let mut starts = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let item = ["use ", "pub use ", "pub(crate) use ", "pub(super) use "].iter().find(|p| trimmed.starts_with(**p));
        if let Some(prefix) = item {
            starts.push(at + (line.len() - trimmed.len()) + prefix.len());
        }
        at += line.len();
    }
    for start in starts {
        let Some(end) = text[start..].find(';') else { continue };
        let tree = text[start..start + end].trim();
        for path in expand_tree(tree) {
            let absolute = match path.first().map(String::as_str) {
                Some("crate") => path[1..].to_vec(),
                Some("super") => {
                    // `super` of module `a::b` (`a/b.rs`) is `a`, of module `a` (`a/mod.rs`) the root.
                    let mut base = module.to_vec();
                    let mut segs = &path[..];
                    while segs.first().map(String::as_str) == Some("super") {
                        base.pop();
                        segs = &segs[1..];
                    }
                    base.extend(segs.iter().cloned());
                    base
                }
                _ => continue,
            };
            out.push(absolute.into_iter().filter(|s| s != "self" && s != "*").collect());
        }
    }
    out
}

/// The module graph of the crate whose sources are `src`: each module and the modules it
/// imports (the longest prefix of an imported path that is a module).
fn graph(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let files = rust_files(src);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(src, f)).collect();
    let mut edges = BTreeMap::new();
    for file in &files {
        let module = module_of(src, file);
        let text = std::fs::read_to_string(file).expect("a readable source");
        let targets: &mut BTreeSet<Vec<String>> = edges.entry(module.clone()).or_default();
        for path in imports(&text, &module) {
            let target = (0..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| modules.contains(p));
            if let Some(target) = target.filter(|t| *t != module) {
                targets.insert(target);
            }
        }
    }
    edges
}

fn name(module: &[String]) -> String {
    if module.is_empty() { "crate".into() } else { module.join("::") }
}

/// The part of the runtime a module belongs to: its top folder, and within `gpu/` its second.
fn part(module: &[String]) -> String {
    match module {
        [gpu, second, ..] if gpu == "gpu" => format!("gpu::{second}"),
        [first, ..] => first.clone(),
        [] => "crate".into(),
    }
}

/// Strongly connected components of more than one module (Tarjan).
fn loops(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct State<'a> {
        edges: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'a [String], usize>,
        low: BTreeMap<&'a [String], usize>,
        stack: Vec<&'a [String]>,
        on: BTreeSet<&'a [String]>,
        out: Vec<Vec<Vec<String>>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a [String]) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on.insert(v);
        if let Some(ws) = s.edges.get(v) {
            for w in ws {
                let w: &'a [String] = w;
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let low = s.low[v].min(s.low[w]);
                    s.low.insert(v, low);
                } else if s.on.contains(w) {
                    let low = s.low[v].min(s.index[w]);
                    s.low.insert(v, low);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                component.push(w.to_vec());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State { edges, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on: BTreeSet::new(), out: Vec::new() };
    for v in edges.keys() {
        if !s.index.contains_key(v.as_slice()) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// The violations of the runtime's rules in the module graph `edges`.
fn runtime_violations(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<String> {
    let is = |m: &[String], prefix: &[&str]| m.len() >= prefix.len() && m.iter().zip(prefix).all(|(a, b)| a == b);
    let mut found = Vec::new();
    for (from, targets) in edges {
        for to in targets {
            if is(from, &["contract"]) && !(is(to, &["contract"]) || is(to, &["error"]) || is(to, &["stats"])) {
                found.push(format!("the contract imports beyond itself: {} imports {}", name(from), name(to)));
            }
            if is(from, &["gpu", "schedulers"]) && (is(to, &["gpu", "device"]) || is(to, &["gpu", "emulate"]) || is(to, &["gpu", "multi"])) {
                found.push(format!("a scheduler imports a target: {} imports {}", name(from), name(to)));
            }
            if !is(from, &["gpu"]) && (is(to, &["gpu", "multi"]) || is(to, &["gpu", "nvshmem"])) {
                found.push(format!("only gpu/ may reach several GPUs: {} imports {}", name(from), name(to)));
            }
            if is(from, &["cache"]) && !is(to, &["cache"]) {
                found.push(format!("the cache is a leaf (its users import it, it imports none of them): {} imports {}", name(from), name(to)));
            }
        }
    }
    for component in loops(edges) {
        let parts: BTreeSet<String> = component.iter().map(|m| part(m)).collect();
        if parts.len() > 1 {
            let names: Vec<String> = component.iter().map(|m| name(m)).collect();
            found.push(format!("an import loop crosses {}: {}", parts.into_iter().collect::<Vec<_>>().join(", "), names.join(" -> ")));
        }
    }
    found
}

/// The violations of the graph library's rules in its module graph `edges`: `kernels` imports
/// nothing of the crate but itself and `run` (what every call reports); a call's module
/// (any other top module but `reference`, `run` and the crate root) imports no other call's.
fn graph_library_violations(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<String> {
    let top = |m: &[String]| m.first().cloned().unwrap_or_default();
    let shared = ["kernels", "reference", "run", ""];
    let mut found = Vec::new();
    for (from, targets) in edges {
        for to in targets {
            let (f, t) = (top(from), top(to));
            if f == "kernels" && t != "kernels" && t != "run" {
                found.push(format!("the kernels import a call built on them: {} imports {}", name(from), name(to)));
            }
            if !shared.contains(&f.as_str()) && !shared.contains(&t.as_str()) && f != t {
                found.push(format!("a call imports another: {} imports {}", name(from), name(to)));
            }
        }
    }
    for component in loops(edges) {
        found.push(format!("an import loop: {}", component.iter().map(|m| name(m)).collect::<Vec<_>>().join(" -> ")));
    }
    found
}

/// The names of the `[dependencies]` of the manifest `text` (not the dev- or build-dependencies).
fn dependencies(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
        } else if inside && !line.is_empty() && !line.starts_with('#') {
            names.extend(line.split(['=', '.', ' ']).next().map(str::to_string));
        }
    }
    names
}

/// `#[path = ".."]` attributes whose file lies outside the crate of the file that has them.
fn foreign_paths(root: &Path) -> Vec<String> {
    let crate_dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("the workspace")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    let mut found = Vec::new();
    for file in rust_files(root) {
        let text = without_comments(&std::fs::read_to_string(&file).expect("a readable source"));
        // The facade crate is the workspace root; every other crate is a folder of its own.
        let own = crate_dirs.iter().find(|d| file.starts_with(d)).cloned().unwrap_or_else(|| root.to_path_buf());
        let mut rest = text.as_str();
        while let Some(at) = rest.find("#[path") {
            rest = &rest[at..];
            let value = rest.split('"').nth(1).unwrap_or_default();
            let target = file.parent().expect("a folder").join(value);
            let normal: PathBuf = target.components().fold(PathBuf::new(), |mut p, c| {
                match c {
                    std::path::Component::ParentDir => {
                        p.pop();
                    }
                    other => p.push(other),
                }
                p
            });
            let inside_other = crate_dirs.iter().any(|d| d != &own && normal.starts_with(d));
            if !normal.starts_with(&own) || inside_other {
                found.push(format!("{} includes {} by #[path]", file.strip_prefix(root).unwrap_or(&file).display(), value));
            }
            rest = &rest[6..];
        }
    }
    found
}

#[test]
fn the_runtime_keeps_its_layers() {
    let edges = graph(&workspace().join("wsdsl-runtime/src"));
    assert!(edges.contains_key(&vec!["contract".to_string()]), "the runtime's sources were found");
    let found = runtime_violations(&edges);
    assert!(found.is_empty(), "the runtime's layout rules are broken (README.md, \"How the code is laid out\"):\n  {}", found.join("\n  "));
}

#[test]
fn the_graph_library_keeps_its_layers() {
    let edges = graph(&workspace().join("wsdsl-graph/src"));
    assert!(edges.contains_key(&vec!["kernels".to_string(), "relax".to_string()]), "the graph library's sources were found");
    let found = graph_library_violations(&edges);
    assert!(found.is_empty(), "the graph library's layout rules are broken (README.md, \"How the code is laid out\"):\n  {}", found.join("\n  "));
}

#[test]
fn neither_the_facade_nor_the_runtime_depends_on_the_graph_library() {
    for manifest in ["Cargo.toml", "wsdsl-runtime/Cargo.toml", "wsdsl-macros/Cargo.toml", "wsdsl-abi/Cargo.toml"] {
        let text = std::fs::read_to_string(workspace().join(manifest)).expect("a manifest");
        let deps = dependencies(&text);
        assert!(!deps.is_empty() || manifest.contains("abi"), "{manifest}: its dependencies were found");
        assert!(!deps.iter().any(|d| d == "wsdsl-graph"), "{manifest} depends on wsdsl-graph, whose kernels are written with the facade: a cycle");
    }
    assert_eq!(dependencies("[dependencies]\nwsdsl = { path = \"..\" }\nrayon.workspace = true\n[dev-dependencies]\nwsdsl-graph = \"1\"\n"), ["wsdsl", "rayon"]);
}

#[test]
fn no_crate_compiles_another_crates_sources() {
    let found = foreign_paths(&workspace());
    assert!(found.is_empty(), "sources included across crates (depend on the crate instead):\n  {}", found.join("\n  "));
}

/// The rules catch what they are for: each forbidden import, added to a graph, is reported.
#[test]
fn the_rules_catch_each_forbidden_import() {
    let m = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
    let base: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = [
        ("contract::spawned", vec!["contract::jobs", "error"]),
        ("cpu::tree", vec!["contract::spawned"]),
        ("gpu::schedulers::deque", vec!["gpu::run::target"]),
        ("gpu::run::runner", vec!["gpu::schedulers"]),
        ("runtime", vec!["gpu", "cpu"]),
        ("gpu::build::compile", vec!["cache"]),
        ("cache::entry", vec!["cache::hash"]),
    ]
    .into_iter()
    .map(|(from, to)| (m(from), to.into_iter().map(m).collect()))
    .collect();
    assert!(runtime_violations(&base).is_empty(), "{:?}", runtime_violations(&base));
    for (from, to, says) in [
        ("contract::spawned", "cpu::limits", "the contract imports beyond itself"),
        ("gpu::schedulers::deque", "gpu::device::target", "a scheduler imports a target"),
        ("runtime", "gpu::multi::process", "only gpu/ may reach several GPUs"),
        ("cache::entry", "gpu::build::assemble", "the cache is a leaf"),
        ("gpu::schedulers", "gpu::run::runner", "an import loop crosses gpu::run, gpu::schedulers"),
    ] {
        let mut edges = base.clone();
        edges.entry(m(from)).or_default().insert(m(to));
        let found = runtime_violations(&edges);
        assert!(found.iter().any(|f| f.contains(says)), "{from} -> {to}: {found:?}");
    }
    assert_eq!(expand_tree("crate::a::{b, c::{d, e as f}}"), vec![m("crate::a::b"), m("crate::a::c::d"), m("crate::a::c::e")]);

    let library: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = [
        ("kernels::bfs", vec!["kernels::relax", "run"]),
        ("bfs", vec!["kernels::bfs", "run"]),
        ("sssp", vec!["kernels::relax", "reference"]),
    ]
    .into_iter()
    .map(|(from, to)| (m(from), to.into_iter().map(m).collect()))
    .collect();
    assert!(graph_library_violations(&library).is_empty(), "{:?}", graph_library_violations(&library));
    for (from, to, says) in [
        ("kernels::relax", "sssp", "the kernels import a call built on them"),
        ("bfs", "sssp", "a call imports another"),
        ("kernels::relax", "kernels::bfs", "an import loop"),
    ] {
        let mut edges = library.clone();
        edges.entry(m(from)).or_default().insert(m(to));
        let found = graph_library_violations(&edges);
        assert!(found.iter().any(|f| f.contains(says)), "{from} -> {to}: {found:?}");
    }
}
