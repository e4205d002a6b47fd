//! The commit gate end to end: real git repositories in temp dirs, the real
//! `nerd` binary, and the real compilers and linters (cargo, ruff, go, tsc;
//! `scripts/install-test-deps` installs the last three).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::git;

/// A committed repository holding `files`.
fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), files);
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "init"]);
    dir
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
}

/// PATH with the test tools installed by `scripts/install-test-deps`.
fn path_with_tools() -> String {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-tools/node_modules/.bin");
    format!("{}:{}", tools.display(), std::env::var("PATH").unwrap_or_default())
}

fn nerd_with_path(dir: &Path, args: &[&str], path: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nerd")).args(args).current_dir(dir).env("PATH", path).output().unwrap()
}

fn check(dir: &Path) -> (i32, serde_json::Value) {
    let out = nerd_with_path(dir, &["check", "--json"], &path_with_tools());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|_| panic!("no JSON: {stdout}\nstderr: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap_or(-1), value)
}

/// `(reason, path, line)` of each blocker.
fn blockers(v: &serde_json::Value) -> Vec<(String, String, u64)> {
    v["blockers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["reason"].as_str().unwrap().to_string(),
                b["path"].as_str().unwrap().to_string(),
                b["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

const CARGO_TOML: &str = "[package]\nname = \"gated\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
const GOOD_RS: &str = "pub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n";
const BAD_RS: &str = "pub fn add(a: u32, b: u32) -> u32 {\n    let s: String = a + b;\n    0\n}\n";

fn rust_repo() -> tempfile::TempDir {
    repo(&[("Cargo.toml", CARGO_TOML), ("src/lib.rs", GOOD_RS)])
}

#[test]
fn a_staged_rust_type_error_blocks_and_restaging_a_fix_passes() {
    let dir = rust_repo();
    write(dir.path(), &[("src/lib.rs", BAD_RS)]);
    git(dir.path(), &["add", "src/lib.rs"]);
    let (code, v) = check(dir.path());
    assert_eq!(code, 1, "{v}");
    assert_eq!(blockers(&v), vec![("error[E0308]: mismatched types".to_string(), "src/lib.rs".to_string(), 2)]);

    write(dir.path(), &[("src/lib.rs", GOOD_RS)]);
    git(dir.path(), &["add", "src/lib.rs"]);
    let (code, v) = check(dir.path());
    assert_eq!(code, 0, "{v}");
    assert!(blockers(&v).is_empty());
    assert_eq!(v["baseline"]["state"], "not_needed", "nothing blocked, so HEAD was not checked: {v}");
}

#[test]
fn a_broken_unstaged_edit_does_not_block_a_clean_staged_change() {
    let dir = rust_repo();
    write(dir.path(), &[("src/lib.rs", &format!("{GOOD_RS}\npub fn sub(a: u32) -> u32 {{\n    a\n}}\n"))]);
    git(dir.path(), &["add", "src/lib.rs"]);
    write(dir.path(), &[("src/lib.rs", BAD_RS)]); // broken, but not staged
    let (code, v) = check(dir.path());
    assert_eq!(code, 0, "{v}");
}

#[test]
fn a_broken_staged_change_blocks_even_when_the_work_tree_is_fixed() {
    let dir = rust_repo();
    write(dir.path(), &[("src/lib.rs", BAD_RS)]);
    git(dir.path(), &["add", "src/lib.rs"]);
    write(dir.path(), &[("src/lib.rs", GOOD_RS)]); // fixed, but not staged
    let (code, v) = check(dir.path());
    assert_eq!(code, 1, "{v}");
    assert_eq!(blockers(&v)[0].1, "src/lib.rs");
    // `--all` judges the work tree instead, which is fine.
    let out = nerd_with_path(dir.path(), &["check", "--all"], &path_with_tools());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn a_forbidden_pattern_blocks_with_its_message_but_not_in_tests() {
    let config = "[[check.rule]]\nid = \"no-unwrap\"\nlang = \"rust\"\ncall = \"unwrap\"\nmessage = \"no .unwrap() outside tests\"\n";
    let dir = repo(&[("Cargo.toml", CARGO_TOML), ("src/lib.rs", GOOD_RS), (".nerd/config.toml", config)]);
    let code = "pub fn parse(s: &str) -> u32 {\n    s.parse().unwrap()\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn parses() {\n        assert_eq!(super::parse(\"1\"), \"1\".parse::<u32>().unwrap());\n    }\n}\n";
    write(dir.path(), &[("src/lib.rs", code)]);
    git(dir.path(), &["add", "src/lib.rs"]);
    let (exit, v) = check(dir.path());
    assert_eq!(exit, 1, "{v}");
    assert_eq!(
        blockers(&v),
        vec![("rule no-unwrap: no .unwrap() outside tests".to_string(), "src/lib.rs".to_string(), 2)]
    );
}

#[test]
fn a_staged_private_key_blocks() {
    let dir = repo(&[("README.md", "hello\n")]);
    let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n";
    write(dir.path(), &[("deploy/key.txt", key), ("config/.env", "DATABASE_URL=postgres://u:p@h/db\n")]);
    git(dir.path(), &["add", "-A"]);
    let (exit, v) = check(dir.path());
    assert_eq!(exit, 1, "{v}");
    let b = blockers(&v);
    assert!(b.contains(&("secret: private_key".to_string(), "deploy/key.txt".to_string(), 1)), "{b:?}");
    assert!(b.contains(&("secret: env_file".to_string(), "config/.env".to_string(), 1)), "{b:?}");
}

#[test]
fn an_override_lets_a_blocked_commit_through_and_is_recorded() {
    let dir = rust_repo();
    write(dir.path(), &[("src/lib.rs", BAD_RS)]);
    git(dir.path(), &["add", "src/lib.rs"]);
    let out =
        nerd_with_path(dir.path(), &["check", "--override", "hotfix; CI will catch it", "--json"], &path_with_tools());
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["overridden"], "hotfix; CI will catch it");
    assert_eq!(v["blocked"], false);
    assert_eq!(v["blockers"].as_array().unwrap().len(), 1, "the blockers are still reported");
    // The record is in the database.
    let db = rusqlite_count(&dir.path().join(".nerd/state.db"));
    assert_eq!(db, 1);
    let out = nerd_with_path(dir.path(), &["check", "--override", "  "], &path_with_tools());
    assert_eq!(out.status.code(), Some(2), "an empty reason is refused");
    // The override holds for this staged tree: the installed hook lets the real commit through.
    let (code, v) = check(dir.path());
    assert_eq!((code, v["overridden"].as_str()), (0, Some("hotfix; CI will catch it")), "{v}");
    let out = nerd_with_path(dir.path(), &["hook", "install"], &path_with_tools());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let commit = git_commit(dir.path(), "hotfix");
    assert!(commit.status.success(), "{}", String::from_utf8_lossy(&commit.stderr));
    // Another staged tree is judged afresh: the override does not carry over to a new error.
    write(dir.path(), &[("src/lib.rs", &format!("{BAD_RS}\npub fn other() -> u32 {{\n    \"x\"\n}}\n"))]);
    git(dir.path(), &["add", "src/lib.rs"]);
    let (code, v) = check(dir.path());
    assert_eq!((code, v["overridden"].is_null()), (1, true), "{v}");
    // The error the override let through is on HEAD now: listed, not blocking.
    assert!(blockers(&v).iter().all(|b| b.2 != 2), "{v}");
    assert!(v["existing"].as_array().unwrap().iter().any(|f| f["line"] == 2), "{v}");
}

/// A real `git commit` in `dir`, so an installed pre-commit hook runs, with the test tools on PATH.
fn git_commit(dir: &Path, message: &str) -> Output {
    Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", message])
        .current_dir(dir)
        .env("PATH", path_with_tools())
        .output()
        .unwrap()
}

fn rusqlite_count(db: &Path) -> i64 {
    let out = Command::new("python3")
        .args(["-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from commit_override').fetchone()[0])"])
        .arg(db)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

#[test]
fn an_unchanged_staged_tree_is_not_checked_again() {
    let dir = rust_repo();
    write(dir.path(), &[("src/lib.rs", BAD_RS)]);
    git(dir.path(), &["add", "src/lib.rs"]);
    let (_, first) = check(dir.path());
    assert_eq!(first["cached"], false);
    let (code, second) = check(dir.path());
    assert_eq!(code, 1);
    assert_eq!(second["cached"], true);
    assert_eq!(blockers(&first), blockers(&second));
    assert!(second["elapsed_ms"].as_f64().unwrap() < first["elapsed_ms"].as_f64().unwrap());
}

#[test]
fn the_installed_hook_really_stops_git_commit() {
    let dir = rust_repo();
    let out = nerd_with_path(dir.path(), &["hook", "install"], &path_with_tools());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    write(dir.path(), &[("src/lib.rs", BAD_RS)]);
    git(dir.path(), &["add", "src/lib.rs"]);
    let commit = |dir: &Path| git_commit(dir, "broken");
    let out = commit(dir.path());
    assert!(!out.status.success(), "the hook must refuse the commit");
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("error[E0308]: mismatched types"), "{said}");
    write(dir.path(), &[("src/lib.rs", GOOD_RS)]);
    git(dir.path(), &["add", "src/lib.rs"]);
    // Nothing left to commit once fixed back to HEAD; stage a real change.
    write(dir.path(), &[("src/lib.rs", &format!("{GOOD_RS}\npub fn one() -> u32 {{\n    1\n}}\n"))]);
    git(dir.path(), &["add", "src/lib.rs"]);
    assert!(commit(dir.path()).status.success(), "a clean commit goes through");
    let out = nerd_with_path(dir.path(), &["hook", "uninstall"], &path_with_tools());
    assert!(out.status.success());
    assert!(!dir.path().join(".git/hooks/pre-commit").exists());
}

#[test]
fn an_existing_hook_is_never_silently_replaced() {
    let dir = rust_repo();
    let hooks: PathBuf = dir.path().join(".githooks");
    std::fs::create_dir_all(&hooks).unwrap();
    git(dir.path(), &["config", "core.hooksPath", ".githooks"]);
    std::fs::write(hooks.join("pre-commit"), "#!/bin/sh\necho theirs\n").unwrap();
    let out = nerd_with_path(dir.path(), &["hook", "install"], &path_with_tools());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    let out = nerd_with_path(dir.path(), &["hook", "install", "--force"], &path_with_tools());
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(hooks.join("pre-commit.local")).unwrap(), "#!/bin/sh\necho theirs\n");
    assert!(std::fs::read_to_string(hooks.join("pre-commit")).unwrap().contains("check --staged"));
    let out = nerd_with_path(dir.path(), &["hook", "uninstall"], &path_with_tools());
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(hooks.join("pre-commit")).unwrap(), "#!/bin/sh\necho theirs\n", "restored");
}

/// `nerd check` of a Python package whose staged `pkg/a.py` holds `source`.
fn check_staged_python(source: &str) -> (i32, serde_json::Value) {
    let dir = repo(&[("pyproject.toml", "[project]\nname = \"p\"\nversion = \"0\"\n"), ("pkg/__init__.py", "")]);
    write(dir.path(), &[("pkg/a.py", source)]);
    git(dir.path(), &["add", "-A"]);
    check(dir.path())
}

#[test]
fn python_errors_from_ruff_block_and_warnings_do_not() {
    let (code, v) = check_staged_python("import os\n\n\ndef f():\n    return undefined_name\n");
    assert_eq!(code, 1, "{v}");
    let b = blockers(&v);
    assert_eq!(b.len(), 1, "the unused import is a warning: {b:?}");
    assert_eq!((b[0].1.as_str(), b[0].2), ("pkg/a.py", 5));
    assert!(b[0].0.starts_with("error[F821]"), "{b:?}");
}

#[test]
fn a_staged_python_syntax_error_blocks() {
    // A missing colon: ruff 0.17 reports it as `invalid-syntax`.
    let (code, v) = check_staged_python("def make_str(value) -> str\n    return str(value)\n");
    assert_eq!(code, 1, "a syntax error must block: {v}");
    let b = blockers(&v);
    assert!(
        b.iter().any(|(reason, path, line)| path == "pkg/a.py" && *line == 1 && reason.contains("syntax")),
        "{b:?}"
    );
}

#[test]
fn a_go_build_error_blocks() {
    let dir =
        repo(&[("go.mod", "module example.com/gated\n\ngo 1.19\n"), ("main.go", "package main\n\nfunc main() {}\n")]);
    write(dir.path(), &[("main.go", "package main\n\nfunc main() {\n\tvar x int = \"no\"\n\t_ = x\n}\n")]);
    git(dir.path(), &["add", "-A"]);
    let (code, v) = check(dir.path());
    assert_eq!(code, 1, "{v}");
    let b = blockers(&v);
    assert!(b.iter().any(|(_, p, l)| p == "main.go" && *l == 4), "{b:?}");
}

#[test]
fn a_typescript_type_error_blocks() {
    let tsconfig = "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n";
    let dir = repo(&[("tsconfig.json", tsconfig), ("src/a.ts", "export const n: number = 1;\n")]);
    write(dir.path(), &[("src/a.ts", "export const n: number = \"one\";\n")]);
    git(dir.path(), &["add", "-A"]);
    let (code, v) = check(dir.path());
    assert_eq!(code, 1, "{v}");
    assert_eq!(blockers(&v)[0].0.split(':').next().unwrap(), "error[TS2322]");
    assert_eq!((blockers(&v)[0].1.as_str(), blockers(&v)[0].2), ("src/a.ts", 1));
}

#[test]
fn a_missing_tool_fails_closed_with_its_hint_unless_told_to_warn() {
    let dir = repo(&[("tsconfig.json", "{}\n"), ("src/a.ts", "export const n = 1;\n")]);
    write(dir.path(), &[("src/a.ts", "export const n = 2;\n")]);
    git(dir.path(), &["add", "-A"]);
    let out = nerd_with_path(dir.path(), &["check", "--json"], "/usr/bin:/bin");
    assert_eq!(out.status.code(), Some(1), "nothing was type-checked: {}", String::from_utf8_lossy(&out.stdout));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["tools"][0]["status"]["Missing"]["hint"].as_str().unwrap().contains("typescript"), "{v}");
    let b = blockers(&v);
    assert!(b.iter().any(|(reason, _, _)| reason.contains("missing-tool") && reason.contains("typescript")), "{b:?}");
    // HEAD lacks the tool too, and that is no excuse: a missing tool is never "already on HEAD".
    assert_eq!(v["existing"], serde_json::json!([]), "{v}");
    write(dir.path(), &[(".nerd/config.toml", "[check]\nmissing_tool = \"warn\"\n")]);
    let out = nerd_with_path(dir.path(), &["check"], "/usr/bin:/bin");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
}

#[test]
fn findings_already_on_head_are_listed_and_do_not_block_a_clean_change() {
    let pyproject = ("pyproject.toml", "[project]\nname = \"p\"\nversion = \"0\"\n");
    let old = "def f():\n    return undefined_name\n";
    let dir = repo(&[pyproject, ("pkg/__init__.py", ""), ("pkg/old.py", old)]);
    write(dir.path(), &[("pkg/new.py", "def g():\n    return 1\n")]);
    git(dir.path(), &["add", "-A"]);
    let (code, v) = check(dir.path());
    assert_eq!(code, 0, "HEAD's F821 is not this commit's doing: {v}");
    assert_eq!(v["baseline"]["state"], "computed", "the first check after a new HEAD runs the tools on it: {v}");
    let existing = v["existing"].as_array().unwrap();
    assert!(existing.iter().any(|f| f["path"] == "pkg/old.py" && f["line"] == 2), "{v}");
    let out = nerd_with_path(dir.path(), &["check"], &path_with_tools());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("already on HEAD, not blocking") && text.contains("pkg/old.py:2"), "{text}");

    // The same finding once more, on a line this commit adds to that file, is new: it blocks.
    write(dir.path(), &[("pkg/old.py", &format!("{old}\n\ndef h():\n    return undefined_name\n"))]);
    git(dir.path(), &["add", "-A"]);
    let (code, v) = check(dir.path());
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["baseline"]["state"], "cached", "HEAD has not moved: {v}");
    assert_eq!(blockers(&v).iter().map(|b| (b.1.as_str(), b.2)).collect::<Vec<_>>(), [("pkg/old.py", 6)], "{v}");

    // Told to, the gate blocks on what HEAD has too.
    git(dir.path(), &["reset", "-q", "pkg/old.py"]);
    git(dir.path(), &["checkout", "-q", "--", "pkg/old.py"]);
    write(dir.path(), &[(".nerd/config.toml", "[check]\nblock_on_existing = true\n")]);
    let (code, v) = check(dir.path());
    assert_eq!(code, 1, "{v}");
    assert!(blockers(&v).iter().any(|b| b.1 == "pkg/old.py" && b.2 == 2), "{v}");
}

