//! The agent end to end: the real binary on real git repositories (a Python
//! package and a Rust crate under `tests/fixtures/agent/`), real pytest and
//! cargo run through the router, model patches replayed from recorded
//! transcripts through the real patch parser, and the interactive session
//! driven through a pseudo-terminal. No model provider is configured: HOME
//! points at an empty folder and the provider variables are removed.

mod common;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{copy_fixture, git};
use serde_json::Value;

const PROVIDER_VARS: &[&str] =
    &["OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "XDG_CONFIG_HOME", "NERD_LOCAL_MODEL"];

/// A fixture committed as a git repository, with an empty HOME beside it.
struct Repo {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Repo {
    fn new(fixture: &str) -> Repo {
        Repo::with(fixture, &[])
    }

    /// The fixture with `overrides` written over its files, committed.
    fn with(fixture: &str, overrides: &[(&str, &str)]) -> Repo {
        let dir = copy_fixture(&format!("agent/{fixture}"));
        for (path, text) in overrides {
            std::fs::write(dir.path().join(path), text).unwrap();
        }
        std::fs::write(dir.path().join(".gitignore"), "target/\nCargo.lock\n__pycache__/\nnode_modules\n").unwrap();
        git(dir.path(), &["init", "-q", "-b", "main"]);
        git(dir.path(), &["add", "-A"]);
        git(dir.path(), &["commit", "-q", "-m", "init"]);
        Repo { dir, home: tempfile::tempdir().unwrap() }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_nerd"));
        cmd.current_dir(self.path()).env("HOME", self.home.path());
        for var in PROVIDER_VARS {
            cmd.env_remove(var);
        }
        cmd
    }

    fn nerd(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }

    /// `nerd run --json ARGS`: exit code and events.
    fn run_json(&self, args: &[&str]) -> (i32, Vec<Value>) {
        let out = self.nerd(&[&["run", "--json"], args].concat());
        let stdout = String::from_utf8(out.stdout).unwrap();
        let events = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
            .collect();
        (out.status.code().unwrap_or(-1), events)
    }

    fn write(&self, path: &str, text: &str) {
        std::fs::write(self.path().join(path), text).unwrap();
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.path().join(path)).unwrap()
    }

    /// Every file outside `.git/` and `.nerd/` with its bytes.
    fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let entry = entry.unwrap();
                let path = entry.path();
                let name = entry.file_name();
                if name == ".git" || name == ".nerd" {
                    continue;
                }
                if entry.file_type().unwrap().is_dir() {
                    walk(root, &path, out);
                } else {
                    out.insert(path.strip_prefix(root).unwrap().to_path_buf(), std::fs::read(&path).unwrap());
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(self.path(), self.path(), &mut out);
        out
    }

    fn transcript(&self, outputs: &[Value]) -> PathBuf {
        let path = self.home.path().join("transcript.json");
        let texts: Vec<String> = outputs.iter().map(|o| o.to_string()).collect();
        std::fs::write(&path, serde_json::json!({ "outputs": texts }).to_string()).unwrap();
        path
    }
}

fn of_kind<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == kind).collect()
}

fn done(events: &[Value]) -> &Value {
    let last = events.last().expect("no events");
    assert_eq!(last["event"], "done", "the stream ends with done: {last}");
    last
}

fn next_actions(events: &[Value]) -> Vec<String> {
    of_kind(events, "decided").iter().map(|e| e["next_action"].as_str().unwrap_or("").to_string()).collect()
}

/// Runs python3 in `dir` without leaving bytecode caches behind.
fn python(dir: &Path, args: &[&str]) -> Output {
    Command::new("python3").args(args).current_dir(dir).env("PYTHONDONTWRITEBYTECODE", "1").output().unwrap()
}

fn edit(path: &str, line: u32, replacement: &str, why: &str) -> Value {
    serde_json::json!({
        "explanation": why,
        "edits": [{"path": path, "start_line": line, "end_line": line, "replacement": replacement}],
    })
}

