//! One evaluation of every program over one fact base: the kernel's answer.
//! Programs run in dependency order on fresh instances (ascent is not
//! incremental); the result renders any predicate as atoms and explains any
//! derived atom. Knows nothing about where the facts came from.

use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;

use crate::articulation::{self, ArticulationProgram};
use crate::atom::Atom;
use crate::catalog::{self, Origin};
use crate::clarification::{self, ClarificationProgram};
use crate::commit_gate::{self, CommitGateProgram};
use crate::constitution::{self, ConstitutionProgram};
use crate::facts::Facts;
use crate::impact::{self, CallSites, ClosureProgram, ImpactProgram};
use crate::proof::{self, Explanation, Proof};
use crate::strategy::{self, StrategyProgram};
use crate::vocab::Strategy;
use crate::watchdog::{self, WatchdogProgram};
use crate::{atom, render};

/// Why a query or explanation could not be answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelError {
    UnknownPredicate { name: String },
    WrongArity { name: String, expected: usize, got: usize },
    NotDerived { atom: Atom },
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelError::UnknownPredicate { name } => {
                let known: Vec<&str> = catalog::PREDICATES.iter().map(|p| p.name).collect();
                write!(f, "unknown predicate `{name}`; known predicates: {}", known.join(", "))
            }
            KernelError::WrongArity { name, expected, got } => {
                write!(f, "`{name}` takes {expected} argument(s), the atom has {got}")
            }
            KernelError::NotDerived { atom } => {
                write!(f, "{atom} is not derived and is not a fact")
            }
        }
    }
}

impl std::error::Error for KernelError {}

/// The fixpoint of every program over one fact base.
pub struct Fixpoint {
    facts: Facts,
    impact: ImpactProgram,
    clarification: ClarificationProgram,
    strategy: StrategyProgram,
    gate: CommitGateProgram,
    constitution: ConstitutionProgram,
    watchdog: WatchdogProgram,
    articulation: ArticulationProgram,
    closure: OnceCell<ClosureProgram>,
    fact_sets: RefCell<HashMap<&'static str, HashSet<Atom>>>,
}

/// Runs every program over `facts`, in dependency order.
pub fn evaluate(facts: Facts) -> Fixpoint {
    let impact = impact::run(&facts);
    let clarification = clarification::run(&facts);
    let strategy = strategy::run(&facts, &clarification.clarification_needed, &impact.unsafe_to_refactor);
    let gate = commit_gate::run(&facts);
    let articulation = articulation::run(&facts, !clarification.clarification_needed.is_empty());
    let watchdog = watchdog::run(&facts);
    let constitution = constitution::run(&facts, !watchdog.watchdog_stop.is_empty());
    Fixpoint {
        facts,
        impact,
        clarification,
        strategy,
        gate,
        constitution,
        watchdog,
        articulation,
        closure: OnceCell::new(),
        fact_sets: RefCell::new(HashMap::new()),
    }
}

impl Fixpoint {
    pub fn facts(&self) -> &Facts {
        &self.facts
    }

    /// Gives the fact base back, e.g. to reuse its interner.
    pub fn into_facts(self) -> Facts {
        self.facts
    }

    /// The one active strategy.
    pub fn strategy(&self) -> Strategy {
        self.strategy.active()
    }

    /// Every atom of `predicate`, sorted. Base predicates list their facts.
    pub fn atoms(&self, predicate: &str) -> Result<Vec<Atom>, KernelError> {
        let info = catalog::predicate(predicate)
            .ok_or_else(|| KernelError::UnknownPredicate { name: predicate.to_string() })?;
        let mut atoms =
            if info.origin == Origin::Derived { self.derived(info.name) } else { base_atoms(&self.facts, info.name) };
        atoms.sort();
        atoms.dedup();
        Ok(atoms)
    }

    /// Every derived atom except the on-demand `depends_on` closure: what
    /// `nerd watch` diffs between evaluations.
    pub fn derived_atoms(&self) -> BTreeSet<Atom> {
        catalog::PREDICATES
            .iter()
            .filter(|p| p.origin == Origin::Derived && p.name != "depends_on")
            .flat_map(|p| self.derived(p.name))
            .collect()
    }

    fn derived(&self, name: &str) -> Vec<Atom> {
        let s = &self.facts.symbols;
        if name == "depends_on" {
            return self.closure().atoms(s);
        }
        None.or_else(|| self.impact.atoms(name, s))
            .or_else(|| self.clarification.atoms(name, s))
            .or_else(|| self.strategy.atoms(name, s))
            .or_else(|| self.gate.atoms(name, s))
            .or_else(|| self.constitution.atoms(name, s))
            .or_else(|| self.watchdog.atoms(name, s))
            .or_else(|| self.articulation.atoms(name, s))
            .unwrap_or_default()
    }

