//! Starts a spawned child: nerd itself, as a separate process in its own
//! process group (`nerd shard-child`), given its signed token in the
//! environment; waits for it under a time limit and Ctrl-C, and parses the
//! report it prints. The child's report is read at a boundary like any
//! program's output: typed, bounded, and refused when malformed.
//! Knows nothing about why the child was spawned.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::delegation::Token;

/// The environment variable a child finds its token in.
pub const TOKEN_VAR: &str = "NERD_DELEGATION";

/// One action a child's router judged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChildAction {
    pub kind: String,
    pub target: String,
    /// executed, refused or failed.
    pub outcome: String,
    #[serde(default)]
    pub reasons: Vec<String>,
}

/// What a child reports when it ends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChildReport {
    pub token: String,
    pub specialist: Option<String>,
    pub task: String,
    /// answered, succeeded, refused, failed... (the agent's status words, or `answered` from knowledge).
    pub status: String,
    pub answer: String,
    #[serde(default)]
    pub citations: Vec<String>,
    #[serde(default)]
    pub actions: Vec<ChildAction>,
    /// The child router's audit session.
    pub session: String,
    /// Milliseconds from the child's start to its first decision.
    #[serde(default)]
    pub first_decision_ms: Option<u64>,
    /// What the child found, as atoms in the kernel's syntax: the parent
    /// parses them at its boundary and keeps only what the task may report.
    #[serde(default)]
    pub facts: Vec<String>,
}

impl ChildReport {
    /// Whether the child did its task: answered from knowledge, or the agent loop succeeded.
    pub fn succeeded(&self) -> bool {
        matches!(self.status.as_str(), "answered" | "succeeded")
    }
}

/// How a child ended, seen from the parent.
#[derive(Debug)]
pub struct Ended {
    pub report: Option<ChildReport>,
    pub code: Option<i32>,
    pub timed_out: bool,
    /// The child's error output (capped), for a child that failed.
    pub stderr: String,
    pub wall: Duration,
}

/// Runs the child for `token` in the workspace at `root` and waits for it.
pub fn run(root: &Path, token: &Token, timeout: Duration, cancel: Option<Arc<AtomicBool>>) -> Result<Ended, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find nerd's own executable: {e}"))?;
    let mut env = vec![(TOKEN_VAR.to_string(), token.to_json().into())];
    // nerd's own settings (model folders, provider) reach the child; nothing else beyond the allowlist.
    for (k, v) in std::env::vars_os() {
        let k = k.to_string_lossy().to_string();
        if k.starts_with("NERD_") && k != TOKEN_VAR || k.starts_with("XDG_") {
            env.push((k, v));
        }
    }
    let job = crate::exec::Job {
        argv: vec![exe.into_os_string(), "shard-child".into(), "--token-id".into(), token.claims.id.clone().into()],
        cwd: root.to_path_buf(),
        env,
        timeout,
        confine: None,
        cancel,
    };
    let finished = crate::exec::run(&job).map_err(|e| e.to_string())?;
    let report = finished.stdout.lines().rev().find(|l| l.starts_with('{')).and_then(|l| serde_json::from_str(l).ok());
    let stderr: String = finished.stderr.chars().take(4000).collect();
    Ok(Ended { report, code: finished.code, timed_out: finished.timed_out, stderr, wall: finished.elapsed })
}
