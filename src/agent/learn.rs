//! Learned rules in the agent: a standing instruction or preference becomes
//! a proposed rule, put to the user, enforced once accepted; a patch a person
//! declines is remembered with what it would have broken, and the third
//! declined patch that breaks the same restriction proposes a rule. Also the
//! rules in force, as patch validation and the model's context read them.
//! Knows nothing about how restrictions are checked or stored.

use std::collections::BTreeSet;

use crate::agent::event::Status;
use crate::check::learned::{self, Change, Violation};
use crate::config::restriction::Restriction;
use crate::memory::rules::{LearnedRule, Origin, Proposed, Status as RuleStatus};
use crate::memory::{Kind, Memories, MemoryError};
use crate::perceive::instruction::restriction_for;
use crate::perceive::Intent;
use crate::world::lang::Lang;

/// What the user is asked when a rule is proposed.
pub fn question(rule: &LearnedRule) -> String {
    format!("accept rule {}: {} ({})", rule.id, rule.rule, rule.source())
}

/// Where an accepted rule applies, in a sentence.
pub fn enforced_where(rule: &LearnedRule) -> &'static str {
    if rule.restriction.is_checked() {
        "patches that break it are refused, the commit gate blocks it, and the model is told it"
    } else {
        "the model is told it with every change it is asked for; no check judges it"
    }
}

/// The outcome of a standing instruction: what to propose, or why nothing.
pub enum Learned {
    /// A rule to put to the user (new, or proposed before and still open).
    Ask(Box<LearnedRule>),
    /// Nothing to ask: already in force, or refused.
    Done(Status, String),
}

/// Reads `text` (perceived as `intent`) into a rule and stores it as proposed,
/// with the preference memory it came from.
pub fn propose(
    memories: &Memories,
    text: &str,
    intent: &Intent,
    workspace_lang: Option<Lang>,
    session: &str,
) -> Result<Learned, MemoryError> {
    let restriction = match restriction_for(text, intent, workspace_lang) {
        Ok(r) => r,
        Err(why) => return Ok(Learned::Done(Status::Refused, format!("Not recorded as a rule: {why}."))),
    };
    // Said again, a rule already known keeps its first memory: no second copy of the preference.
    let memory = match memories.find_rule(&restriction, text)? {
        Some(known) => known.memory,
        None => Some(memories.add(Kind::Preference, text, None, session)?.id),
    };
    match memories.propose_rule(&restriction, text, Origin::Said, (memory, 0), session)? {
        Proposed::Known(rule) if rule.status == RuleStatus::Accepted => Ok(Learned::Done(
            Status::Succeeded,
            format!("Rule {} is already in force: {} ({}).", rule.id, rule.rule, rule.source()),
        )),
        Proposed::Known(rule) | Proposed::New(rule) => Ok(Learned::Ask(Box::new(rule))),
    }
}

/// Records the answer to a proposed rule: accepted or declined by a person,
/// accepted by `--approval auto`, or left proposed when nobody could answer.
pub fn decide(
    memories: &Memories,
    rule: &LearnedRule,
    granted: bool,
    by_person: bool,
    source: &str,
) -> Result<(Status, String), MemoryError> {
    if granted {
        let rule = memories.decide_rule(rule.number, true, source)?;
        return Ok((
            Status::Succeeded,
            format!("Rule {} accepted ({source}): {}. From now on {}.", rule.id, rule.rule, enforced_where(&rule)),
        ));
    }
    if by_person {
        let rule = memories.decide_rule(rule.number, false, source)?;
        return Ok((Status::Refused, format!("Rule {} declined: {}; it is not enforced.", rule.id, rule.rule)));
    }
    Ok((
        Status::Planned,
        format!(
            "Proposed rule {}: {} ({}). Nothing enforces it until you accept it: nerd memory rules accept {}",
            rule.id,
            rule.rule,
            rule.source(),
            rule.id
        ),
    ))
}

/// The accepted rules, as (id, restriction) for the checks.
pub fn in_force(memories: &Memories) -> Result<Vec<LearnedRule>, MemoryError> {
    memories.rules_in_force()
}

/// Violations of the rules in force by a set of (path, old, new) edits.
pub fn violations(rules: &[LearnedRule], edits: &[(&str, &str, &str)]) -> Vec<Violation> {
    let checked: Vec<(String, Restriction)> =
        rules.iter().filter(|r| r.restriction.is_checked()).map(|r| (r.id.clone(), r.restriction.clone())).collect();
    if checked.is_empty() {
        return Vec::new();
    }
    let changes: Vec<Change<'_>> = edits.iter().map(|(path, old, new)| Change { path, old, new }).collect();
    learned::violations(&checked, &changes)
}

/// Why a change is refused, naming each broken rule once.
pub fn refusal(rules: &[LearnedRule], found: &[Violation]) -> String {
    let mut seen = BTreeSet::new();
    let parts: Vec<String> = found
        .iter()
        .filter(|v| seen.insert(v.rule.clone()))
        .map(|v| {
            let said = rules.iter().find(|r| r.id == v.rule).map_or(String::new(), |r| format!(", {}", r.source()));
            format!(
                "it breaks rule {} ({}{said}): {} at {}:{}",
                v.rule,
                rule_text(rules, &v.rule),
                v.what,
                v.path,
                v.line
            )
        })
        .collect();
    parts.join("; ")
}

fn rule_text(rules: &[LearnedRule], id: &str) -> String {
    rules.iter().find(|r| r.id == id).map_or_else(String::new, |r| r.rule.clone())
}

/// The rules the model is given with every change it is asked for.
pub fn context_block(rules: &[LearnedRule]) -> String {
    if rules.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = rules
        .iter()
        .map(|r| match r.restriction {
            Restriction::Guidance => format!("- {} (preference): {}", r.id, r.text),
            _ => format!("- {}: {} (from: {})", r.id, r.rule, r.text),
        })
        .collect();
    format!("Rules the user set (a patch that breaks one is refused):\n{}\n\n", lines.join("\n"))
}

/// Remembers a patch a person declined; returns the rules this proposes.
pub fn declined(
    memories: &Memories,
    session: &str,
    edits: &[(&str, &str, &str)],
) -> Result<Vec<LearnedRule>, MemoryError> {
    let changes: Vec<Change<'_>> = edits.iter().map(|(path, old, new)| Change { path, old, new }).collect();
    let breaks = learned::candidates(&changes);
    let paths: Vec<String> = edits.iter().map(|(p, _, _)| p.to_string()).collect();
    let proposed = memories.record_declined_patch(session, &paths, &breaks)?;
    Ok(proposed)
}
