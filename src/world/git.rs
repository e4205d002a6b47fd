//! Git state as facts: which paths differ from HEAD (working tree or index,
//! untracked included), which are staged, and which changed line ranges each
//! has, so symbols can be marked `modified`. Runs `git` with an argv array and
//! options that keep repository configuration from running anything (no
//! external diff, no textconv, no fsmonitor hook).
//! Knows nothing about symbols or facts beyond paths and line ranges.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

/// Changes against HEAD.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GitState {
    /// Path → changed line ranges in the new version (empty for whole-file changes).
    pub modified: BTreeMap<String, Vec<(u32, u32)>>,
    pub staged: Vec<String>,
}

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["-c", "core.fsmonitor=false", "-c", "core.quotePath=false", "-c", "diff.external="])
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env_remove("GIT_EXTERNAL_DIFF")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Reads the git state of the repository at `root`; `None` outside a git work tree.
pub fn state(root: &Path) -> Option<GitState> {
    let inside = git(root, &["rev-parse", "--is-inside-work-tree"])?;
    if inside.trim() != "true" {
        return None;
    }
    let prefix = git(root, &["rev-parse", "--show-prefix"]).unwrap_or_default();
    let prefix = prefix.trim();
    let mut state = GitState::default();
    let has_head = git(root, &["rev-parse", "--verify", "--quiet", "HEAD"]).is_some();
    if has_head {
        let diff = git(
            root,
            &["diff", "HEAD", "--no-ext-diff", "--no-textconv", "--no-color", "--unified=0", "--relative", "."],
        )
        .unwrap_or_default();
        parse_unified_diff(&diff, &mut state.modified);
        let staged =
            git(root, &["diff", "--cached", "--name-only", "--no-ext-diff", "--relative", "HEAD"]).unwrap_or_default();
        state.staged = staged.lines().filter(|l| !l.is_empty()).map(str::to_string).collect();
    }
    // Untracked files, and with no HEAD yet every file, are wholly new.
    let listing = if has_head {
        git(root, &["ls-files", "--others", "--exclude-standard", "-z"])
    } else {
        git(root, &["ls-files", "--cached", "--others", "--exclude-standard", "-z"])
    };
    for path in listing.unwrap_or_default().split('\0').filter(|p| !p.is_empty()) {
        let path = path.strip_prefix(prefix).unwrap_or(path);
        state.modified.entry(path.to_string()).or_default();
    }
    // nerd's own state is never part of the user's change.
    state.modified.retain(|path, _| !super::walk::is_excluded(path));
    state.staged.retain(|path| !super::walk::is_excluded(path));
    Some(state)
}

/// Collects new-side hunk ranges per file from `git diff --unified=0` output.
fn parse_unified_diff(diff: &str, out: &mut BTreeMap<String, Vec<(u32, u32)>>) {
    let mut current: Option<String> = None;
    // `---`/`+++` are headers only between `diff --git` and the first hunk.
    let mut in_header = false;
    for line in diff.lines() {
        if line.starts_with("diff --git ") {
            in_header = true;
            current = None;
        } else if let (true, Some(rest)) = (in_header, line.strip_prefix("+++ ")) {
            current = rest.strip_prefix("b/").map(str::to_string);
            if let Some(p) = &current {
                out.entry(p.clone()).or_default();
            }
        } else if let (true, Some(rest)) = (in_header, line.strip_prefix("--- a/")) {
            // A deletion has `+++ /dev/null`; remember the old path too.
            out.entry(rest.to_string()).or_default();
        } else if let Some(hunk) = line.strip_prefix("@@ ") {
            in_header = false;
            let Some(path) = &current else { continue };
            let Some(new) = hunk.split(' ').find_map(|w| w.strip_prefix('+')) else {
                continue;
            };
            let (start, count) = match new.split_once(',') {
                Some((s, c)) => (s.parse::<u32>().unwrap_or(0), c.parse::<u32>().unwrap_or(1)),
                None => (new.parse::<u32>().unwrap_or(0), 1),
            };
            // A pure deletion (count 0) touches the line where text vanished.
            let (lo, hi) = if count == 0 { (start.max(1), start.max(1)) } else { (start, start + count - 1) };
            out.entry(path.clone()).or_default().push((lo, hi));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_become_new_side_line_ranges() {
        let diff = "diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -3,0 +4,2 @@ fn x\n+a\n+b\n@@ -10 +12 @@\n--- a/not-a-header\n+y\n@@ -20,3 +21,0 @@\n-gone\n\
                    diff --git a/old.py b/old.py\n--- a/old.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n";
        let mut out = BTreeMap::new();
        parse_unified_diff(diff, &mut out);
        assert_eq!(out["src/a.rs"], vec![(4, 5), (12, 12), (21, 21)]);
        assert!(out["old.py"].is_empty());
        assert!(!out.contains_key("not-a-header"));
    }
}