#[test]
fn targets_broken_on_head_neither_block_nor_hide_what_the_commit_breaks() {
    // Three benches that never build on this toolchain (as semver's `#![feature]` bench on stable).
    let manifest = format!(
        "{CARGO_TOML}{}",
        (1..=3).map(|i| format!("\n[[bench]]\nname = \"old{i}\"\nharness = false\n")).collect::<String>()
    );
    let mut files = vec![("Cargo.toml".to_string(), manifest), ("src/lib.rs".into(), GOOD_RS.into())];
    for i in 1..=3 {
        files.push((format!("benches/old{i}.rs"), "fn main() {\n    let n: u32 = \"old\";\n}\n".into()));
    }
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let dir = repo(&files);

    // A clean commit is not blocked by what HEAD already fails to build.
    write(dir.path(), &[("tests/ok.rs", "#[test]\nfn adds() {\n    assert_eq!(gated::add(1, 1), 2);\n}\n")]);
    git(dir.path(), &["add", "-A"]);
    let (code, v) = check(dir.path());
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["baseline"]["state"], "computed", "{v}");
    let existing: Vec<&str> = v["existing"].as_array().unwrap().iter().filter_map(|f| f["path"].as_str()).collect();
    assert!(existing.contains(&"benches/old1.rs") && existing.contains(&"benches/old3.rs"), "{v}");

    // A commit that breaks another target is blocked for it, however cargo orders the targets.
    write(dir.path(), &[("tests/new.rs", "#[test]\nfn adds() {\n    let s: String = gated::add(1, 1);\n}\n")]);
    git(dir.path(), &["add", "-A"]);
    let (code, v) = check(dir.path());
    assert_eq!(code, 1, "{v}");
    assert_eq!(blockers(&v).iter().map(|b| (b.1.as_str(), b.2)).collect::<Vec<_>>(), [("tests/new.rs", 3)], "{v}");
}

