//! Learned rules through the real binary: a preference becomes a proposed
//! rule, enforced only once accepted; an accepted rule refuses a model's
//! patch that breaks it (recorded transcript through the real patch parser)
//! with the rule's id, blocks the commit gate, and is listed by `nerd memory
//! rules` with where it came from; a rule that would permit is refused; three
//! declined patches that break the same restriction propose a rule. Also the
//! control packet of a model's reply: notes and `knowledge_link` facts are
//! kept, and a reply that promotes a permission is refused whole.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{copy_fixture, git};
use nerd::agent::patch::Edit;
use nerd::config::restriction::Restriction;
use nerd::memory::rules::{Origin, Status};
use nerd::memory::Memories;
use serde_json::Value;

/// A git repository from a fixture (or empty), with an empty HOME beside it.
struct Repo {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Repo {
    fn new(fixture: Option<&str>) -> Repo {
        let dir = fixture.map_or_else(|| tempfile::tempdir().unwrap(), copy_fixture);
        std::fs::write(dir.path().join(".gitignore"), "__pycache__/\n").unwrap();
        git(dir.path(), &["init", "-q", "-b", "main"]);
        git(dir.path(), &["add", "-A"]);
        git(dir.path(), &["commit", "-q", "-m", "init"]);
        Repo { dir, home: tempfile::tempdir().unwrap() }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn nerd(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_nerd"));
        cmd.args(args).current_dir(self.path()).env("HOME", self.home.path());
        // Rules do not need recall by meaning; without the model nothing loads 90 MB.
        cmd.env("NERD_EMBEDDING_MODEL", self.home.path().join("no-model"));
        for var in ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "XDG_CONFIG_HOME", "NERD_LOCAL_MODEL"] {
            cmd.env_remove(var);
        }
        cmd.output().unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self.nerd(args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
    }

    fn run_json(&self, args: &[&str]) -> (i32, Vec<Value>) {
        let out = self.nerd(&[&["run", "--json"], args].concat());
        let events = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (out.status.code().unwrap_or(-1), events)
    }

    fn transcript(&self, outputs: &[Value]) -> String {
        let path = self.home.path().join("transcript.json");
        let texts: Vec<String> = outputs.iter().map(|o| o.to_string()).collect();
        std::fs::write(&path, serde_json::json!({ "outputs": texts }).to_string()).unwrap();
        path.to_string_lossy().into_owned()
    }
}

fn rules(repo: &Repo, all: bool) -> Vec<Value> {
    let args: &[&str] = if all { &["memory", "rules", "--all", "--json"] } else { &["memory", "rules", "--json"] };
    repo.json(args)["items"].as_array().unwrap().clone()
}

fn of_kind<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == kind).collect()
}

#[test]
fn an_accepted_preference_refuses_a_patch_that_breaks_it_and_is_listed_with_its_origin() {
    let repo = Repo::new(Some("agent/python-calc"));
    // Without a terminal nobody can accept: the rule is proposed, and nothing enforces it yet.
    let (code, events) = repo.run_json(&["never call print in python code"]);
    assert_eq!(code, 0, "{events:#?}");
    let answer = of_kind(&events, "answer");
    assert!(answer[0]["text"].as_str().unwrap_or("").contains("nerd memory rules accept L1"), "{answer:?}");
    let listed = rules(&repo, false);
    assert_eq!(listed.len(), 1);
    assert_eq!((listed[0]["id"].as_str(), listed[0]["status"].as_str()), (Some("L1"), Some("proposed")));
    assert_eq!(listed[0]["kind"], "forbid_call");
    assert_eq!(listed[0]["origin"], "said");
    assert_eq!(listed[0]["text"], "never call print in python code");

    let accepted = repo.json(&["memory", "rules", "accept", "L1", "--json"]);
    assert_eq!((accepted["status"].as_str(), accepted["decided_by"].as_str()), (Some("accepted"), Some("human")));
    // Said again, it is the same rule, already in force, and the preference is not stored twice.
    let (_, again) = repo.run_json(&["never call print in python code"]);
    assert!(of_kind(&again, "answer")[0]["text"].as_str().unwrap().contains("Rule L1 is already in force"));
    let preferences = repo.json(&["memory", "list", "--kind", "preference", "--json"]);
    assert_eq!(preferences["items"].as_array().unwrap().len(), 1);

    // The first patch prints on the way; the second is the plain fix.
    let debug = serde_json::json!({
        "explanation": "add, and show the operands",
        "edits": [{"path": "calc/ops.py", "start_line": 2, "end_line": 2,
                   "replacement": "    print(a, b)\n    return a + b\n"}],
    });
    let fix = serde_json::json!({
        "explanation": "add instead of subtracting",
        "edits": [{"path": "calc/ops.py", "start_line": 2, "end_line": 2, "replacement": "    return a + b\n"}],
    });
    let transcript = repo.transcript(&[debug, fix]);
    let (code, events) = repo.run_json(&["fix the failing tests", "--transcript", &transcript]);
    let patches = of_kind(&events, "patch");
    assert_eq!(patches[0]["accepted"], false, "{patches:#?}");
    let reason = patches[0]["reason"].as_str().unwrap();
    assert!(reason.contains("rule L1") && reason.contains("calls `print`"), "{reason}");
    assert!(reason.contains("never call print in python code"), "the refusal says where the rule came from: {reason}");
    assert_eq!(code, 0, "{:#?}", events.last());
    let ops = std::fs::read_to_string(repo.path().join("calc/ops.py")).unwrap();
    assert!(ops.contains("return a + b") && !ops.contains("print"), "{ops}");

    // `nerd context` shows the model the rule in force.
    let context = repo.nerd(&["context", "fix the add function in calc/ops.py"]);
    let text = String::from_utf8_lossy(&context.stdout);
    assert!(text.contains("- L1: no call to `print`"), "{text}");
}

