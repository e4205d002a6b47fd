//! Git state as facts: which paths differ from HEAD (working tree or index,
//! untracked included), which are staged, and which changed line ranges each
//! has, so symbols can be marked `modified`; and, when asked, the branch and
//! the newest commits. Runs `git` with an argv array and
//! options that keep repository configuration from running anything (no
//! external diff, no textconv, no fsmonitor hook).
//! Knows nothing about symbols or facts beyond paths and line ranges.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

/// One regular file of the git index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub mode: String,
    pub blob: String,
}

/// The git index, as path → entry (regular files only; symlinks and submodules are not materialised).
pub type Manifest = BTreeMap<String, Entry>;

/// Changes against HEAD.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GitState {
    /// Path → changed line ranges in the new version (empty for whole-file changes).
    pub modified: BTreeMap<String, Vec<(u32, u32)>>,
    pub staged: Vec<String>,
}

/// A `git` command in `root` that repository configuration cannot turn into
/// running something else: no fsmonitor hook, no external diff, no optional
/// locks (reading state never writes to `.git/`), every configured content
/// filter (`filter.<driver>.clean/smudge/process`, which `git status` would run
/// on changed files) switched off, stdin from /dev/null. Whatever a confined
/// program wrote into `.git/config` or `.gitattributes`, this git runs none of it.
pub fn command(root: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(root)
        .args(["-c", "core.fsmonitor=false", "-c", "core.quotePath=false", "-c", "diff.external="])
        .args(["-c", "core.sshCommand=false", "-c", "credential.helper="]);
    for driver in filter_drivers(root) {
        for (key, value) in [("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")] {
            cmd.arg("-c").arg(format!("filter.{driver}.{key}={value}"));
        }
    }
    cmd.env("GIT_OPTIONAL_LOCKS", "0")
        .env_remove("GIT_EXTERNAL_DIFF")
        .env_remove("GIT_CONFIG_PARAMETERS")
        .env_remove("GIT_CONFIG_COUNT")
        .stdin(Stdio::null());
    cmd
}

/// The content filter drivers any configuration scope names (`filter.<driver>.*`).
/// Reading configuration runs nothing, whatever it says.
fn filter_drivers(root: &Path) -> Vec<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["config", "--null", "--name-only", "--get-regexp", r"^filter\."])
        .env_remove("GIT_CONFIG_PARAMETERS")
        .env_remove("GIT_CONFIG_COUNT")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let Ok(out) = out else { return Vec::new() };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut drivers: Vec<String> = text
        .split('\0')
        .filter_map(|key| key.trim().strip_prefix("filter."))
        .filter_map(|rest| rest.rsplit_once('.').map(|(driver, _)| driver.to_string()))
        .filter(|d| !d.is_empty() && !d.contains(['=', '\n']))
        .collect();
    drivers.sort();
    drivers.dedup();
    drivers
}

/// Runs a hardened `git`: its stdout on success, its stderr's text on failure.
pub fn run(root: &Path, args: &[&str]) -> Result<String, String> {
    let out = command(root).args(args).output().map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

fn git(root: &Path, args: &[&str]) -> Option<String> {
    run(root, args).ok()
}

/// Reads the git state of the repository at `root`; `None` outside a git work
/// tree. Two processes at most: `git status` for what changed and whether HEAD
/// exists, then `git diff` over just the changed tracked paths for line ranges.
pub fn state(root: &Path) -> Option<GitState> {
    let head = git(root, &["rev-parse", "--is-inside-work-tree", "--show-prefix"])?;
    let mut lines = head.lines();
    if lines.next()? != "true" {
        return None;
    }
    let prefix = lines.next().unwrap_or("").trim().to_string();
    let status = git(
        root,
        &[
            "status",
            "--porcelain=v2",
            "--branch",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--ignore-submodules=dirty",
            ".",
        ],
    )?;
    let parsed = parse_status(&status, &prefix);
    let mut state = GitState { staged: parsed.staged, ..GitState::default() };
    for path in parsed.untracked.iter().chain(&parsed.changed) {
        state.modified.insert(path.clone(), Vec::new());
    }
    if parsed.has_head && !parsed.changed.is_empty() {
        let mut args =
            vec!["diff", "HEAD", "--no-ext-diff", "--no-textconv", "--no-color", "--unified=0", "--relative", "--"];
        args.extend(parsed.changed.iter().map(String::as_str));
        if let Some(diff) = git(root, &args) {
            for (path, d) in parse_diff(&diff) {
                state.modified.insert(path, d.ranges);
            }
        }
    }
    // nerd's own state is never part of the user's change.
    state.modified.retain(|path, _| !super::walk::is_excluded(path));
    state.staged.retain(|path| !super::walk::is_excluded(path));
    Some(state)
}

/// Whether `root` lies in a git work tree (one `git rev-parse`, nothing read from the tree).
pub fn is_work_tree(root: &Path) -> bool {
    git(root, &["rev-parse", "--is-inside-work-tree"]).is_some_and(|out| out.trim() == "true")
}

/// The branch HEAD is on, and how it stands against its upstream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Branch {
    /// `None` when HEAD is detached.
    pub name: Option<String>,
    pub upstream: Option<String>,
    pub ahead: u32,
    pub behind: u32,
    /// No commit exists yet.
    pub unborn: bool,
}

