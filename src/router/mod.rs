//! The router: the only module that acts. For every action it re-derives the
//! constitution's verdict for exactly that action (with the session's audit
//! events and any recorded human approval), appends the decision to the
//! audit trail before acting, and only then runs it: execs confined by the
//! sandbox, reads capped, writes atomic and checkpointed for `nerd undo`,
//! deletes checkpointed. Refusals are recorded too. The match over actions is
//! exhaustive; kinds this build cannot carry out fail with a clear error.
//! Knows nothing about why an action was proposed.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use nerd_logic::vocab::{ActionKind, ActionOutcome, Autonomy, Category};
use nerd_logic::{base_atoms, evaluate, Atom, Facts, Origin, PREDICATES};
use serde::Serialize;
use serde_json::json;

mod browse;
mod children;
pub mod record;
pub mod undo;

use crate::audit::{self, AuditError};
use crate::exec::{self, Job};
use crate::files;
use crate::policy::{self, paths, Action, Verdict, ACTION_ID};
use crate::sandbox::{self, Confinement, Layers};
use crate::scratch::Scratch;
use crate::specialist::delegation::{self, Chain, Scope};
use crate::store::{After, StateDb, StoreError};
pub use children::{ChildProgress, ChildState};
pub use record::{ApprovedBy, Leaves, OutcomeStatus, OutcomeSummary, Record, Stored, UndoFile};
pub use undo::{undo, Conflict, Undone};

/// Bytes of a file a read returns.
pub const MAX_READ_BYTES: usize = 8 * 1024 * 1024;
/// Bytes of each output stream kept in an audit record.
const AUDIT_OUTPUT_BYTES: usize = 4096;
/// Search matches returned.
const MAX_MATCHES: usize = 1000;

#[derive(Debug, thiserror::Error)]
pub enum RouterError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Audit(#[from] AuditError),
    #[error("cannot use workspace {path}: {source}")]
    Workspace { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error("cannot write an audit record: {0}")]
    Record(String),
    #[error("undo refused: {0}")]
    Undo(String),
}

/// What an executed action produced.
#[derive(Debug, Serialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Output {
    Exec {
        code: Option<i32>,
        stdout: String,
        stderr: String,
        timed_out: bool,
        truncated: bool,
        sandbox: Layers,
        /// What the program asked nerd's proxy for (only with `allow_hosts`).
        connections: Vec<crate::sandbox::Connection>,
        /// Proxy requests beyond those listed.
        connections_unlogged: usize,
    },
    Read {
        content: String,
        truncated: bool,
    },
    Written {
        bytes: usize,
    },
    Deleted,
    Search {
        matches: Vec<(String, u32, String)>,
    },
    /// A spawned child ran: its token, the scope it had, and what it reported.
    Spawned {
        token: String,
        scope: Scope,
        code: Option<i32>,
        timed_out: bool,
        wall_ms: u64,
        report: Option<Box<crate::specialist::launch::ChildReport>>,
        stderr: String,
    },
    /// The browser shows a page (after a browse, click or type): what the
    /// visit did, and the snapshot kept for the kernel.
    Page {
        #[serde(flatten)]
        visit: PageVisit,
        snapshot: Box<crate::browser::Snapshot>,
    },
    /// A GET's response.
    Fetched {
        url: String,
        status: u16,
        content_type: String,
        body: String,
        truncated: bool,
        /// Each redirect followed, judged before it was.
        redirects: Vec<String>,
    },
}

/// What a browser action left: where the page is, what the gate refused,
/// where the time went, and the digest of the snapshot as kept in the state.
#[derive(Debug, Serialize, PartialEq)]
pub struct PageVisit {
    pub url: String,
    pub title: String,
    pub nodes: usize,
    pub cut: usize,
    #[serde(flatten)]
    pub traffic: crate::browser::Traffic,
    /// Set when this action started the browser.
    pub launch_ms: Option<u64>,
    /// The navigation, click or typing, until the page settled.
    pub load_ms: u64,
    /// Chromium's DOM snapshot and accessibility tree.
    pub capture_ms: u64,
    /// Their projection into a snapshot of nodes.
    pub projection_ms: u64,
    /// The whole action, keeping the snapshot included.
    pub wall_ms: u64,
    pub browser_pid: u32,
    pub snapshot_sha256: String,
}

