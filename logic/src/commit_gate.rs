//! Commit gate: `block_commit(Reason, Path, Line)` from blocking diagnostics,
//! failing tests, staged secrets and violated project rules; `commit_blocked`
//! unless a human override is recorded. Which severities block is policy
//! (`blocking_severity`), so configuration can only add blockers.
//! Knows nothing about which tools produced the findings.

// ascent binds an unused tuple variable for nullary relations.
#![allow(unused_variables)]

use ascent::ascent;

use crate::atom;
use crate::atom::{Atom, Term};
use crate::facts::Facts;
use crate::proof::{Premise, Proof};
use crate::render::Render;
use crate::symbols::{Sym, Symbols};
use crate::vocab::{Severity, TestOutcome};

/// Why a commit is blocked, kept structured until it is shown.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Reason {
    /// A diagnostic of a blocking severity: code and message.
    Diagnostic(Severity, Sym, Sym),
    /// A test that failed or errored: its name.
    TestFailed(Sym, TestOutcome),
    /// A secret in staged content: its kind.
    Secret(Sym),
    /// A project rule matched: its id and message.
    Rule(Sym, Sym),
}

impl Render for Reason {
    fn term(&self, s: &Symbols) -> Term {
        Term::Str(match *self {
            Reason::Diagnostic(sev, code, msg) if s.resolve(code).is_empty() => {
                format!("{sev}: {}", s.resolve(msg))
            }
            Reason::Diagnostic(sev, code, msg) => {
                format!("{sev}[{}]: {}", s.resolve(code), s.resolve(msg))
            }
            Reason::TestFailed(name, TestOutcome::Error) => {
                format!("test errored: {}", s.resolve(name))
            }
            Reason::TestFailed(name, _) => format!("test failed: {}", s.resolve(name)),
            Reason::Secret(kind) => format!("secret: {}", s.resolve(kind)),
            Reason::Rule(id, msg) => format!("rule {}: {}", s.resolve(id), s.resolve(msg)),
        })
    }
}

ascent! {
    /// Blocking reasons for a commit.
    pub struct CommitGateProgram;

    relation diagnostic(Severity, Sym, u32, Sym, Sym);
    relation blocking_severity(Severity);
    relation test_outcome(Sym, Sym, u32, TestOutcome);
    relation secret(Sym, u32, Sym);
    relation rule_violation(Sym, Sym, u32);
    relation forbidden_pattern(Sym, Sym, Severity, Sym);
    relation commit_override(Sym);

    relation block_commit(Reason, Sym, u32);
    relation commit_blocked();
    relation commit_overridden(Sym);
    relation w_rule(Sym, Severity);

    block_commit(Reason::Diagnostic(*sev, *code, *msg), path, line) <--
        diagnostic(sev, path, line, code, msg), blocking_severity(sev);
    block_commit(Reason::TestFailed(*name, *outcome), path, line) <--
        test_outcome(name, path, line, outcome), if matches!(outcome, TestOutcome::Fail | TestOutcome::Error);
    block_commit(Reason::Secret(*kind), path, line) <-- secret(path, line, kind);
    block_commit(Reason::Rule(*id, *msg), path, line), w_rule(lang, sev) <--
        rule_violation(id, path, line), forbidden_pattern(lang, id, sev, msg), blocking_severity(sev);

    // Blocked unless a human recorded an override, which is itself reported.
    commit_blocked() <-- block_commit(_, _, _), !commit_override(_);
    commit_overridden(r) <-- block_commit(_, _, _), commit_override(r);
}

/// Runs the commit gate program on a fresh instance.
pub fn run(facts: &Facts) -> CommitGateProgram {
    let mut p = CommitGateProgram {
        diagnostic: facts.diagnostic.clone(),
        blocking_severity: facts.blocking_severity.iter().map(|&s| (s,)).collect(),
        test_outcome: facts.test_outcome.clone(),
        ..Default::default()
    };
    gate_inputs(facts, &mut p);
    p.run();
    p
}

/// Commit gate inputs beyond diagnostics and tests.
fn gate_inputs(facts: &Facts, p: &mut CommitGateProgram) {
    p.secret = facts.secret.clone();
    p.rule_violation = facts.rule_violation.clone();
    p.forbidden_pattern = facts.forbidden_pattern.clone();
    p.commit_override = facts.commit_override.iter().map(|&r| (r,)).collect();
}

impl CommitGateProgram {
    pub fn atoms(&self, predicate: &str, s: &Symbols) -> Option<Vec<Atom>> {
        Some(match predicate {
            "block_commit" => self.block_commit.iter().map(|(r, p, l)| atom!(s, predicate, *r, *p, *l)).collect(),
            "commit_blocked" => self.commit_blocked.iter().map(|()| atom!(s, predicate)).collect(),
            "commit_overridden" => self.commit_overridden.iter().map(|(r,)| atom!(s, predicate, *r)).collect(),
            _ => return None,
        })
    }

    pub fn proofs(&self, s: &Symbols, out: &mut Vec<(Atom, Proof)>) {
        // Each reason carries its whole rule body, so the proof is read off the atom.
        for &(reason, path, line) in &self.block_commit {
            let proof = match reason {
                Reason::Diagnostic(sev, code, msg) => Proof {
                    rule: "gate/blocking-diagnostic",
                    premises: vec![
                        Premise::Holds(atom!(s, "diagnostic", sev, path, line, code, msg)),
                        Premise::Holds(atom!(s, "blocking_severity", sev)),
                    ],
                },
                Reason::TestFailed(name, outcome) => Proof {
                    rule: "gate/failing-test",
                    premises: vec![Premise::Holds(atom!(s, "test_outcome", name, path, line, outcome))],
                },
                Reason::Secret(kind) => Proof {
                    rule: "gate/staged-secret",
                    premises: vec![Premise::Holds(atom!(s, "secret", path, line, kind))],
                },
                Reason::Rule(id, msg) => {
                    let Some(&(lang, sev)) = self.w_rule.iter().find(|(lang, sev)| {
                        self.forbidden_pattern.contains(&(*lang, id, *sev, msg))
                            && self.blocking_severity.contains(&(*sev,))
                    }) else {
                        continue;
                    };
                    Proof {
                        rule: "gate/project-rule",
                        premises: vec![
                            Premise::Holds(atom!(s, "rule_violation", id, path, line)),
                            Premise::Holds(atom!(s, "forbidden_pattern", lang, id, sev, msg)),
                            Premise::Holds(atom!(s, "blocking_severity", sev)),
                        ],
                    }
                }
            };
            out.push((atom!(s, "block_commit", reason, path, line), proof));
        }
        if let Some((r, p, l)) = self.block_commit.first() {
            let blocker = Premise::Holds(atom!(s, "block_commit", *r, *p, *l));
            if !self.commit_blocked.is_empty() {
                let absent = Premise::Check("no commit_override recorded".to_string());
                out.push((
                    atom!(s, "commit_blocked"),
                    Proof { rule: "gate/blocked", premises: vec![blocker.clone(), absent] },
                ));
            }
            for &(reason,) in &self.commit_overridden {
                let premises = vec![blocker.clone(), Premise::Holds(atom!(s, "commit_override", reason))];
                out.push((atom!(s, "commit_overridden", reason), Proof { rule: "gate/overridden", premises }));
            }
        }
    }
}
