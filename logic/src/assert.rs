//! The parse boundary from uniform atoms into typed base facts. Only base
//! predicates (world, perception, policy) can be asserted; a derived predicate,
//! an unknown one, a wrong arity or an ill-typed argument is rejected with a
//! reason. Knows nothing about where the atoms come from.

use std::fmt;

use crate::atom::{Atom, Term};
use crate::catalog::{self, Origin};
use crate::facts::{Confidence, Facts, FileFact, SymbolFact};
use crate::symbols::Sym;

/// Why an atom cannot become a base fact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssertError {
    UnknownPredicate(String),
    /// Derived predicates are the kernel's output, never its input.
    Derived(String),
    Arity {
        predicate: String,
        expected: usize,
        got: usize,
    },
    BadArgument {
        predicate: String,
        column: &'static str,
        reason: String,
    },
}

impl fmt::Display for AssertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AssertError::UnknownPredicate(p) => write!(f, "unknown predicate `{p}`"),
            AssertError::Derived(p) => {
                write!(f, "`{p}` is derived by the kernel and cannot be asserted")
            }
            AssertError::Arity { predicate, expected, got } => {
                write!(f, "`{predicate}` takes {expected} argument(s), got {got}")
            }
            AssertError::BadArgument { predicate, column, reason } => {
                write!(f, "`{predicate}` column {column}: {reason}")
            }
        }
    }
}

impl std::error::Error for AssertError {}

struct Args<'a> {
    facts: &'a mut Facts,
    predicate: &'static str,
    columns: &'static [&'static str],
    args: &'a [Term],
}

impl Args<'_> {
    fn bad(&self, i: usize, reason: String) -> AssertError {
        AssertError::BadArgument { predicate: self.predicate.to_string(), column: self.columns[i], reason }
    }

    fn str(&mut self, i: usize) -> Result<Sym, AssertError> {
        match &self.args[i] {
            Term::Str(s) => {
                let s = s.clone();
                Ok(self.facts.sym(&s))
            }
            other => Err(self.bad(i, format!("expected a string, got {other}"))),
        }
    }

    fn word<T: std::str::FromStr<Err = crate::vocab::UnknownWord>>(&self, i: usize) -> Result<T, AssertError> {
        match &self.args[i] {
            Term::Str(s) => s.parse::<T>().map_err(|e| self.bad(i, e.to_string())),
            other => Err(self.bad(i, format!("expected a word, got {other}"))),
        }
    }

    fn int(&self, i: usize) -> Result<i64, AssertError> {
        match &self.args[i] {
            Term::Int(n) => Ok(*n),
            other => Err(self.bad(i, format!("expected an integer, got {other}"))),
        }
    }

    fn u32(&self, i: usize) -> Result<u32, AssertError> {
        let n = self.int(i)?;
        u32::try_from(n).map_err(|_| self.bad(i, format!("{n} is out of range")))
    }

    fn bool(&self, i: usize) -> Result<bool, AssertError> {
        match &self.args[i] {
            Term::Bool(b) => Ok(*b),
            other => Err(self.bad(i, format!("expected true or false, got {other}"))),
        }
    }

    fn confidence(&self, i: usize) -> Result<Confidence, AssertError> {
        match &self.args[i] {
            Term::Ratio(r) => Ok(Confidence(*r)),
            Term::Int(n @ (0 | 1)) => Ok(Confidence(*n as u16 * 1000)),
            other => Err(self.bad(i, format!("expected a ratio in [0, 1], got {other}"))),
        }
    }
}

