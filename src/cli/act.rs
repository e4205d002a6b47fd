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
use crate::store::Store;

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
        Outcome::Executed { output: router::Output::Exec { code, stdout, stderr, timed_out, .. } } => {
            std::io::stdout().lock().write_all(stdout.as_bytes())?;
            let mut err = std::io::stderr().lock();
            err.write_all(stderr.as_bytes())?;
            if timed_out {
                writeln!(err, "nerd: the program ran out of time and was killed")?;
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
    let store = Store::open(root)?;
    let verdict = audit::verify(root, &store)?;
    let mut out = std::io::stdout().lock();
    Ok(match verdict {
        Verdict::Intact { length } => {
            writeln!(out, "audit intact: {length} records")?;
            exit::SUCCESS
        }
        Verdict::Tampered { seq, reason } => {
            writeln!(out, "audit tampered: record {seq}: {reason}")?;
            exit::LOGIC_SAID_NO
        }
        Verdict::Truncated { length, expected } if expected < 0 => {
            writeln!(out, "audit truncated: {length} records but the checkpoint is missing")?;
            exit::LOGIC_SAID_NO
        }
        Verdict::Truncated { length, expected } => {
            writeln!(out, "audit truncated: {length} records, the checkpoint says {expected}")?;
            exit::LOGIC_SAID_NO
        }
    })
}

pub fn show(root: &Path, json_out: bool) -> Result<i32, NerdError> {
    let store = Store::open(root)?;
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
            Ok(Record::Checkpoint { decision, path, previous }) => (
                "checkpoint",
                format!(
                    "{path} before decision {decision}: {}",
                    previous.map_or("did not exist".to_string(), |d| format!("sha256:{}", &d[..16.min(d.len())]))
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
    let store = Store::open(root)?;
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

pub fn undo(root: &Path) -> Result<i32, NerdError> {
    let restored = router::undo(root)?;
    let mut out = std::io::stdout().lock();
    if restored.is_empty() {
        writeln!(out, "nothing to undo")?;
    }
    for p in restored {
        writeln!(out, "restored {p}")?;
    }
    Ok(exit::SUCCESS)
}

pub fn doctor() -> Result<i32, NerdError> {
    let here = std::env::current_dir()?;
    let (readonly, masked) = policy::paths::sandbox_layout(&here, &[]);
    let prepared = sandbox::prepare(
        &sandbox::Confinement {
            writable: vec![here.clone(), std::env::temp_dir()],
            readonly,
            masked,
            network: false,
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
    writeln!(out, "git: {}", crate::exec::which("git").map_or("missing".into(), |p| p.display().to_string()))?;
    Ok(exit::SUCCESS)
}