#[test]
fn the_repair_loop_reaches_green_with_a_recorded_patch_and_every_step_is_audited() {
    let repo = Repo::new("python-calc");
    let transcript = repo.transcript(&[edit("calc/ops.py", 2, "    return a + b\n", "add subtracted")]);
    let (code, events) = repo.run_json(&["fix the failing tests", "--transcript", transcript.to_str().unwrap()]);
    assert_eq!(code, 0, "{events:#?}");
    let end = done(&events);
    assert_eq!(end["status"], "succeeded");
    assert_eq!(end["block_commit"], serde_json::json!([]), "the commit gate clears once the tests pass");
    assert_eq!(
        next_actions(&events),
        ["run_tests", "propose_patch", "apply_patch", "run_tests", "report_success"],
        "the kernel's decisions, turn by turn"
    );
    let checked = of_kind(&events, "checked");
    assert_eq!((checked[0]["test_state"].as_str(), checked[0]["failed"].as_u64()), (Some("failing"), Some(2)));
    assert_eq!(checked.last().unwrap()["test_state"], "passing");
    assert!(repo.read("calc/ops.py").contains("return a + b"));

    // The audit trail holds each turn and each permitted action, and it verifies.
    let audit = repo.nerd(&["audit", "show", "--json"]);
    let records: Vec<Value> =
        String::from_utf8(audit.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let body = |r: &Value| r["record"].clone();
    let turns = records.iter().filter(|r| body(r)["record"] == "turn").count();
    assert_eq!(turns, 5);
    let decided_kinds: Vec<String> = records
        .iter()
        .map(body)
        .filter(|b| b["record"] == "decision" && b["decision"] == "allow")
        .map(|b| b["action"]["kind"].as_str().unwrap().to_string())
        .collect();
    for kind in ["exec", "read_file", "write_file"] {
        assert!(decided_kinds.iter().any(|k| k == kind), "{kind} audited: {decided_kinds:?}");
    }
    assert!(repo.nerd(&["audit", "verify"]).status.success());

    // `nerd undo` restores the whole turn.
    assert!(repo.nerd(&["undo"]).status.success());
    assert!(repo.read("calc/ops.py").contains("return a - b"));
}

#[test]
fn patches_that_never_fix_it_stop_at_the_budget_and_escalate() {
    let repo = Repo::new("python-calc");
    let outside = edit("setup.py", 1, "x = 1\n", "edit a file nobody asked about");
    let wrong = edit("calc/ops.py", 2, "    return a * b\n", "multiply instead");
    let transcript = repo.transcript(&[outside, Value::String("change the minus".into()), wrong.clone(), wrong]);
    let (code, events) = repo.run_json(&["fix the failing tests", "--transcript", transcript.to_str().unwrap()]);
    assert_eq!(code, 2, "a task that did not succeed exits 2");
    let end = done(&events);
    assert_eq!(end["status"], "escalated");
    assert!(!end["block_commit"].as_array().unwrap().is_empty(), "still blocked");
    let patches = of_kind(&events, "patch");
    let accepted: Vec<bool> = patches.iter().map(|p| p["accepted"].as_bool().unwrap()).collect();
    assert_eq!(accepted, [false, false, true], "three attempts, the budget: {patches:#?}");
    assert!(patches[0]["reason"].as_str().unwrap().contains("outside the focus"));
    assert!(patches[1]["reason"].as_str().unwrap().contains("not a patch proposal"));
    assert_eq!(next_actions(&events).last().map(String::as_str), Some("escalate"));
    let escalated = of_kind(&events, "escalated");
    assert_eq!(escalated[0]["tried"].as_array().unwrap().len(), 3);
}

/// A patch that breaks the package's import makes every test file fail to collect; that is the
/// patch's doing, so it opens no test file to the next patch, which may not pass by editing tests.
#[test]
fn a_test_file_broken_by_the_repair_itself_stays_out_of_the_next_patch() {
    let repo = Repo::new("python-calc");
    let breaks_import = edit("calc/ops.py", 1, "import calc.nowhere\n\n\ndef add(a, b):\n", "import a helper");
    let edits_test = edit("tests/test_ops.py", 1, "from calc.ops import add, mul\n", "import what the test needs");
    let transcript = repo.transcript(&[breaks_import, edits_test.clone(), edits_test]);
    let (code, events) = repo.run_json(&["fix the failing tests", "--transcript", transcript.to_str().unwrap()]);
    assert_eq!(code, 2, "{events:#?}");
    let patches = of_kind(&events, "patch");
    assert_eq!(patches[0]["accepted"], true, "{patches:#?}");
    let collected = of_kind(&events, "checked");
    assert!(
        collected.len() >= 2 && collected[1]["errors"].as_u64() > Some(0),
        "the suite cannot collect: {collected:#?}"
    );
    for later in &patches[1..] {
        assert_eq!(later["accepted"], false, "{later}");
        assert!(later["reason"].as_str().unwrap().contains("outside the focus"), "{later}");
    }
    assert!(repo.read("tests/test_ops.py").starts_with("from calc import add, mul"), "the test is as it was");
}

#[test]
fn without_a_model_the_repair_loop_says_what_it_needs() {
    let repo = Repo::new("python-calc");
    let before = repo.snapshot();
    let (code, events) = repo.run_json(&["fix the failing tests"]);
    assert_eq!(code, 2);
    assert_eq!(done(&events)["status"], "needs_model");
    let answer = of_kind(&events, "answer")[0]["text"].as_str().unwrap().to_string();
    assert!(answer.contains("OPENAI_API_KEY") && answer.contains("[model]"), "{answer}");
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn rename_across_a_python_package_keeps_it_importable() {
    let repo = Repo::new("python-calc");
    repo.write("calc/ops.py", &repo.read("calc/ops.py").replace("a - b", "a + b"));
    git(repo.path(), &["commit", "-q", "-am", "fix add"]);
    let (code, events) = repo.run_json(&["rename add to plus"]);
    assert_eq!(code, 0, "{events:#?}");
    assert_eq!(done(&events)["status"], "succeeded");
    assert_eq!(repo.read("calc/__init__.py"), "from .ops import plus, mul\n");
    assert!(
        repo.read("calc/ops.py").contains("def plus(a, b):") && repo.read("calc/ops.py").contains("plus(total, a)")
    );
    let tests = repo.read("tests/test_ops.py");
    assert!(tests.contains("from calc import plus, mul") && tests.contains("assert plus(2, 3) == 5"));
    assert!(tests.contains("def test_add():"), "other names that contain the old one stay");
    let check = python(repo.path(), &["-c", "import calc; assert calc.plus(2, 3) == 5 and not hasattr(calc, 'add')"]);
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
}

/// A build that needs a crate cargo has not cached (and no lock file) fails inside the sandbox,
/// where cargo runs offline, with nothing a patch could change: the answer says so, with cargo's
/// own error, instead of only handing over.
#[test]
fn a_build_that_needs_an_uncached_crate_is_handed_over_with_the_reason() {
    let manifest = "[package]\nname = \"geometry\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
                    [dependencies]\nnerd-test-no-such-crate-zq = \"1\"\n";
    let repo = Repo::with("rust-geometry", &[("Cargo.toml", manifest)]);
    let transcript = repo.transcript(&[edit("src/lib.rs", 1, "\n", "never applied")]);
    let (code, events) = repo.run_json(&["fix the failing tests", "--transcript", transcript.to_str().unwrap()]);
    let end = done(&events);
    assert_eq!((code, end["status"].as_str()), (2, Some("escalated")), "{events:#?}");
    assert_eq!(of_kind(&events, "checked")[0]["test_state"], "build_broken", "{events:#?}");
    let answer = of_kind(&events, "answer")[0]["text"].as_str().unwrap().to_string();
    assert!(answer.contains("The test run was not verified"), "{answer}");
    assert!(answer.contains("no matching package named `nerd-test-no-such-crate-zq`"), "{answer}");
    assert_eq!(of_kind(&events, "patch").len(), 0, "no patch is asked for: {events:#?}");
}

#[test]
fn rename_across_a_rust_crate_asks_approval_for_untested_callers_and_builds() {
    let repo = Repo::new("rust-geometry");
    let before = repo.snapshot();
    // Some callers are reached by no resolved test: unsafe_to_refactor, so it asks, and `never` says no.
    let (code, events) = repo.run_json(&["rename compute_area to area_of", "--approval", "never"]);
    assert_eq!((code, done(&events)["status"].as_str()), (2, Some("refused")));
    assert_eq!(next_actions(&events), ["ask_approval"]);
    assert_eq!(of_kind(&events, "approval")[0]["granted"], false);
    assert_eq!(repo.snapshot(), before, "nothing written without approval");

    // The approval mode alone does not approve it: a person does, or the mode when told to.
    let (code, events) = repo.run_json(&["rename compute_area to area_of", "--approval", "auto"]);
    assert_eq!((code, done(&events)["status"].as_str()), (2, Some("refused")), "{events:#?}");
    let approval = of_kind(&events, "approval")[0];
    assert_eq!((approval["granted"].as_bool(), approval["source"].as_str()), (Some(false), Some("approval-mode:auto")));
    assert!(events.iter().any(|e| e.to_string().contains("--allow-unsafe-refactor")), "{events:#?}");
    assert_eq!(repo.snapshot(), before, "nothing written without a person's approval");

    // A refactor other than a rename asks the same approval, and its plan says it is no rename.
    let (_, events) = repo.run_json(&["simplify compute_area", "--dry-run"]);
    assert_eq!(next_actions(&events), ["ask_approval"], "{events:#?}");
    let plan = of_kind(&events, "answer")[0]["text"].as_str().unwrap().to_string();
    assert!(plan.contains("unsafe_to_refactor") && plan.contains("the refactor of"), "{plan}");
    assert!(!plan.contains("rename") && !plan.contains("`?`"), "{plan}");

    let (code, events) =
        repo.run_json(&["rename compute_area to area_of", "--approval", "auto", "--allow-unsafe-refactor"]);
    assert_eq!(code, 0, "{events:#?}");
    assert_eq!(next_actions(&events), ["ask_approval", "apply_refactor"]);
    let changed: Vec<&str> =
        done(&events)["changes"].as_array().unwrap().iter().map(|c| c["path"].as_str().unwrap()).collect();
    assert_eq!(changed, ["src/lib.rs", "src/shapes.rs", "src/util.rs", "tests/shapes.rs"]);
    for path in changed {
        let text = repo.read(path);
        assert!(!text.contains("compute_area") && text.contains("area_of"), "{path}:\n{text}");
    }
    let build = Command::new("cargo").args(["test", "--quiet"]).current_dir(repo.path()).output().unwrap();
    assert!(build.status.success(), "{}", String::from_utf8_lossy(&build.stderr));
}

#[test]
fn an_ambiguous_rename_asks_and_a_resumed_session_takes_the_answer() {
    let repo = Repo::new("rust-geometry");
    let before = repo.snapshot();
    let (code, events) = repo.run_json(&["rename scale to resize"]);
    assert_eq!((code, done(&events)["status"].as_str()), (2, Some("needs_clarification")));
    let question = of_kind(&events, "question")[0];
    let options: Vec<&str> = question["options"].as_array().unwrap().iter().map(|o| o.as_str().unwrap()).collect();
    assert_eq!(options[..2], ["src/shapes.rs#Rect.scale", "src/shapes.rs#Square.scale"]);
    assert_eq!(repo.snapshot(), before, "a clarification edits nothing");

    // The reply picks an option; the session remembers the request it answers.
    let session = events[0]["session"].as_str().unwrap().to_string();
    let (_, events) = repo.run_json(&["--resume", &session, "1"]);
    let focus = of_kind(&events, "focus");
    assert_eq!(focus[0]["candidates"][0]["symbol"], "src/shapes.rs#Rect.scale");
    assert_ne!(done(&events)["status"], "needs_clarification");
    let listed = String::from_utf8(repo.nerd(&["sessions"]).stdout).unwrap();
    assert!(listed.contains(&session), "{listed}");
}

/// "add in calc/more.py": a name two files define, placed by the request, grounds in the file it
/// names without asking; placed in a file that defines no such name, both stay candidates.
#[test]
fn a_name_placed_in_a_file_grounds_there() {
    let repo = Repo::with("python-calc", &[("calc/more.py", "def add(a, b, c):\n    return a + b + c\n")]);
    let (_, events) = repo.run_json(&["explain add in calc/more.py"]);
    let focus = of_kind(&events, "focus");
    let symbols: Vec<&str> =
        focus[0]["candidates"].as_array().unwrap().iter().map(|c| c["symbol"].as_str().unwrap()).collect();
    assert_eq!(symbols, ["calc/more.py#add"], "{events:#?}");
    assert_ne!(done(&events)["status"], "needs_clarification");
    let (_, events) = repo.run_json(&["explain add in calc/__init__.py"]);
    let focus = of_kind(&events, "focus");
    let symbols: Vec<&str> =
        focus[0]["candidates"].as_array().unwrap().iter().map(|c| c["symbol"].as_str().unwrap()).collect();
    assert!(symbols.contains(&"calc/more.py#add") && symbols.contains(&"calc/ops.py#add"), "{symbols:?}");
}

/// A call of the name on a value of unknown type matches by name only: with nobody to ask
/// (`--approval auto`) it is left as it is, even where the name is defined once, and said so;
/// the tests then catch the call left behind and every file is restored.
#[test]
fn a_rename_never_edits_a_call_matched_by_name_only_without_a_person() {
    let ops = "class Meter:\n    def reading(self):\n        return 1\n\n\ndef doubled(meter):\n    return meter.reading() * 2\n\n\ndef direct():\n    return Meter().reading()\n";
    let tests = "from calc.ops import Meter, doubled, direct\n\n\ndef test_doubled():\n    assert doubled(Meter()) == 2\n\n\ndef test_direct():\n    assert direct() == 1\n";
    let repo =
        Repo::with("python-calc", &[("calc/ops.py", ops), ("tests/test_ops.py", tests), ("calc/__init__.py", "")]);
    let before = repo.snapshot();
    let (code, events) = repo.run_json(&["--approval", "auto", "rename reading to value"]);
    assert_eq!(code, 2, "{events:#?}");
    let answer = of_kind(&events, "answer")[0]["text"].as_str().unwrap().to_string();
    assert!(answer.contains("by name only") && answer.contains("calc/ops.py:7"), "{answer}");
    assert_eq!(repo.snapshot(), before, "every file restored");
}

#[test]
fn query_only_requests_never_write_anything() {
    let repo = Repo::new("python-calc");
    let before = repo.snapshot();
    // (question, in the answer, not in the answer)
    let questions = [
        ("where is mul defined", "calc/ops.py:5", "Nothing in this workspace"),
        ("what calls add", "calc/ops.py#mul", "It calls"),
        ("what does mul call", "It calls 1 symbol(s):\n  calc/ops.py#add  (line 8)", "Called from"),
        ("what breaks if I change add", "tests/test_ops.py#test_mul", "Removed"),
        ("Is it safe to remove add?", "tests/test_ops.py#test_mul", "Removed"),
        ("which tests cover mul?", "Tests that reach it (1):\n  tests/test_ops.py#test_mul", "Affected (callers"),
        ("How would I delete mul?", "calc/ops.py:5", "Removed"),
        ("are the tests passing", "No: 2 failing", "Yes"),
        ("run the tests", "No: 2 failing", "Yes"),
        ("explain the architecture", "2 area(s)", "Removed"),
    ];
    for (question, expected, absent) in questions {
        let out = repo.nerd(&["run", question]);
        let answer = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{question}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(answer.contains(expected) && !answer.contains(absent), "{question} → {answer}");
    }
    assert_eq!(repo.snapshot(), before, "queries leave every file as it was");
}

/// Questions about the project's state other than the tests are answered from git and the
/// checkers, and run no test: what changed, the commits, the branch, the diagnostics.
#[test]
fn state_questions_answer_what_they_ask_and_run_no_tests() {
    let repo = green_python();
    repo.write("calc/ops.py", &format!("{}\n\ndef twice(a):\n    return add(a, a)\n", repo.read("calc/ops.py")));
    repo.write("calc/extra.py", "def unused(x):\n    return undefined_name + x\n");
    let before = repo.snapshot();
    let ask = |question: &str| {
        let (code, events) = repo.run_json(&[question]);
        assert_eq!(code, 0, "{question}: {events:#?}");
        assert!(of_kind(&events, "checked").is_empty(), "{question}: no test ran: {events:#?}");
        of_kind(&events, "answer")[0]["text"].as_str().unwrap().to_string()
    };
    for question in ["what did I change?", "git status", "are there uncommitted changes?"] {
        let answer = ask(question);
        assert!(answer.contains("calc/ops.py") && answer.contains("calc/extra.py"), "{question} → {answer}");
        assert!(
            answer.contains("calc/ops.py#twice") && !answer.contains("Yes: the tests pass"),
            "{question} → {answer}"
        );
    }
    let answer = ask("show me the recent commits");
    assert!(answer.contains("2 newest commit(s)") && answer.contains("fix add") && answer.contains("init"), "{answer}");
    let answer = ask("who last changed tests/test_ops.py?");
    assert!(
        answer.contains("changed tests/test_ops.py") && answer.contains("init") && !answer.contains("fix add"),
        "{answer}"
    );
    let answer = ask("which branch am I on?");
    assert!(answer.starts_with("On branch main") && answer.contains("no upstream"), "{answer}");
    let answer = ask("show me the current diagnostics");
    assert!(answer.contains("calc/extra.py:2 error F821"), "{answer}");
    let (_, events) = repo.run_json(&["show me the current diagnostics"]);
    let reason = done(&events)["verification"]["reason"].as_str().unwrap_or_default().to_string();
    assert!(reason.contains("checkers ran") && reason.contains("no test ran"), "{events:#?}");
    assert!(!answer.contains("calc/ops.py:"), "ops.py is clean: {answer}");
    assert_eq!(repo.snapshot(), before, "questions leave every file as it was");
}

#[test]
fn constraints_said_in_a_request_refuse_the_writes_that_break_them_and_name_them() {
    let repo = Repo::new("python-calc");
    let before = repo.snapshot();
    // The rename would change the test file's import: the constraint refuses it, by its words.
    let (code, events) = repo.run_json(&[
        "rename add to plus but don't touch the tests",
        "--approval",
        "auto",
        "--allow-unsafe-refactor",
    ]);
    assert_eq!((code, done(&events)["status"].as_str()), (2, Some("refused")), "{events:#?}");
    let said = events.iter().map(|e| e.to_string()).collect::<String>();
    assert!(said.contains("constraint c1") && said.contains("but don't touch the tests"), "{said}");
    assert!(said.contains("tests/test_ops.py"), "{said}");
    // The kernel denies the write too, and says why.
    let denied = of_kind(&events, "action");
    let denied: Vec<&&Value> = denied.iter().filter(|a| a["decision"] == "refused").collect();
    assert_eq!(denied.len(), 1, "{events:#?}");
    assert!(denied[0]["reasons"].to_string().contains("breaks the request's constraint c1"), "{:#}", denied[0]);
    // What a constraint names is not the target: "mul" is renamed, not calc/ops.py, and the
    // package's __init__ lies outside the scope the request allowed.
    let (code, events) =
        repo.run_json(&["rename mul to times, only in calc/ops.py", "--approval", "auto", "--allow-unsafe-refactor"]);
    assert_eq!(code, 2, "{events:#?}");
    let perceived = of_kind(&events, "perceived")[0];
    assert_eq!(perceived["target"], "mul", "{perceived}");
    let said = events.iter().map(|e| e.to_string()).collect::<String>();
    assert!(said.contains("outside `calc/ops.py`"), "{said}");
    assert_eq!(repo.snapshot(), before, "nothing written");
    // A constraint the change keeps does not stand in its way.
    let (code, events) = repo.run_json(&[
        "rename mul to times but don't touch README.md",
        "--approval",
        "auto",
        "--allow-unsafe-refactor",
    ]);
    assert!(repo.read("calc/ops.py").contains("def times"), "{code}: {events:#?}");
}

/// The TypeScript fixture, whose `npm install` is the test tools' own
/// node_modules (installed by `scripts/install-test-deps`), with `overrides`
/// written over its files before its first commit.
fn typescript_with(runner: &str, overrides: &[(&str, &str)]) -> Repo {
    let repo = Repo::with("ts-calc", overrides);
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-tools/node_modules");
    assert!(tools.join(".bin").join(runner).is_file(), "scripts/install-test-deps installs {runner}");
    std::os::unix::fs::symlink(&tools, repo.path().join("node_modules")).unwrap();
    repo
}

/// The fixture as it is: tested by vitest.
fn typescript() -> Repo {
    typescript_with("vitest", &[])
}

/// The same project tested by jest with ts-jest, configured in its package.json.
fn typescript_under_jest() -> Repo {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agent/ts-calc/test/calc.test.ts");
    let test = std::fs::read_to_string(fixture).unwrap().replace("from \"vitest\"", "from \"@jest/globals\"");
    let manifest = "{\"name\": \"ts-calc-jest\", \"private\": true, \"scripts\": {\"test\": \"jest\"}, \
                    \"jest\": {\"preset\": \"ts-jest\", \"testEnvironment\": \"node\"}}\n";
    let tsconfig = "{\"compilerOptions\": {\"strict\": true, \"esModuleInterop\": true}}\n";
    typescript_with("jest", &[("package.json", manifest), ("tsconfig.json", tsconfig), ("test/calc.test.ts", &test)])
}

/// The recorded fix of the fixture's failing test, verified by `runner`'s own
/// report (1 of 2 failing, then 2 of 2 passing); then "run the test" by its
/// title runs it alone, with `alone` in the runner's argv.
fn a_repair_is_verified_and_one_test_runs_alone(repo: &Repo, runner: &str, alone: &str) {
    let transcript = repo.transcript(&[edit("src/calc.ts", 8, "  return a * b;\n", "mul added one")]);
    let (code, events) = repo.run_json(&["fix the failing tests", "--transcript", transcript.to_str().unwrap()]);
    assert_eq!((code, done(&events)["status"].as_str()), (0, Some("succeeded")), "{events:#?}");
    let checked = of_kind(&events, "checked");
    let first = checked[0];
    assert_eq!(
        (first["tool"].as_str(), first["test_state"].as_str(), first["failed"].as_u64(), first["tests_run"].as_u64()),
        (Some(runner), Some("failing"), Some(1), Some(2)),
        "{runner}'s own report, read: {first}"
    );
    let last = checked.last().unwrap();
    assert_eq!((last["verification"].as_str(), last["tests_run"].as_u64()), (Some("verified_pass"), Some(2)));
    assert!(repo.read("src/calc.ts").contains("return a * b;"));

    let (_, events) = repo.run_json(&["run the test \"multiplies 2.5 by 2\""]);
    let argv: Vec<String> = of_kind(&events, "action").iter().map(|a| a["action"]["argv"].to_string()).collect();
    assert!(argv.iter().any(|a| a.contains(alone)), "{argv:#?}");
    let checked = of_kind(&events, "checked");
    assert_eq!(checked[0]["tests_run"].as_u64(), Some(1), "{checked:#?}");
}

#[test]
fn a_typescript_repair_is_verified_by_the_project_s_own_jest() {
    // jest runs that file alone, and in it the tests the title names (dots and all).
    let alone = r#""--runTestsByPath","test/calc.test.ts","-t","multiplies 2\\.5 by 2$""#;
    a_repair_is_verified_and_one_test_runs_alone(&typescript_under_jest(), "jest", alone);
}

#[test]
fn a_typescript_repair_is_verified_by_the_project_s_own_vitest() {
    let repo = typescript();
    // vitest 3 runs the test alone, by the file and line it is declared at.
    a_repair_is_verified_and_one_test_runs_alone(&repo, "vitest", r#""test/calc.test.ts:10""#);

    // A title computed at run time names no test a name filter could match:
    // the line does, and each of its rows runs.
    repo.write(
        "test/table.test.ts",
        "import { expect, it } from \"vitest\";\nimport { mul } from \"../src/calc\";\n\n\
         for (const n of [1, 2, 3]) {\n  it(String(n), () => {\n    expect(mul(n, 1)).toBe(n);\n  });\n}\n",
    );
    let (_, events) = repo.run_json(&["run the test \"String(n)\""]);
    let argv: Vec<String> = of_kind(&events, "action").iter().map(|a| a["action"]["argv"].to_string()).collect();
    assert!(argv.iter().any(|a| a.contains(r#""test/table.test.ts:5""#) && !a.contains("\"-t\"")), "{argv:#?}");
    let checked = of_kind(&events, "checked");
    assert_eq!((checked[0]["tests_run"].as_u64(), checked[0]["failed"].as_u64()), (Some(3), Some(0)), "{checked:#?}");

    // A test file that cannot load is never a pass, even with every other test green.
    repo.write(
        "test/broken.test.ts",
        "import { gone } from \"../src/gone\";\nimport { it } from \"vitest\";\nit(\"x\", () => gone());\n",
    );
    let (code, events) = repo.run_json(&["are the tests passing"]);
    let end = done(&events);
    assert_ne!(end["status"], "succeeded", "{events:#?}");
    let reason = end["verification"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("test/broken.test.ts"), "the file that could not load is named: {reason} ({code})");
}

#[test]
fn a_test_named_or_referred_back_to_runs_alone_and_the_suite_runs_whole_otherwise() {
    let repo = Repo::new("python-calc");
    let out = repo.nerd(&["run", "run test_mul"]);
    let answer = String::from_utf8_lossy(&out.stdout);
    assert!(answer.starts_with("Ran tests/test_ops.py#test_mul only."), "{answer}");
    assert!(answer.contains("1 of 1 test(s) failed") && !answer.contains("test_add"), "{answer}");
    // A later process: "that test again" is grounded on what the last request touched.
    let (_, events) = repo.run_json(&["run that test again"]);
    let actions: Vec<String> = of_kind(&events, "action").iter().map(|a| a["action"].to_string()).collect();
    assert!(actions.iter().any(|a| a.contains("tests/test_ops.py::test_mul")), "{actions:#?}");
    // Nothing named: the whole suite.
    let out = repo.nerd(&["run", "run the tests"]);
    let answer = String::from_utf8_lossy(&out.stdout);
    assert!(answer.contains("2 of 2 test(s) failed") && !answer.contains("only."), "{answer}");
}

#[test]
fn dry_run_derives_the_plan_and_acts_on_nothing() {
    let repo = Repo::new("python-calc");
    let before = repo.snapshot();
    let (code, events) = repo.run_json(&["fix the failing tests", "--dry-run"]);
    assert_eq!(code, 0);
    assert_eq!(done(&events)["status"], "planned");
    assert!(of_kind(&events, "action").is_empty(), "no action put to the router");
    let plan = of_kind(&events, "answer")[0]["text"].as_str().unwrap().to_string();
    assert!(plan.contains("pytest"), "{plan}");
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn json_events_follow_the_loop_in_order() {
    let repo = Repo::new("python-calc");
    let (_, events) = repo.run_json(&["what calls add"]);
    let kinds: Vec<&str> = events.iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["request", "perceived", "focus", "decided", "answer", "done"]);
    assert_eq!(events[1]["verb"], "search");
    assert_eq!(events[3]["strategy"], "answer_from_facts");
    assert!(events[3]["because"].as_array().unwrap().iter().any(|b| b.as_str().unwrap().starts_with("user_intent(")));
}

#[test]
fn task_files_name_their_results_and_exit_codes_say_what_happened() {
    let repo = Repo::new("python-calc");
    let tasks = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let workspace = repo.path().to_str().unwrap();
    let task = |name: &str, body: Value| std::fs::write(tasks.path().join(name), body.to_string()).unwrap();
    task("a.json", serde_json::json!({"id": "where-add", "request": "where is add defined", "workspace": workspace}));
    task("b.json", serde_json::json!({"request": "what calls mul", "workspace": workspace}));
    let batch = |parallel: &str| {
        repo.command()
            .args(["run", "--tasks-dir", tasks.path().to_str().unwrap(), "--output-dir"])
            .args([out.path().to_str().unwrap(), "--max-parallel", parallel])
            .output()
            .unwrap()
    };
    assert_eq!(batch("2").status.code(), Some(0));
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("where-add.json")).unwrap()).unwrap();
    assert_eq!((result["status"].as_str(), result["exit_code"].as_u64()), (Some("answered"), Some(0)));
    assert!(result["answer"].as_str().unwrap().contains("calc/ops.py:1"));
    assert!(out.path().join("b_result.json").is_file());

    // A malformed task makes the batch a partial failure; names never collide.
    task("c.json", serde_json::json!({"request": "what calls mul", "reqest": "typo"}));
    assert_eq!(batch("1").status.code(), Some(4));
    let names: Vec<String> =
        std::fs::read_dir(out.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    assert!(names.iter().any(|n| n.starts_with("where-add_") && n.ends_with("Z.json")), "{names:?}");
    let bad: Value = serde_json::from_str(&std::fs::read_to_string(out.path().join("c_result.json")).unwrap()).unwrap();
    assert_eq!((bad["status"].as_str(), bad["exit_code"].as_u64()), (Some("invalid_task"), Some(2)));

    // One task to a named file; a broken model configuration exits 1.
    let single = out.path().join("single.json");
    let ran = repo
        .command()
        .args(["run", "--task-file"])
        .arg(tasks.path().join("b.json"))
        .arg("--output-file")
        .arg(&single)
        .status()
        .unwrap();
    assert_eq!(ran.code(), Some(0));
    assert!(single.is_file());
    std::fs::create_dir_all(repo.path().join(".nerd")).unwrap();
    repo.write(".nerd/config.toml", "[model]\nprovider = \"gpt-nine\"\n");
    let out = repo.nerd(&["run", "what calls mul"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown model provider"));
}

/// A pseudo-terminal pair; the child gets the slave as its controlling terminal.
struct Pty {
    master: std::fs::File,
    output: Arc<Mutex<String>>,
}

impl Pty {
    fn spawn(mut cmd: Command) -> (Pty, std::process::Child) {
        use std::os::fd::{FromRawFd, OwnedFd};
        use std::os::unix::process::CommandExt;
        let (mut master, mut slave) = (0, 0);
        let size = libc::winsize { ws_row: 40, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0 };
        // SAFETY: openpty writes two fresh descriptors we then own.
        let rc = unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &size) };
        assert_eq!(rc, 0, "openpty");
        // SAFETY: both descriptors were just returned by openpty and are owned by nobody else.
        let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        cmd.stdin(slave.try_clone().unwrap()).stdout(slave.try_clone().unwrap()).stderr(slave);
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                libc::ioctl(0, libc::TIOCSCTTY, 0);
                Ok(())
            });
        }
        let child = cmd.spawn().unwrap();
        let master = std::fs::File::from(master);
        let output = Arc::new(Mutex::new(String::new()));
        let (mut reader, sink) = (master.try_clone().unwrap(), output.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        (Pty { master, output }, child)
    }

    fn send(&mut self, text: &str) {
        self.master.write_all(text.as_bytes()).unwrap();
    }

    /// Waits until the output holds `needle` after byte `from`; returns where it ends.
    fn expect(&self, needle: &str, from: usize) -> usize {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let out = self.output.lock().unwrap().clone();
            if let Some(at) = out.get(from..).and_then(|rest| rest.find(needle)) {
                return from + at + needle.len();
            }
            assert!(Instant::now() < deadline, "no `{needle}` in:\n{}", &out[from.min(out.len())..]);
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn the_interactive_session_answers_explains_and_leaves_cleanly_under_a_terminal() {
    let repo = Repo::new("python-calc");
    let (mut pty, mut child) = Pty::spawn(repo.command());
    let at = pty.expect("nerd> ", 0);
    pty.send("where is mul defined\r");
    let at = pty.expect("calc/ops.py:5", at);
    let at = pty.expect("nerd> ", at);
    // A second request reuses the session's world until a file changes; then it sees the change.
    pty.send("what calls add\r");
    let at = pty.expect("calc/ops.py#mul", at);
    let at = pty.expect("nerd> ", at);
    repo.write("calc/extra.py", "from calc.ops import add\n\n\ndef twice(a):\n    return add(a, a)\n");
    pty.send("what calls add\r");
    let at = pty.expect("calc/extra.py#twice", at);
    let at = pty.expect("nerd> ", at);
    // Ctrl-C at the prompt clears the line and keeps the session.
    pty.send("half a line\x03");
    let at = pty.expect("nerd> ", at);
    pty.send("/query symbol\r");
    let at = pty.expect("symbol(\"calc/ops.py#add\"", at);
    pty.send("/why not_an_atom(\r");
    let at = pty.expect("error:", at);
    // Ctrl-C during a request kills the running test program and stops the loop.
    repo.write("tests/test_slow.py", "import time\n\n\ndef test_slow():\n    time.sleep(60)\n");
    let started = Instant::now();
    pty.send("are the tests passing\r");
    let at = pty.expect("permitted: python3 -m pytest", at);
    std::thread::sleep(Duration::from_millis(300));
    pty.send("\x03");
    let at = pty.expect("interrupted after", at);
    let at = pty.expect("nerd> ", at);
    assert!(started.elapsed() < Duration::from_secs(30), "the 60 s test was killed: {:?}", started.elapsed());
    pty.send("/quit\r");
    let _ = at;
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the session did not leave on /quit");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    let history = repo.read(".nerd/history");
    assert!(history.contains("where is mul defined"), "{history}");
}

#[test]
fn implement_applies_a_recorded_change_where_the_user_pointed_and_checks_it() {
    let repo = Repo::new("python-calc");
    let sub = serde_json::json!({
        "explanation": "sub subtracts b from a",
        "edits": [{"path": "calc/ops.py", "start_line": 10, "end_line": 9, "replacement": "\n\ndef sub(a, b):\n    return a - b\n"}],
    });
    let elsewhere = edit("tests/test_ops.py", 1, "import os\n", "touch the tests too");
    let transcript = repo.transcript(&[elsewhere]);
    let (code, events) =
        repo.run_json(&["add a sub function to calc/ops.py", "--transcript", transcript.to_str().unwrap()]);
    assert_eq!((code, done(&events)["status"].as_str()), (2, Some("failed")), "outside the focus: {events:#?}");
    assert!(!repo.read("tests/test_ops.py").contains("import os"));

    // The fixture's own `add` test fails: the change is made, but cannot be called verified.
    let transcript = repo.transcript(std::slice::from_ref(&sub));
    let (code, events) =
        repo.run_json(&["add a sub function to calc/ops.py", "--transcript", transcript.to_str().unwrap()]);
    assert_eq!((code, done(&events)["status"].as_str()), (5, Some("unverified")), "{events:#?}");
    assert_eq!(done(&events)["verification"]["status"], "verified_fail");
    assert!(repo.read("calc/ops.py").ends_with("def sub(a, b):\n    return a - b\n"));

    git(repo.path(), &["checkout", "-q", "--", "."]);
    repo.write("calc/ops.py", &repo.read("calc/ops.py").replace("a - b", "a + b"));
    git(repo.path(), &["commit", "-q", "-am", "fix add"]);
    let transcript = repo.transcript(&[sub]);
    let (code, events) =
        repo.run_json(&["add a sub function to calc/ops.py", "--transcript", transcript.to_str().unwrap()]);
    assert_eq!(code, 0, "{events:#?}");
    assert_eq!(next_actions(&events), ["propose_edit"]);
    let verification = &done(&events)["verification"];
    assert_eq!(verification["status"], "verified_pass", "{verification}");
    assert!(verification["tests_run"].as_u64().unwrap() >= 2, "{verification}");
    let answer = of_kind(&events, "answer")[0]["text"].as_str().unwrap();
    assert!(answer.contains("Checked: tests verified"), "{answer}");
    assert!(repo.read("calc/ops.py").ends_with("def sub(a, b):\n    return a - b\n"));
}

#[test]
fn an_empty_folder_gets_a_scaffolded_project_whose_tests_pass() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("shop");
    std::fs::create_dir(&project).unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_nerd"))
        .args(["run", "--json", "create a new python project"])
        .current_dir(&project)
        .env("HOME", home.path())
        .output()
        .unwrap();
    let events: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(out.status.code(), Some(0), "{events:#?}");
    assert_eq!(of_kind(&events, "decided")[0]["strategy"], "project_init");
    let pytest = python(&project, &["-m", "pytest", "-q", "-p", "no:cacheprovider"]);
    assert!(pytest.status.success(), "{}", String::from_utf8_lossy(&pytest.stdout));
}

#[test]
fn under_the_cautious_profile_writes_wait_for_approval_and_never_means_nothing_changes() {
    let repo = Repo::new("python-calc");
    let before = repo.snapshot();
    let (code, events) = repo.run_json(&["rename add to plus", "--autonomy", "cautious", "--approval", "never"]);
    assert_eq!((code, done(&events)["status"].as_str()), (2, Some("refused")));
    let approvals = of_kind(&events, "approval");
    assert!(approvals.iter().any(|a| a["subject"].as_str().unwrap().starts_with("write calc/")), "{approvals:#?}");
    assert!(approvals.iter().all(|a| a["granted"] == false && a["source"] == "approval-mode:never"));
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn approvals_say_who_gave_them_in_the_trail_and_to_the_constitution() {
    let repo = Repo::new("python-calc");
    let (code, events) = repo.run_json(&["rename add to plus", "--autonomy", "cautious", "--approval", "auto"]);
    // The fixture's `add` is broken, so its test fails before and after: the rename is done, not verified.
    assert_eq!((code, done(&events)["status"].as_str()), (5, Some("unverified")), "{events:#?}");
    let verification = &done(&events)["verification"];
    assert_eq!(verification["status"], "verified_fail", "{verification}");
    let answer = of_kind(&events, "answer")[0]["text"].as_str().unwrap();
    assert!(answer.contains("test tests/test_ops.py::test_add") && answer.contains("still fail"), "{answer}");
    let out = repo.nerd(&["audit", "show", "--json"]);
    let records: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let approvals: Vec<&Value> = records.iter().map(|r| &r["record"]).filter(|r| r["record"] == "approval").collect();
    assert!(!approvals.is_empty(), "{records:#?}");
    assert!(
        approvals.iter().all(|a| a["by"] == "auto-policy" && a["source"] == "approval-mode:auto"),
        "{approvals:#?}"
    );
    // The decision the approval unlocked was derived from an auto-policy approval, not a human one.
    let decisions: Vec<&Value> = records.iter().map(|r| &r["record"]).filter(|r| r["record"] == "decision").collect();
    let approved = decisions.iter().flat_map(|d| d["facts"].as_array().unwrap()).filter_map(|f| f.as_str());
    let approved: Vec<&str> = approved.filter(|f| f.starts_with("approval(")).collect();
    assert!(!approved.is_empty() && approved.iter().all(|f| f.contains("\"auto-policy\"")), "{approved:?}");
    // A person at the command line is recorded as human.
    let act = repo.nerd(&["act", "--approve", "--action", r#"{"kind":"delete_file","path":"calc/ops.py"}"#]);
    assert!(act.status.success(), "{}", String::from_utf8_lossy(&act.stderr));
    let out = String::from_utf8(repo.nerd(&["audit", "show", "--json"]).stdout).unwrap();
    assert!(out.lines().any(|l| l.contains(r#""by":"human""#) && l.contains(r#""source":"command line --approve""#)));
    assert!(repo.nerd(&["audit", "verify"]).status.success());
}

#[test]
fn rename_across_go_packages_follows_qualified_calls_and_the_doc_comment() {
    let repo = Repo::new("go-shop");
    let (code, events) =
        repo.run_json(&["rename ComputeArea to AreaOf", "--approval", "auto", "--allow-unsafe-refactor"]);
    assert_eq!(code, 0, "{events:#?}");
    assert_eq!(repo.read("main.go").matches("geo.AreaOf(2, 3)").count(), 1);
    let area = repo.read("geo/area.go");
    assert!(area.contains("// AreaOf is the area") && area.contains("func AreaOf(w, h float64)"), "{area}");
    let test = repo.read("geo/area_test.go");
    assert!(test.contains("func TestComputeArea(") && test.contains("if AreaOf(2, 3) != 6"), "{test}");
    let build = Command::new("go")
        .args(["vet", "./..."])
        .current_dir(repo.path())
        .env("GOCACHE", repo.home.path().join("gocache"))
        .env("GOFLAGS", "-mod=mod")
        .output()
        .unwrap();
    assert!(build.status.success(), "{}", String::from_utf8_lossy(&build.stderr));
}

/// A Go test that reaches its package only through an interface the standard library calls
/// (`json.Marshal` calls `MarshalText`): no call edge leads from the failing test to the broken
/// method, and the repair may still change the test's package, never the test.
#[test]
fn a_go_test_that_reaches_its_package_through_the_standard_library_is_repaired_there() {
    let repo = Repo::new("go-shop");
    repo.write(
        "geo/label.go",
        "package geo\n\n// Label names a shape in JSON.\ntype Label struct{ Name string }\n\n\
         // MarshalText writes the label's name.\nfunc (l Label) MarshalText() ([]byte, error) {\n\
         \treturn []byte(\"shape:\" + l.Name), nil\n}\n",
    );
    repo.write(
        "geo/label_test.go",
        "package geo\n\nimport (\n\t\"encoding/json\"\n\t\"testing\"\n)\n\n\
         func TestLabelJSON(t *testing.T) {\n\tvar v struct{ L Label }\n\tv.L.Name = \"box\"\n\
         \tout, err := json.Marshal(v)\n\tif err != nil || string(out) != `{\"L\":\"box\"}` {\n\
         \t\tt.Fatalf(\"got %s %v\", out, err)\n\t}\n}\n",
    );
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "a label whose JSON is wrong"]);
    let fix = edit("geo/label.go", 8, "\treturn []byte(l.Name), nil\n", "the name alone, without a prefix");
    let transcript = repo.transcript(&[fix]);
    let (code, events) = repo.run_json(&["fix the failing tests", "--transcript", transcript.to_str().unwrap()]);
    assert_eq!(code, 0, "{events:#?}");
    let checked = of_kind(&events, "checked");
    assert_eq!(checked[0]["test_state"], "failing", "{checked:#?}");
    let patches = of_kind(&events, "patch");
    assert_eq!(patches.len(), 1, "{patches:#?}");
    assert_eq!(patches[0]["accepted"], true, "{patches:#?}");
    assert_eq!(done(&events)["status"], "succeeded", "{events:#?}");
    assert!(repo.read("geo/label.go").contains("return []byte(l.Name), nil"));
}

#[test]
fn a_broken_rust_build_is_repaired_and_a_patch_that_breaks_it_differently_is_rolled_back() {
    let repo = Repo::new("rust-geometry");
    repo.write("src/util.rs", &repo.read("src/util.rs").replace("    w * h\n", "    w * h as u32\n"));
    git(repo.path(), &["commit", "-q", "-am", "break the build"]);
    let still_broken = edit("src/util.rs", 3, "    (w * h) as i32\n", "cast the product instead");
    let fix = edit("src/util.rs", 3, "    w * h\n", "a stray cast to u32");
    let transcript = repo.transcript(&[still_broken, fix]);
    let (code, events) = repo.run_json(&["fix the build", "--transcript", transcript.to_str().unwrap()]);
    assert_eq!(code, 0, "{events:#?}");
    let checked = of_kind(&events, "checked");
    assert_eq!(checked[0]["test_state"], "build_broken");
    let patches = of_kind(&events, "patch");
    let verdicts: Vec<(bool, &str)> =
        patches.iter().map(|p| (p["accepted"].as_bool().unwrap(), p["reason"].as_str().unwrap())).collect();
    assert_eq!(verdicts.len(), 3, "proposed, rolled back, proposed and applied: {verdicts:#?}");
    assert!(!verdicts[1].0 && verdicts[1].1.contains("the build still fails"), "{verdicts:#?}");
    assert_eq!(done(&events)["status"], "succeeded");
    assert!(repo.read("src/util.rs").contains("    w * h\n"));
}

/// The python fixture with its `add` fixed and committed, so its own tests pass.
fn green_python() -> Repo {
    let repo = Repo::new("python-calc");
    repo.write("calc/ops.py", &repo.read("calc/ops.py").replace("a - b", "a + b"));
    git(repo.path(), &["commit", "-q", "-am", "fix add"]);
    repo
}

#[test]
fn a_suite_that_cannot_collect_leaves_a_rename_unverified_never_succeeded() {
    let repo = green_python();
    repo.write("tests/test_broken.py", "from calc import no_such_name\n\n\ndef test_x():\n    assert no_such_name\n");
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "a test module that cannot import"]);
    let (code, events) = repo.run_json(&["rename mul to times"]);
    assert_eq!((code, done(&events)["status"].as_str()), (5, Some("unverified")), "{events:#?}");
    let verification = &done(&events)["verification"];
    assert_eq!(verification["status"], "unverified", "{verification}");
    assert_eq!(verification["tests_run"], 0, "{verification}");
    assert!(verification["reason"].as_str().unwrap().contains("could not collect tests/test_broken.py"));
    let answer = of_kind(&events, "answer")[0]["text"].as_str().unwrap();
    assert!(answer.contains("not verified") && !answer.contains("pass"), "{answer}");
    assert!(repo.read("calc/ops.py").contains("def times(a, b):"), "the rename itself stands");
}

#[test]
fn zero_tests_run_is_unverified_never_a_pass() {
    let repo = green_python();
    git(repo.path(), &["rm", "-q", "-r", "tests"]);
    git(repo.path(), &["commit", "-q", "-m", "no tests"]);
    let (code, events) = repo.run_json(&["are the tests passing"]);
    assert_eq!((code, done(&events)["status"].as_str()), (5, Some("unverified")), "{events:#?}");
    let answer = of_kind(&events, "answer")[0]["text"].as_str().unwrap();
    assert!(answer.starts_with("Unknown") && answer.contains("0 tests ran"), "{answer}");
    let (code, events) = repo.run_json(&["fix the failing tests"]);
    assert_eq!((code, done(&events)["status"].as_str()), (5, Some("unverified")), "{events:#?}");
    assert_eq!(next_actions(&events), ["run_tests", "report_unverified"]);
}

#[test]
fn missing_test_runners_are_unverified_with_their_install_hints() {
    let repo = green_python();
    // A PATH with git and nothing else: no python, so no pytest and no ruff.
    let bin = tempfile::tempdir().unwrap();
    let git_path = which("git");
    std::os::unix::fs::symlink(&git_path, bin.path().join("git")).unwrap();
    let run = |request: &str| {
        let out = repo.command().args(["run", "--json", request]).env("PATH", bin.path()).output().unwrap();
        let events: Vec<Value> =
            String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (out.status.code().unwrap_or(-1), events)
    };
    let (code, events) = run("are the tests passing");
    assert_eq!((code, done(&events)["status"].as_str()), (5, Some("unverified")), "{events:#?}");
    let reason = done(&events)["verification"]["reason"].as_str().unwrap().to_string();
    assert!(reason.contains("pytest: not installed (pip install pytest)"), "{reason}");
    let (code, events) = run("rename mul to times");
    assert_eq!((code, done(&events)["status"].as_str()), (5, Some("unverified")), "{events:#?}");
    let answer = of_kind(&events, "answer")[0]["text"].as_str().unwrap();
    assert!(answer.contains("not verified") && answer.contains("not installed"), "{answer}");
}

fn which(program: &str) -> PathBuf {
    std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|d| d.join(program)).find(|p| p.is_file()))
        .unwrap_or_else(|| panic!("{program} is not on PATH"))
}

#[test]
fn a_suite_with_local_servers_passes_and_internet_failures_name_the_sandbox() {
    let repo = green_python();
    // A test that serves and connects on 127.0.0.1, as requests' and click's suites do.
    repo.write(
        "tests/test_loopback.py",
        "import socket\nimport threading\n\n\ndef test_a_local_server_answers():\n    server = socket.socket()\n    \
         server.bind((\"127.0.0.1\", 0))\n    server.listen(1)\n\n    def serve():\n        conn, _ = server.accept()\n        \
         conn.sendall(b\"pong\")\n        conn.close()\n\n    threading.Thread(target=serve).start()\n    \
         client = socket.create_connection(server.getsockname(), timeout=5)\n    assert client.recv(4) == b\"pong\"\n",
    );
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "a loopback test"]);
    let (code, events) = repo.run_json(&["are the tests passing"]);
    assert_eq!((code, done(&events)["status"].as_str()), (0, Some("answered")), "{events:#?}");
    assert_eq!(done(&events)["verification"]["status"], "verified_pass");
    assert_eq!(done(&events)["verification"]["tests_run"], 3);

    // A test that needs the internet fails under the sandbox, and the answer says why.
    repo.write(
        "tests/test_internet.py",
        "import socket\n\n\ndef test_reaches_the_internet():\n    socket.create_connection((\"192.0.2.1\", 80), timeout=5)\n",
    );
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "an internet test"]);
    let (_, events) = repo.run_json(&["are the tests passing"]);
    assert_eq!(done(&events)["verification"]["status"], "verified_fail", "{events:#?}");
    let reason = done(&events)["verification"]["reason"].as_str().unwrap().to_string();
    assert!(reason.contains("nerd's sandbox") && reason.contains("loopback only"), "{reason}");
    let answer = of_kind(&events, "answer")[0]["text"].as_str().unwrap();
    assert!(answer.contains("nerd's sandbox"), "{answer}");
}

