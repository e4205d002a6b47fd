//! Learned rules (autopoiesis): a restriction is proposed from what the user
//! said or from what three patches they declined had in common, shown, and
//! enforced only once accepted. A rule names where it came from. The same
//! restriction is never proposed twice; a declined one is not proposed again
//! from declined patches (the user said no to it).
//! Knows nothing about how restrictions are found in text or checked.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{Memories, MemoryError};
use crate::config::restriction::Restriction;
use crate::store::{NewRule, RuleRow};
use crate::timing::now_ns;

/// Declined patches that must break the same restriction before a rule is proposed.
pub const DECLINED_BEFORE_PROPOSING: i64 = 3;

/// Where a rule stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Proposed,
    Accepted,
    Declined,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Proposed => "proposed",
            Status::Accepted => "accepted",
            Status::Declined => "declined",
        }
    }

    fn parse(text: &str) -> Option<Status> {
        [Status::Proposed, Status::Accepted, Status::Declined].into_iter().find(|s| s.as_str() == text)
    }
}

/// Where a rule came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The user said it (a preference or instruction).
    Said,
    /// Patches the user declined all broke it.
    DeclinedPatches,
}

impl Origin {
    fn as_str(self) -> &'static str {
        match self {
            Origin::Said => "said",
            Origin::DeclinedPatches => "declined_patches",
        }
    }
}

/// A learned rule, as callers see it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LearnedRule {
    /// `L` and its number: the id violations name.
    pub id: String,
    #[serde(skip)]
    pub number: i64,
    #[serde(skip)]
    pub restriction: Restriction,
    pub kind: &'static str,
    /// What it forbids, in words.
    pub rule: String,
    /// What the user said, or what the declined patches had in common.
    pub text: String,
    pub status: Status,
    pub origin: Origin,
    /// The preference memory it came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<i64>,
    /// Declined patches behind it.
    pub evidence: i64,
    pub session: String,
    pub created_ns: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_ns: Option<i64>,
}

impl LearnedRule {
    /// Where it came from, in words.
    pub fn source(&self) -> String {
        crate::store::origin_in_words(self.origin.as_str(), &self.text, self.evidence)
    }
}

impl TryFrom<RuleRow> for LearnedRule {
    type Error = MemoryError;
    fn try_from(row: RuleRow) -> Result<LearnedRule, MemoryError> {
        let restriction = Restriction::from_json(&row.restriction)
            .map_err(|e| MemoryError::StoredRule(format!("L{}: {e}", row.id)))?;
        let status = Status::parse(&row.status)
            .ok_or_else(|| MemoryError::StoredRule(format!("L{}: status `{}`", row.id, row.status)))?;
        let origin = match row.origin.as_str() {
            "said" => Origin::Said,
            "declined_patches" => Origin::DeclinedPatches,
            other => return Err(MemoryError::StoredRule(format!("L{}: origin `{other}`", row.id))),
        };
        Ok(LearnedRule {
            id: format!("L{}", row.id),
            number: row.id,
            kind: restriction.kind(),
            rule: match restriction {
                Restriction::Guidance => format!("guidance, not checked: {}", row.text),
                _ => restriction.describe(),
            },
            restriction,
            text: row.text,
            status,
            origin,
            memory: row.memory,
            evidence: row.evidence,
            session: row.session,
            created_ns: row.created_ns,
            decided_by: row.decided_by,
            decided_ns: row.decided_ns,
        })
    }
}

/// What proposing did.
#[derive(Clone, Debug, PartialEq)]
pub enum Proposed {
    /// A new rule, waiting for acceptance.
    New(LearnedRule),
    /// The same rule already exists (in whatever state it is).
    Known(LearnedRule),
}

/// Parses `L3` or `3`.
pub fn parse_id(text: &str) -> Option<i64> {
    let t = text.trim();
    t.strip_prefix(['L', 'l']).unwrap_or(t).parse().ok().filter(|n: &i64| *n > 0)
}

