//! `nerd act`, `nerd audit`, `nerd undo` and `nerd doctor`: the router and its trail from the command line.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use nerd_logic::{evaluate, parse_atom};
use serde_json::{json, Value};

use super::ActionRequest;
use crate::audit::{self, Verdict};
use crate::error::{exit, NerdError};
use crate::policy;
use crate::router::{self, ApprovedBy, Outcome, Record, Router, Stored, DECISION_PREDICATES};
use crate::sandbox;
use crate::store::StateDb;

fn usage(e: impl std::fmt::Display) -> NerdError {
    NerdError::Usage(e.to_string())
}

/// Runs one action through the router.
pub fn act(root: &Path, request: &ActionRequest, approve: bool, json: bool) -> Result<i32, NerdError> {
    let (action, intent, autonomy) = request.parse()?;
    let mut router = Router::open(root, intent, autonomy)?;
    if approve {
        router.approve(&action, ApprovedBy::Human, "command line --approve")?;
    }
    let outcome = router.execute(&action)?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string(&outcome).unwrap_or_default())?;
    } else {
        match &outcome {
            Outcome::Refused { reasons } => {
                writeln!(out, "refused")?;
                for r in reasons {
                    writeln!(out, "  {r}")?;
                }
            }
            Outcome::Executed { output } => {
                writeln!(out, "{}", serde_json::to_string_pretty(output).unwrap_or_default())?
            }
            Outcome::Failed { error } => writeln!(out, "failed: {error}")?,
        }
    }
    Ok(match outcome {
        Outcome::Executed { .. } => exit::SUCCESS,
        Outcome::Refused { .. } => exit::LOGIC_SAID_NO,
        Outcome::Failed { .. } => exit::RUNTIME,
    })
}

/// `nerd sandbox-exec -- ARGV`: one program through the router, its output passed on.
pub fn sandbox_exec(root: &Path, intent: nerd_logic::vocab::Category, argv: Vec<String>) -> Result<i32, NerdError> {
    let mut router = Router::open(root, intent, nerd_logic::vocab::Autonomy::Balanced)?;
    let outcome = router.execute(&crate::policy::Action::Exec { argv })?;
    match outcome {
        Outcome::Executed { output: router::Output::Exec { code, stdout, stderr, timed_out, connections, .. } } => {
            std::io::stdout().lock().write_all(stdout.as_bytes())?;
            let mut err = std::io::stderr().lock();
            err.write_all(stderr.as_bytes())?;
            if timed_out {
                writeln!(err, "nerd: the program ran out of time and was killed")?;
            }
            // Refused hosts are always said; cut connections only when the program failed.
            let network = crate::sandbox::network_refusal(&[&stdout, &stderr], &connections)
                .filter(|n| code != Some(0) || !n.refused_hosts.is_empty());
            if let Some(network) = network {
                writeln!(err, "nerd: {}", network.sentence())?;
            }
            // A program killed by a signal reads as the shell would show it.
            Ok(code.unwrap_or(if timed_out { 124 } else { 137 }))
        }
        Outcome::Refused { reasons } => {
            eprintln!("nerd: refused: {}", reasons.join("; "));
            Ok(exit::LOGIC_SAID_NO)
        }
        Outcome::Executed { .. } => Ok(exit::RUNTIME),
        Outcome::Failed { error } => {
            eprintln!("nerd: {error}");
            Ok(exit::RUNTIME)
        }
    }
}

pub fn verify(root: &Path) -> Result<i32, NerdError> {
    let store = StateDb::open(root)?;
    let verdict = audit::verify(root, &store)?;
    writeln!(std::io::stdout().lock(), "{}", verdict_line(&verdict))?;
    Ok(if matches!(verdict, Verdict::Intact { .. }) { exit::SUCCESS } else { exit::LOGIC_SAID_NO })
}

