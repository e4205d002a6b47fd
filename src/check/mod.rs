//! `nerd check`: judges exactly what would be committed. The staged tree is
//! materialised, the repository's own compilers, linters and (optionally)
//! test runners run on it, added lines are scanned for secrets and project
//! rules, and everything becomes facts; the kernel derives `block_commit` and
//! `commit_blocked`. A commit is judged by what it introduces: when something
//! would block, the same tools run on HEAD's tree (once per HEAD, cached), and
//! findings HEAD already has are listed, not blocking. A tool the repository
//! calls for that is not installed blocks (fail closed). Results are cached by
//! the staged tree's content hash.
//! Knows nothing about how the outcome is printed.

pub mod baseline;
pub mod environment;
pub mod jest;
pub mod learned;
pub mod parse;
pub mod rules;
pub mod snapshot;
pub mod summary;
pub mod tools;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nerd_logic::{evaluate, Facts, Reason, Symbols};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::restriction::Restriction;
use crate::config::{Config, ConfigError};
use crate::secrets;
use crate::store::{StateDb, Store, StoreError};
use crate::world::git;
use parse::{Finding, Found};
use snapshot::SnapshotError;
use tools::ToolReport;

/// What is judged.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// The git index: what `git commit` would record.
    Staged,
    /// The working tree as it is.
    All,
}

#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot link {path} into the snapshot: {source}")]
    Link { path: PathBuf, source: std::io::Error },
}

/// One reason the commit is blocked, as the kernel derived it.
#[derive(Clone, Debug, Serialize)]
pub struct Blocker {
    pub reason: String,
    pub path: String,
    pub line: u32,
    /// The checks whose findings sit at this place.
    pub sources: Vec<String>,
}

/// Everything one check produced.
#[derive(Debug, Serialize)]
pub struct Outcome {
    pub root: PathBuf,
    /// Content hash of the judged tree (`worktree` in `--all` mode).
    pub tree: String,
    pub cached: bool,
    pub tools: Vec<ToolReport>,
    pub findings: Vec<Finding>,
    /// Findings HEAD already has: listed, not blocking (`block_on_existing = true` blocks on them).
    pub existing: Vec<Finding>,
    pub blockers: Vec<Blocker>,
    pub blocked: bool,
    /// The recorded override, when one let a blocked commit through.
    pub overridden: Option<String>,
    /// How HEAD's findings were had, when the staged tree blocked.
    pub baseline: Baseline,
    pub elapsed_ms: f64,
    /// Time not spent inside the tools (the staged tree's or HEAD's).
    pub overhead_ms: f64,
    /// Where the time went, phase by phase, in milliseconds.
    pub phases_ms: serde_json::Value,
}

/// HEAD's findings, needed only when the staged tree has something that blocks.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Baseline {
    /// Nothing blocked, or the comparison is off (`--all`, `block_on_existing`, no commit yet).
    NotNeeded,
    /// Read from the cache kept per HEAD tree.
    Cached,
    /// The tools ran on HEAD's tree for it, for `tools_ms`.
    Computed { tools_ms: f64 },
}

/// What is cached per staged tree.
#[derive(Serialize, Deserialize)]
struct Stored {
    tools: Vec<ToolReport>,
    findings: Vec<Finding>,
}