#[test]
fn check_all_respects_gitignore_and_never_lints_nerds_own_folder() {
    let pyproject = ("pyproject.toml", "[project]\nname = \"p\"\nversion = \"0\"\n");
    let dir = repo(&[pyproject, (".gitignore", "build/\n"), ("pkg/__init__.py", "")]);
    let broken = "def f():\n    return undefined_name\n";
    write(dir.path(), &[("build/gen.py", broken), (".nerd/staged/pkg/x.py", broken), (".nerd/cache/y.py", broken)]);
    let out = nerd_with_path(dir.path(), &["check", "--all", "--json"], &path_with_tools());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{v}");
    assert_eq!(v["findings"], serde_json::json!([]), "{v}");
}

#[test]
fn failing_tests_block_when_configured() {
    let config = "[check]\ntests = true\n";
    let dir = repo(&[("Cargo.toml", CARGO_TOML), ("src/lib.rs", GOOD_RS), (".nerd/config.toml", config)]);
    let failing = format!("{GOOD_RS}\n#[cfg(test)]\nmod tests {{\n    #[test]\n    fn adds() {{\n        assert_eq!(super::add(1, 1), 3);\n    }}\n}}\n");
    write(dir.path(), &[("src/lib.rs", &failing)]);
    git(dir.path(), &["add", "-A"]);
    let (code, v) = check(dir.path());
    assert_eq!(code, 1, "{v}");
    assert_eq!(blockers(&v), vec![("test failed: tests::adds".to_string(), "src/lib.rs".to_string(), 9)]);
}