/// What became of an action.
#[derive(Debug, Serialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum Outcome {
    Refused { reasons: Vec<String> },
    Executed { output: Output },
    Failed { error: String },
}

pub struct Router {
    root: PathBuf,
    /// The durable state: the audit trail and the checkpoints.
    state: StateDb,
    session: String,
    intent: Category,
    autonomy: Autonomy,
    /// The project's restrictions from `.nerd/config.toml`.
    project: crate::config::PolicyConfig,
    /// Hosts the user lets sandboxed programs reach through nerd's proxy.
    hosts: crate::hosts::HostAllowance,
    /// Digests of the actions someone approved, and who.
    approvals: HashMap<String, ApprovedBy>,
    /// This session's events, for the watchdog.
    events: Vec<(ActionKind, String, ActionOutcome)>,
    timeout: Duration,
    /// The agent turn the next writes belong to; `nerd undo` restores a turn whole.
    turn: Option<String>,
    /// Ctrl-C: a running program is killed when it turns true.
    cancel: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// The request's own constraints ("but don't touch the tests"): a write that breaks one is denied.
    constraints: Vec<crate::perceive::constraint::RequestConstraint>,
    /// The delegation this router's session acts under (a spawned child), verified.
    delegation: Option<Chain>,
    /// The session's one headless browser, started by the first `browse`.
    browser: std::sync::Mutex<Option<crate::browser::Browser>>,
    /// Files this router wrote where none stood (resolved): deleting one takes nerd's own write back.
    created: BTreeSet<PathBuf>,
    /// The session's temp dir for confined programs (their TMPDIR and GOCACHE), made by the first
    /// exec and removed with the router.
    scratch: std::sync::OnceLock<Scratch>,
}

fn digest(action: &Action) -> String {
    crate::digest::sha256_hex(serde_json::to_string(action).unwrap_or_default().as_bytes())
}

/// What the audit trail keeps of an output stream: secrets redacted, then capped.
fn clip(s: &str) -> String {
    let s = crate::secrets::redact(s);
    if s.len() <= AUDIT_OUTPUT_BYTES {
        return s;
    }
    let mut end = AUDIT_OUTPUT_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}[... {} more bytes]", &s[..end], s.len() - end)
}

/// The base facts of `f` that the default policy does not already hold: what a replay needs.
fn recorded_facts(f: &Facts) -> Vec<String> {
    let default = nerd_logic::defaults::policy();
    let mut out = Vec::new();
    for p in PREDICATES.iter().filter(|p| p.origin != Origin::Derived) {
        let base: BTreeSet<Atom> = base_atoms(&default, p.name).into_iter().collect();
        out.extend(base_atoms(f, p.name).into_iter().filter(|a| !base.contains(a)).map(|a| a.to_string()));
    }
    out
}

/// The decision atoms about the action: what a replay must reproduce.
pub const DECISION_PREDICATES: &[&str] = &["denied", "mutating", "risk", "route", "permitted", "watchdog_stop"];

fn decision_atoms(fixpoint: &nerd_logic::Fixpoint) -> Vec<String> {
    DECISION_PREDICATES.iter().flat_map(|p| fixpoint.atoms(p).unwrap_or_default()).map(|a| a.to_string()).collect()
}