/// `nerd audit accept`: the checkpoint vouches for the trail as it is, and the trail says so.
pub fn accept(root: &Path) -> Result<i32, NerdError> {
    let store = StateDb::open(root)?;
    let mut out = std::io::stdout().lock();
    match audit::accept(root, &store)? {
        audit::Accepted::Intact { length } => {
            writeln!(out, "audit intact: {length} records; nothing to accept")?;
        }
        audit::Accepted::Accepted { length, checkpoint_said, kept } => {
            let kept_text = kept.as_ref().map(|k| k.display().to_string());
            let record = Record::AuditAccepted { length, checkpoint_said, kept: kept_text.clone() };
            let session = format!("audit-accept-{:x}", crate::timing::now_ns());
            let seq = router::append_record(root, &store, session, record)?;
            let said = checkpoint_words(checkpoint_said);
            let kept_line = kept_text.map_or(String::new(), |k| format!(" (kept at {k})"));
            writeln!(
                out,
                "audit accepted: {length} records, the checkpoint {said}{kept_line}; recorded as record {seq}"
            )?;
        }
    }
    Ok(exit::SUCCESS)
}

/// What an accepted trail's checkpoint had said: `said N`, or `was missing`.
fn checkpoint_words(said: Option<i64>) -> String {
    said.map_or("was missing".to_string(), |n| format!("said {n}"))
}

/// What `nerd audit verify` and `nerd doctor` say of the trail.
fn verdict_line(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Intact { length } => format!("audit intact: {length} records"),
        Verdict::Tampered { seq, reason } => format!("audit tampered: record {seq}: {reason}"),
        Verdict::Truncated { length, expected } if *expected < 0 => {
            format!("audit truncated: {length} records but the checkpoint is missing")
        }
        Verdict::Truncated { length, expected } => {
            format!("audit truncated: {length} records, the checkpoint says {expected}")
        }
    }
}

pub fn show(root: &Path, json_out: bool) -> Result<i32, NerdError> {
    let store = StateDb::open(root)?;
    let mut out = std::io::stdout().lock();
    for row in store.audit_records()? {
        let (seq, at_ns, hash) = (row.seq, row.at_ns, &row.hash);
        if json_out {
            let v: Value = serde_json::from_str(&row.body).unwrap_or(Value::Null);
            writeln!(out, "{}", json!({"seq": seq, "at_ns": at_ns, "hash": hash, "record": v}))?;
            continue;
        }
        let json = |a: &crate::policy::Action| serde_json::to_string(a).unwrap_or_default();
        let (kind, line) = match serde_json::from_str::<Stored>(&row.body).map(|s| s.record) {
            Ok(Record::Decision { action, decision, reasons, .. }) => {
                ("decision", format!("{}  {} {:?}", json(&action), decision.as_str(), reasons))
            }
            Ok(Record::Result { action, outcome, .. }) => {
                ("result", format!("{}  {}", json(&action), outcome.status.as_str()))
            }
            Ok(Record::Turn { turn, request, strategy, next_action, .. }) => (
                "turn",
                format!("turn {turn}: {strategy} → {}  ({request})", next_action.map_or("nothing", |a| a.as_str())),
            ),
            Ok(Record::Approval { action: Some(action), source, .. }) => {
                ("approval", format!("{}  approved by {source}", json(&action)))
            }
            Ok(Record::Approval { subject, granted, source, .. }) => (
                "approval",
                format!(
                    "{} by {source}: {}",
                    if granted { "granted" } else { "refused" },
                    subject.as_deref().unwrap_or("?")
                ),
            ),
            Ok(Record::Checkpoint { decision, path, previous, .. }) => (
                "checkpoint",
                format!(
                    "{path} before decision {decision}: {}",
                    previous.map_or("did not exist".to_string(), |d| format!("sha256:{}", &d[..16.min(d.len())]))
                ),
            ),
            Ok(Record::Undo { forced, files, conflicts }) => (
                "undo",
                format!(
                    "{}{} file(s) restored{}",
                    if forced { "forced: " } else { "" },
                    files.len(),
                    if conflicts.is_empty() {
                        String::new()
                    } else {
                        format!(", {} left alone as edited since ({})", conflicts.len(), conflicts.join(", "))
                    }
                ),
            ),
            Ok(Record::AuditAccepted { length, checkpoint_said, .. }) => (
                "accepted",
                format!(
                    "the trail as it was ({length} records) accepted by a person; the checkpoint {}",
                    checkpoint_words(checkpoint_said)
                ),
            ),
            // A record this nerd does not know (older, newer or damaged) is shown as it is.
            Err(_) => ("?", row.body.clone()),
        };
        writeln!(out, "{seq:>5}  {kind:<8}  {line}")?;
    }
    Ok(exit::SUCCESS)
}