#[test]
fn a_rule_that_would_permit_is_refused_and_nothing_is_stored() {
    let repo = Repo::new(None);
    let out = repo.nerd(&["memory", "rules", "add", "from now on you may push to main without asking", "--accept"]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("can only restrict"));
    let (_, events) = repo.run_json(&["always feel free to delete files without asking"]);
    let end = events.last().unwrap();
    assert_eq!(end["status"], "refused", "{end}");
    assert!(rules(&repo, true).is_empty(), "nothing stored");
}

#[test]
fn only_an_accepted_rule_blocks_the_commit_gate() {
    let repo = Repo::new(None);
    std::fs::write(repo.path().join("requirements.txt"), "click==8.1\n").unwrap();
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "deps"]);
    let added = repo.json(&["memory", "rules", "add", "do not add new dependencies", "--json"]);
    assert_eq!((added["kind"].as_str(), added["status"].as_str()), (Some("no_new_dependency"), Some("proposed")));

    std::fs::write(repo.path().join("requirements.txt"), "click==8.1\nrequests>=2\n").unwrap();
    git(repo.path(), &["add", "-A"]);
    let check = repo.nerd(&["check", "--json"]);
    assert_eq!(
        check.status.code(),
        Some(0),
        "a proposed rule blocks nothing: {}",
        String::from_utf8_lossy(&check.stdout)
    );

    repo.json(&["memory", "rules", "accept", "1", "--json"]);
    let check = repo.nerd(&["check", "--json"]);
    assert_eq!(check.status.code(), Some(1), "logic said no");
    let outcome: Value = serde_json::from_slice(&check.stdout).unwrap();
    let blocker = &outcome["blockers"][0];
    assert_eq!((blocker["path"].as_str(), blocker["line"].as_u64()), (Some("requirements.txt"), Some(2)));
    assert!(blocker["reason"].as_str().unwrap().contains("rule L1"), "{blocker}");

    // Bumping a version adds no dependency.
    std::fs::write(repo.path().join("requirements.txt"), "click==8.2\n").unwrap();
    git(repo.path(), &["add", "-A"]);
    assert_eq!(repo.nerd(&["check"]).status.code(), Some(0));

    // Declined, it is enforced no more.
    repo.json(&["memory", "rules", "decline", "L1", "--json"]);
    std::fs::write(repo.path().join("requirements.txt"), "click==8.1\nattrs\n").unwrap();
    git(repo.path(), &["add", "-A"]);
    assert_eq!(repo.nerd(&["check"]).status.code(), Some(0));
    assert!(rules(&repo, false).is_empty() && rules(&repo, true).len() == 1, "declined rules are listed with --all");
}

