//! The `nerd` binary end to end on real git repositories made in temp dirs:
//! incremental indexing, git-driven `modified`/`impacted`, `why` trees, JSON
//! output, exit codes, hostile inputs and `nerd watch`.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{git, nerd, query};

const LIB: &str = "pub fn leaf(x: u32) -> u32 {\n    x + 1\n}\n\npub fn middle(x: u32) -> u32 {\n    leaf(x) * 2\n}\n";
const APP: &str =
    "use crate::lib::middle;\n\npub fn top() -> u32 {\n    middle(1)\n}\n\npub fn unrelated() -> u32 {\n    7\n}\n";

/// A committed two-file Rust repository.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), LIB).unwrap();
    std::fs::write(dir.path().join("src/app.rs"), APP).unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "init"]);
    dir
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn index_json(dir: &Path) -> serde_json::Value {
    let out = nerd(dir, &["index", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(stdout(&out).trim()).unwrap()
}

fn args0(atoms: &[serde_json::Value]) -> Vec<String> {
    let mut v: Vec<String> = atoms.iter().map(|a| a["args"][0].as_str().unwrap_or_default().to_string()).collect();
    v.sort();
    v
}

#[test]
fn a_clean_checkout_has_nothing_modified_or_impacted() {
    let dir = repo();
    let report = index_json(dir.path());
    assert_eq!(report["files"], 2);
    assert_eq!(report["symbols"], 4);
    assert_eq!(report["kernel"]["strategy"], "idle");
    assert!(query(dir.path(), "modified").is_empty());
    assert!(query(dir.path(), "impacted").is_empty());
    // nerd's own state stays out of the user's git status.
    let status = Command::new("git").args(["status", "--porcelain"]).current_dir(dir.path()).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&status.stdout), "", "git status must stay clean");
}