impl Facts {
    /// Adds one base fact given as a uniform atom.
    pub fn assert_atom(&mut self, atom: &Atom) -> Result<(), AssertError> {
        let info =
            catalog::predicate(&atom.predicate).ok_or_else(|| AssertError::UnknownPredicate(atom.predicate.clone()))?;
        if info.origin == Origin::Derived {
            return Err(AssertError::Derived(atom.predicate.clone()));
        }
        if info.columns.len() != atom.args.len() {
            return Err(AssertError::Arity {
                predicate: atom.predicate.clone(),
                expected: info.columns.len(),
                got: atom.args.len(),
            });
        }
        let mut a = Args { facts: self, predicate: info.name, columns: info.columns, args: &atom.args };
        match info.name {
            "file" => {
                let fact = FileFact {
                    path: a.str(0)?,
                    sha256: a.str(1)?,
                    lang: a.str(2)?,
                    mtime: a.int(3)?,
                    size: a.int(4)?,
                    is_test: a.bool(5)?,
                };
                a.facts.file.push(fact);
            }
            "chunk" => {
                let row = (a.str(0)?, a.u32(1)?, a.u32(2)?, a.str(3)?);
                a.facts.chunk.push(row);
            }
            "symbol" => {
                let fact = SymbolFact {
                    id: a.str(0)?,
                    kind: a.word(1)?,
                    visibility: a.word(2)?,
                    path: a.str(3)?,
                    line: a.u32(4)?,
                    end_line: a.u32(5)?,
                    signature: a.str(6)?,
                };
                a.facts.symbol.push(fact);
            }
            "defines" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.defines.push(row);
            }
            "test_symbol" => {
                // A test symbol is a symbol of kind test; assert the minimal one.
                let id = a.str(0)?;
                let empty = a.facts.sym("");
                a.facts.symbol.push(SymbolFact {
                    id,
                    kind: crate::vocab::SymbolKind::Test,
                    visibility: crate::vocab::Visibility::Private,
                    path: empty,
                    line: 0,
                    end_line: 0,
                    signature: empty,
                });
            }
            "calls" | "unresolved_call" => {
                let row = (a.str(0)?, a.str(1)?, a.str(2)?, a.u32(3)?);
                if info.name == "calls" {
                    a.facts.calls.push(row)
                } else {
                    a.facts.unresolved_call.push(row)
                }
            }
            "imports" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.imports.push(row);
            }
            "test_of" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.test_of.push(row);
            }
            "parse_error" => {
                let row = (a.str(0)?, a.u32(1)?, a.str(2)?);
                a.facts.parse_error.push(row);
            }
            "diagnostic" => {
                let row = (a.word(0)?, a.str(1)?, a.u32(2)?, a.str(3)?, a.str(4)?);
                a.facts.diagnostic.push(row);
            }
            "test_outcome" => {
                let row = (a.str(0)?, a.str(1)?, a.u32(2)?, a.word(3)?);
                a.facts.test_outcome.push(row);
            }
            "modified" => {
                let x = a.str(0)?;
                a.facts.modified.push(x);
            }
            "staged" => {
                let x = a.str(0)?;
                a.facts.staged.push(x);
            }
            "test_state" => a.facts.test_state = a.word(0)?,
            "retry_count" => a.facts.retry_count = a.u32(0)?,
            "workspace_empty" => a.facts.workspace_empty = true,
            "user_intent" => {
                let row = (a.str(0)?, a.word(1)?, a.word::<crate::vocab::Verb>(2)?, a.str(3)?, a.str(4)?);
                if row.2.category() != row.1 {
                    let reason =
                        format!("verb `{}` belongs to category `{}`, not `{}`", row.2, row.2.category(), row.1);
                    return Err(a.bad(2, reason));
                }
                a.facts.user_intent.push(row);
            }
            "context_hint" => {
                let row = (a.str(0)?, a.word(1)?);
                a.facts.context_hint.push(row);
            }
            "focus_resolution" => {
                let row = (a.str(0)?, a.str(1)?, a.str(2)?, a.confidence(3)?);
                a.facts.focus_resolution.push(row);
            }
            "ambiguity_flag" => {
                let row = (a.str(0)?, a.str(1)?, a.str(2)?);
                a.facts.ambiguity_flag.push(row);
            }
            "refactor_target" => {
                let x = a.str(0)?;
                a.facts.refactor_target.push(x);
            }
            "pending_patch" => a.facts.pending_patch = true,
            "retry_budget" => a.facts.retry_budget = a.u32(0)?,
            "changed_file" => {
                let row = (a.str(0)?, a.u32(1)?, a.u32(2)?);
                a.facts.changed_file.push(row);
            }
            "secret" => {
                let row = (a.str(0)?, a.u32(1)?, a.str(2)?);
                a.facts.secret.push(row);
            }
            "rule_violation" => {
                let row = (a.str(0)?, a.str(1)?, a.u32(2)?);
                a.facts.rule_violation.push(row);
            }
            "forbidden_pattern" => {
                let row = (a.str(0)?, a.str(1)?, a.word(2)?, a.str(3)?);
                a.facts.forbidden_pattern.push(row);
            }
            "autonomy" => a.facts.autonomy = a.word(0)?,
            "project_denied_program" => {
                let x = a.str(0)?;
                a.facts.project_denied_program.push(x);
            }
            "audit_event" => {
                let row = (a.u32(0)?, a.word(1)?, a.str(2)?, a.word(3)?);
                a.facts.audit_event.push(row);
            }
            "allowed_binary" => {
                let row = a.str(0)?;
                a.facts.allowed_binary.push(row);
            }
            "code_runner" => {
                let row = a.str(0)?;
                a.facts.code_runner.push(row);
            }
            "mutating_program" => {
                let row = a.str(0)?;
                a.facts.mutating_program.push(row);
            }
            "high_risk_program" => {
                let row = a.str(0)?;
                a.facts.high_risk_program.push(row);
            }
            "script_runner" => {
                let row = a.str(0)?;
                a.facts.script_runner.push(row);
            }
            "shell" => {
                let row = a.str(0)?;
                a.facts.shell.push(row);
            }
            "mutating_subcommand" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.mutating_subcommand.push(row);
            }
            "mutating_flag" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.mutating_flag.push(row);
            }
            "allowed_module" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.allowed_module.push(row);
            }
            "mutating_module" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.mutating_module.push(row);
            }
            "critical_subcommand" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.critical_subcommand.push(row);
            }
            "denied_flag" => {
                let row = (a.str(0)?, a.str(1)?, a.str(2)?);
                a.facts.denied_flag.push(row);
            }
            "denied_subcommand" => {
                let row = (a.str(0)?, a.str(1)?, a.str(2)?);
                a.facts.denied_subcommand.push(row);
            }
            "denied_subcommand_flag" => {
                let row = (a.str(0)?, a.str(1)?, a.str(2)?, a.str(3)?);
                a.facts.denied_subcommand_flag.push(row);
            }
            "network_allow" => {
                let row = a.str(0)?;
                a.facts.network_allow.push(row);
            }
            "policy_ask" => {
                let row = a.word(0)?;
                a.facts.policy_ask.push(row);
            }
            "action" => {
                let row = (a.str(0)?, a.word(1)?);
                a.facts.action.push(row);
            }
            "exec_program" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.exec_program.push(row);
            }
            "exec_unresolved" => {
                let row = a.str(0)?;
                a.facts.exec_unresolved.push(row);
            }
            "exec_flag" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.exec_flag.push(row);
            }
            "exec_subcommand" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.exec_subcommand.push(row);
            }
            "exec_module" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.exec_module.push(row);
            }
            "exec_script" => {
                let row = a.str(0)?;
                a.facts.exec_script.push(row);
            }
            "exec_suspicious" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.exec_suspicious.push(row);
            }
            "touches" => {
                let row = (a.str(0)?, a.str(1)?, a.word(2)?);
                a.facts.touches.push(row);
            }
            "path_class" => {
                let row = (a.str(0)?, a.word(1)?);
                a.facts.path_class.push(row);
            }
            "net_host" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.net_host.push(row);
            }
            "net_domain" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.net_domain.push(row);
            }
            "net_class" => {
                let row = (a.str(0)?, a.word(1)?);
                a.facts.net_class.push(row);
            }
            "exfiltration" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.exfiltration.push(row);
            }
            "commit_override" => {
                let x = a.str(0)?;
                a.facts.commit_override.push(x);
            }
            "blocking_severity" => {
                let v = a.word(0)?;
                a.facts.blocking_severity.push(v);
            }
            "approval" => {
                let row = (a.str(0)?, a.str(1)?);
                a.facts.approval.push(row);
            }
            other => return Err(AssertError::UnknownPredicate(other.to_string())),
        }
        Ok(())
    }
}
