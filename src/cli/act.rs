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
use crate::router::{self, Outcome, Router, DECISION_PREDICATES};
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
        router.approve(&action, "command line --approve")?;
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
        let v: Value = serde_json::from_str(&row.body).unwrap_or(Value::Null);
        if json_out {
            writeln!(out, "{}", json!({"seq": seq, "at_ns": at_ns, "hash": hash, "record": v}))?;
        } else {
            let kind = v["record"].as_str().unwrap_or("?");
            let text = |key: &str| v[key].as_str().unwrap_or("?").to_string();
            let line = match kind {
                "decision" => format!("{}  {} {}", v["action"], text("decision"), v["reasons"]),
                "result" => format!("{}  {}", v["action"], v["outcome"]["status"].as_str().unwrap_or("?")),
                "turn" => {
                    format!("turn {}: {} → {}  ({})", v["turn"], text("strategy"), text("next_action"), text("request"))
                }
                "approval" if v["action"].is_null() => {
                    format!(
                        "{} by {}: {}",
                        if v["granted"] == true { "granted" } else { "refused" },
                        text("source"),
                        text("subject")
                    )
                }
                "approval" => format!("{}  approved by {}", v["action"], text("source")),
                _ => v.to_string(),
            };
            writeln!(out, "{seq:>5}  {kind:<8}  {line}")?;
        }
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
    let v: Value = serde_json::from_str(&row.body).map_err(usage)?;
    if v["record"] != "decision" {
        return Err(usage(format!(
            "record {n} is a `{}` record; replay takes decision records",
            v["record"].as_str().unwrap_or("?")
        )));
    }
    let recorded: Vec<&str> = v["facts"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    if v["facts_digest"].as_str() != Some(crate::digest::sha256_hex(recorded.join("\n").as_bytes()).as_str()) {
        return Err(usage(format!("record {n}'s facts do not match their digest")));
    }
    let mut facts = nerd_logic::defaults::policy();
    for atom in recorded {
        let parsed = parse_atom(atom).map_err(usage)?;
        facts.assert_atom(&parsed).map_err(usage)?;
    }
    let fixpoint = evaluate(facts);
    let now: BTreeSet<String> =
        DECISION_PREDICATES.iter().flat_map(|p| fixpoint.atoms(p).unwrap_or_default()).map(|a| a.to_string()).collect();
    let then: BTreeSet<String> =
        v["derived"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect();
    let mut out = std::io::stdout().lock();
    if v["constitution"].as_str() != Some(policy::constitution_hash().as_str()) {
        writeln!(out, "note: record {n} was decided under another constitution ({})", v["constitution"])?;
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
    let prepared = sandbox::prepare(&sandbox::Confinement {
        writable: vec![std::env::temp_dir()],
        network: false,
        cpu_seconds: 60,
    });
    let mut out = std::io::stdout().lock();
    writeln!(out, "nerd {}  constitution sha256:{}", env!("CARGO_PKG_VERSION"), policy::constitution_hash())?;
    writeln!(out, "landlock: {}", prepared.layers.landlock)?;
    writeln!(out, "seccomp:  {}", prepared.layers.seccomp)?;
    writeln!(out, "rlimits:  {}", prepared.layers.rlimits)?;
    let bwrap = crate::exec::which("bwrap")
        .map_or("not installed (not needed while Landlock is available)".to_string(), |p| p.display().to_string());
    writeln!(out, "bubblewrap: {bwrap}")?;
    writeln!(out, "git: {}", crate::exec::which("git").map_or("missing".into(), |p| p.display().to_string()))?;
    Ok(exit::SUCCESS)
}
