//! Specialists end to end through the real binary: a specialist defined on a
//! real dependency's sources (rusqlite, as cargo unpacked it for nerd's own
//! build) is researched, passes its viva voce and answers a spawned question
//! from its knowledge with sources; one defined on two pages of Click's docs
//! fails its viva and is refused a spawn; a child asked to write outside its
//! token's scope is refused by its own router and the refusal is in the
//! parent's audit trail; two children run at once; Claude Code subagents are
//! listed; revoking a parent token voids its children's.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

struct Ws {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    state: PathBuf,
}

/// Where cargo unpacked nerd's own dependencies.
fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cargo"))
}

fn workspace() -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (root, home, state) = (base.join("ws"), base.join("home"), base.join("state"));
    for d in [&root, &home, &state] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(
        root.join("calc.py"),
        "def add(a, b):\n    return a + b\n\n\ndef total(xs):\n    return add(xs[0], xs[1])\n",
    )
    .unwrap();
    std::fs::write(
        root.join("test_calc.py"),
        "from calc import add, total\n\n\ndef test_total():\n    assert total([1, 2]) == add(1, 2)\n",
    )
    .unwrap();
    common::git(&root, &["init", "-q", "-b", "main"]);
    common::git(&root, &["add", "-A"]);
    common::git(&root, &["commit", "-q", "-m", "calc"]);
    Ws { _dir: dir, root, home, state }
}

impl Ws {
    /// Runs nerd; `model` says whether the embedding model is there (else recall is by words).
    fn nerd_with(&self, model: bool, args: &[&str]) -> Output {
        let model_dir = if model {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/models/all-MiniLM-L6-v2")
        } else {
            PathBuf::from("/nonexistent/model")
        };
        Command::new(env!("CARGO_BIN_EXE_nerd"))
            .args(args)
            .current_dir(&self.root)
            .env("HOME", &self.home)
            .env("CARGO_HOME", cargo_home())
            .env("XDG_STATE_HOME", &self.state)
            .env("NERD_EMBEDDING_MODEL", model_dir)
            .output()
            .unwrap()
    }

    fn nerd(&self, args: &[&str]) -> Output {
        self.nerd_with(false, args)
    }

