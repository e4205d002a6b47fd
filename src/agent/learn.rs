//! Learned rules in the agent: a standing instruction or preference becomes
//! a proposed rule, put to the user, enforced once accepted; a patch a person
//! declines is remembered with what it would have broken, and the third
//! declined patch that breaks the same restriction proposes a rule. Also the
//! rules in force, as patch validation and the model's context read them.
//! Knows nothing about how restrictions are checked or stored.

use std::collections::BTreeSet;

use crate::agent::event::Status;
use crate::agent::patch::Edit;
use crate::check::learned::{self, Change, Violation};
use crate::config::restriction::Restriction;
use crate::memory::rules::{LearnedRule, Proposed};
use crate::memory::{Memories, MemoryError};
use crate::perceive::constraint::RequestConstraint;
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

/// Reads `text` (perceived as `intent`) into a rule and stores it as
/// proposed, with the preference memory it came from; `Err` says why it
/// cannot be a rule. A rule said before is found, not stored again.
pub fn propose(
    memories: &Memories,
    text: &str,
    intent: &Intent,
    workspace_lang: Option<Lang>,
    session: &str,
) -> Result<Result<Proposed, String>, MemoryError> {
    match restriction_for(text, intent, workspace_lang) {
        Ok(restriction) => Ok(Ok(memories.propose_said(&restriction, text, session)?)),
        Err(why) => Ok(Err(why)),
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

/// Violations of the rules in force by `edits`.
pub fn violations(rules: &[LearnedRule], edits: &[Edit]) -> Vec<Violation> {
    let checked: Vec<(String, Restriction)> =
        rules.iter().filter(|r| r.restriction.is_checked()).map(|r| (r.id.clone(), r.restriction.clone())).collect();
    if checked.is_empty() {
        return Vec::new();
    }
    learned::violations(&checked, &changes(edits))
}

fn changes(edits: &[Edit]) -> Vec<Change<'_>> {
    edits.iter().map(|e| Change { path: &e.path, old: &e.old, new: &e.new }).collect()
}

/// Why a change is refused, naming each broken rule once.
pub fn refusal(rules: &[LearnedRule], found: &[Violation]) -> String {
    each_rule_once(found, |v| {
        let rule = rules.iter().find(|r| r.id == v.rule);
        let (what, said) = rule.map_or_else(Default::default, |r| (r.rule.clone(), format!(", {}", r.source())));
        format!("it breaks rule {} ({what}{said}): {} at {}:{}", v.rule, v.what, v.path, v.line)
    })
}

/// The first violation of each rule, said by `say`, joined.
fn each_rule_once(found: &[Violation], say: impl Fn(&Violation) -> String) -> String {
    let mut seen = BTreeSet::new();
    let parts: Vec<String> = found.iter().filter(|v| seen.insert(v.rule.clone())).map(say).collect();
    parts.join("; ")
}

/// Why `edits` are refused under the request's `constraints`, naming each
/// broken constraint once with its words, and the first path that breaks
/// one; `None` when they break none.
pub fn constraint_refusal(constraints: &[RequestConstraint], edits: &[Edit]) -> Option<(String, String)> {
    let rules: Vec<(String, Restriction)> = constraints.iter().map(|c| (c.id.clone(), c.restriction.clone())).collect();
    let found = learned::violations(&rules, &changes(edits));
    let first = found.first()?.path.clone();
    let why = each_rule_once(&found, |v| {
        let said = constraints.iter().find(|c| c.id == v.rule).map_or("", |c| c.said.as_str());
        format!("it breaks the request's constraint {} (\"{said}\"): it {} ({}:{})", v.rule, v.what, v.path, v.line)
    });
    Some((why, first))
}

/// The request's constraints, as the model is told them.
pub fn constraint_block(constraints: &[RequestConstraint]) -> String {
    if constraints.is_empty() {
        return String::new();
    }
    let lines: Vec<String> =
        constraints.iter().map(|c| format!("- {}: {} (from: {})", c.id, c.restriction.describe(), c.said)).collect();
    format!("Constraints of this request (a patch that breaks one is refused):\n{}\n\n", lines.join("\n"))
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
pub fn declined(memories: &Memories, session: &str, edits: &[Edit]) -> Result<Vec<LearnedRule>, MemoryError> {
    let breaks = learned::candidates(&changes(edits));
    let paths: Vec<String> = edits.iter().map(|e| e.path.clone()).collect();
    memories.record_declined_patch(session, &paths, &breaks)
}
