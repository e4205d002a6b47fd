//! Articulation: facts back into text. The kernel picks the surface mode
//! (question, answer, diff, summary); this module writes it. A model's reply
//! is a dual payload, `surface_response` plus a control packet, and the
//! packet's updates are checked exactly like perception output: only
//! perception predicates, typed, bounded; nothing derived, no policy, no
//! approvals. Knows nothing about how changes were made.

use nerd_logic::vocab::SurfaceMode;
use nerd_logic::{evaluate, parse_atom, Atom, Facts, Origin};
use serde::Deserialize;

/// Updates a control packet may carry.
pub const MAX_UPDATES: usize = 32;
/// Characters a surface response may have.
pub const MAX_SURFACE: usize = 20_000;
/// Citations a reply may carry.
pub const MAX_CITATIONS: usize = 40;

/// One file a turn changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    pub added: u32,
    pub removed: u32,
    /// The unified diff of this file.
    pub diff: String,
}

/// Picks the surface mode with the kernel and writes the text.
pub fn articulate(mut facts: Facts, changes: &[Change], answer: &str, question: Option<&str>) -> (SurfaceMode, String) {
    for c in changes {
        let p = facts.path(&c.path);
        facts.changed_file.push((p, c.added, c.removed));
    }
    let fixpoint = evaluate(facts);
    let mode = fixpoint.surface();
    let text = match mode {
        SurfaceMode::Question => question.unwrap_or("Could you say more precisely what you mean?").to_string(),
        SurfaceMode::Answer => answer.to_string(),
        SurfaceMode::Diff => {
            let diff = changes.iter().map(|c| c.diff.trim_end()).collect::<Vec<_>>().join("\n");
            if answer.is_empty() {
                diff
            } else {
                format!("{answer}\n\n{diff}")
            }
        }
        SurfaceMode::Summary => {
            let (added, removed) = changes.iter().fold((0, 0), |(a, r), c| (a + c.added, r + c.removed));
            let mut lines = vec![format!("Changed {} file(s), +{added} −{removed}:", changes.len())];
            lines.extend(changes.iter().map(|c| format!("  {}  +{} −{}", c.path, c.added, c.removed)));
            if !answer.is_empty() {
                lines.push(String::new());
                lines.push(answer.to_string());
            }
            lines.join("\n")
        }
    };
    (mode, text)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    surface_response: String,
    #[serde(default)]
    citations: Vec<Citation>,
    #[serde(default)]
    control: Option<ControlWire>,
}

/// A place a reply cites: a workspace path, a 1-based line, and text quoted from it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Citation {
    pub path: String,
    pub line: u32,
    pub quote: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ControlWire {
    #[serde(default)]
    updates: Vec<String>,
}

/// Why a reply is refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ReplyError {
    #[error("not a reply: {0}")]
    Shape(String),
    #[error("the surface response is longer than {MAX_SURFACE} characters")]
    TooLong,
    #[error("at most {MAX_UPDATES} control updates")]
    TooMany,
    #[error("at most {MAX_CITATIONS} citations")]
    TooManyCitations,
    #[error("update `{0}`: {1}")]
    Update(String, String),
}

/// A model's checked reply: what to show and the perception facts it adds.
#[derive(Debug, PartialEq)]
pub struct Reply {
    pub surface_response: String,
    /// Places the response cites, unchecked: `agent::explain` checks them against the files.
    pub citations: Vec<Citation>,
    pub updates: Vec<Atom>,
}

/// Removes a Markdown code fence a model may have wrapped its JSON in.
pub fn unfence(text: &str) -> &str {
    let t = text.trim();
    let Some(rest) = t.strip_prefix("```") else { return t };
    let body = rest.split_once('\n').map_or("", |(_, b)| b);
    body.trim_end().strip_suffix("```").unwrap_or(body).trim()
}