/// Re-derives record `n`'s decisions from its recorded facts.
pub fn replay(root: &Path, n: i64) -> Result<i32, NerdError> {
    let store = StateDb::open(root)?;
    let records = store.audit_records()?;
    let Some(row) = records.iter().find(|r| r.seq == n) else {
        return Err(usage(format!("no audit record {n} (there are {})", records.len())));
    };
    let stored: Stored = serde_json::from_str(&row.body).map_err(|e| usage(format!("record {n}: {e}")))?;
    let Record::Decision { constitution, facts: recorded, facts_digest, derived, .. } = stored.record else {
        return Err(usage(format!("record {n} is not a decision record; replay takes decision records")));
    };
    if facts_digest != crate::digest::sha256_hex(recorded.join("\n").as_bytes()) {
        return Err(usage(format!("record {n}'s facts do not match their digest")));
    }
    let mut facts = nerd_logic::defaults::policy();
    for atom in &recorded {
        let parsed = parse_atom(atom).map_err(usage)?;
        facts.assert_atom(&parsed).map_err(usage)?;
    }
    let fixpoint = evaluate(facts);
    let now: BTreeSet<String> =
        DECISION_PREDICATES.iter().flat_map(|p| fixpoint.atoms(p).unwrap_or_default()).map(|a| a.to_string()).collect();
    let then: BTreeSet<String> = derived.into_iter().collect();
    let mut out = std::io::stdout().lock();
    if constitution != policy::constitution_hash() {
        writeln!(out, "note: record {n} was decided under another constitution ({constitution})")?;
    }
    if now == then {
        writeln!(out, "replay of record {n}: the same {} decision atoms", now.len())?;
        for a in &now {
            writeln!(out, "  {a}")?;
        }
        Ok(exit::SUCCESS)
    } else {
        writeln!(out, "replay of record {n} differs")?;
        for a in then.difference(&now) {
            writeln!(out, "  - {a}")?;
        }
        for a in now.difference(&then) {
            writeln!(out, "  + {a}")?;
        }
        Ok(exit::LOGIC_SAID_NO)
    }
}

/// `nerd undo [--force]`: exit 1 when a file edited since nerd wrote it was left alone.
pub fn undo(root: &Path, force: bool) -> Result<i32, NerdError> {
    let undone = router::undo(root, force)?;
    let mut out = std::io::stdout().lock();
    if undone.restored.is_empty() && undone.conflicts.is_empty() {
        writeln!(out, "nothing to undo")?;
    }
    for (path, saved) in &undone.saved {
        writeln!(out, "saved your later version of {path} to {}", saved.display())?;
    }
    for p in &undone.restored {
        writeln!(out, "restored {p}")?;
    }
    for c in &undone.conflicts {
        let why = if c.known {
            "it changed after nerd wrote it"
        } else {
            "nerd cannot tell whether it changed since (its checkpoint predates the record of what nerd wrote)"
        };
        writeln!(
            out,
            "kept {}: {why}; `nerd undo --force` restores it after saving this version under {}/",
            c.path,
            router::undo::CONFLICTS_DIR
        )?;
        let text = |b: &Option<Vec<u8>>| b.as_deref().map(String::from_utf8_lossy).unwrap_or_default().into_owned();
        let diff = crate::diff::change(&c.path, &text(&c.left), &text(&c.now));
        let lines: Vec<&str> = diff.diff.lines().collect();
        for line in lines.iter().take(80) {
            writeln!(out, "    {line}")?;
        }
        if lines.len() > 80 {
            writeln!(out, "    [... {} more lines]", lines.len() - 80)?;
        }
    }
    Ok(if undone.conflicts.is_empty() { exit::SUCCESS } else { exit::LOGIC_SAID_NO })
}