#[test]
fn editing_a_function_impacts_its_transitive_callers_and_why_explains_it() {
    let dir = repo();
    index_json(dir.path());
    std::fs::write(dir.path().join("src/lib.rs"), LIB.replace("x + 1", "x + 2")).unwrap();
    let modified = args0(&query(dir.path(), "modified"));
    assert_eq!(modified, vec!["src/lib.rs", "src/lib.rs#leaf"]);
    let impacted = args0(&query(dir.path(), "impacted"));
    assert_eq!(
        impacted,
        vec!["src/app.rs", "src/app.rs#top", "src/lib.rs", "src/lib.rs#leaf", "src/lib.rs#middle"],
        "unrelated() must not be impacted"
    );

    let out = nerd(dir.path(), &["why", r#"impacted("src/app.rs#top")"#]);
    assert!(out.status.success(), "{}", stderr(&out));
    let tree = stdout(&out);
    assert!(tree.starts_with("impacted(\"src/app.rs#top\")  [rule impact/caller-of-impacted]"), "{tree}");
    assert!(
        tree.contains("calls(\"src/app.rs#top\", \"src/lib.rs#middle\", \"src/app.rs\", 4, \"exact\")  (fact)"),
        "{tree}"
    );
    assert!(tree.contains("modified(\"src/lib.rs#leaf\")  (fact)"), "{tree}");

    let out = nerd(dir.path(), &["why", "--json", r#"impacted("src/app.rs#top")"#]);
    let tree: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(tree["rule"], "impact/caller-of-impacted");
}

#[test]
fn exit_codes_say_what_went_wrong() {
    let dir = repo();
    index_json(dir.path());
    let out = nerd(dir.path(), &["query", "impactd"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown predicate `impactd`; known predicates: file, chunk"), "{}", stderr(&out));

    let out = nerd(dir.path(), &["why", r#"impacted("src/app.rs#unrelated")"#]);
    assert_eq!(out.status.code(), Some(1), "not derived is logic saying no");
    assert!(stderr(&out).contains("is not derived"));

    let out = nerd(dir.path(), &["why", "impacted(\"unterminated"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("hint:"));

    let out = nerd(dir.path(), &["why", r#"impacted("a", "b")"#]);
    assert_eq!(out.status.code(), Some(2));

    let out = nerd(dir.path(), &["index", "/definitely/not/here"]);
    assert_eq!(out.status.code(), Some(2));

    let out = nerd(dir.path(), &["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn query_lists_the_catalog_and_prints_json_lines() {
    let dir = repo();
    let out = nerd(dir.path(), &["query"]);
    assert!(stdout(&out).contains("derived     block_commit(Reason, Path, Line)"));
    index_json(dir.path());
    let symbols = query(dir.path(), "symbol");
    assert_eq!(symbols.len(), 4);
    let first = &symbols[0];
    assert_eq!(first["predicate"], "symbol");
    assert_eq!(first["args"].as_array().unwrap().len(), 7);
    assert!(first["args"][4].is_number());
}

#[test]
fn indexing_is_incremental() {
    let dir = repo();
    assert_eq!(index_json(dir.path())["parsed"], 2);
    assert_eq!(index_json(dir.path())["parsed"], 0, "nothing changed");
    // Same content, new mtime: re-hashed but not re-parsed.
    std::fs::write(dir.path().join("src/app.rs"), APP).unwrap();
    assert_eq!(index_json(dir.path())["parsed"], 0);
    std::fs::write(dir.path().join("src/app.rs"), format!("{APP}\npub fn more() {{}}\n")).unwrap();
    let report = index_json(dir.path());
    assert_eq!(report["parsed"], 1);
    assert_eq!(report["symbols"], 5);
    std::fs::remove_file(dir.path().join("src/app.rs")).unwrap();
    let report = index_json(dir.path());
    assert_eq!(report["removed"], 1);
    assert_eq!(report["symbols"], 2);
    assert!(query(dir.path(), "calls").iter().all(|c| c["args"][2] != "src/app.rs"));
}

#[test]
fn projections_made_by_another_nerd_or_other_grammars_are_redone() {
    let dir = repo();
    assert_eq!(index_json(dir.path())["parsed"], 2);
    // As if an older nerd, or other grammar queries, had written the index.
    nerd::store::Store::open(dir.path()).unwrap().set_meta("projection", "older").unwrap();
    assert_eq!(index_json(dir.path())["parsed"], 2, "every file projected again");
    assert_eq!(index_json(dir.path())["parsed"], 0);
}

#[test]
fn gitignored_hostile_and_broken_files_never_abort_the_run() {
    let dir = repo();
    let root = dir.path();
    std::fs::write(root.join(".gitignore"), "generated/\n").unwrap();
    std::fs::create_dir_all(root.join("generated")).unwrap();
    std::fs::write(root.join("generated/big.rs"), "pub fn ignored() {}\n").unwrap();
    std::fs::write(root.join("src/broken.rs"), "pub fn ok() {}\nfn broken( {\n").unwrap();
    std::fs::write(root.join("src/binary.py"), [0u8, 159, 146, 150, 0, 255, b'\n']).unwrap();
    let deep = "fn f() { ".to_string() + &"(".repeat(5000) + &")".repeat(5000) + " }\n";
    std::fs::write(root.join("src/deep.rs"), deep).unwrap();
    let report = index_json(root);
    assert_eq!(report["parse_errors"], 2, "broken.rs and binary.py: {report}");
    let symbols = args0(&query(root, "symbol"));
    assert!(symbols.contains(&"src/broken.rs#ok".to_string()));
    assert!(!symbols.iter().any(|s| s.starts_with("generated/")));
    let errors = query(root, "parse_error");
    assert!(errors.iter().any(|e| e["args"][0] == "src/broken.rs" && e["args"][1] == 2), "{errors:?}");
}

#[test]
fn a_damaged_index_is_rebuilt_with_a_notice() {
    let dir = repo();
    assert!(nerd(dir.path(), &["index"]).status.success());
    std::fs::write(dir.path().join(".nerd/index.db"), b"this is not a database, just bytes").unwrap();
    let out = nerd(dir.path(), &["index"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out).matches("was damaged").count(), 1, "one notice: {}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("files"), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(!stderr(&out).contains("panicked"));
}

#[test]
fn a_damaged_state_file_stops_what_needs_it_and_is_never_rewritten() {
    let dir = repo();
    std::fs::create_dir_all(dir.path().join(".nerd")).unwrap();
    let garbage = b"this is not a database, just bytes".repeat(200);
    std::fs::write(dir.path().join(".nerd/state.db"), &garbage).unwrap();
    for args in [&["audit", "verify"][..], &["sessions"], &["undo"]] {
        let out = nerd(dir.path(), args);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("never deletes or rewrites it"), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("hint: `nerd doctor`"), "{args:?}: {}", stderr(&out));
    }
    // What needs only the index still works.
    assert!(nerd(dir.path(), &["index"]).status.success());
    assert_eq!(std::fs::read(dir.path().join(".nerd/state.db")).unwrap(), garbage, "the state file was touched");
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let dir = repo();
    index_json(dir.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_nerd"))
        .args(["query", "file"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

/// Starts `nerd watch --json` in `dir` and returns the child and a line reader.
fn spawn_watch(dir: &Path) -> (std::process::Child, impl Fn(&str) -> serde_json::Value) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nerd"))
        .args(["watch", "--json", "--debounce-ms", "20"])
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let next = move |what: &str| -> serde_json::Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        let line = rx.recv_timeout(deadline - Instant::now()).unwrap_or_else(|_| panic!("no {what} event"));
        serde_json::from_str(&line).unwrap()
    };
    assert_eq!(next("ready")["event"], "ready");
    (child, next)
}

#[test]
fn watch_outside_git_treats_edits_since_start_as_modified() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), LIB).unwrap();
    let (mut child, next) = spawn_watch(dir.path());
    std::fs::write(dir.path().join("src/lib.rs"), LIB.replace("leaf(x) * 2", "leaf(x) * 3")).unwrap();
    let change = next("change");
    let appeared = change["appeared"].as_array().unwrap();
    let has = |p: &str, a: &str| appeared.iter().any(|x| x["predicate"] == p && x["args"][0] == a);
    assert!(has("impacted", "src/lib.rs#middle"), "{change}");
    assert!(!has("impacted", "src/lib.rs#leaf"), "leaf did not change: {change}");
    child.kill().unwrap();
    let _ = child.wait();
}

#[test]
fn watch_reads_a_changed_package_manifest_again() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    };
    write("package.json", r#"{"name": "@acme/money", "exports": {".": "./src/index.ts"}}"#);
    write("src/index.ts", "export function add(a: number, b: number): number {\n  return a + b;\n}\n");
    write(
        "src/add.test.ts",
        "import { add } from \"@acme/money\";\n\ntest(\"adds\", () => {\n  expect(add(1, 2)).toBe(3);\n});\n",
    );
    let (mut child, next) = spawn_watch(dir.path());
    let covered = |atoms: &serde_json::Value| {
        atoms.as_array().unwrap().iter().any(|a| a["predicate"] == "covered" && a["args"][0] == "src/index.ts#add")
    };
    // The package no longer has the name its test imports: the test reaches nothing.
    write("package.json", r#"{"name": "@acme/cash", "exports": {".": "./src/index.ts"}}"#);
    let change = next("rename");
    assert!(covered(&change["disappeared"]), "{change}");
    write("package.json", r#"{"name": "@acme/money", "exports": {".": "./src/index.ts"}}"#);
    let change = next("rename back");
    assert!(covered(&change["appeared"]), "{change}");
    child.kill().unwrap();
    let _ = child.wait();
}

#[test]
fn watch_reports_derived_atoms_appearing_and_disappearing() {
    let dir = repo();
    let (mut child, next) = spawn_watch(dir.path());

    std::fs::write(dir.path().join("src/lib.rs"), LIB.replace("x + 1", "x + 3")).unwrap();
    let change = next("change");
    assert_eq!(change["files"][0], "src/lib.rs", "{change}");
    let appeared: Vec<String> = change["appeared"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| format!("{}({})", a["predicate"].as_str().unwrap(), a["args"][0].as_str().unwrap_or_default()))
        .collect();
    assert!(appeared.contains(&"impacted(src/app.rs#top)".to_string()), "{appeared:?}");
    assert!(change["elapsed_ms"].as_f64().unwrap() >= 0.0);

    // Committing the edit makes it part of HEAD: the impact disappears.
    git(dir.path(), &["commit", "-q", "-am", "edit"]);
    let change = loop {
        let change = next("git change");
        if change["disappeared"].as_array().is_some_and(|d| !d.is_empty()) {
            break change;
        }
    };
    let gone = change["disappeared"].as_array().unwrap();
    assert!(gone.iter().any(|a| a["predicate"] == "impacted" && a["args"][0] == "src/app.rs#top"), "{change}");

    // Restoring the old content is a new change against the new HEAD. (Git may
    // still report the tail of the commit first: wait for the file's event.)
    std::fs::write(dir.path().join("src/lib.rs"), LIB).unwrap();
    let change = loop {
        let change = next("change");
        if change["files"].as_array().is_some_and(|f| !f.is_empty()) {
            break change;
        }
    };
    assert_eq!(change["files"][0], "src/lib.rs");
    child.kill().unwrap();
    let _ = child.wait();
}

#[test]
fn a_trail_lost_with_nerd_dir_is_accepted_by_a_person_and_the_acceptance_is_recorded() {
    let dir = repo();
    let read = r#"{"kind":"read_file","path":"src/lib.rs"}"#;
    let act = |dir: &std::path::Path| nerd(dir, &["act", "--action", read]);
    assert!(act(dir.path()).status.success(), "{}", stderr(&act(dir.path())));
    // `.nerd/` deleted: the checkpoint outside the workspace still names the old head.
    std::fs::remove_dir_all(dir.path().join(".nerd")).unwrap();
    let refused = act(dir.path());
    assert_eq!(refused.status.code(), Some(3), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("`nerd audit accept`"), "the way on is named: {}", stderr(&refused));
    assert_eq!(nerd(dir.path(), &["audit", "verify"]).status.code(), Some(1));

    let accepted = nerd(dir.path(), &["audit", "accept"]);
    assert!(accepted.status.success(), "{}", stderr(&accepted));
    let said = String::from_utf8_lossy(&accepted.stdout).to_string();
    assert!(said.contains("audit accepted: 0 records") && said.contains("recorded as record 1"), "{said}");
    // The old checkpoint is kept, not deleted.
    let kept = said.split("(kept at ").nth(1).and_then(|r| r.split(')').next()).expect(&said).to_string();
    assert!(std::path::Path::new(&kept).exists(), "{kept}");

    assert!(nerd(dir.path(), &["audit", "verify"]).status.success());
    assert!(act(dir.path()).status.success(), "nerd goes on after the acceptance");
    let show = String::from_utf8_lossy(&nerd(dir.path(), &["audit", "show"]).stdout).to_string();
    assert!(show.lines().next().is_some_and(|l| l.contains("accepted") && l.contains("the checkpoint said")), "{show}");
    // Accepting an intact trail changes nothing.
    let again = nerd(dir.path(), &["audit", "accept"]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("nothing to accept"));
}