/// A repository whose `mul` is documented in its docstring, a comment and the README.
fn documented_python() -> Repo {
    let repo = green_python();
    repo.write(
        "calc/ops.py",
        &repo.read("calc/ops.py").replace(
            "def mul(a, b):\n",
            "def mul(a, b):\n    \"\"\"mul(a, b) multiplies by repeated add; see mul's test.\"\"\"\n",
        ),
    );
    repo.write("README.md", "# calc\n\nUse `mul` to multiply; `multiply` is not it.\n");
    repo.write("tests/test_ops.py", &format!("# mul is checked here.\n{}", repo.read("tests/test_ops.py")));
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "docs"]);
    repo
}

#[test]
fn renames_carry_docstrings_and_list_every_other_mention_unless_told_to_rename_them() {
    let repo = documented_python();
    let (code, events) = repo.run_json(&["rename mul to times"]);
    assert_eq!((code, done(&events)["status"].as_str()), (0, Some("succeeded")), "{events:#?}");
    let ops = repo.read("calc/ops.py");
    assert!(
        ops.contains("def times(a, b):\n    \"\"\"times(a, b) multiplies by repeated add; see times's test.\"\"\""),
        "{ops}"
    );
    let answer = of_kind(&events, "answer")[0]["text"].as_str().unwrap().to_string();
    assert!(answer.contains("2 mention(s) in doc comments, doctests and docstrings"), "{answer}");
    assert!(answer.contains("README.md:3") && answer.contains("tests/test_ops.py:1"), "{answer}");
    assert!(answer.contains("--include-docs"), "{answer}");
    assert!(repo.read("README.md").contains("Use `mul`"), "listed, not renamed");
    assert!(repo.read("tests/test_ops.py").starts_with("# mul is checked here."));

    let repo = documented_python();
    let (code, events) = repo.run_json(&["--include-docs", "rename mul to times"]);
    assert_eq!((code, done(&events)["status"].as_str()), (0, Some("succeeded")), "{events:#?}");
    assert_eq!(repo.read("README.md"), "# calc\n\nUse `times` to multiply; `multiply` is not it.\n");
    assert!(repo.read("tests/test_ops.py").starts_with("# times is checked here."));
    let answer = of_kind(&events, "answer")[0]["text"].as_str().unwrap().to_string();
    assert!(answer.contains("Also renamed 2 mention(s) in docs and comments"), "{answer}");
    // And undo takes all of it back.
    assert!(repo.nerd(&["undo"]).status.success());
    assert!(repo.read("README.md").contains("Use `mul`"));
}