impl Router {
    /// A router for the workspace at `root`, serving one intent.
    pub fn open(root: &Path, intent: Category, autonomy: Autonomy) -> Result<Router, RouterError> {
        let root = root.canonicalize().map_err(|source| RouterError::Workspace { path: root.to_path_buf(), source })?;
        let state = StateDb::open(&root)?;
        let project = crate::config::Config::load(&root)?.policy;
        let hosts = crate::config::UserConfig::load()?.allow_hosts;
        let session = format!("{:x}", crate::timing::now_ns());
        Ok(Router {
            root,
            state,
            session,
            intent,
            autonomy,
            project,
            hosts,
            approvals: HashMap::new(),
            events: Vec::new(),
            timeout: Duration::from_secs(600),
            turn: None,
            cancel: None,
            constraints: Vec::new(),
            delegation: None,
            browser: std::sync::Mutex::new(None),
            created: BTreeSet::new(),
            scratch: std::sync::OnceLock::new(),
        })
    }

    /// Acts under a verified delegation from now on: every action is judged against its scope too.
    pub fn set_delegation(&mut self, chain: Chain) {
        self.delegation = Some(chain);
    }

    /// The delegation this router acts under, if any.
    pub fn delegation(&self) -> Option<&Chain> {
        self.delegation.as_ref()
    }

    /// Kills running programs when `flag` turns true.
    pub fn with_cancel(mut self, flag: Arc<std::sync::atomic::AtomicBool>) -> Self {
        self.cancel = Some(flag);
        self
    }

    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// This router's audit session id.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// Groups the writes that follow under one agent turn (`None`: each action on its own).
    pub fn set_turn(&mut self, turn: Option<String>) {
        self.turn = turn;
    }

    /// The constraints of the request this router acts for.
    pub fn constraints(&self) -> &[crate::perceive::constraint::RequestConstraint] {
        &self.constraints
    }

    /// Sets the constraints of the request this router acts for.
    pub fn set_constraints(&mut self, constraints: Vec<crate::perceive::constraint::RequestConstraint>) {
        self.constraints = constraints;
    }

    /// Appends a record to the audit trail, under this router's session.
    pub fn record(&self, record: Record) -> Result<i64, RouterError> {
        append_record(&self.root, &self.state, self.session.clone(), record)
    }

    /// What the constitution would decide about `action` now, without acting or recording.
    pub fn judge(&self, action: &Action) -> policy::Decision {
        if let Err(e) = action.validate() {
            return policy::Decision::invalid(e.to_string());
        }
        let fixpoint = evaluate(self.facts_for(Some(action)));
        policy::verdict(&fixpoint, ACTION_ID, self.project.autonomy(self.autonomy))
    }

    /// Records an approval of exactly this action: who gave it and how.
    pub fn approve(&mut self, action: &Action, by: ApprovedBy, source: &str) -> Result<(), RouterError> {
        self.approvals.insert(digest(action), by);
        self.record(Record::Approval {
            action: Some(action.clone()),
            subject: None,
            granted: true,
            by: Some(by),
            source: source.to_string(),
        })?;
        Ok(())
    }

    /// Whether the watchdog asks to pause for the user.
    pub fn paused(&self) -> bool {
        evaluate(self.facts_for(None)).watchdog_paused()
    }

    /// `request_constraint` for each constraint of the request, and
    /// `constraint_forbids(C, Path)` for each path the action writes or deletes
    /// that breaks one: judged on the path, and on the text a file write
    /// leaves (a program's writes are judged on the path alone).
    fn constraint_facts(&self, f: &mut Facts, action: &Action) {
        if self.constraints.is_empty() {
            return;
        }
        for c in &self.constraints {
            let (id, said) = (f.sym(&c.id), f.sym(&c.said));
            f.request_constraint.push((id, said));
        }
        let rules: Vec<(String, crate::config::restriction::Restriction)> =
            self.constraints.iter().map(|c| (c.id.clone(), c.restriction.clone())).collect();
        let written: Vec<nerd_logic::PathId> =
            f.touches.iter().filter(|t| t.2 != nerd_logic::vocab::Access::Read).map(|t| t.1).collect();
        for path in written {
            let shown = f.symbols.resolve(path.0).to_string();
            let relative =
                Path::new(&shown).strip_prefix(&self.root).map_or(shown.clone(), |p| p.display().to_string());
            let old = std::fs::read_to_string(self.root.join(&relative)).unwrap_or_default();
            let new = match action {
                Action::WriteFile { content: Some(content), .. } => content.clone(),
                // A deletion, or a write whose text nerd does not see: the file as if emptied.
                _ => String::new(),
            };
            let change = crate::check::learned::Change { path: &relative, old: &old, new: &new };
            for v in crate::check::learned::violations(&rules, &[change]) {
                let c = f.sym(&v.rule);
                f.constraint_forbids.push((c, path));
            }
        }
    }