/// Parses a dual payload (bare or fenced JSON); updates are admitted only as perception facts.
pub fn parse_reply(text: &str) -> Result<Reply, ReplyError> {
    let wire: Wire = serde_json::from_str(unfence(text)).map_err(|e| ReplyError::Shape(e.to_string()))?;
    if wire.surface_response.chars().count() > MAX_SURFACE {
        return Err(ReplyError::TooLong);
    }
    if wire.citations.len() > MAX_CITATIONS {
        return Err(ReplyError::TooManyCitations);
    }
    let raw = wire.control.map(|c| c.updates).unwrap_or_default();
    if raw.len() > MAX_UPDATES {
        return Err(ReplyError::TooMany);
    }
    let mut scratch = Facts::default();
    let mut updates = Vec::with_capacity(raw.len());
    for u in raw {
        let atom = parse_atom(&u).map_err(|e| ReplyError::Update(u.clone(), e.to_string()))?;
        match nerd_logic::predicate(&atom.predicate).map(|p| p.origin) {
            Some(Origin::Perception) => {}
            Some(other) => {
                return Err(ReplyError::Update(
                    u,
                    format!("a reply may only add perception facts, not {} facts", other.as_str()),
                ))
            }
            None => return Err(ReplyError::Update(u, "unknown predicate".into())),
        }
        scratch.assert_atom(&atom).map_err(|e| ReplyError::Update(u.clone(), e.to_string()))?;
        updates.push(atom);
    }
    Ok(Reply { surface_response: wire.surface_response, citations: wire.citations, updates })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(path: &str, added: u32, removed: u32) -> Change {
        Change {
            path: path.into(),
            added,
            removed,
            diff: format!("--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-old\n+new\n"),
        }
    }

    #[test]
    fn the_kernel_picks_the_surface() {
        let base = nerd_logic::defaults::policy;
        let (mode, text) = articulate(base(), &[change("src/lib.rs", 1, 1)], "fixed", None);
        assert_eq!(mode, SurfaceMode::Diff);
        assert!(text.contains("+new"));
        let (mode, text) = articulate(base(), &[change("src/a.rs", 3, 1), change("src/b.rs", 2, 0)], "renamed", None);
        assert_eq!(mode, SurfaceMode::Summary);
        assert!(text.starts_with("Changed 2 file(s), +5 −1:") && text.contains("renamed"), "{text}");
        let (mode, text) = articulate(base(), &[], "src/config.rs:12", None);
        assert_eq!((mode, text.as_str()), (SurfaceMode::Answer, "src/config.rs:12"));
        let mut unclear = base();
        let (m, c, h) = (unclear.sym("target"), unclear.sym("fix it"), unclear.sym(""));
        unclear.ambiguity_flag.push((m, c, h));
        let (mode, text) = articulate(unclear, &[change("x", 1, 0)], "", Some("Which test?"));
        assert_eq!((mode, text.as_str()), (SurfaceMode::Question, "Which test?"));
    }

    #[test]
    fn control_packets_carry_only_perception_facts() {
        let ok = r#"{"surface_response":"Done.","control":{"updates":["refactor_target(\"src/a.rs#f\")","context_hint(\"i1\", \"broad\")"]}}"#;
        assert_eq!(parse_reply(ok).unwrap().updates.len(), 2);
        let bad = [
            (r#"{"surface_response":"x","control":{"updates":["permitted(\"a\")"]}}"#, "derived"),
            (r#"{"surface_response":"x","control":{"updates":["approval(\"a\", \"model\")"]}}"#, "policy"),
            (r#"{"surface_response":"x","control":{"updates":["modified(\"src/a.rs\")"]}}"#, "world"),
            (
                r#"{"surface_response":"x","control":{"updates":["user_intent(\"i\", \"query\", \"delete\", \"\", \"\")"]}}"#,
                "category",
            ),
            (r#"{"surface_response":"x","control":{"updates":["nonsense("]}}"#, "update"),
            (r#"{"surface_response":"x","approve":true}"#, "unknown field"),
        ];
        for (text, want) in bad {
            let err = parse_reply(text).expect_err(text).to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
    }
}