impl Memories {
    /// Proposes `restriction`, which the user said as `text`; the first time,
    /// the text is kept as a preference memory too.
    pub fn propose_said(&self, restriction: &Restriction, text: &str, session: &str) -> Result<Proposed, MemoryError> {
        if let Some(rule) = self.find_rule(restriction, text)? {
            return Ok(Proposed::Known(rule));
        }
        let memory = self.add(super::Kind::Preference, text, None, session)?;
        Ok(Proposed::New(self.insert_rule(restriction, text, Origin::Said, (Some(memory.id), 0), session)?))
    }

    fn insert_rule(
        &self,
        restriction: &Restriction,
        text: &str,
        origin: Origin,
        (memory, evidence): (Option<i64>, i64),
        session: &str,
    ) -> Result<LearnedRule, MemoryError> {
        let stored = restriction.to_json();
        let new = NewRule {
            restriction: &stored,
            text: text.trim(),
            origin: origin.as_str(),
            memory,
            evidence,
            session,
            status: Status::Proposed.as_str(),
            at_ns: now_ns(),
        };
        let id = self.db.rule_insert(&new)?;
        self.rule(id)
    }

    /// The rule with this restriction, whatever its status. Guidance rules
    /// are the same rule only when their text is; checked ones when their restriction is.
    fn find_rule(&self, restriction: &Restriction, text: &str) -> Result<Option<LearnedRule>, MemoryError> {
        let text = text.trim();
        let same = self
            .db
            .rules_with(&restriction.to_json())?
            .into_iter()
            .find(|r| restriction.is_checked() || r.text.eq_ignore_ascii_case(text));
        same.map(LearnedRule::try_from).transpose()
    }

    pub fn rule(&self, number: i64) -> Result<LearnedRule, MemoryError> {
        self.db.rule(number)?.ok_or(MemoryError::NoSuchRule(number))?.try_into()
    }

    /// Accepts or declines rule `number`; `by` is who decided ("human", "approval-mode:auto").
    pub fn decide_rule(&self, number: i64, accept: bool, by: &str) -> Result<LearnedRule, MemoryError> {
        let status = if accept { Status::Accepted } else { Status::Declined };
        if !self.db.rule_decide(number, status.as_str(), by, now_ns())? {
            return Err(MemoryError::NoSuchRule(number));
        }
        self.rule(number)
    }

    /// Rules in one state, or all, oldest first.
    pub fn rules(&self, status: Option<Status>) -> Result<Vec<LearnedRule>, MemoryError> {
        self.db.rules(status.map(Status::as_str))?.into_iter().map(LearnedRule::try_from).collect()
    }

    /// The accepted rules: the ones enforced.
    pub fn rules_in_force(&self) -> Result<Vec<LearnedRule>, MemoryError> {
        self.rules(Some(Status::Accepted))
    }

    /// Records a patch the user declined, with the restrictions it breaks,
    /// and proposes a rule for each restriction that `DECLINED_BEFORE_PROPOSING`
    /// declined patches now break and that has never been a rule.
    pub fn record_declined_patch(
        &self,
        session: &str,
        paths: &[String],
        breaks: &BTreeSet<Restriction>,
    ) -> Result<Vec<LearnedRule>, MemoryError> {
        let stored: Vec<String> = breaks.iter().map(Restriction::to_json).collect();
        let counts = self.db.declined_insert(session, &paths.join("\n"), &stored, now_ns())?;
        let mut proposed = Vec::new();
        for (restriction, (_, n)) in breaks.iter().zip(counts) {
            if n < DECLINED_BEFORE_PROPOSING {
                continue;
            }
            let text = restriction.breaking();
            if self.find_rule(restriction, &text)?.is_none() {
                proposed.push(self.insert_rule(restriction, &text, Origin::DeclinedPatches, (None, n), session)?);
            }
        }
        Ok(proposed)
    }
}