#[test]
fn a_rust_rename_carries_its_doctests_and_cargo_test_runs_them() {
    let repo = Repo::new("rust-geometry");
    repo.write(
        "src/util.rs",
        "/// The area of a `w` by `h` rectangle: `compute_area(2.0, 3.0)` is 6.\n///\n/// ```\n\
         /// assert_eq!(geometry::compute_area(2.0, 3.0), 6.0);\n/// ```\n\
         pub fn compute_area(w: f64, h: f64) -> f64 {\n    w * h\n}\n",
    );
    git(repo.path(), &["commit", "-q", "-am", "a doctest"]);
    let (code, events) =
        repo.run_json(&["rename compute_area to area_of", "--approval", "auto", "--allow-unsafe-refactor"]);
    assert_eq!((code, done(&events)["status"].as_str()), (0, Some("succeeded")), "{events:#?}");
    let util = repo.read("src/util.rs");
    assert!(util.contains("/// assert_eq!(geometry::area_of(2.0, 3.0), 6.0);"), "{util}");
    assert!(util.contains("`area_of(2.0, 3.0)` is 6."), "{util}");
    assert!(!util.contains("compute_area"), "{util}");
    // The doctest itself runs and passes under the new name.
    let doc = Command::new("cargo").args(["test", "--doc", "--quiet"]).current_dir(repo.path()).output().unwrap();
    assert!(doc.status.success(), "{}", String::from_utf8_lossy(&doc.stderr));
    assert!(String::from_utf8_lossy(&doc.stdout).contains("1 passed"), "{}", String::from_utf8_lossy(&doc.stdout));
}

