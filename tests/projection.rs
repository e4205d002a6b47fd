//! Projection fixtures: a small repository per language goes through the real
//! `nerd index`, and the symbols, resolved calls, unresolved calls, test links,
//! imports, methods of classes and parse errors it yields are compared, as sets, to the fixture's
//! `expected.txt`. The world an index run keeps in memory gives the facts the
//! store gives back.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use nerd::kernel::{self, LoadFor};
use nerd::store::Store;

use common::{copy_fixture, nerd, query};

fn arg(atom: &serde_json::Value, i: usize) -> String {
    match &atom["args"][i] {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn actual(dir: &std::path::Path) -> BTreeMap<&'static str, BTreeSet<String>> {
    let mut out: BTreeMap<&'static str, BTreeSet<String>> = BTreeMap::new();
    for a in query(dir, "symbol") {
        out.entry("symbol").or_default().insert(format!("{} {} {}", arg(&a, 1), arg(&a, 2), arg(&a, 0)));
    }
    for a in query(dir, "calls") {
        out.entry("call").or_default().insert(format!("{} -> {} {}", arg(&a, 0), arg(&a, 1), arg(&a, 4)));
    }
    for a in query(dir, "unresolved_call") {
        out.entry("unresolved").or_default().insert(format!("{} -> {}", arg(&a, 0), arg(&a, 1)));
    }
    for a in query(dir, "test_of") {
        out.entry("test_of").or_default().insert(format!("{} -> {}", arg(&a, 0), arg(&a, 1)));
    }
    for a in query(dir, "imports") {
        out.entry("import").or_default().insert(format!("{} -> {}", arg(&a, 0), arg(&a, 1)));
    }
    for a in query(dir, "method_of") {
        out.entry("method_of").or_default().insert(format!("{} -> {}", arg(&a, 0), arg(&a, 1)));
    }
    for a in query(dir, "implicit_method") {
        out.entry("implicit_method").or_default().insert(arg(&a, 0));
    }
    for a in query(dir, "parse_error") {
        out.entry("parse_error").or_default().insert(arg(&a, 0));
    }
    out
}

fn check(lang: &str) {
    let dir = copy_fixture(&format!("projection/{lang}"));
    let index = nerd(dir.path(), &["index", ".", "--json"]);
    assert!(index.status.success(), "{}", String::from_utf8_lossy(&index.stderr));
    let expected_text = std::fs::read_to_string(dir.path().join("expected.txt")).unwrap();
    let mut expected: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for line in expected_text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let (kind, rest) = line.split_once(' ').unwrap();
        expected.entry(kind).or_default().insert(rest.to_string());
    }
    let actual = actual(dir.path());
    for (kind, want) in &expected {
        let got = actual.get(kind).cloned().unwrap_or_default();
        if kind == &"unresolved" {
            // Library calls are many; the listed ones must be among them.
            let missing: Vec<_> = want.difference(&got).collect();
            assert!(missing.is_empty(), "{lang}: unresolved calls missing: {missing:?}\nall: {got:#?}");
        } else {
            assert_eq!(&got, want, "{lang}: {kind}");
        }
    }
}

#[test]
fn rust_projection() {
    check("rust");
}

#[test]
fn go_projection() {
    check("go");
}

#[test]
fn python_projection() {
    check("python");
}

#[test]
fn typescript_and_tsx_projection() {
    check("typescript");
}

/// Bare imports of workspace packages (by name and export subpath) and of
/// tsconfig path aliases reach the workspace's sources; others stay external.
#[test]
fn typescript_workspace_packages_and_path_aliases() {
    check("typescript-packages");
}

/// The facts of the world an index run kept, and of the same world read back from the store.
fn kept_and_stored(root: &Path) -> (String, String) {
    let mut store = Store::open(root).unwrap();
    let (_, resolved) = nerd::index::index_keeping(root, &mut store, &|_, _| {}).unwrap();
    let resolved = resolved.expect("the run changed the world");
    let kept = kernel::load_resolved(root, &store, resolved.projections, resolved.resolution).unwrap();
    let stored = kernel::load(root, &store, LoadFor::Evaluation).unwrap();
    (format!("{:?}", kept.facts()), format!("{:?}", stored.facts()))
}

#[test]
fn the_world_an_index_run_keeps_gives_the_facts_the_store_gives() {
    let dir = copy_fixture("projection");
    let (kept, stored) = kept_and_stored(dir.path());
    assert!(kept.len() > 10_000, "a world of several languages: {} bytes of facts", kept.len());
    assert!(kept == stored, "a cold index");
    // A warm run: one file edited, one removed, one added.
    let edited = dir.path().join("python/shop/pricing.py");
    assert!(edited.exists(), "the fixture has python/shop/pricing.py");
    let mut text = std::fs::read_to_string(&edited).unwrap();
    text.push_str("\n\ndef added_later():\n    return added_too()\n");
    std::fs::write(&edited, text).unwrap();
    std::fs::write(dir.path().join("python/shop/added.py"), "def added_too():\n    return 1\n").unwrap();
    std::fs::remove_file(dir.path().join("go/legacy/cart.go")).unwrap();
    let (kept, stored) = kept_and_stored(dir.path());
    assert!(kept == stored, "a warm index");
}