    /// Under a delegation: `delegated(T)`, the kinds its chain allows, and for
    /// the action's programs, hosts and touched paths those the chain allows;
    /// `delegation_void` when the token or an ancestor was revoked or expired,
    /// read fresh from the state before every action.
    fn delegation_facts(&self, f: &mut Facts) {
        let Some(chain) = &self.delegation else { return };
        let t = f.sym(chain.id());
        f.delegated.push(t);
        for k in ActionKind::ALL.iter().copied().filter(|k| chain.allows_kind(*k)) {
            f.delegation_kind.push((t, k));
        }
        let programs: Vec<nerd_logic::Sym> = f.exec_program.iter().map(|r| r.1).collect();
        for p in programs {
            if chain.allows_program(f.symbols.resolve(p)) {
                f.delegation_program.push((t, p));
            }
        }
        let hosts: Vec<nerd_logic::Sym> = f.net_host.iter().map(|r| r.1).collect();
        for h in hosts {
            if chain.allows_host(f.symbols.resolve(h)) {
                f.delegation_host.push((t, h));
            }
        }
        let touched: Vec<nerd_logic::PathId> = f.touches.iter().map(|r| r.1).collect();
        for path in touched {
            let shown = f.symbols.resolve(path.0).to_string();
            let rel = match Path::new(&shown).strip_prefix(&self.root) {
                Ok(rel) => Some(rel.display().to_string()),
                Err(_) if Path::new(&shown).is_relative() => Some(shown.trim_start_matches("./").to_string()),
                Err(_) => None,
            };
            if rel.is_some_and(|rel| chain.allows_path(if rel.is_empty() { "." } else { &rel })) {
                f.delegation_covers.push((t, path));
            }
        }
        let void = match chain.void(&self.state, crate::timing::now_ns()) {
            Ok(v) => v,
            Err(e) => Some(format!("its record cannot be read ({e})")),
        };
        if let Some(why) = void {
            let why = f.sym(&why);
            f.delegation_void.push((t, why));
        }
    }

    fn facts_for(&self, action: Option<&Action>) -> Facts {
        let mut f = match action {
            Some(a) => policy::decision_facts(&self.root, &self.project, a, self.intent, self.autonomy),
            None => nerd_logic::defaults::policy(),
        };
        for (i, (kind, program, outcome)) in self.events.iter().enumerate() {
            let p = f.sym(program);
            f.audit_event.push((i as u32 + 1, *kind, p, *outcome));
        }
        if let Some(action) = action {
            self.constraint_facts(&mut f, action);
        }
        if let Some(Action::DeleteFile { path }) = action {
            let real = self.resolve(path);
            if let (true, Ok(relative)) = (self.created.contains(&real), real.strip_prefix(&self.root)) {
                let p = f.path(&relative.display().to_string());
                f.created_here.push(p);
            }
        }
        if let Some(Action::Spawn { profile, .. }) = action {
            let (id, n) = (f.sym(ACTION_ID), f.sym(profile));
            f.spawn_target.push((id, n));
            crate::specialist::readiness_facts(&self.root, &mut f, Some(profile));
        }
        if let Some(kinds) = action.and_then(|a| self.child_kinds(a)) {
            let id = f.sym(ACTION_ID);
            f.spawn_kind.extend(kinds.into_iter().map(|k| (id, k)));
        }
        if action.is_some_and(|a| a.kind() == ActionKind::NetRequest || a.kind() == ActionKind::Browse) {
            self.host_facts(&mut f);
        }
        self.delegation_facts(&mut f);
        if let Some(by) = action.and_then(|a| self.approvals.get(&digest(a))) {
            let (id, src) = (f.sym(ACTION_ID), f.sym(by.as_str()));
            f.approval.push((id, src));
        }
        f
    }