/// Runs the gate for the repository containing `dir`.
pub fn check(dir: &Path, mode: Mode, override_reason: Option<&str>, use_cache: bool) -> Result<Outcome, CheckError> {
    let started = Instant::now();
    let mut phases = crate::timing::Phases::default();
    let root = snapshot::toplevel(dir)?;
    let config = Config::load(&root)?;
    let mut store = Store::open(&root)?;
    remove_trees_inside(&root)?;
    phases.mark("open");

    // The content hash comes first: on a cache hit nothing is materialised or run.
    let manifest = match mode {
        Mode::Staged => Some(snapshot::manifest(&root)?),
        Mode::All => None,
    };
    let tree = manifest.as_ref().map_or_else(|| "worktree".to_string(), snapshot::tree_hash);
    let key = cache_key(&[tree.as_str(), &config.source]);
    phases.mark("manifest");
    let cached = if use_cache && mode == Mode::Staged {
        store.cached_check(&key)?.and_then(|json| serde_json::from_str::<Stored>(&json).ok())
    } else {
        None
    };
    let was_cached = cached.is_some();
    let stored = match (cached, &manifest) {
        (Some(s), _) => s,
        (None, Some(manifest)) => {
            let previous = store.snapshot_manifest()?;
            prepare_trees(&root)?;
            let staged_dir = trees_dir(&root).join("staged");
            if previous.is_empty() {
                // Nothing recorded of what the folder holds (a new `.nerd/`, a new clone at a
                // path checked before): it starts empty, so no file outside the index stays in it.
                remove_dir(&staged_dir)?;
            }
            snapshot::materialise(&root, &staged_dir, manifest, &previous)?;
            if *manifest != previous {
                store.set_snapshot_manifest(manifest)?;
            }
            link_dependencies(&root, &staged_dir)?;
            phases.mark("snapshot");
            let has_python = manifest.keys().any(|p| p.ends_with(".py"));
            let s = run_checks(&root, &staged_dir, mode, &config, has_python, &mut phases);
            if let Ok(json) = serde_json::to_string(&s) {
                store.cache_check(&key, crate::timing::now_ns(), &json)?;
            }
            phases.mark("cache");
            s
        }
        (None, None) => {
            let has_python = crate::world::walk::walk(&root).0.iter().any(|w| w.path.ends_with(".py"));
            phases.mark("walk");
            run_checks(&root, &root, mode, &config, has_python, &mut phases)
        }
    };

    // Learned rules are judged on every check (they change without the tree changing), never cached.
    let learned = learned_rules(&root)?;
    let mut stored = stored;
    stored.findings.extend(learned_findings(&root, mode, manifest.as_ref(), &learned));
    let mut facts = facts(&config, &learned, &stored.findings);
    let mut fixpoint = evaluate(facts.clone());
    phases.mark("evaluate");
    // Only what the commit introduces blocks: what HEAD already has is set apart.
    let mut existing = Vec::new();
    let mut judged = stored.findings.clone();
    let mut baseline = Baseline::NotNeeded;
    if fixpoint.commit_blocked() && mode == Mode::Staged && !config.check.block_on_existing {
        if let Some((head, how)) = head_findings(&root, &config, &mut store, manifest.as_ref())? {
            baseline = how;
            let added = git::added_lines(&root, true);
            let split = baseline::split(stored.findings.clone(), &head, &added);
            existing = split.existing;
            judged = split.new;
            facts = self::facts(&config, &learned, &judged);
            fixpoint = evaluate(facts.clone());
        }
        phases.mark("baseline");
    }
    let mut blocked = fixpoint.commit_blocked();
    let mut overridden = None;
    let blockers: Vec<Blocker> =
        fixpoint.blockers().iter().map(|b| blocker(b, &fixpoint.facts().symbols, &judged, &stored.tools)).collect();
    // An override given now is recorded for this staged tree; one recorded earlier for the
    // very same staged tree (`nerd check --override`, then `git commit` through the hook) holds.
    let reason = match (blocked, override_reason, mode) {
        (false, _, _) => None,
        (true, Some(reason), _) => {
            let summary = serde_json::to_string(&blockers).unwrap_or_default();
            StateDb::open(&root)?.record_override(crate::timing::now_ns(), &tree, reason, &summary)?;
            Some(reason.to_string())
        }
        (true, None, Mode::Staged) => StateDb::open(&root)?
            .overrides()?
            .into_iter()
            .find(|(_, t, _, _)| *t == tree)
            .map(|(_, _, reason, _)| reason),
        (true, None, Mode::All) => None,
    };
    if let Some(reason) = reason {
        let r = facts.sym(&reason);
        facts.commit_override.push(r);
        let again = evaluate(facts);
        blocked = again.commit_blocked();
        overridden = again.commit_overridden().map(|r| again.facts().symbols.resolve(r).to_string());
    }
    phases.mark("verdict");
    let elapsed = started.elapsed();
    let mut in_tools: f64 = if was_cached { 0.0 } else { stored.tools.iter().map(|t| t.elapsed_ms).sum() };
    if let Baseline::Computed { tools_ms } = baseline {
        in_tools += tools_ms;
    }
    Ok(Outcome {
        root,
        tree,
        cached: was_cached,
        findings: judged,
        existing,
        tools: stored.tools,
        blockers,
        blocked,
        overridden,
        baseline,
        elapsed_ms: elapsed.as_secs_f64() * 1000.0,
        overhead_ms: (elapsed.as_secs_f64() * 1000.0 - in_tools).max(0.0),
        phases_ms: crate::timing::Phases::to_json(&phases.done),
    })
}

