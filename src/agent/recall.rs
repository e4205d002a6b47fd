//! What a request leaves in memory, and what later requests find there: at
//! the end of each request its target and outcome, and each file it changed,
//! are promoted to the durable memory (text facts, never a model's prose);
//! a later reference such as "the function we changed yesterday" or "that
//! test again" is grounded on the most recent of them (`source` names the
//! session and the request, so what one request touched is told apart), with a confidence that
//! asks when more than one would fit. "Remember that …" and "forget …"
//! requests land here too, and so do the checked memory operations of a
//! model's reply (notes, `knowledge_link` facts, forgetting what a model
//! noted). Knows nothing about how recall scores.

use std::sync::OnceLock;

use regex::Regex;

use crate::agent::event::Status;
use crate::articulate::Change;
use crate::kernel::Loaded;
use crate::memory::{Kind, Memories, Memory, MemoryError};
use crate::perceive::focus::Candidate;
use crate::perceive::Intent;
use nerd_logic::vocab::Verb;

/// The confidence of the one most recent subject; below it when several fit.
const RECENT: f64 = 0.9;
const ONE_OF_SEVERAL: f64 = 0.6;
/// How many recent memories a reference looks back through.
const LOOK_BACK: usize = 50;

/// Stores what one request did: the request with its target and status, and
/// each changed file. Returns the memories written.
pub fn promote(
    memories: &Memories,
    source: &str,
    request: &str,
    target: Option<&Candidate>,
    status: Status,
    changes: &[Change],
) -> Result<Vec<Memory>, MemoryError> {
    let subject = target.map(|c| if c.symbol.is_empty() { c.path.as_str() } else { c.symbol.as_str() });
    let mut out = Vec::new();
    let about = subject.map_or(String::new(), |s| format!(" (target {s})"));
    out.push(memories.add(Kind::Request, &format!("{request}{about}: {}", status.as_str()), subject, source)?);
    for change in changes {
        // The target when the change is in its file, else the file itself.
        let subject = match target {
            Some(c) if c.path == change.path && !c.symbol.is_empty() => c.symbol.as_str(),
            _ => change.path.as_str(),
        };
        let text = format!(
            "changed {} (+{} -{}) for \"{request}\": {}",
            change.path,
            change.added,
            change.removed,
            status.as_str()
        );
        out.push(memories.add(Kind::Change, &text, Some(subject), source)?);
    }
    Ok(out)
}

/// What the last `requests` requests targeted or changed, newest first, each
/// subject once with its age (0: the latest request that touched anything).
pub fn recent_subjects(memories: &Memories, requests: u32) -> Result<Vec<(String, u32)>, MemoryError> {
    let mut out: Vec<(String, u32)> = Vec::new();
    let mut sources: Vec<String> = Vec::new();
    for memory in memories.list(None, LOOK_BACK)? {
        let Some(subject) = memory.subject else { continue };
        if !matches!(memory.kind, Kind::Change | Kind::Request) {
            continue;
        }
        if !sources.contains(&memory.source) {
            if sources.len() as u32 == requests {
                break;
            }
            sources.push(memory.source.clone());
        }
        if !out.iter().any(|(s, _)| *s == subject) {
            out.push((subject, sources.len() as u32 - 1));
        }
    }
    Ok(out)
}

/// How far ahead of the next memory the best match must score to be forgotten without asking.
const CLEAR_LEAD: f64 = 0.1;
/// The least fused score a memory needs to be the one a "forget" means.
const FORGET_AT_LEAST: f64 = 0.5;

/// Carries out "remember that …" (a note, or a preference when it says how
/// work should be done) and "forget …" (the one memory that clearly matches;
/// several close matches are listed and nothing is forgotten).
pub fn update(memories: &Memories, intent: &Intent, session: &str) -> Result<(Status, String), MemoryError> {
    let text = intent.target.trim();
    if intent.verb == Verb::Remember {
        static PREFERENCE: OnceLock<Regex> = OnceLock::new();
        let preference = PREFERENCE
            .get_or_init(|| {
                Regex::new(
                    r"(?i)\b(i|we) (prefer|like|want|would rather)\b|\b(always|never|do not|don't) (use|add|write)\b",
                )
                .unwrap_or_else(|e| panic!("built-in regex: {e}"))
            })
            .is_match(text);
        let kind = if preference { Kind::Preference } else { Kind::Note };
        let memory = memories.add(kind, text, None, &format!("user, session {session}"))?;
        return Ok((
            Status::Succeeded,
            format!("Remembered ({} {}): {}", memory.kind.as_str(), memory.id, memory.text),
        ));
    }
    let hits = memories.search(text, 3)?;
    let lead = match (hits.first(), hits.get(1)) {
        (Some(best), Some(next)) => best.score - next.score,
        (Some(best), None) => best.score,
        _ => 0.0,
    };
    match hits.first() {
        Some(best) if best.score >= FORGET_AT_LEAST && lead >= CLEAR_LEAD => {
            let gone = memories.forget(best.memory.id)?;
            Ok((Status::Succeeded, format!("Forgot memory {}: {}", gone.id, gone.text)))
        }
        Some(_) => {
            let listed: Vec<String> =
                hits.iter().map(|h| format!("{}) {} ({:.2})", h.memory.id, h.memory.text, h.score)).collect();
            Ok((
                Status::NeedsClarification,
                format!("Which memory should I forget? {}; `nerd memory forget ID` forgets one.", listed.join("  ")),
            ))
        }
        None => Ok((Status::Answered, format!("Nothing I remember matches \"{text}\"."))),
    }
}