    /// Judges and, if permitted, carries out one action.
    pub fn execute(&mut self, action: &Action) -> Result<Outcome, RouterError> {
        let program = match action {
            Action::Exec { argv } => {
                argv.first().map(|p| p.rsplit('/').next().unwrap_or(p).to_string()).unwrap_or_default()
            }
            _ => String::new(),
        };
        if let Err(e) = action.validate() {
            let outcome = Outcome::Refused { reasons: vec![e.to_string()] };
            self.record_result(None, action, &outcome, &program)?;
            return Ok(outcome);
        }
        let (seq, decision) = self.decide(action)?;
        let outcome = if decision.decision != Verdict::Allow {
            Outcome::Refused { reasons: decision.reasons }
        } else {
            // A write creates its file when nothing stood there, not even a dangling link.
            let file = match action {
                Action::WriteFile { path, .. } | Action::DeleteFile { path } => Some(self.resolve(path)),
                _ => None,
            };
            let creates = file.as_ref().is_some_and(|real| std::fs::symlink_metadata(real).is_err());
            match self.perform(seq, action) {
                Ok(output) => {
                    match (action, file) {
                        (Action::DeleteFile { .. }, Some(real)) => _ = self.created.remove(&real),
                        (Action::WriteFile { .. }, Some(real)) if creates => _ = self.created.insert(real),
                        _ => {}
                    }
                    Outcome::Executed { output }
                }
                Err(error) => Outcome::Failed { error },
            }
        };
        self.record_result(Some(seq), action, &outcome, &program)?;
        Ok(outcome)
    }

    /// Derives the verdict on `action` and records it before anything runs.
    fn decide(&mut self, action: &Action) -> Result<(i64, policy::Decision), RouterError> {
        let facts = self.facts_for(Some(action));
        let recorded = recorded_facts(&facts);
        let facts_digest = crate::digest::sha256_hex(recorded.join("\n").as_bytes());
        let fixpoint = evaluate(facts);
        let decision = policy::verdict(&fixpoint, ACTION_ID, self.project.autonomy(self.autonomy));
        let seq = self.record(Record::Decision {
            constitution: policy::constitution_hash(),
            action: action.clone(),
            facts_digest,
            facts: recorded,
            derived: decision_atoms(&fixpoint),
            decision: decision.decision,
            reasons: decision.reasons.clone(),
        })?;
        Ok((seq, decision))
    }