#[test]
fn bad_configuration_and_no_repository_are_usage_errors() {
    let dir = repo(&[("README.md", "x\n"), (".nerd/config.toml", "[check]\ntools = [\"eslint\"]\n")]);
    let out = nerd_with_path(dir.path(), &["check"], &path_with_tools());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("config.toml") && err.contains("eslint") && err.contains("hint:"), "{err}");
    let plain = tempfile::tempdir().unwrap();
    let out = nerd_with_path(plain.path(), &["check"], &path_with_tools());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not inside a git work tree"));
}

#[test]
fn an_instruction_becomes_a_rule_the_gate_enforces() {
    let dir = rust_repo();
    let out = nerd_with_path(dir.path(), &["instruct", "never use unwrap in library code"], &path_with_tools());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("recorded rule no-unwrap"));
    let again = nerd_with_path(dir.path(), &["instruct", "never use unwrap in library code"], &path_with_tools());
    assert!(String::from_utf8_lossy(&again.stdout).contains("already a rule"));
    let refused = nerd_with_path(dir.path(), &["instruct", "prefer iterators over index loops"], &path_with_tools());
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stdout).contains("not recorded"));

    write(dir.path(), &[("src/lib.rs", "pub fn parse(s: &str) -> u32 {\n    s.parse().unwrap()\n}\n")]);
    git(dir.path(), &["add", "src/lib.rs"]);
    let (code, v) = check(dir.path());
    assert_eq!(code, 1, "{v}");
    assert_eq!(
        blockers(&v),
        vec![(
            "rule no-unwrap: project rule: never use unwrap in library code".to_string(),
            "src/lib.rs".to_string(),
            2
        )]
    );
}

