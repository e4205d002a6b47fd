//! A workspace with canaries inside, outside it and in a fake home, and the
//! real binary run against it with that home and its own audit state folder.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output};

use super::git;

/// A workspace with canaries inside, outside, and in a fake home.
pub struct World {
    _dir: tempfile::TempDir,
    pub ws: PathBuf,
    pub outside: PathBuf,
    pub home: PathBuf,
    pub state: PathBuf,
}

impl World {
    pub fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let (ws, outside, home, state) = (base.join("ws"), base.join("outside"), base.join("home"), base.join("state"));
        for d in [&ws, &outside, &home.join(".ssh"), &home.join(".aws"), &state, &ws.join("src")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(ws.join("src/lib.rs"), "pub fn canary() -> u32 {\n    7\n}\n").unwrap();
        std::fs::write(
            ws.join("Cargo.toml"),
            "[package]\nname = \"canary\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .unwrap();
        std::fs::write(ws.join(".env"), "API_TOKEN=canary-secret\n").unwrap();
        std::fs::write(outside.join("canary.txt"), "outside canary\n").unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\ncanary\n").unwrap();
        std::fs::write(home.join(".aws/credentials"), "[default]\naws_access_key_id=canary\n").unwrap();
        std::os::unix::fs::symlink(&outside, ws.join("escape")).unwrap();
        std::fs::create_dir_all(ws.join("tests_py")).unwrap();
        std::fs::write(ws.join("tests_py/test_ok.py"), "def test_ok():\n    assert 1 + 1 == 2\n").unwrap();
        std::fs::write(ws.join("go.mod"), "module example.com/canary\n\ngo 1.19\n").unwrap();
        std::fs::write(ws.join("ok_test.go"), "package canary\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\n")
            .unwrap();
        git(&ws, &["init", "-q", "-b", "main"]);
        git(&ws, &["add", "-A"]);
        git(&ws, &["commit", "-q", "-m", "canaries"]);
        World { _dir: dir, ws, outside, home, state }
    }

    pub fn nerd(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_nerd"))
            .args(args)
            .current_dir(&self.ws)
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", &self.state)
            .output()
            .unwrap()
    }

    pub fn act(&self, action: &str, intent: &str) -> (i32, serde_json::Value) {
        let out = self.nerd(&["act", "--json", "--intent", intent, "--action", action]);
        let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
            panic!("{action}: {} {}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
        });
        (out.status.code().unwrap_or(-1), v)
    }

    /// Every file under the three trees, with its content.
    pub fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        for root in [&self.ws, &self.outside, &self.home] {
            let mut stack = vec![root.clone()];
            while let Some(d) = stack.pop() {
                for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                    let p = e.path();
                    let t = e.file_type().unwrap();
                    if t.is_dir() && !p.ends_with(".nerd") && !p.ends_with("target") {
                        stack.push(p);
                    } else if t.is_file() {
                        out.insert(p.clone(), std::fs::read(&p).unwrap());
                    }
                }
            }
        }
        out
    }
}

pub fn exec(argv: &[&str]) -> String {
    serde_json::json!({"kind": "exec", "argv": argv}).to_string()
}

pub fn file(kind: &str, path: &str) -> String {
    if kind == "write_file" {
        serde_json::json!({"kind": kind, "path": path, "content": "pwned\n"}).to_string()
    } else {
        serde_json::json!({"kind": kind, "path": path}).to_string()
    }
}

pub fn net(url: &str) -> String {
    serde_json::json!({"kind": "net_request", "url": url}).to_string()
}