/// The branch of the repository at `root`; `None` outside a git work tree.
pub fn branch(root: &Path) -> Option<Branch> {
    let out =
        git(root, &["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=no", "--ignore-submodules=all"])?;
    Some(parse_branch(&out))
}

fn parse_branch(out: &str) -> Branch {
    let mut branch = Branch::default();
    for record in out.split('\0') {
        if record == "# branch.oid (initial)" {
            branch.unborn = true;
        } else if let Some(head) = record.strip_prefix("# branch.head ") {
            branch.name = (head != "(detached)").then(|| head.to_string());
        } else if let Some(upstream) = record.strip_prefix("# branch.upstream ") {
            branch.upstream = Some(upstream.to_string());
        } else if let Some(ab) = record.strip_prefix("# branch.ab ") {
            let mut parts = ab.split_whitespace();
            branch.ahead = parts.next().and_then(|a| a.trim_start_matches('+').parse().ok()).unwrap_or(0);
            branch.behind = parts.next().and_then(|b| b.trim_start_matches('-').parse().ok()).unwrap_or(0);
        }
    }
    branch
}

/// One commit as `git log` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commit {
    pub hash: String,
    /// The author date, `YYYY-MM-DD`.
    pub date: String,
    pub author: String,
    pub subject: String,
}

/// The newest `count` commits of HEAD, only those that changed `path` when one is given.
/// Signatures are not verified (that would run gpg) and nothing is diffed.
pub fn log(root: &Path, path: Option<&str>, count: usize) -> Result<Vec<Commit>, String> {
    let count = format!("--max-count={count}");
    let mut args = vec![
        "log",
        count.as_str(),
        "--no-show-signature",
        "--no-color",
        "--date=short",
        "--format=%h%x1f%ad%x1f%an%x1f%s%x1e",
    ];
    if let Some(path) = path {
        args.extend(["--", path]);
    }
    Ok(parse_log(&run(root, &args)?))
}

fn parse_log(out: &str) -> Vec<Commit> {
    out.split('\x1e')
        .filter_map(|record| {
            let mut fields = record.trim_start_matches('\n').splitn(4, '\x1f');
            Some(Commit {
                hash: fields.next().filter(|h| !h.is_empty())?.to_string(),
                date: fields.next()?.to_string(),
                author: fields.next()?.to_string(),
                subject: fields.next()?.trim_end().to_string(),
            })
        })
        .collect()
}

/// What `git status --porcelain=v2 --branch -z` says, paths relative to the workspace.
#[derive(Debug, Default, PartialEq, Eq)]
struct Status {
    has_head: bool,
    /// Tracked paths that differ from HEAD in the index or the work tree.
    changed: Vec<String>,
    staged: Vec<String>,
    untracked: Vec<String>,
}

fn parse_status(out: &str, prefix: &str) -> Status {
    let mut status = Status { has_head: true, ..Status::default() };
    let local = |path: &str| path.strip_prefix(prefix).unwrap_or(path).to_string();
    for record in out.split('\0').filter(|r| !r.is_empty()) {
        if record == "# branch.oid (initial)" {
            status.has_head = false;
        } else if let Some(path) = record.strip_prefix("? ") {
            status.untracked.push(local(path));
        } else if let Some(rest) = record.strip_prefix("1 ").or_else(|| record.strip_prefix("u ")) {
            // `1 XY sub mH mI mW hH hI path`; unmerged `u` entries have one more field.
            let fields = if record.starts_with('u') { 10 } else { 8 };
            let mut parts = rest.splitn(fields, ' ');
            let xy = parts.next().unwrap_or("..");
            let Some(path) = parts.last() else { continue };
            let path = local(path);
            if !xy.starts_with('.') {
                status.staged.push(path.clone());
            }
            status.changed.push(path);
        }
    }
    status
}