/// Where the trees nerd checks (the staged tree, HEAD's) are materialised:
/// `$XDG_CACHE_HOME/nerd/trees/<workspace hash>/` (or `~/.cache/...`), outside
/// the workspace, so that no test runner, linter or search the user runs there
/// finds nerd's copies of their files. (vitest, jest and `node --test` walk
/// every folder but node_modules, dot-folders included.) Without a home, the
/// workspace's own `.nerd/` holds them.
pub fn trees_dir(root: &Path) -> PathBuf {
    let key = crate::digest::sha256_hex(root.as_os_str().as_encoded_bytes());
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map_or_else(|| root.join(".nerd"), |cache| cache.join("nerd/trees").join(&key[..32]))
}

/// The file in a workspace's trees folder that names the workspace.
const WORKSPACE_FILE: &str = "workspace";

/// Makes the workspace's trees folder, naming the workspace in it, and
/// removes the trees of workspaces that no longer exist (temporary clones).
fn prepare_trees(root: &Path) -> Result<(), CheckError> {
    let dir = trees_dir(root);
    if dir.starts_with(root) {
        return Ok(());
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CheckError::Snapshot(SnapshotError::Io { path, source })
    };
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let named = dir.join(WORKSPACE_FILE);
    if std::fs::read(&named).ok().as_deref() != Some(root.as_os_str().as_encoded_bytes()) {
        std::fs::write(&named, root.as_os_str().as_encoded_bytes()).map_err(io(&named))?;
    }
    let Some(all) = dir.parent() else { return Ok(()) };
    for entry in std::fs::read_dir(all).map_err(io(all))?.flatten() {
        let Ok(workspace) = std::fs::read(entry.path().join(WORKSPACE_FILE)) else { continue };
        let workspace = PathBuf::from(<std::ffi::OsString as std::os::unix::ffi::OsStringExt>::from_vec(workspace));
        if !workspace.join(".nerd").is_dir() {
            // Another process may be removing it too; what is left is removed next time.
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    Ok(())
}

/// Removes the trees earlier versions materialised inside the workspace
/// (`.nerd/staged/`, `.nerd/head/`), which the user's own test runners would run.
fn remove_trees_inside(root: &Path) -> Result<(), CheckError> {
    if trees_dir(root).starts_with(root) {
        return Ok(());
    }
    for name in ["staged", "head"] {
        remove_dir(&root.join(".nerd").join(name))?;
    }
    Ok(())
}

/// Removes a folder and all it holds; one that is not there is no error.
fn remove_dir(dir: &Path) -> Result<(), CheckError> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(SnapshotError::Io { path: dir.to_path_buf(), source }.into()),
    }
}

/// Ignored dependency folders of the work tree that checks need in the snapshot.
const DEPENDENCY_DIRS: &[&str] = &["node_modules"];

/// Makes ignored dependency folders of the work tree visible in the snapshot.
fn link_dependencies(root: &Path, staged: &Path) -> Result<(), CheckError> {
    for name in DEPENDENCY_DIRS.iter().copied() {
        let (from, to) = (root.join(name), staged.join(name));
        if from.is_dir() && std::fs::symlink_metadata(&to).is_err() {
            std::os::unix::fs::symlink(&from, &to).map_err(|source| CheckError::Link { path: to.clone(), source })?;
        }
    }
    Ok(())
}

