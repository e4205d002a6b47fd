//! `nerd context` through the real binary on a small Python project: the
//! kernel's spreading activation starts at the failing test (or the named
//! target), the code it reaches is selected within the token budget with the
//! path that reached it, and what the request does not reach stays out.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |path: &str, text: &str| {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    };
    write("billing/__init__.py", "");
    write(
        "billing/retry.py",
        "def backoff(attempt):\n    return 2 ** attempt\n\n\ndef charge(card, attempts=3):\n    waited = 0\n    for attempt in range(attempts):\n        waited += backoff(attempt)\n    return card, waited\n",
    );
    let mut report = String::from("def report(rows):\n    out = []\n");
    for i in 0..60 {
        report.push_str(&format!("    out.append(rows[{i}] * {i})  # a long unrelated function\n"));
    }
    report.push_str("    return out\n");
    write("billing/reports.py", &report);
    write(
        "tests/test_billing.py",
        "from billing.retry import charge\nfrom billing.reports import report\n\n\ndef test_charge():\n    assert charge('card') == ('card', 7)\n\n\ndef test_report():\n    assert report(list(range(60)))\n",
    );
    common::git(root, &["init", "-q", "-b", "main"]);
    dir
}

/// `nerd context ARGS --json`, recalling by words only (no embedding model).
fn context(root: &Path, args: &[&str]) -> Value {
    context_with(root, &root.join("no-model"), args)
}