/// One file's part of a `git diff --unified=0`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileDiff {
    /// New-side line ranges that changed (a pure deletion marks the line where text vanished).
    pub ranges: Vec<(u32, u32)>,
    /// Added lines with their new-side line numbers and text.
    pub added: Vec<(u32, String)>,
}

/// Parses `git diff --unified=0` output, keyed by new path (old path for deletions).
pub fn parse_diff(diff: &str) -> BTreeMap<String, FileDiff> {
    let mut out: BTreeMap<String, FileDiff> = BTreeMap::new();
    let mut current: Option<String> = None;
    // `---`/`+++` are headers only between `diff --git` and the first hunk.
    let mut in_header = false;
    let mut next_line = 0u32;
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
            let (lo, hi) = if count == 0 { (start.max(1), start.max(1)) } else { (start, start + count - 1) };
            out.entry(path.clone()).or_default().ranges.push((lo, hi));
            next_line = start;
        } else if let (false, Some(text), Some(path)) = (in_header, line.strip_prefix('+'), &current) {
            out.entry(path.clone()).or_default().added.push((next_line, text.to_string()));
            next_line += 1;
        }
    }
    out
}

/// Added lines of what is staged (`staged`) or of the work tree, against HEAD.
/// Untracked files are not included; with no HEAD, everything staged is added.
pub fn added_lines(root: &Path, staged: bool) -> BTreeMap<String, FileDiff> {
    let has_head = git(root, &["rev-parse", "--verify", "--quiet", "HEAD"]).is_some();
    let base = if has_head { "HEAD" } else { EMPTY_TREE };
    let mut args = vec!["diff", "--no-ext-diff", "--no-textconv", "--no-color", "--unified=0", "--relative"];
    if staged {
        args.push("--cached");
    }
    args.push(base);
    parse_diff(&git(root, &args).unwrap_or_default())
}

/// The id of git's empty tree: the base to diff against before the first commit.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn porcelain_v2_status_is_read() {
        let records = [
            "# branch.oid (initial)",
            "# branch.head main",
            "1 A. N... 000000 100644 100644 0000 1111 sub/src/a.rs",
            "1 .M N... 100644 100644 100644 2222 2222 sub/b file.py",
            "? sub/new.go",
        ];
        let out = records.join("\0");
        let s = parse_status(&out, "sub/");
        assert!(!s.has_head);
        assert_eq!(s.changed, vec!["src/a.rs", "b file.py"]);
        assert_eq!(s.staged, vec!["src/a.rs"]);
        assert_eq!(s.untracked, vec!["new.go"]);
    }

    #[test]
    fn the_branch_and_its_upstream_are_read() {
        let out = ["# branch.oid 1234", "# branch.head main", "# branch.upstream origin/main", "# branch.ab +2 -1"]
            .join("\0");
        let b = parse_branch(&out);
        assert_eq!(
            (b.name.as_deref(), b.upstream.as_deref(), b.ahead, b.behind, b.unborn),
            (Some("main"), Some("origin/main"), 2, 1, false)
        );
        let detached = parse_branch("# branch.oid (initial)\0# branch.head (detached)");
        assert_eq!((detached.name, detached.unborn), (None, true));
    }

    #[test]
    fn log_records_are_read_whatever_the_subject_holds() {
        let out = "abc1234\x1f2026-11-28\x1fAda\x1ffix: a | b\ttab\x1e\ndef5678\x1f2026-11-27\x1fBob\x1fInitial\x1e\n";
        let commits = parse_log(out);
        assert_eq!(commits.len(), 2);
        assert_eq!((commits[0].hash.as_str(), commits[0].subject.as_str()), ("abc1234", "fix: a | b\ttab"));
        assert_eq!((commits[1].date.as_str(), commits[1].author.as_str()), ("2026-11-27", "Bob"));
        assert!(parse_log("").is_empty());
    }

    #[test]
    fn hunks_become_new_side_line_ranges() {
        let diff = "diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -3,0 +4,2 @@ fn x\n+a\n+b\n@@ -10 +12 @@\n--- a/not-a-header\n+y\n@@ -20,3 +21,0 @@\n-gone\n\
                    diff --git a/old.py b/old.py\n--- a/old.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n";
        let out = parse_diff(diff);
        assert_eq!(out["src/a.rs"].ranges, vec![(4, 5), (12, 12), (21, 21)]);
        assert_eq!(out["src/a.rs"].added, vec![(4, "a".into()), (5, "b".into()), (12, "y".into())]);
        assert!(out["old.py"].ranges.is_empty());
        assert!(!out.contains_key("not-a-header"));
    }
}