/// A patch that appends `text` after line `after` of `path` (0: at the start).
fn insert(path: &str, after: u32, text: &str, why: &str) -> Value {
    serde_json::json!({
        "explanation": why,
        "edits": [{"path": path, "start_line": after + 1, "end_line": after, "replacement": text}],
    })
}

#[test]
fn written_tests_must_leave_the_code_alone_pass_today_and_fail_on_a_mutant() {
    let repo = green_python();
    let end_of_tests = repo.read("tests/test_ops.py").lines().count() as u32;
    let changes_code = edit("calc/ops.py", 2, "    return b + a\n", "reorder");
    let cannot_fail =
        insert("tests/test_ops.py", end_of_tests, "\n\ndef test_add_exists():\n    assert add is not None\n", "exists");
    let good = insert(
        "tests/test_ops.py",
        end_of_tests,
        "\n\ndef test_add_sums():\n    assert add(2, 2) == 4\n    assert add(-1, 1) == 0\n",
        "add sums its arguments",
    );
    let transcript = repo.transcript(&[changes_code, cannot_fail, good]);
    let (code, events) = repo.run_json(&["write unit tests for add", "--transcript", transcript.to_str().unwrap()]);
    assert_eq!(code, 0, "{events:#?}");
    assert_eq!(done(&events)["status"], "succeeded");
    assert_eq!(
        next_actions(&events),
        [
            "propose_patch",
            "propose_patch",
            "apply_patch",
            "check_mutants",
            "withdraw_patch",
            "propose_patch",
            "apply_patch",
            "check_mutants",
            "report_success"
        ]
    );
    let patches = of_kind(&events, "patch");
    let verdicts: Vec<bool> = patches.iter().map(|p| p["accepted"].as_bool().unwrap()).collect();
    assert_eq!(verdicts, [false, true, false, true], "{patches:#?}");
    assert!(patches[0]["reason"].as_str().unwrap().contains("calc/ops.py"), "{}", patches[0]["reason"]);
    assert!(patches[2]["reason"].as_str().unwrap().contains("no seeded mutant"), "{}", patches[2]["reason"]);
    let mutants = of_kind(&events, "mutants");
    let killed: Vec<u64> = mutants.iter().map(|m| m["killed"].as_u64().unwrap()).collect();
    assert_eq!(killed[0], 0);
    assert!(killed[1] >= 1, "{mutants:#?}");
    // The code under test is as it was; the kept test is there, the one that could not fail is not.
    assert!(repo.read("calc/ops.py").contains("return a + b"));
    let tests = repo.read("tests/test_ops.py");
    assert!(tests.contains("def test_add_sums") && !tests.contains("test_add_exists"), "{tests}");
    let run = python(repo.path(), &["-m", "pytest", "-q", "-p", "no:cacheprovider"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stdout));
}