    fn closure(&self) -> &ClosureProgram {
        self.closure.get_or_init(|| impact::run_closure(&self.facts))
    }

    /// The shortest derivation of `atom` down to base facts.
    pub fn explain(&self, atom: &Atom) -> Result<Explanation, KernelError> {
        let info = catalog::predicate(&atom.predicate)
            .ok_or_else(|| KernelError::UnknownPredicate { name: atom.predicate.clone() })?;
        if info.columns.len() != atom.args.len() {
            return Err(KernelError::WrongArity {
                name: atom.predicate.clone(),
                expected: info.columns.len(),
                got: atom.args.len(),
            });
        }
        let proofs = self.proofs(atom.predicate == "depends_on");
        let is_fact = |a: &Atom| self.is_fact(a);
        proof::explain(atom, &proofs, &is_fact).ok_or_else(|| KernelError::NotDerived { atom: atom.clone() })
    }

    /// Every recorded proof, by head atom.
    fn proofs(&self, with_closure: bool) -> HashMap<Atom, Vec<Proof>> {
        let sites = CallSites::new(&self.facts);
        let s = &self.facts.symbols;
        let mut all = Vec::new();
        self.impact.proofs(&sites, &mut all);
        self.clarification.proofs(s, &mut all);
        self.strategy.proofs(s, &mut all);
        self.gate.proofs(s, &mut all);
        self.constitution.proofs(s, &mut all);
        self.watchdog.proofs(s, &mut all);
        self.articulation.proofs(s, &mut all);
        if with_closure {
            self.closure().proofs(&sites, &mut all);
        }
        let mut map: HashMap<Atom, Vec<Proof>> = HashMap::new();
        for (head, proof) in all {
            map.entry(head).or_default().push(proof);
        }
        map
    }

    fn is_fact(&self, atom: &Atom) -> bool {
        let Some(info) = catalog::predicate(&atom.predicate) else {
            return false;
        };
        if info.origin == Origin::Derived {
            return false;
        }
        let mut sets = self.fact_sets.borrow_mut();
        sets.entry(info.name).or_insert_with(|| base_atoms(&self.facts, info.name).into_iter().collect()).contains(atom)
    }
}