/// `nerd context ARGS --json` with the embedding model at `model`.
fn context_with(root: &Path, model: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_nerd"))
        .arg("context")
        .args(args)
        .arg("--json")
        .current_dir(root)
        .env("NERD_EMBEDDING_MODEL", model)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn ids(v: &Value) -> Vec<String> {
    v["context"]["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_string()).collect()
}

const FAILING: &str = "test_outcome(\"tests/test_billing.py::test_charge\", \"tests/test_billing.py\", 6, \"fail\")";

#[test]
fn a_failing_test_selects_what_it_calls_with_the_path_that_reached_it_within_the_budget() {
    let dir = project();
    let v = context(dir.path(), &["fix the failing tests", "--fact", FAILING]);
    let c = &v["context"];
    assert_eq!(c["seeds"], serde_json::json!([["tests/test_billing.py#test_charge", "failing_test"]]));
    let got = ids(&v);
    assert_eq!(
        got[..3],
        ["tests/test_billing.py#test_charge", "billing/retry.py#charge", "billing/retry.py#backoff"],
        "{c:#}"
    );
    let charge = &c["items"][1];
    assert_eq!(charge["score"], 500);
    assert_eq!(
        charge["why"],
        serde_json::json!(["tests/test_billing.py#test_charge (failing_test)", "calls billing/retry.py#charge"])
    );
    assert!(charge["text"].as_str().unwrap().contains("    5 | def charge(card, attempts=3):"), "{charge}");
    assert_eq!(c["items"][2]["score"], 250);
    assert!(c["atoms"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a.as_str().unwrap().starts_with("calls(\"billing/retry.py#charge\", \"billing/retry.py#backoff\"")));
    assert!(c["tokens"].as_u64().unwrap() <= 8000);

    // A budget too small for the unrelated function keeps it out, never the seed or its callees.
    let small = context(dir.path(), &["fix the failing tests", "--fact", FAILING, "--budget", "400"]);
    let kept = ids(&small);
    assert!(kept.contains(&"billing/retry.py#backoff".to_string()), "{kept:?}");
    assert!(!kept.contains(&"billing/reports.py#report".to_string()), "{kept:?}");
    assert!(small["context"]["tokens"].as_u64().unwrap() <= 400, "{small:#}");
    assert!(small["context"]["left_out"].as_u64().unwrap() >= 1);
}

#[test]
fn a_named_target_seeds_the_context_and_its_callers_follow_and_nothing_seeds_nothing() {
    let dir = project();
    let v = context(dir.path(), &["explain the backoff function"]);
    let got = ids(&v);
    assert_eq!(got.first().map(String::as_str), Some("billing/retry.py#backoff"), "{v:#}");
    // Its caller at cost 2, and the test calling that caller at cost 4.
    assert!(got.contains(&"billing/retry.py#charge".to_string()), "{got:?}");
    let charge =
        v["context"]["items"].as_array().unwrap().iter().find(|i| i["id"] == "billing/retry.py#charge").unwrap();
    assert_eq!(charge["why"][1], "called by billing/retry.py#charge");

    let none = context(dir.path(), &["what is the weather like"]);
    assert_eq!(none["context"]["items"], serde_json::json!([]));
    let out = Command::new(env!("CARGO_BIN_EXE_nerd"))
        .args(["context", "what is the weather like"])
        .current_dir(dir.path())
        .env("NERD_EMBEDDING_MODEL", dir.path().join("no-model"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to start from"));
    let bad = Command::new(env!("CARGO_BIN_EXE_nerd"))
        .args(["context", "fix it", "--fact", "impacted(\"x\")"])
        .current_dir(dir.path())
        .env("NERD_EMBEDDING_MODEL", dir.path().join("no-model"))
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2), "a derived atom is not a fact");
}

#[test]
fn a_request_naming_no_code_is_seeded_by_what_recall_finds_by_meaning_and_nonsense_by_nothing() {
    let dir = project();
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/models/all-MiniLM-L6-v2");
    assert!(model.join("model.safetensors").is_file(), "run scripts/install-embedder (scripts/test does)");
    let v = context_with(dir.path(), &model, &["how long do we wait between failed charges"]);
    assert_eq!(v["context"]["seeds"], serde_json::json!([]), "the request names no code: {v:#}");
    let atoms: Vec<&str> = v["context"]["atoms"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert!(
        atoms.iter().any(|a| a.starts_with(r#"vector_recall("request", "billing/retry.py#charge", "#)),
        "{atoms:#?}"
    );
    let got = ids(&v);
    assert_eq!(got.first().map(String::as_str), Some("billing/retry.py#charge"), "{v:#}");
    // What it calls follows, on the path from the recalled start.
    assert!(got.contains(&"billing/retry.py#backoff".to_string()), "{got:?}");
    let first = &v["context"]["items"][0];
    assert!(first["why"][0].as_str().unwrap().contains("recalled for the request, score 0."), "{first}");
    // The long unrelated function is not recalled.
    assert!(!got.contains(&"billing/reports.py#report".to_string()), "{got:?}");
    // A request about nothing in the code recalls nothing, by meaning or by words.
    let none = context_with(dir.path(), &model, &["what is the weather like"]);
    assert_eq!(none["context"]["items"], serde_json::json!([]), "{none:#}");
}

/// Told which tests passed in the same run, context weighs what only the
/// failing test runs above what a passing test runs as well (Ochiai): the
/// loader every test goes through drops, the failing test's own path keeps
/// its score, and the passing test itself comes last.
#[test]
fn the_tests_that_passed_weigh_down_what_they_run_too() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("shop")).unwrap();
    std::fs::create_dir_all(root.join("tests")).unwrap();
    std::fs::write(root.join("shop/__init__.py"), "").unwrap();
    std::fs::write(
        root.join("shop/cart.py"),
        "def load(raw):\n    return list(raw)\n\n\ndef tax(total):\n    return total * 0.2\n\n\n\
         def checkout(cart):\n    return sum(cart) + tax(sum(cart))\n",
    )
    .unwrap();
    std::fs::write(
        root.join("tests/test_cart.py"),
        "from shop.cart import checkout, load\n\n\ndef test_checkout():\n    assert checkout(load([1, 2])) == 3.6\n\n\n\
         def test_load():\n    assert load([1]) == [1]\n",
    )
    .unwrap();
    common::git(root, &["init", "-q", "-b", "main"]);
    let failing = "test_outcome(\"test_checkout\", \"tests/test_cart.py\", 4, \"fail\")";
    let passing = "test_outcome(\"test_load\", \"tests/test_cart.py\", 8, \"pass\")";
    let score = |v: &Value, id: &str| {
        let items = v["context"]["items"].as_array().unwrap();
        items.iter().find(|i| i["id"] == id).map(|i| i["score"].as_u64().unwrap())
    };
    let failing_only = context(root, &["fix the failing tests", "--fact", failing]);
    let both = context(root, &["fix the failing tests", "--fact", failing, "--fact", passing]);
    assert_eq!(score(&failing_only, "shop/cart.py#load"), Some(500), "{failing_only:#}");
    // Run by the failing test and the passing one: 500 * (1/8 + 7/8 / sqrt(2)).
    assert_eq!(score(&both, "shop/cart.py#load"), Some(372), "{both:#}");
    for id in ["shop/cart.py#checkout", "shop/cart.py#tax"] {
        assert_eq!(score(&both, id), score(&failing_only, id), "{id} only the failing test runs");
    }
    let last = ids(&both);
    assert_eq!(last.last().map(String::as_str), Some("tests/test_cart.py#test_load"), "{last:?}");
}
