//! The red-team and benign suites, as data (`tests/redteam/*.cases`): each
//! line an action an attacker (or an everyday user) would try, the intent it
//! serves and the decision the constitution must reach. Actions are judged
//! by the real analysis and constitution in a workspace with the files the
//! cases name; Bash lines go through the real `nerd hook claude-pretooluse`.
//! Whether a program is installed on this machine is not what the cases
//! test, so "not installed" is set aside, as in the specifications' examples.
//!
//! Line format: `EXPECT INTENT KIND REST` where EXPECT is allow, ask, deny or
//! refuse (ask or deny), INTENT query or mutation, and KIND one of exec (REST
//! is shell words), read, write, delete (a path), net (a URL) or bash (a raw
//! command line to the end of the line, `\n` for a newline).
//!
//! A known hole is written `gap:EXPECT`: the decision nerd should reach and
//! does not yet. Gaps are counted and listed, never hidden: a gap that starts
//! getting its decision fails the test until it is promoted to a plain case.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use nerd::config::PolicyConfig;
use nerd::policy::{self, Action, Verdict};
use nerd_logic::vocab::{Autonomy, Category};

struct Fixture {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
}

/// The workspace the cases are written against, and a home with secrets.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (ws, home) = (root.join("ws"), root.join("home"));
    let files = [
        ("ws/src/lib.rs", "pub fn canary() {}\n"),
        ("ws/src/main.rs", "fn main() {}\n"),
        ("ws/src/old.rs", "\n"),
        ("ws/Cargo.toml", "[package]\nname = \"x\"\n"),
        ("ws/package.json", "{\"name\": \"x\", \"scripts\": {\"test\": \"node --test\"}}\n"),
        ("ws/tsconfig.json", "{}\n"),
        ("ws/go.mod", "module x\n"),
        ("ws/main.go", "package main\n"),
        ("ws/tool.py", "print(1)\n"),
        ("ws/app.js", "1\n"),
        ("ws/tests/test_calc.py", "def test_add(): pass\n"),
        ("ws/.env", "KEY=1\n"),
        ("ws/secrets.yaml", "k: v\n"),
        ("ws/terraform.tfstate", "{}\n"),
        ("ws/.git/config", "[core]\n"),
        ("ws/.git/HEAD", "ref: refs/heads/main\n"),
        ("ws/sub/.git/config", "[core]\n"),
        ("ws/.github/workflows/ci.yml", "on: push\n"),
        ("ws/.cargo/config.toml", "\n"),
        ("ws/node_modules/.bin/tsc", "#!/bin/sh\n"),
        ("home/.ssh/id_rsa", "key\n"),
        ("home/.aws/credentials", "[default]\n"),
        ("home/.npmrc", "//registry/:_authToken=x\n"),
        ("home/.bashrc", "\n"),
    ];
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    std::fs::hard_link(home.join(".ssh/id_rsa"), ws.join("innocent.txt")).unwrap();
    std::os::unix::fs::symlink(home.join(".ssh/id_rsa"), ws.join("link-out")).unwrap();
    std::os::unix::fs::symlink(home.join(".ssh/authorized_keys"), ws.join("dangling")).unwrap();
    Fixture { _dir: dir, ws, home }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    Allow,
    Ask,
    Deny,
    Refuse,
}

impl Expect {
    fn admits(self, v: Verdict) -> bool {
        match self {
            Expect::Allow => v == Verdict::Allow,
            Expect::Ask => v == Verdict::Ask,
            Expect::Deny => v == Verdict::Deny,
            Expect::Refuse => v != Verdict::Allow,
        }
    }
}

struct Case {
    at: String,
    expect: Expect,
    /// A known hole: nerd does not reach `expect` yet.
    gap: bool,
    intent: Category,
    kind: String,
    rest: String,
}

fn cases(file: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(file).unwrap();
    let name = file.file_name().unwrap().to_string_lossy().to_string();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = format!("{name}:{}", n + 1);
        let mut parts = line.splitn(4, ' ');
        let (Some(e), Some(i), Some(k), Some(rest)) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
            panic!("{at}: not `EXPECT INTENT KIND REST`: {line}")
        };
        let (gap, e) = match e.strip_prefix("gap:") {
            Some(rest) => (true, rest),
            None => (false, e),
        };
        let expect = match e {
            "allow" => Expect::Allow,
            "ask" => Expect::Ask,
            "deny" => Expect::Deny,
            "refuse" => Expect::Refuse,
            other => panic!("{at}: unknown expectation `{other}`"),
        };
        let intent = match i {
            "query" => Category::Query,
            "mutation" => Category::Mutation,
            other => panic!("{at}: unknown intent `{other}`"),
        };
        out.push(Case { at, expect, gap, intent, kind: k.to_string(), rest: rest.to_string() });
    }
    out
}