/// Renders the base facts of one predicate (none for derived or unknown names).
pub fn base_atoms(f: &Facts, name: &str) -> Vec<Atom> {
    let s = &f.symbols;
    let one = |present: bool| {
        if present {
            vec![atom!(s, name)]
        } else {
            vec![]
        }
    };
    match name {
        "file" => render::rows(&f.file, |x| atom!(s, name, x.path, x.sha256, x.lang, x.mtime, x.size, x.is_test)),
        "chunk" => render::rows(&f.chunk, |&(p, a, b, y)| atom!(s, name, p, a, b, y)),
        "symbol" => render::rows(&f.symbol, |x| {
            atom!(s, name, x.id, x.kind, x.visibility, x.path, x.line, x.end_line, x.signature)
        }),
        "defines" => render::rows(&f.defines, |&(p, x)| atom!(s, name, p, x)),
        "test_symbol" => f.test_symbols().map(|t| atom!(s, name, t)).collect(),
        "calls" => render::rows(&f.calls, |&(a, b, p, l)| atom!(s, name, a, b, p, l)),
        "unresolved_call" => render::rows(&f.unresolved_call, |&(a, b, p, l)| atom!(s, name, a, b, p, l)),
        "imports" => render::rows(&f.imports, |&(p, i)| atom!(s, name, p, i)),
        "test_of" => render::rows(&f.test_of, |&(t, x)| atom!(s, name, t, x)),
        "parse_error" => render::rows(&f.parse_error, |&(p, l, m)| atom!(s, name, p, l, m)),
        "diagnostic" => render::rows(&f.diagnostic, |&(v, p, l, c, m)| atom!(s, name, v, p, l, c, m)),
        "test_outcome" => render::rows(&f.test_outcome, |&(n, p, l, o)| atom!(s, name, n, p, l, o)),
        "modified" => render::rows(&f.modified, |&m| atom!(s, name, m)),
        "staged" => render::rows(&f.staged, |&m| atom!(s, name, m)),
        "test_state" => vec![atom!(s, name, f.test_state)],
        "retry_count" => vec![atom!(s, name, f.retry_count)],
        "workspace_empty" => one(f.workspace_empty),
        "user_intent" => render::rows(&f.user_intent, |&(i, c, v, t, k)| atom!(s, name, i, c, v, t, k)),
        "context_hint" => render::rows(&f.context_hint, |&(i, h)| atom!(s, name, i, h)),
        "focus_resolution" => render::rows(&f.focus_resolution, |&(r, p, x, c)| atom!(s, name, r, p, x, c)),
        "ambiguity_flag" => render::rows(&f.ambiguity_flag, |&(m, c, h)| atom!(s, name, m, c, h)),
        "refactor_target" => render::rows(&f.refactor_target, |&t| atom!(s, name, t)),
        "pending_patch" => one(f.pending_patch),
        "retry_budget" => vec![atom!(s, name, f.retry_budget)],
        "blocking_severity" => render::rows(&f.blocking_severity, |&v| atom!(s, name, v)),
        "approval" => render::rows(&f.approval, |&(a, src)| atom!(s, name, a, src)),
        "secret" => render::rows(&f.secret, |&(p, l, k)| atom!(s, name, p, l, k)),
        "changed_file" => render::rows(&f.changed_file, |&(p, a, r)| atom!(s, name, p, a, r)),
        "rule_violation" => render::rows(&f.rule_violation, |&(r, p, l)| atom!(s, name, r, p, l)),
        "forbidden_pattern" => render::rows(&f.forbidden_pattern, |&(g, r, v, m)| atom!(s, name, g, r, v, m)),
        "commit_override" => render::rows(&f.commit_override, |&r| atom!(s, name, r)),
        "autonomy" => vec![atom!(s, name, f.autonomy)],
        "project_denied_program" => render::rows(&f.project_denied_program, |&x| atom!(s, name, x)),
        "audit_event" => render::rows(&f.audit_event, |&(q, k, p, o)| atom!(s, name, q, k, p, o)),
        "allowed_binary" => render::rows(&f.allowed_binary, |&x| atom!(s, name, x)),
        "code_runner" => render::rows(&f.code_runner, |&x| atom!(s, name, x)),
        "mutating_program" => render::rows(&f.mutating_program, |&x| atom!(s, name, x)),
        "high_risk_program" => render::rows(&f.high_risk_program, |&x| atom!(s, name, x)),
        "script_runner" => render::rows(&f.script_runner, |&x| atom!(s, name, x)),
        "shell" => render::rows(&f.shell, |&x| atom!(s, name, x)),
        "mutating_subcommand" => render::rows(&f.mutating_subcommand, |&(x, y)| atom!(s, name, x, y)),
        "mutating_flag" => render::rows(&f.mutating_flag, |&(x, y)| atom!(s, name, x, y)),
        "allowed_module" => render::rows(&f.allowed_module, |&(x, y)| atom!(s, name, x, y)),
        "mutating_module" => render::rows(&f.mutating_module, |&(x, y)| atom!(s, name, x, y)),
        "critical_subcommand" => render::rows(&f.critical_subcommand, |&(x, y)| atom!(s, name, x, y)),
        "denied_flag" => render::rows(&f.denied_flag, |&(x, y, z)| atom!(s, name, x, y, z)),
        "denied_subcommand" => render::rows(&f.denied_subcommand, |&(x, y, z)| atom!(s, name, x, y, z)),
        "denied_subcommand_flag" => render::rows(&f.denied_subcommand_flag, |&(p, x, g, r)| atom!(s, name, p, x, g, r)),
        "network_allow" => render::rows(&f.network_allow, |&x| atom!(s, name, x)),
        "policy_ask" => render::rows(&f.policy_ask, |&x| atom!(s, name, x)),
        "action" => render::rows(&f.action, |&(x, y)| atom!(s, name, x, y)),
        "exec_program" => render::rows(&f.exec_program, |&(x, y)| atom!(s, name, x, y)),
        "exec_unresolved" => render::rows(&f.exec_unresolved, |&x| atom!(s, name, x)),
        "exec_flag" => render::rows(&f.exec_flag, |&(x, y)| atom!(s, name, x, y)),
        "exec_subcommand" => render::rows(&f.exec_subcommand, |&(x, y)| atom!(s, name, x, y)),
        "exec_module" => render::rows(&f.exec_module, |&(x, y)| atom!(s, name, x, y)),
        "exec_script" => render::rows(&f.exec_script, |&x| atom!(s, name, x)),
        "exec_suspicious" => render::rows(&f.exec_suspicious, |&(x, y)| atom!(s, name, x, y)),
        "touches" => render::rows(&f.touches, |&(x, y, z)| atom!(s, name, x, y, z)),
        "path_class" => render::rows(&f.path_class, |&(x, y)| atom!(s, name, x, y)),
        "net_host" => render::rows(&f.net_host, |&(x, y)| atom!(s, name, x, y)),
        "net_domain" => render::rows(&f.net_domain, |&(x, y)| atom!(s, name, x, y)),
        "net_class" => render::rows(&f.net_class, |&(x, y)| atom!(s, name, x, y)),
        "exfiltration" => render::rows(&f.exfiltration, |&(x, y)| atom!(s, name, x, y)),
        _ => vec![],
    }
}
