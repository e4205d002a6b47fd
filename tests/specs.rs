//! Every `example` line of every program specification (`logic/specs/`),
//! through the real analysis and constitution, in a workspace with the files
//! the examples name. Whether a program is installed on this machine is not
//! what the examples test, so "not installed" is set aside; everything else
//! must give exactly the verdict the example states.

use std::path::Path;

use nerd::config::PolicyConfig;
use nerd::policy::{self, Verdict};
use nerd_logic::specs::{self, Expect};
use nerd_logic::vocab::{Autonomy, Category};

/// A workspace with the files the examples name, and a home with secrets.
fn workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws").canonicalize().unwrap_or_else(|_| {
        std::fs::create_dir_all(dir.path().join("ws")).unwrap();
        dir.path().join("ws").canonicalize().unwrap()
    });
    for (path, text) in [
        ("src/lib.rs", "pub fn canary() {}\n"),
        ("src/main.rs", "fn main() {}\n"),
        ("src/old.rs", "\n"),
        ("Cargo.toml", "[package]\nname = \"x\"\n"),
        ("package.json", "{\"name\": \"x\"}\n"),
        ("tsconfig.json", "{}\n"),
        ("go.mod", "module x\n"),
        ("tool.py", "print(1)\n"),
        ("app.js", "1\n"),
        ("tests/test_calc.py", "def test_add(): pass\n"),
        ("tests_py/test_x.py", "def test_x(): pass\n"),
        (".env", "KEY=1\n"),
        (".git/config", "[core]\n"),
        ("node_modules/.bin/tsc", "#!/bin/sh\n"),
    ] {
        let p = ws.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::create_dir_all(home.join(".aws")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "key\n").unwrap();
    (dir, ws)
}

fn verdict(ws: &Path, argv: &[String], query: bool) -> (Verdict, Vec<String>) {
    let action = policy::Action::Exec { argv: argv.to_vec() };
    let intent = if query { Category::Query } else { Category::Mutation };
    let mut facts = policy::decision_facts(ws, &PolicyConfig::default(), &action, intent, Autonomy::Balanced);
    facts.exec_unresolved.clear();
    let fixpoint = nerd_logic::evaluate(facts);
    let decision = policy::verdict(&fixpoint, policy::ACTION_ID, Autonomy::Balanced);
    (decision.decision, decision.reasons)
}

#[test]
fn every_specification_example_gets_its_verdict() {
    let (dir, ws) = workspace();
    std::env::set_var("HOME", dir.path().join("home"));
    let mut failures = Vec::new();
    let mut checked = 0;
    for program in specs::all().unwrap() {
        for ex in &program.examples {
            let want = match ex.expect {
                Expect::Allow => Verdict::Allow,
                Expect::Ask => Verdict::Ask,
                Expect::Deny => Verdict::Deny,
            };
            let (got, reasons) = verdict(&ws, &ex.argv, ex.query);
            checked += 1;
            if got != want {
                failures.push(format!(
                    "{}: {} {:?} under {}: {got:?}, expected {want:?} ({})",
                    ex.line,
                    program.name(),
                    ex.argv,
                    if ex.query { "query" } else { "mutation" },
                    reasons.join("; ")
                ));
            }
        }
    }
    assert!(checked > 150, "only {checked} examples");
    assert!(
        failures.is_empty(),
        "{} of {checked} examples got another verdict:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