pub fn doctor(root: &Path) -> Result<i32, NerdError> {
    let here = root.to_path_buf();
    let (readonly, masked) = policy::paths::sandbox_layout(&here, &[]);
    let (hosts, user_config) = match crate::config::UserConfig::load() {
        Ok(user) => (user.allow_hosts, None),
        Err(e) => (Default::default(), Some(e.to_string())),
    };
    let prepared = sandbox::prepare(
        &sandbox::Confinement {
            writable: vec![here.clone(), std::env::temp_dir()],
            readonly,
            masked,
            network: false,
            hosts,
            cpu_seconds: 60,
        },
        &here,
    );
    let mut out = std::io::stdout().lock();
    writeln!(out, "nerd {}  constitution sha256:{}", env!("CARGO_PKG_VERSION"), policy::constitution_hash())?;
    let boundary = if prepared.layers.boundary() {
        "namespaces (.git, .nerd and persistence files read-only; secrets masked; own PID namespace)"
    } else {
        "fallback: Landlock confines writes, but .git and .nerd stay writable and reads are not masked"
    };
    writeln!(out, "boundary:   {boundary}")?;
    writeln!(out, "namespaces: {}", prepared.layers.namespaces)?;
    writeln!(out, "landlock:   {}", prepared.layers.landlock)?;
    writeln!(out, "seccomp:    {}", prepared.layers.seccomp)?;
    writeln!(out, "rlimits:    {}", prepared.layers.rlimits)?;
    writeln!(out, "network:    {}", prepared.layers.network)?;
    if let Some(why) = user_config {
        writeln!(out, "user config: {why}")?;
    }
    writeln!(out, "git: {}", crate::exec::which("git").map_or("missing".into(), |p| p.display().to_string()))?;
    let model = crate::embed::Embedder::default_dir();
    match model.as_ref().filter(|d| d.join("model.safetensors").is_file() && d.join("vocab.txt").is_file()) {
        Some(dir) => {
            writeln!(out, "embedding:  all-MiniLM-L6-v2 in {} (memory recalls by meaning and words)", dir.display())?
        }
        None => writeln!(
            out,
            "embedding:  none in {} (memory recalls by words only; scripts/install-embedder installs it)",
            model.map_or("~/.local/share/nerd/models/all-MiniLM-L6-v2".into(), |d| d.display().to_string())
        )?,
    }
    let healthy = storage(root, &mut out)?;
    Ok(if healthy { exit::SUCCESS } else { exit::LOGIC_SAID_NO })
}

/// The health of the index and the durable state; `false` when the state is damaged.
fn storage(root: &Path, out: &mut impl Write) -> Result<bool, NerdError> {
    use crate::store::{health, INDEX_FILE, STATE_FILE};
    let dir = root.join(".nerd");
    let index = dir.join(INDEX_FILE);
    if index.exists() {
        match health::inspect(&index, &["file"]).problem {
            None => writeln!(out, "index:      .nerd/{INDEX_FILE} ok")?,
            Some(problem) => {
                // The index is a cache: a damaged one goes, and the next command rebuilds it.
                crate::store::remove_database(&index)?;
                writeln!(
                    out,
                    "index:      .nerd/{INDEX_FILE} was damaged ({problem}); removed, the next command rebuilds it"
                )?;
            }
        }
    } else {
        writeln!(out, "index:      none yet (`nerd index` builds it)")?;
    }
    let state = dir.join(STATE_FILE);
    if !state.exists() {
        writeln!(out, "state:      none yet")?;
        return Ok(true);
    }
    let tables = ["audit_record", "file_checkpoint", "session", "commit_override", "memory", "delegation"];
    let found = health::inspect(&state, &tables);
    let counts: Vec<String> = found
        .tables
        .iter()
        .map(|(t, n)| match n {
            Ok(n) => format!("{t} {n} rows"),
            Err(e) => format!("{t} unreadable ({e})"),
        })
        .collect();
    let checkpoint = audit::checkpoint_path(root);
    match found.problem {
        None => {
            writeln!(out, "state:      .nerd/{STATE_FILE} ok: {}", counts.join(", "))?;
            let verdict = audit::verify(root, &StateDb::open(root)?)?;
            writeln!(out, "audit:      {} (checkpoint {})", verdict_line(&verdict), checkpoint.display())?;
            Ok(true)
        }
        Some(problem) => {
            writeln!(out, "state:      .nerd/{STATE_FILE} is DAMAGED: {problem}")?;
            writeln!(
                out,
                "            readable: {}",
                if counts.is_empty() { "nothing".into() } else { counts.join(", ") }
            )?;
            writeln!(
                out,
                "            nerd never deletes or rewrites it; copy it aside, then `sqlite3 .nerd/{STATE_FILE} .recover` \
                 rebuilds what can be read; the audit checkpoint {} says how long the trail was",
                checkpoint.display()
            )?;
            Ok(false)
        }
    }
}
