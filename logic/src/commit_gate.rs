//! Commit gate core: `block_commit(Reason, Path, Line)` from blocking
//! diagnostics and failing tests. Which severities block is policy
//! (`blocking_severity`), so configuration can only add blockers.
//! Knows nothing about which tools produced the diagnostics.

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
        })
    }
}

ascent! {
    /// Blocking reasons for a commit.
    pub struct CommitGateProgram;

    relation diagnostic(Severity, Sym, u32, Sym, Sym);
    relation blocking_severity(Severity);
    relation test_outcome(Sym, Sym, u32, TestOutcome);

    relation block_commit(Reason, Sym, u32);

    block_commit(Reason::Diagnostic(*sev, *code, *msg), path, line) <--
        diagnostic(sev, path, line, code, msg), blocking_severity(sev);
    block_commit(Reason::TestFailed(*name, *outcome), path, line) <--
        test_outcome(name, path, line, outcome), if matches!(outcome, TestOutcome::Fail | TestOutcome::Error);
}

/// Runs the commit gate program on a fresh instance.
pub fn run(facts: &Facts) -> CommitGateProgram {
    let mut p = CommitGateProgram {
        diagnostic: facts.diagnostic.clone(),
        blocking_severity: facts.blocking_severity.iter().map(|&s| (s,)).collect(),
        test_outcome: facts.test_outcome.clone(),
        ..Default::default()
    };
    p.run();
    p
}

impl CommitGateProgram {
    pub fn atoms(&self, predicate: &str, s: &Symbols) -> Option<Vec<Atom>> {
        (predicate == "block_commit")
            .then(|| self.block_commit.iter().map(|(r, p, l)| atom!(s, predicate, *r, *p, *l)).collect())
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
            };
            out.push((atom!(s, "block_commit", reason, path, line), proof));
        }
    }
}