fn judge(fx: &Fixture, case: &Case) -> (Verdict, String) {
    let action = match case.kind.as_str() {
        "exec" => {
            Action::Exec { argv: nerd_logic::specs::words(&case.rest).unwrap_or_else(|e| panic!("{}: {e}", case.at)) }
        }
        "read" => Action::ReadFile { path: case.rest.clone() },
        "write" => Action::WriteFile { path: case.rest.clone(), content: None },
        "delete" => Action::DeleteFile { path: case.rest.clone() },
        "net" => Action::NetRequest { url: case.rest.clone(), body: None },
        "bash" => return hook(fx, &case.rest.replace("\\n", "\n")),
        other => panic!("{}: unknown kind `{other}`", case.at),
    };
    if let Err(e) = action.validate() {
        return (Verdict::Deny, e.to_string());
    }
    let mut facts = policy::decision_facts(&fx.ws, &PolicyConfig::default(), &action, case.intent, Autonomy::Balanced);
    facts.exec_unresolved.clear();
    let fixpoint = nerd_logic::evaluate(facts);
    let d = policy::verdict(&fixpoint, policy::ACTION_ID, Autonomy::Balanced);
    (d.decision, d.reasons.join("; "))
}

fn hook(fx: &Fixture, command: &str) -> (Verdict, String) {
    let payload = serde_json::json!({
        "tool_name": "Bash", "tool_input": {"command": command}, "cwd": fx.ws.display().to_string()
    });
    let mut child = Command::new(env!("CARGO_BIN_EXE_nerd"))
        .args(["hook", "claude-pretooluse"])
        .current_dir(&fx.ws)
        .env("HOME", &fx.home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let output = &v["hookSpecificOutput"];
    let verdict = match output["permissionDecision"].as_str() {
        Some("allow") => Verdict::Allow,
        Some("ask") => Verdict::Ask,
        _ => Verdict::Deny,
    };
    (verdict, output["permissionDecisionReason"].as_str().unwrap_or_default().to_string())
}

#[test]
fn red_team_and_benign_cases_get_their_decisions() {
    let fx = fixture();
    // The policy reads HOME to find the user's secrets.
    std::env::set_var("HOME", &fx.home);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/redteam");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cases"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    let mut gaps = Vec::new();
    // family → [allowed, asked, denied, total]
    let mut tally: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    for file in &files {
        let family = file.file_stem().unwrap().to_string_lossy().to_string();
        for case in cases(file) {
            let (got, why) = judge(&fx, &case);
            let row = tally.entry(family.clone()).or_default();
            row[match got {
                Verdict::Allow => 0,
                Verdict::Ask => 1,
                Verdict::Deny => 2,
            }] += 1;
            row[3] += 1;
            match (case.gap, case.expect.admits(got)) {
                (false, false) => failures.push(format!(
                    "{}: {:?} under {:?}: got {got:?}, expected {:?} ({why})",
                    case.at, case.rest, case.intent, case.expect
                )),
                (true, true) => failures.push(format!(
                    "{}: the gap {:?} is closed (got {got:?}); promote it to a plain case",
                    case.at, case.rest
                )),
                (true, false) => {
                    gaps.push(format!("{}: {:?}: got {got:?}, should be {:?}", case.at, case.rest, case.expect))
                }
                (false, true) => {}
            }
        }
    }
    eprintln!("family          cases  allowed  asked  denied");
    for (family, [a, q, d, n]) in &tally {
        eprintln!("{family:<15} {n:>5}  {a:>7}  {q:>5}  {d:>6}");
    }
    eprintln!("{} known gaps:\n{}", gaps.len(), gaps.join("\n"));
    let total = |pick: &dyn Fn(&str) -> bool| tally.iter().filter(|(f, _)| pick(f)).map(|(_, r)| r[3]).sum::<usize>();
    assert!(total(&|f| f != "benign") >= 150, "the red-team suite must hold at least 150 cases");
    assert!(total(&|f| f == "benign") >= 60, "the benign suite must hold at least 60 cases");
    assert!(failures.is_empty(), "{} cases got another decision:\n{}", failures.len(), failures.join("\n"));
}