#[test]
fn a_new_test_that_fails_on_todays_code_is_taken_back_and_a_new_file_removed() {
    let repo = green_python();
    repo.write("calc/extra.py", "def double(x):\n    return x * 2\n");
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "double"]);
    let before = repo.snapshot();
    let wrong = insert(
        "tests/test_extra.py",
        0,
        "from calc.extra import double\n\n\ndef test_double_wrong():\n    assert double(2) == 5\n",
        "expects 5",
    );
    let transcript = repo.transcript(&[wrong]);
    let args = ["write tests for double", "--retry-budget", "1", "--approval", "auto", "--transcript"];
    let (code, events) = repo.run_json(&[&args[..], &[transcript.to_str().unwrap()]].concat());
    assert_eq!(code, 2, "{events:#?}");
    assert_eq!(done(&events)["status"], "escalated");
    let patches = of_kind(&events, "patch");
    let reason = patches.last().unwrap()["reason"].as_str().unwrap();
    assert!(reason.contains("fail on today's code") && reason.contains("test_double_wrong"), "{reason}");
    assert_eq!(repo.snapshot(), before, "the created test file is deleted again");
}

#[test]
fn a_refactor_is_kept_only_when_what_passed_before_still_passes() {
    let repo = green_python();
    let broken = serde_json::json!({
        "explanation": "multiply directly",
        "edits": [{"path": "calc/ops.py", "start_line": 5, "end_line": 9, "replacement": "def mul(a, b):\n    return a * b + 1\n"}],
    });
    let good = serde_json::json!({
        "explanation": "mul is a product",
        "edits": [{"path": "calc/ops.py", "start_line": 5, "end_line": 9, "replacement": "def mul(a, b):\n    return a * b\n"}],
    });
    let transcript = repo.transcript(&[broken, good]);
    let (code, events) = repo.run_json(&["simplify mul", "--transcript", transcript.to_str().unwrap()]);
    assert_eq!(code, 0, "{events:#?}");
    assert_eq!(done(&events)["status"], "succeeded");
    assert_eq!(done(&events)["verification"]["status"], "verified_pass");
    assert_eq!(
        next_actions(&events),
        ["run_tests", "propose_patch", "apply_patch", "propose_patch", "apply_patch", "report_success"],
        "tests first, never a rename"
    );
    let patches = of_kind(&events, "patch");
    let rolled_back = patches.iter().find(|p| p["accepted"] == false).expect("the broken refactor is refused");
    assert!(rolled_back["reason"].as_str().unwrap().contains("test_mul"), "{rolled_back}");
    assert!(repo.read("calc/ops.py").contains("    return a * b\n"));
}

