//! Helpers shared by the end-to-end tests: fixture copies in temp dirs, the
//! real `nerd` binary, and git repositories made on the spot.
#![allow(dead_code)]

pub mod world;

use std::path::Path;
use std::process::{Command, Output};

/// Copies `tests/fixtures/<name>` into a fresh temporary directory.
pub fn copy_fixture(name: &str) -> tempfile::TempDir {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&src, dir.path());
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Runs the real binary in `dir`.
pub fn nerd(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nerd")).args(args).current_dir(dir).output().unwrap()
}

/// `nerd query PREDICATE --json` as parsed JSON values.
pub fn query(dir: &Path, predicate: &str) -> Vec<serde_json::Value> {
    let out = nerd(dir, &["query", predicate, "--json"]);
    assert!(out.status.success(), "query {predicate}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The body of each audit record that `nerd audit show --json` printed.
pub fn audit_records(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| v["record"].clone())
        .collect()
}

/// Runs git in `dir` with a fixed identity, panicking on failure.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=nerd-test", "-c", "user.email=test@nerd.invalid", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}