    /// Every audit record's body.
    fn audit(&self) -> Vec<Value> {
        common::audit_records(&self.nerd(&["audit", "show", "--json"]))
    }
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn ok(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{}", text(out));
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn agent_json(ws: &Ws, name: &str) -> Value {
    let out = ws.nerd(&["agents", "--json"]);
    String::from_utf8_lossy(&ok(&out).into_bytes())
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed: {}", text(&out)))
}

/// Defines `name` on rusqlite's sources and researches it.
fn rusqlite_specialist(ws: &Ws, name: &str, tools: &str, model: bool) {
    ok(&ws.nerd(&["define-agent", name, "--topic", "SQLite from Rust", "--source", "dep:rusqlite", "--tools", tools]));
    assert_eq!(agent_json(ws, name)["state"], "needs_research");
    let out = ws.nerd_with(model, &["research", name, "--json"]);
    let report: Value = serde_json::from_str(ok(&out).trim()).unwrap();
    assert!(report["atoms"].as_u64().unwrap() > 300, "{report}");
    assert_eq!(report["embedded"].as_u64().unwrap() > 0, model, "{report}");
}

#[test]
fn a_specialist_on_a_dependency_passes_its_viva_and_answers_with_sources() {
    let ws = workspace();
    rusqlite_specialist(&ws, "sql", "read_file,search", true);
    assert_eq!(agent_json(&ws, "sql")["state"], "not_ready", "researched, not yet examined");
    let out = ws.nerd_with(true, &["viva", "sql", "--json"]);
    let viva: Value = serde_json::from_str(ok(&out).trim()).unwrap();
    assert_eq!(viva["ready"], true, "{viva}");
    let (asked, passed) = (viva["asked"].as_u64().unwrap(), viva["passed"].as_u64().unwrap());
    assert!(asked >= 20 && passed * 100 >= asked * 80, "{viva}");
    assert!(viva["chance"].as_f64().unwrap() < 0.4, "answering at random must not pass: {viva}");
    assert_eq!(agent_json(&ws, "sql")["state"], "ready");

    let out = ws.nerd_with(true, &["spawn", "sql", "how do I open an in-memory database?"]);
    let answer = ok(&out);
    assert!(answer.contains("open_in_memory"), "{answer}");
    assert!(answer.contains("sources: rusqlite-"), "the answer cites where it came from: {answer}");

    // The parent audited the spawn: judged with the person's approval, then the child's result.
    let audit = ws.audit();
    let decision =
        audit.iter().find(|r| r["record"] == "decision" && r["action"]["kind"] == "spawn").expect("decision");
    assert_eq!(decision["decision"], "allow", "{decision}");
    let result = audit.iter().find(|r| r["record"] == "result" && r["action"]["kind"] == "spawn").expect("result");
    assert_eq!(result["outcome"]["child"]["status"], "answered", "{result}");
    let delegations = ok(&ws.nerd(&["delegations"]));
    assert!(delegations.contains(" done ") && delegations.contains("sql"), "{delegations}");
}

#[test]
fn a_specialist_that_fails_its_viva_is_refused_a_spawn() {
    let ws = workspace();
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/specialist/click-docs");
    ok(&ws.nerd(&["define-agent", "clickdocs", "--topic", "Click options", "--source", docs.to_str().unwrap()]));
    let out = ws.nerd(&["spawn", "clickdocs", "how do I add a flag?"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("specialist clickdocs is not ready"), "{}", text(&out));
    ok(&ws.nerd(&["research", "clickdocs"]));
    let out = ws.nerd(&["viva", "clickdocs"]);
    assert_eq!(out.status.code(), Some(1), "two pages are too little to pass: {}", text(&out));
    assert!(text(&out).contains("not ready") && text(&out).contains("failed: "), "{}", text(&out));
    let out = ws.nerd(&["spawn", "clickdocs", "how do I add a flag?"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("is not ready"), "{}", text(&out));
    assert!(ok(&ws.nerd(&["delegations"])).trim().is_empty(), "no token was issued");
}

#[test]
fn a_child_writing_outside_its_scope_is_refused_by_its_own_router_and_the_parent_audits_it() {
    let ws = workspace();
    for (name, tools) in [("reader", "read_file,search"), ("writer", "read_file,search,write_file")] {
        rusqlite_specialist(&ws, name, tools, false);
        ok(&ws.nerd(&["viva", name]));
    }
    // A read-only specialist may not write at all.
    let out = ws.nerd(&["spawn", "reader", "rename add to plus"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("does not allow write_file actions"), "{}", text(&out));
    // One that may write, only inside docs/.
    let out = ws.nerd(&["spawn", "writer", "--path", "docs/**", "rename add to plus"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));

    assert!(text(&out).contains("calc.py is outside the paths delegation"), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(ws.root.join("calc.py")).unwrap(),
        "def add(a, b):\n    return a + b\n\n\ndef total(xs):\n    return add(xs[0], xs[1])\n"
    );
    let audit = ws.audit();
    // The children's own routers refused the write and the read, in the trail...
    let refused = |kind: &str, why: &str| {
        audit.iter().any(|r| {
            r["record"] == "decision"
                && r["action"]["kind"] == kind
                && r["decision"] != "allow"
                && r["reasons"].to_string().contains(why)
        })
    };
    assert!(refused("write_file", "does not allow write_file actions"), "no refused write in the trail");
    assert!(refused("read_file", "outside the paths delegation"), "no refused read in the trail");
    // ...and the parent's record of the spawn carries the refusal.
    let spawned: Vec<&Value> =
        audit.iter().filter(|r| r["record"] == "result" && r["action"]["kind"] == "spawn").collect();
    assert_eq!(spawned.len(), 2);
    for r in spawned {
        let actions = &r["outcome"]["child"]["actions"];
        assert!(actions.as_array().unwrap().iter().any(|a| a["outcome"] == "refused"), "{r}");
    }
}

#[test]
fn two_children_run_at_once() {
    let ws = workspace();
    rusqlite_specialist(&ws, "sql", "read_file,search", false);
    ok(&ws.nerd(&["viva", "sql"]));
    let spawn = |question: &str| {
        Command::new(env!("CARGO_BIN_EXE_nerd"))
            .args(["spawn", "sql", question])
            .current_dir(&ws.root)
            .env("HOME", &ws.home)
            .env("CARGO_HOME", cargo_home())
            .env("XDG_STATE_HOME", &ws.state)
            .env("NERD_EMBEDDING_MODEL", "/nonexistent/model")
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn("how do I begin a transaction?"), spawn("how do I prepare a statement?"));
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    }
    let listed = ok(&ws.nerd(&["delegations", "--json"]));
    let done = listed.lines().filter(|l| l.contains("\"status\":\"done\"")).count();
    assert_eq!(done, 2, "{listed}");
    assert!(ws.nerd(&["audit", "verify"]).status.success(), "two children appended to one intact trail");
}

#[test]
fn claude_code_subagents_are_listed_with_the_tools_nerd_grants() {
    let ws = workspace();
    std::fs::create_dir_all(ws.root.join(".claude/agents")).unwrap();
    std::fs::write(
        ws.root.join(".claude/agents/reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews Python changes for bugs\ntools: Read, Grep, WebSearch\n---\nYou review code.\n",
    )
    .unwrap();
    std::fs::write(ws.root.join(".claude/agents/broken.md"), "no front matter\n").unwrap();
    let reviewer = agent_json(&ws, "reviewer");
    assert_eq!(reviewer["origin"], "claude");
    assert_eq!(reviewer["tools"], serde_json::json!(["read_file", "search"]));
    assert_eq!(reviewer["ignored_tools"], serde_json::json!(["WebSearch"]));
    assert_eq!(reviewer["state"], "needs_research");
    // Defining it in nerd keeps its description and adds sources.
    ok(&ws.nerd(&["define-agent", "reviewer", "--source", "calc.py"]));
    let reviewer = agent_json(&ws, "reviewer");
    assert_eq!(reviewer["origin"], "nerd");
    assert_eq!(reviewer["topic"], "Reviews Python changes for bugs");
    assert!(text(&ws.nerd(&["agents"])).contains("broken.md"), "an unreadable profile is reported");
    // Bad names and tools are refused with a usage error.
    assert_eq!(ws.nerd(&["define-agent", "../x", "--topic", "t"]).status.code(), Some(2));
    assert_eq!(ws.nerd(&["define-agent", "x", "--topic", "t", "--tools", "sudo"]).status.code(), Some(2));
}

#[test]
fn revoking_a_parent_token_voids_its_children_and_stops_their_actions() {
    use nerd::policy::Action;
    use nerd::router::{Outcome, Router};
    use nerd::specialist::delegation::{self, Scope};
    let ws = workspace();
    let state = nerd::store::StateDb::open(&ws.root).unwrap();
    let wanted =
        Scope { paths: ["**".to_string()].into(), kinds: ["read_file".to_string()].into(), ..Scope::default() };
    let hour = 3_600_000_000_000;
    let parent = delegation::issue(&ws.root, &state, None, Some("sql"), "survey", &wanted, hour).unwrap();
    let parent = delegation::verify(&ws.root, &state, parent).unwrap();
    let child = delegation::issue(&ws.root, &state, Some(&parent), None, "read calc", &Scope::whole(), hour).unwrap();
    assert_eq!(child.claims.scope.kinds, wanted.kinds, "a child asking for everything gets its parent's scope");
    let child = delegation::verify(&ws.root, &state, child).unwrap();

    let read = Action::ReadFile { path: "calc.py".into() };
    let mut router =
        Router::open(&ws.root, nerd_logic::vocab::Category::Query, nerd_logic::vocab::Autonomy::Balanced).unwrap();
    router.set_delegation(child.clone());
    let first = router.execute(&read).unwrap();
    assert!(matches!(first, Outcome::Executed { .. }), "{first:?}");

    let out = ws.nerd(&["revoke", parent.id()]);
    assert!(ok(&out).contains(&format!("revoked {}", child.id())), "{}", text(&out));
    match router.execute(&read).unwrap() {
        Outcome::Refused { reasons } => {
            assert!(
                reasons.iter().any(|r| r.contains(&format!("delegation {} no longer holds: revoked", child.id()))),
                "{reasons:?}"
            )
        }
        other => panic!("a revoked child still acted: {other:?}"),
    }
    // A forged widening fails its signature.
    let mut forged = child.leaf().clone();
    forged.claims.scope.kinds.insert("write_file".into());
    assert!(delegation::verify(&ws.root, &state, forged).is_err());
}