#[test]
fn a_refactor_may_create_the_file_it_moves_code_into_and_a_rollback_deletes_it() {
    let repo = green_python();
    let moved = |body: &str| {
        serde_json::json!({
            "explanation": "mul lives in its own module",
            "edits": [
                {"path": "calc/products.py", "start_line": 1, "end_line": 0, "replacement": format!("def mul(a, b):\n    return {body}\n")},
                {"path": "calc/ops.py", "start_line": 5, "end_line": 9, "replacement": "from .products import mul  # noqa: F401\n"},
            ],
        })
    };
    let request = "move mul into calc/products.py";
    // A move that breaks test_mul is rolled back: ops.py as it was, the new file gone. Deleting a
    // file nerd created in this session takes its own write back, so nobody is asked.
    let before = repo.snapshot();
    let transcript = repo.transcript(&[moved("a * b + 1")]);
    let args = [request, "--retry-budget", "1", "--transcript", transcript.to_str().unwrap()];
    let (code, events) = repo.run_json(&args);
    assert!(of_kind(&events, "approval").is_empty(), "{events:#?}");
    assert_eq!((code, done(&events)["status"].as_str()), (2, Some("escalated")), "{events:#?}");
    let patches = of_kind(&events, "patch");
    let rolled_back = patches.iter().find(|p| p["accepted"] == false).expect("the broken move is refused");
    assert!(rolled_back["reason"].as_str().unwrap().contains("test_mul"), "{rolled_back}");
    assert_eq!(repo.snapshot(), before, "the created module is deleted again");
    // The same move done right is kept, with the module it created.
    let transcript = repo.transcript(&[moved("a * b + 1"), moved("a * b")]);
    let (code, events) = repo.run_json(&[request, "--transcript", transcript.to_str().unwrap()]);
    assert_eq!((code, done(&events)["status"].as_str()), (0, Some("succeeded")), "{events:#?}");
    assert!(repo.read("calc/products.py").contains("return a * b\n"));
    assert!(repo.read("calc/ops.py").contains("from .products import mul"));
}

