//! Commit gate: `block_commit(Reason, Path, Line)` from blocking diagnostics,
//! failing tests, staged secrets and violated project rules; `commit_blocked`
//! unless a human override is recorded. Which severities block is policy
//! (`blocking_severity`), so configuration can only add blockers.
//! Knows nothing about which tools produced the findings.

// ascent binds an unused tuple variable for nullary relations.
#![allow(unused_variables)]

use ascent::ascent;

use crate::atom::Atom;
use crate::proof::{Premise, Proof};
use crate::reasons::Reason;
use crate::schema::{atoms, relation, Facts};
use crate::symbols::{Line, PathId, Sym, Symbols};
use crate::vocab::{Severity, TestOutcome};

/// One reason the commit must not land, where.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Blocker {
    pub reason: Reason,
    pub path: PathId,
    pub line: Line,
}

ascent! {
    /// Blocking reasons for a commit.
    pub struct CommitGateProgram;

    relation diagnostic(Severity, PathId, Line, Sym, Sym);
    relation blocking_severity(Severity);
    relation test_outcome(Sym, PathId, Line, TestOutcome);
    relation secret(PathId, Line, Sym);
    relation rule_violation(Sym, PathId, Line);
    relation forbidden_pattern(Sym, Sym, Severity, Sym);
    relation commit_override(Sym);

    relation block_commit(Reason, PathId, Line);
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
        diagnostic: relation::diagnostic(facts),
        blocking_severity: relation::blocking_severity(facts),
        test_outcome: relation::test_outcome(facts),
        secret: relation::secret(facts),
        rule_violation: relation::rule_violation(facts),
        forbidden_pattern: relation::forbidden_pattern(facts),
        commit_override: relation::commit_override(facts),
        ..Default::default()
    };
    p.run();
    p
}

impl CommitGateProgram {
    pub fn proofs(&self, s: &Symbols, out: &mut Vec<(Atom, Proof)>) {
        // Each reason carries its whole rule body, so the proof is read off the atom.
        for &(reason, path, line) in &self.block_commit {
            let proof = match reason {
                Reason::Diagnostic(sev, code, msg) => Proof {
                    rule: "gate/blocking-diagnostic",
                    premises: vec![
                        Premise::Holds(atoms::diagnostic(s, (sev, path, line, code, msg))),
                        Premise::Holds(atoms::blocking_severity(s, sev)),
                    ],
                },
                Reason::TestFailed(name, outcome) => Proof {
                    rule: "gate/failing-test",
                    premises: vec![Premise::Holds(atoms::test_outcome(s, (name, path, line, outcome)))],
                },
                Reason::Secret(kind) => Proof {
                    rule: "gate/staged-secret",
                    premises: vec![Premise::Holds(atoms::secret(s, (path, line, kind)))],
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
                            Premise::Holds(atoms::rule_violation(s, (id, path, line))),
                            Premise::Holds(atoms::forbidden_pattern(s, (lang, id, sev, msg))),
                            Premise::Holds(atoms::blocking_severity(s, sev)),
                        ],
                    }
                }
            };
            out.push((atoms::block_commit(s, (reason, path, line)), proof));
        }
        if let Some((r, p, l)) = self.block_commit.first() {
            let blocker = Premise::Holds(atoms::block_commit(s, (*r, *p, *l)));
            if !self.commit_blocked.is_empty() {
                let absent = Premise::Check("no commit_override recorded".to_string());
                out.push((
                    atoms::commit_blocked(s),
                    Proof { rule: "gate/blocked", premises: vec![blocker.clone(), absent] },
                ));
            }
            for &(reason,) in &self.commit_overridden {
                let premises = vec![blocker.clone(), Premise::Holds(atoms::commit_override(s, reason))];
                out.push((atoms::commit_overridden(s, reason), Proof { rule: "gate/overridden", premises }));
            }
        }
    }
}