/// The tool findings of HEAD's tree, from the cache or by running the same
/// tools on it, and which of the two; `None` before the first commit.
fn head_findings(
    root: &Path,
    config: &Config,
    store: &mut Store,
    staged: Option<&snapshot::Manifest>,
) -> Result<Option<(Vec<Finding>, Baseline)>, CheckError> {
    let Some(head) = snapshot::head_manifest(root)? else { return Ok(None) };
    let key = cache_key(&["head", &snapshot::tree_hash(&head), &config.source]);
    if let Some(found) = store.cached_check(&key)?.and_then(|j| serde_json::from_str::<Vec<Finding>>(&j).ok()) {
        return Ok(Some((found, Baseline::Cached)));
    }
    prepare_trees(root)?;
    let dir = trees_dir(root).join("head");
    // The folder is rebuilt from scratch: what it held before is not recorded anywhere trusted.
    remove_dir(&dir)?;
    snapshot::materialise(root, &dir, &head, &snapshot::Manifest::new())?;
    link_dependencies(root, &dir)?;
    let has_python =
        staged.is_some_and(|m| m.keys().any(|p| p.ends_with(".py"))) || head.keys().any(|p| p.ends_with(".py"));
    let reports = run_tools(root, &dir, &root.join(".nerd/check-target-head"), config, has_python);
    let tools_ms = reports.iter().map(|r| r.elapsed_ms).sum();
    let found: Vec<Finding> = reports.into_iter().flat_map(|r| r.findings).collect();
    if let Ok(json) = serde_json::to_string(&found) {
        store.cache_check(&key, crate::timing::now_ns(), &json)?;
    }
    Ok(Some((found, Baseline::Computed { tools_ms })))
}

/// A cache key over `parts`, nerd's version and the tools on PATH.
fn cache_key(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    let path = std::env::var("PATH").unwrap_or_default();
    for part in parts.iter().copied().chain([env!("CARGO_PKG_VERSION"), path.as_str()]) {
        h.update(part.as_bytes());
        h.update([0]);
    }
    crate::digest::hex(&h.finalize())
}