#[test]
fn the_trees_checked_live_outside_the_workspace_where_no_runner_of_the_user_finds_them() {
    let cache = tempfile::tempdir().unwrap();
    let test_file = ("test/calc.test.js", "const t = require(\"node:test\");\nt(\"adds\", () => {});\n");
    let dir =
        repo(&[("package.json", "{\"name\": \"p\"}\n"), test_file, (".nerd/config.toml", "[check]\ntests = true\n")]);
    // A tree an earlier version left inside, one of a workspace that is gone, and a
    // stale one at this very path (an earlier clone there), of which nothing is recorded.
    write(dir.path(), &[(".nerd/staged/test/calc.test.js", test_file.1)]);
    let gone = cache.path().join("nerd/trees/0123456789abcdef0123456789abcdef");
    write(&gone, &[("workspace", "/nonexistent/clone"), ("staged/a.txt", "x")]);
    let key = nerd::digest::sha256_hex(dir.path().as_os_str().as_encoded_bytes());
    let stale = cache.path().join("nerd/trees").join(&key[..32]).join("staged/test/old.test.js");
    write(stale.parent().unwrap(), &[("old.test.js", test_file.1)]);
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_nerd"))
            .args(["check", "--json"])
            .current_dir(dir.path())
            .env("XDG_CACHE_HOME", cache.path())
            .output()
            .unwrap()
    };
    let out = run();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(!dir.path().join(".nerd/staged").exists(), "the tree left inside is removed");
    assert!(!gone.exists(), "the trees of a workspace that is gone are removed");
    let trees: Vec<PathBuf> =
        std::fs::read_dir(cache.path().join("nerd/trees")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(trees.len(), 1, "{trees:?}");
    assert!(trees[0].join("staged/test/calc.test.js").is_file());
    assert!(!stale.exists(), "a file the index does not hold is not left in the tree");
    assert_eq!(std::fs::read(trees[0].join("workspace")).unwrap(), dir.path().as_os_str().as_encoded_bytes());
    // The user's own `node --test` in the workspace runs the one test, not nerd's copy as well.
    let own = Command::new("node").args(["--test"]).current_dir(dir.path()).output().unwrap();
    let tap = String::from_utf8_lossy(&own.stdout);
    assert!(tap.lines().any(|l| l == "# tests 1"), "{tap}");
}