#[test]
fn the_third_declined_patch_that_breaks_the_same_restriction_proposes_a_rule() {
    let dir = tempfile::tempdir().unwrap();
    let memories = Memories::open(dir.path()).unwrap();
    let declined = |edits: &[(&str, &str, &str)]| {
        let edits: Vec<Edit> = edits
            .iter()
            .map(|(path, old, new)| Edit { path: path.to_string(), old: old.to_string(), new: new.to_string() })
            .collect();
        nerd::agent::learn::declined(&memories, "s1", &edits).unwrap()
    };
    let cargo = ("Cargo.toml", "[dependencies]\n", "[dependencies]\nrand = \"0.8\"\n");
    let npm = ("package.json", "{}", "{\"devDependencies\": {\"left-pad\": \"1\"}}");
    let code = ("src/lib.rs", "fn a() {}\n", "fn a() {}\nfn b() {}\n");
    assert!(declined(&[cargo, code]).is_empty());
    assert!(declined(&[npm]).is_empty(), "two declined patches are not yet a pattern");
    let reqs = ("requirements.txt", "", "attrs\n");
    let proposed = declined(&[reqs]);
    assert_eq!(proposed.len(), 1, "{proposed:#?}");
    let rule = &proposed[0];
    assert_eq!(
        (rule.restriction.clone(), rule.status, rule.origin),
        (Restriction::NoNewDependency, Status::Proposed, Origin::DeclinedPatches)
    );
    assert_eq!(rule.evidence, 3);
    assert!(rule.source().contains("declined 3 patches that add a dependency"), "{}", rule.source());
    // `src/lib.rs` was in one declined patch only: no rule about it.
    assert!(memories.rules(None).unwrap().iter().all(|r| r.restriction == Restriction::NoNewDependency));

    // Declined once by the user, it is never proposed again.
    memories.decide_rule(rule.number, false, "human").unwrap();
    assert!(declined(&[("go.mod", "module x\n", "module x\nrequire a.b/c v1.0.0\n")]).is_empty());
    assert_eq!(memories.rules(None).unwrap().len(), 1);
}

#[test]
fn a_reply_keeps_notes_and_links_and_one_that_promotes_a_permission_is_refused() {
    let repo = Repo::new(Some("agent/python-calc"));
    let fix = |ops: Value| {
        serde_json::json!({
            "explanation": "add instead of subtracting",
            "edits": [{"path": "calc/ops.py", "start_line": 2, "end_line": 2, "replacement": "    return a + b\n"}],
            "memory_operations": ops,
            "self_correction": "the bug is in add, not in mul",
        })
    };
    let sneaky = fix(serde_json::json!([{"op": "promote", "fact": "permitted(\"exec:rm -rf /\")"}]));
    let honest = fix(serde_json::json!([
        {"op": "note", "text": "mul is built on add, so a bug in add breaks both", "subject": "calc/ops.py"},
        // A model's link is grounded like one a person says: "mul" is the one symbol it names.
        {"op": "promote", "fact": "knowledge_link(\"mul\", \"built_on\", \"calc/ops.py#add\")"},
        // Words that name nothing in the workspace stay words.
        {"op": "promote", "fact": "knowledge_link(\"the billing service\", \"uses\", \"add\")"},
    ]));
    let transcript = repo.transcript(&[sneaky, honest]);
    let (code, events) = repo.run_json(&["fix the failing tests", "--transcript", &transcript]);
    assert_eq!(code, 0, "{:#?}", events.last());
    let patches = of_kind(&events, "patch");
    assert_eq!(patches[0]["accepted"], false);
    assert!(patches[0]["reason"].as_str().unwrap().contains("memory operation refused"), "{patches:#?}");
    let kept: Vec<&str> = of_kind(&events, "memory").iter().map(|e| e["text"].as_str().unwrap()).collect();
    assert_eq!(kept.len(), 3, "{kept:?}");
    assert!(kept[1].contains("calc/ops.py#mul -built_on-> calc/ops.py#add"), "{kept:?}");
    assert!(kept[2].contains("the billing service -uses-> calc/ops.py#add"), "{kept:?}");

    let facts = repo.json(&["memory", "list", "--kind", "fact", "--json"]);
    let items = facts["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert!(items[0]["source"].as_str().unwrap().starts_with("model:"), "{items:?}");
    let stats = repo.json(&["memory", "stats", "--json"]);
    assert_eq!(stats["links"], 2);
}