/// Runs the detected tools on `dir`, side by side; a tool that is not
/// installed becomes a `missing-tool` finding (an error unless `missing_tool = "warn"`).
fn run_tools(root: &Path, dir: &Path, target_dir: &Path, config: &Config, has_python: bool) -> Vec<ToolReport> {
    let timeout = Duration::from_secs(config.check.timeout_secs);
    let selected = tools::detect(dir, &config.check, has_python);
    // Languages' tools run side by side; each compiler parallelises itself too.
    let mut reports: Vec<ToolReport> = std::thread::scope(|scope| {
        let handles: Vec<_> = selected
            .iter()
            .map(|&tool| scope.spawn(move || tools::run(tool, dir, root, target_dir, timeout)))
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    reports.sort_by(|a, b| a.tool.cmp(&b.tool));
    let severity = match config.check.missing_tool {
        crate::config::MissingTool::Block => nerd_logic::vocab::Severity::Error,
        crate::config::MissingTool::Warn => nerd_logic::vocab::Severity::Warning,
    };
    for r in &mut reports {
        if let tools::Status::Missing { hint } = &r.status {
            r.findings.push(Finding {
                found: Found::Diagnostic {
                    severity,
                    code: baseline::MISSING_TOOL.to_string(),
                    message: format!(
                        "{} is not installed, so nothing it checks was checked ({hint}; or set [check] missing_tool = \"warn\")",
                        r.tool
                    ),
                },
                path: String::new(),
                line: 0,
                source: r.tool.clone(),
            });
        }
    }
    reports
}

fn run_checks(
    root: &Path,
    dir: &Path,
    mode: Mode,
    config: &Config,
    has_python: bool,
    phases: &mut crate::timing::Phases,
) -> Stored {
    let target_dir = target_dir_for(&root.join(".nerd/check-target"), mode);
    let reports = run_tools(root, dir, &target_dir, config, has_python);
    phases.mark("tools");
    let added = git::added_lines(root, mode == Mode::Staged);
    phases.mark("added_lines");
    let mut findings: Vec<Finding> = reports.iter().flat_map(|r| r.findings.iter().cloned()).collect();
    for (path, diff) in &added {
        findings.extend(secrets::scan(path, &diff.added).into_iter().map(|hit| Finding {
            found: Found::Secret { kind: hit.kind.to_string() },
            path: path.clone(),
            line: hit.line,
            source: "secrets".into(),
        }));
    }
    // Files that are secrets by name are blocked even when no line was added (empty or binary).
    for path in added.keys().filter(|p| secrets::secret_file(p).is_some()) {
        if !findings.iter().any(|f| &f.path == path && matches!(f.found, Found::Secret { .. })) {
            let kind = secrets::secret_file(path).unwrap_or("secret_file").to_string();
            findings.push(Finding {
                found: Found::Secret { kind },
                path: path.clone(),
                line: 1,
                source: "secrets".into(),
            });
        }
    }
    findings.extend(rules::check(dir, &config.check.rules, &added));
    phases.mark("secrets_and_rules");
    Stored { tools: reports, findings }
}

/// Compiler output for the staged snapshot goes to nerd's own target folder;
/// `--all` uses the project's usual one.
fn target_dir_for(nerd_target: &Path, mode: Mode) -> PathBuf {
    match mode {
        Mode::Staged => nerd_target.to_path_buf(),
        Mode::All => PathBuf::from("target"),
    }
}

/// An accepted learned rule as the gate reads it: its id, what it forbids and
/// where it came from; `Err` for a stored rule that cannot be read (it blocks).
type LearnedRule = (String, Result<Restriction, String>, String);

/// The accepted learned rules of the workspace's durable state.
fn learned_rules(root: &Path) -> Result<Vec<LearnedRule>, CheckError> {
    let rows = StateDb::open(root)?.rules(Some("accepted"))?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let source = crate::store::origin_in_words(&r.origin, &r.text, r.evidence);
            (format!("L{}", r.id), Restriction::from_json(&r.restriction), source)
        })
        .collect())
}

/// Findings of the accepted learned rules on what the commit changes against
/// HEAD (staged), or what the work tree changes (`--all`).
fn learned_findings(
    root: &Path,
    mode: Mode,
    staged: Option<&snapshot::Manifest>,
    rules: &[LearnedRule],
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut checked = Vec::new();
    for (id, restriction, _) in rules {
        match restriction {
            Ok(r) if r.is_checked() => checked.push((id.clone(), r.clone())),
            Ok(_) => {}
            Err(e) => findings.push(Finding {
                found: Found::Rule { id: id.clone() },
                path: String::new(),
                line: 0,
                source: format!("learned rule {id} cannot be read: {e}"),
            }),
        }
    }
    if checked.is_empty() {
        return findings;
    }
    let head = snapshot::head_manifest(root).ok().flatten().unwrap_or_default();
    let blob = |oid: &str| git::run(root, &["cat-file", "blob", oid]).unwrap_or_default();
    let old_of = |path: &str| head.get(path).map(|e| blob(&e.blob)).unwrap_or_default();
    let mut texts: Vec<(String, String, String)> = Vec::new();
    match (mode, staged) {
        (Mode::Staged, Some(manifest)) => {
            for (path, entry) in manifest {
                if head.get(path).map(|e| &e.blob) != Some(&entry.blob) {
                    texts.push((path.clone(), old_of(path), blob(&entry.blob)));
                }
            }
            for path in head.keys().filter(|p| !manifest.contains_key(*p)) {
                texts.push((path.clone(), old_of(path), String::new()));
            }
        }
        _ => {
            for path in git::added_lines(root, false).into_keys() {
                let new = std::fs::read_to_string(root.join(&path)).unwrap_or_default();
                texts.push((path.clone(), old_of(&path), new));
            }
        }
    }
    let changes: Vec<learned::Change<'_>> =
        texts.iter().map(|(path, old, new)| learned::Change { path, old, new }).collect();
    for v in learned::violations(&checked, &changes) {
        findings.push(Finding { found: Found::Rule { id: v.rule }, path: v.path, line: v.line, source: v.what });
    }
    findings
}