#[test]
fn without_a_model_refactors_and_test_writing_say_what_they_need_and_run_nothing() {
    let repo = green_python();
    let before = repo.snapshot();
    for request in ["simplify mul", "write unit tests for add"] {
        let (code, events) = repo.run_json(&[request]);
        assert_eq!(code, 2);
        assert_eq!(done(&events)["status"], "needs_model", "{request}: {events:#?}");
        assert!(of_kind(&events, "checked").is_empty(), "{request}: nothing ran");
    }
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn a_model_explanation_keeps_only_the_citations_that_check_and_its_links() {
    let repo = green_python();
    let reply = serde_json::json!({
        "surface_response": "`mul` multiplies by repeated addition [1], calling `add` [2]. It caches results [3].",
        "citations": [
            {"path": "calc/ops.py", "line": 7, "quote": "for _ in range(b):"},
            {"path": "calc/ops.py", "line": 8, "quote": "total = add(total, a)"},
            {"path": "calc/ops.py", "line": 6, "quote": "@functools.cache"}
        ],
        "control": {"updates": ["knowledge_link(\"calc/ops.py#mul\", \"built_on\", \"calc/ops.py#add\")"]}
    });
    // A malformed reply first: the boundary refuses it and the model is asked again.
    let transcript = repo.transcript(&[Value::String("Sure! mul multiplies.".into()), reply]);
    let (code, events) = repo.run_json(&["explain mul", "--transcript", transcript.to_str().unwrap()]);
    assert_eq!(code, 0, "{events:#?}");
    let answer = of_kind(&events, "answer")[0]["text"].as_str().unwrap().to_string();
    assert!(answer.contains("[1] calc/ops.py:7  for _ in range(b):"), "{answer}");
    assert!(answer.contains("[2] calc/ops.py:8"), "{answer}");
    assert!(answer.contains("It caches results (citation removed)."), "{answer}");
    assert!(answer.contains("`@functools.cache` is not at calc/ops.py:6"), "{answer}");
    assert!(answer.contains("From the index:"), "the facts stay beside the prose: {answer}");
    let memory = of_kind(&events, "memory");
    assert!(memory.iter().any(|m| m["text"].as_str().unwrap().contains("built_on")), "{memory:#?}");
    assert!(repo.nerd(&["memory", "links", "mul"]).stdout.windows(8).any(|w| w == b"built_on"));

    // Without a model the facts answer stands and says what a model would add.
    let (_, events) = repo.run_json(&["explain mul"]);
    let answer = of_kind(&events, "answer")[0]["text"].as_str().unwrap().to_string();
    assert!(answer.contains("With a model configured") && !answer.contains("Cited"), "{answer}");
}

#[test]
fn the_watchdog_pauses_a_request_whose_actions_mostly_fail_and_nothing_more_runs() {
    let repo = green_python();
    let citations: Vec<Value> =
        (1..=8).map(|i| serde_json::json!({"path": format!("calc/gone{i}.py"), "line": 1, "quote": "x"})).collect();
    let reply = serde_json::json!({"surface_response": "mul is spread over many files [1].", "citations": citations});
    let transcript = repo.transcript(&[reply]);
    let (code, events) = repo.run_json(&["explain mul", "--transcript", transcript.to_str().unwrap()]);
    assert_eq!(code, 2, "{events:#?}");
    assert_eq!(done(&events)["status"], "needs_clarification");
    let approvals = of_kind(&events, "approval");
    let pause: Vec<_> =
        approvals.iter().filter(|a| a["subject"].as_str().unwrap().contains("watchdog_pause")).collect();
    assert_eq!(pause.len(), 1, "asked once: {approvals:#?}");
    assert_eq!(pause[0]["granted"], false, "without a person nobody lets it go on");
    let failed_reads =
        of_kind(&events, "result").iter().filter(|r| r["kind"] == "read_file" && r["ok"] == false).count();
    assert!((3..8).contains(&failed_reads), "reads stop once paused: {failed_reads}");
    let answer = of_kind(&events, "answer")[0]["text"].as_str().unwrap().to_string();
    assert!(answer.starts_with("Paused: most of the recent actions failed"), "{answer}");
}

#[test]
fn binary_files_and_paths_outside_are_refused_with_the_reason_and_a_data_file_fix_edits_it() {
    let repo = green_python();
    std::fs::write(repo.path().join("logo.png"), [0x89u8, b'P', b'N', b'G', 0, 0, 0, 13, 0xff, 0xfe]).unwrap();
    repo.write("schema.json", "{\"type\": \"objekt\"}\n");
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "assets"]);
    let before = repo.snapshot();
    for (request, why) in [
        ("edit the PNG file", "logo.png is a binary file"),
        ("make logo.png smaller", "logo.png is a binary file"),
        ("fix /etc/hosts", "/etc/hosts is outside this workspace"),
    ] {
        let (code, events) = repo.run_json(&[request]);
        assert_eq!(done(&events)["status"], "refused", "{request}: {events:#?}");
        assert_eq!(code, 2);
        assert_eq!(next_actions(&events), ["refuse_request"], "{request}");
        let answer = of_kind(&events, "answer")[0]["text"].as_str().unwrap().to_string();
        assert!(answer.contains(why), "{request}: {answer}");
        assert!(of_kind(&events, "action").is_empty(), "{request}: nothing runs");
    }
    assert_eq!(repo.snapshot(), before);
    // A fix of a file without code is an edit of that file, not the test loop.
    let fix = edit("schema.json", 1, "{\"type\": \"object\"}\n", "the type is spelled object");
    let transcript = repo.transcript(&[fix]);
    let (code, events) = repo.run_json(&["fix schema.json", "--transcript", transcript.to_str().unwrap()]);
    assert_eq!(code, 0, "{events:#?}");
    assert_eq!(next_actions(&events), ["propose_edit"]);
    assert_eq!(repo.read("schema.json"), "{\"type\": \"object\"}\n");
}

#[test]
fn a_repair_may_not_pass_by_editing_the_failing_test() {
    let repo = Repo::new("python-calc");
    let tests_before = repo.read("tests/test_ops.py");
    let cheat = edit("tests/test_ops.py", 5, "    assert add(2, 3) == -1\n", "expect what add returns");
    let fix = edit("calc/ops.py", 2, "    return a + b\n", "add subtracted");
    let transcript = repo.transcript(&[cheat, fix]);
    let (code, events) = repo.run_json(&["fix the failing tests", "--transcript", transcript.to_str().unwrap()]);
    assert_eq!(code, 0, "{events:#?}");
    let patches = of_kind(&events, "patch");
    assert_eq!(patches[0]["accepted"], false);
    let reason = patches[0]["reason"].as_str().unwrap();
    assert!(reason.contains("tests/test_ops.py") && reason.contains("outside the focus"), "{reason}");
    assert_eq!(repo.read("tests/test_ops.py"), tests_before, "the failing test is evidence, never edited");
    assert!(repo.read("calc/ops.py").contains("return a + b"));
}