    fn record_result(
        &mut self,
        decision: Option<i64>,
        action: &Action,
        outcome: &Outcome,
        program: &str,
    ) -> Result<(), RouterError> {
        let detail = match outcome {
            Outcome::Executed {
                output:
                    Output::Exec { code, stdout, stderr, timed_out, truncated, sandbox, connections, connections_unlogged },
            } => {
                json!({
                    "code": code, "stdout": clip(stdout), "stderr": clip(stderr),
                    "timed_out": timed_out, "truncated": truncated, "sandbox": sandbox,
                    "connections": connections, "connections_unlogged": connections_unlogged,
                })
            }
            Outcome::Executed { output: Output::Read { content, truncated } } => {
                json!({"read_bytes": content.len(), "truncated": truncated})
            }
            Outcome::Executed { output: Output::Search { matches } } => json!({"matches": matches.len()}),
            // The child's result, audited as this spawn's: its status, answer and every action its router judged.
            Outcome::Executed {
                output: Output::Spawned { token, scope, code, timed_out, wall_ms, report, stderr },
            } => {
                json!({
                    "token": token, "scope": scope, "code": code, "timed_out": timed_out, "wall_ms": wall_ms,
                    "child": report, "stderr": clip(stderr),
                })
            }
            // A page: where it is and what the gate refused; the snapshot itself is in the state, by digest here.
            Outcome::Executed { output: Output::Page { visit, .. } } => {
                let mut detail = serde_json::to_value(visit).unwrap_or_default();
                detail["title"] = json!(clip(&visit.title));
                detail
            }
            Outcome::Executed { output: Output::Fetched { url, status, content_type, body, truncated, redirects } } => {
                json!({
                    "url": url, "status": status, "content_type": content_type, "bytes": body.len(),
                    "body": clip(body), "truncated": truncated, "redirects": redirects,
                })
            }
            Outcome::Executed { output } => json!({ "output": output }),
            Outcome::Refused { reasons } => json!({ "reasons": reasons }),
            Outcome::Failed { error } => json!({ "error": error }),
        };
        let status = match outcome {
            Outcome::Refused { .. } => OutcomeStatus::Refused,
            Outcome::Executed { .. } => OutcomeStatus::Executed,
            Outcome::Failed { .. } => OutcomeStatus::Failed,
        };
        let detail = match detail {
            serde_json::Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        self.record(Record::Result { decision, action: action.clone(), outcome: OutcomeSummary { status, detail } })?;
        let status = match outcome {
            Outcome::Refused { .. } => ActionOutcome::Refused,
            Outcome::Executed { output: Output::Exec { code: Some(0), .. } } => ActionOutcome::Executed,
            Outcome::Executed { output: Output::Exec { .. } } => ActionOutcome::Failed,
            Outcome::Executed { .. } => ActionOutcome::Executed,
            Outcome::Failed { .. } => ActionOutcome::Failed,
        };
        self.events.push((action.kind(), program.to_string(), status));
        Ok(())
    }

    fn resolve(&self, path: &str) -> PathBuf {
        paths::classify(&self.root, path).0
    }

    /// The files no name may reach: the user's secrets, by inode, whatever link points at them.
    fn refused(&self) -> files::Refused {
        files::Refused::files(&paths::secret_locations(&self.root, &self.project.secret_paths))
    }

    fn perform(&self, seq: i64, action: &Action) -> Result<Output, String> {
        match action {
            Action::Exec { argv } => self.exec(argv),
            // The path was judged resolved; it is opened without following any symlink,
            // so one swapped in since then fails the open instead of redirecting it.
            Action::ReadFile { path } => {
                let real = self.resolve(path);
                let (bytes, truncated) = files::read_capped(&real, MAX_READ_BYTES, &self.refused())
                    .map_err(|e| format!("cannot read {path}: {e}"))?;
                let content = String::from_utf8_lossy(&bytes).into_owned();
                Ok(Output::Read { content, truncated })
            }
            Action::WriteFile { path, content } => {
                let content = content.as_deref().ok_or("write_file needs `content` to carry out")?;
                let real = self.resolve(path);
                self.checkpoint(seq, &real, After::Written(content.as_bytes()))?;
                files::write_atomic(&real, content.as_bytes()).map_err(|e| format!("cannot write {path}: {e}"))?;
                Ok(Output::Written { bytes: content.len() })
            }
            Action::DeleteFile { path } => {
                let real = self.resolve(path);
                self.checkpoint(seq, &real, After::Deleted)?;
                files::remove(&real).map_err(|e| format!("cannot delete {path}: {e}"))?;
                Ok(Output::Deleted)
            }
            Action::Search { pattern, path } => self.search(pattern, path.as_deref()),
            Action::Spawn { .. } | Action::Delegate { .. } => {
                let token = self.child_token(action)?;
                let ended = crate::specialist::launch::run(&self.root, &token, self.timeout, self.cancel.clone())?;
                self.child_output(&token, ended)
            }
            Action::Browse { .. } | Action::Click { .. } | Action::Type { .. } => self.browse(action),
            Action::NetRequest { url, body } => self.net_request(url, body.as_deref()),
            Action::Memory { .. } => Err(format!("{} actions are not available in this build of nerd", action.kind())),
        }
    }

    /// The action kinds a spawned child's token will carry: a specialist's
    /// tools, or a generalist's, narrowed by this router's own delegation.
    /// `None` when they cannot be known (an unknown profile, a bad tool word).
    fn child_kinds(&self, action: &Action) -> Option<BTreeSet<ActionKind>> {
        let kinds: BTreeSet<ActionKind> = match action {
            Action::Spawn { profile, .. } => {
                crate::specialist::profile::Profile::find(&self.root, profile).ok()?.kinds()
            }
            Action::Delegate { tools, .. } => tools.iter().map(|t| t.parse().ok()).collect::<Option<_>>()?,
            _ => return None,
        };
        Some(kinds.into_iter().filter(|k| self.delegation.as_ref().is_none_or(|c| c.allows_kind(*k))).collect())
    }

    /// Issues and records the token of the child `action` starts: its kinds
    /// (`child_kinds`) inside its paths, within this router's own delegation
    /// if it has one, living as long as the child may run and a minute more.
    fn child_token(&self, action: &Action) -> Result<delegation::Token, String> {
        let (specialist, task, paths) = match action {
            Action::Spawn { profile, task, paths } => (Some(profile.as_str()), task, paths),
            Action::Delegate { task, paths, .. } => (None, task, paths),
            other => return Err(format!("{} starts no child", other.kind())),
        };
        let kinds = self.child_kinds(action).ok_or("the child's tools cannot be read")?;
        let wanted = Scope {
            kinds: kinds.iter().map(|k| k.to_string()).collect(),
            paths: if paths.is_empty() { ["**".to_string()].into() } else { paths.iter().cloned().collect() },
            programs: None,
            hosts: None,
        };
        let lifetime = (self.timeout.as_nanos() as i64).saturating_add(60_000_000_000);
        delegation::issue(&self.root, &self.state, self.delegation.as_ref(), specialist, task, &wanted, lifetime)
            .map_err(|e| e.to_string())
    }

    /// Records how the child of `token` ended and returns it as the spawn's output.
    fn child_output(
        &self,
        token: &delegation::Token,
        ended: crate::specialist::launch::Ended,
    ) -> Result<Output, String> {
        let status = match (&ended.report, ended.timed_out) {
            (_, true) => "failed",
            (Some(r), _) if r.succeeded() => "done",
            _ => "failed",
        };
        let result = ended.report.as_ref().map(|r| serde_json::to_string(r).unwrap_or_default()).unwrap_or_default();
        self.state.delegation_finished(&token.claims.id, status, &result).map_err(|e| e.to_string())?;
        Ok(Output::Spawned {
            token: token.claims.id.clone(),
            scope: token.claims.scope.clone(),
            code: ended.code,
            timed_out: ended.timed_out,
            wall_ms: ended.wall.as_millis() as u64,
            report: ended.report.map(Box::new),
            stderr: ended.stderr,
        })
    }

    /// Saves what the file holds and what the action will leave there, in the
    /// state database and, by digest, in the trail, before the action runs.
    fn checkpoint(&self, seq: i64, real: &Path, after: After<'_>) -> Result<(), String> {
        let previous = files::read_existing(real, &self.refused())
            .map_err(|e| format!("cannot checkpoint {}: {e}", real.display()))?;
        let path = real.display().to_string();
        self.state
            .checkpoint_file(seq, self.turn.as_deref(), &path, previous.as_deref(), after)
            .map_err(|e| e.to_string())?;
        let previous = previous.map(|bytes| crate::digest::sha256_hex(&bytes));
        let after = Some(undo::leaves(after));
        self.record(Record::Checkpoint { decision: seq, path, previous, after }).map_err(|e| e.to_string())?;
        Ok(())
    }

    fn exec(&self, argv: &[String]) -> Result<Output, String> {
        let tmp = self.scratch()?;
        let (readonly, masked) = paths::sandbox_layout(&self.root, &self.project.secret_paths);
        let prepared = sandbox::prepare(
            &Confinement {
                writable: vec![self.root.clone(), tmp.clone(), PathBuf::from("/dev/null")],
                readonly,
                masked,
                network: false,
                hosts: self.hosts.clone(),
                cpu_seconds: self.timeout.as_secs() + 5,
            },
            &self.root,
        );
        let layers = prepared.layers.clone();
        // Caches that would live under $HOME go to the session's temp dir, which is writable.
        let mut env: Vec<(String, std::ffi::OsString)> = vec![
            ("TMPDIR".into(), tmp.clone().into_os_string()),
            ("GOCACHE".into(), tmp.join("gocache").into_os_string()),
            // Running code must not leave bytecode caches in the workspace.
            ("PYTHONDONTWRITEBYTECODE".into(), "1".into()),
        ];
        // No host is reachable: cargo resolves from its own cache (a crate cloned without its lock
        // file still builds from what is cached) instead of retrying a network the sandbox cuts.
        if self.hosts.is_empty() {
            env.push(("CARGO_NET_OFFLINE".into(), "true".into()));
        }
        let job = Job {
            argv: argv.iter().map(Into::into).collect(),
            cwd: self.root.clone(),
            env,
            timeout: self.timeout,
            confine: Some(Arc::new(prepared)),
            cancel: self.cancel.clone(),
        };
        let f = exec::run(&job).map_err(|e| e.to_string())?;
        Ok(Output::Exec {
            code: f.code,
            stdout: f.stdout,
            stderr: f.stderr,
            timed_out: f.timed_out,
            truncated: f.truncated,
            sandbox: layers,
            connections: f.connections,
            connections_unlogged: f.connections_unlogged,
        })
    }

    /// The session's temp dir, made on first use.
    fn scratch(&self) -> Result<PathBuf, String> {
        if let Some(made) = self.scratch.get() {
            return Ok(made.path().to_path_buf());
        }
        let made = Scratch::new(&self.session).map_err(|e| format!("cannot make a temp dir for the session: {e}"))?;
        Ok(self.scratch.get_or_init(|| made).path().to_path_buf())
    }

    fn search(&self, pattern: &str, path: Option<&str>) -> Result<Output, String> {
        let re = regex::Regex::new(pattern).map_err(|e| format!("bad search pattern: {e}"))?;
        let base = self.resolve(path.unwrap_or("."));
        let mut matches = Vec::new();
        for entry in ignore::WalkBuilder::new(&base).build().filter_map(Result::ok) {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(entry.path()) else { continue };
            let shown = entry.path().strip_prefix(&self.root).unwrap_or(entry.path()).display().to_string();
            for (n, line) in text.lines().enumerate() {
                if re.is_match(line) {
                    matches.push((shown.clone(), n as u32 + 1, line.chars().take(200).collect()));
                    if matches.len() >= MAX_MATCHES {
                        return Ok(Output::Search { matches });
                    }
                }
            }
        }
        Ok(Output::Search { matches })
    }
}

/// Writes a file the user named (an output file, nerd's own config) through a
/// temp file in the same folder and a rename: readers never see half a file.
/// Symlinks in the folder the user named are theirs and are followed once, here.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| std::io::Error::other("no file name"))?;
    std::fs::create_dir_all(parent)?;
    files::write_atomic(&parent.canonicalize()?.join(name), bytes)
}

/// Appends `record` to `root`'s audit trail under `session`: the one way a
/// record is written, by a router or by a command acting without one (`nerd
/// undo`, `nerd audit accept`). Returns its sequence number.
pub fn append_record(root: &Path, state: &StateDb, session: String, record: Record) -> Result<i64, RouterError> {
    let body = serde_json::to_value(Stored { session, record }).map_err(|e| RouterError::Record(e.to_string()))?;
    Ok(audit::append(root, state, &body)?)
}