/// The gate's fact base: findings, configured and learned rules, and blocking severities.
fn facts(config: &Config, learned: &[LearnedRule], findings: &[Finding]) -> Facts {
    let mut f = nerd_logic::defaults::policy();
    f.blocking_severity = config.check.block_on.clone();
    for rule in &config.check.rules {
        let row = (f.sym(rule.lang.name()), f.sym(&rule.id), rule.severity, f.sym(&rule.message));
        f.forbidden_pattern.push(row);
    }
    for (id, restriction, source) in learned {
        let what = restriction.as_ref().map_or_else(|e| format!("unreadable ({e})"), Restriction::describe);
        let message = format!("learned rule: {what} ({source})");
        let row = (f.sym("any"), f.sym(id), nerd_logic::vocab::Severity::Error, f.sym(&message));
        f.forbidden_pattern.push(row);
    }
    assert_findings(&mut f, findings);
    f
}

/// Asserts findings as the facts the commit gate and the repair loop read.
pub fn assert_findings(f: &mut Facts, findings: &[Finding]) {
    for finding in findings {
        let (path, line) = (f.path(&finding.path), nerd_logic::Line(finding.line));
        match &finding.found {
            Found::Diagnostic { severity, code, message } => {
                let row = (*severity, path, line, f.sym(code), f.sym(message));
                f.diagnostic.push(row);
            }
            Found::Test { name, outcome } => {
                let row = (f.sym(name), path, line, *outcome);
                f.test_outcome.push(row);
            }
            Found::Secret { kind } => {
                let row = (path, line, f.sym(kind));
                f.secret.push(row);
            }
            Found::Rule { id } => {
                let row = (f.sym(id), path, line);
                f.rule_violation.push(row);
            }
        }
    }
}

/// A blocker as the gate shows it, with the checks that found it: the findings
/// at its place that say what it says, else the tool whose failure it is.
fn blocker(b: &nerd_logic::Blocker, s: &Symbols, findings: &[Finding], tools: &[ToolReport]) -> Blocker {
    let (path, line) = (s.resolve(b.path.0), b.line.0);
    let same = |found: &Found| match (b.reason, found) {
        (Reason::Diagnostic(_, code, _), Found::Diagnostic { code: c, .. }) => s.resolve(code) == c,
        (Reason::TestFailed(name, _), Found::Test { name: n, .. }) => s.resolve(name) == n,
        (Reason::Secret(_), Found::Secret { .. }) => true,
        (Reason::Rule(id, _), Found::Rule { id: i }) => s.resolve(id) == i,
        _ => false,
    };
    let mut sources: Vec<String> = findings
        .iter()
        .filter(|f| f.path == path && f.line == line && same(&f.found))
        .map(|f| f.source.clone())
        .collect();
    sources.sort();
    sources.dedup();
    if let (true, Reason::Diagnostic(_, code, _)) = (sources.is_empty(), b.reason) {
        let failed = s.resolve(code).strip_suffix("-failed").unwrap_or_default();
        sources = tools.iter().filter(|t| t.tool == failed).map(|t| t.tool.clone()).collect();
    }
    Blocker { reason: b.reason.describe(s), path: path.to_string(), line, sources }
}

/// Groups blockers by file for display, files in order.
pub fn by_file(blockers: &[Blocker]) -> BTreeMap<&str, Vec<&Blocker>> {
    let mut out: BTreeMap<&str, Vec<&Blocker>> = BTreeMap::new();
    for b in blockers {
        out.entry(b.path.as_str()).or_default().push(b);
    }
    for list in out.values_mut() {
        list.sort_by_key(|b| b.line);
    }
    out
}
