//! The precise tier end to end: each projection fixture goes through the real
//! `nerd index --precise` with the language's own indexer (scip-python,
//! scip-typescript, rust-analyzer, gopls; `scripts/install-test-deps` installs
//! them), and every call edge nerd then holds is compared, as a set, with the
//! fixture's `precise.txt`. Also: a missing indexer is a note, not an error,
//! and an edited file falls back to the heuristic tier.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use common::{copy_fixture, nerd, query};

fn arg(atom: &serde_json::Value, i: usize) -> String {
    match &atom["args"][i] {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn edges(dir: &Path) -> BTreeSet<String> {
    query(dir, "calls").iter().map(|a| format!("call {} -> {} {}", arg(a, 0), arg(a, 1), arg(a, 4))).collect()
}

fn index_precise(dir: &Path) -> serde_json::Value {
    let out = nerd(dir, &["index", ".", "--precise", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn check(lang: &str) {
    let dir = copy_fixture(&format!("projection/{lang}"));
    let report = index_precise(dir.path());
    let runs = report["precise"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{lang}: one indexer applies: {runs:?}");
    assert_eq!(runs[0]["status"], "ran", "{lang}: run scripts/install-test-deps first: {:?}", runs[0]);
    let text = std::fs::read_to_string(dir.path().join("precise.txt")).unwrap();
    let expected: BTreeSet<String> =
        text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).map(str::to_string).collect();
    assert_eq!(edges(dir.path()), expected, "{lang}");
}

#[test]
fn python_through_scip_python() {
    check("python");
}

#[test]
fn typescript_through_scip_typescript() {
    check("typescript");
}

#[test]
fn rust_through_rust_analyzer() {
    check("rust");
}

#[test]
fn go_through_gopls() {
    check("go");
}

#[test]
fn a_missing_indexer_is_a_note_and_the_heuristic_tier_stays() {
    let dir = copy_fixture("projection/python");
    let heuristic = {
        let out = nerd(dir.path(), &["index", "."]);
        assert!(out.status.success());
        edges(dir.path())
    };
    // A PATH with the system's programs but not the npm-installed indexers.
    let out = Command::new(env!("CARGO_BIN_EXE_nerd"))
        .args(["index", ".", "--precise"])
        .current_dir(dir.path())
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("precise: scip-python is not installed (npm install -g @sourcegraph/scip-python)"),
        "{stdout}"
    );
    assert_eq!(edges(dir.path()), heuristic);
}

#[test]
fn rust_analyzer_s_run_says_when_cargo_cannot_load_the_crate_here() {
    let dir = copy_fixture("projection/rust");
    let run = |dir: &Path| index_precise(dir)["precise"][0].clone();
    // No Cargo.lock, which the confined cargo may not write.
    let first = run(dir.path());
    assert_eq!(first["status"], "ran", "{first}");
    let note = first["note"].as_str().unwrap_or_default();
    assert!(note.contains("Cargo.lock") && note.contains("cargo metadata --format-version 1"), "{first}");
    // With its lock file and nothing to download, cargo loads it: nothing to say.
    let lock = Command::new("cargo").args(["generate-lockfile", "--offline"]).current_dir(dir.path()).output().unwrap();
    assert!(lock.status.success(), "{}", String::from_utf8_lossy(&lock.stderr));
    let second = run(dir.path());
    assert_eq!((second["status"].as_str(), second["note"].as_str()), (Some("ran"), None), "{second}");
    // A dependency nobody downloaded: said, by name, and the run still stands.
    let manifest = dir.path().join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap() + "\n[dependencies]\nnerd-absent-crate-xyz = \"=0.0.1\"\n";
    std::fs::write(&manifest, text).unwrap();
    let third = run(dir.path());
    assert_eq!(third["status"], "ran", "{third}");
    assert!(third["note"].as_str().unwrap_or_default().contains("nerd-absent-crate-xyz"), "{third}");
}

#[test]
fn an_edited_file_falls_back_to_the_heuristic_tier() {
    let dir = copy_fixture("projection/python");
    index_precise(dir.path());
    let before = edges(dir.path());
    assert!(before.contains("call tests/test_models.py#test_make_cart -> shop/models.py#make_cart precise"));
    let test = dir.path().join("tests/test_models.py");
    let text = std::fs::read_to_string(&test).unwrap();
    std::fs::write(&test, format!("{text}\n# edited\n")).unwrap();
    let after = edges(dir.path());
    assert!(!after.iter().any(|e| e.starts_with("call tests/test_models.py") && e.ends_with("precise")), "{after:#?}");
    assert!(after.contains("call tests/test_models.py#test_make_cart -> shop/models.py#make_cart exact"), "{after:#?}");
    // Files the edit did not touch keep their precise edges.
    assert!(after.contains("call tests/test_session.py#test_get -> shop/session.py#Session.get precise"));
}

#[test]
fn edges_into_an_edited_file_stand_while_their_callee_exists() {
    let dir = copy_fixture("projection/python");
    index_precise(dir.path());
    let models = dir.path().join("shop/models.py");
    let text = std::fs::read_to_string(&models).unwrap();
    std::fs::write(&models, format!("{text}\n# edited\n")).unwrap();
    let edited = edges(dir.path());
    assert!(
        edited.contains("call tests/test_models.py#test_make_cart -> shop/models.py#make_cart precise"),
        "{edited:#?}"
    );
    // Renamed away, the callee is gone: the precise edge goes with it.
    std::fs::write(&models, text.replace("def make_cart", "def build_cart")).unwrap();
    let renamed = edges(dir.path());
    assert!(!renamed.iter().any(|e| e.contains("shop/models.py#make_cart")), "{renamed:#?}");
}