/// Whether a target refers back to earlier work rather than naming code.
pub fn refers_back(target: &str) -> bool {
    static BACK: OnceLock<Regex> = OnceLock::new();
    let re = BACK.get_or_init(|| {
        Regex::new(
            r"(?i)\b(we|you|i)\s+(just\s+)?(changed|edited|fixed|touched|renamed|modified|worked on|looked at|added)\b|\b(last|previous|same|again|earlier|yesterday|before)\b|^(that|it|this)(\s+(one|function|method|file|test|class))?$",
        )
        .unwrap_or_else(|e| panic!("built-in regex: {e}"))
    });
    re.is_match(target.trim())
}

/// Candidates for a target that refers back: the subjects of the most recent
/// changes and requests that still exist, newest first. The newest is
/// confident only when nothing else was touched by the same request.
pub fn remembered(memories: &Memories, target: &str, loaded: &Loaded) -> Result<Vec<Candidate>, MemoryError> {
    if !refers_back(target) {
        return Ok(Vec::new());
    }
    let wants_test = target.to_lowercase().contains("test");
    let exists = |subject: &str| -> Option<Candidate> {
        let path = subject.split('#').next().unwrap_or(subject);
        let (_, projection) = loaded.projections.get(path)?;
        // A symbol since renamed or removed leaves its file.
        let symbol = match projection.symbols.iter().find(|s| s.id == subject) {
            Some(s) if wants_test && s.kind != nerd_logic::vocab::SymbolKind::Test => return None,
            Some(s) => s.id.clone(),
            None => String::new(),
        };
        Some(Candidate { path: path.to_string(), symbol, confidence: 0.0 })
    };
    // Each subject with how many requests ago it was touched; a request's subjects share an age.
    let mut recent: Vec<(u32, Candidate)> = Vec::new();
    for (subject, age) in recent_subjects(memories, u32::MAX)? {
        let Some(candidate) = exists(&subject) else { continue };
        if !recent.iter().any(|(_, c)| c.path == candidate.path && c.symbol == candidate.symbol) {
            recent.push((age, candidate));
        }
    }
    let Some(&(newest, _)) = recent.first() else { return Ok(Vec::new()) };
    let same_request = recent.iter().filter(|(age, _)| *age == newest).count();
    Ok(recent
        .into_iter()
        .enumerate()
        .map(|(i, (_, mut c))| {
            c.confidence = if i == 0 && same_request == 1 { RECENT } else { ONE_OF_SEVERAL };
            c
        })
        .collect())
}

/// Carries out a model's checked memory operations under `source`
/// (`model:SESSION`); returns what each did, in words. A model forgets only
/// what a model noted.
pub fn model_operations(
    memories: &Memories,
    ops: &[crate::agent::patch::MemoryOp],
    source: &str,
) -> Result<Vec<String>, MemoryError> {
    use crate::agent::patch::MemoryOp;
    let mut done = Vec::new();
    for op in ops {
        done.push(match op {
            MemoryOp::Note { text, subject } => {
                let m = memories.add(Kind::Fact, text, subject.as_deref(), source)?;
                format!("noted {}: {}", m.id, m.text)
            }
            MemoryOp::Link { a, relation, b } => {
                memories.link(a, relation, b, None)?;
                format!("linked {a} -{relation}-> {b}")
            }
            MemoryOp::Forget { id } => match memories.get(*id) {
                Ok(m) if m.source.starts_with("model:") => {
                    memories.forget(*id)?;
                    format!("forgot {id}: {}", m.text)
                }
                Ok(_) => format!("kept {id}: a model may forget only what a model noted"),
                Err(MemoryError::NoSuchMemory(_)) => format!("nothing to forget: there is no memory {id}"),
                Err(e) => return Err(e),
            },
        });
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::refers_back;

    #[test]
    fn references_to_earlier_work_are_told_from_names() {
        for yes in [
            "the function we changed yesterday",
            "that test again",
            "the file you just edited",
            "it",
            "that one",
            "the last change",
        ] {
            assert!(refers_back(yes), "{yes}");
        }
        for no in ["parse_version", "src/lib.rs", "the retry logic", "Version::parse", "test_timeout"] {
            assert!(!refers_back(no), "{no}");
        }
    }
}
