//! The architecture's layering, checked against the code: every module of
//! `src/` belongs to a layer and may only use modules of lower layers, and
//! neither crate has an import cycle between its files. Imports are read from
//! the source text (`crate::x`, `super::x`), test modules excluded, so a new
//! upward import fails here before anyone has to notice it in review.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers of `src/`, lowest first; a module may use modules of strictly lower layers.
const LAYERS: &[&[&str]] = &[
    &["digest", "embed", "timing", "words", "hosts", "secrets", "hrf", "articulate", "files"],
    &["sandbox", "diff", "scratch"],
    &["exec", "world", "browser"],
    &["config", "store", "hook"],
    &["model", "audit", "index", "kernel", "check", "memory"],
    &["perceive", "policy", "watch"],
    &["specialist"],
    &["router", "precise"],
    &["agent"],
    &["error"],
    &["cli"],
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The file's code before its test module, without comments.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn src_modules_only_use_lower_layers() {
    let layer_of: BTreeMap<&str, usize> =
        LAYERS.iter().enumerate().flat_map(|(i, mods)| mods.iter().map(move |m| (*m, i))).collect();
    let src = root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut violations = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        if matches!(top.as_str(), "lib" | "main") {
            continue;
        }
        let Some(&own) = layer_of.get(top.as_str()) else {
            violations.push(format!("{}: module `{top}` is in no layer; add it to LAYERS", rel.display()));
            continue;
        };
        for used in paths_after(&code(file), "crate::").iter().filter_map(|p| p.first()).map(String::as_str) {
            if used == top {
                continue;
            }
            match layer_of.get(used) {
                Some(&theirs) if theirs < own => {}
                Some(_) => violations.push(format!("{}: `{top}` uses `{used}`, which is not below it", rel.display())),
                None => violations.push(format!("{}: uses `crate::{used}`, which is in no layer", rel.display())),
            }
        }
    }
    assert!(violations.is_empty(), "layering broken:\n{}", violations.join("\n"));
}

/// The module path of a file (`src/agent/steps/mod.rs` → `agent::steps`).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().to_string()).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts
}

fn ident(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// The module paths written after `prefix` in `text`: `crate::a::b::C` gives
/// `[a, b, C]`; `super::{x, y::z}` gives `[x]` and `[y, z]`.
fn paths_after(text: &str, prefix: &str) -> Vec<Vec<String>> {
    fn path(mut s: &str, base: Vec<String>, out: &mut Vec<Vec<String>>) {
        let mut segments = base;
        loop {
            s = s.trim_start();
            if let Some(group) = s.strip_prefix('{') {
                let mut depth = 0;
                let mut item_start = 0;
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            path(&group[item_start..i], segments.clone(), out);
                            return;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            path(&group[item_start..i], segments.clone(), out);
                            item_start = i + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            let (name, rest) = ident(s);
            if name.is_empty() {
                break;
            }
            segments.push(name.to_string());
            match rest.strip_prefix("::") {
                Some(more) => s = more,
                None => break,
            }
        }
        out.push(segments);
    }
    let mut out = Vec::new();
    for (i, _) in text.match_indices(prefix) {
        path(&text[i + prefix.len()..], Vec::new(), &mut out);
    }
    out
}

/// File-level import edges of a crate: module path → the module paths it uses.
fn file_graph(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(f.strip_prefix(src).unwrap())).collect();
    // The longest module that is a file, among the prefixes of a path.
    let resolve = |path: &[String]| -> Option<Vec<String>> {
        (1..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| modules.contains(p))
    };
    let mut graph = BTreeMap::new();
    for file in &files {
        let me = module_of(file.strip_prefix(src).unwrap());
        let text = code(file);
        let parent = me[..me.len().saturating_sub(1)].to_vec();
        let mut uses = BTreeSet::new();
        let relative = paths_after(&text, "super::").into_iter().map(|p| parent.iter().cloned().chain(p).collect());
        for full in paths_after(&text, "crate::").into_iter().chain(relative) {
            let full: Vec<String> = full;
            if let Some(target) = resolve(&full) {
                // A parent declares its children; that is not a use in the other direction.
                if target != me && !target.starts_with(&me) && !me.starts_with(&target) {
                    uses.insert(target);
                }
            }
        }
        graph.insert(me, uses);
    }
    graph
}

/// A cycle of the graph, if there is one.
fn find_cycle(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Option<Vec<String>> {
    fn visit(
        node: &Vec<String>,
        graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
    ) -> Option<Vec<String>> {
        state.insert(node.clone(), 1);
        stack.push(node.clone());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next) {
                Some(1) => {
                    let start = stack.iter().position(|n| n == next).unwrap_or(0);
                    return Some(stack[start..].iter().chain([next]).map(|m| m.join("::")).collect());
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(next, graph, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(node.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if !state.contains_key(node) {
            if let Some(c) = visit(node, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn neither_crate_has_an_import_cycle() {
    for src in [root().join("src"), root().join("logic/src")] {
        let graph = file_graph(&src);
        assert!(graph.len() > 10, "{} has too few modules to be read right", src.display());
        if let Some(cycle) = find_cycle(&graph) {
            panic!("import cycle in {}: {}", src.display(), cycle.join(" -> "));
        }
    }
}
